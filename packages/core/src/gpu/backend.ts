/// <reference types="@webgpu/types" preserve="true" />
// Loading Dawn's Node binding (the optional `webgpu` package) and finding an
// adapter: which backends to try, the environment Mesa needs, and the errors
// that say how to enable what is missing.
import { tmpdir } from 'node:os';
import { isMainThread } from 'node:worker_threads';

import type { GpuBackend } from '../gpu-types.js';

export type { GpuBackend };

export const gpuBackends: readonly GpuBackend[] = ['auto', 'vulkan', 'opengles', 'opengl', 'd3d12', 'metal', 'null'];

/** What `import('webgpu')` gives. */
export interface WebGpuModule {
  create(options: string[]): GPU;
  readonly globals: Record<string, unknown>;
}

/** An adapter and the instance that owns it. */
export interface FoundAdapter {
  readonly gpu: GPU;
  readonly adapter: GPUAdapter;
  readonly backend: Exclude<GpuBackend, 'auto'>;
}

/** An Error with a `code` (`PECLET_NO_WEBGPU`, `PECLET_NO_GPU`). */
export type CodedError = Error & { code: string };

export function codedError(code: string, message: string, cause?: unknown): CodedError {
  const error = new Error(message, cause === undefined ? undefined : { cause }) as CodedError;
  error.code = code;
  return error;
}

const mesaPackages = 'libegl1 libegl-mesa0 libgles2 libgl1-mesa-dri';

let loading: Promise<WebGpuModule> | undefined;

/** Imports `webgpu` once per thread; rejects with code `PECLET_NO_WEBGPU` when it cannot load. */
export function loadWebGpu(): Promise<WebGpuModule> {
  // A specifier the bundler cannot see: `webgpu` must stay a runtime import
  // (it finds dawn.node beside its own files) and an optional one.
  const specifier = 'webgpu';
  loading ??= import(specifier).then(
    (loaded) => loaded as unknown as WebGpuModule,
    (cause: unknown) => {
      loading = undefined;
      const missing = (cause as { code?: string })?.code === 'ERR_MODULE_NOT_FOUND';
      const why = cause instanceof Error ? cause.message : String(cause);
      throw codedError(
        'PECLET_NO_WEBGPU',
        missing
          ? '@peclet/core/gpu needs the optional package `webgpu` (Dawn for Node), which is not installed. ' +
              'Add it with `pnpm add webgpu` (or `npm install webgpu`).'
          : `@peclet/core/gpu could not load the package \`webgpu\` (Dawn for Node): ${why}\n` +
              'Reinstall it with `pnpm add webgpu`; it ships prebuilt binaries for linux-x64/arm64, darwin and win32.',
        cause,
      );
    },
  );
  return loading;
}

/** The backend to use: `PECLET_GPU_BACKEND` when set, else the option, else `auto`. */
export function chooseBackend(option: GpuBackend | undefined): GpuBackend {
  const fromEnv = process.env.PECLET_GPU_BACKEND;
  if (fromEnv !== undefined && fromEnv !== '') {
    const value = fromEnv.trim().toLowerCase();
    if (!gpuBackends.includes(value as GpuBackend)) {
      throw new RangeError(`PECLET_GPU_BACKEND must be one of ${gpuBackends.join(', ')}; got '${fromEnv}'`);
    }
    return value as GpuBackend;
  }
  return option ?? 'auto';
}

/** Backends `auto` tries, in order, on this platform. */
export function autoBackends(platform: NodeJS.Platform = process.platform): Exclude<GpuBackend, 'auto'>[] {
  switch (platform) {
    case 'darwin':
      return ['metal'];
    case 'win32':
      return ['d3d12', 'vulkan'];
    default:
      // Vulkan for real GPUs; Mesa's GL ES (llvmpipe) where there is none.
      return ['vulkan', 'opengles', 'opengl'];
  }
}

// Mesa's EGL needs a platform with no display server, and warns without a
// runtime dir. Only unset variables are given a value. In a worker thread
// process.env is a copy that native code never sees, so this only helps on
// the main thread (see the hint in noGpuError).
// Returns true when EGL_PLATFORM had to be set.
function prepareGlEnvironment(): boolean {
  const unset = process.env.EGL_PLATFORM === undefined;
  process.env.EGL_PLATFORM ??= 'surfaceless';
  process.env.XDG_RUNTIME_DIR ??= tmpdir();
  return unset;
}

const isGl = (backend: string) => backend === 'opengles' || backend === 'opengl';

/**
 * Creates a Dawn instance per backend tried and asks it for an adapter;
 * returns the first found, or rejects with code `PECLET_NO_GPU` listing
 * every backend tried and why it gave nothing.
 */
export async function findAdapter(
  webgpu: WebGpuModule,
  backend: GpuBackend,
  powerPreference: GPUPowerPreference | undefined,
): Promise<FoundAdapter> {
  const candidates = backend === 'auto' ? autoBackends() : [backend];
  const tried: string[] = [];
  let setEglPlatform = false;
  for (const candidate of candidates) {
    if (isGl(candidate)) setEglPlatform = prepareGlEnvironment() || setEglPlatform;
    try {
      const gpu = webgpu.create([`backend=${candidate}`]);
      const options: GPURequestAdapterOptions = {
        featureLevel: isGl(candidate) ? 'compatibility' : 'core',
        ...(powerPreference === undefined ? {} : { powerPreference }),
      };
      const adapter = await gpu.requestAdapter(options);
      if (adapter !== null) return { gpu, adapter, backend: candidate };
      tried.push(`${candidate}: no adapter`);
    } catch (cause) {
      tried.push(`${candidate}: ${cause instanceof Error ? cause.message.split('\n')[0] : String(cause)}`);
    }
  }
  throw noGpuError(backend, tried, setEglPlatform && !isMainThread);
}

function noGpuError(backend: GpuBackend, tried: string[], workerWithoutEglPlatform: boolean): CodedError {
  const lines = [
    `@peclet/core/gpu found no GPU adapter (backend ${backend}${process.env.PECLET_GPU_BACKEND ? ', from PECLET_GPU_BACKEND' : ''}). Tried:`,
    ...tried.map((t) => `  ${t}`),
    'To enable one:',
    '  - with a GPU: install its Vulkan driver (Linux), or use metal (macOS) / d3d12 (Windows);',
    `  - without a GPU (Linux): install Mesa's software OpenGL ES (Debian/Ubuntu: apt-get install ${mesaPackages}) ` +
      'and use PECLET_GPU_BACKEND=opengles (auto tries it after vulkan);',
    '  - EGL_PLATFORM=surfaceless and XDG_RUNTIME_DIR are set for GL backends when unset;',
    '  - PECLET_GPU_BACKEND=<auto|vulkan|opengles|opengl|d3d12|metal|null> picks the backend.',
  ];
  if (workerWithoutEglPlatform) {
    lines.push(
      '  - this is a worker thread, whose process.env never reaches native code: set EGL_PLATFORM=surfaceless ' +
        'in the environment the process starts with, or on the main thread before starting the worker.',
    );
  }
  return codedError('PECLET_NO_GPU', lines.join('\n'));
}
