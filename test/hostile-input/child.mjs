// One case in its own process: `node --expose-gc child.mjs <target#n>`. Prints one result line
// (`hostile-result {...}`): the plan, every call with its value or error, and the problems
// found on the way. The parent (lib/judge.mjs) judges the rest: status, signal, crash, hang.

import { countJudgedCallsOnly, instrument } from '@peclet/test-harness/public-api';
import { caseSeed, modulesOf, parseCaseId, plan as planOf, targets } from './lib/cases.mjs';
import { recorder } from './lib/check.mjs';
import { random } from './lib/random.mjs';

const id = process.argv[2];
const { target, n } = parseCaseId(id);
const plan = planOf(target, n);
const seed = caseSeed(target, n);
const h = recorder(id, plan);
const api = { r: random(seed) };
// The modules through a view that records which public members the case's judged calls reach.
countJudgedCallsOnly();
for (const name of modulesOf(plan.target)) api[name] = instrument(name, await import(`@peclet/${name}`));

process.on('exit', () => h.flush());
try {
  await targets[plan.target].exec(plan, h, api);
} catch (error) {
  h.problem(`the case itself failed: ${error?.stack ?? error}`);
}
// Drop what the case left and let the collector run: finalizers of released objects must be harmless.
globalThis.gc?.();
await new Promise((resolve) => setImmediate(resolve));
h.flush();
