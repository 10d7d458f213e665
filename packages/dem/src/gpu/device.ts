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
export const Usage = {
  MAP_READ: 0x0001,
  COPY_SRC: 0x0004,
  COPY_DST: 0x0008,
  UNIFORM: 0x0040,
  STORAGE: 0x0080,
} as const;

// One device per module in this thread, acquired on first use.
let shared: Promise<GpuDevice> | undefined;

/** The module's shared device, acquired on first use (errors carry code PECLET_NO_WEBGPU / PECLET_NO_GPU). */
export async function sharedDevice(module: PecletModule, options: GpuOptions = {}): Promise<GpuDevice> {
  if (shared !== undefined) {
    const device = await shared.catch(() => undefined);
    if (device !== undefined && !device.released) return device;
  }
  const pending = import('@peclet/core/gpu').then(({ requestGpu }) => requestGpu(module, { label: 'dem', ...options }));
  shared = pending;
  return pending;
}
