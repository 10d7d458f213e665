// A small coupled system for the tests: spheres in a periodic box of fluid.
import { Simulation } from '@peclet/dem';
import { Lattice } from '@peclet/flow';
import { CoupledSimulation, terminalVelocity } from '../dist/index.js';

/** `count` spheres of diameter 1e-4 m on a jittered lattice in a periodic box of 6×6×6 cells of 3e-4 m. */
export function suspension({ count = 8, gravity = [0, 0, 0], velocities = true, fluid = {}, drag, dem } = {}) {
  const h = 3e-4;
  const L = 6 * h;
  const particles = new Simulation({
    box: { min: [0, 0, 0], max: [L, L, L] },
    periodic: true,
    gravity,
    contact: { model: 'linear', stiffness: 1e-2 },
  });
  const positions = [];
  const v = [];
  const side = Math.ceil(Math.cbrt(count));
  for (let i = 0; i < count; i++) {
    const a = i % side;
    const b = Math.floor(i / side) % side;
    const c = Math.floor(i / side / side);
    positions.push(
      ((a + 0.5 + 0.1 * Math.sin(i)) * L) / side,
      ((b + 0.5) * L) / side,
      ((c + 0.5 + 0.07 * i) * L) / side,
    );
    v.push(1e-4 * Math.sin(3 * i), 1e-4 * Math.cos(5 * i), 2e-4 * Math.sin(7 * i + 1));
  }
  particles.addSpheres({
    positions,
    radii: new Array(count).fill(5e-5),
    density: 2500,
    ...(velocities ? { velocities: v } : {}),
  });
  const sim = new CoupledSimulation({
    particles,
    fluid: { cellSize: h, viscosity: 1e-2, density: 1000, ...fluid },
    ...(drag ? { drag } : {}),
    ...(dem ? { dem } : {}),
  });
  return { particles, sim };
}

/**
 * A fixed bed: spheres of diameter `d` on a face-centred cubic lattice (constant d / 0.64, void
 * fraction 0.451) jittered by ±1.5% of it, filling a periodic box of 3 × 3 × 3 cells of two lattice
 * constants (3.1 d), all fixed.
 */
export function fixedBed({ d = 1e-3, jitter = 0.03 } = {}) {
  const a = d / 0.64;
  const n = 6; // lattice constants per side
  const L = n * a;
  const sites = [
    [0, 0, 0],
    [0.5, 0.5, 0],
    [0.5, 0, 0.5],
    [0, 0.5, 0.5],
  ];
  let seed = 1;
  const random = () => {
    seed = (seed * 16807) % 2147483647;
    return seed / 2147483647 - 0.5;
  };
  const positions = [];
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++)
      for (let k = 0; k < n; k++)
        for (const s of sites)
          for (const [c, o] of [
            [i, s[0]],
            [j, s[1]],
            [k, s[2]],
          ])
            positions.push(((((c + o + jitter * random()) * a) % L) + L) % L);
  const count = positions.length / 3;
  const particles = new Simulation({
    box: { min: [0, 0, 0], max: [L, L, L] },
    periodic: true,
    gravity: [0, 0, 0],
    contact: { model: 'linear', stiffness: 10 },
    timestep: 1e-6,
  });
  particles.addSpheres({ positions, radii: new Array(count).fill(d / 2), density: 2000, fixed: true });
  const voidFraction = 1 - (count * Math.PI * d ** 3) / 6 / L ** 3;
  return { particles, cellSize: 2 * a, length: L, voidFraction, count };
}

/** Ergun's pressure gradient (Pa/m). */
export function ergun(voidFraction, superficialVelocity, d, viscosity, density) {
  const e = voidFraction;
  const u = superficialVelocity;
  return (150 * viscosity * (1 - e) ** 2 * u) / (e ** 3 * d * d) + (1.75 * density * (1 - e) * u * u) / (e ** 3 * d);
}

/**
 * A bed of `count` glass spheres (d = 0.5 mm, 2500 kg/m³) deposited without friction on the
 * floor of a column of 3 × 3 × 24 cells of 2 diameters (periodic sideways), for water.
 */
export function depositedBed({ count = 750, d = 5e-4 } = {}) {
  const h = 2 * d;
  const L = 3 * h;
  const H = 24 * h;
  const particles = new Simulation({
    box: { min: [0, 0, 0], max: [L, L, H] },
    periodic: [true, true, false],
    gravity: [0, 0, -9.81],
    contact: { model: 'linear', stiffness: 5, restitution: 0.3, friction: 0 },
  });
  particles.deposit({ count, radius: d / 2, density: 2500, seed: 3, regionTop: 0.95 * H });
  return { particles, cellSize: h, area: L * L, d };
}

// Settling at a chosen particle Reynolds number: spheres of 0.1 mm and 2500 kg/m³ in a liquid of
// 1000 kg/m³ whose viscosity is found (by bisection on the closure's terminal velocity) so that a
// lone sphere settles at Reynolds number `reynolds`.
export function settlingFluid(reynolds, drag = 'di-felice') {
  const d = 1e-4;
  const rho = 1000;
  const weight = (1500 * Math.PI * d ** 3 * 9.81) / 6;
  let lo = 1e-7;
  let hi = 10;
  for (let k = 0; k < 200; k++) {
    const mu = Math.sqrt(lo * hi);
    if ((rho * terminalVelocity(drag, d, weight, mu, rho) * d) / mu > reynolds) lo = mu;
    else hi = mu;
  }
  const mu = Math.sqrt(lo * hi);
  return { d, rho, mu, drag, vt: terminalVelocity(drag, d, weight, mu, rho) };
}

const settlingContact = { model: 'linear', stiffness: 0.1, restitution: 0.5, friction: 0.1 };

// Mean settling speed (m/s, positive downwards) of the spheres of `particles` in a closed periodic
// box (no net volume flux) of cells of `cells` diameters, over the last quarter of `seconds`.
function settle(particles, fluid, cells, seconds, selfCorrection) {
  const sim = new CoupledSimulation({
    particles,
    fluid: {
      cellSize: cells * fluid.d,
      viscosity: fluid.mu,
      density: fluid.rho,
      drive: { superficialVelocity: [0, 0, 0] },
    },
    drag: fluid.drag,
    selfCorrection,
  });
  const slices = 40;
  const slice = Math.ceil(seconds / slices / sim.timestepReport.timestep);
  let sum = 0;
  for (let k = 0; k < slices; k++) {
    sim.step(slice);
    if (k < (3 * slices) / 4) continue;
    const v = particles.velocities;
    let mean = 0;
    for (let i = 2; i < v.length; i += 3) mean -= v[i];
    sum += mean / particles.sphereCount;
  }
  sim.release();
  return sum / (slices / 4);
}

// A lone sphere settling from the middle of a periodic box of n × n × nz cells of `cells`
// diameters, off the cells' faces: in creeping flow for 4 viscous times of the box's slowest
// mode, (L/2π)²/ν; at higher Reynolds numbers for 20 particle response times m v_t/W and the time
// it takes to cross the box's height twice (its wake then has passed the box once).
export function loneSphere({ reynolds, n = 16, nz = n, cells = 3, drag = 'di-felice', selfCorrection } = {}) {
  const fluid = settlingFluid(reynolds, drag);
  const h = cells * fluid.d;
  const [L, Lz] = [n * h, nz * h];
  // Above creeping flow a soft contact (it never touches anything): the dem time step follows the
  // stiffness, and the fluid step there is set by the Mach limit, not the sphere's response.
  const contact = { ...settlingContact, stiffness: reynolds < 1 ? 0.1 : 1e-3 };
  const particles = new Simulation({ box: { min: [0, 0, 0], max: [L, L, Lz] }, periodic: true, contact });
  particles.addSpheres({ positions: [L / 2 + 0.3 * h, L / 2 + 0.1 * h, Lz / 2], radii: [fluid.d / 2], density: 2500 });
  const response = (2500 * fluid.vt) / (1500 * 9.81);
  const seconds =
    reynolds < 1 ? (4 * (L / (2 * Math.PI)) ** 2 * fluid.rho) / fluid.mu : Math.max(20 * response, (2 * Lz) / fluid.vt);
  const v = settle(particles, fluid, cells, seconds, selfCorrection);
  particles.release();
  // The box's periodic images slow a sphere by 1.7601 φ^(1/3) (Hasimoto 1959, a simple cubic
  // array of spheres in Stokes flow; φ the sphere's volume over the box's).
  const phi = (Math.PI * fluid.d ** 3) / 6 / (L * L * Lz);
  return { ratio: v / fluid.vt, hasimoto: 1 - 1.7601 * Math.cbrt(phi), fluid };
}

// Hindered settling of randomly placed spheres (no two closer than 1.05 d) at solid fractions
// `fractions` in a closed periodic box of 6³ cells of 3 d: v/v_t at each and the fitted
// Richardson–Zaki exponent n of v = v_i (1 − φ)^n.
export function hinderedSettling({ fractions = [0.05, 0.1, 0.2], reynolds = 0.008, selfCorrection } = {}) {
  const fluid = settlingFluid(reynolds);
  const L = 6 * 3 * fluid.d;
  const points = [];
  for (const phi of fractions) {
    const count = Math.round((phi * L ** 3) / ((Math.PI * fluid.d ** 3) / 6));
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
          const dx = positions[3 * j + a] - x[a];
          r2 += (dx - L * Math.round(dx / L)) ** 2;
        }
        free = r2 >= (1.05 * fluid.d) ** 2;
      }
      if (free) positions.push(...x);
    }
    const particles = new Simulation({
      box: { min: [0, 0, 0], max: [L, L, L] },
      periodic: true,
      contact: settlingContact,
    });
    particles.addSpheres({ positions, radii: new Array(count).fill(fluid.d / 2), density: 2500 });
    points.push({ phi, ratio: settle(particles, fluid, 3, 0.06, selfCorrection) / fluid.vt });
    particles.release();
  }
  const xs = points.map((p) => Math.log(1 - p.phi));
  const ys = points.map((p) => Math.log(p.ratio));
  const mx = xs.reduce((a, x) => a + x, 0) / xs.length;
  const my = ys.reduce((a, y) => a + y, 0) / ys.length;
  let sxy = 0;
  let sxx = 0;
  for (let k = 0; k < xs.length; k++) {
    sxy += (xs[k] - mx) * (ys[k] - my);
    sxx += (xs[k] - mx) ** 2;
  }
  return { points, exponent: sxy / sxx, fluid };
}

// The offsets and components of the self-correction's lattice table (native/coupling.cpp,
// latticeResponse): [what, offset, component of the velocity] for a force along x.
export const latticeResponseOffsets = [
  ['the cell itself', [0, 0, 0], 0],
  ['a face neighbour along the force', [1, 0, 0], 0],
  ['a face neighbour across it', [0, 1, 0], 0],
  ["an edge neighbour in the force's plane", [1, 1, 0], 0],
  ['an edge neighbour across the force', [0, 1, 1], 0],
  ['a corner neighbour, along the force', [1, 1, 1], 0],
  ['an edge neighbour, the other component', [1, 1, 0], 1],
  ['a corner neighbour, another component', [1, 1, 1], 1],
];

// The fluid lattice's steady response (× ν, per unit force) at latticeResponseOffsets to a unit
// force along x in one cell of a periodic box of n³ cells (D3Q19, TRT, Λ = 3/16), its opposite
// spread evenly: run until the velocity there changes by less than 1e-10 of itself in 200 steps.
// The box's periodic images lower each value by about 2.8373/(6π n) (Hasimoto 1959).
export function latticeResponseIn(n) {
  const nu = 1 / 6;
  const force = 1e-5;
  const lattice = new Lattice({ shape: [n, n, n], periodic: true, viscosity: nu, precision: 'f64', layout: 'dense' });
  const index = (i, j, k) => (((i + n) % n) * n + ((j + n) % n)) * n + ((k + n) % n);
  const f = lattice.force;
  for (let c = 0; c < n ** 3; c++) f[3 * c] = -force / n ** 3;
  const m = n / 2;
  f[3 * index(m, m, m)] += force;
  let last = 0;
  for (let k = 0; k < 500; k++) {
    lattice.step(200);
    const u = lattice.velocity[3 * index(m, m, m)];
    if (Math.abs(u - last) < 1e-10 * Math.abs(u)) break;
    last = u;
  }
  const u = lattice.velocity;
  const values = latticeResponseOffsets.map(
    ([, d, a]) => (u[3 * index(m + d[0], m + d[1], m + d[2]) + a] * nu) / force,
  );
  lattice.release();
  return values;
}
