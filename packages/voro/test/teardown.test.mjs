// voro on every exit path of the contract, in child processes; finalize()
// during tessellateAsync; voro and another module finalized independently.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { exitPaths } from '../../core/test/exit-paths.mjs';
import { assertCleanExit, runNode } from '../../core/test/helpers.mjs';

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));

describe('voro on every exit path', { concurrency: 2 }, () => {
  for (const [path, expected] of Object.entries(exitPaths)) {
    it(path, async () => {
      const result = await runNode(join(fixtures, 'scenario.mjs'), [path]);
      assertCleanExit(result, {
        status: expected.status ?? 0,
        signal: expected.signal ?? null,
        finalizes: { voro: expected.reasons.length },
        reasons: { voro: expected.reasons },
      });
      if (path === 'worker-terminate') assert.match(result.stdout, /^main tessellates 100$/m);
      if (path.startsWith('worker-n')) assert.match(result.stdout, /^main volumes 5000$/m);
    });
  }
});

describe('finalize() during tessellateAsync', () => {
  it('cancels it cleanly, detaches arrays, refuses new work; the kernel test addon keeps working', async () => {
    const result = await runNode(join(fixtures, 'finalize-during-async.mjs'), ['with-core']);
    assertCleanExit(result, {
      status: 0,
      finalizes: { voro: 1, alpha: 1 },
      reasons: { voro: ['explicit'], alpha: ['exit'] },
    });
    const report = JSON.parse(result.stdout.trim().split('\n').at(-1));
    assert.match(
      report.async,
      /^rejected PECLET_CANCELLED: tessellateAsync cancelled: module voro was finalized by finalize\(\)/,
    );
    assert.equal(report.volumesLength, 0);
    assert.match(report.stale, /^ReleasedError: Tessellation#\d+ of module voro was released by finalize\(\)/);
    assert.match(report.create, /^ReleasedError: cannot create Tessellation: module voro was finalized/);
    assert.match(report.createAsync, /^ReleasedError: cannot create tessellateAsync: module voro was finalized/);
    assert.deepEqual(report.core, { sum: 499500, length: 1000 });
  });
});
