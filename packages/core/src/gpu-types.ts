/**
 * The WebGPU vocabulary a solver's public API shows, in plain types: no `GPU*` name of the
 * WebGPU specification appears here, so a project that never touches a device type-checks
 * without `@webgpu/types` (only `@peclet/core/gpu`, for addon authors, needs those).
 */

/** A Dawn backend, or `auto` to try the platform's in order. */
export type GpuBackend = 'auto' | 'vulkan' | 'opengles' | 'opengl' | 'd3d12' | 'metal' | 'null';

/** The adapter a device runs on, as the driver describes it. */
export interface GpuAdapterInfo {
  readonly vendor: string;
  readonly architecture: string;
  readonly device: string;
  readonly description: string;
}

/** Options of `requestGpu` (`@peclet/core/gpu`) and of each solver's `gpuDevice()`. */
export interface GpuOptions {
  /** Backend to use (default `auto`); `PECLET_GPU_BACKEND` overrides it. */
  backend?: GpuBackend;
  /** Adapter preference where a machine has several GPUs (WebGPU's `GPUPowerPreference`). */
  powerPreference?: 'low-power' | 'high-performance';
  /** Limits the device must have (e.g. `{ maxStorageBuffersPerShaderStage: 10 }`), checked against the adapter. */
  requiredLimits?: Record<string, number>;
  /** Label of the device in Dawn's messages. */
  label?: string;
}

/**
 * What a solver's `gpuDevice()` shows of the device its simulations share in this thread: the
 * backend and adapter, and its lifecycle. The object is `GpuDevice` of `@peclet/core/gpu`, whose
 * WebGPU handles an addon author reaches through that entry.
 *
 * @example
 * ```ts
 * const device = await gpuDevice(); // of @peclet/dem or @peclet/flow
 * console.log(device.backend, device.adapterInfo.description);
 * ```
 */
export interface SharedGpuDevice {
  /** The backend Dawn runs on (`vulkan`, `opengles`, ...). */
  readonly backend: string;
  readonly adapterInfo: GpuAdapterInfo;
  /** True once released (by the module's finalize, or `release()`). */
  readonly released: boolean;
  /** Releases the device and every buffer made on it; the module acquires a new one on next use. */
  release(): void;
}
