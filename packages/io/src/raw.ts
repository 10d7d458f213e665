import { fail, readBoolean, readEnum, readInteger, readOptions } from '@peclet/core';
import { openRegularFile, readPath } from './atomic.js';
import { type ClassifierOptions, classifierKeys, describeConvention, readClassifier } from './classify.js';
import { type ElementLayout, SolidWriter, streamElements } from './decode.js';
import { allocateBytes, checkMemory, FileFormatError } from './errors.js';
import { readShape, readVoxelSize, type Shape3, type VoxelImage, voxelCount } from './voxel.js';

/** Element types of a raw file. */
export type RawDtype = 'uint8' | 'int8' | 'uint16' | 'int16' | 'uint32' | 'int32' | 'float32' | 'float64';

export type { SolidRule } from './classify.js';

export const rawDtypes: readonly RawDtype[] = [
  'uint8',
  'int8',
  'uint16',
  'int16',
  'uint32',
  'int32',
  'float32',
  'float64',
];

const itemSizes: Record<RawDtype, number> = {
  uint8: 1,
  int8: 1,
  uint16: 2,
  int16: 2,
  uint32: 4,
  int32: 4,
  float32: 4,
  float64: 8,
};

/** Options of {@link readRaw}. */
export interface ReadRawOptions extends ClassifierOptions {
  /** `[n0, n1, n2]`, C order (last index fastest in the file). */
  shape: readonly [number, number, number] | [number, number, number];
  /** Element type (default `'uint8'`). */
  dtype?: RawDtype;
  /** Voxel edge (m). */
  voxelSize: number;
  /** Byte order of multi-byte elements (default true). */
  littleEndian?: boolean;
  /**
   * Only the planes `[start, start + count)` along the first axis (the slowest in the file):
   * one offset read of `count · n1 · n2` elements, the image `[count, n1, n2]`. What each MPI
   * rank of a slab decomposition reads of a large image. Default: the whole file.
   */
  planes?: { start: number; count: number };
}

/** Reads the `planes` option against `n0` planes: `{ start, count }` within the image. */
function readPlanes(value: unknown, n0: number): { start: number; count: number } {
  if (value === undefined) return { start: 0, count: n0 };
  const p = readOptions(value, 'planes', ['start', 'count']);
  const start = readInteger(p.start, 'planes.start', { max: n0 - 1 });
  const count = readInteger(p.count, 'planes.count', { min: 1, max: n0 - start });
  return { start, count };
}

/** The image a file of `count` elements will fill, checked against free memory. */
export function allocateImage(shape: Shape3, argument: string): Uint8Array {
  const count = voxelCount(shape);
  checkMemory(count, argument, `an image of ${shape.join(' × ')} voxels`);
  return allocateBytes(count, argument);
}

/**
 * Reads a headerless binary volume: `n0 · n1 · n2` elements of `dtype`, C order (last index
 * fastest). The file's size must be exactly that many bytes, else a RangeError naming `shape`
 * with both sizes — checked before anything is allocated. Streams through a 4 MiB buffer.
 *
 * @example
 * ```ts
 * const image = await readRaw('berea.raw', { shape: [400, 400, 400], voxelSize: 5.345e-6 });
 * const pores = await readRaw('pores.raw', { shape: [100, 100, 100], voxelSize: 1e-6, solid: 'zero' });
 * // planes 100–199 of 400: an offset read of 100 × 400 × 400 voxels
 * const slab = await readRaw('berea.raw', { shape: [400, 400, 400], voxelSize: 5.345e-6, planes: { start: 100, count: 100 } });
 * ```
 */
export async function readRaw(path: string, options: ReadRawOptions): Promise<VoxelImage> {
  const file = readPath(path);
  const o = readOptions(options, 'options', [
    'shape',
    'dtype',
    'voxelSize',
    'littleEndian',
    'planes',
    ...classifierKeys,
  ]);
  const shape = readShape(o.shape, 'shape');
  const dtype = readEnum(o.dtype, 'dtype', rawDtypes, 'uint8');
  const voxelSize = readVoxelSize(o.voxelSize, 'voxelSize');
  const littleEndian = readBoolean(o.littleEndian, 'littleEndian', true);
  const classifier = readClassifier(o);
  const itemSize = itemSizes[dtype];
  const expected = voxelCount(shape) * itemSize;
  const planes = readPlanes(o.planes, shape[0]);
  const part: Shape3 = [planes.count, shape[1], shape[2]];
  const count = voxelCount(part);
  const position = planes.start * shape[1] * shape[2] * itemSize;
  const handle = await openRegularFile(file);
  try {
    const stats = await handle.stat();
    if (stats.size !== expected) {
      fail(
        'range',
        'shape',
        `${shape.join(' × ')} ${dtype} voxels need ${expected} bytes, but ${file} holds ${stats.size}`,
      );
    }
    const solid = allocateImage(part, o.planes === undefined ? 'shape' : 'planes');
    const layout: ElementLayout = {
      itemSize,
      float: dtype.startsWith('float'),
      signed: dtype.startsWith('int'),
      littleEndian,
    };
    const writer = new SolidWriter(solid, part, layout, classifier, false);
    if (!(await streamElements(handle, position, count, itemSize, writer))) {
      throw new FileFormatError(file, 'the file became shorter while it was read');
    }
    return { solid, shape: part, voxelSize, convention: describeConvention(classifier, false) };
  } finally {
    await handle.close();
  }
}
