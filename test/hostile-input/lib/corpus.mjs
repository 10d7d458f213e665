// The regression corpus (corpus.json): every case that ever failed, with the defect it found.
// Replayed by every run (test/hostile.test.mjs). An entry names its case for good (`target#n`,
// lib/cases.mjs); a target that no longer exists is an error here, not a skip, except mpi's
// where @peclet/mpi was not built.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseCaseId, targetNames } from './cases.mjs';
import { packageRoot } from './judge.mjs';

export const corpusPath = join(packageRoot, 'corpus.json');

/** The corpus's entries, checked: `[{ case, found, defect, fix }]`. */
export function corpusEntries() {
  const { cases } = JSON.parse(readFileSync(corpusPath, 'utf8'));
  if (!Array.isArray(cases)) throw new TypeError(`${corpusPath}: 'cases' must be an array`);
  const seen = new Set();
  for (const [i, entry] of cases.entries()) {
    for (const key of ['case', 'found', 'defect'])
      if (typeof entry?.[key] !== 'string' || entry[key] === '')
        throw new TypeError(`${corpusPath}: cases[${i}].${key} must be a non-empty string`);
    if (seen.has(entry.case)) throw new TypeError(`${corpusPath}: cases[${i}]: ${entry.case} is listed twice`);
    seen.add(entry.case);
  }
  return cases;
}

/** The corpus's case ids that this build can run, and why the others cannot. */
export function corpusCases() {
  const ids = [];
  const skipped = [];
  for (const entry of corpusEntries()) {
    const target = entry.case.slice(0, entry.case.lastIndexOf('#'));
    if (target.startsWith('mpi.') && !targetNames.includes(target)) {
      skipped.push(`${entry.case} (@peclet/mpi not built)`);
      continue;
    }
    parseCaseId(entry.case); // throws naming a target that is gone
    ids.push(entry.case);
  }
  return { ids, skipped };
}
