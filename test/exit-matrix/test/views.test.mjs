// One view per buffer, and every view collectable: each zero-copy getter of every package
// (views/child.mjs lists them) read 10⁷ times in a loop, 10⁷ times keeping each result, and 10⁷
// times over 10⁴ jobs, each getter in its own process (GC-sensitive: never in the runner's).
// Before views were cached, one read cost about 1.3 µs and kept about 85 bytes for ever (a
// voro Tessellation's volumes: RSS 48 → 441 MB after 10⁶ reads, 708 MB after 4·10⁶).

import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { run } from '@peclet/test-harness';
import { getters } from '../views/child.mjs';

const child = join(dirname(fileURLToPath(import.meta.url)), '..', 'views', 'child.mjs');
// What 3·10⁷ reads may leave in resident memory once collected (V8's heap settles within this).
const rssSlackBytes = 8 * 2 ** 20;

// Two children at once (each measures its own process).
describe('zero-copy getters: one view per buffer, bounded memory, views collectable', { concurrency: 2 }, () => {
  for (const name of Object.keys(getters)) {
    it(name, async (t) => {
      const r = await run(process.execPath, ['--expose-gc', child, name], { timeoutMs: 120_000 });
      const line = r.stdout.split('\n').find((l) => l.startsWith('views-result '));
      assert.ok(line, `no result line (${r.status} ${r.signal}): ${r.stderr.slice(-2000)}`);
      const v = JSON.parse(line.slice('views-result '.length));
      t.diagnostic(
        `${v.length} elements; ns per read: loop ${v.loopNsPerRead.toFixed(1)}, kept ${v.keptNsPerRead.toFixed(1)}, over jobs ${v.jobsNsPerRead.toFixed(1)}; RSS +${(v.rssGrowthBytes / 2 ** 20).toFixed(1)} MiB; export records ${v.recordsAtBaseline} → ${v.recordsDropped} once dropped`,
      );
      assert.ok(v.length > 0, 'the getter gave an empty array: nothing was measured');
      assert.equal(v.identity, true, 'the getter returned two different arrays for one buffer');
      assert.equal(v.changedWhileKept, 0, 'the getter returned another array within 10⁷ reads');
      assert.equal(v.identityAfter, true, 'the array changed across jobs while the program held it');
      assert.equal(v.sumFinite, true);
      assert.ok(
        v.rssGrowthBytes < rssSlackBytes,
        `resident memory grew by ${(v.rssGrowthBytes / 2 ** 20).toFixed(1)} MiB over 3·10⁷ reads`,
      );
      assert.equal(v.recordsDropped, 0, 'the kernel kept records of arrays the program dropped');
      assert.equal(v.lengthAfterRelease, 0, 'a view kept across release() was not detached');
      assert.equal(v.byteLengthAfterRelease, 0);
      assert.equal(r.status, 0, r.stderr);
    });
  }

  it('where arrays are copies (PECLET_NO_EXTERNAL_BUFFERS=1) none is kept: each read follows the simulation', async () => {
    const r = await run(process.execPath, ['--expose-gc', child, '--copies'], {
      timeoutMs: 60_000,
      env: { PECLET_NO_EXTERNAL_BUFFERS: '1' },
    });
    const line = r.stdout.split('\n').find((l) => l.startsWith('views-copies '));
    assert.ok(line, r.stderr);
    const v = JSON.parse(line.slice('views-copies '.length));
    assert.equal(v.same, false, 'a copy was kept');
    assert.ok(v.moved > 0, 'the positions read after 200 steps under gravity did not move');
  });
});
