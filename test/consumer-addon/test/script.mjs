// A user script with the consumer's objects at script scope.
import { Histogram } from '../index.mjs';

const h = new Histogram(10, 0, 1);
h.add(new Float64Array([0.05, 0.15, 0.15, 0.95, 2]));
const counts = h.counts;
console.log(`created histogram Histogram#${h.id}`);
console.log(`counts ${[...counts].join(',')}`);
if (process.argv[2] === 'exit') process.exit(9);
