// Replays one random program: `node test/exit-matrix/fuzz/replay.mjs <seed>`.
// Prints the program, the child's output and trace, and what is wrong with it.
import { transcript } from '../lib/check.mjs';
import { runProgram } from './judge.mjs';

const seed = Number(process.argv[2]);
if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
  console.error('usage: node test/exit-matrix/fuzz/replay.mjs <seed>   (a 32-bit unsigned integer)');
  process.exit(2);
}
const { plan, result, problems } = await runProgram(seed);
console.log(`program of seed ${seed}: modules ${plan.modules.join(',')}, ends ${JSON.stringify(plan.end)}`);
for (const op of plan.ops) console.log(`  ${JSON.stringify(op)}`);
console.log(transcript(result));
if (problems.length === 0) console.log(`seed ${seed}: ok`);
else {
  console.log(`seed ${seed}: FAILED\n  ${problems.join('\n  ')}`);
  process.exitCode = 1;
}
