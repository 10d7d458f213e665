/// <reference types="@webgpu/types" preserve="true" />
/**
 * @peclet/core/gpu — WebGPU devices and buffers owned by a peclet module,
 * through Dawn's Node binding (the optional `webgpu` package, imported on
 * first use: this entry loads without it).
 *
 * @packageDocumentation
 */
import { describeValue, fail, readNumber, readOptions } from '../args.js';
import { ReleasedError } from '../errors.js';
import type { GpuOptions } from '../gpu-types.js';
import { chooseBackend, findAdapter, type GpuBackend, gpuBackends, loadWebGpu, type WebGpuModule } from './backend.js';
import type { GpuDevice } from './device.js';
import { type GpuModule, newGpuDevice } from './device.js';

export type { GpuOptions, SharedGpuDevice } from '../gpu-types.js';
export type { GpuBackend } from './backend.js';
export { type GpuAdapterInfo, GpuBuffer, GpuDevice, type GpuModule } from './device.js';

/** The WebGPU flag constants, as `webgpu` defines them (the browser's globals of the same names). */
export interface GpuConstants {
  readonly GPUBufferUsage: typeof GPUBufferUsage;
  readonly GPUMapMode: typeof GPUMapMode;
  readonly GPUShaderStage: typeof GPUShaderStage;
  readonly GPUTextureUsage: typeof GPUTextureUsage;
}

const powerPreferences: readonly GPUPowerPreference[] = ['low-power', 'high-performance'];

function checkModule(mod: unknown): asserts mod is GpuModule {
  const m = mod as Partial<GpuModule> | null | undefined;
  if (
    typeof m !== 'object' ||
    m === null ||
    typeof m.name !== 'string' ||
    typeof m.registry?.add !== 'function' ||
    typeof m.finalized !== 'boolean'
  ) {
    throw new TypeError('requestGpu(mod, options): mod must be a PecletModule (from defineModule)');
  }
}

function checkOptions(options: unknown): GpuOptions {
  const o = readOptions(options, 'options', ['backend', 'powerPreference', 'requiredLimits', 'label'], {
    optional: true,
  });
  if (o.backend !== undefined && !gpuBackends.includes(o.backend as GpuBackend)) {
    fail('range', 'options.backend', `must be one of ${gpuBackends.join(', ')}; got ${describeValue(o.backend)}`);
  }
  if (o.powerPreference !== undefined && !powerPreferences.includes(o.powerPreference as GPUPowerPreference)) {
    fail(
      'range',
      'options.powerPreference',
      `must be 'low-power' or 'high-performance'; got ${describeValue(o.powerPreference)}`,
    );
  }
  let requiredLimits: Record<string, number> | undefined;
  if (o.requiredLimits !== undefined) {
    if (typeof o.requiredLimits !== 'object' || o.requiredLimits === null || Array.isArray(o.requiredLimits)) {
      fail(
        'type',
        'options.requiredLimits',
        `must be an object of limit names to numbers, got ${describeValue(o.requiredLimits)}`,
      );
    }
    requiredLimits = {};
    for (const [name, value] of Object.entries(o.requiredLimits)) {
      requiredLimits[name] = readNumber(value, `options.requiredLimits.${name}`, { min: 0 });
    }
  }
  if (o.label !== undefined && typeof o.label !== 'string') {
    fail('type', 'options.label', `must be a string, got ${describeValue(o.label)}`);
  }
  return {
    ...(o.backend === undefined ? {} : { backend: o.backend as GpuBackend }),
    ...(o.powerPreference === undefined ? {} : { powerPreference: o.powerPreference as GPUPowerPreference }),
    ...(requiredLimits === undefined ? {} : { requiredLimits }),
    ...(o.label === undefined ? {} : { label: o.label as string }),
  };
}

// A module that is finalized or exiting takes no new device.
function checkModuleOpen(mod: GpuModule): void {
  if (mod.finalized || mod.exiting === true) {
    const by = mod.finalized ? 'finalize()' : 'finalizeAsync()';
    throw new ReleasedError(
      `cannot create GpuDevice: module ${mod.name} was finalized by ${by} and no new work may start`,
      {
        module: mod.name,
        className: 'GpuDevice',
        releasedBy: by,
      },
    );
  }
}

// Each required limit must be one the adapter knows and within what it supports
// (`max*` at most the adapter's value, `min*` alignments at least it).
function checkLimits(adapter: GPUAdapter, required: Record<string, number>): void {
  const supported = adapter.limits as unknown as Record<string, number | undefined>;
  for (const [name, value] of Object.entries(required)) {
    const limit = supported[name];
    if (typeof limit !== 'number') fail('range', `options.requiredLimits.${name}`, 'not a WebGPU limit');
    if (name.startsWith('min') ? value < limit : value > limit) {
      fail('range', `options.requiredLimits.${name}`, `${value} is beyond what the adapter supports (${limit})`);
    }
  }
}

/**
 * Acquires a WebGPU device owned by `mod`: one of the module's releasables,
 * destroyed (with every buffer it created) by `mod.finalize()`, by
 * `mod.finalizeAsync()` after its submitted work drained, and by the
 * module's exit listener on every exit path.
 *
 * The backend is `PECLET_GPU_BACKEND` when set, else `options.backend`, else
 * `auto`: Vulkan then Mesa's OpenGL ES then OpenGL on Linux, Metal on macOS,
 * D3D12 then Vulkan on Windows. GL backends use the WebGPU compatibility
 * feature level, and get `EGL_PLATFORM=surfaceless` and `XDG_RUNTIME_DIR`
 * when unset, so Mesa runs without a display.
 *
 * Rejects with an Error whose `code` is `PECLET_NO_WEBGPU` when the `webgpu`
 * package is missing (it says to run `pnpm add webgpu`), or `PECLET_NO_GPU`
 * when no backend gave an adapter (it lists each tried and how to enable one).
 *
 * @example
 * ```ts
 * import { defineModule } from '@peclet/core';
 * import { gpuConstants, requestGpu } from '@peclet/core/gpu';
 *
 * const mod = defineModule({ name: 'dem' });
 * const gpu = await requestGpu(mod, { label: 'dem' });
 * const { GPUBufferUsage } = await gpuConstants();
 * const positions = gpu.createBuffer({ size: 4096, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
 * // ... pipelines from gpu.device, gpu.submit([...]), await gpu.read(positions)
 * await mod.finalizeAsync(); // waits for the GPU, then destroys the buffer and the device
 * ```
 */
export async function requestGpu(mod: GpuModule, options: GpuOptions = {}): Promise<GpuDevice> {
  checkModule(mod);
  const o = checkOptions(options);
  const backend = chooseBackend(o.backend);
  checkModuleOpen(mod);
  const webgpu = await loadWebGpu();
  const found = await findAdapter(webgpu, backend, o.powerPreference);
  if (o.requiredLimits !== undefined) checkLimits(found.adapter, o.requiredLimits);
  checkModuleOpen(mod);
  let device: GPUDevice;
  try {
    device = await found.adapter.requestDevice({
      ...(o.requiredLimits === undefined ? {} : { requiredLimits: o.requiredLimits }),
      ...(o.label === undefined ? {} : { label: o.label }),
    });
  } catch (cause) {
    const why = cause instanceof Error ? cause.message : String(cause);
    throw new Error(`requestGpu(mod, options): the ${found.backend} adapter refused to create a device: ${why}`, {
      cause,
    });
  }
  try {
    checkModuleOpen(mod);
  } catch (error) {
    device.destroy();
    throw error;
  }
  return newGpuDevice(mod, { gpu: found.gpu, adapter: found.adapter, device, backend: found.backend });
}

/**
 * Whether a device can be acquired here, without creating one: loads
 * `webgpu` and asks the backend (as {@link requestGpu} would choose it) for
 * an adapter. `reason` names the adapter, or says what is missing and how to
 * enable it. Never rejects.
 *
 * @example
 * ```ts
 * const { available, reason } = await gpuAvailable();
 * if (!available) console.warn(`no WebGPU: ${reason}`);
 * ```
 */
export async function gpuAvailable(
  options: Pick<GpuOptions, 'backend' | 'powerPreference'> = {},
): Promise<{ available: boolean; reason: string }> {
  try {
    const o = checkOptions(options);
    const webgpu: WebGpuModule = await loadWebGpu();
    const { adapter, backend } = await findAdapter(webgpu, chooseBackend(o.backend), o.powerPreference);
    const info = adapter.info;
    const name = [info.vendor, info.device, info.description].filter((s) => s !== '').join(' ');
    return { available: true, reason: `${backend} adapter: ${name || 'unnamed'}` };
  } catch (error) {
    return { available: false, reason: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * The WebGPU flag constants (`GPUBufferUsage`, `GPUMapMode`,
 * `GPUShaderStage`, `GPUTextureUsage`) from `webgpu`, without assigning
 * them to `globalThis`. Rejects with code `PECLET_NO_WEBGPU` like
 * {@link requestGpu}.
 *
 * @example
 * ```ts
 * const { GPUBufferUsage, GPUMapMode } = await gpuConstants();
 * GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC; // 0x84
 * ```
 */
export async function gpuConstants(): Promise<GpuConstants> {
  const { globals } = await loadWebGpu();
  return Object.freeze({
    GPUBufferUsage: globals.GPUBufferUsage as typeof GPUBufferUsage,
    GPUMapMode: globals.GPUMapMode as typeof GPUMapMode,
    GPUShaderStage: globals.GPUShaderStage as typeof GPUShaderStage,
    GPUTextureUsage: globals.GPUTextureUsage as typeof GPUTextureUsage,
  });
}

/** GPUBufferUsage flags (fixed by the WebGPU specification), usable before WebGPU is loaded. */
export const BufferUsage = {
  MAP_READ: 0x0001,
  COPY_SRC: 0x0004,
  COPY_DST: 0x0008,
  UNIFORM: 0x0040,
  STORAGE: 0x0080,
  INDIRECT: 0x0100,
} as const;

const sharedDevices = new WeakMap<GpuModule, Promise<GpuDevice>>();

/**
 * The device a module's objects share in this thread: acquired with {@link requestGpu} on first
 * use (`options` apply to that acquisition only), acquired again once released. Rejects with
 * code `PECLET_NO_WEBGPU` or `PECLET_NO_GPU` as {@link requestGpu} does.
 *
 * @example
 * ```ts
 * const device = await sharedDevice(demModule, 'dem');
 * ```
 */
export async function sharedDevice(mod: GpuModule, label: string, options: GpuOptions = {}): Promise<GpuDevice> {
  // Checked on every call, also when the device exists and the options are not used.
  const o = checkOptions(options);
  const shared = sharedDevices.get(mod);
  if (shared !== undefined) {
    const device = await shared.catch(() => undefined);
    if (device !== undefined && !device.released) return device;
  }
  const pending = requestGpu(mod, { label, ...o });
  sharedDevices.set(mod, pending);
  return pending;
}
