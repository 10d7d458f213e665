// Random programs over the public APIs (fuzz/program.mjs), each in its own
// child process on this Node, several at a time. Zero crashes, zero broken
// checks: every failure names its seed and the command that replays it.
//
// PECLET_FUZZ_PROGRAMS (default 2000), PECLET_FUZZ_SEED (first seed; default
// a fresh one per run, printed), PECLET_FUZZ_JOBS (children at once, default 4).

import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { describe, it } from 'node:test';
import { apiCoverage } from '@peclet/test-harness/public-api';
import { replayCommand, runProgram } from '../fuzz/judge.mjs';
import { program } from '../fuzz/program.mjs';
import { transcript } from '../lib/check.mjs';
import { inParallel } from '../lib/pool.mjs';

const count = Number(process.env.PECLET_FUZZ_PROGRAMS ?? 2000);
const firstSeed = Number(process.env.PECLET_FUZZ_SEED ?? randomInt(0, 2 ** 32 - count));
const jobs = Number(process.env.PECLET_FUZZ_JOBS ?? 4);

describe('random programs', () => {
  it('a program is a pure function of its seed', () => {
    for (const seed of [0, 1, firstSeed, 2 ** 32 - 1]) assert.deepEqual(program(seed), program(seed));
    const shapes = new Set(Array.from({ length: 200 }, (_, i) => program(i).end.how));
    assert.equal(shapes.size, 5, 'every way of ending is drawn');
  });

  it(`${count} programs from seed ${firstSeed}, ${jobs} at a time, none fails`, async (t) => {
    assert.ok(Number.isInteger(count) && count > 0, 'PECLET_FUZZ_PROGRAMS must be a positive integer');
    assert.ok(Number.isInteger(firstSeed) && firstSeed >= 0, 'PECLET_FUZZ_SEED must be a non-negative integer');
    const started = Date.now();
    const seeds = Array.from({ length: count }, (_, i) => (firstSeed + i) >>> 0);
    const results = await inParallel(
      seeds.map((seed) => () => runProgram(seed)),
      jobs,
    );
    const failed = results.filter((r) => r.problems.length > 0);
    t.diagnostic(
      `${count} programs (seeds ${firstSeed}..${firstSeed + count - 1}) in ${((Date.now() - started) / 1000).toFixed(1)} s, ${failed.length} failed`,
    );
    const coverage = await apiCoverage(
      results.map((r) => r.api),
      ['voro', 'dem', 'flow', 'pnm', 'coupling'],
      (name) => import(`@peclet/${name}`),
      'programs',
    );
    t.diagnostic(coverage.line);
    const report = failed
      .map((r) => `seed ${r.seed}: ${r.problems.join('; ')}\n  replay: ${replayCommand(r.seed)}`)
      .join('\n');
    const first = failed[0] ? `\nfirst failure, seed ${failed[0].seed}:\n${transcript(failed[0].result)}` : '';
    assert.equal(failed.length, 0, `${failed.length} of ${count} programs failed:\n${report}${first}`);
  });
});
