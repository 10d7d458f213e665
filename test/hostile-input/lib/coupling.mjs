// coupling's targets: new CoupledSimulation (each option hostile on valid others), step, run
// (hostile options, aborts, release and finalize during a run, reentrant onProgress), the members
// and getters (also after release, and with the dem simulation released or dem or flow finalized
// underneath), garbage written into the zero-copy arrays and into the dem simulation's
// externalForces, positions and velocities between steps, release, finalize, dragCoefficient and
// terminalVelocity. Every system is small (a few spheres in 4 × 4 × 4 cells, a handful of steps).

import { hashArray, repeatedReads } from './check.mjs';
import { numbers, periodics, threadCounts } from './domains.mjs';
import { hostileProgress, progressKinds } from './progress.mjs';

const describe = (v) => {
  try {
    return typeof v === 'object' && v !== null ? Object.prototype.toString.call(v) : String(v);
  } catch {
    return 'a value';
  }
};

const cancelled = (e) => e instanceof Error && e.code === 'PECLET_CANCELLED';
const releasedError = (e) => e instanceof TypeError && e.name === 'ReleasedError';

// The base system: spheres of diameter 1e-4 m (2500 kg/m³) in a box of 4 cells of 3e-4 m a side.
const H = 3e-4;
const L = 4 * H;
const FLUID = { cellSize: H, viscosity: 1e-2, density: 1000 };

/**
 * A dem Simulation: `count` spheres on a jittered lattice, periodic or walled in z, with or
 * without gravity. Built with the dem module the child loaded.
 */
function particles(dem, { count = 4, periodic = true, gravity = [0, 0, -9.81], timestep, stiffness = 1e-2 } = {}) {
  const s = new dem.Simulation({
    box: { min: [0, 0, 0], max: [L, L, L] },
    periodic: periodic ? true : [true, true, false],
    gravity,
    contact: { model: 'linear', stiffness },
    ...(timestep === undefined ? {} : { timestep }),
  });
  if (count > 0) {
    const side = Math.ceil(Math.cbrt(count));
    const positions = [];
    const velocities = [];
    for (let i = 0; i < count; i++) {
      const [a, b, c] = [i % side, Math.floor(i / side) % side, Math.floor(i / side / side)];
      positions.push(((a + 0.5 + 0.1 * Math.sin(i)) * L) / side, ((b + 0.5) * L) / side, ((c + 0.5) * L) / side);
      velocities.push(1e-4 * Math.sin(3 * i), 1e-4 * Math.cos(5 * i), 2e-4 * Math.sin(7 * i + 1));
    }
    s.addSpheres({ positions, radii: new Array(count).fill(5e-5), density: 2500, velocities });
  }
  return s;
}

/** A coupled simulation in one of a few states, with its particles. */
function system(api, name = 'settling') {
  const { coupling, dem } = api;
  const walled = name === 'walled, driven';
  const p = particles(dem, { count: name === 'one sphere' ? 1 : 4, periodic: !walled });
  const fluid = { ...FLUID };
  if (walled) {
    fluid.periodic = [true, true, false];
    fluid.drive = { pressureGradient: [-50, 0, 0] };
  }
  if (name === 'fluidized') fluid.drive = { superficialVelocity: [0, 0, 2e-3] };
  const sim = new coupling.CoupledSimulation({
    particles: p,
    fluid,
    drag: name === 'fluidized' ? 'beetstra' : name === 'one sphere' ? 'gidaspow' : 'di-felice',
  });
  sim.step(2);
  return { sim, particles: p };
}
const states = ['settling', 'walled, driven', 'fluidized', 'one sphere'];

/** The observable state of a coupled simulation and its spheres (equal before and after a throw). */
function digest(sim, p) {
  const parts = [];
  try {
    parts.push(sim.stepCount, sim.time);
  } catch (e) {
    parts.push(e.name);
  }
  for (const k of ['voidFraction', 'fluidVelocity', 'pressure', 'dragForces']) {
    try {
      parts.push(hashArray(sim[k]));
    } catch (e) {
      parts.push(e.name);
    }
  }
  for (const k of ['positions', 'velocities']) {
    try {
      parts.push(hashArray(p[k]));
    } catch (e) {
      parts.push(e.name);
    }
  }
  return parts.join('|');
}

/** The arrays of a live coupled simulation and its spheres are finite after a call that returned. */
function checkFinite(h, sim, p, label) {
  if (sim.released || p.released) return;
  for (const [k, a] of [
    ['voidFraction', sim.voidFraction],
    ['fluidVelocity', sim.fluidVelocity],
    ['pressure', sim.pressure],
    ['dragForces', sim.dragForces],
    ['positions', p.positions],
    ['velocities', p.velocities],
  ]) {
    const i = a.findIndex((x) => !Number.isFinite(x));
    if (i >= 0) {
      h.problem(`${label}: ${k}[${i}] is ${a[i]}`);
      return;
    }
  }
  const eps = sim.voidFraction;
  const i = eps.findIndex((x) => !(x > 0 && x <= 1));
  if (i >= 0) h.problem(`${label}: voidFraction[${i}] is ${eps[i]}, not in (0, 1]`);
}

/** A TypeError/RangeError for a bad argument must name it (`argument`, or the message's start). */
function checkNamed(h, label, error, roots) {
  if (!(error instanceof TypeError || error instanceof RangeError)) return;
  if (error.name === 'ReleasedError') return;
  const named = typeof error.argument === 'string' ? error.argument : String(error.message);
  if (!roots.some((root) => named.startsWith(root)))
    h.problem(`${label}: ${error.name} names '${named.slice(0, 60)}', expected one of ${roots.join(', ')}`);
}

const num = (name) => numbers[name]?.();

// ---- new CoupledSimulation -------------------------------------------------------------------

/**
 * Hostile values of each option, set one at a time on a valid base. `bad`: a documented error;
 * `unsure`: either end is fine (a Proxy, a getter answering differently); `roots`: the arguments
 * an error may name besides the option (a value that makes the time step unstable is named by
 * the particles' time step or dem.substeps, as documented).
 */
const stability = ['particles', 'dem.substeps'];
const optionValues = {
  particles: {
    'a dem Simulation': { v: (api) => particles(api.dem) },
    // Walled along z only (as particles() makes it): the fluid too (seed 1274474996 had all three walled).
    'a walled dem Simulation': {
      v: (api) => particles(api.dem, { periodic: false }),
      fluid: { periodic: [true, true, false] },
    },
    '{} (a plain object)': { v: () => ({}), bad: true },
    null: { v: () => null, bad: true },
    undefined: { v: () => undefined, bad: true },
    'a flow Lattice': { v: (api) => new api.flow.Lattice({ shape: [4, 4, 4] }), bad: true },
    'released Simulation': {
      v: (api) => {
        const s = particles(api.dem);
        s.release();
        return s;
      },
      bad: true,
    },
    'empty Simulation (no spheres)': { v: (api) => particles(api.dem, { count: 0 }), bad: true },
    'a Proxy of a Simulation': { v: (api) => new Proxy(particles(api.dem), {}), unsure: true },
    // Passes an instanceof check: must still be a TypeError naming particles (fixed in e2a6b0c, seed 114504).
    'Object.create(Simulation.prototype)': { v: (api) => Object.create(api.dem.Simulation.prototype), bad: true },
    'a Simulation with a time step above the limits': {
      v: (api) => particles(api.dem, { timestep: 1e-3, stiffness: 1e-4 }),
      bad: true,
    },
    'a Simulation with 64 spheres': { v: (api) => particles(api.dem, { count: 64 }) },
  },
  'fluid.cellSize': {
    '3e-4': { v: () => 3e-4 },
    '1.2e-3 (one cell)': { v: () => 1.2e-3 },
    '1.5e-4': { v: () => 1.5e-4 },
    NaN: { v: () => Number.NaN, bad: true },
    0: { v: () => 0, bad: true },
    '-0': { v: () => -0, bad: true },
    '-3e-4': { v: () => -3e-4, bad: true },
    Infinity: { v: () => Number.POSITIVE_INFINITY, bad: true },
    '1e308': { v: () => 1e308, bad: true },
    '5e-324': { v: () => 5e-324, bad: true },
    '5e-5 (smaller than a diameter)': { v: () => 5e-5, bad: true },
    '9.99e-5 (just under a diameter)': { v: () => 9.99e-5, bad: true },
    '3.5e-4 (not dividing the box)': { v: () => 3.5e-4, bad: true },
    '2.4e-3 (twice the box)': { v: () => 2.4e-3, bad: true },
    "'3e-4' (string)": { v: () => '3e-4', bad: true },
    undefined: { v: () => undefined, bad: true },
    '3e-4 as a Number object': { v: () => new Number(3e-4), bad: true },
  },
  'fluid.viscosity': {
    '1e-2': { v: () => 1e-2 },
    '1e-3': { v: () => 1e-3 },
    // A viscous liquid's drag can make the particles' own time step too long for the coupling.
    '1 (honey)': { v: () => 1, roots: stability },
    '1e-12 (least)': { v: () => 1e-12, roots: stability, unsure: true },
    '1e12 (most)': { v: () => 1e12, roots: stability, unsure: true },
    '1e13': { v: () => 1e13, bad: true },
    0: { v: () => 0, bad: true },
    '-1e-2': { v: () => -1e-2, bad: true },
    NaN: { v: () => Number.NaN, bad: true },
    Infinity: { v: () => Number.POSITIVE_INFINITY, bad: true },
    '5e-324': { v: () => 5e-324, bad: true },
    "'1e-2' (string)": { v: () => '1e-2', bad: true },
    undefined: { v: () => undefined, bad: true },
  },
  'fluid.density': {
    1000: { v: () => 1000 },
    '1.2 (air)': { v: () => 1.2, roots: stability, unsure: true },
    '2500 (the spheres)': { v: () => 2500 },
    '1e4 (denser than the spheres)': { v: () => 1e4, roots: stability, unsure: true },
    '1e-9 (least)': { v: () => 1e-9, roots: stability, unsure: true },
    '1e9 (most)': { v: () => 1e9, roots: stability, unsure: true },
    '1e10': { v: () => 1e10, bad: true },
    0: { v: () => 0, bad: true },
    '-1000': { v: () => -1000, bad: true },
    NaN: { v: () => Number.NaN, bad: true },
    Infinity: { v: () => Number.POSITIVE_INFINITY, bad: true },
    null: { v: () => null, bad: true },
  },
  'fluid.drive': {
    undefined: { v: () => undefined },
    '{ superficialVelocity: [0, 0, 1e-3] }': { v: () => ({ superficialVelocity: [0, 0, 1e-3] }) },
    '{ superficialVelocity: [0, 0, 0] }': { v: () => ({ superficialVelocity: [0, 0, 0] }) },
    '{ pressureGradient: [-100, 0, 0] }': { v: () => ({ pressureGradient: [-100, 0, 0] }) },
    '{ pressureGradient: Float32Array [0, 0, 1] }': { v: () => ({ pressureGradient: Float32Array.from([0, 0, 1]) }) },
    '{} (neither)': { v: () => ({}), bad: true },
    both: { v: () => ({ superficialVelocity: [0, 0, 1e-3], pressureGradient: [0, 0, 1] }), bad: true },
    '{ superficialVelocity: [NaN, 0, 0] }': { v: () => ({ superficialVelocity: [Number.NaN, 0, 0] }), bad: true },
    '{ superficialVelocity: [0, 0, Infinity] }': {
      v: () => ({ superficialVelocity: [0, 0, Number.POSITIVE_INFINITY] }),
      bad: true,
    },
    '{ superficialVelocity: [0, 0, 1e300] }': {
      v: () => ({ superficialVelocity: [0, 0, 1e300] }),
      roots: stability,
      bad: true,
    },
    // Accepted, then refused by flow after the exchange had changed the arrays before the fix
    // (seed 1610155628): now a RangeError naming the pressure gradient.
    '{ pressureGradient: [1e300, 0, 0] }': {
      v: () => ({ pressureGradient: [1e300, 0, 0] }),
      roots: stability,
      bad: true,
    },
    '{ pressureGradient: [-1e8, 0, 0] }': {
      v: () => ({ pressureGradient: [-1e8, 0, 0] }),
      roots: stability,
      unsure: true,
    },
    '{ pressureGradient: [NaN, 0, 0] }': { v: () => ({ pressureGradient: [Number.NaN, 0, 0] }), bad: true },
    '{ pressureGradient: [0, 0] }': { v: () => ({ pressureGradient: [0, 0] }), bad: true },
    '{ pressureGradient: [0, 0, 0, 0] }': { v: () => ({ pressureGradient: [0, 0, 0, 0] }), bad: true },
    "{ superficialVelocity: ['0', '0', '1'] }": { v: () => ({ superficialVelocity: ['0', '0', '1'] }), bad: true },
    '{ superficialVelocity: 1e-3 }': { v: () => ({ superficialVelocity: 1e-3 }), bad: true },
    "'x' (a string)": { v: () => 'x', bad: true },
    null: { v: () => null, bad: true },
    '{ velocity: [0, 0, 1] } (unknown key)': { v: () => ({ velocity: [0, 0, 1] }), bad: true },
    'a Proxy answering NaN on the second read': {
      v: () => {
        let reads = 0;
        const g = new Proxy([-100, 0, 0], {
          get: (t, k) => (k === '0' ? (reads++ === 0 ? -100 : Number.NaN) : Reflect.get(t, k)),
        });
        return { pressureGradient: g };
      },
      unsure: true,
    },
  },
  'fluid.periodic': Object.fromEntries(
    Object.entries(periodics).map(([k, v]) => [
      k,
      {
        v,
        // The base spheres are periodic on every axis: the fluid must be too.
        bad: k !== 'true' && k !== 'getter flipping',
        unsure: k === 'getter flipping',
      },
    ]),
  ),
  'fluid.minVoidFraction': {
    0.3: { v: () => 0.3 },
    0.06: { v: () => 0.06 },
    0.99: { v: () => 0.99 },
    0.05: { v: () => 0.05, bad: true },
    1: { v: () => 1, bad: true },
    0: { v: () => 0, bad: true },
    '-1': { v: () => -1, bad: true },
    NaN: { v: () => Number.NaN, bad: true },
    Infinity: { v: () => Number.POSITIVE_INFINITY, bad: true },
    "'0.3' (string)": { v: () => '0.3', bad: true },
  },
  drag: {
    "'di-felice'": { v: () => 'di-felice' },
    "'beetstra'": { v: () => 'beetstra' },
    "'gidaspow'": { v: () => 'gidaspow' },
    undefined: { v: () => undefined },
    "'stokes'": { v: () => 'stokes', bad: true },
    "'Di-Felice'": { v: () => 'Di-Felice', bad: true },
    "''": { v: () => '', bad: true },
    1: { v: () => 1, bad: true },
    null: { v: () => null, bad: true },
    "['gidaspow']": { v: () => ['gidaspow'], bad: true },
    "a String object 'gidaspow'": { v: () => new String('gidaspow'), bad: true },
  },
  'dem.substeps': {
    1: { v: () => 1 },
    2: { v: () => 2 },
    undefined: { v: () => undefined },
    0: { v: () => 0, bad: true },
    '-1': { v: () => -1, bad: true },
    1.5: { v: () => 1.5, bad: true },
    NaN: { v: () => Number.NaN, bad: true },
    Infinity: { v: () => Number.POSITIVE_INFINITY, bad: true },
    '1e6 (above the stability limit)': { v: () => 1e6, bad: true },
    '1e9': { v: () => 1e9, bad: true },
    '2**53': { v: () => 2 ** 53, bad: true },
    "'2' (string)": { v: () => '2', bad: true },
    null: { v: () => null, bad: true },
  },
  dem: {
    '{}': { v: () => ({}) },
    null: { v: () => null, bad: true },
    "'fast'": { v: () => 'fast', bad: true },
    // An unknown key is a TypeError naming it (core's readOptions), as in every package.
    '{ steps: 2 } (unknown key)': { v: () => ({ steps: 2 }), bad: true },
  },
  selfCorrection: {
    true: { v: () => true },
    false: { v: () => false },
    undefined: { v: () => undefined },
    null: { v: () => null, bad: true },
    0: { v: () => 0, bad: true },
    "'false' (string)": { v: () => 'false', bad: true },
    'a Boolean object': { v: () => new Boolean(false), bad: true },
  },
  threads: Object.fromEntries(
    Object.entries(threadCounts).map(([k, v]) => {
      const x = v();
      return [k, { v, bad: !(x === undefined || (Number.isInteger(x) && x >= 1 && x <= 1024)) }];
    }),
  ),
};

// ---- run() -------------------------------------------------------------------------------------

const onProgressKinds = [
  ...progressKinds,
  'reads the arrays',
  'writes NaN into voidFraction',
  'writes NaN into externalForces',
  'releases the particles',
  'finalizes dem',
  'finalizes flow',
];

function progress(kind, sim, api, seen, p) {
  return hostileProgress(kind, sim, api.coupling, seen, {
    again: { steps: 3 },
    extra: {
      'reads the arrays': () => {
        seen.sum = sim.voidFraction.reduce((a, b) => a + b, 0) + sim.dragForces.length;
      },
      'writes NaN into voidFraction': () => sim.voidFraction.fill(Number.NaN),
      'writes NaN into externalForces': () => p.externalForces.fill(Number.NaN),
      'releases the particles': () => p.release(),
      'finalizes dem': () => api.dem.finalize(),
      'finalizes flow': () => api.flow.finalize(),
    },
  });
}

// ---- garbage in arrays ------------------------------------------------------------------------

const garbage = {
  NaN: Number.NaN,
  Infinity: Number.POSITIVE_INFINITY,
  '-Infinity': Number.NEGATIVE_INFINITY,
  '1e308': 1e308,
  '-1e308': -1e308,
  '-1': -1,
  0: 0,
  '5e-324': 5e-324,
  '1e3': 1e3,
};
const garbageArrays = [
  'voidFraction',
  'fluidVelocity',
  'pressure',
  'dragForces',
  'particles.externalForces',
  'particles.positions',
  'particles.velocities',
];

const axes = {
  "'x'": 'x',
  "'y'": 'y',
  "'z'": 'z',
  0: 0,
  2: 2,
  "'w'": 'w',
  3: 3,
  '-1': -1,
  NaN: Number.NaN,
  undefined: undefined,
  null: null,
  "'X'": 'X',
  1.5: 1.5,
};
const validAxis = (a) => ['x', 'y', 'z', 0, 1, 2].includes(a);

// Members read on a coupled simulation, and whether each must throw once it (or a module under
// it) is gone.
const members = [
  'voidFraction',
  'fluidVelocity',
  'pressure',
  'dragForces',
  'drive',
  'particles',
  'momentum()',
  "pressureDrop('x')",
  'step(1)',
  'run({ steps: 1 })',
  'shape',
  'cellSize',
  'time',
  'stepCount',
  'timestepReport',
  'timings',
  'executionSpace',
  'id',
  'released',
];
// What must throw a ReleasedError once something is gone: whatever computes or reads the fluid
// or the spheres; `particles` (the Simulation held) once the coupled simulation itself is gone.
// The rest (identity, and the sizes and counts below) stays readable.
const computing = new Set([
  'voidFraction',
  'fluidVelocity',
  'pressure',
  'dragForces',
  'drive',
  'momentum()',
  "pressureDrop('x')",
  'step(1)',
  'run({ steps: 1 })',
]);
// Once the coupled simulation itself is gone every member but its identity throws (shape, cellSize,
// time, stepCount, timestepReport and timings did not before e2a6b0c, seed 564).
const identity = new Set(['id', 'released', 'executionSpace']);
const mustThrowOnce = (m, module) => computing.has(m) || (module === 'coupling' && !identity.has(m));

function member(sim, name) {
  switch (name) {
    case 'momentum()':
      return sim.momentum();
    case "pressureDrop('x')":
      return sim.pressureDrop('x');
    case 'step(1)':
      return sim.step(1);
    case 'run({ steps: 1 })':
      return sim.run({ steps: 1 });
    default:
      return sim[name];
  }
}

// What makes a coupled simulation unusable, and the module its ReleasedError must name.
const underneath = {
  'release()': { module: 'coupling', go: (_api, sim) => sim.release() },
  'coupling finalize()': { module: 'coupling', go: (api) => api.coupling.finalize() },
  'its particles released': { module: 'dem', go: (_api, _sim, p) => p.release() },
  'dem finalize()': { module: 'dem', go: (api) => api.dem.finalize() },
  'flow finalize()': { module: 'flow', go: (api) => api.flow.finalize() },
  'dem then flow finalize()': {
    module: ['dem', 'flow'],
    go: (api) => {
      api.dem.finalize();
      api.flow.finalize();
    },
  },
  'flow, coupling, dem finalize()': {
    module: 'coupling',
    go: (api) => {
      api.flow.finalize();
      api.coupling.finalize();
      api.dem.finalize();
    },
  },
};

// Finite extremes that overflowed β to Infinity before e2a6b0c (seeds 12196, 910, 1708): now
// refused by name; kept in the domain.
const overflow = {};

export const couplingTargets = {
  'coupling.new CoupledSimulation': {
    build: (r) => {
      const field = r.pick(Object.keys(optionValues));
      return {
        field,
        value: r.pick(Object.keys(optionValues[field])),
        options: r.pick(['object', 'object', 'object', 'object', 'null', 'a number', 'unknown key', 'fluid null']),
      };
    },
    async exec(plan, h, api) {
      const { coupling, dem } = api;
      const entry = optionValues[plan.field][plan.value];
      const made = [];
      let p;
      let options;
      if (plan.field === 'particles') {
        p = entry.v(api);
        if (p !== null && typeof p === 'object' && typeof p.release === 'function') made.push(p);
        options = { particles: p, fluid: { ...FLUID, ...entry.fluid } };
      } else {
        p = particles(dem);
        made.push(p);
        options = { particles: p, fluid: { ...FLUID } };
        const value = entry.v(api);
        if (plan.field.startsWith('fluid.')) options.fluid[plan.field.slice(6)] = value;
        else if (plan.field === 'dem.substeps') options.dem = { substeps: value };
        else options[plan.field] = value;
      }
      if (plan.options === 'unknown key') options.bogus = 1;
      if (plan.options === 'fluid null') options.fluid = null;
      const argument = plan.options === 'null' ? null : plan.options === 'a number' ? 5 : options;
      // An unknown key is a TypeError naming it (core's readOptions).
      const valid = plan.options === 'object';
      const bad = (entry.bad && plan.options !== 'fluid null') || !valid;
      // A Proxy or a bare prototype has no private state: hashed only when it is a live Simulation.
      const positionsOf = () => {
        try {
          return p.released ? undefined : hashArray(p.positions);
        } catch {
          return undefined;
        }
      };
      const before = positionsOf();
      const result = await h.call(
        `new CoupledSimulation({ ${plan.field}: ${plan.value} }) (${plan.options})`,
        () => new coupling.CoupledSimulation(argument),
        { bad: bad && !entry.unsure, mustThrow: valid ? undefined : 'bad options must throw' },
      );
      if (!result.ok) {
        if (valid && !entry.unsure && !releasedError(result.error))
          checkNamed(h, 'new CoupledSimulation', result.error, [plan.field, 'options', ...(entry.roots ?? [])]);
        if (plan.options === 'fluid null') checkNamed(h, 'new CoupledSimulation', result.error, ['fluid']);
        // A refused coupling leaves the spheres as they were.
        if (before !== undefined && positionsOf() !== before) h.problem('a refused constructor moved the spheres');
      } else {
        const sim = result.value;
        const [n0, n1, n2] = sim.shape;
        const cells = n0 * n1 * n2;
        if (![n0, n1, n2].every((n) => Number.isInteger(n) && n >= 1)) h.problem(`shape [${sim.shape}]`);
        if (
          sim.voidFraction.length !== cells ||
          sim.fluidVelocity.length !== 3 * cells ||
          sim.pressure.length !== cells
        )
          h.problem(`arrays of ${sim.voidFraction.length}/${sim.fluidVelocity.length} for ${cells} cells`);
        const t = sim.timestepReport;
        if (!(t.timestep > 0 && Number.isFinite(t.timestep) && Number.isInteger(t.substeps) && t.substeps >= 1))
          h.problem(`timestepReport ${JSON.stringify(t)}`);
        else if (t.substeps > 1e6) h.problem(`${t.substeps} dem steps per fluid step (more than dem.substeps may ask)`);
        else {
          // An accepted coupled simulation steps: finite arrays, or a clean error that changed nothing.
          const sp = options.particles;
          const stepped = await h.call('step(3)', () => sim.step(3), { digest: () => digest(sim, sp) });
          if (stepped.ok) checkFinite(h, sim, sp, 'after step(3)');
          else checkNamed(h, 'step(3)', stepped.error, ['dem.substeps', 'particles', 'n']);
          const m = await h.call('momentum()', () => sim.momentum());
          if (m.ok && [...m.value.fluid, ...m.value.particles].some((x) => !Number.isFinite(x)))
            h.problem(`momentum ${JSON.stringify(m.value)}`);
        }
        sim.release();
      }
      for (const o of made) {
        try {
          o.release();
        } catch {
          // a bare prototype: nothing to release
        }
      }
    },
  },

  'coupling.step': {
    build: (r) => ({
      n: r.pick([
        'undefined',
        '0',
        '1',
        '3',
        '-1',
        '-0',
        'NaN',
        '1.5',
        'Infinity',
        // 1e9 is a valid count (coupling's documented maximum) that would run for hours: never
        // generated; one above it must be refused up front.
        '1e9 + 1',
        '2**53',
        '1e308',
        "'1' (string)",
        'null',
        '1n (bigint)',
        '{ valueOf: 1 }',
      ]),
      start: r.pick(states),
      released: r.chance(0.05),
    }),
    async exec(plan, h, api) {
      const { sim, particles: p } = system(api, plan.start);
      if (plan.released) sim.release();
      const n = plan.n === '1e9 + 1' ? 1e9 + 1 : plan.n === '3' ? 3 : num(plan.n);
      const valid = !plan.released && (n === undefined || (Number.isInteger(n) && n >= 0 && n <= 1e9));
      const before = plan.released ? undefined : sim.stepCount;
      const result = await h.call(`step(${plan.n}) on ${plan.start}`, () => sim.step(n), {
        digest: () => digest(sim, p),
        mustThrow: valid ? undefined : 'an invalid step count or a released simulation must throw',
      });
      if (!result.ok) {
        if (!plan.released) checkNamed(h, 'step', result.error, ['n']);
      } else {
        const taken = n === undefined ? 1 : n;
        if (result.value.steps !== taken) h.problem(`step(${plan.n}) reports ${result.value.steps} steps`);
        if (sim.stepCount !== before + taken) h.problem(`stepCount ${sim.stepCount}, expected ${before + taken}`);
        checkFinite(h, sim, p, 'after step');
      }
      if (!sim.released) sim.release();
      p.release();
    },
  },

  'coupling.run': {
    build: (r) => ({
      what: r.pick([
        '{ steps: 5 }',
        '{ steps: 5 }',
        '{ steps: 0 }',
        '{ time: 1e-3 }',
        '{ time: 0 }',
        '{ steps: 1e9 } (stopped)',
        '{ time: 1e12 } (stopped)',
        '{} (neither)',
        '{ steps: 5, time: 1e-3 } (both)',
        '{ steps: -1 }',
        '{ steps: NaN }',
        '{ steps: 1.5 }',
        '{ steps: 1e12 + 1 }',
        '{ steps: Infinity }',
        "{ steps: '5' }",
        '{ time: NaN }',
        '{ time: -1 }',
        '{ time: Infinity }',
        '{ time: 1e13 }',
        '{ time: 5e-324 }',
      ]),
      progressInterval: r.pick(['undefined', '1', '0', '-1', 'NaN', 'Infinity', '60001', '5e-324', "'1' (string)"]),
      signal: r.pick(['none', 'none', 'an AbortSignal', 'aborted before', 'not a signal']),
      options: r.pick(['object', 'object', 'object', 'object', 'null', 'a number', 'unknown key']),
      onProgress: r.pick([...onProgressKinds, "'not a function'"]),
      cancel: r.pick([
        'none',
        'none',
        'abort after 10 ms',
        'release() after 10 ms',
        'finalize() after 10 ms',
        'dem finalize() after 10 ms',
        'flow finalize() after 10 ms',
        'particles released after 10 ms',
        'a second run() at once',
        'step() at once',
      ]),
      start: r.pick(states),
    }),
    async exec(plan, h, api) {
      const { coupling, dem, flow } = api;
      const { sim, particles: p } = system(api, plan.start);
      const controller = new AbortController();
      const reason = new Error('hostile abort');
      if (plan.signal === 'aborted before') controller.abort(reason);
      const seen = { count: 0, errors: [] };
      const stopper = plan.cancel.endsWith('after 10 ms');
      const long = plan.what.endsWith('(stopped)');
      const what = {
        '{ steps: 5 }': { steps: 5 },
        '{ steps: 0 }': { steps: 0 },
        '{ time: 1e-3 }': { time: 1e-3 },
        '{ time: 0 }': { time: 0 },
        // Without a stopper a long run is cut to a short one (it would not end).
        '{ steps: 1e9 } (stopped)': { steps: stopper ? 1e9 : 5 },
        '{ time: 1e12 } (stopped)': { time: stopper ? 1e12 : 1e-3 },
        '{} (neither)': {},
        '{ steps: 5, time: 1e-3 } (both)': { steps: 5, time: 1e-3 },
        '{ steps: -1 }': { steps: -1 },
        '{ steps: NaN }': { steps: Number.NaN },
        '{ steps: 1.5 }': { steps: 1.5 },
        '{ steps: 1e12 + 1 }': { steps: 1e12 + 1 },
        '{ steps: Infinity }': { steps: Number.POSITIVE_INFINITY },
        "{ steps: '5' }": { steps: '5' },
        '{ time: NaN }': { time: Number.NaN },
        '{ time: -1 }': { time: -1 },
        '{ time: Infinity }': { time: Number.POSITIVE_INFINITY },
        '{ time: 1e13 }': { time: 1e13 },
        '{ time: 5e-324 }': { time: 5e-324 },
      }[plan.what];
      const options = { ...what };
      if (plan.progressInterval !== 'undefined') options.progressInterval = num(plan.progressInterval);
      const withSignal =
        plan.signal === 'an AbortSignal' ||
        plan.signal === 'aborted before' ||
        (plan.signal === 'none' && plan.cancel === 'abort after 10 ms');
      if (withSignal) options.signal = controller.signal;
      if (plan.signal === 'not a signal') options.signal = { aborted: false, addEventListener() {} };
      if (plan.onProgress === "'not a function'") options.onProgress = 'not a function';
      else options.onProgress = progress(plan.onProgress, sim, api, seen, p);
      if (plan.options === 'unknown key') options.bogus = true;
      const steps = options.steps;
      const time = options.time;
      const validWhat =
        (steps === undefined) !== (time === undefined) &&
        (steps === undefined || (Number.isInteger(steps) && steps >= 0 && steps <= 1e12)) &&
        (time === undefined || (typeof time === 'number' && time >= 0 && time <= 1e12));
      const pi = options.progressInterval;
      const validInterval = pi === undefined || (typeof pi === 'number' && pi > 0 && pi <= 60000);
      const bad =
        plan.options !== 'object' ||
        !validWhat ||
        !validInterval ||
        plan.signal === 'not a signal' ||
        plan.onProgress === "'not a function'";
      const argument = plan.options === 'null' ? null : plan.options === 'a number' ? 5 : options;
      const ending = (e) =>
        e === reason || (plan.onProgress === 'throws' && e instanceof Error && e.message === 'hostile onProgress');
      const before = sim.stepCount;
      const first = h.call(
        `run(${plan.what}, progressInterval: ${plan.progressInterval}, signal: ${plan.signal}, onProgress: ${plan.onProgress}) (${plan.options}, ${plan.cancel}) on ${plan.start}`,
        () => sim.run(argument),
        { allow: ending, bad },
      );
      let second;
      if (plan.cancel === 'a second run() at once')
        second = h.call('a second run() at once', () => sim.run({ steps: 3 }));
      if (plan.cancel === 'step() at once') second = h.call('step(1) during run()', () => sim.step(1));
      const later = {
        'abort after 10 ms': () => controller.abort(reason),
        'release() after 10 ms': () => sim.release(),
        'finalize() after 10 ms': () => coupling.finalize(),
        'dem finalize() after 10 ms': () => dem.finalize(),
        'flow finalize() after 10 ms': () => flow.finalize(),
        'particles released after 10 ms': () => p.release(),
      }[plan.cancel];
      if (later) setTimeout(later, 10);
      const result = await first;
      if (!result.ok && bad && result.error !== reason)
        checkNamed(h, 'run', result.error, ['options', 'steps', 'time', 'signal', 'onProgress', 'progressInterval']);
      const killedBy = [
        'release() after 10 ms',
        'finalize() after 10 ms',
        'dem finalize() after 10 ms',
        'flow finalize() after 10 ms',
        'particles released after 10 ms',
      ].includes(plan.cancel);
      const killedFrom = [
        'calls release()',
        'calls finalize()',
        'releases the particles',
        'finalizes dem',
        'finalizes flow',
      ].includes(plan.onProgress);
      if ((killedBy || killedFrom) && !bad && !result.ok && result.error?.argument === undefined) {
        const e = result.error;
        const fine =
          cancelled(e) ||
          releasedError(e) ||
          e === reason ||
          (plan.onProgress === 'throws' && e?.message === 'hostile onProgress');
        if (!fine)
          h.problem(
            `a run stopped by a release or finalize rejected with ${e?.constructor?.name} ${e?.code ?? ''}: ${e?.message}`,
          );
      }
      if (long && stopper && result.ok) h.problem('a run of 1e9 steps (or 1e12 s) resolved although it was stopped');
      if (result.ok) {
        const v = result.value;
        if (!(Number.isInteger(v.steps) && v.steps >= 0)) h.problem(`run reports ${v.steps} steps`);
        if (steps !== undefined && validWhat && v.steps > steps) h.problem(`run took ${v.steps} steps of ${steps}`);
        if (!sim.released && sim.stepCount < before + v.steps)
          h.problem(`stepCount ${sim.stepCount} after a run of ${v.steps} from ${before}`);
        if (plan.onProgress !== 'writes NaN into voidFraction' && plan.onProgress !== 'writes NaN into externalForces')
          if (!sim.released && !p.released) checkFinite(h, sim, p, 'after run');
      }
      if (second) {
        const other = await second;
        if (plan.cancel === 'a second run() at once' && other.ok && result.ok && steps !== 0)
          h.problem('two run() at once on one coupled simulation were both accepted');
        if (!other.ok && !releasedError(other.error))
          checkNamed(h, 'a call during run()', other.error, ['run', 'step']);
      }
      if (seen.nested) {
        const nested = await seen.nested;
        if (!(nested instanceof TypeError || cancelled(nested) || nested?.steps !== undefined))
          h.problem(`run() from onProgress ended with ${nested?.constructor?.name}: ${nested?.message}`);
      }
      for (const e of seen.errors)
        if (!(e instanceof TypeError || e instanceof RangeError))
          h.problem(`step() from onProgress threw ${e?.constructor?.name}: ${e?.message}`);
      // Whatever the run did, a live coupled simulation still steps (or names what is wrong).
      const live = !sim.released && !p.released;
      let usable = live;
      try {
        usable = live && sim.particles !== undefined && sim.voidFraction.length > 0;
      } catch {
        usable = false;
      }
      if (usable) {
        const after = await h.call('step(1) after run', () => sim.step(1), { digest: () => digest(sim, p) });
        if (after.ok) {
          if (!plan.onProgress.startsWith('writes NaN')) checkFinite(h, sim, p, 'after run, step(1)');
        } else
          checkNamed(h, 'step(1) after run', after.error, [
            'particles',
            'dem.substeps',
            'voidFraction',
            'externalForces',
          ]);
      }
      try {
        sim.release();
        p.release();
      } catch (e) {
        h.problem(`release after run threw ${e?.name}: ${e?.message}`);
      }
    },
  },

  'coupling.members': {
    build: (r) => ({
      start: r.pick(states),
      gone: r.pick(['none', 'none', 'none', ...Object.keys(underneath)]),
      axis: r.pick(Object.keys(axes)),
    }),
    async exec(plan, h, api) {
      const { sim, particles: p } = system(api, plan.start);
      const arrays = ['voidFraction', 'fluidVelocity', 'pressure', 'dragForces'].map((k) => sim[k]);
      const how = underneath[plan.gone];
      if (how) await h.call(plan.gone, () => how.go(api, sim, p));
      const axis = axes[plan.axis];
      for (const m of members) {
        const mustThrow = how !== undefined && mustThrowOnce(m, [how.module].flat()[0]);
        const result = await h.call(`${m} (${plan.gone})`, () => member(sim, m), {
          mustThrow: mustThrow ? `${m} must throw ReleasedError once ${plan.gone}` : undefined,
          digest: () => digest(sim, p),
        });
        if (!result.ok) {
          if (!how) {
            // A live coupled simulation: only stability may refuse a step.
            if (!(m === 'step(1)' || m === 'run({ steps: 1 })'))
              h.problem(`${m} on a live coupled simulation threw ${result.error?.name}: ${result.error?.message}`);
          } else if (!releasedError(result.error)) {
            h.problem(`${m} once ${plan.gone}: ${result.error?.name} (expected ReleasedError)`);
          } else {
            const modules = [how.module].flat();
            if (!modules.includes(result.error.module))
              h.problem(
                `${m} once ${plan.gone}: ReleasedError names module ${result.error.module}, expected ${modules}`,
              );
          }
          continue;
        }
        const v = result.value;
        if (m === 'momentum()' && [...v.fluid, ...v.particles].some((x) => !Number.isFinite(x)))
          h.problem(`momentum ${JSON.stringify(v)}`);
        if (m === "pressureDrop('x')" && !Number.isFinite(v)) h.problem(`pressureDrop('x') is ${v}`);
        if (m === 'particles' && v !== p) h.problem('particles is not the Simulation passed in');
      }
      const pd = await h.call(`pressureDrop(${plan.axis}) (${plan.gone})`, () => sim.pressureDrop(axis), {
        bad: !validAxis(axis),
        mustThrow: how ? 'pressureDrop must throw once gone' : undefined,
      });
      if (pd.ok && !Number.isFinite(pd.value)) h.problem(`pressureDrop(${plan.axis}) is ${pd.value}`);
      if (!pd.ok && !how) checkNamed(h, 'pressureDrop', pd.error, ['axis']);
      // Arrays taken before are detached by the coupled simulation's own release or finalize.
      const own = how && how.module === 'coupling';
      if (own && arrays.some((a) => a.length !== 0)) h.problem(`arrays taken before ${plan.gone} are not detached`);
      if (!how) {
        for (const k of ['voidFraction', 'fluidVelocity', 'pressure', 'dragForces'])
          repeatedReads(h, `${k} (${plan.start})`, () => sim[k], 'coupling');
        sim.release();
        p.release();
      } else {
        sim.release();
        if (!p.released) p.release();
      }
      if (!sim.released) h.problem('released is false after release()');
    },
  },

  'coupling.garbage in arrays': {
    build: (r) => ({
      array: r.pick(garbageArrays),
      value: r.pick(Object.keys(garbage)),
      where: r.pick(['one element', 'every element']),
      call: r.pick(['step(1)', 'step(3)', 'run({ steps: 3 })', 'momentum()', "pressureDrop('z')"]),
      start: r.pick(states),
    }),
    async exec(plan, h, api) {
      const { sim, particles: p } = system(api, plan.start);
      const [owner, name] = plan.array.startsWith('particles.') ? [p, plan.array.slice(10)] : [sim, plan.array];
      const a = owner[name];
      const saved = Float64Array.from(a);
      const x = garbage[plan.value];
      if (plan.where === 'every element') a.fill(x);
      else a[Math.min(2, a.length - 1)] = x;
      // The coupling's own arrays are outputs (rewritten by each exchange); dem's externalForces are
      // overwritten by the exchange too; positions and velocities are the spheres' state.
      const call = {
        'step(1)': () => sim.step(1),
        'step(3)': () => sim.step(3),
        'run({ steps: 3 })': () => sim.run({ steps: 3 }),
        'momentum()': () => sim.momentum(),
        "pressureDrop('z')": () => sim.pressureDrop('z'),
      }[plan.call];
      const state = plan.array === 'particles.positions' || plan.array === 'particles.velocities';
      const result = await h.call(`${plan.array}: ${plan.value} into ${plan.where}, then ${plan.call}`, call, {
        digest: () => digest(sim, p),
      });
      if (!result.ok) {
        // A force that the spheres' state makes non-finite is refused naming the fluid.
        checkNamed(h, plan.call, result.error, [
          'fluid',
          'positions',
          'velocities',
          'particles',
          'dem.substeps',
          plan.array,
          name,
        ]);
      } else if (plan.call.startsWith('step') || plan.call.startsWith('run')) {
        // Garbage in an output is overwritten; garbage in the spheres' state is refused or, when
        // finite, stepped from.
        if (!state || Number.isFinite(x)) checkFinite(h, sim, p, `after ${plan.call}`);
      }
      // Restored, the coupled simulation steps again.
      if (!sim.released && !p.released && (owner === p ? true : sim.voidFraction.length > 0)) {
        owner[name].set(saved.subarray(0, owner[name].length));
        const again = await h.call('step(1) after restoring', () => sim.step(1), { digest: () => digest(sim, p) });
        if (again.ok && !(state && !Number.isFinite(x))) checkFinite(h, sim, p, 'after restoring');
        if (!again.ok)
          checkNamed(h, 'step(1) after restoring', again.error, ['dem.substeps', 'particles', 'positions']);
      }
      sim.release();
      p.release();
    },
  },

  'coupling.release': {
    build: (r) => ({
      how: r.pick(['twice', 'dispose', 'during run()', 'then the particles step', 'from onProgress, then step()']),
    }),
    async exec(plan, h, api) {
      const { sim, particles: p } = system(api);
      const arrays = ['voidFraction', 'fluidVelocity', 'pressure', 'dragForces'].map((k) => sim[k]);
      const spheres = p.sphereCount;
      if (plan.how === 'during run()') {
        const pending = h.call('run({ steps: 1e9 })', () => sim.run({ steps: 1e9, progressInterval: 5 }));
        await new Promise((resolve) => setTimeout(resolve, 10));
        await h.call('release()', () => sim.release());
        const end = await pending;
        if (end.ok || !cancelled(end.error))
          h.problem(
            `release() during run() must make it reject with code PECLET_CANCELLED, got ${end.ok ? 'a result' : `${end.error?.constructor?.name} ${end.error?.code ?? ''}`}`,
          );
      } else if (plan.how === 'from onProgress, then step()') {
        const end = await h.call('run({ onProgress: release, step })', () =>
          sim.run({
            steps: 1e9,
            progressInterval: 1,
            onProgress: () => {
              sim.release();
              sim.step(1);
            },
          }),
        );
        if (end.ok || !(end.error instanceof TypeError || cancelled(end.error)))
          h.problem('a run whose onProgress released the coupled simulation must reject');
      } else if (plan.how === 'dispose') await h.call('[Symbol.dispose]()', () => sim[Symbol.dispose]());
      else {
        await h.call('release()', () => sim.release());
        await h.call('release() again', () => sim.release());
      }
      if (!sim.released) h.problem('released is false after release()');
      if (arrays.some((a) => a.length !== 0)) h.problem('arrays taken before release() are not detached');
      // Releasing the coupling leaves its spheres: they still step.
      if (p.released || p.sphereCount !== spheres)
        h.problem('release() of the coupled simulation touched its particles');
      else await h.call('particles.step(2) after release', () => p.step(2));
      p.release();
    },
  },

  'coupling.setDrive': {
    build: (r) => ({
      value: r.pick(Object.keys(optionValues['fluid.drive'])),
      start: r.pick(states),
      released: r.chance(0.05),
    }),
    async exec(plan, h, api) {
      const { sim, particles: p } = system(api, plan.start);
      if (plan.released) sim.release();
      const entry = optionValues['fluid.drive'][plan.value];
      const value = entry.v(api);
      const driveOf = () => {
        try {
          return String(sim.drive);
        } catch (e) {
          return e.name;
        }
      };
      const result = await h.call(`setDrive(${plan.value}) on ${plan.start}`, () => sim.setDrive(value), {
        digest: () => `${digest(sim, p)}|${driveOf()}`,
        // undefined: no drive, or refused (either reads as documented).
        bad: entry.bad && !entry.unsure && !plan.released,
        mustThrow: plan.released ? 'a released coupled simulation must refuse setDrive' : undefined,
      });
      if (!result.ok && !plan.released && !entry.unsure && plan.value !== 'undefined')
        checkNamed(h, 'setDrive', result.error, ['drive', ...(entry.roots ?? [])]);
      if (result.ok) {
        const stepped = await h.call('step(2) after setDrive', () => sim.step(2), { digest: () => digest(sim, p) });
        if (stepped.ok) checkFinite(h, sim, p, 'after setDrive, step(2)');
        else checkNamed(h, 'step(2) after setDrive', stepped.error, ['dem.substeps', 'particles', 'fluid']);
      }
      if (!sim.released) sim.release();
      p.release();
    },
  },

  'coupling.finalize': {
    build: (r) => ({
      how: r.pick([
        'idle',
        'twice',
        'during run()',
        'from onProgress',
        'then new CoupledSimulation',
        'dem first, then coupling',
        'flow first, then coupling',
        'then dem and flow still work',
      ]),
    }),
    async exec(plan, h, api) {
      const { coupling, dem, flow } = api;
      const { sim, particles: p } = system(api);
      const voidFraction = sim.voidFraction;
      if (plan.how === 'during run()' || plan.how === 'from onProgress') {
        const pending = h.call('run({ steps: 1e9 })', () =>
          sim.run({
            steps: 1e9,
            progressInterval: 2,
            onProgress: plan.how === 'from onProgress' ? () => coupling.finalize() : undefined,
          }),
        );
        if (plan.how === 'during run()') {
          await new Promise((resolve) => setTimeout(resolve, 10));
          await h.call('finalize()', () => coupling.finalize());
        }
        const end = await pending;
        if (end.ok || !(cancelled(end.error) || end.error instanceof TypeError))
          h.problem('finalize() during run() must make it reject with code PECLET_CANCELLED');
      } else if (plan.how === 'dem first, then coupling' || plan.how === 'flow first, then coupling') {
        const first = plan.how.startsWith('dem') ? dem : flow;
        const name = plan.how.startsWith('dem') ? 'dem' : 'flow';
        await h.call(`${name} finalize()`, () => first.finalize());
        const stepped = await h.call(`step(1) once ${name} is finalized`, () => sim.step(1), {
          mustThrow: `a coupled simulation must refuse to step once ${name} is finalized`,
        });
        if (!stepped.ok && stepped.error?.module !== name)
          h.problem(`step(1) once ${name} is finalized: ${stepped.error?.name} names module ${stepped.error?.module}`);
        await h.call('finalize()', () => coupling.finalize());
      } else {
        await h.call('finalize()', () => coupling.finalize());
        if (plan.how === 'twice') await h.call('finalize() again', () => coupling.finalize());
        if (plan.how === 'then new CoupledSimulation') {
          const q = particles(dem);
          await h.call(
            'new CoupledSimulation once finalized',
            () => new coupling.CoupledSimulation({ particles: q, fluid: FLUID }),
            { mustThrow: 'a finalized module must refuse new coupled simulations' },
          );
          q.release();
        }
        if (plan.how === 'then dem and flow still work') {
          await h.call('particles.step(3)', () => p.step(3));
          await h.call('new Lattice and step', () => {
            const l = new flow.Lattice({ shape: [4, 4, 4], bodyForce: [1e-5, 0, 0] });
            l.step(3);
            l.release();
          });
        }
      }
      if (!sim.released) h.problem('a coupled simulation is still live after finalize()');
      if (voidFraction.length !== 0) h.problem('voidFraction taken before finalize() is not detached');
      if (!p.released) p.release();
    },
  },

  'coupling.dragCoefficient': {
    build: (r) => {
      const drag = r.pick(["'di-felice'", "'beetstra'", "'gidaspow'", "'stokes'", 'undefined', '1']);
      const field = r.pick(['voidFraction', 'diameter', 'slip', 'viscosity', 'density']);
      const overflowing = overflow[field] ?? [];
      return { drag, field, value: r.pick(Object.keys(numbers).filter((k) => !overflowing.includes(k))) };
    },
    async exec(plan, h, { coupling }) {
      const args = { voidFraction: 0.6, diameter: 1e-4, slip: 1e-3, viscosity: 1e-3, density: 1000 };
      args[plan.field] = num(plan.value);
      const drag = {
        "'di-felice'": 'di-felice',
        "'beetstra'": 'beetstra',
        "'gidaspow'": 'gidaspow',
        "'stokes'": 'stokes',
        undefined,
        1: 1,
      }[plan.drag];
      const result = await h.call(`dragCoefficient(${plan.drag}, { ${plan.field}: ${plan.value} })`, () =>
        coupling.dragCoefficient(drag, args.voidFraction, args.diameter, args.slip, args.viscosity, args.density),
      );
      if (result.ok && !(typeof result.value === 'number' && result.value >= 0 && Number.isFinite(result.value)))
        h.problem(`dragCoefficient returned ${describe(result.value)}`);
      if (!result.ok) checkNamed(h, 'dragCoefficient', result.error, ['drag', plan.field]);
    },
  },

  'coupling.terminalVelocity': {
    build: (r) => ({
      drag: r.pick(["'di-felice'", "'beetstra'", "'gidaspow'", "'stokes'", 'undefined']),
      field: r.pick(['diameter', 'buoyantWeight', 'viscosity', 'density']),
      // A Proxy or a Symbol ended in the engine's TypeError naming no argument before the fix (seed
      // 357615587): now read as numbers first.
      value: r.pick(Object.keys(numbers)),
    }),
    async exec(plan, h, { coupling }) {
      const args = { diameter: 1e-4, buoyantWeight: 1e-8, viscosity: 1e-3, density: 1000 };
      args[plan.field] = num(plan.value);
      const drag = {
        "'di-felice'": 'di-felice',
        "'beetstra'": 'beetstra',
        "'gidaspow'": 'gidaspow',
        "'stokes'": 'stokes',
        undefined,
      }[plan.drag];
      const result = await h.call(`terminalVelocity(${plan.drag}, { ${plan.field}: ${plan.value} })`, () =>
        coupling.terminalVelocity(drag, args.diameter, args.buoyantWeight, args.viscosity, args.density),
      );
      if (result.ok && !(typeof result.value === 'number' && result.value >= 0 && Number.isFinite(result.value)))
        h.problem(`terminalVelocity returned ${describe(result.value)}`);
      if (!result.ok) checkNamed(h, 'terminalVelocity', result.error, ['drag', plan.field]);
    },
  },
};
