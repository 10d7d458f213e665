/**
 * Slab decomposition of a lattice along axis 0 over MPI ranks: the collective checks, the ghost
 * planes, the halo exchange after every step and the reductions, which give the same sums
 * whatever the number of ranks.
 * @internal
 */
import { fail, readFloat64Array, readInteger, readOptions } from '@peclet/core';
import { checkVoxelImage, type VoxelImage } from '@peclet/io';
import type { NativeLattice, NativeLatticeOptions } from './native.js';

/** A typed array MPI can move. */
type MpiBuffer = Float64Array | Float32Array | Uint8Array | Int32Array;

/**
 * What flow needs of an MPI communicator: the module namespace of `@peclet/mpi`
 * (`import * as mpi from '@peclet/mpi'`) after `mpi.init()`.
 */
export interface Mpi {
  initialized(): boolean;
  rank(): number;
  size(): number;
  allreduce<T extends MpiBuffer>(values: T, op?: 'sum' | 'min' | 'max' | 'prod'): T;
  send(values: MpiBuffer, dest: number, options?: { tag?: number }): void;
  recv(into: MpiBuffer, source?: number, options?: { tag?: number }): unknown;
  sendrecv(
    values: MpiBuffer,
    dest: number,
    into: MpiBuffer,
    source: number,
    options?: { sendTag?: number; recvTag?: number },
  ): unknown;
  barrier(): void;
}

const MPI_FUNCTIONS = ['initialized', 'rank', 'size', 'allreduce', 'send', 'recv', 'sendrecv', 'barrier'] as const;

/** Planes each rank must own: a pressure face and its neighbour, a cut link and the node behind it. */
export const MIN_PLANES = 2;

/**
 * Reads an `mpi` option: `@peclet/mpi` (or an object with its functions), initialized. Its
 * functions are read once, and its rank and size once and checked (a size ≥ 1, a rank in
 * [0, size)): the communicator returned answers with them from then on.
 */
export function readMpi(value: unknown, argument: string): Mpi {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) {
    fail('type', argument, "must be the @peclet/mpi module (import * as mpi from '@peclet/mpi'), initialized");
  }
  const functions: Partial<Record<(typeof MPI_FUNCTIONS)[number], (...args: unknown[]) => unknown>> = {};
  const missing: string[] = [];
  for (const name of MPI_FUNCTIONS) {
    let f: unknown;
    try {
      f = (value as Record<string, unknown>)[name];
    } catch (error) {
      fail('type', argument, `could not be read (${name}: ${(error as Error)?.message ?? String(error)})`);
    }
    if (typeof f === 'function') functions[name] = f as (...args: unknown[]) => unknown;
    else missing.push(name);
  }
  if (missing.length > 0) {
    fail(
      'type',
      argument,
      `has no ${missing.join(', ')}: pass the @peclet/mpi module (import * as mpi from '@peclet/mpi')`,
    );
  }
  const call =
    (name: (typeof MPI_FUNCTIONS)[number]) =>
    (...args: unknown[]) =>
      (functions[name] as (...a: unknown[]) => unknown).apply(value, args);
  if (call('initialized')() !== true)
    fail('type', argument, 'MPI is not initialized: call mpi.init() first, on every rank');
  const size = call('size')();
  const rank = call('rank')();
  if (
    !(typeof size === 'number' && Number.isInteger(size) && size >= 1 && size < 2 ** 31) ||
    !(typeof rank === 'number' && Number.isInteger(rank) && rank >= 0 && rank < size)
  ) {
    fail('type', argument, `says rank ${String(rank)} of ${String(size)}: not an MPI communicator`);
  }
  return {
    initialized: () => call('initialized')() === true,
    rank: () => rank,
    size: () => size,
    allreduce: call('allreduce') as Mpi['allreduce'],
    send: call('send') as Mpi['send'],
    recv: call('recv') as Mpi['recv'],
    sendrecv: call('sendrecv') as Mpi['sendrecv'],
    barrier: call('barrier') as Mpi['barrier'],
  };
}

/**
 * The planes along axis 0 that rank `rank` of `size` owns in an even split of `n0` planes: the
 * first `n0 % size` ranks take one more.
 */
export function evenSlab(n0: number, rank: number, size: number): { start: number; count: number } {
  const base = Math.floor(n0 / size);
  const extra = n0 % size;
  return { start: rank * base + Math.min(rank, extra), count: base + (rank < extra ? 1 : 0) };
}

/** The checks of {@link slabPlanes}: throws the same RangeError on every rank. */
export function checkSplit(n0: number, size: number, argument: string): void {
  if (n0 < MIN_PLANES * size) {
    fail(
      'range',
      argument,
      `has ${n0} plane${n0 === 1 ? '' : 's'} along axis 0, too few for ${size} ranks: each rank needs at least ` +
        `${MIN_PLANES} (at most ${Math.floor(n0 / MIN_PLANES)} rank${n0 < 2 * MIN_PLANES ? '' : 's'} for this image)`,
    );
  }
}

/**
 * The planes of a split of `weights.length` planes into `size` parts of about equal weight, each
 * at least {@link MIN_PLANES} planes: part r ends at the first plane where the running sum
 * reaches (r + 1)/size of the total. The same on every rank (the same weights).
 */
export function balancedSlab(weights: ArrayLike<number>, rank: number, size: number): { start: number; count: number } {
  const n0 = weights.length;
  let total = 0;
  for (let i = 0; i < n0; i++) total += weights[i] as number;
  if (!(total > 0)) return evenSlab(n0, rank, size);
  const ends: number[] = [];
  let sum = 0;
  let plane = 0;
  for (let r = 0; r < size; r++) {
    const first = r === 0 ? 0 : (ends[r - 1] as number);
    const last = n0 - MIN_PLANES * (size - r - 1); // leave enough planes for the ranks after
    let end = Math.min(first + MIN_PLANES, last);
    for (; plane < end; plane++) sum += weights[plane] as number;
    const target = (total * (r + 1)) / size;
    while (end < last && sum < target) {
      sum += weights[plane] as number;
      plane++;
      end++;
    }
    ends.push(r === size - 1 ? n0 : end);
  }
  const start = rank === 0 ? 0 : (ends[rank - 1] as number);
  return { start, count: (ends[rank] as number) - start };
}

/**
 * The planes along axis 0 of an image of `n0` planes that this rank owns in the slab split
 * flow uses: `{ start, count }`, as `readRaw`'s `planes` option takes them, so that each rank
 * reads only its part of a file. Even by default (the first `n0 % size` ranks take one more);
 * with `options.weights` (the work per plane, such as its pore voxels: the sparse layout's
 * cost) balanced by weight. Throws a RangeError (on every rank alike) when the image has fewer
 * than 2 planes per rank.
 */
export function slabPlanes(
  n0: number,
  mpi: Mpi,
  options: { weights?: ArrayLike<number> } = {},
): { start: number; count: number } {
  const planes = readInteger(n0, 'n0', { min: 1, max: 2 ** 32 - 1 });
  const comm = readMpi(mpi, 'mpi');
  const o = readOptions(options, 'options', ['weights'], { optional: true });
  let weights: Float64Array | undefined;
  if (o.weights !== undefined) {
    weights = readFloat64Array(o.weights, 'options.weights', { length: planes });
    const bad = weights.findIndex((w) => !(w >= 0 && Number.isFinite(w)));
    if (bad >= 0) fail('range', 'options.weights', `must be finite and ≥ 0, got ${weights[bad]}`, bad);
  }
  checkSplit(planes, comm.size(), 'n0');
  return weights ? balancedSlab(weights, comm.rank(), comm.size()) : evenSlab(planes, comm.rank(), comm.size());
}

/**
 * This rank's part of an image every rank holds whole: its planes along axis 0 in a split
 * balanced by pore voxels (the work of the sparse layout), as a voxel image (its `solid` a view
 * of the image's, no copy).
 */
export function slabOf(image: VoxelImage, mpi: Mpi): VoxelImage {
  const checked = checkVoxelImage(image, 'image');
  const comm = readMpi(mpi, 'mpi');
  checkSplit(checked.shape[0], comm.size(), 'image');
  const n12 = checked.shape[1] * checked.shape[2];
  const pores = new Float64Array(checked.shape[0]);
  for (let v = 0; v < checked.solid.length; v++) {
    if (checked.solid[v] !== 0) continue;
    const plane = Math.floor(v / n12);
    pores[plane] = (pores[plane] as number) + 1;
  }
  const { start, count } = balancedSlab(pores, comm.rank(), comm.size());
  return {
    solid: checked.solid.subarray(start * n12, (start + count) * n12),
    shape: [count, checked.shape[1], checked.shape[2]],
    voxelSize: checked.voxelSize,
  };
}

/** 32-bit FNV-1a of a string, exact in a Float64Array. */
function fingerprint(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

const TAG_UP = 7101;
const TAG_DOWN = 7102;

/**
 * A rank's place in the decomposition: its planes, its neighbours and its ghost planes. Built
 * collectively: every rank constructs it with its own slab and the same options.
 */
export class Slab {
  readonly mpi: Mpi;
  readonly rank: number;
  readonly size: number;
  /** The whole lattice's extents. */
  readonly shape: [number, number, number];
  /** This rank's first plane along axis 0 and its plane count. */
  readonly start: number;
  readonly count: number;
  /** Neighbour ranks, or -1 at a face that is not periodic. */
  readonly lower: number;
  readonly upper: number;
  /** Ghost planes of the local lattice before and after the owned ones (0 or 1 each). */
  readonly ghostLower: number;
  readonly ghostUpper: number;
  readonly planeSize: number;
  /** Every rank's plane count, in rank order. */
  readonly counts: readonly number[];
  #pushed:
    | {
        up: Float64Array | Float32Array;
        down: Float64Array | Float32Array;
        inFirst: Float64Array | Float32Array;
        inLast: Float64Array | Float32Array;
      }
    | undefined;
  #buffers:
    | {
        up: Float64Array | Float32Array;
        down: Float64Array | Float32Array;
        inLower: Float64Array | Float32Array;
        inUpper: Float64Array | Float32Array;
      }
    | undefined;

  /**
   * Collective: checks that every rank has the same extents along axes 1 and 2, at least 2
   * planes, and the same options (their `fingerprint`), and throws the same RangeError on every
   * rank when not.
   */
  constructor(
    mpi: Mpi,
    local: readonly [number, number, number],
    periodic0: boolean,
    options: string,
    argument: string,
    localError?: unknown,
  ) {
    this.mpi = mpi;
    this.rank = mpi.rank();
    this.size = mpi.size();
    const { rank, size } = this;
    const table = new Float64Array(5 * size);
    table.set([local[0], local[1], local[2], fingerprint(options), localError === undefined ? 0 : 1], 5 * rank);
    mpi.allreduce(table, 'sum');
    const failed = Array.from({ length: size }, (_, r) => r).filter((r) => table[5 * r + 4] !== 0);
    if (failed.length > 0) {
      if (localError !== undefined) throw localError;
      fail(
        'range',
        'options',
        `were refused on rank${failed.length > 1 ? 's' : ''} ${failed.join(', ')} (the error there says why): no rank builds the lattice`,
      );
    }
    const row = (r: number) => Array.from(table.subarray(5 * r, 5 * r + 4));
    const n0 = row(0)[0] as number;
    let total = 0;
    let start = 0;
    for (let r = 0; r < size; r++) {
      const [c, n1, n2, f] = row(r) as [number, number, number, number];
      if (n1 !== row(0)[1] || n2 !== row(0)[2]) {
        fail(
          'range',
          argument,
          `has extents [${c}, ${n1}, ${n2}] on rank ${r} but [${n0}, ${row(0)[1]}, ${row(0)[2]}] on rank 0: ` +
            'every rank gives its own planes along axis 0 of one image, whose other extents are the same',
        );
      }
      if (c < MIN_PLANES) {
        fail(
          'range',
          argument,
          `has ${c} plane${c === 1 ? '' : 's'} along axis 0 on rank ${r}: each of the ${size} ranks needs at least ` +
            `${MIN_PLANES} (fewer ranks, or a larger image)`,
        );
      }
      if (f !== row(0)[3]) {
        fail(
          'range',
          'options',
          `differ between rank ${r} and rank 0: every rank must build the lattice with the same options`,
        );
      }
      if (r < rank) start += c;
      total += c;
    }
    this.shape = [total, local[1], local[2]];
    this.counts = Array.from({ length: size }, (_, r) => row(r)[0] as number);
    this.start = start;
    this.count = local[0];
    this.planeSize = local[1] * local[2];
    const split = size > 1;
    this.lower = !split ? -1 : rank > 0 ? rank - 1 : periodic0 ? size - 1 : -1;
    this.upper = !split ? -1 : rank < size - 1 ? rank + 1 : periodic0 ? 0 : -1;
    this.ghostLower = this.lower >= 0 ? 1 : 0;
    this.ghostUpper = this.upper >= 0 ? 1 : 0;
  }

  /** Planes of the local lattice: the owned ones and the ghosts. */
  get localPlanes(): number {
    return this.count + this.ghostLower + this.ghostUpper;
  }

  /**
   * `values` (this rank's planes, `components` values per voxel) with the ghost planes added:
   * the neighbours' edge planes, received from them. Collective.
   */
  withGhosts<T extends Uint8Array | Float64Array>(values: T, components = 1): T {
    const plane = this.planeSize * components;
    const Ctor = values.constructor as new (n: number) => T;
    const out = new Ctor(this.localPlanes * plane);
    out.set(values, this.ghostLower * plane);
    const first = values.subarray(0, plane);
    const last = values.subarray(values.length - plane);
    // Upwards: my last plane is the lower ghost of the rank above.
    this.#shift(last, out.subarray(0, plane), TAG_UP, true);
    // Downwards: my first plane is the upper ghost of the rank below.
    this.#shift(first, out.subarray(out.length - plane), TAG_DOWN, false);
    return out;
  }

  /**
   * Sends `values` to the neighbour in one direction and receives `into` from the other:
   * `up` sends to the upper neighbour and receives from the lower one. A face that is not
   * periodic only sends or only receives, so the chain completes from its ends.
   */
  #shift(values: MpiBuffer, into: MpiBuffer, tag: number, up: boolean): void {
    const to = up ? this.upper : this.lower;
    const from = up ? this.lower : this.upper;
    if (to >= 0 && from >= 0) this.mpi.sendrecv(values, to, into, from, { sendTag: tag, recvTag: tag });
    else if (to >= 0) this.mpi.send(values, to, { tag });
    else if (from >= 0) this.mpi.recv(into, from, { tag });
  }

  /**
   * After a step, the halo exchange. Two lattices, and in place after an even number of steps:
   * each ghost plane takes the post-collision populations its neighbour's edge plane sends
   * across (the 5 that cross towards this rank), all other values of the ghost never being
   * read. In place after an odd number of steps the other way round: each edge plane pushed
   * its crossing populations into the ghost beside it, and they go to the neighbour's edge
   * plane, where the next step reads them.
   */
  exchange(lattice: NativeLattice, precision: 'f64' | 'f32'): void {
    if (this.size === 1) return;
    const first = this.ghostLower;
    const last = this.ghostLower + this.count - 1;
    const top = this.localPlanes - 1;
    const Ctor = precision === 'f32' ? Float32Array : Float64Array;
    const sized = (plane: number) => new Ctor(lattice.haloSize(plane));
    const none = new Ctor(0);
    const info = lattice.info;
    if (info.streaming === 'in-place' && info.stepCount % 2 === 1) {
      this.#pushed ??= {
        up: this.ghostUpper ? sized(top) : none,
        down: this.ghostLower ? sized(0) : none,
        inFirst: this.ghostLower ? sized(first) : none,
        inLast: this.ghostUpper ? sized(last) : none,
      };
      const b = this.#pushed;
      if (this.upper >= 0) lattice.packHalo(top, 1, b.up);
      this.#shift(b.up, b.inFirst, TAG_UP, true);
      if (this.lower >= 0) lattice.unpackHalo(first, 1, b.inFirst);
      if (this.lower >= 0) lattice.packHalo(0, -1, b.down);
      this.#shift(b.down, b.inLast, TAG_DOWN, false);
      if (this.upper >= 0) lattice.unpackHalo(last, -1, b.inLast);
      return;
    }
    this.#buffers ??= {
      up: sized(last),
      down: sized(first),
      inLower: this.ghostLower ? sized(0) : none,
      inUpper: this.ghostUpper ? sized(top) : none,
    };
    const b = this.#buffers;
    if (this.upper >= 0) lattice.packHalo(last, 1, b.up);
    this.#shift(b.up, b.inLower, TAG_UP, true);
    if (this.lower >= 0) lattice.unpackHalo(0, 1, b.inLower);
    if (this.lower >= 0) lattice.packHalo(first, -1, b.down);
    this.#shift(b.down, b.inUpper, TAG_DOWN, false);
    if (this.upper >= 0) lattice.unpackHalo(top, -1, b.inUpper);
  }

  /**
   * Sums over the whole lattice of `k` quantities, the same on every rank and the same whatever
   * the number of ranks: `fill(plane, out)` adds this rank's plane `plane` (its index along axis
   * 0 of the whole lattice) into `out` (k values, zero); the per-plane sums are reduced (each
   * non-zero on one rank only, so exactly) and added in plane order. Collective.
   */
  sums(k: number, fill: (plane: number, local: number, out: Float64Array) => void, extra?: Float64Array): Float64Array {
    const n0 = this.shape[0];
    const extraLength = extra?.length ?? 0;
    const table = new Float64Array(k * n0 + extraLength);
    for (let p = 0; p < this.count; p++) {
      fill(this.start + p, this.ghostLower + p, table.subarray(k * (this.start + p), k * (this.start + p + 1)));
    }
    if (extra) table.set(extra, k * n0);
    this.mpi.allreduce(table, 'sum');
    const total = new Float64Array(k + extraLength);
    for (let p = 0; p < n0; p++)
      for (let i = 0; i < k; i++) total[i] = (total[i] as number) + (table[k * p + i] as number);
    if (extra) total.set(table.subarray(k * n0), k);
    return total;
  }

  /** Sums `values` over the ranks (counts and flags). Collective. */
  total(values: readonly number[]): number[] {
    return Array.from(this.mpi.allreduce(Float64Array.from(values), 'sum'));
  }
}

/**
 * Joins the collective construction of a lattice the other ranks are in with this rank's
 * `error`, so that every rank throws (this one `error`).
 */
export function refuseTogether(mpi: Mpi, error: unknown): never {
  new Slab(mpi, [0, 0, 0], false, '', 'image', error);
  throw error;
}

/** Reads the `mpi` member of an options object when it is a plain data property (no getter runs). */
export function mpiOption(options: unknown): unknown {
  if (options === null || typeof options !== 'object') return undefined;
  return Object.getOwnPropertyDescriptor(options, 'mpi')?.value;
}

/** Bytes a step moves per node in each layout (as the native lattice counts them). */
function autoLayout(fluid: number, voxels: number, precision: 'f64' | 'f32'): 'dense' | 'sparse' {
  const t = precision === 'f32' ? 4 : 8;
  return fluid * (38 * t + 76) < voxels * (38 * t + 1) ? 'sparse' : 'dense';
}

/** What a collective batch of steps reached. */
export interface Advance {
  readonly steps: number;
  /** The step that would have diverged on some rank (not taken on any). */
  readonly divergedAt: number | undefined;
  readonly cancelled: boolean;
}

/**
 * The distributed half of a {@link Lattice} built with `mpi`: this rank's native lattice (its
 * planes with a ghost plane at each side that has a neighbour) and the collective operations.
 */
export class Distributed {
  readonly slab: Slab;
  readonly native: NativeLattice;
  readonly precision: 'f64' | 'f32';
  /** Seconds this rank spent stepping, and exchanging halos (and agreeing on each step's outcome). */
  stepSeconds = 0;
  haloSeconds = 0;

  /**
   * Collective. `settings` are this rank's options, or undefined with `localError` when they
   * were refused: then every rank throws (this one its own error).
   */
  constructor(
    mpi: Mpi,
    settings: NativeLatticeOptions | undefined,
    localError: unknown,
    create: (options: NativeLatticeOptions) => NativeLattice,
  ) {
    const o = settings;
    const kind =
      o === undefined ? 'none' : o.solid ? 'solid' : o.solidFraction ? 'solidFraction' : o.sdf ? 'sdf' : 'open';
    const agreed =
      o === undefined
        ? ''
        : JSON.stringify([
            kind,
            o.shape[1],
            o.shape[2],
            o.periodic,
            o.model,
            o.tau,
            o.magic,
            o.bodyForce,
            o.inertia,
            o.precision,
            o.layout,
            o.pressureAxis,
            o.inletDensity,
            o.outletDensity,
          ]);
    this.slab = new Slab(mpi, o?.shape ?? [0, 0, 0], o?.periodic[0] ?? false, agreed, 'shape', localError);
    const options = o as NativeLatticeOptions;
    const slab = this.slab;
    if (options.pressureAxis === 0 && slab.shape[0] < 3) {
      fail('range', 'shape', 'a pressure drive needs at least 3 planes along its axis');
    }
    this.precision = options.precision;
    const solid = options.solid ? slab.withGhosts(options.solid) : undefined;
    const solidFraction = options.solidFraction ? slab.withGhosts(options.solidFraction) : undefined;
    const sdf = options.sdf ? slab.withGhosts(options.sdf) : undefined;
    let layout = options.layout;
    if (layout === 'auto' && !sdf) {
      // One layout on every rank, chosen as one lattice would choose it.
      let fluid = 0;
      const owned = slab.count * slab.planeSize;
      const from = slab.ghostLower * slab.planeSize;
      for (let v = from; v < from + owned; v++) {
        const isSolid = solid ? solid[v] !== 0 : solidFraction ? (solidFraction[v] as number) >= 1 : false;
        if (!isSolid) fluid++;
      }
      const [total, voxels] = slab.total([fluid, owned]) as [number, number];
      layout = autoLayout(total, voxels, options.precision);
    }
    const periodic: [boolean, boolean, boolean] = [...options.periodic];
    if (slab.size > 1) periodic[0] = false; // the ghost planes stand for the neighbours
    let native: NativeLattice | undefined;
    let error: unknown;
    try {
      native = create({
        ...options,
        shape: [slab.localPlanes, slab.shape[1], slab.shape[2]],
        solid,
        solidFraction,
        sdf,
        periodic,
        layout,
      });
    } catch (e) {
      error = e;
    }
    let failures: number;
    try {
      [failures] = slab.total([error === undefined ? 0 : 1]) as [number];
    } catch (e) {
      native?.release();
      throw e;
    }
    if (failures > 0) {
      native?.release();
      if (error !== undefined) throw error;
      fail(
        'range',
        'shape',
        `the lattice could not be built on ${failures} other rank${failures > 1 ? 's' : ''} (the error there says why)`,
      );
    }
    this.native = native as NativeLattice;
    try {
      // The ghost planes hold the neighbours' state from the start (all at rest, but the same code path).
      this.slab.exchange(this.native, this.precision);
      this.native.refreshFields();
    } catch (e) {
      this.native.release();
      throw e;
    }
  }

  /**
   * Collective: whether any rank's lattice is released or its call cannot start (`refused`),
   * checked before every collective call so that no rank waits for one that will never come.
   */
  ready(refused: boolean, agreed: readonly number[] = []): { released: boolean; refused: boolean; agreed: boolean } {
    const values = Float64Array.from([
      this.native.released ? 1 : 0,
      refused ? 1 : 0,
      ...agreed.map((v) => (Number.isFinite(v) ? v : 0)),
      ...agreed.map((v) => (Number.isFinite(v) ? -v : 0)),
    ]);
    this.slab.mpi.allreduce(values, 'max');
    const k = agreed.length;
    let same = true;
    for (let i = 0; i < k; i++) same = same && values[2 + i] === -(values[2 + k + i] as number);
    return { released: values[0] === 1, refused: values[1] === 1, agreed: same };
  }

  /**
   * Collective: up to `steps` steps, each followed by the halo exchange. Whether every rank
   * may take a step is agreed before any takes it (in place, a step overwrites the state it
   * reads): a step that would diverge on any rank is taken on none, and the call stops there;
   * so does a module finalizing on any rank.
   */
  advance(steps: number, refreshOnStop: boolean): Advance {
    let done = 0;
    const stop = (divergedAt: number | undefined): Advance => {
      // As without MPI: the fields of the last finite state when a run took steps
      // (refreshOnStop), else the fields as they were before the call.
      if (refreshOnStop && done > 0) this.native.refreshFields();
      return { steps: done, divergedAt, cancelled: divergedAt === undefined };
    };
    // One agreement per step: whether every rank took it, and whether every rank's step proved
    // the state the next starts from (its own values and the halo it received); where one
    // could not, every rank reads its state before the next step (a neighbour's unproven
    // values may be in this rank's ghosts).
    let unproven = steps > 0 ? (this.slab.total([this.native.checkStep(false) ? 0 : 1])[0] as number) : 0;
    for (; done < steps; done++) {
      const t0 = performance.now();
      if (unproven > 0) {
        const [d] = this.slab.total([this.native.checkStep(true) ? 0 : 1]) as [number];
        if (d > 0) return stop(this.native.info.stepCount + 1);
      }
      const t1 = performance.now();
      const outcome = this.native.step(1, false);
      const t2 = performance.now();
      this.stepSeconds += (t2 - t1) / 1e3;
      this.slab.exchange(this.native, this.precision);
      const next = done + 1 < steps && !this.native.checkStep(false) ? 1 : 0;
      // Not taken after the check: the module is finalizing. A rank that took the step stays
      // there (the lattice is being released); so does one whose MPI fails from here on.
      const [c, u] = this.slab.total([outcome.steps === 1 ? 0 : 1, next]) as [number, number];
      if (c > 0) return stop(undefined);
      unproven = u;
      this.haloSeconds += (performance.now() - t2 + (t1 - t0)) / 1e3;
    }
    this.native.refreshFields();
    return { steps: done, divergedAt: undefined, cancelled: false };
  }

  /** This rank's planes of a field of the local lattice (`components` values per voxel): a view. */
  owned<T extends Float64Array | Float32Array>(field: T, components: number): T {
    const plane = this.slab.planeSize * components;
    const begin = this.slab.ghostLower * plane;
    return field.subarray(begin, begin + this.slab.count * plane) as T;
  }

  /** Collective: Σ u (3 components) and Σ ρ over the whole lattice, from the fields. */
  moments(): { momentum: [number, number, number]; mass: number } {
    const u = this.native.velocity;
    const rho = this.native.density;
    const n = this.slab.planeSize;
    const sums = this.slab.sums(4, (_plane, local, out) => {
      let x = 0;
      let y = 0;
      let z = 0;
      let m = 0;
      for (let v = local * n; v < (local + 1) * n; v++) {
        x += u[3 * v] as number;
        y += u[3 * v + 1] as number;
        z += u[3 * v + 2] as number;
        m += rho[v] as number;
      }
      out[0] = x;
      out[1] = y;
      out[2] = z;
      out[3] = m;
    });
    return { momentum: [sums[0] as number, sums[1] as number, sums[2] as number], mass: sums[3] as number };
  }
}

const TAG_PLANE = 7103;
const TAG_GATHER = 7104;

/**
 * Whether a pore path joins the first and last planes along `axis` of the image whose planes
 * along axis 0 the ranks hold (`solid`, `shape`: this rank's), 18-connected as the lattice moves
 * fluid. Collective; the same answer on every rank. Each rank labels its pore components
 * (`label`), the components that touch across each pair of neighbouring slabs are paired, and
 * rank 0 joins the pairs (union-find over every rank's components) and says whether an inlet
 * component and an outlet component are one.
 */
export function percolatesOver(
  slab: Slab,
  solid: Uint8Array,
  shape: readonly [number, number, number],
  axis: number,
  label: (solid: Uint8Array, shape: [number, number, number]) => Int32Array,
): boolean {
  const { mpi, rank, size } = slab;
  const labels = label(solid, [...shape]);
  let count = 0;
  for (const l of labels) if (l >= count) count = l + 1;
  const counts = new Float64Array(size);
  counts[rank] = count;
  mpi.allreduce(counts, 'sum');
  let base = 0;
  for (let r = 0; r < rank; r++) base += counts[r] as number;
  let total = 0;
  for (const c of counts) total += c;
  const [n0, n1, n2] = shape;
  const n12 = n1 * n2;
  // The components on the inlet and outlet faces (global numbers).
  const inlet = new Set<number>();
  const outlet = new Set<number>();
  const alongAxis = (v: number) => (axis === 0 ? Math.floor(v / n12) : axis === 1 ? Math.floor(v / n2) % n1 : v % n2);
  const first = axis === 0 ? (rank === 0 ? 0 : -1) : 0;
  const last = axis === 0 ? (rank === size - 1 ? n0 - 1 : -1) : axis === 1 ? n1 - 1 : n2 - 1;
  for (let v = 0; v < labels.length; v++) {
    const l = labels[v] as number;
    if (l < 0) continue;
    const at = alongAxis(v);
    if (at === first) inlet.add(base + l);
    if (at === last) outlet.add(base + l);
  }
  // The pairs of components that touch across the face with the rank below: a voxel of its last
  // plane and one of this rank's first plane are 18-neighbours when their (j, k) differ by at most
  // one step along one axis.
  const pairs: number[] = [];
  const below = new Int32Array(n12);
  const mine = labels.subarray(0, n12);
  const up = Int32Array.from(labels.subarray(labels.length - n12), (l) => (l < 0 ? -1 : base + l));
  if (rank < size - 1 && rank > 0)
    mpi.sendrecv(up, rank + 1, below, rank - 1, { sendTag: TAG_PLANE, recvTag: TAG_PLANE });
  else if (rank < size - 1) mpi.send(up, rank + 1, { tag: TAG_PLANE });
  else if (rank > 0) mpi.recv(below, rank - 1, { tag: TAG_PLANE });
  if (rank > 0) {
    const seen = new Set<string>();
    for (let j = 0; j < n1; j++) {
      for (let k = 0; k < n2; k++) {
        const a = mine[j * n2 + k] as number;
        if (a < 0) continue;
        for (const [dj, dk] of [
          [0, 0],
          [1, 0],
          [-1, 0],
          [0, 1],
          [0, -1],
        ] as const) {
          const jj = j + dj;
          const kk = k + dk;
          if (jj < 0 || kk < 0 || jj >= n1 || kk >= n2) continue;
          const b = below[jj * n2 + kk] as number;
          if (b < 0) continue;
          const key = `${b},${base + a}`;
          if (seen.has(key)) continue;
          seen.add(key);
          pairs.push(b, base + a);
        }
      }
    }
  }
  // Everything to rank 0, which decides.
  const sizes = new Float64Array(3 * size);
  sizes.set([inlet.size, outlet.size, pairs.length], 3 * rank);
  mpi.allreduce(sizes, 'sum');
  let answer = 0;
  if (rank === 0) {
    const parent = new Int32Array(total).map((_, i) => i);
    const find = (x: number): number => {
      let r = x;
      while (parent[r] !== r) r = parent[r] as number;
      while (parent[x] !== r) {
        const next = parent[x] as number;
        parent[x] = r;
        x = next;
      }
      return r;
    };
    const inlets: number[] = [...inlet];
    const outlets: number[] = [...outlet];
    const join = (list: ArrayLike<number>) => {
      for (let i = 0; i < list.length; i += 2) {
        const a = find(list[i] as number);
        const b = find(list[i + 1] as number);
        if (a !== b) parent[a] = b;
      }
    };
    join(pairs);
    for (let r = 1; r < size; r++) {
      const [ni, no, np] = [sizes[3 * r], sizes[3 * r + 1], sizes[3 * r + 2]] as [number, number, number];
      const received = new Int32Array(ni + no + np);
      if (received.length > 0) mpi.recv(received, r, { tag: TAG_GATHER });
      for (const l of received.subarray(0, ni)) inlets.push(l);
      for (const l of received.subarray(ni, ni + no)) outlets.push(l);
      join(received.subarray(ni + no));
    }
    const roots = new Set(inlets.map(find));
    answer = outlets.some((o) => roots.has(find(o))) ? 1 : 0;
  } else {
    const message = Int32Array.from([...inlet, ...outlet, ...pairs]);
    if (message.length > 0) mpi.send(message, 0, { tag: TAG_GATHER });
  }
  const result = new Float64Array([answer]);
  mpi.allreduce(result, 'max');
  return result[0] === 1;
}
