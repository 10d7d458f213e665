import { randomBytes } from 'node:crypto';
import { closeSync, constants, fsyncSync, openSync, renameSync, rmSync } from 'node:fs';
import { type FileHandle, open, readFile, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { describeValue, fail } from '@peclet/core';
import { checkMemory, outOfMemory } from './errors.js';

/**
 * Opens `file` for reading, refusing anything but a regular file (a TypeError naming `path`):
 * opened without blocking, so that a FIFO, whose plain open waits for a writer for ever, is
 * refused as a directory or a device is, and checked on the open descriptor, not before it.
 */
export async function openRegularFile(file: string): Promise<FileHandle> {
  const handle = await open(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) {
      const kind = stats.isDirectory()
        ? 'a directory'
        : stats.isFIFO()
          ? 'a FIFO'
          : stats.isCharacterDevice() || stats.isBlockDevice()
            ? 'a device'
            : stats.isSocket()
              ? 'a socket'
              : 'not a regular file';
      fail('type', 'path', `must name a regular file, ${file} is ${kind}`);
    }
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * The whole of a regular file (see {@link openRegularFile}), its size checked against free
 * memory before it is read (a RangeError, code PECLET_OUT_OF_MEMORY, naming `path`).
 */
export async function readRegularFile(file: string): Promise<Uint8Array> {
  const handle = await openRegularFile(file);
  try {
    const stats = await handle.stat();
    checkMemory(stats.size, 'path', `reading ${file}`);
    try {
      return await readFile(handle);
    } catch (error) {
      // Free memory is not all a process may take (an address-space cap): the buffer's allocation
      // failing is out of memory, naming the file, as every other allocation of a reader.
      if (error instanceof RangeError && /allocation failed/i.test(error.message)) {
        outOfMemory('path', `reading ${file} (${stats.size} bytes): ${error.message}`);
      }
      throw error;
    }
  } finally {
    await handle.close();
  }
}

/** Reads a file path: a non-empty string without NUL. */
export function readPath(value: unknown, argument = 'path'): string {
  if (typeof value !== 'string') fail('type', argument, `must be a file path (a string), got ${describeValue(value)}`);
  if (value.length === 0) fail('type', argument, 'must be a file path, got an empty string');
  if (value.includes('\0')) fail('type', argument, 'must not contain a NUL character');
  return value;
}

/** The temp file beside `path`: `.<name>.<pid>.<random>.tmp` in the same directory. */
/** The longest file name (bytes) the common file systems take (NAME_MAX on Linux, macOS). */
const NAME_MAX = 255;

/**
 * A temporary name beside `path`: `.<name>.<pid>.<random>.tmp`, the name cut (at a character,
 * not inside one) so that the whole stays within NAME_MAX bytes: a target whose own name is
 * close to the limit must not fail because its temporary name is longer.
 */
function tempPathOf(path: string): string {
  const suffix = `.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const room = NAME_MAX - 1 - Buffer.byteLength(suffix);
  let name = basename(path);
  if (Buffer.byteLength(name) > room) {
    let bytes = 0;
    let cut = '';
    for (const c of name) {
      bytes += Buffer.byteLength(c);
      if (bytes > room) break;
      cut += c;
    }
    name = cut;
  }
  return join(dirname(path), `.${name}${suffix}`);
}

async function fsyncFile(path: string): Promise<void> {
  const handle = await open(path, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** fsync of the directory, so the rename itself is durable; not every platform allows it. */
async function fsyncDirectory(path: string): Promise<void> {
  try {
    const handle = await open(dirname(path), 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Directories cannot be opened or synced everywhere (Windows); the rename still happened.
  }
}

/**
 * Writes `path` atomically: `write(tempPath)` writes a temp file in the same directory (named
 * `.<name>.<pid>.<random>.tmp`), which is then fsynced and renamed over `path`. A reader sees the
 * old file or the new one, never a part. On any failure the temp file is removed and the error
 * rethrown; a process killed mid-write leaves the old file intact and at most the `.tmp` behind.
 *
 * @example
 * ```ts
 * import { writeFile } from 'node:fs/promises';
 * await writeAtomically('result.json', (temp) => writeFile(temp, JSON.stringify({ permeability: 1e-12 })));
 * ```
 */
export async function writeAtomically(path: string, write: (tempPath: string) => Promise<void> | void): Promise<void> {
  const target = readPath(path);
  if (typeof write !== 'function') fail('type', 'write', `must be a function, got ${describeValue(write)}`);
  const temp = tempPathOf(target);
  try {
    await write(temp);
    await fsyncFile(temp);
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => {});
    throw error;
  }
  await fsyncDirectory(target);
}

/**
 * {@link writeAtomically} for a synchronous `write`. A `write` that returns a Promise is a
 * TypeError naming `write` (the temp file it goes on writing is removed once it settles).
 *
 * @example
 * ```ts
 * import { writeFileSync } from 'node:fs';
 * writeAtomicallySync('note.txt', (temp) => writeFileSync(temp, 'done\n'));
 * ```
 */
export function writeAtomicallySync(path: string, write: (tempPath: string) => void): void {
  const target = readPath(path);
  if (typeof write !== 'function') fail('type', 'write', `must be a function, got ${describeValue(write)}`);
  const temp = tempPathOf(target);
  try {
    const result: unknown = write(temp);
    if (result instanceof Promise) {
      // The asynchronous write goes on after this throws: remove what it leaves once it settles.
      const remove = () => rm(temp, { force: true }).catch(() => {});
      result.then(remove, remove);
      fail('type', 'write', 'returned a Promise: use writeAtomically for an asynchronous write');
    }
    const fd = openSync(temp, 'r+');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, target);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  try {
    const fd = openSync(dirname(target), 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // See fsyncDirectory.
  }
}
