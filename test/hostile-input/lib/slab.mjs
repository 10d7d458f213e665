// flow over MPI ranks, on one rank: slabPlanes, slabOf, new Lattice with `mpi` and the members of
// such a lattice (`slab` among them), permeability with `mpi`. The `mpi` argument takes hostile
// values: null, {}, a number, another module, Proxies (throwing, revoked, of the module), objects
// of getters (throwing, or answering a function once and undefined after), stand-ins (objects with
// the functions of one rank: not initialized, missing one, throwing, or reentrant: releasing the
// lattice or finalizing flow from inside a reduction) and, where @peclet/mpi was built, the module
// itself before init(), after it (MPI's singleton start in the case's own process) and after
// finalize(). With one rank a lattice or a permeability over MPI must give what the same call
// without MPI gives: the same fields bit for bit, the same reports to round-off, the same
// refusals naming the same argument. A refusal names the argument at fault (`error.argument`).

import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashArray } from './check.mjs';
import { numbers } from './domains.mjs';
import { cancelled, digestLattice, diverged, images, mask, plainImage, residualMarked, unsettled } from './flow.mjs';
import { mpiAvailable } from './mpi.mjs';

// A value for a label; a Proxy or odd object must not break the case itself.
const describe = (v) => {
  try {
    return typeof v === 'object' && v !== null ? Object.prototype.toString.call(v) : String(v);
  } catch {
    return 'a value';
  }
};

/** An error a hostile value raised itself (a throwing getter, Proxy or stand-in). */
const ownError = (e) => e instanceof Error && /^hostile /.test(e.message);
/** The engine's error for a revoked Proxy. */
const revokedProxy = (e) =>
  e instanceof TypeError && /^Cannot perform '\w+' on a proxy that has been revoked/.test(e.message);

/**
 * A stand-in for @peclet/mpi on one rank: its functions, a reduction over this rank alone (the
 * values as they are). `c.onReduce`, when set, runs once inside the next reduction (reentrancy).
 */
function standIn(c, overrides = {}) {
  const noRank = () => {
    throw new RangeError('a stand-in of one rank has no other rank');
  };
  return {
    initialized: () => true,
    rank: () => 0,
    size: () => 1,
    allreduce(values) {
      const f = c.onReduce;
      c.onReduce = undefined;
      f?.();
      return values;
    },
    send: noRank,
    recv: noRank,
    sendrecv: noRank,
    barrier() {},
    ...overrides,
  };
}

/**
 * Values of an `mpi` argument. `real`: the @peclet/mpi module in a state (`init`, `none`,
 * `finalize`), only where its addon was built; `bad`: a TypeError naming `mpi`; `unsure`:
 * accepted or such a TypeError (flow takes an object with the module's functions: readMpi's
 * documented duck typing); `allow`: the value's own error may end the call; `reentrant`: what
 * the stand-in does inside a reduction; `absent`: no mpi at all where it is an option.
 * A stand-in that lies about its rank or size is refused naming `mpi` (readMpi reads them once
 * and checks them).
 */
export const mpiValues = {
  'the module, initialized': { real: 'init', v: (c) => c.mpi },
  'the module before init()': { real: 'none', v: (c) => c.mpi, bad: true },
  'the module after finalize()': { real: 'finalize', v: (c) => c.mpi, bad: true },
  'a Proxy of the module, initialized': { real: 'init', v: (c) => new Proxy(c.mpi, {}), unsure: true },
  '{ ...the module }, initialized': { real: 'init', v: (c) => ({ ...c.mpi }), unsure: true },
  "getters answering the module's functions": {
    real: 'init',
    v: (c) =>
      Object.defineProperties(
        {},
        Object.fromEntries(Object.keys(c.mpi).map((k) => [k, { get: () => c.mpi[k], enumerable: true }])),
      ),
    unsure: true,
  },
  null: { v: () => null, bad: true },
  undefined: { v: () => undefined, bad: true, absent: true },
  '{}': { v: () => ({}), bad: true },
  5: { v: () => 5, bad: true },
  "'mpi' (a string)": { v: () => 'mpi', bad: true },
  'a function': { v: () => () => {}, bad: true },
  'the @peclet/flow module': { v: (c) => c.flow, bad: true },
  'a Proxy throwing on every read': {
    v: () =>
      new Proxy(
        {},
        {
          get() {
            throw new RangeError('hostile proxy');
          },
        },
      ),
    allow: ownError,
  },
  'a revoked Proxy': {
    v: () => {
      const { proxy, revoke } = Proxy.revocable({}, {});
      revoke();
      return proxy;
    },
    allow: revokedProxy,
  },
  'an object whose getter throws': {
    v: (c) =>
      Object.defineProperty(standIn(c), 'initialized', {
        get() {
          throw new RangeError('hostile getter');
        },
      }),
    allow: ownError,
  },
  'getters answering a function once, then undefined': {
    v: (c) => {
      const s = standIn(c);
      const out = {};
      for (const k of Object.keys(s)) {
        let reads = 0;
        Object.defineProperty(out, k, { get: () => (reads++ === 0 ? s[k] : undefined), enumerable: true });
      }
      return out;
    },
    unsure: true,
  },
  'a stand-in of one rank': { v: (c) => standIn(c), unsure: true },
  'a stand-in, not initialized': { v: (c) => standIn(c, { initialized: () => false }), bad: true },
  'a stand-in saying size 0': { v: (c) => standIn(c, { size: () => 0 }), bad: true },
  'a stand-in saying rank 5 of 1': { v: (c) => standIn(c, { rank: () => 5 }), bad: true },
  'a stand-in without sendrecv': {
    v: (c) => {
      const s = standIn(c);
      delete s.sendrecv;
      return s;
    },
    bad: true,
  },
  'a stand-in whose initialized() throws': {
    v: (c) =>
      standIn(c, {
        initialized() {
          throw new Error('hostile initialized()');
        },
      }),
    allow: ownError,
  },
  'a stand-in whose reductions throw': {
    v: (c) =>
      standIn(c, {
        allreduce() {
          throw new Error('hostile allreduce()');
        },
      }),
    unsure: true,
    allow: ownError,
  },
  'a stand-in releasing the lattice in a reduction': { v: (c) => standIn(c), unsure: true, reentrant: 'release' },
  'a stand-in finalizing flow in a reduction': { v: (c) => standIn(c), unsure: true, reentrant: 'finalize' },
};

/** The values a run can use: the module's own only where its addon was built. */
const mpiNames = Object.keys(mpiValues).filter((k) => mpiValues[k].real === undefined || mpiAvailable());
/** A valid `mpi`: the module where it was built, else the stand-in (flow accepts it too). */
const validMpi = mpiAvailable() ? 'the module, initialized' : 'a stand-in of one rank';

/**
 * The case's context `c`: the real module (imported, and put in the plan's state) where the
 * value is it; `c.onReduce` for the reentrant stand-ins; `c.lattice` the lattice they release.
 */
async function context(name, flow) {
  const entry = mpiValues[name];
  const c = { flow, onReduce: undefined, lattice: undefined };
  if (entry.real) {
    c.mpi = await import('@peclet/mpi');
    if (entry.real !== 'none') c.mpi.init();
    // mpi.finalize() finalizes flow first (the modules it hosts): no comparison after it.
    if (entry.real === 'finalize') c.mpi.finalize();
  }
  c.value = entry.v(c);
  /** Arms the stand-in's reentrant act for the next reduction. */
  c.arm = () => {
    if (entry.reentrant === 'release') c.onReduce = () => c.lattice?.release();
    if (entry.reentrant === 'finalize') c.onReduce = () => flow.finalize();
  };
  return c;
}

/**
 * What a call must end with, from its arguments in the order the API reads them: each step
 * `{ root, state: 'ok' | 'bad' | 'maybe', allow? }`. The first `bad` step must throw, naming its
 * root (or a `maybe` root before it, which may throw first); `allow` admits a value's own error.
 */
function expectation(steps) {
  const roots = [];
  const allows = [];
  let mustThrow = false;
  for (const s of steps) {
    if (s.state === 'ok') continue;
    roots.push(s.root);
    if (s.allow) allows.push(s.allow);
    if (s.state === 'bad') {
      mustThrow = true;
      break;
    }
  }
  return { roots, mustThrow, allow: (e) => allows.some((a) => a(e)) };
}

/** The step of an `mpi` value. */
const mpiStep = (name, root = 'mpi') => {
  const e = mpiValues[name];
  return { root, state: e.bad ? 'bad' : e.unsure || e.allow ? 'maybe' : 'ok', allow: e.allow };
};

/** A TypeError or RangeError must name the argument at fault: `error.argument` under one of `roots`. */
function checkNamed(h, label, error, roots, tolerated = []) {
  if (!(error instanceof TypeError || error instanceof RangeError)) return;
  const named = error.argument;
  if (typeof named === 'string' && tolerated.includes(named)) return;
  if (roots.length === 0) {
    h.problem(`${label}: refused valid arguments (${error.constructor.name}: ${String(error.message).slice(0, 120)})`);
    return;
  }
  if (typeof named !== 'string') {
    h.problem(`${label}: ${error.constructor.name} names no argument (${String(error.message).slice(0, 80)})`);
    return;
  }
  if (!roots.some((root) => named === root || named.startsWith(`${root}.`) || named.startsWith(`${root}[`))) {
    h.problem(`${label}: ${error.constructor.name} names '${named.slice(0, 60)}', expected one of ${roots.join(', ')}`);
  }
}

/** Runs one judged call and checks its end against `expect` (see `expectation`). */
async function judge(h, label, fn, expect, { digest, ending, tolerated } = {}) {
  const allow = (e) => expect.allow(e) || ending?.(e) === true;
  const result = await h.call(label, fn, { bad: expect.mustThrow, allow, digest });
  if (!result.ok && !allow(result.error)) checkNamed(h, label, result.error, expect.roots, tolerated);
  return result;
}

/** `{ ok, value | error }` of a call made for comparison (not judged, not counted). */
async function plainly(fn) {
  try {
    return { ok: true, value: await fn() };
  } catch (error) {
    return { ok: false, error };
  }
}

const endOf = (o) =>
  o.ok
    ? 'a value'
    : `${o.error?.constructor?.name} ${o.error?.code ?? ''}(${o.error?.argument ?? ''}): ${String(o.error?.message).slice(0, 100)}`;

/** The same end over MPI as without: both values, or the same error class, code and argument. */
function sameEnd(h, label, mine, plain) {
  if (mine.ok !== plain.ok) return h.problem(`${label}: over mpi ${endOf(mine)}, without ${endOf(plain)}`);
  if (mine.ok) return true;
  const a = mine.error;
  const b = plain.error;
  if (a?.constructor !== b?.constructor || a?.code !== b?.code || a?.argument !== b?.argument)
    h.problem(`${label}: over mpi ${endOf(mine)}, without ${endOf(plain)}`);
  return false;
}

/** x and y equal to `tol` (relative to the larger, or to `scale`). */
const close = (x, y, tol, scale = Math.max(Math.abs(x), Math.abs(y))) =>
  x === y || Math.abs(x - y) <= tol * scale + 1e-300;

/** A vector equal to `tol` relative to its length (components near 0 are round-off of the others). */
const closeVector = (a, b, tol) => {
  const scale = Math.max(Math.hypot(...a), Math.hypot(...b));
  return a.length === b.length && a.every((x, i) => close(x, b[i], tol, scale));
};

// ---- slabPlanes -------------------------------------------------------------------------------

const n0Values = { ...numbers, 2: () => 2, 3: () => 3, 10: () => 10, '2**32 - 1': () => 2 ** 32 - 1 };
const validN0 = ['2', '3', '10', '1'];

/** Weights over `n` planes; `bad`: a refusal naming `options.weights`. */
const weightValues = {
  'Float64Array of n0': { v: (n) => Float64Array.from({ length: n }, (_, i) => (i * 7) % 5) },
  'plain array of n0': { v: (n) => Array.from({ length: n }, (_, i) => i + 0.5) },
  'all zeros': { v: (n) => new Float64Array(n) },
  '-0 each': { v: (n) => new Float64Array(n).fill(-0) },
  '1e308 each (the sum overflows)': { v: (n) => new Float64Array(n).fill(1e308) },
  '5e-324 each': { v: (n) => new Float64Array(n).fill(5e-324) },
  'SharedArrayBuffer-backed': {
    v: (n) => {
      const a = new Float64Array(new SharedArrayBuffer(8 * n));
      a.fill(2);
      return a;
    },
  },
  'subarray at offset 1': { v: (n) => new Float64Array(n + 2).fill(1).subarray(1, n + 1) },
  'array with a getter answering NaN on the second read': {
    v: (n) => {
      const a = new Array(n).fill(1);
      let reads = 0;
      Object.defineProperty(a, 0, { get: () => (reads++ === 0 ? 1 : Number.NaN), enumerable: true });
      return a;
    },
  },
  'one NaN': { v: (n) => new Float64Array(n).fill(1).fill(Number.NaN, n - 1), bad: true },
  'one -1': { v: (n) => new Float64Array(n).fill(1).fill(-1, 0, 1), bad: true },
  'one -5e-324': { v: (n) => new Float64Array(n).fill(1).fill(-5e-324, 0, 1), bad: true },
  'one Infinity': { v: (n) => new Float64Array(n).fill(1).fill(Number.POSITIVE_INFINITY, 0, 1), bad: true },
  'n0 - 1 numbers': { v: (n) => new Float64Array(n - 1), bad: true },
  'n0 + 1 numbers': { v: (n) => new Float64Array(n + 1), bad: true },
  Float32Array: { v: (n) => new Float32Array(n), bad: true },
  Int32Array: { v: (n) => new Int32Array(n), bad: true },
  BigInt64Array: { v: (n) => new BigInt64Array(n), bad: true },
  DataView: { v: (n) => new DataView(new ArrayBuffer(8 * n)), bad: true },
  'detached Float64Array': {
    v: (n) => {
      const a = new Float64Array(n);
      structuredClone(a.buffer, { transfer: [a.buffer] });
      return a;
    },
    bad: true,
  },
  'Proxy of a Float64Array': { v: (n) => new Proxy(new Float64Array(n), {}), bad: true },
  'array of strings': { v: (n) => Array.from({ length: n }, () => '1'), bad: true },
  'array with a hole': {
    v: (n) => {
      const a = new Array(n).fill(1);
      delete a[0];
      return a;
    },
    bad: true,
  },
  "'1,1,1' (a string)": { v: () => '1,1,1', bad: true },
  '{ length: n0 }': { v: (n) => ({ length: n }), bad: true },
  null: { v: () => null, bad: true },
  5: { v: () => 5, bad: true },
};
const validWeights = Object.keys(weightValues).filter((k) => !weightValues[k].bad);
const hostileWeights = Object.keys(weightValues).filter((k) => weightValues[k].bad);

/** slabPlanes' options; `weights`: the weights go in; `bad`: a TypeError naming `options`. */
const slabOptions = {
  undefined: { v: () => undefined },
  '{}': { v: () => ({}) },
  '{ weights }': { v: (w) => ({ weights: w }), weights: true },
  '{ weights: undefined }': { v: () => ({ weights: undefined }) },
  // An unknown key is a TypeError naming it (core's readOptions).
  '{ weights, bogus: 1 }': { v: (w) => ({ weights: w, bogus: 1 }), weights: true, bad: true },
  'a getter weights': {
    v: (w) => ({
      get weights() {
        return w;
      },
    }),
    weights: true,
  },
  'a getter throwing': {
    v: () => ({
      get weights() {
        throw new RangeError('hostile getter');
      },
    }),
    allow: ownError,
  },
  null: { v: () => null, bad: true },
  5: { v: () => 5, bad: true },
  '[]': { v: () => [], bad: true },
  'a Float64Array': { v: () => new Float64Array(3), bad: true },
};

const slabPlanesParts = ['n0', 'mpi', 'options', 'weights', 'valid', 'valid with weights'];

const slabPlanesTarget = {
  build: (r) => {
    const part = r.member(slabPlanesParts);
    const plan = {
      part,
      n0: part === 'n0' ? r.pick(Object.keys(n0Values)) : r.pick(validN0),
      mpi: part === 'mpi' ? r.pick(mpiNames) : validMpi,
      options:
        part === 'options'
          ? r.pick(Object.keys(slabOptions))
          : part === 'weights' || part === 'valid with weights'
            ? '{ weights }'
            : r.pick(['undefined', '{}', '{ weights }']),
      weights: part === 'weights' ? r.pick(hostileWeights) : r.pick(validWeights),
    };
    return plan;
  },
  async exec(plan, h, { flow }) {
    const c = await context(plan.mpi, flow);
    const n0 = n0Values[plan.n0]();
    const n0ok = Number.isInteger(n0) && n0 >= 1 && n0 <= 2 ** 32 - 1;
    const optionEntry = slabOptions[plan.options];
    const weightEntry = weightValues[plan.weights];
    const planes = n0ok && n0 <= 100 ? n0 : 3;
    const weights = optionEntry.weights ? weightEntry.v(planes) : undefined;
    const before = hashArray(ArrayBuffer.isView(weights) && !(weights instanceof DataView) ? weights : undefined);
    const options = optionEntry.v(weights);
    // slabPlanes reads n0, mpi, the options, the weights, then splits n0 over the ranks.
    const weightsFit = !optionEntry.weights || planes === n0;
    const expect = expectation([
      { root: 'n0', state: n0ok ? 'ok' : 'bad' },
      mpiStep(plan.mpi),
      {
        root: 'options',
        state: optionEntry.bad ? 'bad' : optionEntry.allow ? 'maybe' : 'ok',
        allow: optionEntry.allow,
      },
      { root: 'options.weights', state: optionEntry.weights && (weightEntry.bad || !weightsFit) ? 'bad' : 'ok' },
      { root: 'n0', state: n0ok && n0 < 2 ? 'bad' : 'ok' },
    ]);
    const label = `slabPlanes(${plan.n0}, ${plan.mpi}, ${plan.options}${optionEntry.weights ? ` (${plan.weights})` : ''})`;
    const result = await judge(h, label, () => flow.slabPlanes(n0, c.value, options), expect, {
      tolerated: optionEntry.weights ? weightEntry.tolerated : undefined,
    });
    if (before !== 'none' && ArrayBuffer.isView(weights) && hashArray(weights) !== before)
      h.problem(`${label}: changed the weights`);
    if (!result.ok) return;
    // One rank owns every plane, even or balanced.
    const { start, count } = result.value ?? {};
    if (start !== 0 || count !== n0)
      h.problem(`${label}: { start: ${start}, count: ${count} } on one rank of ${n0} planes`);
  },
};

// ---- slabOf -----------------------------------------------------------------------------------

const slabOfTarget = {
  build: (r) => ({
    mpi: r.member(mpiNames),
    image: r.chance(0.6) ? r.pick(Object.keys(images).filter((k) => plainImage(k))) : r.pick(Object.keys(images)),
  }),
  async exec(plan, h, { flow, r }) {
    const c = await context(plan.mpi, flow);
    const entry = images[plan.image];
    const image = entry.make(r);
    const plain = plainImage(plan.image);
    // slabOf checks the image, then reads mpi, then splits the image's planes over the ranks.
    const n0 = plain ? image.shape[0] : 2;
    const expect = expectation([
      { root: 'image', state: entry.bad ? 'bad' : entry.unsure ? 'maybe' : 'ok' },
      mpiStep(plan.mpi),
      { root: 'image', state: n0 < 2 ? 'bad' : 'ok' },
    ]);
    const label = `slabOf(${plan.image}, ${plan.mpi})`;
    const before = plain ? hashArray(image.solid) : undefined;
    const result = await judge(h, label, () => flow.slabOf(image, c.value), expect);
    if (plain && hashArray(image.solid) !== before) h.problem(`${label}: changed the image`);
    if (!result.ok || !plain) return;
    // One rank: the whole image, its solid a view of the image's (no copy).
    const { solid, shape, voxelSize } = result.value;
    if (
      !(solid instanceof Uint8Array) ||
      solid.buffer !== image.solid.buffer ||
      solid.byteOffset !== image.solid.byteOffset
    )
      h.problem(`${label}: solid is not a view of the image's`);
    else if (solid.length !== image.solid.length)
      h.problem(`${label}: solid of ${solid.length}, not ${image.solid.length}`);
    if (!Array.isArray(shape) || shape.length !== 3 || shape.some((x, a) => x !== image.shape[a]))
      h.problem(`${label}: shape ${describe(shape)}, not [${image.shape}]`);
    if (voxelSize !== image.voxelSize) h.problem(`${label}: voxelSize ${voxelSize}, not ${image.voxelSize}`);
  },
};

// ---- new Lattice with mpi, and its members ---------------------------------------------------

/** Lattices to build over MPI and without it (the same options, and the same masks). */
const setups = {
  'flowing 8³': () => ({ shape: [8, 8, 8], bodyForce: [1e-5, 0, 0] }),
  'pressure-driven 8×6×6': () => ({
    shape: [8, 6, 6],
    periodic: [false, true, true],
    pressure: { axis: 'x', inletDensity: 1.01, outletDensity: 0.99 },
  }),
  'sparse f32, porous': (r) => ({
    shape: [8, 8, 8],
    solid: mask(r, 512, 0.5),
    layout: 'sparse',
    precision: 'f32',
    bodyForce: [0, 1e-5, 0],
  }),
  'walled along x, gray, bgk': (r) => ({
    shape: [6, 5, 4],
    solidFraction: Float64Array.from({ length: 120 }, () => Math.floor(r.next() * 5) / 4),
    periodic: [false, true, true],
    relaxation: { model: 'bgk' },
    bodyForce: [0, 1e-5, 2e-6],
  }),
  'two planes, walled, auto layout': (r) => ({
    shape: [2, 6, 6],
    solid: mask(r, 72, 0.2),
    periodic: [false, true, true],
    bodyForce: [0, 0, 1e-5],
    inertia: false,
  }),
};

/**
 * Options that change what a lattice over MPI may take, on the `flowing 8³` setup: `mpi` the
 * refusal over MPI (its root), `plain` without (undefined: accepted; 'unsure': either).
 */
const latticeOptions = {
  'shape [1, 8, 8] (one plane)': { v: (o) => ({ ...o, shape: [1, 8, 8] }), mpi: 'shape' },
  'shape [3, 8, 8]': { v: (o) => ({ ...o, shape: [3, 8, 8] }) },
  'a pressure drive along x over 2 planes': {
    v: () => ({
      shape: [2, 8, 8],
      periodic: [false, true, true],
      pressure: { axis: 'x', inletDensity: 1.01, outletDensity: 0.99 },
    }),
    mpi: 'shape',
    plain: 'shape',
  },
  'a pressure drive along y over 2 planes': {
    v: () => ({
      shape: [8, 2, 8],
      periodic: [true, false, true],
      pressure: { axis: 'y', inletDensity: 1.01, outletDensity: 0.99 },
    }),
    mpi: 'shape',
    plain: 'shape',
  },
  "executionSpace 'webgpu'": { v: (o) => ({ ...o, executionSpace: 'webgpu' }), mpi: 'executionSpace', plain: 'unsure' },
  'viscosity NaN': { v: (o) => ({ ...o, viscosity: Number.NaN }), mpi: 'viscosity', plain: 'viscosity' },
  'solid of 511': { v: (o) => ({ ...o, solid: new Uint8Array(511) }), mpi: 'solid', plain: 'solid' },
  "periodic 'yes'": { v: (o) => ({ ...o, periodic: 'yes' }), mpi: 'periodic', plain: 'periodic' },
  "layout 'csr'": { v: (o) => ({ ...o, layout: 'csr' }), mpi: 'layout', plain: 'layout' },
  'shape [0, 8, 8]': { v: (o) => ({ ...o, shape: [0, 8, 8] }), mpi: 'shape', plain: 'shape' },
  'threads 0': { v: (o) => ({ ...o, threads: 0 }), mpi: 'threads', plain: 'threads' },
  'mpi as a getter': { getter: true, mpi: 'mpi' },
  'the options a Proxy': { v: (o) => new Proxy(o, {}), proxy: true },
  'an unknown key': { v: (o) => ({ ...o, bogus: 1 }), mpi: 'options.bogus', plain: 'options.bogus' },
};

/** Hostile values of the members' arguments (the `value` of a plan). */
const memberValues = {
  step: ['1', '5', '0', 'undefined', '-1', '1.5', 'NaN', '2**41', "'1' (string)"],
  run: [
    '{ maxSteps: 30, tolerance: 0 }',
    '{ maxSteps: 30, checkInterval: 7 }',
    '{ maxSteps: 0 }',
    '{ tolerance: NaN }',
    '{ checkInterval: -1 }',
    '{ signal: aborted }',
    '{ signal: {} }',
    'null',
  ],
  flux: ["'x'", "'y'", '2', "'w'", '3', 'NaN', 'undefined'],
  writeVti: [
    'lattice.pvti',
    'lattice.pvti',
    'an existing lattice.pvti',
    'lattice.vti',
    'lattice.pvti, voxelSize 0',
    "lattice.pvti, voxelSize '1'",
    'lattice.pvti in a missing directory',
    "''",
  ],
  fields: ['NaN', '1e308', '0', '0.5', '-1'],
  'bodyForce =': ['[0, 2e-5, 0]', '[1, 0, 0]', '[NaN, 0, 0]', '[0, 0]', "'1e-5'"],
  setPressure: ['1.02', '10', 'NaN', "'1.02'"],
};
const latticeMembers = [
  'new Lattice',
  'options',
  'slab',
  'step',
  'run',
  'flux',
  'writeVti',
  'fields',
  'bodyForce =',
  'setPressure',
  'release',
  'mpi finalized',
];

const runOptions = {
  '{ maxSteps: 30, tolerance: 0 }': () => ({ maxSteps: 30, tolerance: 0 }),
  '{ maxSteps: 30, checkInterval: 7 }': () => ({ maxSteps: 30, checkInterval: 7 }),
  '{ maxSteps: 0 }': () => ({ maxSteps: 0 }),
  '{ tolerance: NaN }': () => ({ maxSteps: 30, tolerance: Number.NaN }),
  '{ checkInterval: -1 }': () => ({ maxSteps: 30, checkInterval: -1 }),
  '{ signal: aborted }': () => ({ maxSteps: 30, signal: AbortSignal.abort(new Error('hostile abort')) }),
  '{ signal: {} }': () => ({ maxSteps: 30, signal: {} }),
  null: () => null,
};
const scalars = { 1.02: 1.02, 10: 10, NaN: Number.NaN, "'1.02'": '1.02' };
const forces = {
  '[0, 2e-5, 0]': [0, 2e-5, 0],
  '[1, 0, 0]': [1, 0, 0],
  '[NaN, 0, 0]': [Number.NaN, 0, 0],
  '[0, 0]': [0, 0],
  "'1e-5'": '1e-5',
};
const axes = { "'x'": 'x', "'y'": 'y', 2: 2, "'w'": 'w', 3: 3, NaN: Number.NaN, undefined: undefined };
const stepCount = (name) => ({ 2: 2, 5: 5, '2**41': 2 ** 41 })[name] ?? numbers[name]?.();

/** The slab of a live lattice of `n0` planes on one rank. */
function checkSlab(h, label, s, n0) {
  if (s === null || typeof s !== 'object') return h.problem(`${label}: slab is ${describe(s)}`);
  if (s.rank !== 0 || s.size !== 1 || s.start !== 0 || s.count !== n0)
    h.problem(
      `${label}: slab { rank: ${s.rank}, size: ${s.size}, start: ${s.start}, count: ${s.count} } on one rank of ${n0} planes`,
    );
  for (const k of ['stepSeconds', 'haloSeconds'])
    if (!(typeof s[k] === 'number' && Number.isFinite(s[k]) && s[k] >= 0)) h.problem(`${label}: slab.${k} is ${s[k]}`);
}

/**
 * The lattice over MPI and the one without hold the same state, bit for bit (after a step refused
 * with PECLET_DIVERGED too: both keep the fields they had).
 */
function sameState(h, label, mine, plain) {
  if (mine.released || plain.released) return;
  if (mine.stepCount !== plain.stepCount)
    h.problem(`${label}: stepCount ${mine.stepCount} over mpi, ${plain.stepCount} without`);
  for (const k of ['velocity', 'density', 'porosity', 'force']) {
    if (hashArray(mine[k]) !== hashArray(plain[k]))
      return h.problem(`${label}: ${k} over mpi differs from ${k} without`);
  }
}

/** `{ .pvti, its pieces }` written by writeVti over MPI: the parallel file names one piece per rank, the whole extent. */
function checkPvti(h, label, dir, path, shape) {
  const text = readFileSync(path, 'utf8');
  const whole = `0 ${shape[0]} 0 ${shape[1]} 0 ${shape[2]}`;
  if (!text.includes('<VTKFile type="PImageData"') || !text.includes(`<PImageData WholeExtent="${whole}"`))
    return h.problem(`${label}: no PImageData of extent ${whole}`);
  const pieces = [...text.matchAll(/<Piece Extent="([^"]*)" Source="([^"]*)"\/>/g)];
  if (pieces.length !== 1 || pieces[0][1] !== whole) return h.problem(`${label}: pieces ${pieces.map((p) => p[1])}`);
  const piece = join(dir, pieces[0][2]);
  if (!existsSync(piece)) return h.problem(`${label}: no piece ${pieces[0][2]}`);
  const head = readFileSync(piece, 'latin1').slice(0, 2000);
  if (!head.includes(`<Piece Extent="${whole}">`)) h.problem(`${label}: the piece's extent is not ${whole}`);
  for (const name of ['solid', 'density', 'velocity'])
    if (!text.includes(`Name="${name}"`) || !head.includes(`Name="${name}"`)) h.problem(`${label}: no array ${name}`);
}

const latticeTarget = {
  build: (r) => {
    const member = r.member(latticeMembers);
    const hostileMpi = member === 'new Lattice' || (member !== 'options' && r.chance(0.25));
    return {
      member,
      mpi: hostileMpi ? r.pick(mpiNames) : validMpi,
      // The options a lattice over MPI refuses are named on the plainest setup.
      setup: member === 'options' ? 'flowing 8³' : r.pick(Object.keys(setups)),
      option: member === 'options' ? r.pick(Object.keys(latticeOptions)) : undefined,
      value: memberValues[member] ? r.pick(memberValues[member]) : undefined,
      when: ['new Lattice', 'options', 'release', 'mpi finalized'].includes(member)
        ? 'idle'
        : r.pick(['idle', 'idle', 'idle', 'idle', 'released', 'flow finalized', 'during run()']),
    };
  },
  async exec(plan, h, { flow, r }) {
    const c = await context(plan.mpi, flow);
    const entry = mpiValues[plan.mpi];
    const base = setups[plan.setup](r);
    let options = { ...base, mpi: c.value };
    let plainOptions = { ...base };
    let expectRoots = [];
    let plainRoot;
    if (plan.member === 'options') {
      const o = latticeOptions[plan.option];
      if (o.getter) {
        const value = c.value;
        options = {
          ...base,
          get mpi() {
            return value;
          },
        };
      } else {
        options = o.v({ ...base, mpi: c.value });
        plainOptions = o.v({ ...base });
        if (o.proxy) plainOptions = { ...base };
      }
      expectRoots = o.mpi === undefined ? [] : [o.mpi];
      plainRoot = o.plain;
    }
    // The constructor reads mpi (a data property, no getter runs), then the other options.
    const expect = expectation([
      entry.absent ? { root: 'mpi', state: 'ok' } : mpiStep(plan.mpi),
      { root: expectRoots[0], state: expectRoots.length > 0 ? 'bad' : 'ok' },
    ]);
    const shapeOf = (o) => (Array.isArray(o?.shape) ? o.shape : [8, 8, 8]);
    if (plan.member === 'new Lattice') c.arm();
    const label = `new Lattice({ ${plan.setup}${plan.option ? `, ${plan.option}` : ''}, mpi: ${plan.mpi} })`;
    const built = await judge(h, label, () => new flow.Lattice(options), expect, {
      // The reentrant stand-in finalizing flow inside the construction: the module's refusal.
      ending: (e) => entry.reentrant === 'finalize' && e instanceof TypeError && e.name === 'ReleasedError',
    });
    // The same options without mpi: the same refusal (or, where MPI needs more, acceptance).
    const gone = entry.real === 'finalize' || entry.reentrant !== undefined;
    let plain;
    if (!gone) {
      const p = await plainly(() => new flow.Lattice(plainOptions));
      if (p.ok) plain = p.value;
      if (plan.member === 'options' && !built.ok && expectRoots.length > 0 && plainRoot !== 'unsure') {
        if (plainRoot === undefined && !p.ok) h.problem(`${label}: refused without mpi too (${endOf(p)})`);
        const named = String(p.error?.argument);
        if (
          plainRoot !== undefined &&
          (p.ok || !(named === plainRoot || named.startsWith(`${plainRoot}[`) || named.startsWith(`${plainRoot}.`)))
        )
          h.problem(`${label}: without mpi ${endOf(p)}, expected a refusal naming ${plainRoot}`);
      }
      if (plan.member !== 'options' && built.ok) sameEnd(h, `${label} and without mpi`, built, p);
    }
    if (!built.ok) {
      plain?.release();
      return;
    }
    const l = built.value;
    c.lattice = l;
    const n0 = shapeOf(plan.member === 'options' ? options : base)[0];
    if (entry.absent) {
      if (l.slab !== undefined) h.problem(`${label}: slab of a lattice without mpi is ${describe(l.slab)}`);
    } else if (!l.released) {
      checkSlab(h, `${label}: slab`, l.slab, n0);
      if (l.shape.some((x, a) => x !== shapeOf(options)[a])) h.problem(`${label}: shape [${l.shape}]`);
    }
    if (plain && !gone) sameState(h, `${label}, built`, l, plain);
    try {
      await member(plan, h, { flow, c, l, plain, n0, label });
    } finally {
      if (!l.released) l.release();
      if (plain && !plain.released) plain.release();
    }
  },
};

/** The plan's member on the lattice `l` over MPI, and on `plain` (the same without mpi) to compare. */
async function member(plan, h, { flow, c, l, plain, n0 }) {
  const entry = mpiValues[plan.mpi];
  const velocity = l.released ? undefined : l.velocity;
  let running;
  if (plan.when === 'released') l.release();
  if (plan.when === 'flow finalized') flow.finalize();
  if (plan.when === 'during run()') running = l.run({ maxSteps: 1e6, tolerance: 0, checkInterval: 5 }).catch((e) => e);
  const gone = l.released;
  // flux() of a lattice that has moved (before the reentrant stand-in is armed).
  if (plan.member === 'flux' && !gone && plan.when !== 'during run()') {
    l.step(3);
    if (plan.when === 'idle') plain?.step(3);
  }
  const compare = plain !== undefined && plan.when === 'idle' && entry.reentrant === undefined && !gone;
  c.arm();
  const v = plan.value;
  const at = `(${plan.setup}, mpi: ${plan.mpi}, ${plan.when})`;
  /** A reentrant release or finalize ends the call with a ReleasedError or a cancellation. */
  const ending = (e) =>
    ((entry.reentrant !== undefined || plan.when === 'during run()') &&
      ((e instanceof TypeError && e.name === 'ReleasedError') || cancelled(e))) ||
    // A call the running lattice cannot take now (step, run, flux, writeVti over MPI) names itself.
    (plan.when === 'during run()' &&
      e instanceof TypeError &&
      ['step', 'run', 'flux', 'writeVti'].includes(e.argument) &&
      / is running/.test(e.message));
  const allowed = (e) => entry.allow?.(e) === true || ownError(e) || diverged(e) || ending(e);
  const call = async (label, fn, { bad = false, roots = [], digest, alsoPlain } = {}) => {
    const result = await h.call(`${label} ${at}`, fn, {
      bad: bad && !gone,
      allow: allowed,
      digest: digest && plan.when === 'idle' && entry.reentrant === undefined ? () => digestLattice(l) : undefined,
      mustThrow:
        gone && !['slab', 'release()', 'released'].includes(label) ? 'a released lattice must throw' : undefined,
    });
    if (!result.ok && !gone && !allowed(result.error)) checkNamed(h, label, result.error, bad ? roots : []);
    if (compare && alsoPlain) {
      const p = await plainly(alsoPlain);
      if (sameEnd(h, label, result, p)) return { result, plain: p.value };
    }
    return { result };
  };
  switch (plan.member) {
    case 'new Lattice':
    case 'options':
    case 'slab': {
      const { result } = await call('slab', () => l.slab);
      if (result.ok && entry.absent) {
        if (result.value !== undefined) h.problem(`slab without mpi is ${describe(result.value)}`);
      } else if (result.ok && !gone) {
        checkSlab(h, 'slab', result.value, n0);
        // What it hands out is the caller's: writing into it changes nothing.
        result.value.count = -1;
        if (l.slab?.count !== n0) h.problem('writing into a slab it handed out changed the lattice');
      }
      break;
    }
    case 'step': {
      const n = stepCount(v);
      const ok = n === undefined || (Number.isInteger(n) && n >= 0 && n <= 2 ** 40);
      const { result, plain: p } = await call(`step(${v})`, () => l.step(n), {
        bad: !ok,
        roots: ['steps'],
        digest: true,
        alsoPlain: () => plain.step(n),
      });
      if (result.ok && p) {
        const f32 = plan.setup === 'sparse f32, porous';
        if (result.value.steps !== p.steps)
          h.problem(`step(${v}): ${result.value.steps} steps over mpi, ${p.steps} without`);
        if (!closeVector(result.value.meanVelocity, p.meanVelocity, 1e-9))
          h.problem(`step(${v}): meanVelocity [${result.value.meanVelocity}] over mpi, [${p.meanVelocity}] without`);
        if (!close(result.value.mass, p.mass, f32 ? 1e-6 : 1e-12))
          h.problem(`step(${v}): mass ${result.value.mass} over mpi, ${p.mass} without`);
      }
      if (compare) sameState(h, `step(${v})`, l, plain, diverged(result.error));
      break;
    }
    case 'run': {
      const options = runOptions[v]();
      const bad = ![
        '{ maxSteps: 30, tolerance: 0 }',
        '{ maxSteps: 30, checkInterval: 7 }',
        '{ signal: aborted }',
      ].includes(v);
      const interval = Number.isInteger(options?.checkInterval) ? options.checkInterval : 100;
      const { result, plain: p } = await call(`run(${v})`, () => residualMarked(l.run(options), interval), {
        bad,
        roots: ['options', 'maxSteps', 'tolerance', 'checkInterval', 'signal'],
        alsoPlain: () => residualMarked(plain.run(options), interval),
      });
      if (compare && !result.ok && v === '{ signal: aborted }' && result.error?.message !== 'hostile abort')
        h.problem(`run with an aborted signal ended with ${endOf(result)}, not its reason`);
      if (result.ok && p) {
        if (result.value.steps !== p.steps || result.value.converged !== p.converged)
          h.problem(`run(${v}): ${result.value.steps} steps over mpi, ${p.steps} without`);
        if (!closeVector(result.value.meanVelocity, p.meanVelocity, 1e-9))
          h.problem(`run(${v}): meanVelocity [${result.value.meanVelocity}] over mpi, [${p.meanVelocity}] without`);
      }
      if (compare) sameState(h, `run(${v})`, l, plain, diverged(result.error));
      break;
    }
    case 'flux': {
      const axis = axes[v];
      const ok = axis === undefined || ['x', 'y', 2].includes(axis);
      // flux() has no default axis: undefined is refused as any other non-axis.
      const { result, plain: p } = await call(`flux(${v})`, () => l.flux(axis), {
        bad: !ok || axis === undefined,
        roots: ['axis'],
        alsoPlain: () => plain.flux(axis),
      });
      if (result.ok && !Number.isFinite(result.value)) h.problem(`flux(${v}) is ${result.value}`);
      if (result.ok && p !== undefined && !close(result.value, p, 1e-9, Math.abs(p) + 1e-12))
        h.problem(`flux(${v}): ${result.value} over mpi, ${p} without`);
      break;
    }
    case 'writeVti': {
      const dir = mkdtempSync(join(tmpdir(), 'peclet-hostile-slab-'));
      try {
        const name = v.startsWith("''") ? '' : v.startsWith('lattice.vti') ? 'lattice.vti' : 'lattice.pvti';
        let path = name === '' ? '' : join(dir, name);
        if (v.includes('missing directory')) path = join(dir, 'missing', 'lattice.pvti');
        if (v.startsWith('an existing')) writeFileSync(path, 'old');
        const voxelSize = v.includes("voxelSize '1'") ? '1' : v.includes('voxelSize 0') ? 0 : 1e-6;
        // Over MPI the path is the parallel file's (.pvti); without mpi any path takes one .vti.
        const overMpi = !entry.absent;
        const bad = name === '' || (overMpi && name !== 'lattice.pvti') || voxelSize !== 1e-6;
        const fsRefuses = v.includes('missing directory');
        const fsError = (e) => fsRefuses && e instanceof Error && /^E[A-Z]+$/.test(String(e.code));
        const result = await h.call(`writeVti(${v}) ${at}`, () => l.writeVti(path, { voxelSize }), {
          bad: bad && !gone,
          allow: (e) => allowed(e) || fsError(e),
          mustThrow: gone
            ? 'a released lattice must throw'
            : fsRefuses
              ? 'the file system refuses this path'
              : undefined,
        });
        if (!result.ok && !gone && !allowed(result.error) && !fsError(result.error))
          checkNamed(h, 'writeVti', result.error, bad ? ['path', 'voxelSize', 'options'] : []);
        const left = readdirSync(dir, { recursive: true }).map(String);
        if (left.some((f) => f.endsWith('.tmp'))) h.problem(`writeVti over mpi left a temp file: ${left.join(', ')}`);
        if (result.ok && overMpi) checkPvti(h, `writeVti(${v})`, dir, path, l.shape);
        else if (result.ok && !existsSync(path)) h.problem(`writeVti(${v}) succeeded but wrote no file`);
        else if (v.startsWith('an existing') && readFileSync(path, 'utf8') !== 'old')
          h.problem('a failed writeVti over mpi changed the existing .pvti');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      break;
    }
    case 'fields': {
      const value = numbers[v]?.() ?? Number(v);
      const lengths = gone ? undefined : [l.velocity.length, l.density.length, l.porosity.length, l.force.length];
      const voxels = n0 * l.shape[1] * l.shape[2];
      if (lengths && lengths.join() !== [3 * voxels, voxels, voxels, 3 * voxels].join())
        h.problem(`fields of ${lengths} for ${voxels} voxels over mpi`);
      // Written into force, porosity: the same step over mpi and without (or the same divergence).
      if (!gone) {
        l.force.fill(value, 51, 54);
        l.porosity.fill(Math.min(Math.abs(value), 1) || 1, 5, 6);
      }
      if (compare) {
        plain.force.fill(value, 51, 54);
        plain.porosity.fill(Math.min(Math.abs(value), 1) || 1, 5, 6);
      }
      const { result } = await call(`force[17] = ${v}, then step(4)`, () => l.step(4), {
        alsoPlain: () => plain.step(4),
      });
      if (compare) sameState(h, `force[17] = ${v}`, l, plain, diverged(result.error));
      break;
    }
    case 'bodyForce =': {
      const f = forces[v];
      const ok = Array.isArray(f) && f.length === 3 && f.every((x) => Number.isFinite(x) && Math.abs(x) <= 1);
      await call(
        `bodyForce = ${v}`,
        () => {
          l.bodyForce = f;
        },
        {
          bad: !ok,
          roots: ['bodyForce'],
          digest: true,
          alsoPlain: () => {
            plain.bodyForce = f;
          },
        },
      );
      const { result } = await call('step(5) after', () => l.step(5), { alsoPlain: () => plain.step(5) });
      if (compare) sameState(h, `bodyForce = ${v}`, l, plain, diverged(result.error));
      break;
    }
    case 'setPressure': {
      const inlet = scalars[v];
      const ok = plan.setup === 'pressure-driven 8×6×6' && typeof inlet === 'number' && inlet > 0.1 && inlet < 10;
      await call(`setPressure(${v}, 0.99)`, () => l.setPressure(inlet, 0.99), {
        bad: !ok,
        roots: ['setPressure', 'inletDensity', 'outletDensity', 'pressure'],
        digest: true,
        alsoPlain: () => plain.setPressure(inlet, 0.99),
      });
      const { result } = await call('step(5) after', () => l.step(5), { alsoPlain: () => plain.step(5) });
      if (compare) sameState(h, `setPressure(${v})`, l, plain, diverged(result.error));
      break;
    }
    case 'release':
    case 'mpi finalized': {
      if (plan.member === 'release') await call('release()', () => l.release());
      // MPI's own finalize finalizes flow first (the modules it hosts); a stand-in has none: flow's.
      else if (c.mpi?.initialized()) c.mpi.finalize();
      else flow.finalize();
      if (!l.released) h.problem(`the lattice is live after ${plan.member}`);
      // slab is what the lattice was built with: still answered, the same, or a ReleasedError.
      const s = await h.call(`slab after ${plan.member} ${at}`, () => l.slab, {
        allow: (e) => e instanceof TypeError && e.name === 'ReleasedError',
      });
      if (s.ok && !entry.absent) checkSlab(h, `slab after ${plan.member}`, s.value, n0);
      await h.call(`step(1) after ${plan.member} ${at}`, () => l.step(1), {
        mustThrow: 'a released lattice must throw',
      });
      await h.call(`flux('x') after ${plan.member} ${at}`, () => l.flux('x'), {
        mustThrow: 'a released lattice must throw',
      });
      if (plan.member === 'release') await h.call(`release() again ${at}`, () => l.release());
      if (velocity !== undefined && velocity.length !== 0)
        h.problem(`velocity taken before ${plan.member} is not detached`);
      break;
    }
    default:
      throw new Error(`no member ${plan.member}`);
  }
  if (running) {
    l.release();
    const end = await running;
    if (!(cancelled(end) || end instanceof TypeError || diverged(end)))
      h.problem(`run() over mpi stopped by release() ended with ${endOf({ ok: false, error: end })}`);
  }
}

// ---- permeability with mpi --------------------------------------------------------------------

/**
 * Images for permeability over MPI: the first four valid, then the blocked ones (no pore path:
 * a RangeError naming `image` over MPI as without it) and hostile ones.
 */
const permeabilityImages = [
  'random 10³, 30% solid',
  'random 12x8x6, 20% solid',
  'all pore 6³',
  '1 pore voxel',
  'all solid 6³',
  'solid plane across every axis',
  'pores touching only at a corner',
  '1 solid voxel',
  'voxelSize NaN',
  'solid of the wrong length',
  'solid a subarray at offset 5',
  'null',
];
const permeabilityOptions = {
  none: {},
  "axis 'y'": { axis: 'y' },
  "axis 'z', drive 'pressure'": { axis: 'z', drive: 'pressure' },
  "drive 'pressure'": { drive: 'pressure' },
  'buffer 0': { buffer: 0 },
  'buffer 1': { buffer: 1 },
  "sides 'periodic'": { sides: 'periodic' },
  "precision 'f32'": { precision: 'f32' },
  'maxSteps 1': { maxSteps: 1 },
  'maxSteps 0': { maxSteps: 0, bad: 'maxSteps' },
  "axis 'w'": { axis: 'w', bad: 'axis' },
  // Refused over MPI only (without mpi the WebGPU path runs where a device is found).
  "executionSpace 'webgpu'": { executionSpace: 'webgpu', bad: 'executionSpace', mpiOnly: true },
  // `mpi` is read as a data property (to join the ranks before any other option is read): a
  // getter for it is refused naming `mpi`, as by new Lattice.
  'mpi as a getter': { getter: true, bad: 'mpi' },
};

const permeabilityTarget = {
  build: (r) => ({
    mpi: r.member(mpiNames),
    image: r.chance(0.7) ? r.pick(permeabilityImages.slice(0, 4)) : r.pick(permeabilityImages),
    options: r.chance(0.4) ? 'none' : r.pick(Object.keys(permeabilityOptions)),
  }),
  async exec(plan, h, { flow, r }) {
    const c = await context(plan.mpi, flow);
    const entry = mpiValues[plan.mpi];
    const imageEntry = images[plan.image];
    const image = imageEntry.make(r);
    const { bad: badOption, getter, unsure, mpiOnly, ...chosen } = permeabilityOptions[plan.options];
    const base = { tolerance: 1e-3, maxSteps: 200, ...chosen };
    const value = c.value;
    const options = getter
      ? {
          ...base,
          get mpi() {
            return value;
          },
        }
      : { ...base, mpi: value };
    const overMpi = !getter && !entry.absent;
    // One rank holds the whole image: an image of fewer than 2 planes along axis 0 may be refused
    // over MPI (naming image: 2 planes per rank), or taken with the buffers added along x.
    const planes = image?.shape?.[0];
    const expect = expectation([
      overMpi ? mpiStep(plan.mpi) : { root: 'mpi', state: 'ok' },
      { root: 'image', state: imageEntry.bad || imageEntry.outOfRange ? 'bad' : 'ok' },
      // Without MPI (mpi undefined) the WebGPU path runs where a device is found, or is refused.
      // A getter answering undefined is no mpi at all.
      { root: badOption, state: !badOption ? 'ok' : (mpiOnly || getter) && entry.absent ? 'maybe' : 'bad' },
      { root: 'image', state: overMpi && plainImage(plan.image) && planes < 2 ? 'maybe' : 'ok' },
      { root: 'image', state: imageEntry.blocked ? 'bad' : 'ok' },
    ]);
    const label = `permeability(${plan.image}, { ${plan.options}, mpi: ${plan.mpi} })`;
    c.arm();
    const result = await judge(h, label, () => residualMarked(flow.permeability(image, options)), expect, {
      ending: (e) =>
        unsettled(e) ||
        diverged(e) ||
        (entry.reentrant !== undefined && ((e instanceof TypeError && e.name === 'ReleasedError') || cancelled(e))),
    });
    if (result.ok) {
      const lattice = result.value.lattice;
      if (!getter && !entry.absent && !lattice?.released)
        checkSlab(h, `${label}: the result's lattice`, lattice?.slab, lattice?.shape?.[0]);
      if (!(result.value.permeability > 0 && Number.isFinite(result.value.permeability)))
        h.problem(`${label}: permeability ${result.value.permeability}`);
    }
    if (entry.real === 'finalize' || entry.reentrant !== undefined || unsure || mpiOnly) {
      result.value?.lattice?.release();
      return;
    }
    // One rank: what permeability() gives without mpi, to round-off.
    const p = await plainly(() => residualMarked(flow.permeability(image, base)));
    const refusedOverMpiOnly = !result.ok && overMpi && planes < 2 && p.ok;
    const mpiRefused = !result.ok && (result.error?.argument === 'mpi' || entry.allow?.(result.error) === true);
    if (!refusedOverMpiOnly && !mpiRefused) {
      if (sameEnd(h, `${label} and without mpi`, result, p)) {
        const a = result.value;
        const b = p.value;
        for (const k of ['permeability', 'porosity', 'tortuosity', 'residual'])
          if (typeof b[k] === 'number' && !close(a[k], b[k], 1e-9))
            h.problem(`${label}: ${k} ${a[k]} over mpi, ${b[k]} without`);
        if (a.steps !== b.steps || a.converged !== b.converged)
          h.problem(
            `${label}: ${a.steps} steps (converged ${a.converged}) over mpi, ${b.steps} (${b.converged}) without`,
          );
      }
    }
    result.value?.lattice?.release();
    p.value?.lattice?.release();
  },
};

export const slabTargets = {
  'flow.slabPlanes': slabPlanesTarget,
  'flow.slabOf': slabOfTarget,
  'flow.Lattice over mpi': latticeTarget,
  'flow.permeability over mpi': permeabilityTarget,
};
