/**
 * Device acquisition for the WebGPU execution space, through `@peclet/core/gpu` (loaded on first
 * use, so importing dem never loads WebGPU): the device is one of the dem module's releasables,
 * released with every buffer it made by the module's finalize.
 * @internal
 */
import type { PecletModule } from '@peclet/core';
import type { GpuBuffer, GpuDevice, GpuOptions } from '@peclet/core/gpu';

export type GpuBufferHandle = GpuBuffer;
export type GpuDeviceHandle = GpuDevice;

/** GPUBufferUsage flags (fixed by the WebGPU specification). */
export { BufferUsage as Usage } from '@peclet/core/gpu';

/** The module's shared device, acquired on first use (errors carry code PECLET_NO_WEBGPU / PECLET_NO_GPU). */
export function sharedDevice(module: PecletModule, options: GpuOptions = {}): Promise<GpuDevice> {
  return import('@peclet/core/gpu').then((gpu) => gpu.sharedDevice(module, 'dem', options));
}
