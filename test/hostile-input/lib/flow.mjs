// flow's targets: new Lattice, step, run, the writable fields (porosity, force) and the
// read-only ones written anyway, the members (getters, slab, bodyForce, setPressure, flux, writeVti),
// permeability, percolates, release, finalize (host only).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashArray, repeatedReads } from './check.mjs';
import { numbers, periodics, smallCounts, threadCounts } from './domains.mjs';
import { gpuDeviceTarget } from './gpu.mjs';
import { hostileProgress, progressKinds } from './progress.mjs';

const CAP_KIB = 2_000_000;

// A value for a label; a Proxy or odd object must not break the case itself.
const describe = (v) => {
  try {
    return typeof v === 'object' && v !== null ? Object.prototype.toString.call(v) : String(v);
  } catch {
    return 'a value';
  }
};

/**
 * A run's `residual` is NaN until its second convergence check (the documented `Progress`
 * value, and what `run()` and `permeability()` hand back after a single check): marked here so
 * that the NaN rule still catches a NaN residual after two checks or more.
 */
export async function residualMarked(promise, interval = 100) {
  const v = await promise;
  if (v !== null && typeof v === 'object' && Number.isNaN(v.residual) && v.steps <= interval) {
    return { ...v, residual: 'NaN (a single check)' };
  }
  return v;
}

export const cancelled = (e) => e instanceof Error && e.code === 'PECLET_CANCELLED';
export const diverged = (e) => e instanceof Error && e.code === 'PECLET_DIVERGED';
/** permeability() after maxSteps with an estimate that is no permeability (≤ 0): refused, not returned. */
export const unsettled = (e) => e instanceof Error && e.code === 'PECLET_NOT_CONVERGED';

/** A valid base: 8³, fully periodic, a small body force along x. */
const base = () => ({ shape: [8, 8, 8], bodyForce: [1e-5, 0, 0] });

/** A seeded solid mask of `n` voxels with about `fraction` solid. */
export function mask(r, n, fraction = 0.3) {
  const solid = new Uint8Array(n);
  for (let i = 0; i < n; i++) solid[i] = r.next() < fraction ? 1 : 0;
  return solid;
}

/** Pore voxels joined from the first to the last plane along `axis`, 18-connected (the reference). */
function reference(solid, shape, axis) {
  const [n0, n1, n2] = shape;
  const seen = new Uint8Array(solid.length);
  const stack = [];
  const at = (i, j, k) => (i * n1 + j) * n2 + k;
  const coord = (v) => [Math.floor(v / (n1 * n2)), Math.floor(v / n2) % n1, v % n2];
  for (let v = 0; v < solid.length; v++) {
    if (solid[v] === 0 && coord(v)[axis] === 0) {
      seen[v] = 1;
      stack.push(v);
    }
  }
  const offsets = [];
  for (let a = -1; a <= 1; a++)
    for (let b = -1; b <= 1; b++)
      for (let c = -1; c <= 1; c++) {
        const m = Math.abs(a) + Math.abs(b) + Math.abs(c);
        if (m === 1 || m === 2) offsets.push([a, b, c]);
      }
  while (stack.length > 0) {
    const v = stack.pop();
    const p = coord(v);
    if (p[axis] === shape[axis] - 1) return true;
    for (const [a, b, c] of offsets) {
      const i = p[0] + a;
      const j = p[1] + b;
      const k = p[2] + c;
      if (i < 0 || j < 0 || k < 0 || i >= n0 || j >= n1 || k >= n2) continue;
      const w = at(i, j, k);
      if (solid[w] === 0 && seen[w] === 0) {
        seen[w] = 1;
        stack.push(w);
      }
    }
  }
  return false;
}

/**
 * Voxel images for permeability() and percolates(): `make(r)` gives `{ image, axisFree }`;
 * `bad`: a documented error whatever the axis; `blocked`: no pore path along any axis (a
 * RangeError naming 'image' from permeability, false from percolates).
 */
export const images = {
  'random 10³, 30% solid': { make: (r) => ({ solid: mask(r, 1000), shape: [10, 10, 10], voxelSize: 1e-6 }) },
  'random 12x8x6, 20% solid': { make: (r) => ({ solid: mask(r, 576, 0.2), shape: [12, 8, 6], voxelSize: 5e-6 }) },
  'random 10³, 60% solid': { make: (r) => ({ solid: mask(r, 1000, 0.6), shape: [10, 10, 10], voxelSize: 1e-6 }) },
  'all pore 6³': { make: () => ({ solid: new Uint8Array(216), shape: [6, 6, 6], voxelSize: 1e-6 }) },
  'all solid 6³': {
    make: () => ({ solid: new Uint8Array(216).fill(1), shape: [6, 6, 6], voxelSize: 1e-6 }),
    blocked: true,
  },
  'solid plane across every axis': {
    // Pore everywhere but one full plane normal to each axis: nothing percolates.
    make: () => {
      const solid = new Uint8Array(216);
      for (let v = 0; v < 216; v++) {
        const i = Math.floor(v / 36);
        const j = Math.floor(v / 6) % 6;
        const k = v % 6;
        if (i === 3 || j === 3 || k === 3) solid[v] = 1;
      }
      return { solid, shape: [6, 6, 6], voxelSize: 1e-6 };
    },
    blocked: true,
  },
  'pores touching only at a corner': {
    // Two pore voxels sharing a corner (26- but not 18-connected): no path.
    make: () => {
      const solid = new Uint8Array(8).fill(1);
      solid[0] = 0; // (0,0,0)
      solid[7] = 0; // (1,1,1)
      return { solid, shape: [2, 2, 2], voxelSize: 1e-6 };
    },
    blocked: true,
  },
  '1 pore voxel': { make: () => ({ solid: new Uint8Array(1), shape: [1, 1, 1], voxelSize: 1e-6 }) },
  '1 solid voxel': { make: () => ({ solid: new Uint8Array([1]), shape: [1, 1, 1], voxelSize: 1e-6 }), blocked: true },
  'voxelSize 0': { make: () => ({ solid: new Uint8Array(27), shape: [3, 3, 3], voxelSize: 0 }), bad: true },
  'voxelSize NaN': { make: () => ({ solid: new Uint8Array(27), shape: [3, 3, 3], voxelSize: Number.NaN }), bad: true },
  'voxelSize -1e-6': { make: () => ({ solid: new Uint8Array(27), shape: [3, 3, 3], voxelSize: -1e-6 }), bad: true },
  'voxelSize Infinity': {
    make: () => ({ solid: new Uint8Array(27), shape: [3, 3, 3], voxelSize: Number.POSITIVE_INFINITY }),
    bad: true,
  },
  "voxelSize '1e-6'": { make: () => ({ solid: new Uint8Array(27), shape: [3, 3, 3], voxelSize: '1e-6' }), bad: true },
  // Valid images, but outside [1e-12, 1e3] m the permeability (∝ h²) leaves the doubles:
  // permeability() refuses them (`outOfRange`), as pnm does; slabOf and percolates take them.
  'voxelSize 5e-324': {
    make: () => ({ solid: new Uint8Array(27), shape: [3, 3, 3], voxelSize: 5e-324 }),
    outOfRange: true,
  },
  'voxelSize 1e100': {
    make: () => ({ solid: new Uint8Array(27), shape: [3, 3, 3], voxelSize: 1e100 }),
    outOfRange: true,
  },
  'shape [0, 3, 3]': { make: () => ({ solid: new Uint8Array(0), shape: [0, 3, 3], voxelSize: 1e-6 }), bad: true },
  'shape [-3, -3, 3]': { make: () => ({ solid: new Uint8Array(27), shape: [-3, -3, 3], voxelSize: 1e-6 }), bad: true },
  'shape [NaN, 3, 3]': {
    make: () => ({ solid: new Uint8Array(27), shape: [Number.NaN, 3, 3], voxelSize: 1e-6 }),
    bad: true,
  },
  'shape [3, 3]': { make: () => ({ solid: new Uint8Array(27), shape: [3, 3], voxelSize: 1e-6 }), bad: true },
  'shape [2**16, 2**16, 1] (2^32 voxels)': {
    make: () => ({ solid: new Uint8Array(27), shape: [2 ** 16, 2 ** 16, 1], voxelSize: 1e-6 }),
    bad: true,
  },
  'shape [1e6, 1e6, 1e6]': {
    make: () => ({ solid: new Uint8Array(27), shape: [1e6, 1e6, 1e6], voxelSize: 1e-6 }),
    bad: true,
  },
  'solid of the wrong length': {
    make: () => ({ solid: new Uint8Array(26), shape: [3, 3, 3], voxelSize: 1e-6 }),
    bad: true,
  },
  'solid as Int8Array': { make: () => ({ solid: new Int8Array(27), shape: [3, 3, 3], voxelSize: 1e-6 }), bad: true },
  'solid as a plain array': {
    make: () => ({ solid: new Array(27).fill(0), shape: [3, 3, 3], voxelSize: 1e-6 }),
    bad: true,
  },
  'solid detached': {
    make: () => {
      const solid = new Uint8Array(27);
      structuredClone(solid.buffer, { transfer: [solid.buffer] });
      return { solid, shape: [3, 3, 3], voxelSize: 1e-6 };
    },
    bad: true,
  },
  'solid in a SharedArrayBuffer': {
    make: () => ({ solid: new Uint8Array(new SharedArrayBuffer(27)), shape: [3, 3, 3], voxelSize: 1e-6 }),
  },
  'solid a subarray at offset 5': {
    make: () => ({ solid: new Uint8Array(40).subarray(5, 32), shape: [3, 3, 3], voxelSize: 1e-6 }),
  },
  'solid a Proxy of a Uint8Array': {
    make: () => ({ solid: new Proxy(new Uint8Array(27), {}), shape: [3, 3, 3], voxelSize: 1e-6 }),
    unsure: true,
  },
  'shape a getter answering differently': {
    // First read [3, 3, 3]; later reads [300, 300, 300] (a reader that reads twice is fooled).
    make: () => {
      let reads = 0;
      return {
        solid: new Uint8Array(27),
        get shape() {
          return reads++ === 0 ? [3, 3, 3] : [300, 300, 300];
        },
        voxelSize: 1e-6,
      };
    },
    unsure: true,
  },
  null: { make: () => null, bad: true },
  'a number': { make: () => 7, bad: true },
};

/** The image a case meant, when it is a plain valid one (for invariants). */
export const plainImage = (name) => !images[name].bad && !images[name].unsure;

// ---- new Lattice -----------------------------------------------------------------------------

/** Named values of every option; `bad: true` marks documented errors. */
const optionValues = {
  shape: {
    '[8, 8, 8]': { v: () => [8, 8, 8] },
    '[1, 1, 1]': { v: () => [1, 1, 1] },
    '[1, 8, 1]': { v: () => [1, 8, 1] },
    'Int32Array [4, 4, 4]': { v: () => Int32Array.from([4, 4, 4]) },
    '[0, 8, 8]': { v: () => [0, 8, 8], bad: true },
    '[-1, 8, 8]': { v: () => [-1, 8, 8], bad: true },
    '[NaN, 8, 8]': { v: () => [Number.NaN, 8, 8], bad: true },
    '[Infinity, 8, 8]': { v: () => [Number.POSITIVE_INFINITY, 8, 8], bad: true },
    '[1.5, 8, 8]': { v: () => [1.5, 8, 8], bad: true },
    '[8, 8]': { v: () => [8, 8], bad: true },
    '[8, 8, 8, 8]': { v: () => [8, 8, 8, 8], bad: true },
    "['8', '8', '8']": { v: () => ['8', '8', '8'], bad: true },
    '[2**16, 2**16, 1] (2^32 voxels)': { v: () => [2 ** 16, 2 ** 16, 1], bad: true },
    '[1e6, 1e6, 1e6]': { v: () => [1e6, 1e6, 1e6], bad: true },
    '[2**53, 1, 1]': { v: () => [2 ** 53, 1, 1], bad: true },
    '8 (a number)': { v: () => 8, bad: true },
    undefined: { v: () => undefined, bad: true },
    '{ 0: 8, 1: 8, 2: 8, length: 3 }': { v: () => ({ 0: 8, 1: 8, 2: 8, length: 3 }), bad: true },
    // Valid, but more memory than the cap (and than most machines): refused cleanly, never a crash.
    '[65535, 65535, 1] (memory cap)': { v: () => [65535, 65535, 1] },
    '[1024, 1024, 1024] (memory cap)': { v: () => [1024, 1024, 1024] },
    'getter answering [1e6, ...] on the second read': {
      v: () => {
        const a = [8, 8, 8];
        let reads = 0;
        Object.defineProperty(a, 0, { get: () => (reads++ === 0 ? 8 : 1e6), enumerable: true });
        return a;
      },
      unsure: true,
    },
  },
  solid: {
    'random 8³': { v: (r) => mask(r, 512) },
    'all solid': { v: () => new Uint8Array(512).fill(1) },
    'values 255 and 2': {
      v: (r) =>
        mask(r, 512)
          .map((x) => (x ? 255 : 0))
          .map((x, i) => (i % 7 === 0 ? 2 : x)),
    },
    'wrong length (511)': { v: () => new Uint8Array(511), bad: true },
    'wrong length (0)': { v: () => new Uint8Array(0), bad: true },
    Int8Array: { v: () => new Int8Array(512), bad: true },
    Uint8ClampedArray: { v: () => new Uint8ClampedArray(512), bad: true },
    'plain array': { v: () => new Array(512).fill(0), bad: true },
    detached: {
      v: () => {
        const a = new Uint8Array(512);
        structuredClone(a.buffer, { transfer: [a.buffer] });
        return a;
      },
      bad: true,
    },
    'SharedArrayBuffer view': {
      v: (r) => {
        const a = new Uint8Array(new SharedArrayBuffer(512));
        for (let i = 0; i < a.length; i++) a[i] = r.next() < 0.3 ? 1 : 0;
        return a;
      },
    },
    'subarray at offset 3': { v: (r) => mask(r, 600).subarray(3, 515) },
    "another lattice's velocity bytes": {
      // A Uint8Array over the zero-copy velocity of a live lattice (aliased native memory).
      v: (_r, flow, keep) => {
        const other = new flow.Lattice({ shape: [8, 8, 8], bodyForce: [1e-5, 0, 0] });
        other.step(2);
        keep.push(other);
        const u = other.velocity;
        return new Uint8Array(u.buffer, u.byteOffset, 512);
      },
    },
    "a released lattice's velocity bytes": {
      v: (_r, flow) => {
        const other = new flow.Lattice({ shape: [8, 8, 8] });
        const u = other.velocity;
        // A view made before the release: detached with the lattice's memory.
        const view = new Uint8Array(u.buffer, u.byteOffset, Math.min(u.byteLength, 512));
        other.release();
        return view;
      },
      bad: true,
    },
    'a Proxy of a Uint8Array': { v: () => new Proxy(new Uint8Array(512), {}), unsure: true },
  },
  solidFraction: {
    'uniform 0.2': { v: () => new Float64Array(512).fill(0.2) },
    'zeros and ones': { v: (r) => Float64Array.from(mask(r, 512)) },
    'all 1': { v: () => new Float64Array(512).fill(1) },
    'one NaN': { v: () => new Float64Array(512).fill(0.2).fill(Number.NaN, 100, 101), bad: true },
    'one 1.5': { v: () => new Float64Array(512).fill(0.2).fill(1.5, 7, 8), bad: true },
    'one -0.1': { v: () => new Float64Array(512).fill(0.2).fill(-0.1, 7, 8), bad: true },
    'one 5e-324': { v: () => new Float64Array(512).fill(5e-324, 7, 8) },
    Float32Array: { v: () => new Float32Array(512), bad: true },
    'wrong length': { v: () => new Float64Array(513), bad: true },
    'with solid too': { v: () => new Float64Array(512), bad: true, withSolid: true },
  },
  sdf: {
    'a sphere of radius 3': {
      v: () =>
        Float64Array.from({ length: 512 }, (_, v) => {
          const i = Math.floor(v / 64) - 3.5;
          const j = (Math.floor(v / 8) % 8) - 3.5;
          const k = (v % 8) - 3.5;
          return Math.hypot(i, j, k) - 3;
        }),
    },
    'all negative (all solid)': { v: () => new Float64Array(512).fill(-1) },
    'all +Infinity': { v: () => new Float64Array(512).fill(Number.POSITIVE_INFINITY) },
    'alternating ±1e-300': { v: () => Float64Array.from({ length: 512 }, (_, i) => (i % 2 ? 1e-300 : -1e-300)) },
    'alternating ±1e308': { v: () => Float64Array.from({ length: 512 }, (_, i) => (i % 2 ? 1e308 : -1e308)) },
    'one NaN': { v: () => new Float64Array(512).fill(1).fill(Number.NaN, 3, 4), bad: true },
    'wrong length': { v: () => new Float64Array(7), bad: true },
  },
  periodic: Object.fromEntries(
    Object.entries(periodics).map(([k, v]) => [
      k,
      { v, bad: ["'yes'", '[1, 0, 0]', '[true, true]'].includes(k), unsure: k === 'getter flipping' },
    ]),
  ),
  viscosity: Object.fromEntries(
    Object.entries(numbers)
      .filter(([k]) => !['1e9', '2**31', '2**32', '2**53'].includes(k))
      .map(([k, v]) => {
        const x = v();
        const ok = x === undefined || (typeof x === 'number' && x > 0 && x <= 3333);
        return [k, { v, bad: !ok }];
      }),
  ),
  relaxation: {
    "{ model: 'trt' }": { v: () => ({ model: 'trt' }) },
    "{ model: 'trt', magic: 0.25 }": { v: () => ({ model: 'trt', magic: 0.25 }) },
    "{ model: 'trt', magic: 1e-12 }": { v: () => ({ model: 'trt', magic: 1e-12 }) },
    "{ model: 'trt', magic: 1e4 }": { v: () => ({ model: 'trt', magic: 1e4 }) },
    "{ model: 'trt', magic: 0 }": { v: () => ({ model: 'trt', magic: 0 }), bad: true },
    "{ model: 'trt', magic: -1 }": { v: () => ({ model: 'trt', magic: -1 }), bad: true },
    "{ model: 'trt', magic: NaN }": { v: () => ({ model: 'trt', magic: Number.NaN }), bad: true },
    "{ model: 'trt', magic: 1e300 }": { v: () => ({ model: 'trt', magic: 1e300 }), bad: true },
    "{ model: 'trt', tau: 1 }": { v: () => ({ model: 'trt', tau: 1 }), bad: true },
    "{ model: 'bgk' }": { v: () => ({ model: 'bgk' }) },
    "{ model: 'bgk', tau: 0.5 }": { v: () => ({ model: 'bgk', tau: 0.5 }), bad: true, noViscosity: true },
    "{ model: 'bgk', tau: 0.5000001 }": { v: () => ({ model: 'bgk', tau: 0.5000001 }), noViscosity: true },
    "{ model: 'bgk', tau: 1e4 }": { v: () => ({ model: 'bgk', tau: 1e4 }), noViscosity: true },
    "{ model: 'bgk', tau: 0 }": { v: () => ({ model: 'bgk', tau: 0 }), bad: true, noViscosity: true },
    "{ model: 'bgk', tau: NaN }": { v: () => ({ model: 'bgk', tau: Number.NaN }), bad: true, noViscosity: true },
    "{ model: 'bgk', tau: 1 } with viscosity": { v: () => ({ model: 'bgk', tau: 1 }), bad: true },
    "{ model: 'bgk', magic: 0.25 }": { v: () => ({ model: 'bgk', magic: 0.25 }), bad: true },
    "{ model: 'mrt' }": { v: () => ({ model: 'mrt' }), bad: true },
    "'bgk' (a string)": { v: () => 'bgk', bad: true },
    null: { v: () => null, bad: true },
  },
  bodyForce: {
    '[1e-5, 0, 0]': { v: () => [1e-5, 0, 0] },
    '[0, 0, 0]': { v: () => [0, 0, 0] },
    '[1, 0, 0] (|f| = 1)': { v: () => [1, 0, 0] },
    '[-1, 1, -1]': { v: () => [-1, 1, -1] },
    '[5e-324, 0, 0]': { v: () => [5e-324, 0, 0] },
    'Float32Array [1e-5, 0, 0]': { v: () => Float32Array.from([1e-5, 0, 0]) },
    '[NaN, 0, 0]': { v: () => [Number.NaN, 0, 0], bad: true },
    '[Infinity, 0, 0]': { v: () => [Number.POSITIVE_INFINITY, 0, 0], bad: true },
    '[1e300, 0, 0]': { v: () => [1e300, 0, 0], bad: true },
    '[1.0000001, 0, 0]': { v: () => [1.0000001, 0, 0], bad: true },
    '[0, 0]': { v: () => [0, 0], bad: true },
    "['1e-5', 0, 0]": { v: () => ['1e-5', 0, 0], bad: true },
    '1e-5 (a number)': { v: () => 1e-5, bad: true },
    'a Proxy answering NaN on the second read': {
      v: () => {
        let reads = 0;
        return new Proxy([1e-5, 0, 0], {
          get: (t, k) => (k === '0' ? (reads++ === 0 ? 1e-5 : Number.NaN) : Reflect.get(t, k)),
        });
      },
      unsure: true,
    },
  },
  pressure: {
    'x, 1.01 → 0.99 (x walled)': { v: () => ({ axis: 'x', inletDensity: 1.01, outletDensity: 0.99 }), walled: 0 },
    '2, 1.5 → 0.5 (z walled)': { v: () => ({ axis: 2, inletDensity: 1.5, outletDensity: 0.5 }), walled: 2 },
    'x on a periodic axis': { v: () => ({ axis: 'x', inletDensity: 1.01, outletDensity: 0.99 }), bad: true },
    'x, inlet 0': { v: () => ({ axis: 'x', inletDensity: 0, outletDensity: 0.99 }), walled: 0, bad: true },
    'x, inlet NaN': { v: () => ({ axis: 'x', inletDensity: Number.NaN, outletDensity: 1 }), walled: 0, bad: true },
    'x, outlet 1e300': { v: () => ({ axis: 'x', inletDensity: 1, outletDensity: 1e300 }), walled: 0, bad: true },
    'x, inlet 10': { v: () => ({ axis: 'x', inletDensity: 10, outletDensity: 1 }), walled: 0, bad: true },
    'x, inlet -1': { v: () => ({ axis: 'x', inletDensity: -1, outletDensity: 1 }), walled: 0, bad: true },
    'x, outlet missing': { v: () => ({ axis: 'x', inletDensity: 1 }), walled: 0, bad: true },
    "axis 'w'": { v: () => ({ axis: 'w', inletDensity: 1.01, outletDensity: 0.99 }), walled: 0, bad: true },
    'axis 3': { v: () => ({ axis: 3, inletDensity: 1.01, outletDensity: 0.99 }), walled: 0, bad: true },
    'x on a 2-plane lattice': {
      v: () => ({ axis: 'x', inletDensity: 1.01, outletDensity: 0.99 }),
      walled: 0,
      shape: [2, 8, 8],
      bad: true,
    },
    "'x' (a string)": { v: () => 'x', bad: true },
  },
  inertia: {
    true: { v: () => true },
    false: { v: () => false },
    "'yes'": { v: () => 'yes', bad: true },
    1: { v: () => 1, bad: true },
  },
  precision: {
    "'f32'": { v: () => 'f32' },
    "'f64'": { v: () => 'f64' },
    "'f16'": { v: () => 'f16', bad: true },
    64: { v: () => 64, bad: true },
  },
  layout: {
    "'sparse'": { v: () => 'sparse' },
    "'dense'": { v: () => 'dense' },
    "'auto'": { v: () => 'auto' },
    "'csr'": { v: () => 'csr', bad: true },
  },
  executionSpace: {
    "'host'": { v: () => 'host' },
    // Refused while flow has no WebGPU path; accepted once it has one (in progress): either is fine.
    "'webgpu'": { v: () => 'webgpu', unsure: true },
    "'cuda'": { v: () => 'cuda', bad: true },
  },
  threads: Object.fromEntries(
    Object.entries(threadCounts).map(([k, v]) => {
      const x = v();
      return [k, { v, bad: !(x === undefined || (Number.isInteger(x) && x >= 1 && x <= 65_536)) }];
    }),
  ),
};

/** The option a TypeError/RangeError about this field must name (its root). */
const rootOf = (field) => field;

export function digestLattice(l) {
  if (l.released) return 'released';
  return [l.stepCount, hashArray(l.velocity), hashArray(l.density), hashArray(l.porosity), hashArray(l.force)].join(
    '|',
  );
}

/** The fields of a live lattice are finite after a step that returned (a blow-up must throw PECLET_DIVERGED). */
function checkFinite(h, l, label, { skip } = {}) {
  if (l.released) return;
  for (const k of ['velocity', 'density']) {
    const a = l[k];
    const per = k === 'velocity' ? 3 : 1;
    const i = a.findIndex((x, j) => !Number.isFinite(x) && !skip?.has(Math.floor(j / per)));
    if (i >= 0) {
      // Known flow bug (reported): a step that makes the fields non-finite may return, and the
      // next step throws PECLET_DIVERGED (seen with porosity 0 or denormal written into a voxel).
      // Divergence reported one step late is tolerated; never reported is a problem.
      let late = false;
      try {
        l.step(1);
      } catch (error) {
        late = diverged(error);
      }
      if (!late) h.problem(`${label}: ${k}[${i}] is ${a[i]} after a step that returned (expected PECLET_DIVERGED)`);
      return;
    }
  }
}

/** An error must name the argument at fault (`argument`, or the message's start). */
function checkNamed(h, label, error, roots) {
  if (!(error instanceof TypeError || error instanceof RangeError)) return;
  if (error.name === 'ReleasedError') return;
  // Known flow bug (reported): the bodyForce setter spreads its value before reading it, so a
  // value that is not iterable ends in the engine's "... is not iterable" naming no argument.
  if (label.startsWith('bodyForce =') && / is not iterable$/.test(error.message)) return;
  const named = typeof error.argument === 'string' ? error.argument : String(error.message);
  if (!roots.some((root) => named.startsWith(root))) {
    h.problem(`${label}: ${error.name} names '${named.slice(0, 60)}', expected one of ${roots.join(', ')}`);
  }
}

const extra = { '1e-3': 1e-3, 10: 10, 50: 50, 200: 200, '2**41': 2 ** 41 };
const numberOf = (name) => (name in extra ? extra[name] : numbers[name]?.());

/** Named option values of permeability() (the names a plan holds). */
const namedValues = {
  "'x'": 'x',
  "'y'": 'y',
  "'z'": 'z',
  "'w'": 'w',
  "'body-force'": 'body-force',
  "'pressure'": 'pressure',
  "'gravity'": 'gravity',
  "'sealed'": 'sealed',
  "'periodic'": 'periodic',
  "'open'": 'open',
  "'f32'": 'f32',
  "'f64'": 'f64',
  "'f16'": 'f16',
  "'host'": 'host',
  "'webgpu'": 'webgpu',
  "'not a signal'": 'not a signal',
  "'not a function'": 'not a function',
  2: 2,
  3: 3,
  4: 4,
  1001: 1001,
  0.05: 0.05,
  '1e-6': 1e-6,
  100: 100,
  101: 101,
};
const named = (name) => (name in namedValues ? namedValues[name] : numberOf(name));

/** The options of permeability() and their hostile values (named, as in the plans). */
const permeabilityValues = {
  axis: ["'x'", "'y'", "'z'", '0', '2', "'w'", '3', 'NaN', 'null', 'undefined'],
  drive: ["'body-force'", "'pressure'", "'gravity'", 'undefined'],
  buffer: ['0', '1', '4', '-1', '1.5', '1001', 'NaN', 'undefined'],
  tolerance: ['1e-3', '0', '1', '-1', 'NaN', '5e-324', "'1' (string)"],
  maxSteps: ['200', '1', '0', '-1', '1.5', '2**41', 'NaN'],
  sides: ["'sealed'", "'periodic'", "'open'", 'undefined'],
  viscosity: ['0.05', '1e-6', '100', '0', '101', 'NaN', 'undefined'],
  precision: ["'f32'", "'f64'", "'f16'", 'undefined'],
  executionSpace: ["'host'", "'webgpu'", 'undefined'],
  threads: ['1', '2', '0', 'NaN', '1.5', 'undefined'],
  signal: ["'not a signal'", 'null'],
  onProgress: ["'not a function'", 'null'],
};

/** A lattice in one of a few states. */
function state(flow, r, name) {
  if (name === 'quiet') return new flow.Lattice({ shape: [6, 6, 6] });
  if (name === 'porous, walled') {
    return new flow.Lattice({
      shape: [8, 8, 8],
      solid: mask(r, 512, 0.2),
      periodic: [true, false, false],
      bodyForce: [1e-5, 0, 0],
    });
  }
  if (name === 'pressure-driven') {
    return new flow.Lattice({
      shape: [8, 6, 6],
      periodic: [false, true, true],
      pressure: { axis: 'x', inletDensity: 1.01, outletDensity: 0.99 },
    });
  }
  if (name === 'sparse f32') {
    return new flow.Lattice({
      shape: [8, 8, 8],
      solid: mask(r, 512, 0.5),
      layout: 'sparse',
      precision: 'f32',
      bodyForce: [0, 1e-5, 0],
    });
  }
  const l = new flow.Lattice(base());
  l.step(3);
  return l;
}
const states = ['flowing', 'quiet', 'porous, walled', 'pressure-driven', 'sparse f32'];

/** Is the lattice fully periodic without pressure (mass conserved by a step)? */
const closed = (start) => start === 'flowing' || start === 'quiet';

const onProgressKinds = [...progressKinds, 'reads velocity', 'writes NaN into force', 'sets bodyForce'];

function progress(kind, l, flow, seen) {
  return hostileProgress(kind, l, flow, seen, {
    again: { maxSteps: 10 },
    extra: {
      'reads velocity': () => {
        seen.sum = l.velocity.reduce((a, b) => a + b, 0);
      },
      'writes NaN into force': () => l.force.fill(Number.NaN),
      'sets bodyForce': () => {
        try {
          l.bodyForce = [2e-5, 0, 0];
        } catch (e) {
          seen.errors.push(e);
        }
      },
    },
  });
}

/** Options of flowFields and writeFlowVti, `bad` where they are refused. */
const fieldOptions = {
  undefined: { make: () => undefined },
  '{ pressureGradient: 1e4 }': { make: () => ({ pressureGradient: 1e4 }) },
  '{ viscosity: 1e-3, pressureGradient: 2 }': { make: () => ({ viscosity: 1e-3, pressureGradient: 2 }) },
  '{ viscosity: -1 }': { make: () => ({ viscosity: -1 }), bad: true },
  '{ pressureGradient: NaN }': { make: () => ({ pressureGradient: Number.NaN }), bad: true },
  "{ viscosity: '1' }": { make: () => ({ viscosity: '1' }), bad: true },
  '{ bogus: 1 }': { make: () => ({ bogus: 1 }), bad: true },
  null: { make: () => null },
  5: { make: () => 5, bad: true },
};

async function withTempFolder(fn) {
  const dir = mkdtempSync(join(tmpdir(), 'peclet-hostile-fields-'));
  try {
    await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** flowFields / writeFlowVti on a successful result: the sample's shape, physical units, the file. */
async function checkFlowFields(plan, h, flow, result, image) {
  const entry = fieldOptions[plan.fieldOptions];
  const options = entry.make();
  const count = image.solid.length;
  if (plan.fields === 'flowFields') {
    const got = await h.call(`flowFields(result, ${plan.fieldOptions})`, () => flow.flowFields(result, options), {
      bad: entry.bad === true,
    });
    if (!got.ok) return;
    const f = got.value;
    if (f.shape.join() !== image.shape.join()) h.problem(`flowFields shape [${f.shape}], the image's [${image.shape}]`);
    if (f.solid.length !== count || f.velocity.length !== 3 * count || f.pressure.length !== count)
      h.problem('flowFields arrays are not the sample size');
    for (let v = 0; v < count; v++) {
      if ((f.solid[v] !== 0) !== (image.solid[v] !== 0)) {
        h.problem(`flowFields solid differs from the image at voxel ${v}`);
        break;
      }
      if (f.solid[v] === 0 && !Number.isFinite(f.pressure[v])) {
        h.problem(`flowFields pressure ${f.pressure[v]} in pore voxel ${v}`);
        break;
      }
    }
    return;
  }
  await withTempFolder(async (dir) => {
    await h.call(
      `writeFlowVti(result, flow.vti, ${plan.fieldOptions})`,
      () => flow.writeFlowVti(result, join(dir, 'flow.vti'), options),
      { bad: entry.bad === true },
    );
  });
}

export const flowTargets = {
  'flow.new Lattice': {
    build: (r) => {
      const field = r.pick(Object.keys(optionValues));
      const plan = {
        field,
        value: r.pick(Object.keys(optionValues[field])),
        options: r.pick(['object', 'object', 'object', 'null', 'a Proxy', 'getter throwing', 'unknown key']),
      };
      if (plan.value.endsWith('(memory cap)')) plan.memoryLimitKiB = CAP_KIB;
      return plan;
    },
    async exec(plan, h, { flow, r }) {
      const entry = optionValues[plan.field][plan.value];
      const keep = [];
      let options = base();
      options[plan.field] = entry.v(r, flow, keep);
      if (entry.walled !== undefined) {
        const periodic = [true, true, true];
        periodic[entry.walled] = false;
        options.periodic = periodic;
      }
      if (entry.shape) options.shape = entry.shape;
      if (entry.withSolid) options.solid = new Uint8Array(512);
      if (entry.noViscosity) delete options.viscosity;
      if (plan.value === "{ model: 'bgk', tau: 1 } with viscosity") options.viscosity = 0.1;
      if (plan.options === 'null') options = null;
      if (plan.options === 'unknown key') options.bogus = 1;
      if (plan.options === 'getter throwing') {
        const target = options;
        options = {
          ...target,
          get layout() {
            throw new RangeError('hostile getter');
          },
        };
      }
      if (plan.options === 'a Proxy') {
        let reads = 0;
        const target = options;
        options = new Proxy(target, {
          get: (t, k) => (k === 'bodyForce' && reads++ > 0 ? [Number.NaN, 0, 0] : t[k]),
        });
      }
      // An unknown key is a TypeError naming it (core's readOptions).
      const bad =
        (entry.bad && plan.options !== 'getter throwing') || plan.options === 'null' || plan.options === 'unknown key';
      const result = await h.call(
        `new Lattice({ ${plan.field}: ${plan.value} }) (${plan.options})`,
        () => new flow.Lattice(options),
        {
          bad,
          allow: (e) => plan.options === 'getter throwing' && e instanceof RangeError && e.message === 'hostile getter',
        },
      );
      if (!result.ok) {
        if (plan.options === 'object' && !entry.unsure) {
          const roots = [rootOf(plan.field), 'options'];
          if (['pressure', 'solidFraction', 'sdf'].includes(plan.field)) roots.push('shape', 'solid', 'periodic');
          if (plan.field === 'relaxation') roots.push('viscosity');
          checkNamed(h, 'new Lattice', result.error, roots);
        }
        for (const k of keep) k.release();
        return;
      }
      const l = result.value;
      if (l.shape.some((n) => !Number.isInteger(n) || n < 1)) h.problem(`shape ${l.shape}`);
      const voxels = l.shape[0] * l.shape[1] * l.shape[2];
      if (l.velocity.length !== 3 * voxels || l.density.length !== voxels)
        h.problem(`fields of ${l.velocity.length}/${l.density.length} for ${voxels} voxels`);
      if (!(l.viscosity > 0 && Number.isFinite(l.viscosity))) h.problem(`viscosity ${l.viscosity}`);
      // A lattice that was accepted must step: finite fields, or PECLET_DIVERGED.
      const stepped = await h.call('step(5)', () => l.step(5), {
        digest: () => digestLattice(l),
        allow: diverged,
      });
      if (stepped.ok) checkFinite(h, l, 'after step(5)');
      l.release();
      for (const k of keep) k.release();
    },
  },

  'flow.step': {
    build: (r) => ({
      n: r.pick([...Object.keys(smallCounts), '2**41', '2**53', '1e308', '200']),
      start: r.pick(states),
      released: r.chance(0.05),
    }),
    async exec(plan, h, { flow, r }) {
      const l = state(flow, r, plan.start);
      if (plan.released) l.release();
      const n = numberOf(plan.n);
      const valid = !plan.released && (n === undefined || (Number.isInteger(n) && n >= 0 && n <= 2 ** 40));
      // Σ density over the fluid (step(0) on a lattice never stepped reports mass 0: reported).
      const before = l.released ? undefined : { steps: l.stepCount, mass: l.density.reduce((a, d) => a + d, 0) };
      const result = await h.call(`step(${plan.n}) on ${plan.start}`, () => l.step(n), {
        digest: () => digestLattice(l),
        mustThrow: valid ? undefined : 'an invalid step count or a released lattice must throw',
        allow: diverged,
      });
      if (!result.ok) return;
      const taken = n === undefined ? 1 : n;
      if (result.value.steps !== taken) h.problem(`step(${plan.n}) reports ${result.value.steps} steps`);
      if (l.stepCount !== before.steps + taken) h.problem(`stepCount ${l.stepCount}, expected ${before.steps + taken}`);
      checkFinite(h, l, 'after step');
      // step(0) reports mass 0 on a lattice never stepped (reported): compared after a step only.
      if (taken > 0 && closed(plan.start) && Math.abs(result.value.mass - before.mass) > 1e-9 * before.mass)
        h.problem(`mass not conserved in a periodic lattice: ${before.mass} → ${result.value.mass}`);
    },
  },

  'flow.run': {
    build: (r) => ({
      maxSteps: r.pick(['undefined', '1', '50', '1e6 (stopped)', '0', '-1', 'NaN', '1.5', '2**41', "'1' (string)"]),
      tolerance: r.pick(['undefined', '0', '1e-3', '0.5', '1', '-1', 'NaN', 'Infinity', '5e-324']),
      checkInterval: r.pick(['undefined', '1', '10', '0', '-1', 'NaN', '1e9', '1.5']),
      signal: r.pick(['none', 'none', 'an AbortSignal', 'aborted before', 'not a signal']),
      options: r.pick(['object', 'object', 'object', 'null', 'a number']),
      onProgress: r.pick(onProgressKinds),
      cancel: r.pick([
        'none',
        'none',
        'abort after 10 ms',
        'release() after 10 ms',
        'finalize() after 10 ms',
        'a second run() at once',
        'step() at once',
      ]),
      start: r.pick(states),
    }),
    async exec(plan, h, { flow, r }) {
      const l = state(flow, r, plan.start);
      const controller = new AbortController();
      const reason = new Error('hostile abort');
      if (plan.signal === 'aborted before') controller.abort(reason);
      const seen = { count: 0, errors: [] };
      const stopper = ['abort after 10 ms', 'release() after 10 ms', 'finalize() after 10 ms'].includes(plan.cancel);
      const maxSteps = plan.maxSteps === '1e6 (stopped)' ? (stopper ? 1e6 : 500) : numberOf(plan.maxSteps);
      const tolerance = numberOf(plan.tolerance);
      const checkInterval = numberOf(plan.checkInterval);
      const options = {};
      if (plan.maxSteps !== 'undefined') options.maxSteps = maxSteps;
      if (plan.tolerance !== 'undefined') options.tolerance = tolerance;
      if (plan.checkInterval !== 'undefined') options.checkInterval = checkInterval;
      // An abort needs the signal (a run of 1e6 steps must not go on unheard).
      const withSignal =
        plan.signal === 'an AbortSignal' ||
        plan.signal === 'aborted before' ||
        (plan.signal === 'none' && plan.cancel === 'abort after 10 ms');
      if (withSignal) options.signal = controller.signal;
      if (plan.signal === 'not a signal') options.signal = { aborted: false, addEventListener() {} };
      options.onProgress = progress(plan.onProgress, l, flow, seen);
      // Unbounded by default (100,000 steps, tolerance 1e-6 may never be reached): keep runs short.
      if (plan.maxSteps === 'undefined' && !stopper) options.maxSteps = 300;
      const validMax =
        options.maxSteps === undefined ||
        (Number.isInteger(options.maxSteps) && options.maxSteps >= 1 && options.maxSteps <= 2 ** 40);
      const validTol =
        options.tolerance === undefined ||
        (typeof options.tolerance === 'number' && options.tolerance >= 0 && options.tolerance < 1);
      const validInterval =
        options.checkInterval === undefined ||
        (Number.isInteger(options.checkInterval) && options.checkInterval >= 1 && options.checkInterval <= 1e6);
      const bad =
        plan.options !== 'object' || !validMax || !validTol || !validInterval || plan.signal === 'not a signal';
      const argument = plan.options === 'null' ? null : plan.options === 'a number' ? 5 : options;
      const ending = (e) =>
        e === reason ||
        diverged(e) ||
        unsettled(e) ||
        (plan.onProgress === 'throws' && e instanceof Error && e.message === 'hostile onProgress');
      const first = h.call(
        `run({ maxSteps: ${describe(options.maxSteps)}, tolerance: ${plan.tolerance}, checkInterval: ${plan.checkInterval}, signal: ${plan.signal}, onProgress: ${plan.onProgress} }) (${plan.options}, ${plan.cancel}) on ${plan.start}`,
        () => residualMarked(l.run(argument), Number.isInteger(checkInterval) ? checkInterval : 100),
        { allow: ending, bad },
      );
      let second;
      if (plan.cancel === 'a second run() at once')
        second = h.call('a second run() at once', () => residualMarked(l.run({ maxSteps: 10 })));
      if (plan.cancel === 'step() at once')
        second = h.call('step(1) during run()', () => l.step(1), { allow: diverged });
      if (plan.cancel === 'abort after 10 ms') setTimeout(() => controller.abort(reason), 10);
      if (plan.cancel === 'release() after 10 ms') setTimeout(() => l.release(), 10);
      if (plan.cancel === 'finalize() after 10 ms') setTimeout(() => flow.finalize(), 10);
      const result = await first;
      if (!result.ok && bad && result.error !== reason)
        checkNamed(h, 'run', result.error, [
          'options',
          'maxSteps',
          'tolerance',
          'checkInterval',
          'signal',
          'onProgress',
        ]);
      const killed =
        ['release() after 10 ms', 'finalize() after 10 ms'].includes(plan.cancel) ||
        ['calls release()', 'calls finalize()'].includes(plan.onProgress);
      if (killed && !bad && !result.ok && result.error?.argument === undefined) {
        const e = result.error;
        const fine =
          cancelled(e) ||
          e === reason ||
          diverged(e) ||
          (plan.onProgress === 'throws' && e?.message === 'hostile onProgress');
        if (!fine)
          h.problem(
            `a run stopped by release()/finalize() rejected with ${e?.constructor?.name} ${e?.code ?? ''}: ${e?.message}`,
          );
      }
      if (maxSteps === 1e6 && stopper && result.ok && result.value.steps >= 1e6)
        h.problem('a run of 1e6 steps ran to its end although it was stopped');
      if (result.ok) {
        const v = result.value;
        if (!(Number.isInteger(v.steps) && v.steps >= 1)) h.problem(`run reports ${v.steps} steps`);
        if (validMax && options.maxSteps !== undefined && v.steps > options.maxSteps)
          h.problem(`run took ${v.steps} steps, more than maxSteps ${options.maxSteps}`);
        if (v.meanVelocity.some((x) => !Number.isFinite(x))) h.problem(`run meanVelocity [${v.meanVelocity}]`);
        if (plan.onProgress !== 'writes NaN into force') checkFinite(h, l, 'after run');
      }
      if (second) {
        const other = await second;
        if (plan.cancel === 'a second run() at once' && other.ok && result.ok)
          h.problem('two run() at once on one lattice were both accepted');
      }
      if (seen.nested) {
        const nested = await seen.nested;
        if (!(nested instanceof TypeError || cancelled(nested) || diverged(nested) || nested?.steps !== undefined)) {
          h.problem(`run() from onProgress ended with ${nested?.constructor?.name}: ${nested?.message}`);
        }
      }
      for (const e of seen.errors)
        if (!(e instanceof TypeError || e instanceof RangeError || diverged(e)))
          h.problem(`a call from onProgress threw ${e.constructor.name}: ${e.message}`);
      if (!l.released) {
        // Whatever the run did, the lattice still steps (or reports the divergence it reached).
        const after = await h.call('step(1) after run', () => l.step(1), {
          digest: () => digestLattice(l),
          allow: diverged,
        });
        if (after.ok && plan.onProgress !== 'writes NaN into force') checkFinite(h, l, 'after step(1)');
      }
    },
  },

  'flow.fields': {
    build: (r) => ({
      field: r.pick(['porosity', 'force', 'velocity', 'density']),
      value: r.pick(['NaN', 'Infinity', '-Infinity', '1e308', '-1e308', '0', '-1', '2', '5e-324', '0.5', '1e-3']),
      where: r.pick(['one voxel', 'every voxel', 'a solid voxel']),
      after: r.pick(['step(20)', 'step(1)', 'run({ maxSteps: 200 })', 'release()', 'finalize()']),
      start: r.pick(states),
    }),
    async exec(plan, h, { flow, r }) {
      const l = state(flow, r, plan.start);
      const view = l[plan.field];
      // velocity and density are outputs: a step rewrites them in the fluid only, so what the
      // caller wrote into a solid voxel (density 0 there) stays.
      const skip = new Set();
      if (plan.field === 'velocity' || plan.field === 'density') {
        for (const [i, d] of l.density.entries()) if (d === 0) skip.add(i);
      }
      const value = numberOf(plan.value) ?? Number(plan.value);
      const per = plan.field === 'force' || plan.field === 'velocity' ? 3 : 1;
      if (plan.where === 'every voxel') view.fill(value);
      else if (plan.where === 'one voxel') view.fill(value, per * 17, per * 18);
      else {
        const density = l.density;
        const s = density.indexOf(0);
        view.fill(value, per * Math.max(s, 0), per * (Math.max(s, 0) + 1));
      }
      const label = `${plan.field}[${plan.where}] = ${plan.value} then ${plan.after} on ${plan.start}`;
      if (plan.after === 'release()' || plan.after === 'finalize()') {
        await h.call(label, () => (plan.after === 'release()' ? l.release() : flow.finalize()));
        if (view.length !== 0) h.problem(`${plan.field} taken before ${plan.after} is not detached`);
        return;
      }
      const result = await h.call(
        label,
        () =>
          plan.after === 'step(20)'
            ? l.step(20)
            : plan.after === 'step(1)'
              ? l.step(1)
              : residualMarked(l.run({ maxSteps: 200, tolerance: 0 })),
        { allow: diverged },
      );
      if (result.ok) checkFinite(h, l, label, { skip });
      if (!l.released) {
        // After a divergence the lattice is still an object: its members answer or throw cleanly.
        await h.call('info', () => l.info);
        await h.call('step(1) again', () => l.step(1), { allow: diverged });
      }
    },
  },

  'flow.Lattice members': {
    build: (r) => ({
      member: r.member([
        'id',
        'released',
        'shape',
        'viscosity',
        'info',
        'layout',
        'stepCount',
        'executionSpace',
        'velocity',
        'density',
        'porosity',
        'force',
        'bodyForce',
        'bodyForce =',
        'setPressure',
        'flux',
        'writeVti',
        'slab',
      ]),
      value: r.pick([
        'valid',
        'valid',
        'NaN',
        '1e300',
        'Infinity',
        'wrong length',
        'a string',
        'undefined',
        '-1',
        '3',
        '0',
        '1e-300',
      ]),
      start: r.pick(states),
      when: r.pick(['idle', 'idle', 'idle', 'released', 'finalized', 'during run()']),
    }),
    async exec(plan, h, { flow, r }) {
      const l = state(flow, r, plan.start);
      const old = l.velocity;
      let running;
      if (plan.when === 'released') l.release();
      if (plan.when === 'finalized') flow.finalize();
      if (plan.when === 'during run()') running = l.run({ maxSteps: 1e6, tolerance: 0 }).catch((e) => e);
      const gone = plan.when === 'released' || plan.when === 'finalized';
      // `slab` reads what the lattice was built with (undefined without mpi): answered once released too.
      const always = ['id', 'released', 'shape', 'viscosity', 'slab'].includes(plan.member);
      const v = plan.value;
      const scalar = {
        NaN: Number.NaN,
        '1e300': 1e300,
        Infinity: Number.POSITIVE_INFINITY,
        '-1': -1,
        3: 3,
        0: 0,
        '1e-300': 1e-300,
      };
      let fn;
      let bad = false;
      let dir;
      let label = `${plan.member} (${plan.start}, ${plan.when})`;
      if (plan.member === 'bodyForce =') {
        const value =
          v === 'valid'
            ? [0, 2e-5, 0]
            : v === 'wrong length'
              ? [0, 0]
              : v === 'a string'
                ? '1e-5'
                : v === 'undefined'
                  ? undefined
                  : [scalar[v], 0, 0];
        bad = !(v === 'valid' || ['0', '1e-300', '-1'].includes(v));
        label = `bodyForce = ${v} (${plan.start}, ${plan.when})`;
        fn = () => {
          l.bodyForce = value;
        };
      } else if (plan.member === 'setPressure') {
        const inlet = v === 'valid' ? 1.02 : v === 'a string' ? '1.02' : scalar[v];
        const ok = typeof inlet === 'number' && inlet > 0.1 && inlet < 10;
        bad = plan.start !== 'pressure-driven' || !ok;
        label = `setPressure(${v}, 0.98) (${plan.start}, ${plan.when})`;
        fn = () => l.setPressure(inlet, 0.98);
      } else if (plan.member === 'flux') {
        const axis = { valid: 'x', 3: 3, '-1': -1, 0: 0, 'a string': 'w', NaN: Number.NaN }[v] ?? 'y';
        bad = !['x', 'y', 'z', 0, 1, 2].includes(axis);
        label = `flux(${describe(axis)}) (${plan.start}, ${plan.when})`;
        fn = () => l.flux(axis);
      } else if (plan.member === 'writeVti') {
        dir = mkdtempSync(join(tmpdir(), 'peclet-hostile-flow-'));
        const voxelSize = v === 'valid' ? 1e-6 : v === 'a string' ? '1' : v === 'undefined' ? undefined : scalar[v];
        label = `writeVti(tmp, { voxelSize: ${v} }) (${plan.start}, ${plan.when})`;
        // A voxel size that is not a positive finite number cannot be written.
        bad = !(
          voxelSize === undefined ||
          (typeof voxelSize === 'number' && voxelSize > 0 && Number.isFinite(voxelSize))
        );
        fn = () => l.writeVti(join(dir, 'lattice.vti'), { voxelSize });
      } else fn = () => l[plan.member];
      const result = await h.call(label, fn, {
        digest: plan.when === 'idle' ? () => digestLattice(l) : undefined,
        bad: bad && !gone,
        mustThrow: gone && !always ? 'a released lattice must throw ReleasedError' : undefined,
      });
      if (dir) rmSync(dir, { recursive: true, force: true });
      if (running) {
        l.release();
        const end = await running;
        if (!cancelled(end))
          h.problem(
            `run() stopped by release() ended with ${end?.constructor?.name} ${end?.code ?? ''}: ${end?.message}`,
          );
      }
      if (gone && old.length !== 0) h.problem(`velocity taken before (${plan.when}) still has length ${old.length}`);
      if (plan.when === 'idle' && result.ok && ['velocity', 'density', 'porosity', 'force'].includes(plan.member))
        repeatedReads(h, label, () => l[plan.member], 'flow');
      if (result.ok && plan.member === 'flux' && !Number.isFinite(result.value)) h.problem(`flux is ${result.value}`);
      if (result.ok && plan.member === 'slab' && result.value !== undefined)
        h.problem(`slab of a lattice built without mpi is ${describe(result.value)}, not undefined`);
      if (result.ok && plan.member === 'info') {
        for (const [k, x] of Object.entries(result.value))
          if (typeof x === 'number' && !(Number.isFinite(x) && x >= 0)) h.problem(`info.${k} is ${x}`);
      }
      if (!result.ok && !gone && bad)
        checkNamed(h, label, result.error, [
          'bodyForce',
          'inletDensity',
          'outletDensity',
          'setPressure',
          'pressure',
          'axis',
          'voxelSize',
          'spacing',
          'options',
        ]);
    },
  },

  'flow.permeability': {
    build: (r) => {
      const huge = r.chance(0.04);
      // One option set to a hostile value on valid others (with every option hostile at once
      // the first reader would refuse each call, and valid runs would be rare).
      const field = r.pick(Object.keys(permeabilityValues));
      const plan = {
        image: huge
          ? 'random 192³ (memory cap)'
          : r.chance(0.4)
            ? r.pick(['random 10³, 30% solid', 'random 12x8x6, 20% solid', 'all pore 6³', '1 pore voxel'])
            : r.pick(Object.keys(images)),
        field: huge ? 'precision' : field,
        value: huge ? r.pick(["'f64'", 'undefined']) : r.pick(permeabilityValues[field]),
        drive: r.pick(['undefined', "'pressure'"]),
        options: huge ? 'object' : r.pick(['object', 'object', 'object', 'object', 'null', 'a number', 'unknown key']),
        cancel: huge
          ? 'none'
          : r.pick([
              'none',
              'none',
              'none',
              'abort after 5 ms',
              'aborted before',
              'finalize() after 5 ms',
              'onProgress throws',
            ]),
      };
      if (huge) plan.memoryLimitKiB = CAP_KIB;
      // Drawn last, so the plans above stay what they were for every case id.
      plan.fields = r.pick(['none', 'flowFields', 'writeFlowVti']);
      plan.fieldOptions = r.pick(Object.keys(fieldOptions));
      return plan;
    },
    async exec(plan, h, { flow, r }) {
      let image;
      let entry;
      if (plan.image === 'random 192³ (memory cap)') {
        // 7 M voxels: the image fits under the cap, its f64 lattice (2 GB) does not.
        const n = 192;
        const solid = new Uint8Array(n * n * n);
        for (let i = 0; i < solid.length; i++) solid[i] = Math.imul(i, 2654435761) >>> 0 < 0x4ccccccd ? 1 : 0;
        entry = {};
        image = { solid, shape: [n, n, n], voxelSize: 1e-6 };
      } else {
        entry = images[plan.image];
        image = entry.make(r);
      }
      // Bounded runs: 200 steps at most unless maxSteps is the option under test.
      const options = { tolerance: 1e-3, maxSteps: 200 };
      if (plan.drive !== 'undefined') options.drive = named(plan.drive);
      if (plan.value === 'undefined') delete options[plan.field];
      else options[plan.field] = named(plan.value);
      const controller = new AbortController();
      const reason = new Error('hostile abort');
      if (plan.cancel === 'aborted before') controller.abort(reason);
      if (plan.cancel === 'abort after 5 ms' || plan.cancel === 'aborted before') options.signal = controller.signal;
      if (plan.cancel === 'onProgress throws')
        options.onProgress = () => {
          throw new Error('hostile onProgress');
        };
      if (plan.field === 'signal') options.signal = named(plan.value);
      if (plan.field === 'onProgress') options.onProgress = named(plan.value);
      if (plan.options === 'unknown key') options.bogus = true;
      const argument = plan.options === 'null' ? null : plan.options === 'a number' ? 5 : options;
      const ok = (x, test) => x === undefined || test(x);
      const validOptions =
        plan.options === 'object' &&
        ok(options.axis, (a) => ['x', 'y', 'z', 0, 1, 2].includes(a)) &&
        ok(options.drive, (d) => d === 'body-force' || d === 'pressure') &&
        ok(options.buffer, (b) => Number.isInteger(b) && b >= 0 && b <= 1000) &&
        ok(options.tolerance, (t) => typeof t === 'number' && t > 0 && t < 1) &&
        ok(options.maxSteps, (m) => Number.isInteger(m) && m >= 1 && m <= 2 ** 40) &&
        ok(options.sides, (s) => s === 'sealed' || s === 'periodic') &&
        ok(options.viscosity, (v) => typeof v === 'number' && v > 0 && v <= 100) &&
        ok(options.precision, (p) => p === 'f32' || p === 'f64') &&
        ok(options.executionSpace, (e) => e === 'host' || e === 'webgpu') &&
        ok(options.threads, (t) => Number.isInteger(t) && t >= 1) &&
        ok(options.signal, (s) => s instanceof AbortSignal) &&
        ok(options.onProgress, (f) => typeof f === 'function') &&
        !(options.drive === 'pressure' && options.buffer === 0);
      const known = plan.image === 'random 192³ (memory cap)' || !entry.unsure;
      const bad = known && (entry.bad || entry.outOfRange || entry.blocked || !validOptions);
      const ending = (e) =>
        e === reason ||
        diverged(e) ||
        unsettled(e) ||
        (plan.cancel === 'onProgress throws' && e instanceof Error && e.message === 'hostile onProgress');
      const pending = h.call(
        `permeability(${plan.image}, { ${plan.field}: ${plan.value}, drive: ${plan.drive} }) (${plan.options}, ${plan.cancel})`,
        () => residualMarked(flow.permeability(image, argument)),
        { allow: ending, bad: bad && plan.cancel !== 'finalize() after 5 ms' },
      );
      if (plan.cancel === 'abort after 5 ms') setTimeout(() => controller.abort(reason), 5);
      if (plan.cancel === 'finalize() after 5 ms') setTimeout(() => flow.finalize(), 5);
      const result = await pending;
      if (!result.ok) {
        const e = result.error;
        if (known && !validOptions && plan.options === 'object' && !entry.bad && e !== reason)
          checkNamed(h, 'permeability', e, [plan.field, 'options', 'buffer', 'image']);
        if (known && entry.blocked && validOptions && plan.cancel === 'none' && e instanceof RangeError)
          checkNamed(h, 'permeability', e, ['image']);
        return;
      }
      const v = result.value;
      const lattice = v.lattice;
      if (!(v.permeability >= 0 && Number.isFinite(v.permeability)))
        h.problem(`permeability ${v.permeability} (not finite and ≥ 0)`);
      if (!(v.millidarcy >= 0 && Number.isFinite(v.millidarcy))) h.problem(`millidarcy ${v.millidarcy}`);
      if (!(v.porosity > 0 && v.porosity <= 1)) h.problem(`porosity ${v.porosity}`);
      if (plainImage(plan.image)) {
        const pores = image.solid.reduce((a, s) => a + (s === 0 ? 1 : 0), 0);
        if (Math.abs(v.porosity - pores / image.solid.length) > 1e-12)
          h.problem(`porosity ${v.porosity}, the image has ${pores / image.solid.length}`);
      }
      if (lattice === undefined || lattice.released) h.problem('the result holds no live lattice');
      else {
        if (plan.fields !== undefined && plan.fields !== 'none') await checkFlowFields(plan, h, flow, v, image);
        lattice.release();
      }
    },
  },

  'flow.percolates': {
    build: (r) => ({
      image: r.pick(Object.keys(images)),
      axis: r.pick(["'x'", "'y'", "'z'", '0', '1', '2', 'undefined', "'w'", '3', '-1', 'NaN', "'X'", 'null']),
    }),
    async exec(plan, h, { flow, r }) {
      const entry = images[plan.image];
      const image = entry.make(r);
      const axis = {
        "'x'": 'x',
        "'y'": 'y',
        "'z'": 'z',
        "'w'": 'w',
        "'X'": 'X',
        0: 0,
        1: 1,
        2: 2,
        3: 3,
        '-1': -1,
        NaN: Number.NaN,
        null: null,
        undefined: undefined,
      }[plan.axis];
      const validAxis = axis === undefined || ['x', 'y', 'z', 0, 1, 2].includes(axis);
      // percolates() reads solid and shape only: a bad voxel size is no error there.
      const voxelOnly = /^voxelSize/.test(plan.image);
      const bad = (entry.bad && !voxelOnly) || !validAxis;
      const result = await h.call(`percolates(${plan.image}, ${plan.axis})`, () => flow.percolates(image, axis), {
        bad: bad && !entry.unsure,
      });
      if (!result.ok) return;
      if (typeof result.value !== 'boolean') h.problem(`percolates returned ${describe(result.value)}`);
      if (plainImage(plan.image) || voxelOnly) {
        const a = axis === undefined ? 0 : typeof axis === 'number' ? axis : 'xyz'.indexOf(axis);
        const want = reference(image.solid, image.shape, a);
        if (result.value !== want) h.problem(`percolates ${result.value}, the 18-connected reference says ${want}`);
      }
    },
  },

  'flow.release': {
    build: (r) => ({
      how: r.pick(['twice', 'dispose', 'during run()', 'then every member', 'during step() from onProgress']),
    }),
    async exec(plan, h, { flow, r }) {
      const l = state(flow, r, 'flowing');
      const fields = ['velocity', 'density', 'porosity', 'force'].map((k) => l[k]);
      if (plan.how === 'during run()') {
        const pending = h.call('run({ maxSteps: 1e6, tolerance: 0 })', () => l.run({ maxSteps: 1e6, tolerance: 0 }));
        await new Promise((resolve) => setTimeout(resolve, 10));
        await h.call('release()', () => l.release());
        const end = await pending;
        if (end.ok || !cancelled(end.error))
          h.problem(
            `release() during run() must make it reject with code PECLET_CANCELLED, got ${end.ok ? 'a result' : `${end.error?.constructor?.name} ${end.error?.code ?? ''}`}`,
          );
      } else if (plan.how === 'during step() from onProgress') {
        const end = await h.call('run({ onProgress: release, step })', () =>
          l.run({
            maxSteps: 1e6,
            tolerance: 0,
            checkInterval: 5,
            onProgress: () => {
              l.release();
              l.step(1);
            },
          }),
        );
        if (end.ok || !(end.error instanceof TypeError || cancelled(end.error)))
          h.problem('a run whose onProgress released the lattice must reject');
      } else if (plan.how === 'dispose') await h.call('[Symbol.dispose]()', () => l[Symbol.dispose]());
      else {
        await h.call('release()', () => l.release());
        await h.call('release() again', () => l.release());
      }
      if (plan.how === 'then every member') {
        for (const m of ['info', 'velocity', 'density', 'porosity', 'force', 'stepCount', 'layout', 'bodyForce']) {
          await h.call(`${m} after release`, () => l[m], { mustThrow: 'must throw ReleasedError' });
        }
        await h.call('step() after release', () => l.step(1), { mustThrow: 'must throw ReleasedError' });
        await h.call('run() after release', () => l.run({ maxSteps: 1 }), { mustThrow: 'must throw ReleasedError' });
        await h.call('flux() after release', () => l.flux('x'), { mustThrow: 'must throw ReleasedError' });
        await h.call('setPressure() after release', () => l.setPressure(1, 1), { mustThrow: 'must throw' });
      }
      if (!l.released) h.problem('released is false after release()');
      if (fields.some((a) => a.length !== 0)) h.problem('fields taken before release() are not detached');
    },
  },

  'flow.gpuDevice': gpuDeviceTarget('flow'),

  'flow.finalize': {
    build: (r) => ({
      how: r.member([
        'idle',
        'twice',
        'during run()',
        'during permeability()',
        'then new Lattice',
        'then permeability()',
        'from onProgress',
        'finalizeAsync during run()',
      ]),
    }),
    async exec(plan, h, { flow, r }) {
      const l = state(flow, r, 'flowing');
      const velocity = l.velocity;
      if (plan.how === 'during run()' || plan.how === 'from onProgress') {
        const pending = h.call('run', () =>
          l.run({
            maxSteps: 1e6,
            tolerance: 0,
            checkInterval: 10,
            onProgress: plan.how === 'from onProgress' ? () => flow.finalize() : undefined,
          }),
        );
        if (plan.how === 'during run()') {
          await new Promise((resolve) => setTimeout(resolve, 10));
          await h.call('finalize()', () => flow.finalize());
        }
        const end = await pending;
        if (end.ok || !(cancelled(end.error) || end.error instanceof TypeError))
          h.problem('finalize() during run() must make it reject with code PECLET_CANCELLED');
      } else if (plan.how === 'finalizeAsync during run()') {
        const pending = h.call('run', () => l.run({ maxSteps: 1e6, tolerance: 0, checkInterval: 10 }));
        await new Promise((resolve) => setTimeout(resolve, 10));
        await h.call('finalizeAsync({ timeoutMs: 2000 })', () => flow.finalizeAsync({ timeoutMs: 2000 }));
        const end = await pending;
        if (end.ok || !cancelled(end.error))
          h.problem('finalizeAsync() during run() must make it reject with code PECLET_CANCELLED');
      } else if (plan.how === 'during permeability()') {
        const image = { solid: mask(r, 16 ** 3, 0.2), shape: [16, 16, 16], voxelSize: 1e-6 };
        const pending = h.call('permeability(16³, { tolerance: 1e-300, maxSteps: 1e6 })', () =>
          flow.permeability(image, { tolerance: 1e-300, maxSteps: 1e6, sides: 'periodic' }),
        );
        await new Promise((resolve) => setTimeout(resolve, 20));
        await h.call('finalize()', () => flow.finalize());
        const end = await pending;
        // A random image may not percolate: then it was refused before any work.
        if (end.ok || !(cancelled(end.error) || end.error instanceof RangeError))
          h.problem('finalize() during permeability() must make it reject with code PECLET_CANCELLED');
      } else {
        await h.call('finalize()', () => flow.finalize());
        if (plan.how === 'twice') await h.call('finalize() again', () => flow.finalize());
        if (plan.how === 'then new Lattice')
          await h.call('new Lattice once finalized', () => new flow.Lattice(base()), {
            mustThrow: 'a finalized module must refuse new lattices',
          });
        if (plan.how === 'then permeability()')
          await h.call(
            'permeability() once finalized',
            () => flow.permeability({ solid: new Uint8Array(64), shape: [4, 4, 4], voxelSize: 1e-6 }, { maxSteps: 10 }),
            { mustThrow: 'a finalized module must refuse new work' },
          );
      }
      if (!l.released) h.problem('a lattice is still live after finalize()');
      if (velocity.length !== 0) h.problem('velocity taken before finalize() is not detached');
    },
  },
};

export { CAP_KIB };
