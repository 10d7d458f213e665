// The native modules a scenario can load, behind one shape:
//
//   const m = await loadModule('voro');
//   m.populate({ env, jsObjects })  objects + zero-copy arrays, kept by the caller
//   m.work(state, { long, signal, env }) async native work: a promise that settles
//   m.works(state)                  proves the module still computes (a boolean or a promise of one)
//   m.finalize()                    the package's finalize()
//   m.stale(state)                  uses a finalized module's object; returns the error's name
//
// Every object made is printed as `created <module> <Class>#<id> <env> <native|js>`,
// which the matrix matches against the teardown trace.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Releasable } from '@peclet/core';

const here = dirname(fileURLToPath(import.meta.url));
const coreTest = join(here, '..', '..', '..', 'packages', 'core', 'test');

/** A small seeded generator (mulberry32): the same points on every runtime. */
export function random(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function randomPoints(n, seed) {
  const next = random(seed);
  const points = new Float64Array(3 * n);
  for (let i = 0; i < points.length; i++) points[i] = next();
  return points;
}

const created = (module, object, env, kind) => console.log(`created ${module} ${object} ${env} ${kind}`);

/** A TypeScript-side releasable in a module's registry: both halves must release before finalize. */
class Scratch extends Releasable {
  #data = new Float64Array(64);
  get length() {
    this.assertLive();
    return this.#data.length;
  }
  releaseResources() {
    this.#data = new Float64Array(0);
  }
}

const withAbort = (handle, signal) => {
  signal?.addEventListener('abort', () => handle.cancel(), { once: true });
  return handle.promise;
};

// The kernel's test addon, under either of its two module names.
async function coreTestAddon(name) {
  const { load } = await import(join(coreTest, 'fixtures', 'addons.mjs'));
  const { native, mod } = load(name);
  return {
    name,
    populate({ env, jsObjects }) {
      const field = new native.Field(100_000);
      const values = field.values;
      const particles = [new native.Particle(1), new native.Particle(2)];
      for (const o of [field, ...particles]) created(name, `${o.constructor.name}#${o.id}`, env, 'native');
      let scratch;
      if (jsObjects) {
        scratch = new Scratch(mod.registry);
        created(name, `Scratch#${scratch.id}`, env, 'js');
      }
      return { field, values, particles, scratch };
    },
    work(state, { long, signal }) {
      return withAbort(state.field.relaxAsync(long ? 1_000_000 : 5), signal);
    },
    works() {
      const field = new native.Field(1000);
      const ok = field.sum() === 499_500 && field.values.length === 1000;
      field.release();
      return ok;
    },
    finalize: () => mod.finalize(),
    stale(state) {
      return { detached: state.values.length === 0, error: errorName(() => state.field.sum()) };
    },
  };
}

async function voro() {
  const { tessellate, tessellateAsync, finalize } = await import('@peclet/voro');
  const box = { min: [0, 0, 0], max: [1, 1, 1] };
  return {
    name: 'voro',
    populate({ env }) {
      const tessellation = tessellate(randomPoints(2000, 3), { box, periodic: true });
      created('voro', `Tessellation#${tessellation.id}`, env, 'native');
      return { tessellation, volumes: tessellation.volumes, neighbors: tessellation.neighbors };
    },
    work(_state, { long, signal, env }) {
      // 200,000 points: about 1.5 s of work on 2 threads, stopped within a few ms of an abort (with
      // 10⁶ the uncancellable grid build alone took 175 ms, paid again at every restart).
      return tessellateAsync(randomPoints(long ? 200_000 : 500, 5), { box, signal }).then((t) => {
        created('voro', `Tessellation#${t.id}`, env, 'native');
        return t;
      });
    },
    works() {
      const t = tessellate(randomPoints(100, 9), { box });
      const ok = t.volumes.length === 100;
      t.release();
      return ok;
    },
    finalize,
    stale(state) {
      return { detached: state.volumes.length === 0, error: errorName(() => state.tessellation.volumes) };
    },
  };
}

async function dem() {
  const { Simulation, finalize } = await import('@peclet/dem');
  return {
    name: 'dem',
    populate({ env }) {
      const simulation = new Simulation({
        box: { min: [0, 0, 0], max: [8, 8, 40] },
        periodic: [true, true, false],
        gravity: [0, 0, -1],
        timestep: 9e-4,
        contact: { model: 'linear', stiffness: 1e4, restitution: 0.2, friction: 0.5 },
      });
      simulation.deposit({ count: 300, radius: 0.5, density: 1, seed: 1, maxSteps: 10 });
      created('dem', `Simulation#${simulation.id}`, env, 'native');
      return { simulation, positions: simulation.positions, radii: simulation.radii };
    },
    work(state, { long, signal }) {
      return state.simulation.run({ steps: long ? 1e9 : 20, signal });
    },
    works() {
      const simulation = new Simulation({
        box: { min: [0, 0, 0], max: [1, 1, 1] },
        gravity: [0, 0, -1],
        contact: { model: 'linear', stiffness: 1e4, restitution: 0.5, friction: 0.5 },
      });
      simulation.addSpheres({ positions: [0.25, 0.5, 0.5, 0.75, 0.5, 0.5], radii: [0.1, 0.1], density: 1000 });
      const ok = simulation.step(5).steps === 5;
      simulation.release();
      return ok;
    },
    finalize,
    stale(state) {
      return { detached: state.positions.length === 0, error: errorName(() => state.simulation.step(1)) };
    },
  };
}

// An image for permeability(): n³ voxels, about 25% solid, percolating along x.
function porousImage(n) {
  const solid = new Uint8Array(n * n * n);
  for (let i = 0; i < solid.length; i++) solid[i] = (i * 2654435761) % 97 < 25 ? 1 : 0;
  // An open channel along x keeps every image percolating whatever the hash gives.
  for (let i = 0; i < n; i++) solid[(i * n + (n >> 1)) * n + (n >> 1)] = 0;
  return { solid, shape: [n, n, n], voxelSize: 1e-6 };
}

async function flow() {
  const { Lattice, permeability, finalize } = await import('@peclet/flow');
  // Work is a run() of the lattice and a permeability() together: long work runs
  // both until stopped (tolerance 0 and 1e-300 never converge), short work
  // finishes both, and the lattice permeability() made stays at script scope.
  const settled = (promises) =>
    Promise.allSettled(promises).then((outcomes) => {
      // Only once both stopped: a module's sync calls wait for its work on the pool.
      const failed = outcomes.find((o) => o.status === 'rejected');
      if (failed) throw failed.reason;
      return outcomes.map((o) => o.value);
    });
  return {
    name: 'flow',
    populate({ env }) {
      const lattice = new Lattice({ shape: [24, 24, 24], bodyForce: [1e-5, 0, 0], periodic: [true, false, true] });
      lattice.step(2);
      created('flow', `Lattice#${lattice.id}`, env, 'native');
      const { velocity, density, porosity, force } = lattice;
      return { lattice, velocity, density, porosity, force };
    },
    work(state, { long, signal, env }) {
      const run = state.lattice.run(long ? { maxSteps: 1e9, tolerance: 0, signal } : { maxSteps: 20, signal });
      const image = porousImage(long ? 24 : 8);
      const options = long
        ? { tolerance: 1e-300, maxSteps: 1e9, signal }
        : { tolerance: 1e-3, maxSteps: 200, buffer: 1, signal };
      const measured = permeability(image, options).then((result) => {
        created('flow', `Lattice#${result.lattice.id}`, env, 'native');
        return result;
      });
      return settled([run, measured]);
    },
    works() {
      const lattice = new Lattice({ shape: [8, 8, 8], bodyForce: [1e-5, 0, 0] });
      const ok = lattice.step(5).steps === 5 && lattice.velocity.length === 3 * 512 && lattice.stepCount === 5;
      lattice.release();
      return ok;
    },
    finalize,
    stale(state) {
      const detached = ['velocity', 'density', 'porosity', 'force'].every((k) => state[k].length === 0);
      return { detached, error: errorName(() => state.lattice.step(1)) };
    },
  };
}

// A lattice of spherical pores joined by cylinders (n³ voxels, pores every 9 voxels).
// Made once per size and thread: the long work's image (108³) takes tens of ms of JS to build,
// and the finalize rows start that work again after every finalize.
const poreLattices = new Map();
function poreLattice(cells) {
  if (!poreLattices.has(cells)) poreLattices.set(cells, buildPoreLattice(cells));
  return poreLattices.get(cells);
}

function buildPoreLattice(cells) {
  const a = 9;
  const n = cells * a;
  const solid = new Uint8Array(n * n * n).fill(1);
  const rel = (x) => {
    const p = x + 0.5 - a / 2;
    return p - Math.round(p / a) * a;
  };
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++)
      for (let k = 0; k < n; k++) {
        const [x, y, z] = [rel(i), rel(j), rel(k)];
        const open = x * x + y * y + z * z <= 9 || y * y + z * z <= 2 || x * x + z * z <= 2 || x * x + y * y <= 2;
        if (open) solid[(i * n + j) * n + k] = 0;
      }
  return { solid, shape: [n, n, n], voxelSize: 1e-6 };
}

async function pnm() {
  const { extract, extractAsync, finalize } = await import('@peclet/pnm');
  // Long work: extractions one after another until stopped; short work: one small extraction.
  return {
    name: 'pnm',
    populate({ env }) {
      const network = extract(poreLattice(3), { boundaries: ['x'] });
      created('pnm', `Network#${network.id}`, env, 'native');
      return { network, regions: network.regions, volume: network.pores.volume, conns: network.throats.conns };
    },
    async work(_state, { long, signal, env }) {
      const image = poreLattice(long ? 12 : 3);
      do {
        const network = await extractAsync(image, { boundaries: ['x'], signal });
        if (!long) {
          created('pnm', `Network#${network.id}`, env, 'native');
          return network;
        }
        // Each pass's network is the work's own: released by it in the same tick it is made (so
        // no teardown can find it), and not announced to the judge, whose objects are the ones
        // teardown must release (a pass that ends just before an unhandled signal leaves this
        // release in the trace, which the judge must not count as teardown's).
        network.release();
      } while (!signal?.aborted);
      signal.throwIfAborted();
    },
    works() {
      const network = extract(poreLattice(2), { boundaries: ['x'] });
      const ok = network.poreCount === 8 + 8 && network.stokesFlow({ axis: 'x' }).permeability > 0;
      network.release();
      return ok;
    },
    finalize,
    stale(state) {
      const detached = ['regions', 'volume', 'conns'].every((k) => state[k].length === 0);
      return { detached, error: errorName(() => state.network.stokesFlow()) };
    },
  };
}

// A coupled simulation: `count` spheres of diameter 1e-4 m (a dem Simulation) on a jittered
// lattice in a periodic box of 6 × 6 × 6 fluid cells of 3e-4 m — coupling's own test system.
async function coupling() {
  const { CoupledSimulation, finalize } = await import('@peclet/coupling');
  const { Simulation } = await import('@peclet/dem');
  const h = 3e-4;
  const L = 6 * h;
  // Its particles are a dem Simulation the scenario builds (printed as dem's, so they are checked
  // wherever dem is loaded too); its lattice is flow's, owned by the coupled simulation.
  const make = (count, env) => {
    const particles = new Simulation({
      box: { min: [0, 0, 0], max: [L, L, L] },
      periodic: true,
      gravity: [0, 0, -9.81],
      contact: { model: 'linear', stiffness: 1e-2 },
    });
    const side = Math.ceil(Math.cbrt(count));
    const positions = [];
    for (let i = 0; i < count; i++) {
      const [a, b, c] = [i % side, Math.floor(i / side) % side, Math.floor(i / side / side)];
      positions.push(((a + 0.5 + 0.1 * Math.sin(i)) * L) / side, ((b + 0.5) * L) / side, ((c + 0.5) * L) / side);
    }
    particles.addSpheres({ positions, radii: new Array(count).fill(5e-5), density: 2500 });
    let simulation;
    try {
      simulation = new CoupledSimulation({ particles, fluid: { cellSize: h, viscosity: 1e-2, density: 1000 } });
    } catch (error) {
      particles.release();
      throw error;
    }
    if (env) {
      created('dem', `Simulation#${particles.id}`, env, 'native');
      created('coupling', `CoupledSimulation#${simulation.id}`, env, 'native');
    }
    return { particles, simulation };
  };
  return {
    name: 'coupling',
    populate({ env }) {
      const { particles, simulation } = make(27, env);
      simulation.step(2);
      const { voidFraction, fluidVelocity, pressure, dragForces } = simulation;
      return { particles, simulation, voidFraction, fluidVelocity, pressure, dragForces };
    },
    // A run() is JS-driven slices of sync coupled steps: short slices keep the event loop
    // (timers, aborts, signals) turning.
    work(state, { long, signal }) {
      return state.simulation.run({ steps: long ? 1e9 : 3, signal, progressInterval: 10 });
    },
    // Computes; or, once dem or flow (which it builds on) is finalized, refuses with a
    // ReleasedError naming that module, as documented — never a crash.
    works() {
      let made;
      try {
        made = make(8);
      } catch (error) {
        return error?.name === 'ReleasedError' && (error.module === 'dem' || error.module === 'flow');
      }
      const { particles, simulation } = made;
      const ok =
        simulation.step(2).steps === 2 && simulation.voidFraction.length === 216 && simulation.dragForces.length === 24;
      simulation.release();
      particles.release();
      return ok;
    },
    finalize,
    stale(state) {
      const detached = ['voidFraction', 'fluidVelocity', 'pressure', 'dragForces'].every((k) => state[k].length === 0);
      return { detached, error: errorName(() => state.simulation.step(1)) };
    },
  };
}

/**
 * dem computing on WebGPU: needs `requestGpu` from `@peclet/core/gpu` and
 * dem's `executionSpace: 'webgpu'`. Returns why it cannot run, or null.
 */
export async function demWebgpuUnavailable() {
  let gpu;
  try {
    gpu = await import('@peclet/core/gpu');
  } catch (error) {
    return `@peclet/core/gpu does not load: ${error.message}`;
  }
  if (typeof gpu.requestGpu !== 'function') return '@peclet/core/gpu does not export requestGpu';
  const { Simulation } = await import('@peclet/dem');
  try {
    const simulation = new Simulation({
      box: { min: [0, 0, 0], max: [1, 1, 1] },
      executionSpace: 'webgpu',
      contact: { model: 'linear', stiffness: 1e4 },
    });
    const space = simulation.executionSpace;
    simulation.release();
    if (space !== 'webgpu') return `dem ignores executionSpace: 'webgpu' (got ${String(space)})`;
  } catch (error) {
    return `dem refuses executionSpace: 'webgpu': ${error.message}`;
  }
  return null;
}

// On 'webgpu' dem steps only asynchronously and its arrays are copies.
async function demWebgpu() {
  const reason = await demWebgpuUnavailable();
  if (reason !== null) throw new Error(`module dem-webgpu is unavailable: ${reason}`);
  const { Simulation, finalize } = await import('@peclet/dem');
  const make = (box, positions, radius, timestep) => {
    const simulation = new Simulation({
      box,
      periodic: [true, true, false],
      gravity: [0, 0, -1],
      timestep,
      executionSpace: 'webgpu',
      contact: { model: 'linear', stiffness: 1e4, restitution: 0.2, friction: 0.5 },
    });
    simulation.addSpheres({ positions, radii: new Array(positions.length / 3).fill(radius), density: 1 });
    return simulation;
  };
  return {
    name: 'dem',
    populate({ env }) {
      const lattice = [];
      for (let i = 0; i < 4; i++)
        for (let j = 0; j < 4; j++) for (let k = 0; k < 8; k++) lattice.push(1 + 2 * i, 1 + 2 * j, 1 + 2 * k);
      const simulation = make({ min: [0, 0, 0], max: [8, 8, 40] }, lattice, 0.5, 9e-4);
      created('dem', `Simulation#${simulation.id}`, env, 'native');
      return { simulation, positions: simulation.positions, radii: simulation.radii };
    },
    work(state, { long, signal }) {
      return state.simulation.run({ steps: long ? 1e9 : 20, signal });
    },
    async works() {
      const simulation = make({ min: [0, 0, 0], max: [1, 1, 1] }, [0.25, 0.5, 0.5, 0.75, 0.5, 0.5], 0.1);
      const report = await simulation.run({ steps: 5 });
      simulation.release();
      return report.steps === 5;
    },
    finalize,
    stale(state) {
      // Arrays on 'webgpu' are copies: nothing to detach.
      return { detached: true, error: errorName(() => state.simulation.executionSpace) };
    },
  };
}

function errorName(fn) {
  try {
    fn();
    return 'no error';
  } catch (error) {
    return error.name;
  }
}

const loaders = {
  alpha: () => coreTestAddon('alpha'),
  beta: () => coreTestAddon('beta'),
  voro,
  dem,
  flow,
  pnm,
  coupling,
  'dem-webgpu': demWebgpu,
};

export const moduleNames = Object.keys(loaders);

export async function loadModule(name) {
  const loader = loaders[name];
  if (loader === undefined) throw new Error(`unknown module ${name} (one of ${moduleNames})`);
  return loader();
}
