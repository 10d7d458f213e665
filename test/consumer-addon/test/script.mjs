// A user script with the consumer's objects at script scope. Exported, so
// they stay reachable to the end: V8 may collect a module-level `const` that
// no closure captures once the module has run (a scavenge then releases it
// through its finalizer, which is correct but not what this test is about).
import { Histogram } from '../index.mjs';

export const h = new Histogram(10, 0, 1);
h.add(new Float64Array([0.05, 0.15, 0.15, 0.95, 2]));
export const counts = h.counts;
console.log(`created histogram Histogram#${h.id}`);
console.log(`counts ${[...counts].join(',')}`);
if (process.argv[2] === 'exit') process.exit(9);
