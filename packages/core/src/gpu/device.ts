/// <reference types="@webgpu/types" preserve="true" />
import { readNumber } from '../args.js';
import { ReleasedError, TeardownError, type TeardownFailure } from '../errors.js';
import type { GpuAdapterInfo, SharedGpuDevice } from '../gpu-types.js';
import { type DrainHook, finalizeTimeoutMs } from '../lifecycle.js';
import { type Registry, Releasable } from '../registry.js';

// Only requestGpu() and GpuDevice.createBuffer() construct these classes.
const constructing = Symbol('peclet.gpu.constructing');

// GPUBufferUsage and GPUMapMode bits, fixed by the WebGPU specification.
const MAP_READ = 0x1;
const MAP_WRITE = 0x2;
const COPY_SRC = 0x4;
const COPY_DST = 0x8;
const ALL_USAGES = 0x3ff;
const MODE_READ = 0x1;
const MODE_WRITE = 0x2;

/** What a GPU device needs of its module (a `PecletModule` from `defineModule`). */
export interface GpuModule {
  readonly name: string;
  readonly registry: Registry;
  readonly finalized: boolean;
  readonly exiting?: boolean;
  onDrain?(label: string, drain: DrainHook): () => void;
}

export type { GpuAdapterInfo };

/** @internal What requestGpu() hands to the GpuDevice constructor. */
export interface AcquiredDevice {
  readonly gpu: GPU;
  readonly adapter: GPUAdapter;
  readonly device: GPUDevice;
  readonly backend: string;
}

// Dawn's objects (pipelines, bind groups, encoders a script still holds)
// reach their instance when they are collected; an instance collected first
// leaves them pointing into freed memory (a crash at a later GC). So a
// released device's instance and adapter stay reachable for the rest of the
// thread: one small object per device ever acquired. The process still exits
// (Dawn keeps the event loop alive only while its own promises are pending,
// and release settles those).
const retired = new Set<object>();

// Destroying a buffer or device while Dawn's mapping of it is in flight
// crashed the process now and then, on a loaded machine: a segfault in the
// setImmediate through which Dawn's binding rejects the mapping's promise,
// after the program's own code had ended (most likely a second settlement
// of the same promise; the binding is not ours to fix). So a release with a
// mapping in flight destroys the Dawn objects once the mappings settled —
// the wrapper's promises reject at once, with ReleasedError — and at the
// latest when the thread exits, or after the finalize timeout. From the
// thread's 'exit' on, destruction is immediate: no callback can come after
// it, and a worker whose env ends with a mapping pending aborts in Dawn.
const deferred = new Set<() => void>();
let threadExiting = false;
// First of the thread's exit listeners, before any module's finalize.
process.prependListener('exit', () => {
  threadExiting = true;
  for (const destroyNow of [...deferred]) destroyNow();
});

function destroyWhenSettled(pending: readonly Promise<unknown>[], destroy: () => void): void {
  if (pending.length === 0 || threadExiting) {
    destroy();
    return;
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const run = () => {
    if (!deferred.delete(run)) return;
    clearTimeout(timer);
    destroy();
  };
  deferred.add(run);
  timer = setTimeout(run, finalizeTimeoutMs());
  timer.unref?.();
  void Promise.allSettled(pending).then(run);
}

const isInteger = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

function checkOffset(value: unknown, name: string, call: string, multiple: number): number {
  if (!isInteger(value) || value % multiple !== 0) {
    throw new RangeError(
      `${call}: ${name} must be a non-negative integer multiple of ${multiple}, got ${String(value)}`,
    );
  }
  return value;
}

function exitingError(module: GpuModule, what: string): ReleasedError {
  const by = module.finalized ? 'finalize()' : 'finalizeAsync()';
  return new ReleasedError(
    `cannot ${what}: module ${module.name} is exiting (${by} started) and no new GPU work may start`,
    { module: module.name, className: 'GpuDevice', releasedBy: by },
  );
}

/**
 * A GPU buffer owned by a module: registered in its registry, so the
 * module's finalize and exit listener unmap and destroy it (its mapped
 * ranges are detached: `byteLength` 0). After release every method throws
 * a {@link ReleasedError}. Created by {@link GpuDevice.createBuffer}.
 *
 * @example
 * ```ts
 * const { GPUBufferUsage, GPUMapMode } = await gpuConstants();
 * const upload = gpu.createBuffer({ size: 16, usage: GPUBufferUsage.MAP_WRITE | GPUBufferUsage.COPY_SRC });
 * await upload.mapAsync(GPUMapMode.WRITE);
 * new Float32Array(upload.getMappedRange()).set([1, 2, 3, 4]);
 * upload.unmap();
 * ```
 */
export class GpuBuffer extends Releasable {
  #buffer: GPUBuffer | undefined;
  /** Size in bytes. */
  readonly size: number;
  /** GPUBufferUsage flags. */
  readonly usage: number;
  /** The device that created it. */
  readonly owner: GpuDevice;
  readonly #forget: (buffer: GpuBuffer) => void;
  // Dawn's mapping in flight, and what release() settles for its waiter.
  #mapping: Promise<void> | undefined;
  #onRelease: (() => void) | undefined;

  /** @internal Use {@link GpuDevice.createBuffer}. */
  constructor(
    key: symbol,
    registry: Registry,
    owner: GpuDevice,
    buffer: GPUBuffer,
    forget: (buffer: GpuBuffer) => void,
  ) {
    if (key !== constructing) throw new TypeError('GpuBuffer: create buffers with GpuDevice.createBuffer()');
    super(registry);
    this.#buffer = buffer;
    this.size = buffer.size;
    this.usage = buffer.usage;
    this.owner = owner;
    this.#forget = forget;
  }

  override get className(): string {
    return 'GpuBuffer';
  }

  /** The WebGPU buffer, for bind groups and command encoders. */
  get buffer(): GPUBuffer {
    this.assertLive();
    return this.#buffer as GPUBuffer;
  }

  /** `unmapped`, `pending` or `mapped`. */
  get mapState(): GPUBufferMapState {
    return this.buffer.mapState;
  }

  /**
   * Maps the buffer for reading (`GPUMapMode.READ`, needs `MAP_READ` usage)
   * or writing (`GPUMapMode.WRITE`, needs `MAP_WRITE`). Rejects with a
   * {@link ReleasedError} when the buffer is released before the mapping ends.
   */
  async mapAsync(mode: number, offset = 0, size?: number): Promise<void> {
    const call = `GpuBuffer#${this.id}.mapAsync(mode, offset, size)`;
    if (mode !== MODE_READ && mode !== MODE_WRITE) {
      throw new RangeError(`${call}: mode must be GPUMapMode.READ (1) or GPUMapMode.WRITE (2), got ${String(mode)}`);
    }
    const buffer = this.buffer;
    const needed = mode === MODE_READ ? MAP_READ : MAP_WRITE;
    if ((this.usage & needed) === 0) {
      throw new TypeError(
        `${call}: the buffer was created without GPUBufferUsage.${mode === MODE_READ ? 'MAP_READ' : 'MAP_WRITE'}`,
      );
    }
    checkOffset(offset, 'offset', call, 8);
    const length = size ?? this.size - offset;
    checkOffset(length, 'size', call, 4);
    if (offset + length > this.size) {
      throw new RangeError(`${call}: offset + size (${offset + length}) exceeds the buffer's ${this.size} bytes`);
    }
    const mapping = buffer.mapAsync(mode, offset, length);
    this.#mapping = mapping;
    this.owner.trackMapping(mapping);
    const settled = () => {
      if (this.#mapping === mapping) this.#mapping = undefined;
    };
    mapping.then(settled, settled);
    const released = new Promise<void>((resolve) => {
      this.#onRelease = resolve;
    });
    try {
      await Promise.race([mapping, released]);
    } catch (error) {
      this.assertLive();
      throw error;
    } finally {
      this.#onRelease = undefined;
    }
    this.assertLive();
  }

  /**
   * The mapped bytes `[offset, offset + size)`. The ArrayBuffer is the
   * buffer's memory: `unmap()` and release detach it (`byteLength` 0).
   */
  getMappedRange(offset = 0, size?: number): ArrayBuffer {
    const call = `GpuBuffer#${this.id}.getMappedRange(offset, size)`;
    const buffer = this.buffer;
    checkOffset(offset, 'offset', call, 8);
    const length = size ?? this.size - offset;
    checkOffset(length, 'size', call, 4);
    if (offset + length > this.size) {
      throw new RangeError(`${call}: offset + size (${offset + length}) exceeds the buffer's ${this.size} bytes`);
    }
    if (buffer.mapState !== 'mapped') {
      throw new DOMException(`${call}: the buffer is ${buffer.mapState}, not mapped`, 'OperationError');
    }
    return buffer.getMappedRange(offset, length);
  }

  /** Ends the mapping: GPU work may use the buffer again; mapped ranges are detached. */
  unmap(): void {
    this.buffer.unmap();
  }

  protected releaseResources(): void {
    const buffer = this.#buffer;
    this.#buffer = undefined;
    this.#forget(this);
    this.#onRelease?.();
    if (buffer === undefined) return;
    const mapping = this.#mapping;
    if (mapping !== undefined) {
      // Destroyed once Dawn settled the mapping (see destroyWhenSettled).
      destroyWhenSettled([mapping], () => buffer.destroy());
      return;
    }
    try {
      // A mapped range is detached.
      if (buffer.mapState !== 'unmapped') buffer.unmap();
    } finally {
      buffer.destroy();
    }
  }
}

/**
 * A WebGPU device owned by a module, from {@link requestGpu}. It is one of
 * the module's releasables, as is every buffer it creates: the module's
 * `finalize()` and its exit listener destroy them, newest first, then the
 * device, and drop the Dawn instance so the process can exit. Submissions
 * are refused once the module is exiting.
 *
 * @example
 * ```ts
 * const gpu = await requestGpu(mod);
 * const data = gpu.createBuffer({ size: 1024, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
 * gpu.writeBuffer(data, 0, new Float32Array(256).fill(1));
 * // ... encode a compute pass with gpu.device, then:
 * gpu.submit([encoder.finish()]);
 * const result = new Float32Array(await gpu.read(data));
 * ```
 */
export class GpuDevice extends Releasable implements SharedGpuDevice {
  #device: GPUDevice | undefined;
  #gpu: GPU | undefined;
  #adapter: GPUAdapter | undefined;
  /** The backend in use: `vulkan`, `opengles`, `metal`, ... */
  readonly backend: string;
  /** The adapter, as its driver describes it. */
  readonly adapterInfo: GpuAdapterInfo;
  /** The device's limits (what shaders and buffers may use). */
  readonly limits: GPUSupportedLimits;
  readonly #module: GpuModule;
  readonly #buffers = new Map<number, WeakRef<GpuBuffer>>();
  readonly #collected = new FinalizationRegistry<number>((id) => this.#buffers.delete(id));
  readonly #forget = (buffer: GpuBuffer) => {
    this.#buffers.delete(buffer.id);
    this.#collected.unregister(buffer);
    if (this.#spare === buffer) this.#spare = undefined;
  };
  // Dawn's mappings in flight on the device's buffers (see destroyWhenSettled).
  readonly #mappings = new Set<Promise<void>>();
  // One idle MAP_READ staging buffer, reused by read() and drain().
  #spare: GpuBuffer | undefined;
  readonly #removeDrain: () => void;

  /** @internal Use {@link requestGpu}. */
  constructor(key: symbol, module: GpuModule, acquired: AcquiredDevice) {
    if (key !== constructing) throw new TypeError('GpuDevice: acquire a device with requestGpu(mod)');
    super(module.registry);
    this.#module = module;
    this.#device = acquired.device;
    this.#gpu = acquired.gpu;
    this.#adapter = acquired.adapter;
    this.backend = acquired.backend;
    const info = acquired.adapter.info;
    this.adapterInfo = Object.freeze({
      vendor: info.vendor,
      architecture: info.architecture,
      device: info.device,
      description: info.description,
    });
    this.limits = acquired.device.limits;
    // Held weakly: the module's drain hooks must not keep a dropped device alive.
    const self = new WeakRef(this);
    this.#removeDrain =
      module.onDrain?.(`GpuDevice#${this.id}`, async (timeoutMs) => {
        const device = self.deref();
        return device === undefined || device.released ? true : device.drain(timeoutMs).catch(() => false);
      }) ?? (() => {});
  }

  override get className(): string {
    return 'GpuDevice';
  }

  /** The WebGPU device, for shader modules, pipelines, bind groups and command encoders. */
  get device(): GPUDevice {
    this.assertLive();
    return this.#device as GPUDevice;
  }

  /** The Dawn instance (what `navigator.gpu` is in a browser); dropped at release so the process can exit. */
  get gpu(): GPU {
    this.assertLive();
    return this.#gpu as GPU;
  }

  /** The adapter the device was created from (it is consumed: it creates no other device). */
  get adapter(): GPUAdapter {
    this.assertLive();
    return this.#adapter as GPUAdapter;
  }

  /**
   * Creates a buffer registered in the device's module. Refused (a
   * {@link ReleasedError}) once the module is exiting or the device released.
   */
  createBuffer(descriptor: GPUBufferDescriptor): GpuBuffer {
    const device = this.#live('createBuffer(descriptor)');
    const call = `GpuDevice#${this.id}.createBuffer(descriptor)`;
    if (typeof descriptor !== 'object' || descriptor === null) {
      throw new TypeError(`${call}: descriptor must be an object ({ size, usage })`);
    }
    const { size, usage, mappedAtCreation } = descriptor;
    if (!isInteger(size) || size > this.limits.maxBufferSize) {
      throw new RangeError(
        `${call}: descriptor.size must be an integer from 0 to ${this.limits.maxBufferSize} (maxBufferSize), got ${String(size)}`,
      );
    }
    if (!isInteger(usage) || usage === 0 || (usage & ~ALL_USAGES) !== 0) {
      throw new RangeError(
        `${call}: descriptor.usage must be a non-zero set of GPUBufferUsage flags, got ${String(usage)}`,
      );
    }
    if ((usage & MAP_READ) !== 0 && (usage & ~(MAP_READ | COPY_DST)) !== 0) {
      throw new RangeError(`${call}: descriptor.usage: MAP_READ combines only with COPY_DST`);
    }
    if ((usage & MAP_WRITE) !== 0 && (usage & ~(MAP_WRITE | COPY_SRC)) !== 0) {
      throw new RangeError(`${call}: descriptor.usage: MAP_WRITE combines only with COPY_SRC`);
    }
    if (mappedAtCreation !== undefined && typeof mappedAtCreation !== 'boolean') {
      throw new TypeError(`${call}: descriptor.mappedAtCreation must be a boolean`);
    }
    if (mappedAtCreation === true && size % 4 !== 0) {
      throw new RangeError(`${call}: descriptor.size must be a multiple of 4 with mappedAtCreation, got ${size}`);
    }
    const buffer = new GpuBuffer(
      constructing,
      this.#module.registry,
      this,
      device.createBuffer(descriptor),
      this.#forget,
    );
    this.#buffers.set(buffer.id, new WeakRef(buffer));
    this.#collected.register(buffer, buffer.id, buffer);
    return buffer;
  }

  /**
   * Queues a write of `data` into `buffer` at `bufferOffset` (bytes, a
   * multiple of 4); `dataOffset` and `size` count elements of a typed array,
   * bytes otherwise. The buffer needs `COPY_DST` usage and must be unmapped.
   */
  writeBuffer(
    buffer: GpuBuffer,
    bufferOffset: number,
    data: ArrayBufferView | ArrayBuffer,
    dataOffset?: number,
    size?: number,
  ): void {
    const device = this.#live('writeBuffer(buffer, ...)');
    const call = `GpuDevice#${this.id}.writeBuffer(buffer, bufferOffset, data, dataOffset, size)`;
    const target = this.#own(buffer, call, COPY_DST, 'COPY_DST');
    checkOffset(bufferOffset, 'bufferOffset', call, 4);
    const view = ArrayBuffer.isView(data);
    if (!view && !(data instanceof ArrayBuffer)) {
      throw new TypeError(`${call}: data must be a typed array, DataView or ArrayBuffer`);
    }
    const typed = view && !(data instanceof DataView);
    const elementBytes = typed ? (data as unknown as { BYTES_PER_ELEMENT: number }).BYTES_PER_ELEMENT : 1;
    const elements = typed ? (data as unknown as { length: number }).length : data.byteLength;
    const start = dataOffset ?? 0;
    if (!isInteger(start) || start > elements) {
      throw new RangeError(`${call}: dataOffset must be an integer from 0 to ${elements}, got ${String(dataOffset)}`);
    }
    const count = size ?? elements - start;
    if (!isInteger(count) || start + count > elements || (count * elementBytes) % 4 !== 0) {
      throw new RangeError(
        `${call}: size must be an integer with dataOffset + size <= ${elements} and a multiple of 4 bytes, got ${String(size)}`,
      );
    }
    if (bufferOffset + count * elementBytes > buffer.size) {
      throw new RangeError(
        `${call}: writing ${count * elementBytes} bytes at bufferOffset ${bufferOffset} overruns the buffer's ${buffer.size} bytes`,
      );
    }
    // Dawn takes typed arrays only: bytes of an ArrayBuffer or DataView go as a Uint8Array.
    const source = typed
      ? (data as ArrayBufferView)
      : view
        ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
        : new Uint8Array(data);
    device.queue.writeBuffer(target, bufferOffset, source as GPUAllowSharedBufferSource, start, count);
  }

  /** Submits command buffers to the queue. Throws a {@link ReleasedError} once the module is exiting. */
  submit(commandBuffers: GPUCommandBuffer[]): void {
    const device = this.#live('submit(commandBuffers)');
    if (!Array.isArray(commandBuffers)) {
      throw new TypeError(`GpuDevice#${this.id}.submit(commandBuffers): commandBuffers must be an array`);
    }
    device.queue.submit(commandBuffers);
  }

  /**
   * Copies `size` bytes of `buffer` from `offset` (both multiples of 4) into
   * a new ArrayBuffer owned by JavaScript, through a staging buffer mapped
   * for reading once the work submitted before it ends. The buffer needs
   * `COPY_SRC` usage. Rejects with a {@link ReleasedError} when the device is
   * released (or its module finalized) meanwhile.
   */
  async read(buffer: GpuBuffer, offset = 0, size?: number): Promise<ArrayBuffer> {
    const device = this.#live('read(buffer)');
    const call = `GpuDevice#${this.id}.read(buffer, offset, size)`;
    const source = this.#own(buffer, call, COPY_SRC, 'COPY_SRC');
    checkOffset(offset, 'offset', call, 4);
    const length = size ?? buffer.size - offset;
    checkOffset(length, 'size', call, 4);
    if (offset + length > buffer.size) {
      throw new RangeError(`${call}: offset + size (${offset + length}) exceeds the buffer's ${buffer.size} bytes`);
    }
    if (length === 0) return new ArrayBuffer(0);
    const staging = this.#takeStaging(length);
    let mapped = false;
    try {
      const encoder = device.createCommandEncoder({ label: 'peclet read' });
      encoder.copyBufferToBuffer(source, offset, staging.buffer, 0, length);
      device.queue.submit([encoder.finish()]);
      await staging.mapAsync(MODE_READ, 0, length);
      mapped = true;
      return staging.getMappedRange(0, length).slice(0);
    } catch (error) {
      this.assertLive();
      throw error;
    } finally {
      if (mapped && !staging.released) staging.unmap();
      this.#giveBackStaging(staging);
    }
  }

  /**
   * Waits, at most `timeoutMs` (default `PECLET_FINALIZE_TIMEOUT_MS`, else
   * 10000), for the work submitted so far; resolves true when it ended,
   * false on timeout. Allowed while the module is exiting (finalizeAsync()
   * drains this way). Rejects with a {@link ReleasedError} when the device is
   * released meanwhile.
   */
  async drain(timeoutMs: number = finalizeTimeoutMs()): Promise<boolean> {
    readNumber(timeoutMs, 'timeoutMs', { min: 0, infinite: true, unit: 'ms' });
    const device = this.device;
    // A fence: a write queued after every submission so far, then a mapping
    // of its buffer, which the in-order queue completes after all of them.
    // Unlike queue.onSubmittedWorkDone(), destroying the buffer settles it,
    // so release never leaves a Dawn promise pending (Dawn aborts the
    // process when a worker's env is torn down with one pending).
    const fence = this.#takeStaging(4);
    device.queue.writeBuffer(fence.buffer, 0, fenceWord);
    const mapping = fence.mapAsync(MODE_READ, 0, 4).then(
      () => {
        if (!fence.released) fence.unmap();
        this.#giveBackStaging(fence);
        return true;
      },
      (error: unknown) => {
        this.#giveBackStaging(fence);
        throw error;
      },
    );
    let timer: NodeJS.Timeout | undefined;
    // Infinity (or anything setTimeout cannot hold) waits for the fence alone.
    const waits: Promise<boolean>[] = [mapping];
    if (timeoutMs <= 2 ** 31 - 1) {
      waits.push(
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(false), timeoutMs);
        }),
      );
    }
    try {
      return await Promise.race(waits);
    } catch (error) {
      this.assertLive();
      throw error;
    } finally {
      clearTimeout(timer);
      // A fence still pending after a timeout settles later, on its own.
      mapping.catch(() => {});
    }
  }

  protected releaseResources(): void {
    this.#removeDrain();
    const failures: TeardownFailure[] = [];
    const by = `release() of GpuDevice#${this.id}`;
    const buffers = [...this.#buffers.values()].reverse();
    this.#buffers.clear();
    for (const ref of buffers) {
      const buffer = ref.deref();
      if (buffer === undefined || buffer.released) continue;
      try {
        buffer.releaseBy(by);
      } catch (cause) {
        failures.push({ label: `GpuBuffer#${buffer.id}`, cause });
      }
    }
    const device = this.#device;
    this.#device = undefined;
    this.#spare = undefined;
    if (this.#gpu !== undefined) retired.add({ gpu: this.#gpu, adapter: this.#adapter });
    this.#adapter = undefined;
    this.#gpu = undefined;
    try {
      if (device !== undefined) destroyWhenSettled([...this.#mappings], () => device.destroy());
    } catch (cause) {
      failures.push({ label: `GpuDevice#${this.id} destroy()`, cause });
    }
    if (failures.length > 0) throw new TeardownError(failures, `release of GpuDevice#${this.id}`);
  }

  /** @internal Counts a Dawn mapping in flight until it settles. */
  trackMapping(mapping: Promise<void>): void {
    this.#mappings.add(mapping);
    const settled = () => this.#mappings.delete(mapping);
    mapping.then(settled, settled);
  }

  // The device, or a ReleasedError when released or when the module exits.
  #live(what: string): GPUDevice {
    const device = this.device;
    if (this.#module.exiting === true || this.#module.finalized) throw exitingError(this.#module, what);
    return device;
  }

  #own(buffer: GpuBuffer, call: string, usage: number, usageName: string): GPUBuffer {
    if (!(buffer instanceof GpuBuffer)) throw new TypeError(`${call}: buffer must be a GpuBuffer`);
    if (buffer.owner !== this) {
      throw new TypeError(`${call}: buffer GpuBuffer#${buffer.id} belongs to another device`);
    }
    const raw = buffer.buffer;
    if ((buffer.usage & usage) === 0) {
      throw new TypeError(`${call}: buffer GpuBuffer#${buffer.id} was created without GPUBufferUsage.${usageName}`);
    }
    if (raw.mapState !== 'unmapped') {
      throw new TypeError(`${call}: buffer GpuBuffer#${buffer.id} is ${raw.mapState}; unmap() it first`);
    }
    return raw;
  }

  #takeStaging(size: number): GpuBuffer {
    const spare = this.#spare;
    if (spare !== undefined && !spare.released && spare.size >= size) {
      this.#spare = undefined;
      return spare;
    }
    const device = this.device;
    const buffer = new GpuBuffer(
      constructing,
      this.#module.registry,
      this,
      device.createBuffer({ label: 'peclet staging', size: Math.ceil(size / 256) * 256, usage: MAP_READ | COPY_DST }),
      this.#forget,
    );
    this.#buffers.set(buffer.id, new WeakRef(buffer));
    this.#collected.register(buffer, buffer.id, buffer);
    return buffer;
  }

  // Keeps the largest idle staging buffer, releases the others.
  #giveBackStaging(buffer: GpuBuffer): void {
    if (buffer.released || this.released) return;
    if (buffer.mapState !== 'unmapped') {
      buffer.release();
      return;
    }
    const spare = this.#spare;
    if (spare === undefined || spare.released) {
      this.#spare = buffer;
    } else if (buffer.size > spare.size) {
      this.#spare = buffer;
      spare.release();
    } else {
      buffer.release();
    }
  }
}

const fenceWord = new Uint32Array(1);

/** @internal */
export function newGpuDevice(module: GpuModule, acquired: AcquiredDevice): GpuDevice {
  return new GpuDevice(constructing, module, acquired);
}
