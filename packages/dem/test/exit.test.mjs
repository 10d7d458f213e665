// Teardown of dem on every row of the exit contract, each in a child
// process: exact status or signal, no crash signature, the Simulation released
// before its module finalized, empty ledger. Also voro and dem together.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { describeExitContract } from '../../core/test/exit-paths.mjs';
import { assertCleanExit, runNode } from '../../core/test/helpers.mjs';

const fixtures = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, 'fixtures');
const scenario = join(fixtures, 'scenario.mjs');

// Every row of the contract, plus finalize() while run() computes.
describeExitContract({
  module: 'dem',
  scenario,
  extraPaths: {
    'finalize-during-run': {
      status: 0,
      reasons: ['explicit'],
      stdout: ['run: PECLET_CANCELLED', 'after: ReleasedError'],
    },
  },
  workerLine: /^main steps \d+$/m,
});

describe('dem, more than one module', { concurrency: 2 }, () => {
  for (const order of ['dem,voro', 'voro,dem']) {
    it(`voro and dem together, finalized ${order}`, async () => {
      const result = await runNode(join(fixtures, 'two-modules.mjs'), [order]);
      assertCleanExit(result, {
        status: 0,
        finalizes: { dem: 1, voro: 1 },
        reasons: { dem: ['explicit'], voro: ['explicit'] },
      });
      const [first, second] = order.split(',');
      assert.match(result.stdout, new RegExp(`^${first} finalized; ${second} works: true$`, 'm'));
      assert.match(result.stdout, new RegExp(`^${first} after finalize: ReleasedError$`, 'm'));
      assert.match(result.stdout, new RegExp(`^${second} after finalize: ReleasedError$`, 'm'));
      assert.match(result.stdout, /^volumes detached: true$/m);
    });
  }
});
