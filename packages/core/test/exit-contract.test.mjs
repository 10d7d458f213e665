// Every row of the exit contract (shared/DESIGN.md), each in a real child
// process: exact exit status or signal, no crash signature, and from the
// trace every object released before its module finalized, ledger empty.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { assertCleanExit, fixtures, runNode } from './helpers.mjs';

const scenario = join(fixtures, 'scenario.mjs');

// path → what the run must show. `reasons` lists one finalize per env.
export const exitPaths = {
  natural: { status: 0, reasons: ['exit'] },
  'exit-code': { status: 7, reasons: ['exit'] },
  exit: { status: 5, reasons: ['exit'] },
  uncaught: { status: 1, reasons: ['exit'] },
  rejection: { status: 1, reasons: ['exit'] },
  'sigint-handler': { status: 130, reasons: ['exit'] },
  // No handler: the process dies by the signal and nothing can run.
  'sigterm-no-handler': { signal: 'SIGTERM', reasons: [] },
  'handle-signals': { signal: 'SIGTERM', reasons: ['signal'] },
  'async-exit': { status: 4, reasons: ['exit'] },
  'worker-natural': { status: 0, reasons: ['exit', 'exit'], stdout: ['worker exit 0', 'main sum 4999950000'] },
  'worker-exit': { status: 0, reasons: ['exit', 'exit'], stdout: ['worker exit 3', 'main sum 4999950000'] },
  // terminate() runs no JS in the worker: its cleanup hook releases its objects.
  'worker-terminate': { status: 0, reasons: ['cleanup', 'exit'], stdout: ['worker exit 1', 'main sum 4999950000'] },
  'main-exit-while-worker': { status: 6, reasons: ['exit', 'cleanup'] },
};

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
