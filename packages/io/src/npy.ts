import { endianness } from 'node:os';
import { crc32 } from 'node:zlib';
import { describeValue, fail, readOptions } from '@peclet/core';
import { unzipSync } from 'fflate';
import { openRegularFile, readPath, readRegularFile } from './atomic.js';
import {
  type Classifier,
  type ClassifierOptions,
  classifierKeys,
  describeConvention,
  forBoolean,
  readClassifier,
} from './classify.js';
import { type ElementLayout, SolidWriter, streamElements } from './decode.js';
import { checkMemory, FileFormatError, outOfMemory } from './errors.js';
import { allocateImage } from './raw.js';
import { readVoxelSize, type Shape3, type VoxelImage } from './voxel.js';

/** Options of {@link readNpy}. */
export interface ReadNpyOptions extends ClassifierOptions {
  /** Voxel edge (m). */
  voxelSize: number;
  /** `.npz` only: the array to read (default: the only one, else `im`). */
  key?: string;
}

/** What an .npy header says. */
interface NpyHeader {
  /** Byte offset of the data. */
  readonly dataOffset: number;
  readonly layout: ElementLayout;
  readonly descr: string;
  readonly fortran: boolean;
  readonly shape: Shape3;
}

/** A numeric array read by {@link readNpyArray}: values as float64, C order. */
export interface NpyArray {
  readonly data: Float64Array;
  /** NumPy's shape (`[]` for a 0-d array). */
  readonly shape: number[];
  /** NumPy's dtype string as the file gives it (`'<f8'`, `'|u1'`, ...). */
  readonly dtype: string;
}

const magic = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // \x93NUMPY
/** Larger headers are not .npy files (NumPy writes a few hundred bytes). */
const maxHeaderBytes = 2 ** 20;

/** The header length field: where the dict starts and how long it is. */
function preamble(bytes: Uint8Array, file: string): { start: number; length: number } {
  if (bytes.length < 10 || magic.some((b, i) => bytes[i] !== b)) {
    throw new FileFormatError(file, 'not an .npy file (no \\x93NUMPY magic at the start)');
  }
  const major = bytes[6] as number;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (major === 1) return { start: 10, length: view.getUint16(8, true) };
  if (major === 2 || major === 3) {
    if (bytes.length < 12) throw new FileFormatError(file, 'the .npy header is truncated');
    return { start: 12, length: view.getUint32(8, true) };
  }
  throw new FileFormatError(file, `unknown .npy format version ${major}.${bytes[7]}`);
}

const dtypePattern = /^([<>|=])([biuf])(\d+)$/;

function layoutOf(descr: string, file: string): ElementLayout {
  const m = dtypePattern.exec(descr);
  const supported = ['b1', 'u1', 'i1', 'u2', 'i2', 'u4', 'i4', 'f4', 'f8'];
  if (m === null || !supported.includes(`${m[2]}${m[3]}`)) {
    fail('range', 'path', `${file} holds dtype ${describeValue(descr)}; supported: bool, (u)int8/16/32, float32/64`);
  }
  const order = m[1] as string;
  const itemSize = Number(m[3]);
  if (order === '|' && itemSize !== 1) throw new FileFormatError(file, `dtype ${descr} has no byte order`);
  const littleEndian = order === '<' || order === '|' || (order === '=' && endianness() === 'LE');
  return { itemSize, float: m[2] === 'f', signed: m[2] === 'i', littleEndian };
}

/** Parses the header dict `{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4, 5), }`. */
function parseHeader(prefix: Uint8Array, file: string, totalBytes: number, image = true): NpyHeader {
  const { start, length } = preamble(prefix, file);
  const dataOffset = start + length;
  if (dataOffset > totalBytes) {
    throw new FileFormatError(
      file,
      `the .npy header claims ${length} bytes, past the end of the ${totalBytes}-byte file`,
    );
  }
  const text = new TextDecoder('latin1').decode(prefix.subarray(start, dataOffset));
  if (!/^\s*\{/.test(text)) throw new FileFormatError(file, 'the .npy header is not a Python dict');
  const descr = /['"]descr['"]\s*:\s*['"]([^'"]*)['"]/.exec(text)?.[1];
  const fortranText = /['"]fortran_order['"]\s*:\s*(True|False)/.exec(text)?.[1];
  const shapeText = /['"]shape['"]\s*:\s*\(([^)]*)\)/.exec(text)?.[1];
  if (descr === undefined) {
    if (/['"]descr['"]\s*:\s*\[/.test(text)) fail('range', 'path', `${file} holds a structured array, not numbers`);
    throw new FileFormatError(file, "the .npy header has no 'descr'");
  }
  if (fortranText === undefined) throw new FileFormatError(file, "the .npy header has no 'fortran_order'");
  if (shapeText === undefined) throw new FileFormatError(file, "the .npy header has no 'shape' tuple");
  const parts = shapeText
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  const dims = parts.map((s) => {
    if (!/^\d+L?$/.test(s))
      throw new FileFormatError(file, `the .npy shape (${shapeText.trim()}) has a bad dimension '${s}'`);
    return Number(s.replace('L', ''));
  });
  if (image && dims.length !== 3) {
    fail(
      'range',
      'path',
      `${file} holds a ${dims.length}-D array of shape (${dims.join(', ')}); a 3-D array is needed`,
    );
  }
  let elements = 1;
  for (const d of dims) elements *= d;
  if (!dims.every((d) => Number.isSafeInteger(d)) || !Number.isSafeInteger(elements)) {
    throw new FileFormatError(file, `the .npy shape (${dims.join(', ')}) is too large to be real`);
  }
  if (image && elements === 0) fail('range', 'path', `${file} holds an empty array of shape (${dims.join(', ')})`);
  const layout = layoutOf(descr, file);
  const need = elements * layout.itemSize;
  const have = totalBytes - dataOffset;
  if (need !== have) {
    throw new FileFormatError(
      file,
      `the header's shape (${dims.join(', ')}) and dtype ${descr} need ${need} bytes of data, the file holds ${have}`,
    );
  }
  return { dataOffset, layout, descr, fortran: fortranText === 'True', shape: dims as Shape3 };
}

/**
 * Reads a numeric `.npy` array of any shape (points, radii, a field): bool, (u)int8/16/32 or
 * float32/64 in either byte order and either memory order, returned as float64 in C order with
 * its shape and dtype. The file must be a regular file whose size fits in memory (checked before
 * it is read); its header must describe exactly the bytes that follow, else a FileFormatError.
 *
 * @example
 * ```ts
 * // Python: np.save('points.npy', np.random.rand(1000, 3))
 * const { data, shape } = await readNpyArray('points.npy'); // shape [1000, 3]
 * ```
 */
export async function readNpyArray(path: string): Promise<NpyArray> {
  const file = readPath(path);
  const bytes = await readRegularFile(file);
  const { length } = preamble(bytes, file);
  if (length > maxHeaderBytes) throw new FileFormatError(file, `the .npy header claims ${length} bytes`);
  const header = parseHeader(bytes, file, bytes.length, false);
  const shape = header.shape as unknown as number[];
  const count = shape.reduce((a, b) => a * b, 1);
  checkMemory(count * 8, 'path', `${count} values of ${file}`);
  const { itemSize, float, littleEndian } = header.layout;
  const signed = /^[<>|=]i/.test(header.descr);
  const view = new DataView(bytes.buffer, bytes.byteOffset + header.dataOffset, count * itemSize);
  const read = (at: number): number => {
    if (float) return itemSize === 8 ? view.getFloat64(at, littleEndian) : view.getFloat32(at, littleEndian);
    if (itemSize === 1) return signed ? view.getInt8(at) : view.getUint8(at);
    if (itemSize === 2) return signed ? view.getInt16(at, littleEndian) : view.getUint16(at, littleEndian);
    return signed ? view.getInt32(at, littleEndian) : view.getUint32(at, littleEndian);
  };
  let data: Float64Array;
  try {
    data = new Float64Array(count);
  } catch (error) {
    return outOfMemory('path', `${count} values of ${file}: ${(error as Error).message}`);
  }
  if (!header.fortran || shape.length < 2) {
    for (let e = 0; e < count; e++) data[e] = read(e * itemSize);
  } else {
    // Fortran order: the first index runs fastest. Element e's indices, then its C-order place.
    const strides = shape.map((_, d) => shape.slice(d + 1).reduce((a, b) => a * b, 1));
    for (let e = 0; e < count; e++) {
      let rest = e;
      let target = 0;
      for (let d = 0; d < shape.length; d++) {
        const n = shape[d] as number;
        target += (rest % n) * (strides[d] as number);
        rest = Math.floor(rest / n);
      }
      data[target] = read(e * itemSize);
    }
  }
  return { data, shape: [...shape], dtype: header.descr };
}

/** The image of a parsed array: booleans read as PoreSpy's True = pore unless an option chose. */
function imageWriter(solid: Uint8Array, header: NpyHeader, classifier: Classifier) {
  const boolean = /b1$/.test(header.descr);
  const c = boolean ? forBoolean(classifier) : classifier;
  return {
    writer: new SolidWriter(solid, header.shape, header.layout, c, header.fortran),
    convention: describeConvention(c, boolean),
  };
}

async function readNpyFile(file: string, voxelSize: number, classifier: Classifier): Promise<VoxelImage> {
  const handle = await openRegularFile(file);
  try {
    const stats = await handle.stat();
    const head = new Uint8Array(Math.min(stats.size, 12));
    await handle.read(head, 0, head.length, 0);
    const { start, length } = preamble(head, file);
    if (start + length > stats.size) {
      throw new FileFormatError(
        file,
        `the .npy header claims ${length} bytes, past the end of the ${stats.size}-byte file`,
      );
    }
    if (length > maxHeaderBytes) throw new FileFormatError(file, `the .npy header claims ${length} bytes`);
    const prefix = new Uint8Array(start + length);
    const { bytesRead } = await handle.read(prefix, 0, prefix.length, 0);
    if (bytesRead !== prefix.length) throw new FileFormatError(file, 'the file became shorter while it was read');
    const header = parseHeader(prefix, file, stats.size);
    const solid = allocateImage(header.shape, 'path');
    const { writer, convention } = imageWriter(solid, header, classifier);
    const count = solid.length;
    if (!(await streamElements(handle, header.dataOffset, count, header.layout.itemSize, writer))) {
      throw new FileFormatError(file, 'the file became shorter while it was read');
    }
    return { solid, shape: header.shape, voxelSize, convention };
  } finally {
    await handle.close();
  }
}

/** The entries of a zip: name → { size, originalSize, compression }. Throws FileFormatError on a corrupt zip. */
/**
 * The CRC-32 of each entry of the zip's central directory, in its order (the order fflate lists
 * them): read from the end record (or its zip64 form) that fflate has already walked.
 */
function centralCrcs(zip: Uint8Array, file: string): number[] {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  let end = zip.length - 22;
  while (end >= 0 && view.getUint32(end, true) !== 0x06054b50) end--;
  if (end < 0) throw new FileFormatError(file, 'not a valid .npz (zip) file: no end of central directory');
  let count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  if ((at === 0xffffffff || count === 0xffff) && end >= 20 && view.getUint32(end - 20, true) === 0x07064b50) {
    const z64 = Number(view.getBigUint64(end - 12, true));
    if (z64 + 56 > zip.length)
      throw new FileFormatError(file, 'not a valid .npz (zip) file: a zip64 end record past the end');
    count = Number(view.getBigUint64(z64 + 32, true));
    at = Number(view.getBigUint64(z64 + 48, true));
  }
  const crcs: number[] = [];
  for (let i = 0; i < count; i++) {
    if (at + 46 > zip.length || view.getUint32(at, true) !== 0x02014b50) {
      throw new FileFormatError(file, `not a valid .npz (zip) file: central directory entry ${i} is damaged`);
    }
    crcs.push(view.getUint32(at + 16, true));
    at += 46 + view.getUint16(at + 28, true) + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
  }
  return crcs;
}

function zipEntries(zip: Uint8Array, file: string) {
  const entries: { name: string; size: number; originalSize: number; compression: number }[] = [];
  // Each central directory record takes at least 46 bytes: a count above that is corrupt (and
  // would make fflate loop over garbage for a long time).
  const most = Math.floor(zip.length / 46);
  try {
    unzipSync(zip, {
      filter: (f) => {
        if (entries.length >= most) throw new FileFormatError(file, 'the zip directory lists more entries than fit');
        entries.push({ ...f });
        return false;
      },
    });
  } catch (error) {
    if (error instanceof FileFormatError) throw error;
    throw new FileFormatError(file, `not a valid .npz (zip) file: ${(error as Error).message}`, { cause: error });
  }
  return entries;
}

async function readNpzFile(file: string, key: string | undefined, voxelSize: number, classifier: Classifier) {
  const zip = await readRegularFile(file);
  const all = zipEntries(zip, file);
  const entries = all.filter((e) => e.name.endsWith('.npy'));
  const keys = entries.map((e) => e.name.slice(0, -4));
  let name: string;
  if (key !== undefined) {
    if (!keys.includes(key))
      fail('range', 'key', `${file} has no array ${describeValue(key)}; it has ${listKeys(keys)}`);
    name = key;
  } else if (keys.length === 1) name = keys[0] as string;
  else if (keys.includes('im')) name = 'im';
  else return fail('range', 'key', `is needed: ${file} holds ${listKeys(keys)}`);
  const entry = entries.find((e) => e.name === `${name}.npy`);
  if (entry === undefined) throw new FileFormatError(file, `the zip entry ${name}.npy vanished`);
  // Deflate expands at most ~1032 times: a larger original size is a corrupt or hostile header.
  if (entry.compression === 8 && entry.originalSize > entry.size * 1032 + 1024) {
    throw new FileFormatError(
      file,
      `entry ${name}.npy claims ${entry.originalSize} bytes from ${entry.size} compressed`,
    );
  }
  if (entry.compression !== 0 && entry.compression !== 8) {
    throw new FileFormatError(
      file,
      `entry ${name}.npy uses zip compression method ${entry.compression}; only stored and deflated are read`,
    );
  }
  checkMemory(entry.originalSize, 'path', `entry ${name}.npy of ${file}`);
  let npy: Uint8Array | undefined;
  try {
    npy = unzipSync(zip, { filter: (f) => f.name === entry.name })[entry.name];
  } catch (error) {
    throw new FileFormatError(file, `entry ${name}.npy is corrupt: ${(error as Error).message}`, { cause: error });
  }
  if (npy === undefined) throw new FileFormatError(file, `entry ${name}.npy could not be read`);
  // fflate does not check the CRC-32 the zip keeps of each entry: a corrupt byte would be read as data.
  const crc = centralCrcs(zip, file)[all.indexOf(entry)];
  if (crc !== crc32(npy)) {
    throw new FileFormatError(file, `entry ${name}.npy is corrupt: its CRC-32 does not match its data`);
  }
  const where = `${file} (${name}.npy)`;
  const header = parseHeader(npy, where, npy.length);
  const solid = allocateImage(header.shape, 'path');
  const { writer, convention } = imageWriter(solid, header, classifier);
  writer.push(npy.subarray(header.dataOffset));
  return { solid, shape: header.shape, voxelSize, convention };
}

function listKeys(keys: string[]): string {
  return keys.length === 0 ? 'no arrays' : `arrays ${keys.map((k) => `'${k}'`).join(', ')}`;
}

/**
 * Reads a 3-D NumPy array from `.npy` or `.npz` (stored or deflated). dtypes: bool, (u)int8,
 * (u)int16, (u)int32, float32, float64, either byte order; Fortran order is transposed into C
 * order. `key` picks the array of an `.npz` (default: the only one, else `im`). A boolean array
 * is read as PoreSpy and OpenPNM write their images, True = pore, unless `solid`, `poreValue` or
 * `solidValue` says otherwise; other dtypes as non-zero = solid. The image's `convention` says
 * which rule was applied. A 2-D array, an
 * unsupported dtype or a missing key is a RangeError; a corrupt file a {@link FileFormatError}.
 *
 * @example
 * ```ts
 * // Python: np.save('im.npy', ps.generators.blobs([200, 200, 200]))  — a boolean array, True = pore
 * const image = await readNpy('im.npy', { voxelSize: 1e-6 }); // image.convention: 'True = pore (…)'
 * const labels = await readNpy('labels.npy', { voxelSize: 1e-6, poreValue: 0 }); // 0 = pore, 1, 2, … = solid
 * const other = await readNpy('images.npz', { voxelSize: 1e-6, key: 'segmented' });
 * ```
 */
export async function readNpy(path: string, options: ReadNpyOptions): Promise<VoxelImage> {
  const file = readPath(path);
  const o = readOptions(options, 'options', ['voxelSize', 'key', ...classifierKeys]);
  const voxelSize = readVoxelSize(o.voxelSize, 'voxelSize');
  const key = o.key;
  if (key !== undefined && (typeof key !== 'string' || key.length === 0)) {
    fail('type', 'key', `must be a non-empty string, got ${describeValue(key)}`);
  }
  const classifier = readClassifier(o);
  if (file.toLowerCase().endsWith('.npz')) return readNpzFile(file, key as string | undefined, voxelSize, classifier);
  if (key !== undefined) fail('type', 'key', 'only applies to .npz files');
  return readNpyFile(file, voxelSize, classifier);
}
