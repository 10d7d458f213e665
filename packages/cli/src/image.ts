/** The image flags every image command shares, and reading the image they describe. */
import { basename, extname } from 'node:path';
import type { ReadImageOptions, VoxelImage } from '@peclet/io';
import type { Warnings } from './context.js';
import { UsageError, withFlags } from './errors.js';
import { checkOutputFolder, readNumberFlag, readPositiveFlag, readShapeFlag } from './flags.js';

/** Flags as commander collects them. */
export interface ImageFlags {
  shape?: string;
  voxelSize?: string;
  dtype?: string;
  byteOrder?: string;
  solid?: string;
  poreValue?: string;
  solidValue?: string;
  key?: string;
}

/** What the flags asked for, checked. */
export interface ImageRequest {
  readonly path: string;
  readonly format: 'raw' | 'npy' | 'npz' | 'tiff';
  readonly options: ReadImageOptions;
}

const formats: Readonly<Record<string, ImageRequest['format']>> = {
  '.raw': 'raw',
  '.bin': 'raw',
  '.npy': 'npy',
  '.npz': 'npz',
  '.tif': 'tiff',
  '.tiff': 'tiff',
};

/** io's argument names → our flags. */
const readerFlags = {
  shape: '--shape',
  dtype: '--dtype',
  voxelSize: '--voxel-size',
  littleEndian: '--byte-order',
  solid: '--solid',
  poreValue: '--pore-value',
  solidValue: '--solid-value',
  key: '--key',
} as const;

/**
 * Checks the image flags against the file's format before anything is read: a raw file needs
 * `--shape` (its size alone cannot say it), the other formats carry their shape and dtype.
 */
export function readImageFlags(path: string, flags: ImageFlags, command: string): ImageRequest {
  const format = formats[extname(path).toLowerCase()];
  if (format === undefined) {
    throw new UsageError(
      `<image> must be a .raw, .bin, .npy, .npz, .tif or .tiff file, got ${JSON.stringify(path)}`,
      command,
    );
  }
  if (flags.voxelSize === undefined) {
    throw new UsageError(
      '--voxel-size is required: the edge of one voxel in metres, e.g. --voxel-size 5.345e-6',
      command,
    );
  }
  const voxelSize = readPositiveFlag(flags.voxelSize, '--voxel-size', command, 'a positive number of metres');
  const rules = (
    [
      ['--solid', flags.solid],
      ['--pore-value', flags.poreValue],
      ['--solid-value', flags.solidValue],
    ] as const
  ).filter(([, value]) => value !== undefined);
  if (rules.length > 1) {
    throw new UsageError(
      `${rules[0]?.[0]} and ${rules[1]?.[0]} both say which voxels are solid: give one of them`,
      command,
    );
  }
  // No rule: io's default (non-zero = solid; a boolean array True = pore, as PoreSpy writes it).
  const solid = {
    ...(flags.solid !== undefined ? { solid: flags.solid as 'nonzero' | 'zero' } : {}),
    ...(flags.poreValue !== undefined ? { poreValue: readNumberFlag(flags.poreValue, '--pore-value', command) } : {}),
    ...(flags.solidValue !== undefined
      ? { solidValue: readNumberFlag(flags.solidValue, '--solid-value', command) }
      : {}),
  };
  if (format !== 'raw') {
    for (const [flag, value] of [
      ['--shape', flags.shape],
      ['--dtype', flags.dtype],
      ['--byte-order', flags.byteOrder],
    ] as const) {
      if (value !== undefined) {
        throw new UsageError(`${flag} only applies to raw images (.raw, .bin); ${path} carries its own`, command);
      }
    }
  }
  if (flags.key !== undefined && format !== 'npz') {
    throw new UsageError(`--key only applies to .npz files, not ${path}`, command);
  }
  if (format === 'raw') {
    if (flags.shape === undefined) {
      throw new UsageError(
        `--shape is required for a raw image (${path}): three positive integers n0,n1,n2, e.g. --shape 200,200,200`,
        command,
      );
    }
    const shape = readShapeFlag(flags.shape, command);
    return {
      path,
      format,
      options: {
        shape,
        voxelSize,
        dtype: (flags.dtype ?? 'uint8') as 'uint8',
        littleEndian: flags.byteOrder !== 'big',
        ...solid,
      },
    };
  }
  if (format === 'npz' && flags.key !== undefined) {
    return { path, format, options: { voxelSize, ...solid, key: flags.key } };
  }
  return { path, format, options: { voxelSize, ...solid } };
}

/** Reads the image the request describes; a value io refuses for a flag is a usage error. */
export async function loadImage(request: ImageRequest, command: string): Promise<VoxelImage> {
  const { readImage } = await import('@peclet/io');
  return withFlags(readerFlags, command, () => readImage(request.path, request.options));
}

/**
 * Says how the image's values were read when the file chose (a boolean array is PoreSpy's
 * True = pore), and warns about a voxel size, porosity or shape that looks like a mistake
 * (@peclet/io's `imageWarnings`).
 */
export async function checkImage(image: VoxelImage, path: string, warnings: Warnings): Promise<void> {
  const { imageWarnings } = await import('@peclet/io');
  if (image.convention?.includes('PoreSpy')) {
    warnings.note(`${path} holds a boolean array: read as ${image.convention}; --solid nonzero reads True as solid`);
  }
  for (const warning of imageWarnings(image)) warnings.add(warning);
}

/**
 * The files of a command's one-page report: `--report <prefix>` gives `<prefix>.svg` and
 * `<prefix>.png`; by default `<image name>-<kind>` in the current folder; `--no-report` none.
 */
export async function readReportFlag(
  value: string | boolean | undefined,
  path: string,
  kind: string,
  command: string,
): Promise<{ svg: string; png: string } | undefined> {
  if (value === false) return undefined;
  let prefix: string;
  if (typeof value === 'string') {
    if (value.length === 0 || value.endsWith('/') || /\.(svg|png)$/i.test(value)) {
      throw new UsageError(
        `--report must be a path prefix such as out/berea (files out/berea.svg and out/berea.png), got ${JSON.stringify(value)}`,
        command,
      );
    }
    prefix = value;
    await checkOutputFolder(value, '--report', command);
  } else {
    prefix = `${basename(path, extname(path))}-${kind}`;
  }
  return { svg: `${prefix}.svg`, png: `${prefix}.png` };
}
