// Every row of the exit contract (shared/DESIGN.md), each in a real child
// process: exact exit status or signal, no crash signature, and from the
// trace every object released before its module finalized, ledger empty.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { describeExitContract } from './exit-paths.mjs';
import { assertCleanExit, fixtures, runNode } from './helpers.mjs';

const scenario = join(fixtures, 'scenario.mjs');

// Every row of the contract with one module (alpha); the rows below add what only core shows.
describeExitContract({ module: 'alpha', scenario, workerLine: /^main sum 4999950000$/m });

describe('exit contract on this Node', { concurrency: 2 }, () => {
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
