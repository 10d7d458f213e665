// Random programs over the public APIs (fuzz/program.mjs), each in its own
// child process on this Node, several at a time. Zero crashes, zero broken
// checks: every failure names its seed and the command that replays it.
// - the batch: PECLET_FUZZ_PROGRAMS programs (default 2000) from seed
//   PECLET_FUZZ_SEED (default 0): the same programs for the same code, so the
//   same verdict. Exploring with fresh seeds is `pnpm fuzz`'s job, not CI's;
// - the regression corpus (fuzz/corpus.json): every seed that ever failed.
// PECLET_FUZZ_JOBS: children at once (default 4).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { apiCoverage } from '@peclet/test-harness/public-api';
import { replayCommand, runProgram } from '../fuzz/judge.mjs';
import { program } from '../fuzz/program.mjs';
import { transcript } from '../lib/check.mjs';
import { inParallel } from '../lib/pool.mjs';

const count = Number(process.env.PECLET_FUZZ_PROGRAMS ?? 2000);
const firstSeed = Number(process.env.PECLET_FUZZ_SEED ?? 0);
const jobs = Number(process.env.PECLET_FUZZ_JOBS ?? 4);
const corpus = JSON.parse(readFileSync(new URL('../fuzz/corpus.json', import.meta.url), 'utf8')).seeds;

/** Runs the programs of `seeds`; returns the results and a report of the failures. */
async function runAll(seeds) {
  const results = await inParallel(
    seeds.map((seed) => () => runProgram(seed)),
    jobs,
  );
  const failed = results.filter((r) => r.problems.length > 0);
  const report = failed
    .map((r) => `seed ${r.seed}: ${r.problems.join('; ')}\n  replay: ${replayCommand(r.seed)}`)
    .join('\n');
  const first = failed[0] ? `\nfirst failure, seed ${failed[0].seed}:\n${transcript(failed[0].result)}` : '';
  return { results, failed, message: `${failed.length} of ${seeds.length} programs failed:\n${report}${first}` };
}

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
    const { results, failed, message } = await runAll(seeds);
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
    assert.equal(failed.length, 0, message);
  });

  it('the regression corpus: every seed that ever failed passes', async (t) => {
    assert.ok(Array.isArray(corpus) && corpus.length > 0, 'fuzz/corpus.json lists no seeds');
    for (const [i, entry] of corpus.entries()) {
      assert.ok(Number.isInteger(entry.seed) && entry.seed >= 0 && entry.seed < 2 ** 32, `seeds[${i}].seed`);
      assert.ok(typeof entry.defect === 'string' && entry.defect !== '', `seeds[${i}].defect`);
    }
    const { failed, message } = await runAll(corpus.map((e) => e.seed));
    t.diagnostic(`${corpus.length} seeds of the corpus, ${failed.length} failed`);
    assert.equal(failed.length, 0, message);
  });
});
