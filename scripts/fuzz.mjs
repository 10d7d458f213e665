#!/usr/bin/env node
// `pnpm fuzz`: exploration with fresh seeds, for as long as asked. CI replays fixed batches and
// the regression corpora (so its verdict is the same for the same commit); this is where new
// defects are found. Run it in every session that changes code; each failure becomes a fix and
// an entry of the corpus it prints.
//
//   pnpm fuzz [-- --minutes 20] [--jobs 4] [--only hostile|programs]
//
// Alternates batches of hostile-input cases (test/hostile-input: two fresh rounds of every
// target, from a random round at or past 10^6, far from CI's rounds) and random programs
// (test/exit-matrix/fuzz: 100 from a random seed at or past 10^6), every package built first
// (`pnpm build`). Prints each failure with its replay command and the corpus entry to add, writes
// the whole report to .cache/fuzz/, and exits 1 if anything failed.

import { randomInt } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { replayCommand as replayProgram, runProgram } from '../test/exit-matrix/fuzz/judge.mjs';
import { inParallel } from '../test/harness/index.mjs';
import { batchCase, caseId, targetNames } from '../test/hostile-input/lib/cases.mjs';
import { family, replayCommand as replayCase, runCase } from '../test/hostile-input/lib/judge.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// `pnpm fuzz -- --minutes 5` hands the script a literal `--` first: options follow it.
const args = process.argv.slice(2);
const { values } = parseArgs({
  args: args[0] === '--' ? args.slice(1) : args,
  options: {
    minutes: { type: 'string', default: '20' },
    jobs: { type: 'string', default: '4' },
    only: { type: 'string' },
  },
});
const minutes = Number(values.minutes);
const jobs = Number(values.jobs);
if (!(minutes > 0)) throw new RangeError(`--minutes must be a positive number, got ${values.minutes}`);
if (!Number.isInteger(jobs) || jobs < 1) throw new RangeError(`--jobs must be a positive integer, got ${values.jobs}`);
if (values.only !== undefined && !['hostile', 'programs'].includes(values.only))
  throw new RangeError(`--only must be 'hostile' or 'programs', got ${values.only}`);

const deadline = Date.now() + minutes * 60_000;
const findings = [];
const counts = { hostile: 0, programs: 0 };
const kinds = values.only ? [values.only] : ['hostile', 'programs'];
const dir = join(root, '.cache', 'fuzz');
mkdirSync(dir, { recursive: true });
const reportFile = join(dir, `${new Date().toISOString().replaceAll(':', '-')}.json`);

// Each failure is printed and the report rewritten as it is found: an interrupted run loses nothing.
function found(finding) {
  findings.push(finding);
  console.log(`  FAILED ${finding.kind} ${finding.id}: ${finding.problems.slice(0, 2).join('; ').slice(0, 400)}`);
  console.log(`    replay: ${finding.replay}`);
  writeReport();
}
function writeReport(summary = 'running') {
  writeFileSync(reportFile, `${JSON.stringify({ summary, counts, findings }, null, 2)}\n`);
}

const today = () => new Date().toISOString().slice(0, 10);

/** Runs `run(item)` for every item, `jobs` at a time; each failure becomes `finding(outcome)`. */
async function batch(kind, items, run, finding) {
  const outcomes = await inParallel(
    items.map((item) => () => run(item)),
    jobs,
  );
  counts[kind] += items.length;
  for (const o of outcomes) if (o.problems.length > 0) found({ problems: o.problems, ...finding(o) });
}

async function hostileBatch() {
  const first = randomInt(1_000_000, 2 ** 31);
  const ids = Array.from({ length: 2 * targetNames.length }, (_, i) => {
    const { target, n } = batchCase(first, i);
    return caseId(target, n);
  });
  await batch('hostile', ids, runCase, (o) => ({
    kind: 'hostile input',
    id: o.id,
    family: family(o),
    replay: replayCase(o.id),
    corpus: { case: o.id, found: today(), defect: '…', fix: '…' },
  }));
  return `hostile input: rounds ${first}..${first + 1} (${ids.length} cases)`;
}

async function programBatch() {
  const first = randomInt(1_000_000, 2 ** 32 - 100);
  const seeds = Array.from({ length: 100 }, (_, i) => first + i);
  await batch('programs', seeds, runProgram, (r) => ({
    kind: 'random program',
    id: r.seed,
    replay: replayProgram(r.seed),
    corpus: { seed: r.seed, found: today(), defect: '…' },
  }));
  return `random programs: seeds ${first}..${first + 99}`;
}

const started = Date.now();
console.log(`fuzz: ${minutes} min, ${jobs} at a time, ${kinds.join(' and ')}`);
for (let batch = 0; Date.now() < deadline; batch++) {
  const kind = kinds[batch % kinds.length];
  const what = await (kind === 'hostile' ? hostileBatch() : programBatch());
  const elapsed = ((Date.now() - started) / 60_000).toFixed(1);
  console.log(`[${elapsed} min] ${what}; ${findings.length} failure(s) so far`);
}

const summary = `fuzz: ${counts.hostile} hostile-input cases and ${counts.programs} random programs in ${((Date.now() - started) / 60_000).toFixed(1)} min, ${findings.length} failed`;
console.log(`\n${summary}`);
for (const f of findings) {
  console.log(`\n${f.kind} ${f.id}: ${f.problems.slice(0, 3).join('; ').slice(0, 600)}`);
  console.log(`  replay: ${f.replay}`);
  console.log(
    `  corpus entry (${f.kind === 'hostile input' ? 'test/hostile-input/corpus.json' : 'test/exit-matrix/fuzz/corpus.json'}): ${JSON.stringify(f.corpus)}`,
  );
}
writeReport(summary);
console.log(`\nreport: ${reportFile}`);
process.exitCode = findings.length > 0 ? 1 : 0;
