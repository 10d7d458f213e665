import { extname } from 'node:path';
import { fail } from '@peclet/core';
import { readPath } from './atomic.js';
import { type ReadNpyOptions, readNpy } from './npy.js';
import { type ReadRawOptions, readRaw } from './raw.js';
import { type ReadTiffOptions, readTiff } from './tiff.js';
import type { VoxelImage } from './voxel.js';

/** Options of {@link readImage}: those of the reader the extension picks. */
export type ReadImageOptions = ReadRawOptions | ReadNpyOptions | ReadTiffOptions;

/**
 * Reads a voxel image, picking the reader by extension: `.raw`/`.bin` → {@link readRaw},
 * `.npy`/`.npz` → {@link readNpy}, `.tif`/`.tiff` → {@link readTiff}. Any other extension is a
 * RangeError naming `path`.
 *
 * @example
 * ```ts
 * const image = await readImage(process.argv[2], { voxelSize: 1e-6, shape: [100, 100, 100] });
 * ```
 */
export async function readImage(path: string, options: ReadImageOptions): Promise<VoxelImage> {
  const file = readPath(path);
  const ext = extname(file).toLowerCase();
  if (ext === '.raw' || ext === '.bin') return readRaw(file, options as ReadRawOptions);
  if (ext === '.npy' || ext === '.npz') return readNpy(file, options as ReadNpyOptions);
  if (ext === '.tif' || ext === '.tiff') return readTiff(file, options as ReadTiffOptions);
  return fail('range', 'path', `has extension '${ext}'; known: .raw, .bin, .npy, .npz, .tif, .tiff`);
}
