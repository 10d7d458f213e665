/**
 * Arrays of coordinates and radii from `.npy`, read by @peclet/io's `readNpyArray` (regular files
 * only, sized before they are read) and checked here: float64 or float32, an (n, 3) array of
 * points or an (n,) array of radii.
 */
import { type NpyArray, readNpyArray } from '@peclet/io';

export type { NpyArray };

/**
 * Reads a float64 or float32 `.npy` file of `dimensions` dimensions (2: an (n, 3) array of
 * points; 1: n radii), C order. A corrupt file is a FileFormatError; a well-formed file of another
 * dtype or shape a RangeError naming the file.
 *
 * @example
 * ```ts
 * // Python: np.save('points.npy', np.random.rand(1000, 3))
 * const { data, shape } = await readFloatNpy('points.npy', 2); // shape [1000, 3]
 * ```
 */
export async function readFloatNpy(path: string, dimensions: 1 | 2): Promise<NpyArray> {
  const array = await readNpyArray(path);
  if (!/^[<>=|]f[48]$/.test(array.dtype)) {
    throw new RangeError(`${path} holds dtype '${array.dtype}'; coordinates and radii must be float64 or float32`);
  }
  const { shape } = array;
  const wanted = dimensions === 2 ? 'an (n, 3) array' : 'an (n,) array';
  if (shape.length !== dimensions || (dimensions === 2 && shape[1] !== 3)) {
    throw new RangeError(`${path} holds an array of shape (${shape.join(', ')}); ${wanted} is needed`);
  }
  return array;
}
