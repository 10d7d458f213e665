// What a user of each solver would run first: a small computation with a known answer (from the
// package's README and tests), written once and emitted as an ES module and as CommonJS.
import assert from 'node:assert/strict';

/**
 * Per solver: the packages it imports (`binding name → package`), `compute` (a body that may
 * await and ends with `print({...})`), `check(result)` (the physics, asserted in the test
 * process), and `alive` (a body that ends with process.exit(0) while its objects and their
 * zero-copy arrays are alive).
 */
export const programs = {
  '@peclet/voro': {
    imports: { voro: '@peclet/voro' },
    compute: `
let seed = 1;
const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
const points = new Float64Array(3 * 2000).map((_, i) => (i % 3 === 0 ? 2 : 1) * random());
const tessellation = voro.tessellate(points, { box: { min: [0, 0, 0], max: [2, 1, 1] } });
let volume = 0;
for (const v of tessellation.volumes) volume += v;
print({ cells: tessellation.size, volume });
tessellation.release();
`,
    // Cell volumes sum to the box volume to 1e-12 relative (voro's README).
    check(result) {
      assert.equal(result.cells, 2000);
      assert.ok(Math.abs(result.volume / 2 - 1) < 1e-12, `cell volumes sum to ${result.volume}, the box is 2`);
    },
    alive: `
const points = new Float64Array(3 * 500).map(() => Math.random());
const tessellation = voro.tessellate(points, { box: { min: [0, 0, 0], max: [1, 1, 1] }, periodic: true });
const volumes = tessellation.volumes;
console.log('alive', tessellation.size, volumes.length);
process.exit(0);
`,
  },

  '@peclet/dem': {
    imports: { dem: '@peclet/dem' },
    compute: `
const simulation = new dem.Simulation({
  box: { min: [0, 0, 0], max: [6, 6, 20] },
  periodic: [true, true, false],
  gravity: [0, 0, -1],
  timestep: 9e-4,
  contact: { model: 'linear', stiffness: 1e4, restitution: 0.2, friction: 0.5 },
});
const report = simulation.deposit({ count: 300, radius: 0.5, density: 1, seed: 7 });
const z = simulation.positions;
let top = -Infinity;
let lowest = Infinity;
for (let i = 0; i < simulation.sphereCount; i++) {
  top = Math.max(top, z[3 * i + 2] + 0.5);
  lowest = Math.min(lowest, z[3 * i + 2] - 0.5);
}
// The bulk: 2 diameters clear of the floor and of the free surface.
const fraction = simulation.packingFraction({ min: [0, 0, 2], max: [6, 6, top - 2] });
print({ inserted: report.inserted, settled: report.settled, meanOverlap: report.meanOverlap, top, lowest, fraction });
simulation.release();
`,
    // A frictional random packing (dem's deposition test: 0.58–0.64 for 4096 spheres; this
    // narrow column of 300 a little wider), resting on the floor, contacts stiff enough.
    check(result) {
      assert.equal(result.inserted, 300);
      assert.equal(result.settled, true);
      assert.ok(result.fraction >= 0.55 && result.fraction <= 0.66, `bulk packing fraction ${result.fraction}`);
      assert.ok(result.lowest > -0.05, `a sphere reaches ${result.lowest} below the floor`);
      assert.ok(result.top < 12, `the bed is ${result.top} high: not settled`);
      assert.ok(result.meanOverlap < 0.01, `mean overlap ${result.meanOverlap} of the radius`);
    },
    alive: `
const simulation = new dem.Simulation({
  box: { min: [0, 0, 0], max: [4, 4, 8] },
  periodic: [true, true, false],
  gravity: [0, 0, -1],
  contact: { model: 'linear', stiffness: 1e4 },
});
simulation.addSpheres({ positions: [1, 1, 1, 3, 3, 3], radii: [0.5, 0.5], density: 1 });
simulation.step(10);
const positions = simulation.positions;
console.log('alive', simulation.sphereCount, positions.length);
process.exit(0);
`,
  },

  '@peclet/flow': {
    imports: { flow: '@peclet/flow' },
    compute: `
// A slit of aperture 4 voxels between two solid planes, periodic along the flow.
const h = 4;
const shape = [3, h + 2, 1];
const solid = new Uint8Array(shape[0] * shape[1]);
for (let i = 0; i < shape[0]; i++) solid[i * shape[1]] = solid[i * shape[1] + h + 1] = 1;
const result = await flow.permeability(
  { solid, shape, voxelSize: 1e-6 },
  { buffer: 0, sides: 'periodic', tolerance: 1e-13, maxSteps: 200000 },
);
result.lattice.release();
print({ h, permeability: result.permeability, porosity: result.porosity, converged: result.converged });
`,
    // flow's physics test: a slit of aperture H gives (H²/12 + 1/24)·porosity voxel², to 1e-9.
    check(result) {
      const { h } = result;
      const expected = ((h * h) / 12 + 1 / 24) * (h / (h + 2)) * 1e-12;
      assert.equal(result.converged, true);
      assert.ok(
        Math.abs(result.permeability / expected - 1) < 1e-9,
        `slit permeability ${result.permeability} m², analytic ${expected} m²`,
      );
    },
    alive: `
const lattice = new flow.Lattice({ shape: [8, 8, 8], periodic: [true, false, true], bodyForce: [1e-5, 0, 0] });
lattice.step(20);
const velocity = lattice.velocity;
console.log('alive', lattice.shape.join('x'), velocity.length);
process.exit(0);
`,
  },

  '@peclet/pnm': {
    imports: { pnm: '@peclet/pnm' },
    compute: `
// 2 × 2 × 2 spherical pores (radius 7 voxels) on a lattice of spacing 21 joined by
// cylinders (radius 3) along the three axes, in solid (pnm's sphereLattice).
const a = 21;
const n = 2 * a;
const solid = new Uint8Array(n * n * n).fill(1);
const rel = (x) => {
  const p = x + 0.5 - a / 2;
  return p - Math.round(p / a) * a;
};
for (let i = 0; i < n; i++) {
  for (let j = 0; j < n; j++) {
    for (let k = 0; k < n; k++) {
      const [x, y, z] = [rel(i), rel(j), rel(k)];
      const pore = x * x + y * y + z * z <= 49 || y * y + z * z <= 9 || x * x + z * z <= 9 || x * x + y * y <= 9;
      if (pore) solid[(i * n + j) * n + k] = 0;
    }
  }
}
let poreVoxels = 0;
for (const s of solid) poreVoxels += s === 0 ? 1 : 0;
const network = pnm.extract({ solid, shape: [n, n, n], voxelSize: 1e-6 }, { boundaries: ['x'] });
const internal = Array.from(network.pores.face).filter((face) => face === -1).length;
print({
  pores: network.poreCount,
  internal,
  throats: network.throatCount,
  porosity: network.porosity,
  imagePorosity: poreVoxels / solid.length,
});
network.release();
`,
    // One pore per sphere; the network's porosity is the image's, exactly (pnm's Berea test).
    check(result) {
      assert.ok(result.pores > 0 && result.throats > 0, `${result.pores} pores, ${result.throats} throats`);
      assert.equal(result.internal, 8, `${result.internal} internal pores for 8 spheres`);
      assert.equal(result.porosity, result.imagePorosity);
    },
    alive: `
const n = 12;
const solid = new Uint8Array(n * n * n).fill(1);
for (let i = 0; i < n; i++) for (let j = 3; j < 9; j++) for (let k = 3; k < 9; k++) solid[(i * n + j) * n + k] = 0;
const network = pnm.extract({ solid, shape: [n, n, n], voxelSize: 1e-6 });
const regions = network.regions;
console.log('alive', network.poreCount, regions.length);
process.exit(0);
`,
  },

  '@peclet/coupling': {
    imports: { coupling: '@peclet/coupling', dem: '@peclet/dem' },
    compute: `
// 27 spheres of 0.1 mm moving in a periodic box of 6 × 6 × 6 fluid cells, no gravity, no
// drive (coupling's momentum test): the spheres give their momentum to the fluid.
const count = 27;
const h = 3e-4;
const L = 6 * h;
const particles = new dem.Simulation({
  box: { min: [0, 0, 0], max: [L, L, L] },
  periodic: true,
  gravity: [0, 0, 0],
  contact: { model: 'linear', stiffness: 1e-2 },
});
const positions = [];
const velocities = [];
for (let i = 0; i < count; i++) {
  const [a, b, c] = [i % 3, Math.floor(i / 3) % 3, Math.floor(i / 9)];
  positions.push(((a + 0.5 + 0.1 * Math.sin(i)) * L) / 3, ((b + 0.5) * L) / 3, ((c + 0.5 + 0.07 * i) * L) / 3);
  velocities.push(1e-4 * Math.sin(3 * i), 1e-4 * Math.cos(5 * i), 2e-4 * Math.sin(7 * i + 1));
}
particles.addSpheres({ positions, radii: new Array(count).fill(5e-5), density: 2500, velocities });
const simulation = new coupling.CoupledSimulation({
  particles,
  fluid: { cellSize: h, viscosity: 1e-2, density: 1000 },
});
const start = simulation.momentum();
simulation.step(300);
const end = simulation.momentum();
let solidVolume = 0;
for (const e of simulation.voidFraction) solidVolume += (1 - e) * h ** 3;
print({
  start: start.fluid.map((x, axis) => x + start.particles[axis]),
  end: end.fluid.map((x, axis) => x + end.particles[axis]),
  scale: Math.hypot(...start.particles),
  fluid: Math.hypot(...end.fluid),
  solidVolume,
  sphereVolume: count * (4 / 3) * Math.PI * 5e-5 ** 3,
});
simulation.release();
particles.release();
`,
    // Momentum moves from the spheres to the fluid and the sum stays, to round-off; the void
    // fraction holds every sphere's volume (coupling's physics tests).
    check(result) {
      assert.ok(result.scale > 0);
      assert.ok(result.fluid > 0.05 * result.scale, `the fluid took ${result.fluid} of ${result.scale} kg·m/s`);
      for (let axis = 0; axis < 3; axis++) {
        const drift = Math.abs(result.end[axis] - result.start[axis]);
        assert.ok(
          drift <= 1e-12 * result.scale,
          `axis ${axis}: total momentum moved by ${drift} (scale ${result.scale})`,
        );
      }
      assert.ok(Math.abs(result.solidVolume / result.sphereVolume - 1) < 1e-12, `solid volume ${result.solidVolume}`);
    },
    alive: `
const L = 1.8e-3;
const particles = new dem.Simulation({
  box: { min: [0, 0, 0], max: [L, L, L] },
  periodic: true,
  gravity: [0, 0, -9.81],
  contact: { model: 'linear', stiffness: 1e-2 },
});
particles.addSpheres({ positions: [L / 2, L / 2, L / 2], radii: [5e-5], density: 2500 });
const simulation = new coupling.CoupledSimulation({
  particles,
  fluid: { cellSize: 3e-4, viscosity: 1e-2, density: 1000, drive: { superficialVelocity: [0, 0, 0] } },
});
simulation.step(5);
const voidFraction = simulation.voidFraction;
console.log('alive', simulation.stepCount, voidFraction.length);
process.exit(0);
`,
  },
};

/**
 * A program's `body` as a file: `module` ('esm' or 'cjs'), its imports bound to the names the
 * body uses; `print` writes one JSON line with the entry the package resolved to and the Node.
 */
export function programSource(program, body, module) {
  const [first] = Object.values(program.imports);
  const print = `const print = (value) => console.log(JSON.stringify({ ...value, entry, node: process.version }));`;
  if (module === 'esm') {
    const imports = Object.entries(program.imports).map(([binding, name]) => `import * as ${binding} from '${name}';`);
    return `${imports.join('\n')}\nconst entry = import.meta.resolve('${first}');\n${print}\n${body}`;
  }
  const requires = Object.entries(program.imports).map(([binding, name]) => `const ${binding} = require('${name}');`);
  return `${requires.join('\n')}\nconst entry = require.resolve('${first}');\n${print}\n(async () => {\n${body}\n})().catch((error) => {\n  console.error(error);\n  process.exitCode = 1;\n});\n`;
}

/** The JSON line a program printed with `print`. */
export function printed(stdout) {
  const line = stdout
    .trim()
    .split('\n')
    .findLast((l) => l.startsWith('{'));
  if (line === undefined) throw new Error(`the program printed no result:\n${stdout}`);
  return JSON.parse(line);
}
