// Every public member of core, voro, dem, flow, pnm, coupling and io fed hostile arguments: PECLET_HOSTILE_CASES cases
// (default 2000) from a first seed (PECLET_HOSTILE_SEED, default a fresh one, printed), each in
// its own child process, PECLET_HOSTILE_JOBS at a time (default 4). A failure lists each family
// of failures with a seed to replay: `node test/hostile-input/replay.mjs <seed>`.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inParallel } from '@peclet/test-harness';
import { targetNames } from '../lib/cases.mjs';
import { apiCoverage } from '../lib/coverage.mjs';
import { family, replayCommand, runCase } from '../lib/judge.mjs';

const positive = (name, fallback) => {
  const n = Number(process.env[name] ?? fallback);
  return Number.isInteger(n) && n > 0 ? n : fallback;
};
const cases = positive('PECLET_HOSTILE_CASES', 2000);
const fullRun = 10;
const jobs = positive('PECLET_HOSTILE_JOBS', 4);
const first =
  process.env.PECLET_HOSTILE_SEED !== undefined
    ? Number(process.env.PECLET_HOSTILE_SEED) >>> 0
    : // A multiple of the target count, so that every run starts at the first target.
      Math.floor((Math.random() * 0x7fffffff) / targetNames.length) * targetNames.length;

test(`${cases} hostile cases over ${targetNames.length} targets from seed ${first}`, {
  timeout: 30 * 60_000,
}, async (t) => {
  t.diagnostic(`first seed ${first} (PECLET_HOSTILE_SEED=${first} reruns this batch)`);
  const started = performance.now();
  const seeds = Array.from({ length: cases }, (_, i) => (first + i) >>> 0);
  const outcomes = await inParallel(
    seeds.map((seed) => () => runCase(seed)),
    jobs,
  );
  const failed = outcomes.filter((o) => o.problems.length > 0);
  const families = new Map();
  for (const o of failed) {
    const key = family(o);
    const entry = families.get(key) ?? { seeds: [], problem: o.problems[0] };
    entry.seeds.push(o.seed);
    families.set(key, entry);
  }
  t.diagnostic(`${cases} cases in ${((performance.now() - started) / 1000).toFixed(1)} s, ${failed.length} failed`);
  const coverage = await apiCoverage(outcomes.map((o) => o.report?.api ?? []));
  t.diagnostic(coverage.line);
  const lines = [...families].map(
    ([key, { seeds: s, problem }]) =>
      `${key} — ${s.length} case(s), e.g. ${replayCommand(s[0])}\n    ${problem.slice(0, 300)}`,
  );
  assert.equal(
    failed.length,
    0,
    `${failed.length} of ${cases} cases failed, in ${families.size} families:\n${lines.join('\n')}`,
  );
  // Every target runs at least `fullRun` times in a run this long, and each reaches its members
  // in every case: a member no case reached has lost its target.
  if (cases >= fullRun * targetNames.length) assert.deepEqual(coverage.missed, [], coverage.line);
});
