/**
 * @peclet/dem — discrete element method for frictional spheres.
 *
 * @example
 * ```ts
 * import { Simulation } from '@peclet/dem';
 * using simulation = new Simulation({
 *   box: { min: [0, 0, 0], max: [0.02, 0.02, 0.05] },
 *   periodic: [true, true, false],
 *   contact: { model: 'hertz-mindlin', youngsModulus: 1e7, restitution: 0.5, friction: 0.5 },
 * });
 * simulation.deposit({ count: 2000, radius: 0.0005, density: 2500, seed: 1 });
 * simulation.packingFraction({ min: [0, 0, 0.003], max: [0.02, 0.02, 0.008] }); // ≈ 0.6
 * ```
 *
 * @packageDocumentation
 */
// The public types name no WebGPU type: a consumer type-checks without @webgpu/types.
import type { GpuOptions, SharedGpuDevice } from '@peclet/core';
import { sharedDevice } from './gpu/device.js';
import { demModule } from './native.js';

export { ReleasedError } from '@peclet/core';
export { Simulation } from './simulation.js';
export type {
  Box,
  ContactOptions,
  Contacts,
  DepositAsyncOptions,
  DepositOptions,
  DepositReport,
  Progress,
  RadiusDistribution,
  RunOptions,
  SimulationOptions,
  SphereBatch,
  StepReport,
  TimestepReport,
  Vector3,
  VoxelizedSpheres,
  VoxelizeOptions,
} from './types.js';

/**
 * Releases every simulation of this thread, stops runs in flight and finalizes the module.
 * Idempotent; runs by itself at exit.
 */
export function finalize(): void {
  demModule.finalize();
}

/**
 * The WebGPU device that simulations with `executionSpace: 'webgpu'` use in this thread, acquired
 * on first use (here or by their first asynchronous call) through `requestGpu` of
 * `@peclet/core/gpu` with `options` (backend, powerPreference, requiredLimits; they apply to the
 * first acquisition only). It belongs to the dem module: {@link finalize} releases it with every
 * buffer. Rejects with code `PECLET_NO_WEBGPU` (the optional `webgpu` package is missing) or
 * `PECLET_NO_GPU` (no adapter).
 *
 * @example
 * ```ts
 * const device = await gpuDevice();
 * device.backend; // 'vulkan', 'opengles', ...
 * ```
 */
export function gpuDevice(options: GpuOptions = {}): Promise<SharedGpuDevice> {
  return sharedDevice(demModule, options);
}

/**
 * {@link finalize} after the module's submitted GPU work has ended (at most `timeoutMs`, default
 * `PECLET_FINALIZE_TIMEOUT_MS` or 10 s); no new GPU work starts meanwhile.
 *
 * @example
 * ```ts
 * await simulation.run({ steps: 1000 }); // executionSpace: 'webgpu'
 * await finalizeAsync({ timeoutMs: 2000 });
 * ```
 */
export function finalizeAsync(options: { timeoutMs?: number } = {}): Promise<void> {
  return demModule.finalizeAsync(options);
}

/** Where dem computes: `host` (the CPU thread pool). */
export const executionSpace: string = demModule.executionSpace;
