// Teardown of dem on every row of the exit contract, each in a child
// process: exact status or signal, no crash signature, the Simulation released
// before its module finalized, empty ledger. Also voro and dem together.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { assertCleanExit, runNode } from '../../core/test/helpers.mjs';

const fixtures = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, 'fixtures');
const scenario = join(fixtures, 'scenario.mjs');

const paths = {
  natural: { status: 0, reasons: ['exit'] },
  'exit-code': { status: 7, reasons: ['exit'] },
  exit: { status: 5, reasons: ['exit'] },
  uncaught: { status: 1, reasons: ['exit'] },
  rejection: { status: 1, reasons: ['exit'] },
  'sigint-handler': { status: 130, reasons: ['exit'] },
  'handle-signals': { signal: 'SIGTERM', reasons: ['signal'] },
  'async-exit': { status: 4, reasons: ['exit'] },
  'worker-natural': { status: 0, reasons: ['exit', 'exit'], stdout: ['worker exit 0'] },
  'worker-exit': { status: 0, reasons: ['exit', 'exit'], stdout: ['worker exit 3'] },
  'worker-terminate': { status: 0, reasons: ['cleanup', 'exit'], stdout: ['worker exit 1', 'main steps \\d+'] },
  'main-exit-while-worker': { status: 6, reasons: ['exit', 'cleanup'] },
  'finalize-during-run': {
    status: 0,
    reasons: ['explicit'],
    stdout: ['run: PECLET_CANCELLED', 'after: ReleasedError'],
  },
};

describe('dem exit contract', { concurrency: 2 }, () => {
  for (const [path, expected] of Object.entries(paths)) {
    it(path, async () => {
      const result = await runNode(scenario, [path]);
      assertCleanExit(result, {
        status: expected.status ?? 0,
        signal: expected.signal ?? null,
        finalizes: { dem: expected.reasons.length },
        reasons: { dem: expected.reasons },
      });
      for (const line of expected.stdout ?? []) assert.match(result.stdout, new RegExp(`^${line}$`, 'm'));
    });
  }

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
