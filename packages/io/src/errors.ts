import { freemem } from 'node:os';
import { argumentError } from '@peclet/core';

/**
 * A file whose bytes are not what its format says (bad magic, a header that runs past the end,
 * data shorter than the header promises, a corrupt TIFF or zip). An `Error` with
 * `code: 'PECLET_BAD_FILE'` and the `path`; the message says what is wrong. Files that are
 * well formed but that a `VoxelImage` cannot hold (2-D, an unsupported dtype, pages of different
 * sizes) are `RangeError`s naming `path` instead.
 *
 * @example
 * ```ts
 * try {
 *   await readNpy('broken.npy', { voxelSize: 1e-6 });
 * } catch (error) {
 *   if (error instanceof FileFormatError) console.error(error.path, error.message);
 * }
 * ```
 */
export class FileFormatError extends Error {
  /** Always `'PECLET_BAD_FILE'`. */
  readonly code = 'PECLET_BAD_FILE';
  /** The file at fault. */
  readonly path: string;
  constructor(path: string, message: string, options?: { cause?: unknown }) {
    super(`${path}: ${message}`, options);
    this.name = 'FileFormatError';
    this.path = path;
  }
}

/** Bytes we always allow to allocate, however little memory the OS reports free. */
const floorBytes = 256 * 2 ** 20;

/**
 * The most bytes a reader may allocate now: free memory, but never less than 256 MiB (small
 * files always load). Numbers from a file or a caller are checked against this before any
 * allocation; an allocation that still fails is a RangeError too.
 */
export function memoryLimitBytes(): number {
  return Math.max(freemem(), floorBytes);
}

/**
 * The RangeError every peclet module gives when memory is short: code PECLET_OUT_OF_MEMORY (a
 * failure of the machine, not a malformed argument: the CLI exits 1 on it, not 2), naming
 * `argument`.
 */
export function outOfMemory(argument: string, message: string): never {
  const error = argumentError('range', argument, message);
  Object.defineProperty(error, 'code', { value: 'PECLET_OUT_OF_MEMORY', enumerable: true });
  throw error;
}

/** Throws {@link outOfMemory} naming `argument` when `bytes` exceed {@link memoryLimitBytes}. */
export function checkMemory(bytes: number, argument: string, what: string): void {
  const limit = memoryLimitBytes();
  if (!(bytes <= limit)) {
    outOfMemory(argument, `${what} needs ${bytes} bytes, more than the ${limit} bytes of memory free`);
  }
}

/** `new Uint8Array(n)`, its allocation failure a RangeError (PECLET_OUT_OF_MEMORY) naming `argument`. */
export function allocateBytes(n: number, argument: string): Uint8Array {
  try {
    return new Uint8Array(n);
  } catch (error) {
    return outOfMemory(argument, `cannot allocate ${n} bytes (${(error as Error).message})`);
  }
}
