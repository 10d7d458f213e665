// Child of the exit-latency benchmark: N live objects at script scope, then
// a natural end. Prints the moment the script's last statement ran.
import { load } from '../test/fixtures/addons.mjs';

const [kind, count] = [process.argv[2], Number(process.argv[3])];
const { native } = load('alpha');
const Class = kind === 'kernel' ? native.Particle : native.PlainParticle;
const objects = new Array(count);
for (let i = 0; i < count; i++) objects[i] = new Class(i);
globalThis.keep = objects;
process.stdout.write(`${performance.timeOrigin + performance.now()}\n`);
