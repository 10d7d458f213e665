// Every row of the exit contract (shared/DESIGN.md), each in a real child
// process: exact exit status or signal, no crash signature, and from the
// trace every object released before its module finalized, ledger empty.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { exitPaths } from './exit-paths.mjs';
import { assertCleanExit, fixtures, runNode } from './helpers.mjs';

const scenario = join(fixtures, 'scenario.mjs');

describe('exit contract on this Node', { concurrency: 2 }, () => {
  for (const [path, expected] of Object.entries(exitPaths)) {
    it(path, async () => {
      const result = await runNode(scenario, [path]);
      assertCleanExit(result, {
        status: expected.status ?? 0,
        signal: expected.signal ?? null,
        finalizes: { alpha: expected.reasons.length },
        reasons: { alpha: expected.reasons },
      });
      for (const line of expected.stdout ?? []) assert.match(result.stdout, new RegExp(`^${line}$`, 'm'));
      // After a worker ended, however it ended, the main thread still computes.
      if (path.startsWith('worker-')) assert.match(result.stdout, /^main sum 4999950000$/m);
      if (expected.reasons.length === 0) assert.equal(result.trace.length, 0, 'nothing runs on an unhandled signal');
    });
  }

  it('two modules at script scope, process.exit', async () => {
    const result = await runNode(scenario, ['exit', 'alpha,beta']);
    assertCleanExit(result, { status: 5, finalizes: { alpha: 1, beta: 1 } });
  });

  it('two modules with a worker terminated mid-computation', async () => {
    const result = await runNode(scenario, ['worker-terminate', 'alpha,beta']);
    assertCleanExit(result, {
      status: 0,
      finalizes: { alpha: 2, beta: 2 },
      reasons: { alpha: ['cleanup', 'exit'], beta: ['cleanup', 'exit'] },
    });
  });
});
