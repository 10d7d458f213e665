/**
 * @peclet/voro — 3D Voronoi and Laguerre (radical) tessellation.
 *
 * @example
 * ```ts
 * import { tessellate } from '@peclet/voro';
 * const points = new Float64Array(3 * 1000).map(() => Math.random());
 * using t = tessellate(points, { box: { min: [0, 0, 0], max: [1, 1, 1] }, periodic: true });
 * t.volumes.reduce((a, b) => a + b); // 1 (to round-off)
 * ```
 *
 * @packageDocumentation
 */
import { readBox, readFlags, readFloat64Array, readInteger, readOptions, readSignal } from '@peclet/core';
import { native, voroModule } from './native.js';

export { ReleasedError } from '@peclet/core';

/** An axis-aligned box: the container of the points. */
export interface Box {
  readonly min: readonly [number, number, number];
  readonly max: readonly [number, number, number];
}

/** Options of {@link tessellate}. */
export interface TessellateOptions {
  /** The container. On walled (non-periodic) axes every point must lie inside it. */
  readonly box: Box;
  /**
   * Periodic axes: `true` for all three, or one flag per axis. On a periodic axis points may lie
   * anywhere (they are wrapped) and cells meet the images of other cells instead of a wall.
   */
  readonly periodic?: boolean | readonly [boolean, boolean, boolean];
  /**
   * One radius per point for a Laguerre (radical, power) tessellation of polydisperse spheres:
   * the face between i and j lies where |x − p_i|² − r_i² = |x − p_j|² − r_j².
   */
  readonly radii?: Float64Array;
  /** Threads to use (default: the module's CPU budget). */
  readonly threads?: number;
}

/** Options of {@link tessellateAsync}. */
export interface TessellateAsyncOptions extends TessellateOptions {
  /** Cancels the computation; the promise then rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

/** Wall ids in {@link Tessellation.neighbors} (negative, as in voro++). */
export const Wall = {
  xMin: -1,
  xMax: -2,
  yMin: -3,
  yMax: -4,
  zMin: -5,
  zMax: -6,
} as const;

/** One cell's polyhedron, from {@link Tessellation.cell}. */
export interface Cell {
  /** 3V vertex coordinates (around the point as given, also on periodic axes). */
  readonly vertices: Float64Array;
  /** One loop of vertex indices per face, counter-clockwise seen from outside. */
  readonly faces: readonly Int32Array[];
  /** Per face, the neighbour (point index or {@link Wall} id); the cell's slice of `neighbors`. */
  readonly neighbors: Int32Array;
}

/** Diagnostics of the last computation. */
export interface TessellationStats {
  /** Faces found by one cell only (rounding at a grazing plane) and removed for symmetry. */
  readonly oneSidedFacesRemoved: number;
  readonly largestRemovedFaceArea: number;
  readonly topologyDefects: number;
  /** Laguerre cells that are empty (a point dominated by larger neighbours). */
  readonly emptyCells: number;
  /** Bytes held by the tessellation's buffers. */
  readonly memoryBytes: number;
}

/**
 * A tessellation of N points. Its arrays are zero-copy views of native memory: they are
 * detached (length 0) when the tessellation is released, updated, or its module finalized —
 * read them again after {@link Tessellation.update}.
 */
export interface Tessellation extends Disposable {
  /** Number of cells (points). */
  readonly size: number;
  /** N cell volumes. */
  readonly volumes: Float64Array;
  /** 3N cell centroids (x, y, z per cell), in the frame of the point as given. */
  readonly centroids: Float64Array;
  /** N + 1 offsets: the faces of cell i are `neighbors[neighborOffsets[i] .. neighborOffsets[i + 1])`. */
  readonly neighborOffsets: Int32Array;
  /**
   * Per face, the neighbouring point's index, or a negative {@link Wall} id. Symmetric: j lists
   * i as often as i lists j. On periodic axes a cell meeting two images of one neighbour (or its
   * own image, in a small box) has one face per image, so an id can repeat.
   */
  readonly neighbors: Int32Array;
  /** Per face (aligned with `neighbors`), its area; equal from both sides. */
  readonly faceAreas: Float64Array;
  /** Vertices and faces of cell i. */
  cell(index: number): Cell;
  /**
   * Re-tessellates moved points (same count, box and radii), reusing memory. Atomic: when it
   * throws (bad points, coincident points, a search refused, cancelled by finalize, out of
   * memory), the tessellation is left exactly as it was and arrays read before stay valid —
   * except after out of memory, where they are detached (read them again: same values).
   *
   * @example
   * ```ts
   * for (const step of steps) {
   *   move(points, step);
   *   t.update(points);
   *   const volumes = t.volumes; // read again after each update
   * }
   * ```
   */
  update(points: Float64Array): void;
  /** Diagnostics of the last computation. */
  stats(): TessellationStats;
  /** Frees the native state; idempotent. Afterwards every member throws ReleasedError. */
  release(): void;
  readonly released: boolean;
  /** Id in the module (`Tessellation#<id>` in errors and the trace). */
  readonly id: number;
}

type Args = [Float64Array, Box, boolean[], Float64Array | undefined, number | undefined];

const optionKeys = ['box', 'periodic', 'radii', 'threads'] as const;
const asyncOptionKeys = [...optionKeys, 'signal'] as const;

/**
 * Reads the arguments once each (a getter or Proxy cannot change them between check and use)
 * and copies the typed arrays (a SharedArrayBuffer written by another thread cannot change
 * under the call). The addon checks the values: finiteness, the box, limits, coincidence.
 */
function readArgs(points: unknown, o: Record<(typeof optionKeys)[number], unknown>): Args {
  const xyz = readFloat64Array(points, 'points', { arrays: false, multipleOf: 3 });
  const box = readBox(o.box, 'box');
  const periodic = readFlags(o.periodic, 3, 'periodic', false);
  const radii = o.radii === undefined ? undefined : readFloat64Array(o.radii, 'radii', { arrays: false });
  const threads = o.threads === undefined ? undefined : readInteger(o.threads, 'threads', { min: 1, max: 4096 });
  return [xyz, box, periodic, radii, threads];
}

/**
 * Tessellates `points` (a Float64Array of 3N coordinates) in `options.box`.
 *
 * Bad input throws a TypeError or RangeError whose message starts with the argument, with
 * `argument` and `index` properties: NaN or infinite coordinates, points outside a walled box, a
 * length that is not a multiple of 3, radii of the wrong length or negative, no points, a box of
 * zero extent, coincident points, and inputs past the limits of the README (box widths outside
 * [1e-90, 1e90] or more than 1e9 apart, radii above 1e75 box widths, more points than memory
 * allows: code PECLET_OUT_OF_MEMORY). A periodic box much narrower than the cells along one axis
 * is refused with a RangeError naming `box` instead of searching periodic images without end.
 *
 * @example
 * ```ts
 * const t = tessellate(points, { box: { min: [0, 0, 0], max: [1, 1, 1] }, radii });
 * const porosity = 1 - sphereVolume / t.volumes.reduce((a, b) => a + b);
 * ```
 */
export function tessellate(points: Float64Array, options: TessellateOptions): Tessellation {
  return native.tessellate(...readArgs(points, readOptions(options, 'options', optionKeys))) as Tessellation;
}

/**
 * {@link tessellate} on the module's thread pool, without blocking the event loop.
 * `options.signal` cancels it: the promise then rejects with the signal's reason.
 * `finalize()` while it runs cancels it too (the promise rejects with code PECLET_CANCELLED).
 * Cancellation is polled inside each cell's neighbour search (every ~1000 bins or planes), so
 * it takes effect within about a millisecond even when one cell is slow.
 *
 * @example
 * ```ts
 * const controller = new AbortController();
 * const t = await tessellateAsync(points, { box, signal: controller.signal });
 * ```
 */
export async function tessellateAsync(points: Float64Array, options: TessellateAsyncOptions): Promise<Tessellation> {
  const o = readOptions(options, 'options', asyncOptionKeys);
  const args = readArgs(points, o);
  const signal = readSignal(o.signal, 'signal');
  signal?.throwIfAborted();
  const { promise, cancel } = native.tessellateAsync(...args);
  const onAbort = () => cancel();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    return (await promise) as Tessellation;
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    throw error;
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * Releases every tessellation of this thread, stops work in flight and finalizes the module.
 * Idempotent; runs by itself at exit.
 */
export function finalize(): void {
  voroModule.finalize();
}

/** Where voro computes: `host` (the CPU thread pool). */
export const executionSpace: string = voroModule.executionSpace;
