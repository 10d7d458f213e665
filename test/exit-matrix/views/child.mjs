// One zero-copy getter under load, in its own process: `node --expose-gc views/child.mjs <getter>`
// (a name of `getters` below, e.g. `voro.volumes`). Prints one `views-result {...}` line:
// - identity: the getter returns the same array twice, and after 10⁷ reads;
// - 10⁷ reads of an element in a loop, 10⁷ reads keeping each result (the last two held), and
//   10⁴ jobs of 10³ reads each with an await between them (the view held weakly across jobs);
// - the process's resident memory and the module's export records after collection, against
//   the same after 10⁵ reads of warm-up;
// - a view dropped by the program leaves no export record once collected;
// - a view kept across `release()` is detached (length 0).
import { writeSync } from 'node:fs';
import { liveModules } from '@peclet/core';

const name = process.argv[2];

// --- the objects -------------------------------------------------------------------------------

function points(n, seed) {
  let s = seed >>> 0;
  const out = new Float64Array(3 * n);
  for (let i = 0; i < out.length; i++) {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), s | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out[i] = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  return out;
}

async function voro() {
  const { tessellate } = await import('@peclet/voro');
  return tessellate(points(1000, 7), { box: { min: [0, 0, 0], max: [1, 1, 1] } });
}

async function dem() {
  const { Simulation } = await import('@peclet/dem');
  const s = new Simulation({
    box: { min: [0, 0, 0], max: [1, 1, 1] },
    gravity: [0, 0, -1],
    contact: { model: 'linear', stiffness: 1e4, restitution: 0.5, friction: 0.5 },
  });
  const p = points(200, 3).map((x) => 0.1 + 0.8 * x);
  s.addSpheres({ positions: p, radii: new Float64Array(200).fill(0.01), density: 1000 });
  s.step(2);
  return s;
}

async function flow() {
  const { Lattice } = await import('@peclet/flow');
  const lattice = new Lattice({ shape: [12, 12, 12], bodyForce: [1e-5, 0, 0], periodic: [true, false, true] });
  lattice.step(2);
  return lattice;
}

async function pnm() {
  const { extract } = await import('@peclet/pnm');
  const n = 18;
  const solid = new Uint8Array(n * n * n).fill(1);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++)
      for (let k = 0; k < n; k++) {
        const [x, y, z] = [(i % 9) - 4, (j % 9) - 4, (k % 9) - 4];
        if (x * x + y * y + z * z <= 9 || y * y + z * z <= 2 || x * x + z * z <= 2 || x * x + y * y <= 2)
          solid[(i * n + j) * n + k] = 0;
      }
  return extract({ solid, shape: [n, n, n], voxelSize: 1e-6 }, { boundaries: ['x'] });
}

async function coupling() {
  const { CoupledSimulation } = await import('@peclet/coupling');
  const { Simulation } = await import('@peclet/dem');
  const h = 3e-4;
  const L = 6 * h;
  const particles = new Simulation({
    box: { min: [0, 0, 0], max: [L, L, L] },
    periodic: true,
    gravity: [0, 0, -9.81],
    contact: { model: 'linear', stiffness: 1e-2 },
  });
  const positions = [];
  for (let i = 0; i < 27; i++)
    positions.push(
      ((i % 3) + 0.5) * (L / 3),
      ((Math.floor(i / 3) % 3) + 0.5) * (L / 3),
      (Math.floor(i / 9) + 0.5) * (L / 3),
    );
  particles.addSpheres({ positions, radii: new Array(27).fill(5e-5), density: 2500 });
  const simulation = new CoupledSimulation({ particles, fluid: { cellSize: h, viscosity: 1e-2, density: 1000 } });
  simulation.step(1);
  return simulation;
}

/** Every zero-copy getter: module, how to make its object, how to read it. */
export const getters = {
  'voro.volumes': ['voro', voro, (o) => o.volumes],
  'voro.centroids': ['voro', voro, (o) => o.centroids],
  'voro.neighborOffsets': ['voro', voro, (o) => o.neighborOffsets],
  'voro.neighbors': ['voro', voro, (o) => o.neighbors],
  'voro.faceAreas': ['voro', voro, (o) => o.faceAreas],
  'dem.positions': ['dem', dem, (o) => o.positions],
  'dem.velocities': ['dem', dem, (o) => o.velocities],
  'dem.angularVelocities': ['dem', dem, (o) => o.angularVelocities],
  'dem.forces': ['dem', dem, (o) => o.forces],
  'dem.radii': ['dem', dem, (o) => o.radii],
  'dem.externalForces': ['dem', dem, (o) => o.externalForces],
  'flow.velocity': ['flow', flow, (o) => o.velocity],
  'flow.density': ['flow', flow, (o) => o.density],
  'flow.porosity': ['flow', flow, (o) => o.porosity],
  'flow.force': ['flow', flow, (o) => o.force],
  'pnm.regions': ['pnm', pnm, (o) => o.regions],
  'pnm.pores.coordinates': ['pnm', pnm, (o) => o.pores.coordinates],
  'pnm.pores.volume': ['pnm', pnm, (o) => o.pores.volume],
  'pnm.pores.inscribedDiameter': ['pnm', pnm, (o) => o.pores.inscribedDiameter],
  'pnm.pores.equivalentDiameter': ['pnm', pnm, (o) => o.pores.equivalentDiameter],
  'pnm.pores.surfaceArea': ['pnm', pnm, (o) => o.pores.surfaceArea],
  'pnm.pores.label': ['pnm', pnm, (o) => o.pores.label],
  'pnm.pores.face': ['pnm', pnm, (o) => o.pores.face],
  'pnm.throats.conns': ['pnm', pnm, (o) => o.throats.conns],
  'pnm.throats.inscribedDiameter': ['pnm', pnm, (o) => o.throats.inscribedDiameter],
  'pnm.throats.area': ['pnm', pnm, (o) => o.throats.area],
  'pnm.throats.perimeter': ['pnm', pnm, (o) => o.throats.perimeter],
  'pnm.throats.length': ['pnm', pnm, (o) => o.throats.length],
  'pnm.throats.conduitLengths': ['pnm', pnm, (o) => o.throats.conduitLengths],
  'coupling.voidFraction': ['coupling', coupling, (o) => o.voidFraction],
  'coupling.fluidVelocity': ['coupling', coupling, (o) => o.fluidVelocity],
  'coupling.pressure': ['coupling', coupling, (o) => o.pressure],
  'coupling.dragForces': ['coupling', coupling, (o) => o.dragForces],
};

// --- the measurement ---------------------------------------------------------------------------

const settle = async () => {
  for (let i = 0; i < 4; i++) {
    globalThis.gc();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};
const rss = () => process.memoryUsage().rss;

const main = process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop());
if (main && name === '--copies') {
  // PECLET_NO_EXTERNAL_BUFFERS=1: the getters hand out copies, which must never be kept (a kept
  // copy would not follow the simulation).
  const s = await dem();
  const before = s.positions;
  s.step(200);
  const after = s.positions;
  let moved = 0;
  for (let i = 0; i < before.length; i++) if (before[i] !== after[i]) moved++;
  writeSync(1, `views-copies ${JSON.stringify({ same: before === after, moved, length: after.length })}\n`);
} else if (main) {
  const entry = getters[name];
  if (entry === undefined) throw new Error(`unknown getter ${name}; the getters: ${Object.keys(getters).join(', ')}`);
  const [moduleName, make, read] = entry;
  const object = await make();
  const mod = liveModules().find((m) => m.name === moduleName);
  const records = () => mod.stats().exportRecords;
  const result = { getter: name };

  let first = read(object);
  result.length = first.length;
  result.identity = first === read(object);
  const n = first.length;
  first = undefined;
  // Warm-up, then the baseline.
  let sum = 0;
  for (let i = 0; i < 1e5; i++) sum += read(object)[i % n];
  await settle();
  const baseline = { rss: rss(), records: records() };

  let started = performance.now();
  for (let i = 0; i < 1e7; i++) sum += read(object)[i % n];
  result.loopNsPerRead = ((performance.now() - started) * 1e6) / 1e7;

  let previous = read(object);
  let current = previous;
  let changed = 0;
  started = performance.now();
  for (let i = 0; i < 1e7; i++) {
    previous = current;
    current = read(object);
    if (current !== previous) changed++;
  }
  result.keptNsPerRead = ((performance.now() - started) * 1e6) / 1e7;
  result.changedWhileKept = changed;

  started = performance.now();
  for (let job = 0; job < 1e4; job++) {
    for (let i = 0; i < 1e3; i++) sum += read(object)[i % n];
    await null;
  }
  result.jobsNsPerRead = ((performance.now() - started) * 1e6) / 1e7;
  result.identityAfter = read(object) === current;
  result.sumFinite = Number.isFinite(sum);

  previous = undefined;
  current = undefined;
  await settle();
  result.rssGrowthBytes = rss() - baseline.rss;
  result.recordsAtBaseline = baseline.records;

  // Nothing held by the program (previous and current dropped above): the view is collected,
  // and the kernel's record of it with it.
  await settle();
  result.recordsDropped = records();

  // A view kept across release() is detached.
  const kept = read(object);
  object.release();
  result.lengthAfterRelease = kept.length;
  result.byteLengthAfterRelease = kept.byteLength;
  writeSync(1, `views-result ${JSON.stringify(result)}\n`);
}
