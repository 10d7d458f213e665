/**
 * A small `.npy` reader for arrays of coordinates and radii: float64 or float32, either byte
 * order, C or Fortran order, returned as a C-order Float64Array. @peclet/io's `readNpy` reads
 * 3-D voxel images only; points are an (n, 3) array.
 */
import { readFile } from 'node:fs/promises';
import { FileFormatError } from '@peclet/io';

/** A float array read from `.npy`, C order. */
export interface NpyArray {
  readonly data: Float64Array;
  readonly shape: number[];
}

const magic = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // \x93NUMPY

/**
 * Reads a float64 or float32 `.npy` file of `dimensions` dimensions (2: an (n, 3) array of
 * points; 1: n radii). A corrupt file is a FileFormatError; a well-formed file of another dtype
 * or shape a RangeError naming the file.
 *
 * @example
 * ```ts
 * // Python: np.save('points.npy', np.random.rand(1000, 3))
 * const { data, shape } = await readFloatNpy('points.npy', 2); // shape [1000, 3]
 * ```
 */
export async function readFloatNpy(path: string, dimensions: 1 | 2): Promise<NpyArray> {
  const bytes = await readFile(path);
  if (bytes.length < 10 || magic.some((b, i) => bytes[i] !== b)) {
    throw new FileFormatError(path, 'not an .npy file (no \\x93NUMPY magic at the start)');
  }
  const major = bytes[6] as number;
  let start: number;
  let length: number;
  if (major === 1) {
    start = 10;
    length = bytes.readUInt16LE(8);
  } else if (major === 2 || major === 3) {
    if (bytes.length < 12) throw new FileFormatError(path, 'the .npy header is truncated');
    start = 12;
    length = bytes.readUInt32LE(8);
  } else {
    throw new FileFormatError(path, `unknown .npy format version ${major}.${bytes[7]}`);
  }
  if (start + length > bytes.length) throw new FileFormatError(path, 'the .npy header runs past the end of the file');
  const header = bytes.subarray(start, start + length).toString('latin1');
  const descr = /['"]descr['"]\s*:\s*['"]([^'"]*)['"]/.exec(header)?.[1];
  const fortran = /['"]fortran_order['"]\s*:\s*(True|False)/.exec(header)?.[1];
  const shapeText = /['"]shape['"]\s*:\s*\(([^)]*)\)/.exec(header)?.[1];
  if (descr === undefined || fortran === undefined || shapeText === undefined) {
    throw new FileFormatError(path, "the .npy header lacks 'descr', 'fortran_order' or 'shape'");
  }
  const dtype = /^([<>=|])f([48])$/.exec(descr);
  if (dtype === null) {
    throw new RangeError(`${path} holds dtype '${descr}'; coordinates and radii must be float64 or float32`);
  }
  const shape = shapeText
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .map((s) => {
      if (!/^\d+L?$/.test(s)) throw new FileFormatError(path, `the .npy shape (${shapeText}) is malformed`);
      return Number(s.replace('L', ''));
    });
  const wanted = dimensions === 2 ? 'an (n, 3) array' : 'an (n,) array';
  if (shape.length !== dimensions || (dimensions === 2 && shape[1] !== 3)) {
    throw new RangeError(`${path} holds an array of shape (${shape.join(', ')}); ${wanted} is needed`);
  }
  const count = shape.reduce((a, b) => a * b, 1);
  const itemSize = Number(dtype[2]);
  const dataStart = start + length;
  if (bytes.length - dataStart !== count * itemSize) {
    throw new FileFormatError(
      path,
      `the header's shape (${shape.join(', ')}) and dtype ${descr} need ${count * itemSize} bytes of data, the file holds ${bytes.length - dataStart}`,
    );
  }
  const order = dtype[1] as string;
  const littleEndian = order === '<' || (order === '=' && new Uint8Array(Uint16Array.of(1).buffer)[0] === 1);
  const view = new DataView(bytes.buffer, bytes.byteOffset + dataStart, count * itemSize);
  const data = new Float64Array(count);
  const rows = shape[0] as number;
  const columns = dimensions === 2 ? 3 : 1;
  for (let e = 0; e < count; e++) {
    const x = itemSize === 8 ? view.getFloat64(e * 8, littleEndian) : view.getFloat32(e * 4, littleEndian);
    // Fortran order stores column after column: element e is (e mod rows, e div rows).
    const target = fortran === 'True' ? (e % rows) * columns + Math.floor(e / rows) : e;
    data[target] = x;
  }
  return { data, shape };
}
