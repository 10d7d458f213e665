import { fileURLToPath } from 'node:url';
import { readNpy } from './npy.js';
import type { VoxelImage } from './voxel.js';

/**
 * Absolute path of the sample image this package ships, `data/berea-100.npz` (36 KB): 100³
 * voxels of Berea sandstone at 5.345 µm, one uint8 array `im` with 1 = solid, porosity 0.2153.
 * It is the central [50:150]³ of the 200³ subvolume [100:300]³ of the Imperial College Berea
 * micro-CT image (400³ voxels), as OpenPNM ships it in its test fixtures
 * (`berea_100_to_300.npz`). Any reader takes it: `readImage(bereaSamplePath, { voxelSize: 5.345e-6 })`.
 *
 * @example
 * ```ts
 * import { bereaSamplePath } from '@peclet/io';
 * console.log(bereaSamplePath); // .../node_modules/@peclet/io/data/berea-100.npz
 * ```
 */
export const bereaSamplePath: string = fileURLToPath(new URL('../data/berea-100.npz', import.meta.url));

/** The sample's voxel size (m). */
const bereaVoxelSize = 5.345e-6;

/**
 * The shipped Berea sandstone sample ({@link bereaSamplePath}) as a `VoxelImage`: shape
 * `[100, 100, 100]`, voxel size 5.345e-6 m, non-zero = solid.
 *
 * @example
 * ```ts
 * const image = await readBereaSample();
 * porosity(image); // 0.2153
 * ```
 */
export function readBereaSample(): Promise<VoxelImage> {
  return readNpy(bereaSamplePath, { voxelSize: bereaVoxelSize });
}
