// Replays one case: `node test/hostile-input/replay.mjs '<target#n>'`. Prints the plan (the call),
// every call the child made with its value or error, the child's output and the verdict.

import { transcript } from '@peclet/test-harness';
import { parseCaseId } from './lib/cases.mjs';
import { runCase } from './lib/judge.mjs';

const id = process.argv[2];
try {
  parseCaseId(id);
} catch (error) {
  console.error(`${error.message}\nusage: node test/hostile-input/replay.mjs '<target#n>'   (as a failure prints it)`);
  process.exit(2);
}
const { plan, result, report, problems } = await runCase(id);
console.log(`case ${id}: ${JSON.stringify(plan)}`);
for (const call of report?.calls ?? []) {
  console.log(
    `  ${call.label}\n    → ${call.threw ? `threw ${call.threw.name}${call.threw.code ? ` (${call.threw.code})` : ''}: ${call.threw.message}` : call.ok}`,
  );
}
console.log(transcript(result));
if (problems.length === 0) console.log(`case ${id}: ok`);
else {
  console.log(`case ${id}: FAILED\n  ${problems.join('\n  ')}`);
  process.exitCode = 1;
}
