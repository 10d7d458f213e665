import { describeValue, fail, isDetached, readNumber, readOptions } from '@peclet/core';

/**
 * A 3-D binary image: `solid[(i * n1 + j) * n2 + k]` is voxel (i, j, k), C order as NumPy (last
 * index fastest), axis 0 = x as in PoreSpy. Non-zero = solid, zero = pore. `voxelSize` is the
 * edge of one voxel in metres.
 */
export type VoxelImage = {
  solid: Uint8Array;
  shape: [number, number, number];
  voxelSize: number;
  /**
   * How a reader turned the file's values into solid flags, e.g. `'non-zero = solid, zero = pore'`
   * or `"True = pore (PoreSpy's convention for boolean arrays)"`; set by the readers only.
   */
  readonly convention?: string;
};

/** The shape of a 3-D grid: three positive safe integers. */
export type Shape3 = [number, number, number];

/**
 * Reads `[n0, n1, n2]`: an array (or typed array) of three positive safe integers whose product
 * is a safe integer. Returns a fresh array.
 */
export function readShape(value: unknown, argument: string): Shape3 {
  if (!Array.isArray(value) && !(ArrayBuffer.isView(value) && !(value instanceof DataView))) {
    fail('type', argument, `must be [n0, n1, n2], got ${describeValue(value)}`);
  }
  const list = value as ArrayLike<unknown>;
  const length = list.length;
  if (length !== 3) fail('type', argument, `must be [n0, n1, n2], got length ${length}`);
  const out: number[] = [];
  for (let a = 0; a < 3; a++) {
    const x = list[a];
    if (typeof x !== 'number') fail('type', argument, `[${a}] must be a number, got ${describeValue(x)}`, a);
    if (!(Number.isSafeInteger(x) && x > 0)) {
      fail('range', argument, `[${a}] must be a positive integer, got ${describeValue(x)}`, a);
    }
    out.push(x);
  }
  const [n0, n1, n2] = out as Shape3;
  if (n0 * n1 > Number.MAX_SAFE_INTEGER || n0 * n1 * n2 > Number.MAX_SAFE_INTEGER) {
    fail('range', argument, `${n0} × ${n1} × ${n2} voxels overflows a safe integer`);
  }
  return [n0, n1, n2];
}

/** n0 · n1 · n2 of a shape read by {@link readShape}. */
export function voxelCount(shape: Shape3): number {
  return shape[0] * shape[1] * shape[2];
}

/** Reads a voxel size (metres): a finite number > 0. */
export function readVoxelSize(value: unknown, argument: string): number {
  return readNumber(value, argument, { above: 0, unit: 'm' });
}

/**
 * Checks a {@link VoxelImage} and returns it normalized: `{ solid, shape: [n0, n1, n2],
 * voxelSize }` with the same `solid` array (no copy). A TypeError or RangeError names the
 * sub-argument (`image.solid`, `image.shape`, `image.voxelSize`).
 *
 * @example
 * ```ts
 * const image = checkVoxelImage({ solid: new Uint8Array(60), shape: [3, 4, 5], voxelSize: 1e-6 });
 * checkVoxelImage({ solid: new Uint8Array(59), shape: [3, 4, 5], voxelSize: 1e-6 });
 * // RangeError: image.shape: 3 × 4 × 5 = 60 voxels, but image.solid holds 59
 * ```
 */
export function checkVoxelImage(image: unknown, argument = 'image'): VoxelImage {
  const o = readOptions(image, argument, ['solid', 'shape', 'voxelSize'], { open: true });
  const solid = o.solid;
  if (!(solid instanceof Uint8Array) || !ArrayBuffer.isView(solid)) {
    fail('type', `${argument}.solid`, `must be a Uint8Array, got ${describeValue(solid)}`);
  }
  if (isDetached(solid)) {
    fail('type', `${argument}.solid`, 'is a detached Uint8Array (its memory was released or transferred)');
  }
  const shape = readShape(o.shape, `${argument}.shape`);
  const voxelSize = readVoxelSize(o.voxelSize, `${argument}.voxelSize`);
  const count = voxelCount(shape);
  if (count !== solid.length) {
    fail(
      'range',
      `${argument}.shape`,
      `${shape[0]} × ${shape[1]} × ${shape[2]} = ${count} voxels, but ${argument}.solid holds ${solid.length}`,
    );
  }
  return { solid, shape, voxelSize };
}

/**
 * A {@link VoxelImage} from a PoreSpy/OpenPNM image, where `True` (non-zero) is pore: the result
 * has `solid = (im == 0)` as 1/0, in a new array. `im` is in the same C order (as `im.ravel()`
 * gives it).
 *
 * @example
 * ```ts
 * // im = ps.generators.blobs([3, 4, 5]); np.save('im.npy', im) — or any C-ordered pore mask
 * const image = fromPoreSpy([true, false, true, ...], [3, 4, 5], 1e-6);
 * ```
 */
export function fromPoreSpy(
  im: Uint8Array | ArrayLike<number | boolean>,
  shape: readonly [number, number, number] | [number, number, number],
  voxelSize: number,
): VoxelImage {
  const s = readShape(shape, 'shape');
  const size = readVoxelSize(voxelSize, 'voxelSize');
  const count = voxelCount(s);
  let source: ArrayLike<unknown>;
  if (ArrayBuffer.isView(im) && !(im instanceof DataView)) {
    if (isDetached(im)) fail('type', 'im', 'is a detached typed array (its memory was released or transferred)');
    if ((im as ArrayBufferView) instanceof BigInt64Array || (im as ArrayBufferView) instanceof BigUint64Array) {
      fail('type', 'im', 'must hold numbers or booleans, got a BigInt typed array');
    }
    source = im as ArrayLike<number>;
  } else if (Array.isArray(im)) {
    source = im;
  } else {
    return fail('type', 'im', `must be a typed array or an array of numbers or booleans, got ${describeValue(im)}`);
  }
  const length = source.length;
  if (length !== count) {
    fail('range', 'shape', `${s[0]} × ${s[1]} × ${s[2]} = ${count} voxels, but im holds ${length}`);
  }
  const solid = new Uint8Array(count);
  for (let i = 0; i < count; i++) {
    const x = source[i];
    if (typeof x === 'boolean') solid[i] = x ? 0 : 1;
    else if (typeof x === 'number') {
      if (Number.isNaN(x)) fail('range', 'im', `element ${i} is NaN`, i);
      solid[i] = x === 0 ? 1 : 0;
    } else fail('type', 'im', `element ${i} must be a number or a boolean, got ${describeValue(x)}`, i);
  }
  return { solid, shape: s, voxelSize: size };
}

/**
 * The pore fraction of an image: zero voxels / all voxels.
 *
 * @example
 * ```ts
 * porosity({ solid: Uint8Array.of(1, 0, 0, 1, 0, 0, 0, 0), shape: [2, 2, 2], voxelSize: 1 }); // 0.75
 * ```
 */
export function porosity(image: VoxelImage): number {
  const { solid } = checkVoxelImage(image);
  let pores = 0;
  for (let i = 0; i < solid.length; i++) if (solid[i] === 0) pores++;
  return pores / solid.length;
}
