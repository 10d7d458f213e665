// Teardown of coupling, each in a child process: every row of the exit contract; finalize() while
// a run computes; coupling, flow and dem finalized in all six orders — the coupled simulation then
// throws ReleasedError naming the first of its modules that went, never crashes.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { describeExitContract } from '../../core/test/exit-paths.mjs';
import { assertCleanExit, runNode } from '../../core/test/helpers.mjs';

const fixtures = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, 'fixtures');
const scenario = join(fixtures, 'scenario.mjs');

describeExitContract({
  module: 'coupling',
  scenario,
  extraPaths: {
    'finalize-during-run': {
      status: 0,
      reasons: ['explicit'],
      stdout: [
        'run: PECLET_CANCELLED',
        'after: ReleasedError coupling',
        'voidFraction detached: true',
        'particles live: 27',
      ],
    },
  },
  workerLine: /^main steps \d+$/m,
});

const modules = ['coupling', 'flow', 'dem'];
const orders = modules.flatMap((a) =>
  modules.filter((b) => b !== a).flatMap((b) => modules.filter((c) => c !== a && c !== b).map((c) => [a, b, c])),
);

describe('finalize in every order', { concurrency: 2 }, () => {
  for (const order of orders) {
    it(order.join(' → '), async () => {
      const result = await runNode(join(fixtures, 'orders.mjs'), [order.join(',')]);
      assertCleanExit(result, { status: 0, finalizes: { coupling: 1, flow: 1, dem: 1 } });
      // Every later call names a module that went: coupling once it has, else dem or flow.
      for (const [k, module] of order.entries()) {
        const gone = order.slice(0, k + 1);
        const lines = result.stdout.split('\n').filter((l) => l.startsWith(`after ${module}:`));
        assert.equal(lines.length, 3, result.stdout);
        for (const line of lines) {
          const [, named, isType] = line.match(/ReleasedError (\w+) (\w+)$/) ?? [];
          assert.ok(gone.includes(named), `${line}\n${result.stdout}`);
          if (gone.includes('coupling')) assert.equal(named, 'coupling', line);
          assert.equal(isType, 'true', line);
        }
      }
      assert.match(result.stdout, /^views detached: true$/m);
    });
  }
});
