/**
 * @peclet/flow — lattice-Boltzmann flow through voxel images: permeability of rocks and packings.
 *
 * @example
 * ```ts
 * import { permeability } from '@peclet/flow';
 * const result = await permeability({ solid, shape: [200, 200, 200], voxelSize: 5.345e-6 }, { axis: 'x' });
 * console.log(`${result.millidarcy.toFixed(0)} mD`);
 * result.lattice.release();
 * ```
 *
 * @packageDocumentation
 */
import { flowModule, native } from './native.js';
import { readAxis, readShape, readSolid } from './options.js';

export { ReleasedError } from '@peclet/core';
export { fromPoreSpy, type VoxelImage } from '@peclet/io';
export { Lattice } from './lattice.js';
export { MILLIDARCY, permeability } from './permeability.js';
export type {
  Axis,
  LatticeOptions,
  LatticeUnits,
  PermeabilityOptions,
  PermeabilityResult,
  Progress,
  Relaxation,
  RunOptions,
  RunReport,
  StepReport,
} from './types.js';

/**
 * True when pore voxels (zero) join the first and the last plane along `axis`, 18-connected
 * (the neighbours D3Q19 moves fluid between).
 *
 * @example
 * ```ts
 * percolates({ solid, shape: [64, 64, 64], voxelSize: 1e-6 }, 'x');
 * ```
 */
export function percolates(
  image: { solid: Uint8Array; shape: readonly number[] },
  axis: 'x' | 'y' | 'z' = 'x',
): boolean {
  const shape = readShape(image?.shape, 'image.shape');
  const solid = readSolid(image?.solid, 'image.solid', shape[0] * shape[1] * shape[2]);
  return native.percolates(solid, shape, readAxis(axis, 'axis'));
}

/**
 * Releases every lattice of this thread, stops runs in flight and finalizes the module.
 * Idempotent; runs by itself at exit.
 */
export function finalize(): void {
  flowModule.finalize();
}

/** Where flow computes: `host` (the CPU thread pool). */
export const executionSpace: string = flowModule.executionSpace;
