// Settling measurements against their targets, printed (not a test: the targets are not met yet,
// see the README): a lone sphere's settling speed against the closure's terminal velocity, and the
// Richardson–Zaki exponent of hindered settling against 4.65.
//   node scripts/settling.mjs [ratio = cells per diameter, default 3]
import { Simulation } from '@peclet/dem';
import { CoupledSimulation, terminalVelocity } from '../dist/index.js';

const ratio = Number(process.argv[2] ?? 3);
const d = 1e-4;
const mu = 1e-2;
const rho = 1000;
const weight = (1500 * Math.PI * d ** 3 * 9.81) / 6;
const vt = terminalVelocity('di-felice', d, weight, mu, rho);
const h = ratio * d;

function settle(particles, seconds, count) {
  const sim = new CoupledSimulation({
    particles,
    fluid: { cellSize: h, viscosity: mu, density: rho, drive: { superficialVelocity: [0, 0, 0] } },
  });
  const slice = Math.ceil(seconds / 40 / sim.timestepReport.timestep);
  let sum = 0;
  for (let k = 0; k < 40; k++) {
    sim.step(slice);
    if (k < 30) continue;
    const v = particles.velocities;
    let mean = 0;
    for (let i = 2; i < v.length; i += 3) mean += v[i];
    sum += -mean / count;
  }
  sim.release();
  return sum / 10;
}

const contact = { model: 'linear', stiffness: 0.1, restitution: 0.5, friction: 0.1 };
{
  const L = 16 * h;
  const p = new Simulation({ box: { min: [0, 0, 0], max: [L, L, 2 * L] }, periodic: true, contact });
  p.addSpheres({ positions: [L / 2, L / 2, L], radii: [d / 2], density: 2500 });
  const v = settle(p, 0.2, 1);
  console.log(
    `lone sphere, cells of ${ratio} d, Re ${((rho * vt * d) / mu).toFixed(4)}: v/v_t = ${(v / vt).toFixed(4)} (target 1 ± 0.03)`,
  );
  p.release();
}
const points = [];
for (const phi of [0.05, 0.1, 0.2]) {
  const cells = 6;
  const L = cells * h;
  const count = Math.round((phi * L ** 3) / ((Math.PI * d ** 3) / 6));
  let state = 7;
  const random = () => {
    state = (state * 16807) % 2147483647;
    return state / 2147483647;
  };
  const positions = [];
  while (positions.length < 3 * count) {
    const x = [random() * L, random() * L, random() * L];
    let free = true;
    for (let j = 0; j < positions.length / 3 && free; j++) {
      let r2 = 0;
      for (let a = 0; a < 3; a++) {
        let dx = positions[3 * j + a] - x[a];
        dx -= L * Math.round(dx / L);
        r2 += dx * dx;
      }
      free = r2 >= (1.05 * d) ** 2;
    }
    if (free) positions.push(...x);
  }
  const p = new Simulation({ box: { min: [0, 0, 0], max: [L, L, L] }, periodic: true, contact });
  p.addSpheres({ positions, radii: new Array(count).fill(d / 2), density: 2500 });
  const v = settle(p, 0.06, count);
  console.log(`phi ${phi}: v/v_t = ${(v / vt).toFixed(4)}, (1 − phi)^4.65 = ${((1 - phi) ** 4.65).toFixed(4)}`);
  points.push([Math.log(1 - phi), Math.log(v / vt)]);
  p.release();
}
const mx = points.reduce((a, q) => a + q[0], 0) / points.length;
const my = points.reduce((a, q) => a + q[1], 0) / points.length;
const n = points.reduce((a, q) => a + (q[0] - mx) * (q[1] - my), 0) / points.reduce((a, q) => a + (q[0] - mx) ** 2, 0);
console.log(`Richardson–Zaki exponent ${n.toFixed(3)} (target 4.65 ± 10%)`);
