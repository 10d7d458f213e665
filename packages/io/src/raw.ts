import { open } from 'node:fs/promises';
import { fail, readBoolean, readEnum, readOptions } from '@peclet/core';
import { readPath } from './atomic.js';
import { type ElementLayout, SolidWriter, streamElements } from './decode.js';
import { allocateBytes, checkMemory, FileFormatError } from './errors.js';
import { readShape, readVoxelSize, type Shape3, type VoxelImage, voxelCount } from './voxel.js';

/** Element types of a raw file. */
export type RawDtype = 'uint8' | 'int8' | 'uint16' | 'int16' | 'uint32' | 'int32' | 'float32' | 'float64';

/** Which voxels are solid: the non-zero ones (peclet's convention) or the zero ones (PoreSpy's). */
export type SolidRule = 'nonzero' | 'zero';

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
export interface ReadRawOptions {
  /** `[n0, n1, n2]`, C order (last index fastest in the file). */
  shape: readonly [number, number, number] | [number, number, number];
  /** Element type (default `'uint8'`). */
  dtype?: RawDtype;
  /** Voxel edge (m). */
  voxelSize: number;
  /** Byte order of multi-byte elements (default true). */
  littleEndian?: boolean;
  /** Which voxels are solid (default `'nonzero'`). */
  solid?: SolidRule;
}

/** Reads the `solid` option. */
export function readSolidRule(value: unknown): SolidRule {
  return readEnum(value, 'solid', ['nonzero', 'zero'] as const, 'nonzero');
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
 * ```
 */
export async function readRaw(path: string, options: ReadRawOptions): Promise<VoxelImage> {
  const file = readPath(path);
  const o = readOptions(options, 'options', ['shape', 'dtype', 'voxelSize', 'littleEndian', 'solid']);
  const shape = readShape(o.shape, 'shape');
  const dtype = readEnum(o.dtype, 'dtype', rawDtypes, 'uint8');
  const voxelSize = readVoxelSize(o.voxelSize, 'voxelSize');
  const littleEndian = readBoolean(o.littleEndian, 'littleEndian', true);
  const rule = readSolidRule(o.solid);
  const itemSize = itemSizes[dtype];
  const count = voxelCount(shape);
  const expected = count * itemSize;
  const handle = await open(file, 'r');
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) fail('type', 'path', `must name a file, ${file} is not one`);
    if (stats.size !== expected) {
      fail(
        'range',
        'shape',
        `${shape.join(' × ')} ${dtype} voxels need ${expected} bytes, but ${file} holds ${stats.size}`,
      );
    }
    const solid = allocateImage(shape, 'shape');
    const layout: ElementLayout = { itemSize, float: dtype.startsWith('float'), littleEndian };
    const writer = new SolidWriter(solid, shape, layout, rule === 'nonzero', false);
    if (!(await streamElements(handle, 0, count, itemSize, writer))) {
      throw new FileFormatError(file, 'the file became shorter while it was read');
    }
    return { solid, shape, voxelSize };
  } finally {
    await handle.close();
  }
}
