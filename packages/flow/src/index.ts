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
// The public types name no WebGPU type: a consumer type-checks without @webgpu/types.
import type { GpuOptions, SharedGpuDevice } from '@peclet/core';
import { sharedDevice } from './gpu/device.js';
import { flowModule, native } from './native.js';
import { readAxis, readShape, readSolid } from './options.js';

export { ReleasedError } from '@peclet/core';
export { fromPoreSpy, type VoxelImage } from '@peclet/io';
export { type FlowFieldOptions, type FlowFields, flowFields, writeFlowVti } from './fields.js';
export { Lattice } from './lattice.js';
export { MILLIDARCY, permeability } from './permeability.js';
export { type Mpi, slabOf, slabPlanes } from './slab.js';
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

/**
 * The WebGPU device that lattices with `executionSpace: 'webgpu'` use in this thread, acquired on
 * first use (here or by their first `run()`) through `requestGpu` of `@peclet/core/gpu` with
 * `options` (they apply to the first acquisition only). It belongs to the flow module:
 * {@link finalize} releases it with every buffer. Rejects with code `PECLET_NO_WEBGPU` (the
 * optional `webgpu` package is missing) or `PECLET_NO_GPU` (no adapter).
 *
 * @example
 * ```ts
 * const device = await gpuDevice();
 * device.backend; // 'vulkan', 'opengles', ...
 * ```
 */
export function gpuDevice(options: GpuOptions = {}): Promise<SharedGpuDevice> {
  return sharedDevice(flowModule, options);
}

/**
 * {@link finalize} after the module's submitted GPU work has ended (at most `timeoutMs`, default
 * `PECLET_FINALIZE_TIMEOUT_MS` or 10 s); no new GPU work starts meanwhile.
 *
 * @example
 * ```ts
 * await lattice.run(); // executionSpace: 'webgpu'
 * await finalizeAsync({ timeoutMs: 2000 });
 * ```
 */
export function finalizeAsync(options: { timeoutMs?: number } = {}): Promise<void> {
  return flowModule.finalizeAsync(options);
}

/** Where flow computes by default: `host` (the CPU thread pool); lattices may choose `webgpu`. */
export const executionSpace: string = flowModule.executionSpace;
