// Replays one case: `node test/hostile-input/replay.mjs <seed>`. Prints the plan (the call),
// every call the child made with its value or error, the child's output and the verdict.

import { transcript } from '@peclet/test-harness';
import { runCase } from './lib/judge.mjs';

const seed = Number(process.argv[2]);
if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
  console.error('usage: node test/hostile-input/replay.mjs <seed>   (a 32-bit unsigned integer)');
  process.exit(2);
}
const { plan, result, report, problems } = await runCase(seed);
console.log(`case ${seed}: ${JSON.stringify(plan)}`);
for (const call of report?.calls ?? []) {
  console.log(
    `  ${call.label}\n    → ${call.threw ? `threw ${call.threw.name}${call.threw.code ? ` (${call.threw.code})` : ''}: ${call.threw.message}` : call.ok}`,
  );
}
console.log(transcript(result));
if (problems.length === 0) console.log(`case ${seed}: ok`);
else {
  console.log(`case ${seed}: FAILED\n  ${problems.join('\n  ')}`);
  process.exitCode = 1;
}
