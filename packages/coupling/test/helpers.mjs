// A small coupled system for the tests: spheres in a periodic box of fluid.
import { Simulation } from '@peclet/dem';
import { CoupledSimulation } from '../dist/index.js';

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
