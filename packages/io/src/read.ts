import { extname } from 'node:path';
import { fail, readOptions } from '@peclet/core';
import { readPath } from './atomic.js';
import { classifierKeys } from './classify.js';
import { type ReadNpyOptions, readNpy } from './npy.js';
import { type ReadRawOptions, readRaw } from './raw.js';
import { type ReadTiffOptions, readTiff } from './tiff.js';
import type { VoxelImage } from './voxel.js';

/**
 * Options of {@link readImage}: those of the reader the extension picks. Keys that only another
 * format takes (`shape` for a `.npy`, `key` for a `.raw`) are accepted and left out, so that one
 * call reads any format; a key no format takes is a TypeError.
 */
export type ReadImageOptions = ReadRawOptions | ReadNpyOptions | ReadTiffOptions;

const RAW_KEYS = ['shape', 'dtype', 'voxelSize', 'littleEndian', 'planes', ...classifierKeys] as const;
const NPY_KEYS = ['voxelSize', 'key', ...classifierKeys] as const;
const TIFF_KEYS = ['voxelSize', ...classifierKeys] as const;
const ALL_KEYS = [...RAW_KEYS, 'key'] as const;

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
  const kind =
    ext === '.raw' || ext === '.bin'
      ? RAW_KEYS
      : ext === '.npy' || ext === '.npz'
        ? NPY_KEYS
        : ext === '.tif' || ext === '.tiff'
          ? TIFF_KEYS
          : undefined;
  if (kind === undefined)
    return fail('range', 'path', `has extension '${ext}'; known: .raw, .bin, .npy, .npz, .tif, .tiff`);
  const o = readOptions(options, 'options', ALL_KEYS);
  const picked: Record<string, unknown> = {};
  for (const key of kind) if (o[key] !== undefined) picked[key] = o[key];
  if (kind === RAW_KEYS) return readRaw(file, picked as unknown as ReadRawOptions);
  if (kind === NPY_KEYS) return readNpy(file, picked as unknown as ReadNpyOptions);
  return readTiff(file, picked as unknown as ReadTiffOptions);
}
