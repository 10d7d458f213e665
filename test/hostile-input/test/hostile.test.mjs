// Every public member of core, voro, dem, flow, pnm, coupling, io and mpi fed hostile arguments,
// each case in its own child process, PECLET_HOSTILE_JOBS at a time (default 4):
// - the batch: PECLET_HOSTILE_CASES cases (default 2250: 25 rounds of the 90 targets), round robin over the targets from round
//   PECLET_HOSTILE_FIRST (default 0). The same cases for the same code, so the same verdict:
//   exploring with fresh rounds is `pnpm fuzz`'s job, not CI's;
// - the regression corpus (corpus.json): every case that ever failed, replayed every run.
// A failure lists each family of failures with a case to replay: `node test/hostile-input/replay.mjs '<target#n>'`.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inParallel } from '@peclet/test-harness';
import { batchCase, caseId, targetNames } from '../lib/cases.mjs';
import { corpusCases } from '../lib/corpus.mjs';
import { apiCoverage } from '../lib/coverage.mjs';
import { family, replayCommand, runCase } from '../lib/judge.mjs';

const count = (name, fallback, min) => {
  const value = process.env[name];
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < min) throw new RangeError(`${name} must be an integer ≥ ${min}, got ${value}`);
  return n;
};
const cases = count('PECLET_HOSTILE_CASES', 2250, 1);
const first = count('PECLET_HOSTILE_FIRST', 0, 0);
const jobs = count('PECLET_HOSTILE_JOBS', 4, 1);
const fullRun = 10;

/** Runs the cases `ids`; fails listing each family of failures with a case to replay. */
async function runAll(t, ids) {
  const started = performance.now();
  const outcomes = await inParallel(
    ids.map((id) => () => runCase(id)),
    jobs,
  );
  const failed = outcomes.filter((o) => o.problems.length > 0);
  const families = new Map();
  for (const o of failed) {
    const key = family(o);
    const entry = families.get(key) ?? { ids: [], problem: o.problems[0] };
    entry.ids.push(o.id);
    families.set(key, entry);
  }
  t.diagnostic(
    `${ids.length} cases in ${((performance.now() - started) / 1000).toFixed(1)} s, ${failed.length} failed`,
  );
  const lines = [...families].map(
    ([key, { ids: s, problem }]) =>
      `${key} — ${s.length} case(s), e.g. ${replayCommand(s[0])}\n    ${problem.slice(0, 300)}`,
  );
  return {
    outcomes,
    failed,
    report: `${failed.length} of ${ids.length} cases failed, in ${families.size} families:\n${lines.join('\n')}`,
  };
}

test(`${cases} hostile cases over ${targetNames.length} targets from round ${first}`, {
  timeout: 30 * 60_000,
}, async (t) => {
  t.diagnostic(`rounds ${first}..${batchCase(first, cases - 1).n} (PECLET_HOSTILE_FIRST=${first} reruns this batch)`);
  const ids = Array.from({ length: cases }, (_, i) => {
    const { target, n } = batchCase(first, i);
    return caseId(target, n);
  });
  const { outcomes, failed, report } = await runAll(t, ids);
  const coverage = await apiCoverage(outcomes.map((o) => o.report?.api ?? []));
  t.diagnostic(coverage.line);
  assert.equal(failed.length, 0, report);
  // Every target runs at least `fullRun` times in a run this long, and each reaches its members
  // in every case: a member no case reached has lost its target.
  if (cases >= fullRun * targetNames.length) assert.deepEqual(coverage.missed, [], coverage.line);
});

test('the regression corpus: every case that ever failed passes', { timeout: 10 * 60_000 }, async (t) => {
  const { ids, skipped } = corpusCases();
  if (skipped.length > 0) t.diagnostic(`not run here: ${skipped.join('; ')}`);
  assert.ok(ids.length > 0, 'the corpus is empty');
  const { failed, report } = await runAll(t, ids);
  assert.equal(failed.length, 0, report);
});
