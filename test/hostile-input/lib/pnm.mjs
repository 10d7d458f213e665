// pnm's targets: extract (hostile images, shapes, voxel sizes, options, a large image under a
// memory cap), extractAsync (signals, reentrant onProgress, intervals, concurrent calls, the
// image changed after the call), the four solvers (hostile options, released networks, garbage
// written into the zero-copy arrays and restored), the writers (paths, prefixes, bins,
// hand-built NetworkArrays), every other member of Network (live, released, disposed,
// finalized, with garbage in an array, after writes into the objects it hands out, called on
// something else), the functions (networkStatistics, networkToJSON, writeStatoil, fromPoreSpy,
// `new Network` of anything), and finalize (with networks, during extractions and writes).

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sphereLattice, tubes } from '../../../packages/pnm/test/helpers.mjs';
import { hashArray, repeatedReads } from './check.mjs';
import { detached, threadCounts } from './domains.mjs';
import { hostileProgress, progressKinds } from './progress.mjs';

const CAP_KIB = 2_000_000;
const h6 = 1e-6;

const cancelled = (e) => e instanceof Error && e.code === 'PECLET_CANCELLED';
const outOfMemory = (e) => e instanceof RangeError && e.code === 'PECLET_OUT_OF_MEMORY';
const released = (pnm, e) => e instanceof pnm.ReleasedError;
/** A file-system refusal as Node reports it (ENOENT, EISDIR, ENOTDIR, ENAMETOOLONG). */
const fsError = (e) => e instanceof Error && /^E[A-Z]+$/.test(String(e.code)) && typeof e.syscall === 'string';

/** The error a hostile getter throws (allowed by identity). */
const hostileGetter = () => new Error('hostile getter');
const isHostileGetter = (e) => e instanceof Error && e.message === 'hostile getter';

// ---- images ------------------------------------------------------------------------------------

/** A seeded mask of `n` voxels with about `fraction` solid. */
function mask(r, n, fraction) {
  const solid = new Uint8Array(n);
  for (let i = 0; i < n; i++) solid[i] = r.next() < fraction ? 1 : 0;
  return solid;
}

/** An image of `shape` whose voxel (i, j, k) is solid where `isSolid(i, j, k)`. */
function image(shape, isSolid, voxelSize = h6) {
  const [n0, n1, n2] = shape;
  const solid = new Uint8Array(n0 * n1 * n2);
  for (let i = 0; i < n0; i++)
    for (let j = 0; j < n1; j++) for (let k = 0; k < n2; k++) solid[(i * n1 + j) * n2 + k] = isSolid(i, j, k) ? 1 : 0;
  return { solid, shape, voxelSize };
}

const checker = (n) => image([n, n, n], (i, j, k) => (i + j + k) % 2 === 1);
const randomCube = (r) => ({ solid: mask(r, 12 ** 3, 0.4), shape: [12, 12, 12], voxelSize: h6 });

/** Two pore blobs along x that do not touch (solid at i = 10): boundary pores on both x faces, no path. */
const split = () => image([20, 12, 12], (i, j, k) => i === 10 || j < 3 || j >= 9 || k < 3 || k >= 9);

/** A cubic image of n³ voxels, all pore but one solid voxel (lazily zeroed: cheap to make). */
function allButOne(n) {
  const solid = new Uint8Array(n * n * n);
  solid[Math.floor(solid.length / 2)] = 1;
  return { solid, shape: [n, n, n], voxelSize: h6 };
}

/**
 * Images for extract(): `make(r)`; `bad`: the argument a documented error must name (the
 * call must throw); `unsure`: any clean end is fine; `throws`: a getter throws its own error;
 * `cap`: runs under the memory cap.
 */
const images = {
  'random 12³, 40% solid': { make: randomCube },
  'random 10×14×6, 60% solid': { make: (r) => ({ solid: mask(r, 840, 0.6), shape: [10, 14, 6], voxelSize: h6 }) },
  'random 16³, 25% solid': { make: (r) => ({ solid: mask(r, 4096, 0.25), shape: [16, 16, 16], voxelSize: h6 }) },
  'sphere lattice, 2 cells': { make: () => sphereLattice({ cells: 2 }) },
  'sphere lattice, 3 cells, h 5.345e-6': { make: () => sphereLattice({ cells: 3, voxelSize: 5.345e-6 }) },
  'tube r 3': { make: () => tubes({ radii: [3] }).image },
  'tubes r 2, 3, 4.5': { make: () => tubes({ radii: [2, 3, 4.5] }).image },
  'one pore voxel in 3³': { make: () => image([3, 3, 3], (i, j, k) => !(i === 1 && j === 1 && k === 1)) },
  'one solid voxel in 5³': { make: () => image([5, 5, 5], (i, j, k) => i === 2 && j === 2 && k === 2) },
  'checkerboard 6³': { make: () => checker(6) },
  'checkerboard 2³': { make: () => checker(2) },
  'line 1×1×30, solid every 7th': { make: () => image([1, 1, 30], (_i, _j, k) => k % 7 === 0) },
  'line 30×1×1, last voxel solid': { make: () => image([30, 1, 1], (i) => i === 29) },
  // Components cut off from every marker by other such components: their labels come through them.
  'random line 1×1×60, 40% solid': { make: (r) => ({ solid: mask(r, 60, 0.4), shape: [1, 1, 60], voxelSize: h6 }) },
  'random slab 1×16×16, 50% solid': { make: (r) => ({ solid: mask(r, 256, 0.5), shape: [1, 16, 16], voxelSize: h6 }) },
  '1×1×2, one pore and one solid': { make: () => image([1, 1, 2], (_i, _j, k) => k === 1) },
  'slab 8×8×1, solid first and last rows': { make: () => image([8, 8, 1], (i) => i === 0 || i === 7) },
  'thin 2×30×30': { make: () => image([2, 30, 30], (i, j, k) => i === 0 && (j + k) % 3 === 0) },
  'two blobs that do not touch': { make: split },
  'shape as an Int32Array': { make: (r) => ({ ...randomCube(r), shape: Int32Array.from([12, 12, 12]) }) },
  'shape as a Float64Array': { make: (r) => ({ ...randomCube(r), shape: Float64Array.from([12, 12, 12]) }) },
  'solid in a SharedArrayBuffer': {
    make: (r) => {
      const solid = new Uint8Array(new SharedArrayBuffer(1728));
      solid.set(mask(r, 1728, 0.4));
      return { solid, shape: [12, 12, 12], voxelSize: h6 };
    },
  },
  'solid a subarray at offset 5': {
    make: (r) => {
      const all = new Uint8Array(1740);
      all.set(mask(r, 1728, 0.4), 5);
      return { solid: all.subarray(5, 1733), shape: [12, 12, 12], voxelSize: h6 };
    },
  },
  'solid a Node Buffer': { make: (r) => ({ ...randomCube(r), solid: Buffer.from(mask(r, 1728, 0.4)) }) },
  'voxelSize 1e-12': { make: () => ({ ...sphereLattice({ cells: 2 }), voxelSize: 1e-12 }) },
  'voxelSize 1e3': { make: () => ({ ...sphereLattice({ cells: 2 }), voxelSize: 1e3 }) },
  'voxelSize 1e-300': { make: () => ({ ...sphereLattice({ cells: 2 }), voxelSize: 1e-300 }), bad: 'image.voxelSize' },
  'voxelSize 5e-324': { make: (r) => ({ ...randomCube(r), voxelSize: 5e-324 }), bad: 'image.voxelSize' },
  'voxelSize 1e6': { make: () => ({ ...sphereLattice({ cells: 2 }), voxelSize: 1e6 }), bad: 'image.voxelSize' },
  'a Proxy of an image': { make: (r) => new Proxy(randomCube(r), {}) },
  // Documented errors.
  'all solid': { make: () => image([6, 6, 6], () => true), bad: 'image.solid' },
  'all pore': { make: () => image([6, 6, 6], () => false), bad: 'image.solid' },
  'a voxel of 2': { make: (r) => withVoxel(randomCube(r), 2), bad: 'image.solid' },
  'a voxel of 255': { make: (r) => withVoxel(randomCube(r), 255), bad: 'image.solid' },
  'solid as an Int8Array': { make: (r) => ({ ...randomCube(r), solid: new Int8Array(1728) }), bad: 'image.solid' },
  'solid as a Uint8ClampedArray': {
    make: (r) => ({ ...randomCube(r), solid: new Uint8ClampedArray(1728) }),
    bad: 'image.solid',
  },
  'solid as a plain array': {
    make: (r) => ({ ...randomCube(r), solid: Array.from(mask(r, 1728, 0.4)) }),
    bad: 'image.solid',
  },
  'solid as a DataView': {
    make: (r) => ({ ...randomCube(r), solid: new DataView(mask(r, 1728, 0.4).buffer) }),
    bad: 'image.solid',
  },
  'solid detached': {
    make: (r) => {
      const im = randomCube(r);
      structuredClone(im.solid.buffer, { transfer: [im.solid.buffer] });
      return im;
    },
    bad: 'image.solid',
  },
  'solid missing': { make: () => ({ shape: [12, 12, 12], voxelSize: h6 }), bad: 'image.solid' },
  'solid a Proxy of a Uint8Array': {
    make: (r) => ({ ...randomCube(r), solid: new Proxy(mask(r, 1728, 0.4), {}) }),
    unsure: true,
  },
  'shape [12, 12]': { make: (r) => ({ ...randomCube(r), shape: [12, 12] }), bad: 'image.shape' },
  'shape [12, 12, 12, 1]': { make: (r) => ({ ...randomCube(r), shape: [12, 12, 12, 1] }), bad: 'image.shape' },
  'shape [0, 12, 12]': { make: (r) => ({ ...randomCube(r), shape: [0, 12, 12] }), bad: 'image.shape' },
  'shape [NaN, 12, 12]': { make: (r) => ({ ...randomCube(r), shape: [Number.NaN, 12, 12] }), bad: 'image.shape' },
  'shape [1e308, 12, 12]': { make: (r) => ({ ...randomCube(r), shape: [1e308, 12, 12] }), bad: 'image.shape' },
  'shape [-1, 12, 12]': { make: (r) => ({ ...randomCube(r), shape: [-1, 12, 12] }), bad: 'image.shape' },
  'shape [2.5, 12, 12]': { make: (r) => ({ ...randomCube(r), shape: [2.5, 12, 12] }), bad: 'image.shape' },
  'shape [12, 12, 13] (1728 voxels)': { make: (r) => ({ ...randomCube(r), shape: [12, 12, 13] }), bad: 'image.shape' },
  'shape [1e5, 1e5, 1e5] (8 voxels)': {
    make: (r) => ({ solid: mask(r, 8, 0.5), shape: [1e5, 1e5, 1e5], voxelSize: h6 }),
    bad: 'image.shape',
  },
  'shape [2**20, 2**20, 1] (8 voxels)': {
    make: (r) => ({ solid: mask(r, 8, 0.5), shape: [2 ** 20, 2 ** 20, 1], voxelSize: h6 }),
    bad: 'image.shape',
  },
  "shape ['12', '12', '12']": { make: (r) => ({ ...randomCube(r), shape: ['12', '12', '12'] }), bad: 'image.shape' },
  'shape 1728 (a number)': { make: (r) => ({ ...randomCube(r), shape: 1728 }), bad: 'image.shape' },
  'shape a DataView': {
    make: (r) => ({ ...randomCube(r), shape: new DataView(new ArrayBuffer(12)) }),
    bad: 'image.shape',
  },
  'shape missing': { make: (r) => ({ solid: mask(r, 1728, 0.4), voxelSize: h6 }), bad: 'image.shape' },
  'shape answering [600, 600, 600] on the second read': {
    make: (r) => {
      const shape = [12, 12, 12];
      let reads = 0;
      Object.defineProperty(shape, 0, { get: () => (reads++ === 0 ? 12 : 600), enumerable: true });
      return { ...randomCube(r), shape };
    },
    unsure: true,
  },
  'voxelSize NaN': { make: (r) => ({ ...randomCube(r), voxelSize: Number.NaN }), bad: 'image.voxelSize' },
  'voxelSize 0': { make: (r) => ({ ...randomCube(r), voxelSize: 0 }), bad: 'image.voxelSize' },
  'voxelSize -1': { make: (r) => ({ ...randomCube(r), voxelSize: -1 }), bad: 'image.voxelSize' },
  'voxelSize Infinity': {
    make: (r) => ({ ...randomCube(r), voxelSize: Number.POSITIVE_INFINITY }),
    bad: 'image.voxelSize',
  },
  'voxelSize 1e7': { make: (r) => ({ ...randomCube(r), voxelSize: 1e7 }), bad: 'image.voxelSize' },
  "voxelSize '1e-6'": { make: (r) => ({ ...randomCube(r), voxelSize: '1e-6' }), bad: 'image.voxelSize' },
  'voxelSize missing': { make: (r) => ({ solid: mask(r, 1728, 0.4), shape: [12, 12, 12] }), bad: 'image.voxelSize' },
  null: { make: () => null, bad: 'image' },
  'a number': { make: () => 7, bad: 'image' },
  'an array': { make: () => [new Uint8Array(8), [2, 2, 2], h6], bad: 'image' },
  'solid a getter that throws': {
    make: () => ({
      get solid() {
        throw hostileGetter();
      },
      shape: [12, 12, 12],
      voxelSize: h6,
    }),
    throws: true,
  },
  // Valid, but more memory than the cap: refused cleanly (PECLET_OUT_OF_MEMORY), never a crash.
  '800³ all pore but one solid (memory cap)': { make: () => allButOne(800), cap: true },
  '500³ all pore but one solid (memory cap)': { make: () => allButOne(500), cap: true },
};

function withVoxel(im, value) {
  im.solid[7] = value;
  return im;
}

/** Names of the plain valid images (known contents: the invariants apply). */
const plainImages = Object.keys(images).filter((k) => {
  const e = images[k];
  return !e.bad && !e.unsure && !e.throws && !e.cap && k !== 'a Proxy of an image';
});

// ---- extract options -----------------------------------------------------------------------------

const value = (v, bad) => ({ v: () => v, bad });
const ok = (v) => value(v, false);
const no = (v) => value(v, true);

/** Named values of each extract option; `bad`: a documented error naming the option. */
const extractValues = {
  sigma: {
    0: ok(0),
    0.4: ok(0.4),
    2: ok(2),
    100: ok(100),
    '1e-300': ok(1e-300),
    '5e-324': ok(5e-324),
    '-1': no(-1),
    NaN: no(Number.NaN),
    Infinity: no(Number.POSITIVE_INFINITY),
    '1e308': no(1e308),
    100.5: no(100.5),
    "'0.4'": no('0.4'),
    null: no(null),
    undefined: ok(undefined),
  },
  rMax: {
    1: ok(1),
    2: ok(2),
    4: ok(4),
    64: ok(64),
    0: no(0),
    65: no(65),
    1.5: no(1.5),
    NaN: no(Number.NaN),
    '-1': no(-1),
    '1e308': no(1e308),
    "'4'": no('4'),
    undefined: ok(undefined),
  },
  boundaries: {
    true: ok(true),
    false: ok(false),
    "['x']": { v: () => ['x'] },
    "['x', 'y', 'z']": { v: () => ['x', 'y', 'z'] },
    "['z', 'z']": { v: () => ['z', 'z'] },
    '[]': { v: () => [] },
    '[0, 1, 2]': { v: () => [0, 1, 2] },
    "a Proxy of ['y']": { v: () => new Proxy(['y'], {}), unsure: true },
    "['w']": { v: () => ['w'], bad: true },
    "'x'": no('x'),
    "['x', 'y', 'z', 'x']": { v: () => ['x', 'y', 'z', 'x'], bad: true },
    '[NaN]': { v: () => [Number.NaN], bad: true },
    "['X']": { v: () => ['X'], bad: true },
    null: no(null),
    1: no(1),
    undefined: ok(undefined),
  },
  watershed: {
    "'basins'": ok('basins'),
    "'priority-flood'": ok('priority-flood'),
    "'flood'": no('flood'),
    "'Basins'": no('Basins'),
    "''": no(''),
    1: no(1),
    null: no(null),
    undefined: ok(undefined),
  },
  threads: Object.fromEntries(
    Object.entries(threadCounts).map(([k, v]) => {
      const x = v();
      return [k, { v, bad: !(x === undefined || (Number.isInteger(x) && x >= 0 && x <= 65_536)) }];
    }),
  ),
};

/** The six boundary flags an accepted `boundaries` value asks for (undefined when unsure). */
function facesOf(b) {
  if (b === undefined || b === false) return [false, false, false, false, false, false];
  if (b === true) return [true, true, true, true, true, true];
  if (!Array.isArray(b)) return undefined;
  const faces = [false, false, false, false, false, false];
  for (const axis of b) {
    const a = typeof axis === 'number' ? axis : 'xyz'.indexOf(axis);
    faces[2 * a] = true;
    faces[2 * a + 1] = true;
  }
  return faces;
}

/** Wraps options as a plan's container says; `null` when the container itself is the error. */
function contain(options, container, key) {
  if (container === 'null') return null;
  if (container === 'a number') return 5;
  if (container === 'an array') return [options];
  if (container === 'unknown key') return { ...options, bogus: 1 };
  // The plan's key with its first two letters swapped ('sigma' → 'isgma'), beside the key itself.
  if (container === 'misspelt key') return { ...options, [`${key[1]}${key[0]}${key.slice(2)}`]: 1 };
  if (container === 'a Proxy') return new Proxy(options, {});
  if (container === 'getter throwing') {
    const o = { ...options };
    Object.defineProperty(o, key, {
      get: () => {
        throw hostileGetter();
      },
      enumerable: true,
    });
    return o;
  }
  return options;
}
// An unknown key is a TypeError naming it (core's readOptions), as a wrong container is.
const badContainers = new Set(['null', 'a number', 'an array', 'unknown key', 'misspelt key']);

// ---- what the API must give ----------------------------------------------------------------------

/** An error must name the argument at fault (`argument`, or the message's start). */
function checkNamed(h, label, error, roots) {
  if (!(error instanceof TypeError || error instanceof RangeError)) return;
  if (error.name === 'ReleasedError') return;
  const named = typeof error.argument === 'string' ? error.argument : String(error.message);
  if (!roots.some((root) => named.startsWith(root))) {
    h.problem(`${label}: ${error.name} names '${named.slice(0, 60)}', expected one of ${roots.join(', ')}`);
  }
}

const POROUS_KEYS = [
  'coordinates',
  'volume',
  'inscribedDiameter',
  'equivalentDiameter',
  'surfaceArea',
  'label',
  'face',
];
const THROAT_KEYS = ['conns', 'inscribedDiameter', 'area', 'perimeter', 'length', 'totalLength', 'conduitLengths'];

/** The network's observable state: counts and every zero-copy array. */
function digestNetwork(n) {
  if (n.released) return 'released';
  const { pores, throats } = n;
  return [
    n.poreCount,
    n.throatCount,
    ...POROUS_KEYS.map((k) => hashArray(pores[k])),
    ...THROAT_KEYS.map((k) => hashArray(throats[k])),
    hashArray(n.regions),
  ].join('|');
}

/** What identifies an extraction's result. */
const fingerprint = (n) =>
  [n.poreCount, n.throatCount, hashArray(n.throats.conns), hashArray(n.pores.volume), hashArray(n.regions)].join('|');

/**
 * The invariants of a network extracted from the plain image `im` with boundary pores on
 * `faces` (six flags; undefined: unknown).
 */
function checkExtracted(h, label, net, im, faces) {
  const p = (m) => h.problem(`${label}: ${m}`);
  const shape = Array.from(im.shape, Number);
  const [n0, n1, n2] = shape;
  const voxels = n0 * n1 * n2;
  const hv = im.voxelSize;
  let poreVoxels = 0;
  for (let v = 0; v < voxels; v++) if (im.solid[v] === 0) poreVoxels++;
  const N = net.poreCount;
  const M = net.throatCount;
  if (!(Number.isInteger(N) && N >= 1)) {
    p(
      `an image with ${poreVoxels} pore voxels gave ${N} pores (an empty network: no marker, every pore voxel unlabelled)`,
    );
    return;
  }
  if (!(Number.isInteger(M) && M >= 0)) p(`throatCount ${M}`);
  if (net.shape.join() !== shape.join()) p(`shape [${net.shape}], the image's is [${shape}]`);
  if (net.voxelSize !== hv) p(`voxelSize ${net.voxelSize}, the image's is ${hv}`);
  if (net.porosity !== poreVoxels / voxels) p(`porosity ${net.porosity}, the image's is ${poreVoxels / voxels}`);
  const { pores, throats } = net;
  const regions = net.regions;
  const lengths = {
    'pores.coordinates': [pores.coordinates, 3 * N],
    'pores.volume': [pores.volume, N],
    'pores.inscribedDiameter': [pores.inscribedDiameter, N],
    'pores.equivalentDiameter': [pores.equivalentDiameter, N],
    'pores.surfaceArea': [pores.surfaceArea, N],
    'pores.label': [pores.label, N],
    'pores.face': [pores.face, N],
    'throats.conns': [throats.conns, 2 * M],
    'throats.inscribedDiameter': [throats.inscribedDiameter, M],
    'throats.area': [throats.area, M],
    'throats.perimeter': [throats.perimeter, M],
    'throats.length': [throats.length, M],
    'throats.conduitLengths': [throats.conduitLengths, 3 * M],
    regions: [regions, voxels],
  };
  for (const [k, [a, n]] of Object.entries(lengths))
    if (a.length !== n) return p(`${k} has ${a.length} values, expected ${n}`);
  for (const [k, [a]] of Object.entries(lengths)) {
    if (!(a instanceof Float64Array)) continue;
    const i = a.findIndex((x) => !(Number.isFinite(x) && x >= 0));
    if (i >= 0) return p(`${k}[${i}] is ${a[i]} (not finite and ≥ 0)`);
  }
  for (let i = 0; i < 3 * N; i++) {
    const top = shape[i % 3] * hv;
    if (pores.coordinates[i] > top * (1 + 1e-12))
      return p(`pores.coordinates[${i}] = ${pores.coordinates[i]} outside [0, ${top}]`);
  }
  let interior = 0;
  for (let i = 0; i < N; i++) {
    const f = pores.face[i];
    if (f === -1) {
      if (i !== interior) return p(`interior pore ${i} after a boundary pore`);
      interior++;
      if (pores.label[i] !== i + 1) return p(`pores.label[${i}] = ${pores.label[i]}, expected ${i + 1}`);
    } else {
      if (!(f >= 0 && f <= 5)) return p(`pores.face[${i}] = ${f}`);
      if (faces && !faces[f]) return p(`a boundary pore on face ${f}, which was not asked for`);
      if (pores.volume[i] !== 0) return p(`boundary pore ${i} has volume ${pores.volume[i]}`);
      if (!(pores.label[i] >= 1 && pores.label[i] <= interior)) return p(`boundary pore ${i} label ${pores.label[i]}`);
      const axis = f >> 1;
      const at = f % 2 === 0 ? 0 : shape[axis] * hv;
      if (pores.coordinates[3 * i + axis] !== at)
        return p(`boundary pore ${i} on face ${f} sits at ${pores.coordinates[3 * i + axis]}`);
    }
  }
  if (interior === 0) return p('no interior pore');
  // Regions: one label per voxel, > 0 exactly on pore voxels (every pore voxel is reached: a
  // component no marker reaches through pore takes the nearest label through solid).
  const count = new Float64Array(interior + 1);
  for (let v = 0; v < voxels; v++) {
    const l = regions[v];
    if (!(l >= 0 && l <= interior)) return p(`regions[${v}] = ${l}, not in [0, ${interior}]`);
    if (l > 0 !== (im.solid[v] === 0)) {
      return p(`regions[${v}] = ${l} on a ${im.solid[v] === 0 ? 'pore' : 'solid'} voxel`);
    }
    count[l]++;
  }
  let sum = 0;
  for (let i = 0; i < interior; i++) {
    if (count[i + 1] === 0) return p(`region ${i + 1} has no voxel`);
    const want = count[i + 1] * hv * hv * hv;
    if (Math.abs(pores.volume[i] - want) > 1e-12 * want)
      return p(`pore ${i} volume ${pores.volume[i]}, its region ${want}`);
    sum += pores.volume[i];
  }
  const total = poreVoxels * hv * hv * hv;
  if (Math.abs(sum - total) > 1e-9 * total) p(`interior pore volumes sum to ${sum}, the pore space is ${total}`);
  // Throats: two different pores, smaller first, each pair once; one per boundary pore, to the pore it caps.
  const pairs = new Set();
  const toBoundary = new Int32Array(N);
  for (let t = 0; t < M; t++) {
    const a = throats.conns[2 * t];
    const b = throats.conns[2 * t + 1];
    if (!(a >= 0 && b < N && a < b)) return p(`throat ${t} joins ${a} and ${b}`);
    const key = a * N + b;
    if (pairs.has(key)) return p(`throat ${t} joins ${a} and ${b} again`);
    pairs.add(key);
    if (pores.face[b] >= 0) {
      toBoundary[b]++;
      if (pores.face[a] !== -1 || pores.label[b] !== a + 1)
        return p(`throat ${t} joins boundary pore ${b} to pore ${a}`);
    }
    const c = throats.conduitLengths;
    const L = throats.length[t];
    if (Math.abs(c[3 * t] + c[3 * t + 1] + c[3 * t + 2] - L) > 1e-9 * L + 1e-300) {
      return p(`throat ${t}: conduit lengths ${c[3 * t]} + ${c[3 * t + 1]} + ${c[3 * t + 2]} ≠ length ${L}`);
    }
  }
  for (let i = interior; i < N; i++)
    if (toBoundary[i] !== 1) return p(`boundary pore ${i} ends ${toBoundary[i]} throats`);
  for (const [k, x] of Object.entries(net.timings)) if (!(Number.isFinite(x) && x >= 0)) p(`timings.${k} = ${x}`);
}

/** release(): the arrays taken before are detached, and `released` is true. */
function checkRelease(h, label, net) {
  const volume = net.pores.volume;
  const regions = net.regions;
  net.release();
  if (!net.released) h.problem(`${label}: released is false after release()`);
  if (volume.length !== 0 || regions.length !== 0) h.problem(`${label}: arrays taken before release() not detached`);
}

// ---- pnm.extract -------------------------------------------------------------------------------

const containers = [
  ...Array(8).fill('object'),
  'none',
  'null',
  'a number',
  'an array',
  'unknown key',
  'misspelt key',
  'a Proxy',
  'getter throwing',
];

/** A value of `values` (named entries with `bad`): a valid one half the time. */
function pickValue(r, values) {
  const names = Object.keys(values);
  const valid = names.filter((k) => !values[k].bad);
  return r.chance(0.5) && valid.length > 0 ? r.pick(valid) : r.pick(names);
}

function extractPlan(r, asynchronous) {
  const cap = !asynchronous && r.chance(0.03);
  if (cap) {
    return {
      image: r.pick(Object.keys(images).filter((k) => images[k].cap)),
      field: 'boundaries',
      value: "['x']",
      options: 'object',
      memoryLimitKiB: CAP_KIB,
    };
  }
  const hostileImage = r.chance(0.35);
  const field = r.pick(Object.keys(extractValues));
  return {
    image: hostileImage
      ? r.pick(Object.keys(images).filter((k) => !images[k].cap))
      : r.pick(plainImages.filter((k) => !/^voxelSize/.test(k) || r.chance(0.3))),
    field,
    value: hostileImage ? 'undefined' : pickValue(r, extractValues[field]),
    options: r.pick(hostileImage ? ['object', 'none'] : containers),
  };
}

/** The options a plan names (before its container). */
function extractOptions(plan) {
  const options = {};
  const entry = extractValues[plan.field][plan.value];
  if (plan.value !== 'undefined') options[plan.field] = entry.v();
  return { options, entry };
}

async function extractExec(plan, h, { pnm, r }) {
  const entry = images[plan.image];
  const im = entry.make(r);
  const none = plan.options === 'none';
  const { options, entry: option } = none ? { options: {}, entry: ok(undefined) } : extractOptions(plan);
  const argument = none ? undefined : contain(options, plan.options, 'sigma');
  const bad = Boolean(entry.bad) || option.bad || badContainers.has(plan.options);
  const unsure = entry.unsure || option.unsure;
  const throws = entry.throws || plan.options === 'getter throwing';
  const solid = im && typeof im === 'object' && !entry.throws ? im.solid : undefined;
  const digest = ArrayBuffer.isView(solid) && !entry.cap ? () => hashArray(solid) : undefined;
  const before = digest?.();
  const label = `extract(${plan.image}, { ${plan.field}: ${plan.value} }) (${plan.options})`;
  const result = await h.call(label, () => (argument === undefined ? pnm.extract(im) : pnm.extract(im, argument)), {
    digest,
    bad: bad && !unsure && !throws,
    allow: (e) => throws && isHostileGetter(e),
  });
  if (!result.ok) {
    const e = result.error;
    if (entry.cap) {
      if (!outOfMemory(e)) h.problem(`${label}: refused without code PECLET_OUT_OF_MEMORY: ${e?.message}`);
      // The module is still usable after the refusal.
      await h.call('extract(tube r 3) after the refusal', () => pnm.extract(tubes({ radii: [3] }).image).release());
      return;
    }
    if (bad && !unsure && !isHostileGetter(e)) {
      const roots = [];
      if (entry.bad) roots.push(entry.bad);
      if (option.bad) roots.push(plan.field);
      if (badContainers.has(plan.options)) roots.push('options');
      checkNamed(h, label, e, roots);
    }
    if (!bad && !unsure && !throws) h.problem(`${label}: a valid image and options were refused`);
    return;
  }
  const net = result.value;
  if (digest !== undefined && digest() !== before) h.problem(`${label}: extract() changed the image`);
  if (!(net instanceof pnm.Network)) return h.problem(`${label}: returned ${net?.constructor?.name}`);
  if (entry.cap) {
    if (!(net.poreCount >= 1)) h.problem(`${label}: ${net.poreCount} pores`);
  } else if (!unsure && plainImages.includes(plan.image)) {
    checkExtracted(h, label, net, im, facesOf(options.boundaries));
  }
  checkRelease(h, label, net);
}

// ---- pnm.extractAsync --------------------------------------------------------------------------

const asyncImages = {
  'sphere lattice, 4 cells': { make: () => sphereLattice({ cells: 4 }) },
  'sphere lattice, 3 cells': { make: () => sphereLattice({ cells: 3 }) },
  'random 16³, 25% solid': images['random 16³, 25% solid'],
  'tube r 3': images['tube r 3'],
  'checkerboard 6³': images['checkerboard 6³'],
  'all solid': images['all solid'],
  'solid detached': images['solid detached'],
  'shape [12, 12]': images['shape [12, 12]'],
  'voxelSize NaN': images['voxelSize NaN'],
};

const progressIntervals = {
  undefined: ok(undefined),
  1: ok(1),
  '5e-324': ok(5e-324),
  100: ok(100),
  60000: ok(60_000),
  0: no(0),
  '-1': no(-1),
  NaN: no(Number.NaN),
  '1e9': no(1e9),
  Infinity: no(Number.POSITIVE_INFINITY),
  "'10' (string)": no('10'),
  null: no(null),
};

const onProgressKinds = [
  ...progressKinds.filter((k) => k !== 'calls run() again' && k !== 'calls step()'),
  'calls extract()',
  'calls extractAsync() again',
  'reads the other network',
];

/** A small image for the nested calls of onProgress. */
const nestedImage = () => tubes({ radii: [2], length: 12 }).image;

async function extractAsyncExec(plan, h, { pnm, r }) {
  const entry = asyncImages[plan.image];
  const im = entry.make(r);
  const boundaries = { undefined: undefined, "['x']": ['x'], true: true }[plan.boundaries];
  const other = pnm.extract(nestedImage());
  const seen = { count: 0, errors: [], nested: [] };
  let finalized = false;
  let settled = false;
  const onProgress = hostileProgress(plan.onProgress, other, pnm, seen, {
    extra: {
      'calls finalize()': () => {
        if (!settled) finalized = true;
      },
      'calls extract()': () => {
        try {
          pnm.extract(nestedImage()).release();
        } catch (e) {
          seen.errors.push(e);
        }
      },
      'calls extractAsync() again': () => {
        seen.nested.push(
          pnm.extractAsync(nestedImage()).then(
            (n) => n.release(),
            (e) => e,
          ),
        );
      },
      'reads the other network': () => {
        try {
          seen.sum = other.pores.volume.reduce((a, b) => a + b, 0);
        } catch (e) {
          seen.errors.push(e);
        }
      },
    },
  });
  const controller = new AbortController();
  const reason = new Error('hostile abort');
  if (plan.signal === 'aborted before') controller.abort(reason);
  if (plan.signal === 'aborted before, no reason') controller.abort();
  const interval = progressIntervals[plan.progressInterval];
  const options = {};
  if (boundaries !== undefined) options.boundaries = boundaries;
  if (plan.signal === 'not a signal') options.signal = { aborted: false, addEventListener() {} };
  else if (plan.signal === 'null') options.signal = null;
  else if (plan.signal !== 'none') options.signal = controller.signal;
  if (onProgress !== undefined) options.onProgress = onProgress;
  if (plan.progressInterval !== 'undefined') options.progressInterval = interval.v();
  const argument = contain(options, plan.options, 'boundaries');
  const bad =
    Boolean(entry.bad) ||
    interval.bad ||
    badContainers.has(plan.options) ||
    plan.signal === 'not a signal' ||
    plan.signal === 'null';
  const abortedBefore = plan.signal.startsWith('aborted before');
  // The same extraction done synchronously first: what the asynchronous one must give.
  let reference;
  const referenceSolid =
    im?.solid instanceof Uint8Array && im.solid.buffer.byteLength > 0 ? im.solid.slice() : undefined;
  if (!bad && !abortedBefore) {
    const net = pnm.extract(im, boundaries === undefined ? {} : { boundaries });
    reference = fingerprint(net);
    net.release();
  }
  const label = `extractAsync(${plan.image}, { boundaries: ${plan.boundaries}, signal: ${plan.signal}, onProgress: ${plan.onProgress}, progressInterval: ${plan.progressInterval} }) (${plan.options}, ${plan.cancel})`;
  const aborted = (e) => controller.signal.aborted && e === controller.signal.reason;
  const ending = (e) =>
    aborted(e) || (plan.onProgress === 'throws' && e instanceof Error && e.message === 'hostile onProgress');
  const pending = h.call(label, () => pnm.extractAsync(im, argument), { bad, allow: ending });
  pending.then(() => {
    settled = true;
  });
  const others = [];
  if (plan.cancel === 'three at once') {
    for (let i = 0; i < 2; i++)
      others.push(h.call(`extractAsync #${i + 2} at once`, () => pnm.extractAsync(im, argument), { allow: ending }));
  }
  if (plan.cancel === 'mutate the image after the call' && im?.solid instanceof Uint8Array && !bad) im.solid.fill(1);
  if (plan.cancel === 'extract() at once') {
    others.push(h.call('extract(tube) during extractAsync', () => pnm.extract(nestedImage()).release()));
  }
  if (plan.signal === 'abort at once') controller.abort(reason);
  if (plan.signal === 'abort after 2 ms') setTimeout(() => controller.abort(reason), 2);
  if (plan.cancel === 'finalize() after 2 ms') {
    setTimeout(() => {
      if (!settled) finalized = true;
      pnm.finalize();
    }, 2);
  }
  const result = await pending;
  // Read at once: a finalize() still to come releases every network.
  const outcomeOf = (x) => {
    if (!x.ok || !(x.value instanceof pnm.Network)) return { kind: x.ok ? x.value?.constructor?.name : 'error' };
    if (x.value.released) return { kind: 'released' };
    return { kind: 'live', fp: fingerprint(x.value), net: x.value };
  };
  const mine = outcomeOf(result);
  if (mine.kind === 'live' && !bad && !abortedBefore && im?.solid instanceof Uint8Array && reference !== undefined) {
    checkExtracted(h, label, mine.net, { ...im, solid: referenceSolid }, facesOf(boundaries));
  }
  const rest = (await Promise.all(others)).map(outcomeOf);
  const nested = await Promise.all(seen.nested);
  for (const e of [...seen.errors, ...nested.filter((x) => x !== undefined)]) {
    if (!(cancelled(e) || released(pnm, e))) {
      h.problem(
        `a call from onProgress (${plan.onProgress}) failed: ${e?.constructor?.name} ${e?.code ?? ''}: ${e?.message}`,
      );
    }
  }
  if (plan.onProgress === 'calls release()' && seen.count > 0 && !other.released) {
    h.problem('onProgress released the other network, which is still live');
  }
  for (const x of rest) {
    if (x.kind === 'live') {
      if (mine.fp !== undefined && x.fp !== mine.fp) h.problem(`${label}: concurrent extractions differ`);
      if (!x.net.released) x.net.release();
    }
  }
  if (!result.ok) {
    const e = result.error;
    if (bad) {
      const roots = ['signal', 'progressInterval', 'options'];
      if (entry.bad) roots.push(entry.bad);
      checkNamed(h, label, e, roots);
      return;
    }
    if (abortedBefore) {
      if (!aborted(e))
        h.problem(`${label}: an aborted signal must reject with its reason, got ${e?.constructor?.name}`);
      return;
    }
    const fine =
      aborted(e) ||
      (cancelled(e) && finalized) ||
      (plan.onProgress === 'throws' && seen.count > 0 && e?.message === 'hostile onProgress');
    if (!fine)
      h.problem(`${label}: a valid extraction rejected with ${e?.constructor?.name} ${e?.code ?? ''}: ${e?.message}`);
    return;
  }
  if (abortedBefore) return h.problem(`${label}: resolved although its signal was aborted before the call`);
  // Three extractions at once share one onProgress: a call counted may have been another's, and
  // this one may have finished before its first progress (seed 168827885).
  if (plan.onProgress === 'throws' && seen.count > 0 && plan.cancel !== 'three at once')
    h.problem(`${label}: resolved although onProgress threw`);
  if (finalized) h.problem(`${label}: resolved although finalize() was called before it settled`);
  if (mine.kind !== 'live')
    return h.problem(`${label}: resolved with ${mine.kind === 'released' ? 'a released network' : mine.kind}`);
  if (reference !== undefined && mine.fp !== reference) {
    h.problem(`${label}: the network differs from extract()'s (${mine.fp} vs ${reference})`);
  }
  if (!mine.net.released) checkRelease(h, label, mine.net);
}

// ---- networks for the solvers ------------------------------------------------------------------

/**
 * Networks of known images: `flows`: the axes along which Stokes flow and diffusion have a
 * path between boundary pores on both faces; `inlets`: the axes with boundary pores on their
 * first face (drainage and invasion need only those).
 */
const networks = {
  'lattice 2 cells, boundaries x': {
    image: () => sphereLattice({ cells: 2 }),
    boundaries: ['x'],
    flows: 'x',
    inlets: 'x',
  },
  'lattice 3 cells, boundaries true': {
    image: () => sphereLattice({ cells: 3 }),
    boundaries: true,
    flows: 'xyz',
    inlets: 'xyz',
  },
  'lattice 2 cells, no boundaries': {
    image: () => sphereLattice({ cells: 2 }),
    boundaries: false,
    flows: '',
    inlets: '',
  },
  'tube r 3, boundaries x': { image: () => tubes({ radii: [3] }).image, boundaries: ['x'], flows: 'x', inlets: 'x' },
  'tubes r 2, 3, 4.5, boundaries x': {
    image: () => tubes({ radii: [2, 3, 4.5] }).image,
    boundaries: ['x'],
    flows: 'x',
    inlets: 'x',
  },
  'tube r 3, boundaries true': { image: () => tubes({ radii: [3] }).image, boundaries: true, flows: 'x', inlets: 'x' },
  'two blobs, boundaries x': { image: split, boundaries: ['x'], flows: '', inlets: 'x' },
  'lattice 2 cells at h 1e3, boundaries x': {
    image: () => sphereLattice({ cells: 2, voxelSize: 1e3 }),
    boundaries: ['x'],
    flows: 'x',
    inlets: 'x',
  },
  'tube r 3 at h 1e-12, boundaries x': {
    image: () => ({ ...tubes({ radii: [3] }).image, voxelSize: 1e-12 }),
    boundaries: ['x'],
    flows: 'x',
    inlets: 'x',
  },
};

const axisValues = {
  "'x'": ok('x'),
  "'y'": ok('y'),
  "'z'": ok('z'),
  0: ok(0),
  1: ok(1),
  2: ok(2),
  "'w'": no('w'),
  3: no(3),
  '-1': no(-1),
  NaN: no(Number.NaN),
  "'X'": no('X'),
  null: no(null),
  undefined: ok(undefined),
};
const toleranceValues = {
  '1e-10': ok(1e-10),
  '1e-300': ok(1e-300),
  '5e-324': ok(5e-324),
  0.5: ok(0.5),
  0.999: ok(0.999),
  0: no(0),
  1: no(1),
  '-1': no(-1),
  NaN: no(Number.NaN),
  "'1e-6'": no('1e-6'),
  undefined: ok(undefined),
};
const iterationValues = {
  0: ok(0),
  1: ok(1),
  '1e9': ok(1e9),
  '2**31': ok(2 ** 31),
  '-1': no(-1),
  1.5: no(1.5),
  '2**32': no(2 ** 32),
  NaN: no(Number.NaN),
  Infinity: no(Number.POSITIVE_INFINITY),
  undefined: ok(undefined),
};
const pressurePairs = {
  default: { v: () => ({}) },
  '2 → 1': { v: () => ({ inletPressure: 2, outletPressure: 1 }) },
  '1 → 2 (reversed)': { v: () => ({ inletPressure: 1, outletPressure: 2 }) },
  '1e12 → -1e12': { v: () => ({ inletPressure: 1e12, outletPressure: -1e12 }) },
  '1e12 → 1e12 - 1e-3 (nearly equal)': { v: () => ({ inletPressure: 1e12, outletPressure: 1e12 - 1e-3 }) },
  '1e-9 → 0': { v: () => ({ inletPressure: 1e-9, outletPressure: 0 }) },
  '5e-324 → 0 (below 1e-9 Pa)': { v: () => ({ inletPressure: 5e-324, outletPressure: 0 }), bad: true },
  '5 → 5 (equal)': { v: () => ({ inletPressure: 5, outletPressure: 5 }), bad: true },
  '0 → -0 (equal)': { v: () => ({ inletPressure: 0, outletPressure: -0 }), bad: true },
  'Infinity → 0': { v: () => ({ inletPressure: Number.POSITIVE_INFINITY, outletPressure: 0 }), bad: true },
  '0 → -Infinity': { v: () => ({ inletPressure: 0, outletPressure: Number.NEGATIVE_INFINITY }), bad: true },
  'NaN → 0': { v: () => ({ inletPressure: Number.NaN, outletPressure: 0 }), bad: true },
  '1e13 → 0': { v: () => ({ inletPressure: 1e13, outletPressure: 0 }), bad: true },
  "'2' → 1": { v: () => ({ inletPressure: '2', outletPressure: 1 }), bad: true },
};

const solverValues = {
  stokesFlow: {
    axis: axisValues,
    viscosity: {
      '1e-3': ok(1e-3),
      '1e12': ok(1e12),
      '1e-12': ok(1e-12),
      '1e-300': no(1e-300),
      '1e-310 (subnormal)': no(1e-310),
      '5e-324': no(5e-324),
      0: no(0),
      '-1': no(-1),
      NaN: no(Number.NaN),
      Infinity: no(Number.POSITIVE_INFINITY),
      '1e308': no(1e308),
      "'1e-3'": no('1e-3'),
      null: no(null),
      undefined: ok(undefined),
    },
    pressures: pressurePairs,
    tolerance: toleranceValues,
    maxIterations: iterationValues,
    conductance: {
      "'hagen-poiseuille'": ok('hagen-poiseuille'),
      "'shape-factor'": ok('shape-factor'),
      "'bogus'": no('bogus'),
      1: no(1),
      null: no(null),
      undefined: ok(undefined),
    },
    entrance: {
      true: ok(true),
      false: ok(false),
      "'yes'": no('yes'),
      1: no(1),
      null: no(null),
      undefined: ok(undefined),
    },
  },
  diffusion: { axis: axisValues, tolerance: toleranceValues, maxIterations: iterationValues },
  drainage: {},
  invasionPercolation: {},
};
const capillary = {
  axis: axisValues,
  entry: {
    "'washburn'": ok('washburn'),
    "'laplace'": no('laplace'),
    1: no(1),
    null: no(null),
    undefined: ok(undefined),
  },
  contactAngle: {
    140: ok(140),
    180: ok(180),
    90.0000001: ok(90.0000001),
    179.999: ok(179.999),
    120: ok(120),
    90: no(90),
    30: no(30),
    0: no(0),
    '-1': no(-1),
    181: no(181),
    NaN: no(Number.NaN),
    Infinity: no(Number.POSITIVE_INFINITY),
    '1e308': no(1e308),
    "'140'": no('140'),
    undefined: ok(undefined),
  },
  surfaceTension: {
    0.48: ok(0.48),
    1000: ok(1000),
    '1e-9': ok(1e-9),
    '1e-300': no(1e-300),
    0: no(0),
    '-1': no(-1),
    NaN: no(Number.NaN),
    Infinity: no(Number.POSITIVE_INFINITY),
    '1e308': no(1e308),
    1001: no(1001),
    undefined: ok(undefined),
  },
  pressures: {
    undefined: ok(undefined),
    '[1e5, 2e5, 4e5]': { v: () => [1e5, 2e5, 4e5] },
    'Float64Array [1e3, 1e6]': { v: () => Float64Array.from([1e3, 1e6]) },
    'Float64Array on a SharedArrayBuffer': {
      v: () => {
        const a = new Float64Array(new SharedArrayBuffer(24));
        a.set([1e4, 1e5, 1e6]);
        return a;
      },
    },
    'a subarray at offset 1': { v: () => Float64Array.from([0, 1e4, 1e5, 0]).subarray(1, 3) },
    '1e6 ascending entries': { v: () => Float64Array.from({ length: 1e6 }, (_, i) => 10 * (i + 1)) },
    '[1e-300, 1e308]': { v: () => [1e-300, 1e308] },
    '[5e-324]': { v: () => [5e-324] },
    'a Proxy of [1e5, 2e5]': { v: () => new Proxy([1e5, 2e5], {}) },
    '[]': { v: () => [], bad: true },
    '[3e5, 2e5] (descending)': { v: () => [3e5, 2e5], bad: true },
    '[1e5, 1e5] (repeated)': { v: () => [1e5, 1e5], bad: true },
    '[NaN]': { v: () => [Number.NaN], bad: true },
    '[-1e5]': { v: () => [-1e5], bad: true },
    '[0]': { v: () => [0], bad: true },
    '[Infinity]': { v: () => [Number.POSITIVE_INFINITY], bad: true },
    "['1e5']": { v: () => ['1e5'], bad: true },
    'Float32Array [1e5]': { v: () => Float32Array.from([1e5]), bad: true },
    'detached Float64Array': {
      v: () => detached(Float64Array.from([1e5])),
      bad: true,
    },
    'a DataView': { v: () => new DataView(new ArrayBuffer(8)), bad: true },
    '1e5 (a number)': { v: () => 1e5, bad: true },
    null: { v: () => null, bad: true },
  },
};
solverValues.drainage = capillary;
// invasionPercolation does not take `pressures`: the key is an error whatever its value
// (core's readOptions), named `options.pressures` — except undefined, which counts as absent.
solverValues.invasionPercolation = {
  ...capillary,
  pressures: Object.fromEntries(
    Object.entries(capillary.pressures).map(([k, e]) => [k, { v: e.v, bad: e.v() !== undefined }]),
  ),
};

/** Writes into the zero-copy arrays: `names` the array a solver's RangeError must name; `harmless`: no solver reads it. */
const garbage = {
  'throats.conns[0] = 1e9': { at: 'throats.conns', v: () => 1e9 },
  'throats.conns[0] = poreCount': { at: 'throats.conns', v: (n) => n.poreCount },
  'throats.conns[1] = -1': { at: 'throats.conns', i: 1, v: () => -1 },
  'throats.conns[1] = conns[0] (a loop)': { at: 'throats.conns', i: 1, v: (n) => n.throats.conns[0] },
  'throats.length[0] = NaN': { at: 'throats.length', v: () => Number.NaN },
  'throats.length[0] = -1': { at: 'throats.length', v: () => -1 },
  'throats.area[0] = Infinity': { at: 'throats.area', v: () => Number.POSITIVE_INFINITY },
  'throats.perimeter[0] = NaN': { at: 'throats.perimeter', v: () => Number.NaN },
  'throats.inscribedDiameter[0] = -Infinity': { at: 'throats.inscribedDiameter', v: () => Number.NEGATIVE_INFINITY },
  'pores.face[0] = 99': { at: 'pores.face', v: () => 99 },
  'pores.face[0] = -2': { at: 'pores.face', v: () => -2 },
  'pores.volume[0] = NaN': { at: 'pores.volume', v: () => Number.NaN },
  'pores.volume[0] = -1': { at: 'pores.volume', v: () => -1 },
  'pores.inscribedDiameter[0] = NaN': { at: 'pores.inscribedDiameter', v: () => Number.NaN },
  'pores.coordinates[0] = Infinity': { at: 'pores.coordinates', v: () => Number.POSITIVE_INFINITY },
  'pores.label[0] = -5': { at: 'pores.label', v: () => -5, harmless: true },
  // Read by the size-factor models (the default conductance): refused as every array they read.
  'pores.equivalentDiameter[0] = NaN': { at: 'pores.equivalentDiameter', v: () => Number.NaN },
  'pores.surfaceArea[0] = -1': { at: 'pores.surfaceArea', v: () => -1, harmless: true },
  'throats.conduitLengths[0] = NaN': { at: 'throats.conduitLengths', v: () => Number.NaN, harmless: true },
  'regions[0] = -1': { at: 'regions', v: () => -1, harmless: true },
};
const arrayAt = (net, at) => {
  const [a, b] = at.split('.');
  return b === undefined ? net[a] : net[a][b];
};

/** Copies `a` with NaN replaced by 0 (the documented NaN of excluded pores), and counts them. */
function documentedNaN(a) {
  let nan = 0;
  const copy = Float64Array.from(a, (x) => {
    if (Number.isNaN(x)) {
      nan++;
      return 0;
    }
    return x;
  });
  return { copy, nan };
}

/** A solver call whose documented NaN (excluded pores) is set aside for the NaN rule. */
function solve(net, member, options, raw) {
  const v = options === undefined ? net[member]() : net[member](options);
  raw.value = v;
  if (member === 'stokesFlow') return { ...v, pressure: documentedNaN(v.pressure).copy };
  if (member === 'diffusion') return { ...v, concentration: documentedNaN(v.concentration).copy };
  return v;
}

/** What identifies a solver's answer (deterministic: equal on a repeat). */
function answerOf(member, v) {
  if (member === 'stokesFlow') return [v.permeability, v.flowRate, hashArray(v.pressure)].join('|');
  if (member === 'diffusion') return [v.formationFactor, hashArray(v.concentration)].join('|');
  if (member === 'drainage')
    return [hashArray(v.pressure), hashArray(v.saturation), hashArray(v.poreInvaded)].join('|');
  return [hashArray(v.poreSequence), hashArray(v.throatSequence), hashArray(v.saturation)].join('|');
}

const close = (a, b, rel) => Math.abs(a - b) <= rel * Math.max(Math.abs(a), Math.abs(b));

function checkReport(p, s, tolerance) {
  for (const k of ['unknowns', 'iterations', 'clusters', 'excludedPores']) {
    if (!(Number.isInteger(s[k]) && s[k] >= 0)) p(`solve.${k} = ${s[k]}`);
  }
  if (!(s.residual >= 0 && Number.isFinite(s.residual))) p(`solve.residual = ${s.residual}`);
  if (tolerance !== undefined && s.tolerance !== tolerance) p(`solve.tolerance ${s.tolerance}, asked ${tolerance}`);
  if (s.converged !== s.residual <= s.tolerance) p(`solve.converged ${s.converged} with residual ${s.residual}`);
}

/** Net flow into each interior pore and out through the outlet face. */
function checkConservation(p, net, v, axis) {
  const { conns } = net.throats;
  const face = net.pores.face;
  const into = new Float64Array(net.poreCount);
  const through = new Float64Array(net.poreCount);
  for (let t = 0; t < net.throatCount; t++) {
    const q = v.throatFlow[t];
    into[conns[2 * t]] -= q;
    into[conns[2 * t + 1]] += q;
    through[conns[2 * t]] += Math.abs(q);
    through[conns[2 * t + 1]] += Math.abs(q);
  }
  let out = 0;
  for (let i = 0; i < net.poreCount; i++) {
    if (face[i] === -1 && Math.abs(into[i]) > 1e-6 * through[i] + 1e-300) {
      return p(`pore ${i}: net inflow ${into[i]} of ${through[i]} through it`);
    }
    if (face[i] === 2 * axis + 1) out += into[i];
  }
  if (!close(out, v.flowRate, 1e-6)) p(`flow out of the outlet face ${out}, into the inlet ${v.flowRate}`);
}

/** The invariants of one solver's answer on `net`. */
function checkAnswer(h, label, pnm, net, member, v, { axis, options, info, reference }) {
  const p = (m) => h.problem(`${label}: ${m}`);
  const N = net.poreCount;
  const M = net.throatCount;
  let interiorVolume = 0;
  for (let i = 0; i < N; i++) if (net.pores.face[i] === -1) interiorVolume += net.pores.volume[i];
  const connected = info.flows.includes('xyz'[axis]) && interiorVolume > 0;
  if (member === 'stokesFlow') {
    const tight = v.solve.converged && (options.tolerance ?? 1e-10) <= 1e-8;
    checkReport(p, v.solve, options.tolerance ?? 1e-10);
    if (!(v.permeability > 0 && Number.isFinite(v.permeability))) p(`permeability ${v.permeability}`);
    if (!close(v.millidarcy, v.permeability / pnm.MILLIDARCY, 1e-12)) p(`millidarcy ${v.millidarcy}`);
    const inlet = options.inletPressure ?? 101_326;
    const outlet = options.outletPressure ?? 101_325;
    if (!(Number.isFinite(v.flowRate) && v.flowRate !== 0 && Math.sign(v.flowRate) === Math.sign(inlet - outlet))) {
      p(`flowRate ${v.flowRate} for ${inlet} → ${outlet} Pa`);
    }
    const { nan } = documentedNaN(v.pressure);
    if (v.pressure.length !== N || nan !== v.solve.excludedPores) {
      p(`pressure of ${v.pressure.length} values with ${nan} NaN, ${v.solve.excludedPores} pores excluded`);
    }
    if (tight) {
      const lo = Math.min(inlet, outlet);
      const hi = Math.max(inlet, outlet);
      const slack = 1e-6 * (hi - lo) + 4 * Number.EPSILON * Math.max(Math.abs(lo), Math.abs(hi));
      const i = v.pressure.findIndex((x) => !Number.isNaN(x) && !(x >= lo - slack && x <= hi + slack));
      if (i >= 0) p(`pressure[${i}] = ${v.pressure[i]} outside [${lo}, ${hi}]`);
      checkConservation(p, net, v, axis);
    }
    if (v.throatFlow.length !== M || v.throatFlow.some((x) => !Number.isFinite(x))) p('throatFlow not finite');
    if (v.conductance.length !== M || v.conductance.some((x) => !(Number.isFinite(x) && x >= 0))) {
      p('conductance not finite and ≥ 0');
    }
    // Permeability does not depend on the viscosity or on the pressures.
    if (
      reference !== undefined &&
      tight &&
      reference.solve.converged &&
      !close(v.permeability, reference.permeability, 1e-6)
    ) {
      p(`permeability ${v.permeability}, ${reference.permeability} with the default viscosity and pressures`);
    }
  } else if (member === 'diffusion') {
    checkReport(p, v.solve, options.tolerance ?? 1e-10);
    const F = v.formationFactor;
    if (!(F >= 1 - 1e-9 && Number.isFinite(F))) p(`formationFactor ${F}`);
    if (!close(v.tortuosity, F * net.porosity, 1e-12)) p(`tortuosity ${v.tortuosity}, F·φ = ${F * net.porosity}`);
    if (!close(v.effectiveDiffusivity, 1 / F, 1e-9))
      p(`effectiveDiffusivity ${v.effectiveDiffusivity}, 1/F = ${1 / F}`);
    const { nan } = documentedNaN(v.concentration);
    if (v.concentration.length !== N || nan !== v.solve.excludedPores) {
      p(`concentration of ${v.concentration.length} values with ${nan} NaN, ${v.solve.excludedPores} excluded`);
    }
    if (v.solve.converged && (options.tolerance ?? 1e-10) <= 1e-8) {
      const i = v.concentration.findIndex((x) => !Number.isNaN(x) && !(x >= -1e-9 && x <= 1 + 1e-9));
      if (i >= 0) p(`concentration[${i}] = ${v.concentration[i]} outside [0, 1]`);
    }
  } else if (member === 'drainage') {
    const S = v.saturation;
    const P = v.pressure;
    if (P.length !== S.length) return p(`${P.length} pressures, ${S.length} saturations`);
    const given = options.pressures === undefined ? undefined : Array.from(options.pressures);
    if (given !== undefined && (P.length !== given.length || P.some((x, i) => x !== given[i]))) {
      p('the pressures applied are not the ones asked for');
    }
    for (let i = 0; i < P.length; i++) {
      if (!(P[i] > 0 && Number.isFinite(P[i]) && (i === 0 || P[i] > P[i - 1]))) return p(`pressure[${i}] = ${P[i]}`);
      if (!(S[i] >= 0 && S[i] <= 1 && (i === 0 || S[i] >= S[i - 1]))) return p(`saturation[${i}] = ${S[i]}`);
    }
    if (v.poreEntry.length !== N || v.throatEntry.length !== M) p('entry pressures of the wrong length');
    if (v.poreInvaded.length !== N || v.throatInvaded.length !== M) p('invasion pressures of the wrong length');
    const applied = new Set(P);
    const i = v.poreInvaded.findIndex((x) => !(x === Number.POSITIVE_INFINITY || applied.has(x)));
    if (i >= 0) p(`poreInvaded[${i}] = ${v.poreInvaded[i]}, not an applied pressure`);
    const j = v.throatInvaded.findIndex((x) => !(x === Number.POSITIVE_INFINITY || applied.has(x)));
    if (j >= 0) p(`throatInvaded[${j}] = ${v.throatInvaded[j]}, not an applied pressure`);
    const theta = options.contactAngle ?? 140;
    const sigma = options.surfaceTension ?? 0.48;
    const factor = -2 * sigma * Math.cos((theta * Math.PI) / 180);
    for (let q = 0; q < N; q++) {
      const e = v.poreEntry[q];
      if (Number.isNaN(e) || e < 0) return p(`poreEntry[${q}] = ${e}`);
      if (net.pores.face[q] === 2 * axis && P.length > 0 && v.poreInvaded[q] !== P[0]) {
        return p(`inlet pore ${q} filled at ${v.poreInvaded[q]}, not at the first pressure ${P[0]}`);
      }
      const d = net.pores.inscribedDiameter[q];
      const want = factor / (d / 2);
      if (net.pores.face[q] === -1 && d > 0 && Number.isFinite(want) && !close(e, want, 1e-9)) {
        return p(`poreEntry[${q}] = ${e}, Washburn gives ${want}`);
      }
    }
    // The curve is the invaded volume: saturation[k] = Σ volume of pores filled at ≤ pressure[k] / Σ volume.
    let total = 0;
    for (let q = 0; q < N; q++) if (net.pores.face[q] === -1) total += net.pores.volume[q];
    if (total > 0) {
      for (let k = 0; k < P.length; k++) {
        let filled = 0;
        for (let q = 0; q < N; q++)
          if (net.pores.face[q] === -1 && v.poreInvaded[q] <= P[k]) filled += net.pores.volume[q];
        if (Math.abs(S[k] - filled / total) > 1e-12)
          return p(`saturation[${k}] = ${S[k]}, the filled volume gives ${filled / total}`);
        if (k > 1000) break;
      }
    }
    if (connected && given === undefined && P.length > 0 && Math.abs(S[S.length - 1] - 1) > 1e-12) {
      p(`a connected network ends drainage at saturation ${S[S.length - 1]}`);
    }
  } else {
    const steps = v.pressure.length;
    if (!(steps >= 1 && v.saturation.length === steps))
      return p(`${steps} pressures, ${v.saturation.length} saturations`);
    if (v.pressure[0] !== 0 || v.saturation[0] !== 0) p('step 0 is not the inlet at pressure 0, saturation 0');
    if (v.poreSequence.length !== N || v.throatSequence.length !== M) return p('sequences of the wrong length');
    const seen = new Uint8Array(steps);
    for (let t = 0; t < M; t++) {
      const s = v.throatSequence[t];
      if (s === -1) continue;
      if (!(s >= 1 && s < steps) || seen[s]) return p(`throatSequence[${t}] = ${s}`);
      seen[s] = 1;
    }
    for (let s = 1; s < steps; s++) if (!seen[s]) return p(`no throat invaded at step ${s}`);
    for (let q = 0; q < N; q++) {
      const s = v.poreSequence[q];
      if ((s === 0) !== (net.pores.face[q] === 2 * axis))
        return p(`poreSequence[${q}] = ${s} (face ${net.pores.face[q]})`);
      if (!(s >= -1 && s < steps)) return p(`poreSequence[${q}] = ${s}`);
    }
    for (let t = 0; t < M; t++) {
      const s = v.throatSequence[t];
      for (const q of [net.throats.conns[2 * t], net.throats.conns[2 * t + 1]]) {
        if (v.poreSequence[q] > 0 && v.poreSequence[q] === s) seen[s] = 2;
      }
    }
    for (let q = 0; q < N; q++) {
      const s = v.poreSequence[q];
      if (s > 0 && seen[s] !== 2) return p(`pore ${q} invaded at step ${s} by no throat of its own`);
    }
    for (let s = 0; s < steps; s++) {
      if (!(Number.isFinite(v.pressure[s]) && v.pressure[s] >= 0)) return p(`pressure[${s}] = ${v.pressure[s]}`);
      const S = v.saturation[s];
      if (!(S >= 0 && S <= 1 && (s === 0 || S >= v.saturation[s - 1]))) return p(`saturation[${s}] = ${S}`);
    }
    if (connected && (Math.abs(v.saturation[steps - 1] - 1) > 1e-12 || steps !== M + 1)) {
      p(
        `a connected network ends invasion at saturation ${v.saturation[steps - 1]} after ${steps - 1} of ${M} throats`,
      );
    }
  }
}

function solverPlan(member) {
  return (r) => {
    const state = r.pick(['fresh', 'fresh', 'fresh', 'fresh', 'fresh', 'garbage', 'garbage', 'released', 'finalized']);
    const values = solverValues[member];
    const field = r.pick(Object.keys(values));
    return {
      network:
        state === 'garbage'
          ? r.pick(['lattice 2 cells, boundaries x', 'tube r 3, boundaries x', 'tubes r 2, 3, 4.5, boundaries x'])
          : r.pick(Object.keys(networks)),
      state,
      garbage: state === 'garbage' ? r.pick(Object.keys(garbage)) : undefined,
      field,
      value: state === 'garbage' ? 'undefined' : pickValue(r, values[field]),
      axis: r.chance(0.7) ? "'x'" : r.pick(["'y'", "'z'"]),
      options: state === 'garbage' ? 'object' : r.pick(containers),
    };
  };
}

function solverExec(member) {
  return async (plan, h, { pnm }) => {
    const info = networks[plan.network];
    const net = pnm.extract(info.image(), { boundaries: info.boundaries });
    // No options object at all: every option at its default.
    const none = plan.options === 'none';
    const entry = none ? ok(undefined) : (solverValues[member][plan.field][plan.value] ?? ok(undefined));
    const axisName = none ? 'x' : plan.axis.slice(1, 2);
    const options = plan.field === 'axis' || none ? {} : { axis: axisName };
    if (none) {
      // nothing
    } else if (plan.field === 'pressures' && member === 'stokesFlow') Object.assign(options, entry.v());
    else if (plan.value !== 'undefined') options[plan.field] = entry.v();
    const axisValue = plan.field === 'axis' && !none ? entry.v() : axisName;
    const axis = axisValue === undefined ? 0 : typeof axisValue === 'number' ? axisValue : 'xyz'.indexOf(axisValue);
    const needs = member === 'stokesFlow' || member === 'diffusion' ? info.flows : info.inlets;
    const refused = !entry.bad && axis >= 0 && axis <= 2 && !needs.includes('xyz'[axis]);
    const digest = () => digestNetwork(net);
    const label = `${member}({ ${plan.field}: ${plan.value}, axis: ${plan.axis} }) on ${plan.network} (${plan.state}${plan.garbage ? `: ${plan.garbage}` : ''}, ${plan.options})`;
    const raw = {};

    if (plan.state === 'released' || plan.state === 'finalized') {
      if (plan.state === 'released') net.release();
      else pnm.finalize();
      const argument = none ? undefined : contain(options, plan.options, 'axis');
      const throws = plan.options === 'getter throwing';
      const end = await h.call(label, () => solve(net, member, argument, raw), {
        mustThrow: `a ${plan.state} network must throw`,
        allow: (e) => throws && isHostileGetter(e),
      });
      // The options are read first: a bad one is named before the network is looked at.
      const early = entry.bad || badContainers.has(plan.options) || throws;
      if (!end.ok && !early && !released(pnm, end.error)) {
        h.problem(`${label}: threw ${end.error?.constructor?.name}, not ReleasedError`);
      }
      if (!net.released) h.problem(`${label}: released is false`);
      return;
    }

    if (plan.state === 'garbage') {
      const w = garbage[plan.garbage];
      const first = await h.call(`${member}() before the write`, () => solve(net, member, { axis: 'x' }, raw), {
        digest,
      });
      if (!first.ok) return h.problem(`${label}: the network before any write was refused`);
      const before = answerOf(member, raw.value);
      const array = arrayAt(net, w.at);
      const i = w.i ?? 0;
      const saved = array[i];
      array[i] = w.v(net);
      const written = await h.call(`${member}() after ${plan.garbage}`, () => solve(net, member, { axis: 'x' }, raw), {
        digest,
        mustThrow: w.harmless ? undefined : `${plan.garbage} must give a RangeError naming network.${w.at}`,
      });
      if (written.ok && w.harmless && answerOf(member, raw.value) !== before) {
        h.problem(`${label}: an array no solver reads changed the answer`);
      }
      if (!written.ok) {
        if (w.harmless) h.problem(`${label}: ${plan.garbage} (an array no solver reads) was refused`);
        else if (!(written.error instanceof RangeError))
          h.problem(`${label}: threw ${written.error?.constructor?.name}`);
        else checkNamed(h, label, written.error, [`network.${w.at}`]);
      }
      array[i] = saved;
      const again = await h.call(`${member}() after restoring it`, () => solve(net, member, { axis: 'x' }, raw), {
        digest,
      });
      if (!again.ok) h.problem(`${label}: refused after the value was restored`);
      else if (answerOf(member, raw.value) !== before)
        h.problem(`${label}: a different answer after the value was restored`);
      checkRelease(h, label, net);
      return;
    }

    const argument = none ? undefined : contain(options, plan.options, 'axis');
    const bad = entry.bad || badContainers.has(plan.options);
    const throws = plan.options === 'getter throwing';
    const before = digest();
    const result = await h.call(label, () => solve(net, member, argument, raw), {
      digest,
      bad: (bad || refused) && !throws,
      allow: (e) => throws && isHostileGetter(e),
    });
    if (!result.ok) {
      const e = result.error;
      if (isHostileGetter(e)) return;
      if (bad) {
        const roots = [plan.field === 'pressures' && member === 'stokesFlow' ? 'inletPressure' : plan.field, 'options'];
        if (plan.field === 'pressures' && member === 'stokesFlow') roots.push('outletPressure');
        checkNamed(h, label, e, roots);
      } else if (refused) {
        if (!(e instanceof RangeError)) h.problem(`${label}: refused with ${e?.constructor?.name}, not a RangeError`);
        checkNamed(h, label, e, ['axis']);
      } else {
        h.problem(`${label}: a valid call was refused (${e?.constructor?.name}: ${e?.message})`);
      }
    } else {
      if (digest() !== before) h.problem(`${label}: the call changed the network`);
      let reference;
      if (member === 'stokesFlow' && ['viscosity', 'pressures'].includes(plan.field)) {
        const rest = Object.fromEntries(
          Object.entries(options).filter(([k]) => !['viscosity', 'inletPressure', 'outletPressure'].includes(k)),
        );
        try {
          reference = net.stokesFlow(rest);
        } catch (e) {
          h.problem(`${label}: the same call with the default viscosity and pressures threw ${e?.message}`);
        }
      }
      checkAnswer(h, label, pnm, net, member, raw.value, { axis, options, info, reference });
      // A repeat gives the same answer.
      const firstAnswer = answerOf(member, raw.value);
      const again = await h.call(`${member}() again`, () => solve(net, member, options, raw), { digest });
      if (again.ok && answerOf(member, raw.value) !== firstAnswer)
        h.problem(`${label}: a repeat gives a different answer`);
    }
    checkRelease(h, label, net);
  };
}

// ---- pnm.writers -------------------------------------------------------------------------------

/** A NetworkArrays with copies of a network's arrays. */
/** `object` with `key` a getter that throws (the hostile getter of a hand-built network). */
function withThrowingGetter(object, key) {
  return Object.defineProperty(object, key, {
    get: () => {
      throw hostileGetter();
    },
  });
}

function copyOf(net) {
  const pores = Object.fromEntries(POROUS_KEYS.map((k) => [k, net.pores[k].slice()]));
  const throats = Object.fromEntries(THROAT_KEYS.map((k) => [k, net.throats[k].slice()]));
  return { shape: [...net.shape], voxelSize: net.voxelSize, porosity: net.porosity, pores, throats };
}

const emptyNetwork = () => ({
  shape: [4, 4, 4],
  voxelSize: h6,
  porosity: 0.5,
  pores: Object.fromEntries(
    POROUS_KEYS.map((k) => [
      k,
      k === 'label' ? new Int32Array(0) : k === 'face' ? new Int8Array(0) : new Float64Array(0),
    ]),
  ),
  throats: Object.fromEntries(THROAT_KEYS.map((k) => [k, k === 'conns' ? new Int32Array(0) : new Float64Array(0)])),
});

const edit = (fn) => (net) => {
  const c = copyOf(net);
  fn(c);
  return c;
};

/** NetworkArrays for the functions; `bad`: the property a documented error must name. */
const handBuilt = {
  'copied arrays': { make: edit(() => {}) },
  'the live Network': { make: (net) => net },
  'a released Network': {
    make: (net) => {
      net.release();
      return net;
    },
    bad: 'network',
    releasedError: true,
  },
  'empty (0 pores, 0 throats)': { make: emptyNetwork, empty: true },
  'volume in a SharedArrayBuffer': {
    make: edit((c) => {
      const a = new Float64Array(new SharedArrayBuffer(8 * c.pores.volume.length));
      a.set(c.pores.volume);
      c.pores.volume = a;
    }),
  },
  'coordinates a subarray at offset 3': {
    make: edit((c) => {
      const a = new Float64Array(c.pores.coordinates.length + 6);
      a.set(c.pores.coordinates, 3);
      c.pores.coordinates = a.subarray(3, 3 + c.pores.coordinates.length);
    }),
  },
  'pores a Proxy': { make: edit((c) => (c.pores = new Proxy(c.pores, {}))) },
  'pores a getter that throws': {
    make: (net) => withThrowingGetter(copyOf(net), 'pores'),
    throws: true,
  },
  'face one short': { make: edit((c) => (c.pores.face = c.pores.face.subarray(1))), bad: 'network.pores.face' },
  'coordinates of 3N - 1': {
    make: edit((c) => {
      c.pores.coordinates = c.pores.coordinates.subarray(1);
    }),
    bad: 'network.pores.coordinates',
  },
  'volume NaN': { make: edit((c) => (c.pores.volume[0] = Number.NaN)), bad: 'network.pores.volume' },
  'volume -1': { make: edit((c) => (c.pores.volume[0] = -1)), bad: 'network.pores.volume' },
  'inscribedDiameter Infinity': {
    make: edit((c) => {
      c.pores.inscribedDiameter[0] = Number.POSITIVE_INFINITY;
    }),
    bad: 'network.pores.inscribedDiameter',
  },
  'coordinates -Infinity': {
    make: edit((c) => {
      c.pores.coordinates[0] = Number.NEGATIVE_INFINITY;
    }),
    bad: 'network.pores.coordinates',
  },
  'face 7': { make: edit((c) => (c.pores.face[0] = 7)), bad: 'network.pores.face' },
  'conns of odd length': {
    make: edit((c) => {
      c.throats.conns = c.throats.conns.subarray(1);
    }),
    bad: 'network.throats',
  },
  'conns out of range': { make: edit((c) => (c.throats.conns[0] = 1e9)), bad: 'network.throats.conns' },
  'conns a loop': { make: edit((c) => (c.throats.conns[1] = c.throats.conns[0])), bad: 'network.throats.conns' },
  'conns a Float64Array': {
    make: edit((c) => {
      c.throats.conns = Float64Array.from(c.throats.conns);
    }),
    bad: 'network.throats.conns',
  },
  'label a Float64Array': {
    make: edit((c) => (c.pores.label = Float64Array.from(c.pores.label))),
    bad: 'network.pores.label',
  },
  'volume detached': {
    make: edit((c) => structuredClone(c.pores.volume.buffer, { transfer: [c.pores.volume.buffer] })),
    bad: 'network.pores.volume',
  },
  'volume a plain array': {
    make: edit((c) => (c.pores.volume = Array.from(c.pores.volume))),
    bad: 'network.pores.volume',
  },
  'volume a Proxy of a Float64Array': {
    make: edit((c) => {
      c.pores.volume = new Proxy(c.pores.volume, {});
    }),
    bad: 'network.pores.volume',
  },
  'throats.length one short': {
    make: edit((c) => {
      c.throats.length = c.throats.length.subarray(1);
    }),
    bad: 'network.throats',
  },
  'conduitLengths NaN': {
    make: edit((c) => {
      c.throats.conduitLengths[0] = Number.NaN;
    }),
    bad: 'network.throats.conduitLengths',
  },
  'containers frozen': {
    make: edit((c) => {
      Object.freeze(c.pores);
      Object.freeze(c.throats);
      Object.freeze(c);
    }),
  },
  'an extra key in pores': { make: edit((c) => (c.pores.extra = new Float64Array(3))) },
  'conns a Uint32Array': {
    make: edit((c) => (c.throats.conns = Uint32Array.from(c.throats.conns))),
    bad: 'network.throats.conns',
  },
  'face a Uint8Array': { make: edit((c) => (c.pores.face = Uint8Array.from(c.pores.face))), bad: 'network.pores.face' },
  'coordinates a Float32Array': {
    make: edit((c) => (c.pores.coordinates = Float32Array.from(c.pores.coordinates))),
    bad: 'network.pores.coordinates',
  },
  'shape a getter that throws': {
    make: (net) => withThrowingGetter(copyOf(net), 'shape'),
    throws: true,
  },
  'shape a Float64Array': { make: edit((c) => (c.shape = Float64Array.from(c.shape))), bad: 'network.shape' },
  'shape [2**53, 1, 1]': { make: edit((c) => (c.shape = [2 ** 53, 1, 1])), bad: 'network.shape' },
  'voxelSize Infinity': { make: edit((c) => (c.voxelSize = Number.POSITIVE_INFINITY)), bad: 'network.voxelSize' },
  'porosity a string': { make: edit((c) => (c.porosity = '0.5')), bad: 'network.porosity' },
  'shape [0, 1, 1]': { make: edit((c) => (c.shape = [0, 1, 1])), bad: 'network.shape' },
  'shape of 2': { make: edit((c) => (c.shape = [4, 4])), bad: 'network.shape' },
  'voxelSize NaN': { make: edit((c) => (c.voxelSize = Number.NaN)), bad: 'network.voxelSize' },
  'voxelSize 0': { make: edit((c) => (c.voxelSize = 0)), bad: 'network.voxelSize' },
  'porosity 1.5': { make: edit((c) => (c.porosity = 1.5)), bad: 'network.porosity' },
  'porosity NaN': { make: edit((c) => (c.porosity = Number.NaN)), bad: 'network.porosity' },
  null: { make: () => null, bad: 'network' },
  'an array': { make: () => [], bad: 'network' },
  'pores missing': {
    make: edit((c) => {
      c.pores = undefined;
    }),
    bad: 'network.pores',
  },
  'throats a number': { make: edit((c) => (c.throats = 5)), bad: 'network.throats' },
};

const binValues = {
  undefined: ok(undefined),
  20: ok(20),
  1: ok(1),
  10000: ok(10_000),
  0: no(0),
  10001: no(10_001),
  1.5: no(1.5),
  NaN: no(Number.NaN),
  "'20'": no('20'),
  null: no(null),
  'options null': no(null),
  'options a number': no(5),
};

const made = (path) => {
  mkdirSync(path);
  return path;
};
const file = (path) => {
  writeFileSync(path, 'x');
  return path;
};

/** Directories for writeStatoil; `fs`: the file system refuses it (a Node error is the end). */
const dirs = {
  'the temp dir': { v: (tmp) => tmp },
  'a fresh subdir': { v: (tmp) => made(join(tmp, 'sub')) },
  "''": { v: () => '', bad: 'dir' },
  5: { v: () => 5, bad: 'dir' },
  null: { v: () => null, bad: 'dir' },
  undefined: { v: () => undefined, bad: 'dir' },
  '/nonexistent/dir': { v: () => '/nonexistent/pnm-hostile/dir', bad: 'dir' },
  'a file': { v: (tmp) => file(join(tmp, 'file')), bad: 'dir' },
  'a path with NUL': { v: (tmp) => `${tmp}\0x`, bad: 'dir' },
};
const prefixes = {
  "'net'": { v: () => 'net' },
  "'..'": { v: () => '..' },
  "'.'": { v: () => '.' },
  "'a b c'": { v: () => 'a b c' },
  "'ünïcødé'": { v: () => 'ünïcødé' },
  "''": { v: () => '', bad: 'prefix' },
  "'a/b'": { v: () => 'a/b', bad: 'prefix' },
  "'a\\\\b'": { v: () => 'a\\b', bad: 'prefix' },
  "'a\\0b'": { v: () => 'a\0b', bad: 'prefix' },
  5: { v: () => 5, bad: 'prefix' },
  undefined: { v: () => undefined, bad: 'prefix' },
  '300 characters': { v: () => 'p'.repeat(300), fs: true },
};
const vtpPaths = {
  "'net.vtp'": { v: (tmp) => join(tmp, 'net.vtp') },
  'a directory': { v: (tmp) => made(join(tmp, 'adir')), fs: true },
  '/nonexistent/dir/net.vtp': { v: () => '/nonexistent/pnm-hostile/net.vtp', fs: true },
  "a file's child": { v: (tmp) => join(file(join(tmp, 'file')), 'net.vtp'), fs: true },
  '300 characters': { v: (tmp) => join(tmp, 'v'.repeat(300)), fs: true },
  "''": { v: () => '', bad: 'path' },
  5: { v: () => 5, bad: 'path' },
  undefined: { v: () => undefined, bad: 'path' },
  'a path with NUL': { v: (tmp) => join(tmp, 'a\0.vtp'), bad: 'path' },
};

const members = [
  'writeStatoil',
  'writeVtp',
  'toJSON',
  'statistics',
  'networkStatistics',
  'networkToJSON',
  'writeStatoil()',
];

/** A network of each kind the writers get. */
const writerNetworks = {
  'lattice 2 cells, boundaries x': networks['lattice 2 cells, boundaries x'],
  'tube r 3, boundaries true': networks['tube r 3, boundaries true'],
  'lattice 2 cells, no boundaries': networks['lattice 2 cells, no boundaries'],
};

function checkStatoil(h, label, dir, prefix, arrays) {
  const read = (kind) =>
    readFileSync(join(dir, `${prefix}_${kind}.dat`), 'utf8')
      .trimEnd()
      .split('\n');
  try {
    const node1 = read('node1');
    const node2 = read('node2');
    const link1 = read('link1');
    const link2 = read('link2');
    const interior = Array.from(arrays.pores.face).filter((f) => f === -1).length;
    const np = Number(node1[0].split(' ')[0]);
    const nt = Number(link1[0]);
    if (np !== interior) h.problem(`${label}: node1 says ${np} pores, the network has ${interior} interior pores`);
    if (node1.length !== np + 1 || (np > 0 && node2.length !== np))
      h.problem(`${label}: node files of ${node1.length}/${node2.length} lines for ${np} pores`);
    if (link1.length !== nt + 1 || (nt > 0 && link2.length !== nt))
      h.problem(`${label}: link files of ${link1.length}/${link2.length} lines for ${nt} links`);
    if (/NaN|Infinity|undefined/.test([node1, node2, link1, link2].flat().join('\n')))
      h.problem(`${label}: a non-number in the files`);
  } catch (e) {
    h.problem(`${label}: the Statoil files cannot be read back: ${e?.message}`);
  }
}

function checkJSON(h, label, json, arrays) {
  const N = arrays.pores.volume.length;
  const M = arrays.throats.conns.length / 2;
  if (Object.keys(json).length !== 23) h.problem(`${label}: ${Object.keys(json).length} keys`);
  for (const [k, a] of Object.entries(json)) {
    if (a.length !== (k.startsWith('pore.') ? N : M)) h.problem(`${label}: ${k} has ${a.length} values`);
  }
  const text = JSON.stringify(json);
  if (/null/.test(text)) h.problem(`${label}: JSON.stringify writes null (a non-finite number)`);
  if (json['pore.internal'].filter(Boolean).length !== Array.from(arrays.pores.face).filter((f) => f === -1).length) {
    h.problem(`${label}: pore.internal does not match face`);
  }
}

/** A statistics result with its documented NaN (no values) set aside, and the invariants checked. */
function statisticsChecked(h, label, s, arrays, bins) {
  const N = arrays.pores.volume.length;
  const M = arrays.throats.conns.length / 2;
  const face = Array.from(arrays.pores.face);
  const interior = face.filter((f) => f === -1).length;
  const p = (m) => h.problem(`${label}: ${m}`);
  if (s.poreCount !== N || s.throatCount !== M || s.boundaryPoreCount !== N - interior) {
    p(`counts ${s.poreCount}/${s.throatCount}/${s.boundaryPoreCount}`);
  }
  const hist = (name, hg, n) => {
    if (hg.edges.length !== bins + 1 || hg.counts.length !== bins)
      return p(`${name}: ${hg.edges.length} edges, ${hg.counts.length} counts`);
    if (hg.counts.reduce((a, b) => a + b, 0) !== n)
      p(`${name}: counts sum to ${hg.counts.reduce((a, b) => a + b, 0)}, not ${n}`);
    for (let i = 1; i < hg.edges.length; i++)
      if (!(hg.edges[i] >= hg.edges[i - 1])) return p(`${name}: edges decrease at ${i}`);
    if (
      n > 0 &&
      !(
        hg.min <= hg.median &&
        hg.median <= hg.max &&
        hg.min <= hg.mean * (1 + 1e-12) &&
        hg.mean <= hg.max * (1 + 1e-12)
      )
    ) {
      p(`${name}: min ${hg.min}, median ${hg.median}, mean ${hg.mean}, max ${hg.max}`);
    }
    if (n === 0 && ![hg.mean, hg.median, hg.min, hg.max].every(Number.isNaN))
      p(`${name}: no values, yet a mean ${hg.mean}`);
  };
  hist('poreDiameter', s.poreDiameter, interior);
  hist('throatDiameter', s.throatDiameter, M);
  const c = s.coordination;
  if (c.histogram.reduce((a, b) => a + b, 0) !== interior)
    p(`coordination histogram sums to ${c.histogram.reduce((a, b) => a + b, 0)}`);
  let volume = 0;
  for (let i = 0; i < N; i++) if (face[i] === -1) volume += arrays.pores.volume[i];
  if (!close(s.poreVolumeTotal, volume, 1e-12) && !(volume === 0 && s.poreVolumeTotal === 0))
    p(`poreVolumeTotal ${s.poreVolumeTotal}, ${volume}`);
  if (s.porosity !== arrays.porosity) p(`porosity ${s.porosity}`);
  // The documented NaN (no values) is no NaN for the recorder.
  const mark = (hg) =>
    hg.counts.every((x) => x === 0) ? { ...hg, mean: 'none', median: 'none', min: 'none', max: 'none' } : hg;
  return {
    ...s,
    coordination: interior === 0 ? { ...c, mean: 'none', min: 'none', max: 'none' } : c,
    poreDiameter: mark(s.poreDiameter),
    throatDiameter: mark(s.throatDiameter),
  };
}

function writersPlan(r, member = r.member(members)) {
  const fn = ['networkStatistics', 'networkToJSON', 'writeStatoil()'].includes(member);
  const plan = {
    member,
    network: r.pick(Object.keys(writerNetworks)),
    source: fn ? pickValue(r, handBuilt) : r.chance(0.85) ? 'live' : 'released',
  };
  if (member.startsWith('writeStatoil')) {
    const hostileDir = r.chance(0.5);
    plan.dir = hostileDir ? r.pick(Object.keys(dirs)) : 'the temp dir';
    plan.prefix = hostileDir ? "'net'" : r.pick(Object.keys(prefixes));
  }
  if (member === 'writeVtp') plan.path = r.pick(Object.keys(vtpPaths));
  if (member === 'statistics' || member === 'networkStatistics') plan.bins = r.pick(Object.keys(binValues));
  return plan;
}

async function writersExec(plan, h, { pnm }) {
  const info = writerNetworks[plan.network];
  const net = pnm.extract(info.image(), { boundaries: info.boundaries });
  const tmp = mkdtempSync(join(tmpdir(), 'pnm-hostile-'));
  try {
    const source = handBuilt[{ live: 'the live Network', released: 'a released Network' }[plan.source] ?? plan.source];
    const arrays = source.make(net);
    const known = plan.source === 'live' || (!source.bad && !source.throws && plan.source !== 'a released Network');
    const reference = known ? copyOf(net) : undefined;
    const target = plan.source === 'live' || plan.source === 'released' ? net : arrays;
    let bad = source.bad !== undefined ? [source.bad] : [];
    let fs = false;
    let fn;
    let label;
    let resolved = {};
    if (plan.member.startsWith('writeStatoil')) {
      const d = dirs[plan.dir];
      const pr = prefixes[plan.prefix];
      const dir = d.v(tmp);
      const prefix = pr.v();
      if (d.bad) bad.push('dir');
      if (pr.bad) bad.push('prefix');
      fs = Boolean(pr.fs);
      label = `${plan.member}(${plan.source}, ${plan.dir}, ${plan.prefix}) of ${plan.network}`;
      fn =
        plan.member === 'writeStatoil'
          ? () => target.writeStatoil(dir, prefix)
          : () => pnm.writeStatoil(target, dir, prefix);
      resolved = { dir, prefix };
    } else if (plan.member === 'writeVtp') {
      const e = vtpPaths[plan.path];
      const path = e.v(tmp);
      if (e.bad) bad.push('path');
      fs = Boolean(e.fs);
      label = `writeVtp(${plan.path}) on ${plan.source} ${plan.network}`;
      fn = () => target.writeVtp(path);
      resolved = { path };
    } else if (plan.member === 'toJSON' || plan.member === 'networkToJSON') {
      label = `${plan.member}(${plan.source}) of ${plan.network}`;
      fn = plan.member === 'toJSON' ? () => target.toJSON() : () => pnm.networkToJSON(target);
    } else {
      const b = binValues[plan.bins];
      const options =
        plan.bins === 'options null'
          ? null
          : plan.bins === 'options a number'
            ? 5
            : plan.bins === 'undefined'
              ? undefined
              : { bins: b.v() };
      if (b.bad) bad.push(plan.bins.startsWith('options') ? 'options' : 'bins');
      label = `${plan.member}(${plan.source}, { bins: ${plan.bins} }) of ${plan.network}`;
      const bins = typeof options?.bins === 'number' ? options.bins : 20;
      const call =
        plan.member === 'statistics' ? () => target.statistics(options) : () => pnm.networkStatistics(target, options);
      fn = () => {
        const s = call();
        return known ? statisticsChecked(h, label, s, source.empty ? emptyNetwork() : reference, bins) : s;
      };
    }
    // The order the readers go: the network first, then the paths and options.
    if (source.bad !== undefined) bad = [source.bad];
    const throws = Boolean(source.throws);
    const liveDigest = net.released ? undefined : () => digestNetwork(net);
    const before = liveDigest?.();
    const result = await h.call(label, fn, {
      digest: liveDigest,
      bad: bad.length > 0 && !throws,
      mustThrow: fs && bad.length === 0 ? 'the file system refuses this path' : undefined,
      allow: (e) => (throws && isHostileGetter(e)) || (fs && fsError(e)),
    });
    if (liveDigest !== undefined && !net.released && liveDigest() !== before)
      h.problem(`${label}: the writer changed the network`);
    const left = readdirSync(tmp, { recursive: true }).map(String);
    if (left.some((f) => f.endsWith('.tmp'))) h.problem(`${label}: a temp file was left: ${left.join(', ')}`);
    if (!result.ok) {
      const e = result.error;
      if (source.releasedError) {
        if (!released(pnm, e))
          h.problem(`${label}: a released network threw ${e?.constructor?.name}, not ReleasedError`);
      } else if (bad.length > 0 && !isHostileGetter(e)) checkNamed(h, label, e, bad);
      else if (!fs && !throws) h.problem(`${label}: refused valid arguments (${e?.constructor?.name}: ${e?.message})`);
      return;
    }
    if (!known) return;
    const arraysOf = source.empty ? emptyNetwork() : reference;
    if (plan.member.startsWith('writeStatoil')) checkStatoil(h, label, resolved.dir, resolved.prefix, arraysOf);
    else if (plan.member === 'writeVtp') {
      const text = readFileSync(resolved.path, 'latin1');
      const N = arraysOf.pores.volume.length;
      const M = arraysOf.throats.conns.length / 2;
      if (!text.includes(`NumberOfPoints="${N}"`) || !text.includes(`NumberOfLines="${M}"`)) {
        h.problem(`${label}: the file does not hold ${N} points and ${M} lines`);
      }
    } else if (plan.member === 'toJSON' || plan.member === 'networkToJSON') checkJSON(h, label, result.value, arraysOf);
  } finally {
    if (!net.released) net.release();
    rmSync(tmp, { recursive: true, force: true });
  }
}

// ---- pnm.Network members -----------------------------------------------------------------------

/** The getters and methods of Network's prototype that no solver target judges. */
const networkMembers = [
  'id',
  'released',
  'poreCount',
  'throatCount',
  'shape',
  'voxelSize',
  'porosity',
  'timings',
  'peaks',
  'pores',
  'throats',
  'regions',
  'statistics',
  'writeStatoil',
  'writeVtp',
  'toJSON',
  'release',
];
const solverMembers = ['stokesFlow', 'diffusion', 'drainage', 'invasionPercolation'];
/** Answer once the network is released or its module finalized. */
const answerAfterRelease = new Set(['id', 'released', 'release']);
/** The image's metadata: a released network may still give it (as other packages' settings getters do) or throw ReleasedError. */
const metadataMembers = new Set(['shape', 'voxelSize', 'porosity', 'timings', 'peaks']);
/** Read every array through readNetwork (so garbage in them is a RangeError naming it). */
const checkingReaders = new Set(['statistics', 'writeStatoil', 'toJSON', 'writeVtp']);
/** Arrays the readers take as they are (any Int32 label; `regions` is not read). */
const uncheckedArrays = new Set(['pores.label', 'regions']);

const memberNetworks = {
  'lattice 2 cells, boundaries x': networks['lattice 2 cells, boundaries x'],
  'tube r 3, boundaries true': networks['tube r 3, boundaries true'],
  'lattice 2 cells, no boundaries': networks['lattice 2 cells, no boundaries'],
  'two blobs, boundaries x': networks['two blobs, boundaries x'],
  'tube r 3 at h 1e-12, boundaries x': networks['tube r 3 at h 1e-12, boundaries x'],
  'lattice 2 cells at h 1e3, boundaries x': networks['lattice 2 cells at h 1e3, boundaries x'],
  'one pore voxel in 3³, boundaries true': { image: () => images['one pore voxel in 3³'].make(), boundaries: true },
  'line 30×1×1, boundaries x': { image: () => images['line 30×1×1, last voxel solid'].make(), boundaries: ['x'] },
};

/** Options of statistics() / networkStatistics(); `bad`: the argument named; `bins`: the bins asked. */
const statisticsOptions = {
  'no argument': { args: () => [], bins: 20 },
  undefined: { args: () => [undefined], bins: 20 },
  '{}': { args: () => [{}], bins: 20 },
  '{ bins: 1 }': { args: () => [{ bins: 1 }], bins: 1 },
  '{ bins: 7 }': { args: () => [{ bins: 7 }], bins: 7 },
  '{ bins: 10000 }': { args: () => [{ bins: 10_000 }], bins: 10_000 },
  '{ bins: 7, unknown: 1 }': { args: () => [{ bins: 7, unknown: 1 }], bad: 'options.unknown' },
  'a Proxy of { bins: 3 }': { args: () => [new Proxy({ bins: 3 }, {})], bins: 3 },
  'a frozen { bins: 4 }': { args: () => [Object.freeze({ bins: 4 })], bins: 4 },
  'bins 6 on the prototype': { args: () => [Object.create({ bins: 6 })], bins: 6 },
  'Object.create(null), bins 5': { args: () => [Object.assign(Object.create(null), { bins: 5 })], bins: 5 },
  '{ bins: 0 }': { args: () => [{ bins: 0 }], bad: 'bins' },
  '{ bins: 10001 }': { args: () => [{ bins: 10_001 }], bad: 'bins' },
  '{ bins: 2.5 }': { args: () => [{ bins: 2.5 }], bad: 'bins' },
  '{ bins: -1 }': { args: () => [{ bins: -1 }], bad: 'bins' },
  '{ bins: NaN }': { args: () => [{ bins: Number.NaN }], bad: 'bins' },
  '{ bins: Infinity }': { args: () => [{ bins: Number.POSITIVE_INFINITY }], bad: 'bins' },
  '{ bins: 2**53 }': { args: () => [{ bins: 2 ** 53 }], bad: 'bins' },
  "{ bins: '20' }": { args: () => [{ bins: '20' }], bad: 'bins' },
  '{ bins: null }': { args: () => [{ bins: null }], bad: 'bins' },
  '{ bins: 20n }': { args: () => [{ bins: 20n }], bad: 'bins' },
  null: { args: () => [null], bad: 'options' },
  5: { args: () => [5], bad: 'options' },
  "'bins'": { args: () => ['bins'], bad: 'options' },
  '[{ bins: 3 }]': { args: () => [[{ bins: 3 }]], bad: 'options' },
  'a Uint8Array': { args: () => [new Uint8Array(4)], bad: 'options' },
  'bins a getter that throws': {
    args: () => [
      Object.defineProperty({}, 'bins', {
        get: () => {
          throw hostileGetter();
        },
      }),
    ],
    throws: true,
  },
};
const toJSONCalls = {
  'toJSON()': (net) => net.toJSON(),
  "toJSON('')": (net) => net.toJSON(''),
  'JSON.stringify': (net) => JSON.parse(JSON.stringify(net)),
};
const releaseCalls = {
  'release()': (net) => net.release(),
  'release(1, 2)': (net) => net.release(1, 2),
  '[Symbol.dispose]()': (net) => net[Symbol.dispose](),
  'release() twice': (net) => {
    net.release();
    net.release();
  },
};

/** Writes into the objects a network hands out (not into its typed arrays' elements). */
const handedOutWrites = {
  'shape[0] = 0': (net) => {
    net.shape[0] = 0;
  },
  'shape.length = 0': (net) => {
    net.shape.length = 0;
  },
  'timings.watershed = -1': (net) => {
    net.timings.watershed = -1;
  },
  'peaks.found = 1e9': (net) => {
    net.peaks.found = 1e9;
  },
  'pores.volume replaced by ones': (net) => {
    net.pores.volume = new Float64Array(net.pores.volume.length).fill(1);
  },
  'throats.conns deleted': (net) => {
    delete net.throats.conns;
  },
  'pores.face redefined as a throwing getter': (net) => {
    Object.defineProperty(net.pores, 'face', {
      get: () => {
        throw hostileGetter();
      },
    });
  },
  "pores' prototype set to a Proxy": (net) => {
    Object.setPrototypeOf(net.pores, new Proxy({}, {}));
  },
  'net.poreCount = 5': (net) => {
    net.poreCount = 5;
  },
  'net.pores = {}': (net) => {
    net.pores = {};
  },
};

/** `this` values other than a live network for a member called through its descriptor. */
const receivers = {
  'a plain object': () => ({}),
  null: () => null,
  undefined: () => undefined,
  'a Proxy of the network': (net) => new Proxy(net, {}),
  'Network.prototype': (net) => Object.getPrototypeOf(net),
  'a copy of its arrays': (net) => copyOf(net),
};

/** What a released network's member gives: `answer`, `either` (its value or ReleasedError), `released` (ReleasedError). */
const afterReleaseKind = (m) => (answerAfterRelease.has(m) ? 'answer' : metadataMembers.has(m) ? 'either' : 'released');

/** A member of `net` called through the prototype's descriptor with `receiver` as `this`. */
function viaDescriptor(net, m, receiver, args) {
  const d = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(net), m);
  return d.get !== undefined ? d.get.call(receiver) : d.value.apply(receiver, args);
}

/** The image's metadata as the getters give it. */
const metaDigest = (net) =>
  JSON.stringify([net.shape, net.voxelSize, net.porosity, net.timings, net.peaks, net.released]);
const fullDigest = (net) => (net.released ? 'released' : `${digestNetwork(net)}#${metaDigest(net)}`);

/** Everything the members must give on a live network, read before the case touches it. */
function referenceOf(pnm, net, im) {
  let poreVoxels = 0;
  for (const v of im.solid) if (v === 0) poreVoxels++;
  return {
    id: net.id,
    shape: Array.from(im.shape),
    voxelSize: im.voxelSize,
    porosity: poreVoxels / im.solid.length,
    voxels: im.solid.length,
    timings: JSON.stringify(net.timings),
    peaks: JSON.stringify(net.peaks),
    digest: digestNetwork(net),
    meta: metaDigest(net),
    regions: hashArray(net.regions),
    arrays: copyOf(net),
    json: JSON.stringify(pnm.networkToJSON(copyOf(net))),
  };
}

/** statistics' answer with its documented NaN (no values) set aside for the NaN rule, and the raw answer (`raw`, not enumerable). */
const withRaw = (checked, raw) => Object.defineProperty(checked, 'raw', { value: raw });

const statisticsText = (s) => JSON.stringify(s, (_, v) => (typeof v === 'number' && Number.isNaN(v) ? 'NaN' : v));

/** The member's call and what its answer must be; `tmp` holds the files it writes. */
function memberSpec(plan, tmp) {
  const m = plan.member;
  if (m === 'statistics') {
    const o = statisticsOptions[plan.arg];
    const args = o.args();
    return {
      call: (net) => net.statistics(...args),
      bad: o.bad ? [o.bad] : [],
      throws: Boolean(o.throws),
      bins: o.bins,
      shown: `statistics(${plan.arg})`,
    };
  }
  if (m === 'writeStatoil') {
    const d = dirs[plan.dir];
    const p = prefixes[plan.prefix];
    const dir = d.v(tmp);
    const prefix = p.v();
    const bad = [];
    if (d.bad) bad.push('dir');
    if (p.bad) bad.push('prefix');
    return {
      call: (net) => net.writeStatoil(dir, prefix),
      bad,
      fs: Boolean(p.fs),
      dir,
      prefix,
      shown: `writeStatoil(${plan.dir}, ${plan.prefix})`,
    };
  }
  if (m === 'writeVtp') {
    const e = vtpPaths[plan.path];
    const path = e.v(tmp);
    return {
      call: (net) => net.writeVtp(path),
      bad: e.bad ? ['path'] : [],
      fs: Boolean(e.fs),
      path,
      shown: `writeVtp(${plan.path})`,
    };
  }
  if (m === 'toJSON') return { call: toJSONCalls[plan.arg], bad: [], shown: plan.arg };
  if (m === 'release') return { call: releaseCalls[plan.arg], bad: [], shown: plan.arg };
  return { call: (net) => net[m], bad: [], shown: m };
}

/** Checks a member's answer on a live network against the reference. */
async function checkMemberAnswer(h, label, pnm, net, m, v, ref, spec) {
  const p = (msg) => h.problem(`${label}: ${msg}`);
  const N = ref.arrays.pores.volume.length;
  const M = ref.arrays.throats.conns.length / 2;
  const same = (a, b, what) => {
    if (a !== b) p(`${what} ${String(a).slice(0, 80)}, expected ${String(b).slice(0, 80)}`);
  };
  if (m === 'id') {
    if (!(Number.isSafeInteger(v) && v >= 1)) p(`id ${v}`);
    same(v, ref.id, 'id');
  } else if (m === 'released') same(v, false, 'released');
  else if (m === 'poreCount') same(v, N, 'poreCount');
  else if (m === 'throatCount') same(v, M, 'throatCount');
  else if (m === 'shape') {
    if (!Array.isArray(v) || v.length !== 3 || v.some((x, a) => x !== ref.shape[a]))
      p(`shape ${v}, the image's ${ref.shape}`);
  } else if (m === 'voxelSize') same(v, ref.voxelSize, 'voxelSize');
  else if (m === 'porosity') same(v, ref.porosity, 'porosity');
  else if (m === 'timings') {
    const keys = ['distanceTransform', 'smoothing', 'peaks', 'watershed', 'network'];
    if (Object.keys(v).join() !== keys.join()) p(`timings keys ${Object.keys(v)}`);
    for (const k of keys) if (!(Number.isFinite(v[k]) && v[k] >= 0)) p(`timings.${k} = ${v[k]}`);
    same(JSON.stringify(v), ref.timings, 'timings');
  } else if (m === 'peaks') {
    const { found, saddles, nearby } = v;
    if (![found, saddles, nearby].every((x) => Number.isSafeInteger(x) && x >= 0) || saddles + nearby > found) {
      p(`peaks found ${found}, saddles ${saddles}, nearby ${nearby}`);
    }
    same(JSON.stringify(v), ref.peaks, 'peaks');
  } else if (m === 'pores' || m === 'throats') {
    const keys = m === 'pores' ? POROUS_KEYS : THROAT_KEYS;
    for (const k of keys) {
      const want = ref.arrays[m][k];
      if (!(v[k] instanceof want.constructor))
        p(`${m}.${k} is a ${v[k]?.constructor?.name}, not a ${want.constructor.name}`);
      else same(hashArray(v[k]), hashArray(want), `${m}.${k}`);
    }
  } else if (m === 'regions') {
    if (!(v instanceof Int32Array)) p(`regions is a ${v?.constructor?.name}`);
    else if (v.length !== ref.voxels) p(`regions of ${v.length} values, ${ref.voxels} voxels`);
    same(hashArray(v), ref.regions, 'regions');
  } else if (m === 'statistics') {
    // The same as networkStatistics() of a copy of the arrays.
    const want = statisticsText(pnm.networkStatistics(ref.arrays, spec.bins === 20 ? undefined : { bins: spec.bins }));
    same(statisticsText(v.raw), want, 'statistics');
  } else if (m === 'writeStatoil') {
    checkStatoil(h, label, spec.dir, spec.prefix, ref.arrays);
    // The same files as writeStatoil() of a copy of the arrays.
    const other = mkdtempSync(join(tmpdir(), 'pnm-hostile-ref-'));
    try {
      await pnm.writeStatoil(ref.arrays, other, 'ref');
      for (const kind of ['node1', 'node2', 'link1', 'link2']) {
        const a = readFileSync(join(spec.dir, `${spec.prefix}_${kind}.dat`), 'utf8');
        const b = readFileSync(join(other, `ref_${kind}.dat`), 'utf8');
        if (a !== b) p(`${kind}.dat differs from writeStatoil() of a copy of the arrays`);
      }
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  } else if (m === 'writeVtp') {
    const text = readFileSync(spec.path, 'latin1');
    if (!text.includes(`NumberOfPoints="${N}"`) || !text.includes(`NumberOfLines="${M}"`)) {
      p(`the file does not hold ${N} points and ${M} lines`);
    }
  } else if (m === 'toJSON') {
    checkJSON(h, label, v, ref.arrays);
    same(JSON.stringify(v), ref.json, 'toJSON');
  } else if (m === 'release') {
    if (!net.released) p('released is false after release()');
  }
}

function membersPlan(r) {
  const member = r.member(networkMembers);
  const state = r.pick([
    'live',
    'live',
    'live',
    'garbage',
    'garbage',
    'released',
    'disposed',
    'finalized',
    'written',
    'written',
    'receiver',
  ]);
  const plan = { member, state, network: r.pick(Object.keys(memberNetworks)) };
  const hostile = state === 'live' || r.chance(0.3);
  if (member === 'statistics') plan.arg = hostile ? pickValue(r, statisticsOptions) : '{ bins: 7 }';
  if (member === 'writeStatoil') {
    const hostileDir = hostile && r.chance(0.5);
    plan.dir = hostileDir ? r.pick(Object.keys(dirs)) : 'the temp dir';
    plan.prefix = hostile && !hostileDir ? r.pick(Object.keys(prefixes)) : "'net'";
  }
  if (member === 'writeVtp') plan.path = hostile ? r.pick(Object.keys(vtpPaths)) : "'net.vtp'";
  if (member === 'toJSON') plan.arg = r.pick(Object.keys(toJSONCalls));
  if (member === 'release') plan.arg = r.pick(Object.keys(releaseCalls));
  if (state === 'garbage') {
    plan.garbage = r.pick(Object.keys(garbage));
    // The network before the write: one with throats, so that every array has an element 0.
    plan.network = r.pick([
      'lattice 2 cells, boundaries x',
      'tube r 3, boundaries true',
      'lattice 2 cells, no boundaries',
      'lattice 2 cells at h 1e3, boundaries x',
    ]);
  }
  if (state === 'written') plan.write = r.pick(Object.keys(handedOutWrites));
  if (state === 'receiver') plan.receiver = r.pick(Object.keys(receivers));
  return plan;
}

/** Ends a member call on a released network as `kind` (afterReleaseKind) says. */
function checkAfterRelease(h, label, pnm, m, end, ref) {
  const kind = afterReleaseKind(m);
  if (end.ok) {
    if (kind === 'released') return h.problem(`${label}: answered on a released network, not ReleasedError`);
    if (m === 'id' && end.value !== ref.id) h.problem(`${label}: id ${end.value}, it was ${ref.id}`);
    if (m === 'released' && end.value !== true) h.problem(`${label}: released is ${end.value}`);
    if (metadataMembers.has(m)) {
      const was = { shape: JSON.stringify(ref.shape), voxelSize: ref.voxelSize, porosity: ref.porosity };
      const before = was[m] ?? ref[m];
      const now = typeof end.value === 'object' ? JSON.stringify(end.value) : end.value;
      if (now !== before) h.problem(`${label}: ${m} changed with the release (${now} vs ${before})`);
    }
    return;
  }
  if (kind === 'answer') return h.problem(`${label}: threw ${end.error?.constructor?.name} on a released network`);
  if (!released(pnm, end.error)) {
    h.problem(`${label}: threw ${end.error?.constructor?.name} (${end.error?.message}), not ReleasedError`);
  }
}

/** Every member (and solver) on a released network: ReleasedError, or the answer a released network keeps. */
async function sweepReleased(h, pnm, net, state, tmp, ref) {
  const defaults = {
    statistics: (n) => n.statistics(),
    writeStatoil: (n) => n.writeStatoil(tmp, 'after'),
    writeVtp: (n) => n.writeVtp(join(tmp, 'after.vtp')),
    toJSON: (n) => n.toJSON(),
    release: (n) => n.release(),
  };
  for (const m of [...networkMembers, ...solverMembers]) {
    const call = defaults[m] ?? (solverMembers.includes(m) ? (n) => n[m]() : (n) => n[m]);
    const label = `${m} of a ${state} network`;
    const end = await h.call(label, () => call(net), {
      mustThrow: afterReleaseKind(m) === 'released' ? 'a released network must throw ReleasedError' : undefined,
    });
    if (!end.ok || afterReleaseKind(m) !== 'released') checkAfterRelease(h, label, pnm, m, end, ref);
  }
  const left = readdirSync(tmp).filter((f) => f.startsWith('after'));
  if (left.length > 0) h.problem(`a ${state} network wrote ${left.join(', ')}`);
}

async function membersExec(plan, h, { pnm }) {
  const info = memberNetworks[plan.network];
  const im = info.image();
  const net = pnm.extract(im, { boundaries: info.boundaries });
  const tmp = mkdtempSync(join(tmpdir(), 'pnm-hostile-'));
  try {
    const ref = referenceOf(pnm, net, im);
    const m = plan.member;
    const spec = memberSpec(plan, tmp);
    const label = `${spec.shown} on ${plan.network} (${plan.state}${plan.garbage ? `: ${plan.garbage}` : ''}${plan.write ? `: ${plan.write}` : ''}${plan.receiver ? `: this = ${plan.receiver}` : ''})`;
    const digest = () => fullDigest(net);
    const call = (n) => {
      const v = spec.call(n);
      return m === 'statistics' ? withRaw(statisticsChecked(h, label, v, ref.arrays, spec.bins), v) : v;
    };

    if (plan.state === 'released' || plan.state === 'disposed' || plan.state === 'finalized') {
      const taken = [net.pores.volume, net.throats.conns, net.regions];
      if (plan.state === 'released') await h.call('release()', () => net.release());
      else if (plan.state === 'disposed') await h.call('[Symbol.dispose]()', () => net[Symbol.dispose]());
      else await h.call('finalize()', () => pnm.finalize());
      if (!net.released) h.problem(`${label}: released is false`);
      if (taken.some((a) => a.length !== 0)) h.problem(`${label}: arrays taken before are not detached`);
      // The network is read before the arguments: ReleasedError whatever they are.
      const end = await h.call(label, () => spec.call(net), {
        mustThrow: afterReleaseKind(m) === 'released' ? 'a released network must throw ReleasedError' : undefined,
      });
      if (!end.ok || afterReleaseKind(m) !== 'released') checkAfterRelease(h, label, pnm, m, end, ref);
      await sweepReleased(h, pnm, net, plan.state, tmp, ref);
      return;
    }

    if (plan.state === 'receiver') {
      const receiver = receivers[plan.receiver](net);
      const args = m === 'writeStatoil' ? [tmp, 'other'] : m === 'writeVtp' ? [join(tmp, 'other.vtp')] : [];
      // A valid NetworkArrays as `this`: the methods that only read NetworkArrays may answer.
      const mayAnswer = plan.receiver === 'a copy of its arrays' && checkingReaders.has(m);
      const end = await h.call(
        label,
        () => {
          const v = viaDescriptor(net, m, receiver, args);
          return m === 'statistics' ? withRaw(statisticsChecked(h, label, v, ref.arrays, 20), v) : v;
        },
        {
          digest,
          mustThrow: mayAnswer ? undefined : 'a member called on something other than a Network must throw a TypeError',
        },
      );
      if (!end.ok && !(end.error instanceof TypeError)) h.problem(`${label}: threw ${end.error?.constructor?.name}`);
      if (end.ok && mayAnswer && m === 'statistics') {
        const want = statisticsText(pnm.networkStatistics(ref.arrays));
        if (statisticsText(end.value.raw) !== want) h.problem(`${label}: not the statistics of the arrays`);
      }
      if (end.ok && mayAnswer && m === 'toJSON' && JSON.stringify(end.value) !== ref.json) {
        h.problem(`${label}: not the JSON of the arrays`);
      }
      if (net.released) h.problem(`${label}: the network was released`);
      if (fullDigest(net) !== `${ref.digest}#${ref.meta}`) h.problem(`${label}: the network changed`);
      return;
    }

    if (plan.state === 'written') {
      const read = () => {
        try {
          return digest();
        } catch (e) {
          return `unreadable (${e?.message})`;
        }
      };
      const before = read();
      const wrote = await h.call(`write: ${plan.write}`, () => handedOutWrites[plan.write](net), {
        digest,
        allow: isHostileGetter,
      });
      if (wrote.ok && read() !== before) {
        h.problem(`${plan.write}: writing into an object the network handed out changed the network`);
      }
      if (wrote.ok && plan.write.startsWith('net.')) h.problem(`${plan.write}: accepted (a getter without a setter)`);
      if (read() !== before) return;
      // The member as on a network nobody wrote to.
    }

    let restore;
    let w;
    if (plan.state === 'garbage') {
      w = garbage[plan.garbage];
      const array = arrayAt(net, w.at);
      const i = w.i ?? 0;
      const saved = array[i];
      const coerced = new array.constructor(1);
      coerced[0] = w.v(net);
      array[i] = coerced[0];
      restore = () => {
        array[i] = saved;
      };
      // The readers read the network before their arguments: the garbage is named first.
      const refused = checkingReaders.has(m) && !uncheckedArrays.has(w.at);
      const taken = [net.pores.volume, net.regions];
      const read = {};
      const end = await h.call(
        label,
        () => {
          // The getters hand the written value out as it is: keep it from the NaN rule.
          const v = spec.call(net);
          if (v instanceof Promise) return v;
          read.v = v;
          return typeof v;
        },
        {
          digest,
          mustThrow: refused ? `${plan.garbage} must give a RangeError naming network.${w.at}` : undefined,
          allow: (e) => !refused && ((spec.throws && isHostileGetter(e)) || (spec.fs && fsError(e))),
        },
      );
      if (!end.ok) {
        const e = end.error;
        if (refused) {
          if (!(e instanceof RangeError)) h.problem(`${label}: threw ${e?.constructor?.name}, not a RangeError`);
          else checkNamed(h, label, e, [`network.${w.at}`]);
        } else if (spec.bad.length > 0 && !isHostileGetter(e)) checkNamed(h, label, e, spec.bad);
        else if (!spec.throws && !spec.fs)
          h.problem(`${label}: ${plan.garbage} (an array it does not check) was refused`);
      } else if (m === 'pores' || m === 'throats' || m === 'regions') {
        const a = m === 'regions' ? read.v : read.v[w.at.split('.')[1]];
        if (w.at.startsWith(m) && !Object.is(a[i], coerced[0])) {
          h.problem(`${label}: the zero-copy array reads ${a[i]}, ${coerced[0]} was written`);
        }
      }
      restore();
      if (m === 'release') {
        if (!net.released) h.problem(`${label}: released is false after release()`);
        if (taken.some((a) => a.length !== 0)) h.problem(`${label}: arrays taken before release() not detached`);
        return;
      }
      const again = await h.call(`${spec.shown} after restoring it`, () => call(net), {
        digest,
        allow: (e) => (spec.throws && isHostileGetter(e)) || (spec.fs && fsError(e)),
      });
      if (again.ok) await checkMemberAnswer(h, `${label}, restored`, pnm, net, m, again.value, ref, spec);
      else if (spec.bad.length === 0 && !spec.throws && !spec.fs)
        h.problem(`${label}: refused after the value was restored`);
      if (digestNetwork(net) !== ref.digest) h.problem(`${label}: the network differs after the value was restored`);
      checkRelease(h, label, net);
      return;
    }

    // live (or written into without effect)
    const taken = [net.pores.volume, net.regions];
    const end = await h.call(label, () => call(net), {
      digest: m === 'release' ? undefined : digest,
      bad: spec.bad.length > 0 && !spec.throws,
      mustThrow: spec.fs && spec.bad.length === 0 ? 'the file system refuses this path' : undefined,
      allow: (e) => (spec.throws && isHostileGetter(e)) || (spec.fs && fsError(e)),
    });
    const left = readdirSync(tmp, { recursive: true }).map(String);
    if (left.some((f) => f.endsWith('.tmp'))) h.problem(`${label}: a temp file was left: ${left.join(', ')}`);
    if (!end.ok) {
      const e = end.error;
      if (spec.bad.length > 0 && !isHostileGetter(e)) checkNamed(h, label, e, spec.bad);
      else if (!spec.fs && !spec.throws)
        h.problem(`${label}: refused valid arguments (${e?.constructor?.name}: ${e?.message})`);
    } else await checkMemberAnswer(h, label, pnm, net, m, end.value, ref, spec);
    if (end.ok && (m === 'pores' || m === 'throats' || m === 'regions'))
      repeatedReads(h, label, () => (m === 'regions' ? net.regions : net[m].inscribedDiameter), 'pnm');
    if (m === 'release') {
      if (taken.some((a) => a.length !== 0)) h.problem(`${label}: arrays taken before release() not detached`);
      return;
    }
    if (digestNetwork(net) !== ref.digest) h.problem(`${label}: the network changed`);
    checkRelease(h, label, net);
  } finally {
    if (!net.released) net.release();
    rmSync(tmp, { recursive: true, force: true });
  }
}

// ---- pnm.functions: networkStatistics, networkToJSON, writeStatoil, fromPoreSpy, new Network ----------

const functionMembers = ['networkStatistics', 'networkToJSON', 'writeStatoil', 'fromPoreSpy', 'new Network'];

/** `fromPoreSpy` images of 60 voxels (True / non-zero = pore); `bad`: the argument named. */
const poreSpyIms = {
  booleans: { make: (r) => Array.from({ length: 60 }, () => r.chance(0.6)) },
  'numbers 0 and 1': { make: (r) => Array.from({ length: 60 }, () => (r.chance(0.6) ? 1 : 0)) },
  'numbers -0, 0.5, -1, 255, ±Infinity, 5e-324': {
    make: (r) => Array.from({ length: 60 }, () => r.pick([0, -0, 0.5, -1, 255, Infinity, -Infinity, 5e-324])),
  },
  'booleans and numbers mixed': { make: (r) => Array.from({ length: 60 }, () => r.pick([true, false, 0, 1])) },
  'a Uint8Array': { make: (r) => Uint8Array.from({ length: 60 }, () => (r.chance(0.6) ? 1 : 0)) },
  'a Node Buffer': { make: (r) => Buffer.from(Array.from({ length: 60 }, () => (r.chance(0.6) ? 255 : 0))) },
  'an Int8Array of -1 and 0': { make: (r) => Int8Array.from({ length: 60 }, () => (r.chance(0.6) ? -1 : 0)) },
  'a Float64Array with -0 and 5e-324': {
    make: (r) => Float64Array.from({ length: 60 }, () => r.pick([-0, 0, 5e-324, 1])),
  },
  'a Float32Array': { make: (r) => Float32Array.from({ length: 60 }, () => r.pick([0, 0.5, -2])) },
  'an Int32Array': { make: (r) => Int32Array.from({ length: 60 }, () => r.pick([0, 2 ** 31 - 1, -(2 ** 31)])) },
  'a Uint8ClampedArray': { make: (r) => Uint8ClampedArray.from({ length: 60 }, () => (r.chance(0.6) ? 1 : 0)) },
  'a Uint8Array on a SharedArrayBuffer': {
    make: (r) => {
      const a = new Uint8Array(new SharedArrayBuffer(60));
      for (let i = 0; i < 60; i++) a[i] = r.chance(0.6) ? 1 : 0;
      return a;
    },
  },
  'a subarray at offset 7': {
    make: (r) => Uint8Array.from({ length: 70 }, () => (r.chance(0.6) ? 1 : 0)).subarray(7, 67),
  },
  'a Proxy of a boolean array': {
    make: (r) =>
      new Proxy(
        Array.from({ length: 60 }, () => r.chance(0.6)),
        {},
      ),
  },
  'a frozen array': { make: (r) => Object.freeze(Array.from({ length: 60 }, () => r.chance(0.6))) },
  'all pore': { make: () => new Array(60).fill(true) },
  'all solid': { make: () => new Uint8Array(60) },
  'a BigInt64Array': { make: () => new BigInt64Array(60), bad: 'im' },
  'a DataView': { make: () => new DataView(new ArrayBuffer(60)), bad: 'im' },
  'a detached Uint8Array': {
    make: () => detached(new Uint8Array(60)),
    bad: 'im',
  },
  "a string of 60 '1'": { make: () => '1'.repeat(60), bad: 'im' },
  null: { make: () => null, bad: 'im' },
  undefined: { make: () => undefined, bad: 'im' },
  'an array-like object': {
    make: () => Object.assign(Object.fromEntries(Array.from({ length: 60 }, (_, i) => [i, 1])), { length: 60 }),
    bad: 'im',
  },
  'a PoreSpy dict { im, shape, voxelSize }': {
    make: () => ({ im: new Array(60).fill(true), shape: [3, 4, 5], voxelSize: 1e-6 }),
    bad: 'im',
  },
  'a Set': { make: () => new Set([true, false]), bad: 'im' },
  'a Proxy of a Uint8Array': { make: () => new Proxy(new Uint8Array(60), {}), bad: 'im' },
  'an array with NaN': { make: () => Object.assign(new Array(60).fill(1), { 17: Number.NaN }), bad: 'im' },
  'a Float64Array with NaN': { make: () => Object.assign(new Float64Array(60), { 59: Number.NaN }), bad: 'im' },
  "an array with '1'": { make: () => Object.assign(new Array(60).fill(true), { 3: '1' }), bad: 'im' },
  'an array with null': { make: () => Object.assign(new Array(60).fill(true), { 0: null }), bad: 'im' },
  'an array with 1n': { make: () => Object.assign(new Array(60).fill(0), { 30: 1n }), bad: 'im' },
  'an array with an object': { make: () => Object.assign(new Array(60).fill(0), { 30: {} }), bad: 'im' },
  'an array with a hole': {
    make: () => {
      const a = new Array(60).fill(true);
      delete a[12];
      return a;
    },
    bad: 'im',
  },
  '59 values': { make: () => new Array(59).fill(true), bad: 'shape' },
  '61 values': { make: () => new Uint8Array(61), bad: 'shape' },
  'nested arrays [3][4][5]': {
    make: () => Array.from({ length: 3 }, () => Array.from({ length: 4 }, () => new Array(5).fill(true))),
    bad: 'shape',
  },
  'an element getter that throws': {
    make: () =>
      Object.defineProperty(new Array(60).fill(true), 9, {
        get: () => {
          throw hostileGetter();
        },
      }),
    throws: true,
  },
  'a Proxy whose get throws': {
    make: () =>
      new Proxy(new Array(60).fill(true), {
        get: () => {
          throw hostileGetter();
        },
      }),
    throws: true,
  },
};
/** Shapes for 60 voxels; `bad`: a documented error naming `shape`. */
const poreSpyShapes = {
  '[3, 4, 5]': { v: () => [3, 4, 5] },
  '[5, 4, 3]': { v: () => [5, 4, 3] },
  '[60, 1, 1]': { v: () => [60, 1, 1] },
  '[1, 1, 60]': { v: () => [1, 1, 60] },
  'an Int32Array [3, 4, 5]': { v: () => Int32Array.of(3, 4, 5) },
  'a Float64Array [3, 4, 5]': { v: () => Float64Array.of(3, 4, 5) },
  'a Proxy of [3, 4, 5]': { v: () => new Proxy([3, 4, 5], {}) },
  'a frozen [3, 4, 5]': { v: () => Object.freeze([3, 4, 5]) },
  '[3, 4]': { v: () => [3, 4], bad: true },
  '[3, 4, 5, 1]': { v: () => [3, 4, 5, 1], bad: true },
  '[0, 4, 5]': { v: () => [0, 4, 5], bad: true },
  '[-3, 4, 5]': { v: () => [-3, 4, 5], bad: true },
  '[3.5, 4, 5]': { v: () => [3.5, 4, 5], bad: true },
  '[NaN, 4, 5]': { v: () => [Number.NaN, 4, 5], bad: true },
  '[Infinity, 4, 5]': { v: () => [Number.POSITIVE_INFINITY, 4, 5], bad: true },
  "['3', 4, 5]": { v: () => ['3', 4, 5], bad: true },
  '[3n, 4, 5]': { v: () => [3n, 4, 5], bad: true },
  '[3, 4, 6] (72 voxels)': { v: () => [3, 4, 6], bad: true },
  '[2**30, 2**30, 2**30]': { v: () => [2 ** 30, 2 ** 30, 2 ** 30], bad: true },
  '[2**53, 1, 1]': { v: () => [2 ** 53, 1, 1], bad: true },
  '[1e308, 1, 1]': { v: () => [1e308, 1, 1], bad: true },
  null: { v: () => null, bad: true },
  60: { v: () => 60, bad: true },
  "'3,4,5'": { v: () => '3,4,5', bad: true },
  'a DataView': { v: () => new DataView(new ArrayBuffer(12)), bad: true },
  '{ 0: 3, 1: 4, 2: 5, length: 3 }': { v: () => ({ 0: 3, 1: 4, 2: 5, length: 3 }), bad: true },
  'a BigInt64Array [3n, 4n, 5n]': { v: () => BigInt64Array.of(3n, 4n, 5n), bad: true },
  'an element getter that throws': {
    v: () =>
      Object.defineProperty([3, 4, 5], 1, {
        get: () => {
          throw hostileGetter();
        },
      }),
    throws: true,
  },
};
const poreSpySizes = {
  '1e-6': ok(1e-6),
  '5.345e-6': ok(5.345e-6),
  '5e-324': ok(5e-324),
  '1e308': ok(1e308),
  NaN: no(Number.NaN),
  0: no(0),
  '-0': no(-0),
  '-1e-6': no(-1e-6),
  Infinity: no(Number.POSITIVE_INFINITY),
  "'1e-6'": no('1e-6'),
  undefined: no(undefined),
  null: no(null),
  '1n': no(1n),
  '{ valueOf: () => 1e-6 }': no({ valueOf: () => 1e-6 }),
};

function poreSpyPlan(r) {
  const which = r.pick(['none', 'im', 'im', 'shape', 'voxelSize']);
  const valid = (values, test) => Object.keys(values).filter((k) => test(values[k]));
  return {
    im: r.pick(which === 'im' ? Object.keys(poreSpyIms) : valid(poreSpyIms, (e) => !e.bad && !e.throws)),
    shape: r.pick(which === 'shape' ? Object.keys(poreSpyShapes) : valid(poreSpyShapes, (e) => !e.bad && !e.throws)),
    voxelSize: which === 'voxelSize' ? r.pick(Object.keys(poreSpySizes)) : r.pick(['1e-6', '5.345e-6']),
  };
}

async function poreSpyExec(plan, h, { pnm, r }) {
  const ie = poreSpyIms[plan.im];
  const se = poreSpyShapes[plan.shape];
  const ve = poreSpySizes[plan.voxelSize];
  const im = ie.make(r);
  const shape = se.v();
  const voxelSize = ve.v();
  const throws = Boolean(ie.throws || se.throws);
  // The arguments are read in order: shape, voxelSize, then im.
  const names = [];
  if (se.bad) names.push('shape');
  if (ve.bad) names.push('voxelSize');
  if (ie.bad) names.push(ie.bad);
  const bad = names.length > 0;
  const expected = bad || throws ? undefined : Array.from(im, (x) => ((typeof x === 'boolean' ? !x : x === 0) ? 1 : 0));
  const digestOf = (v) => {
    if (ArrayBuffer.isView(v) && !(v instanceof DataView)) return hashArray(v);
    if (Array.isArray(v)) return JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? `${x}n` : x));
    return typeof v;
  };
  const digest = throws ? undefined : () => `${digestOf(im)}|${digestOf(shape)}`;
  const label = `fromPoreSpy(${plan.im}, ${plan.shape}, ${plan.voxelSize})`;
  const end = await h.call(label, () => pnm.fromPoreSpy(im, shape, voxelSize), {
    digest,
    bad: bad && !throws,
    allow: (e) => throws && isHostileGetter(e),
  });
  if (!end.ok) {
    if (bad && !isHostileGetter(end.error)) checkNamed(h, label, end.error, names);
    else if (!bad && !throws) h.problem(`${label}: refused valid arguments (${end.error?.message})`);
    return;
  }
  if (expected === undefined) return;
  const v = end.value;
  const p = (m) => h.problem(`${label}: ${m}`);
  if (Object.keys(v).sort().join() !== 'shape,solid,voxelSize') return p(`keys ${Object.keys(v)}`);
  if (!(v.solid instanceof Uint8Array) || v.solid.length !== 60)
    return p(`solid is ${v.solid?.constructor?.name}(${v.solid?.length})`);
  if (ArrayBuffer.isView(im) && v.solid.buffer === im.buffer) p('solid shares the memory of im');
  const i = expected.findIndex((x, k) => v.solid[k] !== x);
  if (i >= 0) p(`solid[${i}] = ${v.solid[i]} for im[${i}] = ${String(im[i])}`);
  const given = Array.from(shape);
  if (!Array.isArray(v.shape) || v.shape === shape || v.shape.join() !== given.join())
    p(`shape ${v.shape}, given ${given}`);
  if (v.voxelSize !== voxelSize) p(`voxelSize ${v.voxelSize}, given ${voxelSize}`);
  // What fromPoreSpy gives, extract takes.
  const solid = expected.filter((x) => x === 1).length;
  if (solid > 0 && solid < 60 && voxelSize >= 1e-12 && voxelSize <= 1e3) {
    try {
      const net = pnm.extract(v);
      checkExtracted(h, `extract(${label})`, net, v, [false, false, false, false, false, false]);
      net.release();
    } catch (e) {
      p(`extract() of the image refused it: ${e?.message}`);
    }
  }
}

/** What `new Network(...)` is handed: `net` a live network, `other` a second one. */
const networkArguments = {
  'no argument': () => [],
  undefined: () => [undefined],
  null: () => [null],
  0: () => [0],
  "'network'": () => ['network'],
  'a Symbol': () => [Symbol('network')],
  '1n': () => [1n],
  '{}': () => [{}],
  '[]': () => [[]],
  'a function': () => [() => {}],
  'a live Network': (net) => [net],
  'a released Network': (_net, other) => {
    other.release();
    return [other];
  },
  'two live Networks': (net, other) => [net, other],
  'a look-alike of the native network': () => [lookAlike()],
  'Network.prototype': (net) => [Object.getPrototypeOf(net)],
  'Object.create(Network.prototype)': (net) => [Object.create(Object.getPrototypeOf(net))],
  'a Proxy whose traps throw': () => [throwingProxy()],
  'a Proxy of a live Network': (net) => [new Proxy(net, {})],
  'a copy of its arrays': (net) => [copyOf(net)],
};
const constructions = {
  'new Network(...)': (N, args) => new N(...args),
  'Reflect.construct(Network, ...)': (N, args) => Reflect.construct(N, args),
  'a subclass': (N, args) => {
    class Sub extends N {}
    return new Sub(...args);
  },
  'a subclass calling super(...)': (N, args) => {
    class Sub extends N {
      constructor(...a) {
        super(...a);
        this.extra = 1;
      }
    }
    return new Sub(...args);
  },
};

/** Every trap throws. */
function throwingProxy() {
  const trap = () => {
    throw hostileGetter();
  };
  const traps = [
    'get',
    'set',
    'has',
    'getPrototypeOf',
    'setPrototypeOf',
    'ownKeys',
    'getOwnPropertyDescriptor',
    'defineProperty',
    'deleteProperty',
    'isExtensible',
    'preventExtensions',
  ];
  return new Proxy({}, Object.fromEntries(traps.map((t) => [t, trap])));
}

/** An object with the native network's shape. */
function lookAlike() {
  let gone = false;
  const arrays = copyOf({
    shape: [2, 2, 2],
    voxelSize: h6,
    porosity: 0.5,
    pores: emptyNetwork().pores,
    throats: emptyNetwork().throats,
  });
  return {
    id: 1,
    get released() {
      return gone;
    },
    release() {
      gone = true;
    },
    counts: [0, 0],
    arrays: () => ({ pores: arrays.pores, throats: arrays.throats }),
    regions: () => new Int32Array(8),
    info: {
      shape: [2, 2, 2],
      voxelSize: h6,
      porosity: 0.5,
      bytes: 0,
      timings: { distanceTransform: 0, smoothing: 0, peaks: 0, watershed: 0, network: 0 },
      peaks: { found: 0, saddles: 0, nearby: 0 },
    },
    stokesFlow: () => ({ permeability: 1 }),
  };
}

async function constructExec(plan, h, { pnm }) {
  const net = pnm.extract(nestedImage());
  const other = pnm.extract(nestedImage());
  try {
    const before = digestNetwork(net);
    const args = networkArguments[plan.arg](net, other);
    const otherBefore = other.released ? 'released' : digestNetwork(other);
    const label = `${plan.how} with ${plan.arg}`;
    const end = await h.call(label, () => constructions[plan.how](pnm.Network, args), {
      digest: () => `${digestNetwork(net)}|${other.released ? 'released' : digestNetwork(other)}`,
      mustThrow: 'only extract() and extractAsync() make a Network: anything else must be a TypeError',
    });
    if (!end.ok && !(end.error instanceof TypeError)) {
      h.problem(`${label}: threw ${end.error?.constructor?.name} (${end.error?.message}), not a TypeError`);
    }
    if (end.ok) {
      // What a Network made from something else does to the one it was made from.
      try {
        end.value.release();
      } catch {}
    }
    if (net.released) h.problem(`${label}: the live network handed in was released`);
    else if (digestNetwork(net) !== before) h.problem(`${label}: the live network handed in changed`);
    const otherNow = other.released ? 'released' : digestNetwork(other);
    if (otherNow !== otherBefore) h.problem(`${label}: the second network changed (${otherBefore} → ${otherNow})`);
    // The class still makes networks the documented way.
    const fresh = pnm.extract(nestedImage());
    if (!(fresh instanceof pnm.Network)) h.problem(`${label}: extract() no longer gives a Network`);
    fresh.release();
  } finally {
    if (!net.released) net.release();
    if (!other.released) other.release();
  }
}

function functionsPlan(r) {
  const member = r.member(functionMembers);
  if (member === 'fromPoreSpy') return { member, ...poreSpyPlan(r) };
  if (member === 'new Network') {
    return { member, arg: r.pick(Object.keys(networkArguments)), how: r.pick(Object.keys(constructions)) };
  }
  const writer = {
    networkStatistics: 'networkStatistics',
    networkToJSON: 'networkToJSON',
    writeStatoil: 'writeStatoil()',
  };
  return writersPlan(r, writer[member]);
}

function functionsExec(plan, h, api) {
  if (plan.member === 'fromPoreSpy') return poreSpyExec(plan, h, api);
  if (plan.member === 'new Network') return constructExec(plan, h, api);
  return writersExec(plan, h, api);
}

// ---- pnm.finalize ------------------------------------------------------------------------------

const finalizeScenarios = [
  'with live networks',
  'with no network',
  'twice',
  'during extractAsync',
  'during extractAsync, after a tick',
  'during three extractAsync',
  'from onProgress of extractAsync',
  'during writeStatoil',
  'during writeVtp',
  'with a released network',
  'with garbage in an array',
  'then new work',
];
const finalizeImages = {
  'tube r 2': { image: nestedImage, boundaries: ['x'] },
  'lattice 2 cells': { image: () => sphereLattice({ cells: 2 }), boundaries: true },
  'two blobs': { image: split, boundaries: ['x'] },
};

function finalizePlan(r) {
  const scenario = r.member(finalizeScenarios);
  const count = scenario === 'with no network' ? 0 : r.int(1, 3);
  return {
    scenario,
    networks: Array.from({ length: count }, () => r.pick(Object.keys(finalizeImages))),
    async: r.pick(['sphere lattice, 3 cells', 'random 16³, 25% solid', 'tube r 3']),
  };
}

async function finalizeExec(plan, h, { pnm, r }) {
  const tmp = mkdtempSync(join(tmpdir(), 'pnm-hostile-'));
  const s = plan.scenario;
  try {
    const made = plan.networks.map((k) => {
      const im = finalizeImages[k].image();
      const net = pnm.extract(im, { boundaries: finalizeImages[k].boundaries });
      return {
        name: k,
        im,
        net,
        ref: referenceOf(pnm, net, im),
        taken: [net.pores.volume, net.throats.conns, net.regions],
      };
    });
    const asyncImage = () => (asyncImages[plan.async] ?? images[plan.async]).make(r);
    const inFlight = [];
    let finalizedAt = null;
    const track = (label, promise) => {
      const entry = { label, settledBeforeFinalize: false };
      entry.end = promise.then((x) => {
        if (finalizedAt === null) entry.settledBeforeFinalize = true;
        return x;
      });
      inFlight.push(entry);
    };
    if (s === 'with a released network' && made.length > 0) made[0].net.release();
    if (s === 'with garbage in an array' && made.length > 0) made[0].net.throats.conns[0] = 1e9;
    if (s.startsWith('during extractAsync') || s === 'during three extractAsync') {
      const n = s === 'during three extractAsync' ? 3 : 1;
      for (let i = 0; i < n; i++)
        track(
          `extractAsync #${i + 1}`,
          h.call(`extractAsync #${i + 1}`, () => pnm.extractAsync(asyncImage())),
        );
      if (s.endsWith('after a tick')) await new Promise((resolve) => setImmediate(resolve));
    }
    let fromProgress;
    if (s === 'from onProgress of extractAsync') {
      const onProgress = () => {
        if (fromProgress !== undefined) return;
        fromProgress = {};
        finalizedAt ??= 'onProgress';
        try {
          pnm.finalize();
        } catch (e) {
          fromProgress.error = e;
        }
      };
      track(
        'extractAsync with onProgress calling finalize()',
        h.call('extractAsync with onProgress calling finalize()', () =>
          pnm.extractAsync(asyncImage(), { onProgress, progressInterval: 1 }),
        ),
      );
    }
    const writes = [];
    if ((s === 'during writeStatoil' || s === 'during writeVtp') && made.length > 0) {
      const m = made[0];
      const call =
        s === 'during writeStatoil' ? () => m.net.writeStatoil(tmp, 'net') : () => m.net.writeVtp(join(tmp, 'net.vtp'));
      writes.push({ m, end: h.call(s.replace('during ', ''), call) });
    }

    if (s === 'from onProgress of extractAsync') {
      // The extraction settles (cancelled, when onProgress ran first) before the module goes here.
      await Promise.all(inFlight.map((x) => x.end));
    }
    finalizedAt ??= 'call';
    const fin = await h.call('finalize()', () => pnm.finalize());
    if (!fin.ok) h.problem(`finalize() threw ${fin.error?.constructor?.name}: ${fin.error?.message}`);
    if (s === 'twice') {
      const again = await h.call('finalize() again', () => pnm.finalize());
      if (!again.ok) h.problem('finalize() a second time threw');
    }
    if (fromProgress?.error !== undefined) h.problem(`finalize() from onProgress threw ${fromProgress.error?.message}`);

    for (const x of inFlight) {
      const end = await x.end;
      if (end.ok) {
        if (!(end.value instanceof pnm.Network)) h.problem(`${x.label}: resolved with ${end.value?.constructor?.name}`);
        else if (!end.value.released) h.problem(`${x.label}: a network that outlived finalize() is live`);
        if (!x.settledBeforeFinalize) h.problem(`${x.label}: resolved although finalize() ran before it settled`);
      } else if (!cancelled(end.error)) {
        h.problem(
          `${x.label}: rejected with ${end.error?.constructor?.name} (${end.error?.code}), not PECLET_CANCELLED`,
        );
      }
    }
    for (const w of writes) {
      const end = await w.end;
      // The arrays were read, checked and copied by the call: finalize() afterwards changes nothing in the file.
      if (!end.ok) h.problem(`${s}: a write started before finalize() failed (${end.error?.message})`);
      else if (s === 'during writeStatoil') checkStatoil(h, s, tmp, 'net', w.m.ref.arrays);
      else {
        const text = readFileSync(join(tmp, 'net.vtp'), 'latin1');
        const N = w.m.ref.arrays.pores.volume.length;
        if (!text.includes(`NumberOfPoints="${N}"`)) h.problem(`${s}: the file does not hold ${N} points`);
      }
    }

    for (const m of made) {
      const label = `${m.name} after finalize()`;
      if (!m.net.released) h.problem(`${label}: released is false`);
      if (m.taken.some((a) => a.length !== 0)) h.problem(`${label}: arrays taken before are not detached`);
    }
    if (made.length > 0) await sweepReleased(h, pnm, made[0].net, 'finalized', tmp, made[0].ref);

    if (s === 'then new work' || s === 'with no network') {
      const fresh = await h.call('extract() after finalize()', () => pnm.extract(nestedImage()));
      if (fresh.ok) fresh.value.release();
      else if (!released(pnm, fresh.error))
        h.problem(`extract() after finalize() threw ${fresh.error?.constructor?.name}`);
      const later = await h.call('extractAsync() after finalize()', () => pnm.extractAsync(nestedImage()));
      if (later.ok) later.value.release();
      else if (!(released(pnm, later.error) || cancelled(later.error))) {
        h.problem(`extractAsync() after finalize() rejected with ${later.error?.constructor?.name}`);
      }
      await h.call('new Network({}) after finalize()', () => new pnm.Network({}), {
        mustThrow: 'new Network({}) must throw a TypeError',
      });
      // The functions over plain arrays need no module state.
      const arrays = made[0]?.ref.arrays ?? emptyNetwork();
      await h.call('networkStatistics() of a copy after finalize()', () =>
        statisticsChecked(h, 'networkStatistics() after finalize()', pnm.networkStatistics(arrays), arrays, 20),
      );
      const json = await h.call('networkToJSON() of a copy after finalize()', () => pnm.networkToJSON(arrays));
      if (json.ok) checkJSON(h, 'networkToJSON() after finalize()', json.value, arrays);
      const files = await h.call('writeStatoil() of a copy after finalize()', () =>
        pnm.writeStatoil(arrays, tmp, 'copy'),
      );
      if (files.ok) checkStatoil(h, 'writeStatoil() after finalize()', tmp, 'copy', arrays);
      else h.problem(`writeStatoil() of plain arrays after finalize() failed: ${files.error?.message}`);
      await h.call('fromPoreSpy() after finalize()', () => pnm.fromPoreSpy([true, false], [1, 1, 2], h6));
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

// ---- pnm.formationFactor and Network#sizeFactors ------------------------------------------------

/** Whether a pore path (6-connected) joins the first and last planes along `axis` (a plain search). */
function percolates(im, axis) {
  const [n0, n1, n2] = Array.from(im.shape);
  const n = [n0, n1, n2];
  if (n[axis] < 2) return false;
  const seen = new Uint8Array(n0 * n1 * n2);
  const stack = [];
  const along = (v) => [Math.floor(v / (n1 * n2)), Math.floor(v / n2) % n1, v % n2][axis];
  for (let v = 0; v < seen.length; v++) {
    if (im.solid[v] === 0 && along(v) === 0) {
      seen[v] = 1;
      stack.push(v);
    }
  }
  const step = [n1 * n2, n2, 1];
  while (stack.length > 0) {
    const v = stack.pop();
    if (along(v) === n[axis] - 1) return true;
    const c = [Math.floor(v / (n1 * n2)), Math.floor(v / n2) % n1, v % n2];
    for (let a = 0; a < 3; a++) {
      for (const s of [-1, 1]) {
        if (c[a] + s < 0 || c[a] + s >= n[a]) continue;
        const u = v + s * step[a];
        if (im.solid[u] !== 0 || seen[u]) continue;
        seen[u] = 1;
        stack.push(u);
      }
    }
  }
  return false;
}

const formationValues = {
  axis: {
    "'x'": ok('x'),
    "'y'": ok('y'),
    "'z'": ok('z'),
    2: ok(2),
    "'w'": no('w'),
    3: no(3),
    null: no(null),
    undefined: ok(undefined),
  },
  tolerance: {
    '1e-8': ok(1e-8),
    '1e-12': ok(1e-12),
    0.5: ok(0.5),
    0: no(0),
    1: no(1),
    NaN: no(Number.NaN),
    '-1e-8': no(-1e-8),
    "'1e-8'": no('1e-8'),
    undefined: ok(undefined),
  },
  maxIterations: {
    0: ok(0),
    1: ok(1),
    5: ok(5),
    '2**31': ok(2 ** 31),
    '-1': no(-1),
    1.5: no(1.5),
    NaN: no(Number.NaN),
    '2**31 + 1': no(2 ** 31 + 1),
    undefined: ok(undefined),
  },
  threads: extractValues.threads,
};

function formationPlan(r) {
  const hostileImage = r.chance(0.3);
  const field = r.pick(Object.keys(formationValues));
  return {
    image: hostileImage
      ? r.pick(Object.keys(images).filter((k) => !images[k].cap))
      : r.pick(plainImages.filter((k) => !/^voxelSize/.test(k) || r.chance(0.3))),
    field,
    value: hostileImage ? 'undefined' : pickValue(r, formationValues[field]),
    options: r.pick(hostileImage ? ['object', 'none'] : containers),
  };
}

async function formationExec(plan, h, { pnm, r }) {
  const entry = images[plan.image];
  const im = entry.make(r);
  const none = plan.options === 'none';
  const option = none ? ok(undefined) : formationValues[plan.field][plan.value];
  const options = {};
  if (!none && plan.value !== 'undefined') options[plan.field] = option.v();
  const argument = none ? undefined : contain(options, plan.options, 'axis');
  // 'all pore' is an image without solid: extract refuses it, the diffusion answers F = 1.
  const badImage = plan.image === 'all pore' ? undefined : entry.bad;
  const bad = Boolean(badImage) || option.bad || badContainers.has(plan.options);
  const unsure = entry.unsure || option.unsure;
  const throws = entry.throws || plan.options === 'getter throwing';
  const solid = im && typeof im === 'object' && !entry.throws ? im.solid : undefined;
  const digest = ArrayBuffer.isView(solid) ? () => hashArray(solid) : undefined;
  const label = `formationFactor(${plan.image}, { ${plan.field}: ${plan.value} }) (${plan.options})`;
  let raw;
  const call = () => {
    const v = argument === undefined ? pnm.formationFactor(im) : pnm.formationFactor(im, argument);
    // NaN marks solid and pore that joins not both planes (documented): set aside for the NaN rule.
    raw = v.concentration;
    return { ...v, concentration: documentedNaN(v.concentration).copy };
  };
  // Whether the image, as a valid one, has a pore path along the axis asked for.
  const axisValue = options.axis === undefined || none ? 'x' : options.axis;
  const axis = typeof axisValue === 'number' ? axisValue : 'xyz'.indexOf(axisValue);
  const plain = plainImages.includes(plan.image) || plan.image === 'all pore';
  const path = plain && !bad && !unsure && !throws && axis >= 0 && axis <= 2 ? percolates(im, axis) : undefined;
  const result = await h.call(label, call, {
    digest,
    bad: bad && !unsure && !throws,
    allow: (e) => throws && isHostileGetter(e),
  });
  if (!result.ok) {
    const e = result.error;
    if (bad && !unsure && !isHostileGetter(e)) {
      const roots = [];
      if (badImage) roots.push(badImage);
      if (option.bad) roots.push(plan.field);
      if (badContainers.has(plan.options)) roots.push('options');
      checkNamed(h, label, e, roots);
    } else if (path === true) {
      h.problem(`${label}: refused an image with a pore path along the axis (${e?.name}: ${e?.message})`);
    } else if (path === false) {
      checkNamed(h, label, e, ['image.solid', 'image.shape']);
    }
    return;
  }
  const v = result.value;
  if (path === false) h.problem(`${label}: answered for an image with no pore path along the axis`);
  // The bounds hold for the solution, not for a solve stopped early (a loose tolerance, few iterations).
  const tight = v.solve.converged && v.solve.tolerance <= 1e-6;
  if (tight && (!(v.formationFactor >= 1 - 1e-9) || !(v.tortuosity >= 1 - 1e-6))) {
    h.problem(`${label}: F ${v.formationFactor}, tortuosity ${v.tortuosity}: below the bounds of 1`);
  }
  if (!(v.effectivePorosity <= v.porosity) || !(v.effectivePorosity > 0)) {
    h.problem(`${label}: effective porosity ${v.effectivePorosity} against porosity ${v.porosity}`);
  }
  if (!(v.formationFactor > 0) || !(v.tortuosity > 0)) h.problem(`${label}: F ${v.formationFactor}`);
  if (tight && !(Math.abs(v.inletRate - v.outletRate) <= 1e-5 * v.inletRate + 1e-12)) {
    h.problem(`${label}: flux in ${v.inletRate} and out ${v.outletRate} differ`);
  }
  if (solid !== undefined && raw.length === solid.length) {
    for (let i = 0; i < solid.length; i++) {
      const c = raw[i];
      if (solid[i] !== 0 && !Number.isNaN(c)) return h.problem(`${label}: a solid voxel has concentration ${c}`);
      if (tight && !Number.isNaN(c) && !(c >= -1e-6 && c <= 1 + 1e-6)) return h.problem(`${label}: concentration ${c}`);
    }
  } else if (solid !== undefined) h.problem(`${label}: ${raw.length} concentrations for ${solid.length} voxels`);
  // The same bits again, on one thread.
  if (argument !== undefined && plan.options === 'object' && !option.unsure) {
    const again = await h.call(`${label}, again on 1 thread`, () => {
      const w = pnm.formationFactor(im, { ...options, threads: 1 });
      return { formationFactor: w.formationFactor, iterations: w.solve.iterations };
    });
    if (
      again.ok &&
      (again.value.formationFactor !== v.formationFactor || again.value.iterations !== v.solve.iterations)
    )
      h.problem(`${label}: another thread count gave F ${again.value.formationFactor} against ${v.formationFactor}`);
  }
}

const sizeFactorModels = {
  "'pyramids-and-cuboids'": ok('pyramids-and-cuboids'),
  "'cones-and-cylinders'": ok('cones-and-cylinders'),
  "'spheres-and-cylinders'": ok('spheres-and-cylinders'),
  "'hagen-poiseuille'": no('hagen-poiseuille'),
  "'pyramids'": no('pyramids'),
  "''": no(''),
  42: no(42),
  null: no(null),
  undefined: no(undefined),
};
const spacings = {
  "'total-length'": ok('total-length'),
  "'direct-length'": ok('direct-length'),
  "'direct'": no('direct'),
  0: no(0),
  undefined: ok(undefined),
};

function sizeFactorsPlan(r) {
  return {
    network: r.pick(Object.keys(networks)),
    state: r.pick(['live', 'live', 'live', 'live', 'released', 'finalized']),
    model: pickValue(r, sizeFactorModels),
    spacing: pickValue(r, spacings),
    options: r.pick(containers),
  };
}

async function sizeFactorsExec(plan, h, { pnm }) {
  const info = networks[plan.network];
  const net = pnm.extract(info.image(), { boundaries: info.boundaries });
  try {
    const model = sizeFactorModels[plan.model];
    const spacing = spacings[plan.spacing];
    const options = plan.spacing === 'undefined' ? {} : { spacing: spacing.v() };
    const argument = plan.options === 'none' ? undefined : contain(options, plan.options, 'spacing');
    const bad = model.bad || (plan.options !== 'none' && (spacing.bad || badContainers.has(plan.options)));
    const throws = plan.options === 'getter throwing';
    const label = `sizeFactors(${plan.model}, { spacing: ${plan.spacing} }) on ${plan.network} (${plan.state}, ${plan.options})`;
    const digest = () => digestNetwork(net);
    const call = () => (argument === undefined ? net.sizeFactors(model.v()) : net.sizeFactors(model.v(), argument));
    if (plan.state !== 'live') {
      if (plan.state === 'released') net.release();
      else pnm.finalize();
      const end = await h.call(label, call, {
        mustThrow: `a ${plan.state} network must throw`,
        allow: (e) => throws && isHostileGetter(e),
      });
      if (!end.ok && !bad && !throws && !released(pnm, end.error)) {
        h.problem(`${label}: threw ${end.error?.constructor?.name}, not ReleasedError`);
      }
      return;
    }
    const before = digest();
    const end = await h.call(label, call, {
      digest,
      bad: bad && !throws,
      allow: (e) => throws && isHostileGetter(e),
    });
    if (digest() !== before) h.problem(`${label}: the network changed`);
    const { pores, throats } = net;
    const m = throats.conns.length / 2;
    if (!end.ok) {
      const e = end.error;
      if (isHostileGetter(e)) return;
      if (bad) {
        const roots = [];
        if (model.bad) roots.push('model');
        if (spacing.bad) roots.push('spacing');
        if (badContainers.has(plan.options)) roots.push('options');
        return checkNamed(h, label, e, roots);
      }
      // spheres-and-cylinders refuses a throat wider than one of its pores, as OpenPNM does.
      let wider = false;
      for (let t = 0; t < m; t++) {
        const d = throats.inscribedDiameter[t];
        wider ||=
          d > pores.equivalentDiameter[throats.conns[2 * t]] || d > pores.equivalentDiameter[throats.conns[2 * t + 1]];
      }
      if (model.v() === 'spheres-and-cylinders' && wider) return checkNamed(h, label, e, ['conductance']);
      return h.problem(`${label}: refused valid arguments (${e?.name}: ${e?.message})`);
    }
    const v = end.value;
    for (const key of ['conduitLengths', 'hydraulic', 'diffusive']) {
      if (!(v[key] instanceof Float64Array) || v[key].length !== 3 * m) {
        return h.problem(`${label}: ${key} is not a Float64Array of 3 per throat`);
      }
      if (v[key].some((x) => !(x >= 0))) return h.problem(`${label}: ${key} holds a negative or NaN value`);
    }
    // What stokesFlow computes with the model is the three parts in series.
    const usedSpacing = spacing.bad || plan.options === 'none' || throws ? undefined : spacing.v();
    const flow = await h.call(`stokesFlow with ${plan.model}`, () => {
      try {
        return { g: net.stokesFlow({ conductance: model.v(), spacing: usedSpacing, viscosity: 1 }).conductance };
      } catch (e) {
        if (e instanceof RangeError && /^axis/.test(e.message)) return { g: undefined };
        throw e;
      }
    });
    if (flow.ok && flow.value.g !== undefined && (argument === undefined || plan.options === 'object')) {
      for (let t = 0; t < m; t++) {
        const parts = [0, 1, 2].map((i) => v.hydraulic[3 * t + i]);
        const inverse = parts.reduce((s, x) => s + (x === Number.POSITIVE_INFINITY ? 0 : 1 / x), 0);
        const g = inverse > 0 && Number.isFinite(1 / inverse) ? 1 / inverse : 0;
        if (!(Math.abs(flow.value.g[t] - g) <= 1e-9 * g)) {
          return h.problem(
            `${label}: throat ${t}: stokesFlow's conductance ${flow.value.g[t]}, the series of its parts ${g}`,
          );
        }
      }
    }
  } finally {
    if (!net.released) net.release();
  }
}

export const pnmTargets = {
  'pnm.extract': { build: (r) => extractPlan(r, false), exec: extractExec },
  'pnm.extractAsync': {
    build: (r) => ({
      image: r.chance(0.8)
        ? r.pick(Object.keys(asyncImages).filter((k) => !asyncImages[k].bad))
        : r.pick(Object.keys(asyncImages)),
      boundaries: r.pick(['undefined', "['x']", 'true']),
      signal: r.pick([
        'none',
        'none',
        'none',
        'none',
        'an AbortSignal',
        'an AbortSignal',
        'aborted before',
        'aborted before, no reason',
        'abort at once',
        'abort after 2 ms',
        'not a signal',
        'null',
      ]),
      onProgress: r.pick(onProgressKinds),
      progressInterval: r.chance(0.75) ? r.pick(['1', '1', 'undefined']) : r.pick(Object.keys(progressIntervals)),
      cancel: r.pick([
        'none',
        'none',
        'finalize() after 2 ms',
        'three at once',
        'mutate the image after the call',
        'extract() at once',
      ]),
      options: r.pick([...Array(8).fill('object'), 'null', 'a number', 'unknown key', 'misspelt key', 'a Proxy']),
    }),
    exec: extractAsyncExec,
  },
  'pnm.stokesFlow': { build: solverPlan('stokesFlow'), exec: solverExec('stokesFlow') },
  'pnm.diffusion': { build: solverPlan('diffusion'), exec: solverExec('diffusion') },
  'pnm.drainage': { build: solverPlan('drainage'), exec: solverExec('drainage') },
  'pnm.invasionPercolation': { build: solverPlan('invasionPercolation'), exec: solverExec('invasionPercolation') },
  'pnm.formationFactor': { build: formationPlan, exec: formationExec },
  'pnm.Network#sizeFactors': { build: sizeFactorsPlan, exec: sizeFactorsExec },
  'pnm.writers': { build: (r) => writersPlan(r), exec: writersExec },
  'pnm.Network members': { build: membersPlan, exec: membersExec },
  'pnm.functions': { build: functionsPlan, exec: functionsExec },
  'pnm.finalize': { build: finalizePlan, exec: finalizeExec },
};

export { CAP_KIB };
