/// <reference types="@webgpu/types" />
/**
 * Device state and stepping of a Simulation on the WebGPU execution space. The host keeps an
 * f32 copy of the per-sphere state (user order), refreshed by a read-back after every batch of
 * steps; the device keeps the same arrays plus what only it needs (grid, predicted velocities,
 * tangential springs).
 * @internal
 */
import type { LawConstants } from './contact-law.js';
import { type GpuBufferHandle, type GpuDeviceHandle, Usage } from './device.js';
import {
  countShader,
  forcesShader,
  kickDriftShader,
  kickShader,
  NO_PARTNER,
  PARAMS_BYTES,
  QUANTA,
  scanShader,
  scatterShader,
  sortCellsShader,
  WORKGROUP,
} from './shaders.js';

/** Fixed configuration of the device kernels. */
export interface EngineConfig {
  readonly boxLength: readonly [number, number, number];
  readonly periodic: readonly boolean[];
  /** Faces x− x+ y− y+ z− z+ carrying a wall (off on periodic axes). */
  readonly walls: readonly boolean[];
  readonly gravity: readonly number[];
  readonly law: LawConstants;
  readonly rotation: boolean;
  /** History slots per sphere (tangential springs of sphere and wall contacts). */
  readonly contactCapacity: number;
}

/** Per-sphere state in user order, f32 as on the device. */
export interface HostState {
  /**
   * 8N words: per sphere the fixed-point centre (see shaders.ts) — whole quanta xyz as i32 bits,
   * radius (m), fraction of a quantum xyz, 0. Read the wholes through an Int32Array view.
   */
  position: Float32Array;
  /** 4N: velocity (m/s), 1/mass (1/kg). */
  velocity: Float32Array;
  /** 4N: angular velocity (rad/s), 1/moment of inertia. */
  angularVelocity: Float32Array;
  /** 8N: contact + wall force (N), torque (N·m); gravity is not included. */
  forceTorque: Float32Array;
}

/** What a batch of steps reported. */
export interface EngineReport {
  readonly nonFinite: boolean;
  readonly clampedSpheres: number;
  readonly firstClampedSphere: number;
  /** Sphere whose contacts outgrew its history slots, or −1; and how many it had. */
  readonly overflowSphere: number;
  readonly overflowContacts: number;
}

const STATUS_WORDS = 8;

interface Kernel {
  readonly pipeline: GPUComputePipeline;
  readonly groups: GPUBindGroup[];
}

export class GpuEngine {
  readonly #gpu: GpuDeviceHandle;
  readonly #config: EngineConfig;
  readonly #pipelines: Map<string, GPUComputePipeline>;
  #buffers: Record<string, GpuBufferHandle> = {};
  #kernels: Record<string, Kernel> = {};
  #count = 0;
  #cells = 1;
  /** Which slot buffer holds the springs of the last force evaluation (0: A, 1: B). */
  #parity = 0;
  #forcesValid = false;

  private constructor(gpu: GpuDeviceHandle, config: EngineConfig, pipelines: Map<string, GPUComputePipeline>) {
    this.#gpu = gpu;
    this.#config = config;
    this.#pipelines = pipelines;
  }

  /** Compiles the kernels (asynchronously, so a shader error is a rejected promise). */
  static async create(gpu: GpuDeviceHandle, config: EngineConfig): Promise<GpuEngine> {
    const device = gpu.device;
    const sources: Record<string, string> = {
      count: countShader,
      scan: scanShader,
      scatter: scatterShader,
      sortCells: sortCellsShader,
      forces: forcesShader,
      kickDrift: kickDriftShader,
      kick: kickShader,
    };
    const pipelines = new Map<string, GPUComputePipeline>();
    await Promise.all(
      Object.entries(sources).map(async ([name, code]) => {
        const module = device.createShaderModule({ label: `dem ${name}`, code });
        const pipeline = await device.createComputePipelineAsync({
          label: `dem ${name}`,
          layout: 'auto',
          compute: { module, entryPoint: 'main' },
        });
        pipelines.set(name, pipeline);
      }),
    );
    return new GpuEngine(gpu, config, pipelines);
  }

  get sphereCount(): number {
    return this.#count;
  }

  #buffer(label: string, size: number, usage: number): GpuBufferHandle {
    return this.#gpu.createBuffer({ label: `dem ${label}`, size: Math.max(16, Math.ceil(size / 16) * 16), usage });
  }

  /**
   * Uploads `state` (N spheres) at time step `dt`. The springs of the first `preserved` spheres
   * are carried over from the previous buffers (sphere ids are user indices, so they stay valid
   * when spheres are appended); the others start with none. Forces are recomputed before the
   * next step, with the current velocities standing for the predicted ones.
   */
  upload(state: HostState, dt: number, preserved: number): void {
    const n = state.position.length / 8;
    const config = this.#config;
    const capacity = config.law.friction > 0 ? config.contactCapacity : 0;
    const old = this.#buffers;
    const oldSlots = old[this.#parity === 0 ? 'slotsA' : 'slotsB'];
    const storage = Usage.STORAGE | Usage.COPY_DST | Usage.COPY_SRC;

    // The grid: cells of edge ≥ the largest diameter (every contact lies within the 27
    // neighbouring cells), coarsened like the CPU grid so a sparse box stays small.
    let maxRadius = 0;
    for (let i = 0; i < n; i++) maxRadius = Math.max(maxRadius, state.position[8 * i + 3] as number);
    const length = config.boxLength;
    let edge = maxRadius > 0 ? 2 * maxRadius : Math.max(...length);
    const maxCells = Math.max(64, 4 * n);
    while ((length[0] / edge) * (length[1] / edge) * (length[2] / edge) > maxCells) edge *= 1.25;
    const cells = length.map((l, a) => {
      let c = Math.max(1, Math.floor(l / edge));
      // Three cells on a periodic axis keep the 27 neighbours distinct (the CPU kernel already
      // requires the axis to be ≥ 3 contact ranges long).
      if (config.periodic[a] && c < 3) c = 3;
      return c;
    }) as [number, number, number];
    const totalCells = cells[0] * cells[1] * cells[2];

    const buffers: Record<string, GpuBufferHandle> = {
      params: this.#buffer('params', PARAMS_BYTES, Usage.UNIFORM | Usage.COPY_DST),
      position: this.#buffer('positions', 32 * n, storage),
      velocity: this.#buffer('velocities', 16 * n, storage),
      angularVelocity: this.#buffer('angular velocities', 16 * n, storage),
      forceTorque: this.#buffer('forces', 32 * n, storage),
      predicted: this.#buffer('predicted velocities', 32 * n, storage),
      cellOfSphere: this.#buffer('cell of sphere', 4 * n, storage),
      counts: this.#buffer('cell counts', 4 * (totalCells + 1), storage),
      cellStart: this.#buffer('cell starts', 4 * (totalCells + 1), storage),
      sorted: this.#buffer('sorted ids', 4 * n, storage),
      slotsA: this.#buffer('contact history A', 16 * n * capacity, storage),
      slotsB: this.#buffer('contact history B', 16 * n * capacity, storage),
      status: this.#buffer('status', 4 * STATUS_WORDS, storage),
    };
    const params = new ArrayBuffer(PARAMS_BYTES);
    const f = new Float32Array(params);
    const u = new Uint32Array(params);
    f.set([length[0], length[1], length[2], dt], 0);
    f.set([cells[0] / QUANTA, cells[1] / QUANTA, cells[2] / QUANTA, 0.5 * dt], 4);
    f.set([0, 1, 2].map((a) => Math.fround(length[a] as number) / QUANTA).concat(0), 8);
    f.set([config.gravity[0] ?? 0, config.gravity[1] ?? 0, config.gravity[2] ?? 0, config.law.friction], 12);
    f.set(config.law.law, 16);
    u.set([cells[0], cells[1], cells[2], totalCells], 20);
    let periodicBits = 0;
    let wallBits = 0;
    for (let a = 0; a < 3; a++) if (config.periodic[a]) periodicBits |= 1 << a;
    for (let face = 0; face < 6; face++) if (config.walls[face]) wallBits |= 1 << face;
    u.set([periodicBits, wallBits, config.law.linear ? 1 : 0, config.rotation ? 1 : 0], 24);
    u.set([n, capacity, 0, 0], 28);
    const gpu = this.#gpu;
    gpu.writeBuffer(buffers.params as GpuBufferHandle, 0, params);
    if (n > 0) {
      gpu.writeBuffer(buffers.position as GpuBufferHandle, 0, state.position);
      gpu.writeBuffer(buffers.velocity as GpuBufferHandle, 0, state.velocity);
      gpu.writeBuffer(buffers.angularVelocity as GpuBufferHandle, 0, state.angularVelocity);
      gpu.writeBuffer(buffers.forceTorque as GpuBufferHandle, 0, state.forceTorque);
      // Before the first step the current velocities stand for the predicted ones.
      const predicted = new Float32Array(8 * n);
      for (let i = 0; i < n; i++) {
        predicted.set(state.velocity.subarray(4 * i, 4 * i + 4), 8 * i);
        predicted.set(state.angularVelocity.subarray(4 * i, 4 * i + 3), 8 * i + 4);
      }
      gpu.writeBuffer(buffers.predicted as GpuBufferHandle, 0, predicted);
    }
    const keep = capacity > 0 && oldSlots !== undefined ? Math.min(preserved, this.#count, n) : 0;
    if (capacity > 0 && n > keep) {
      const empty = new Float32Array(4 * capacity * (n - keep));
      const bits = new Uint32Array(empty.buffer);
      for (let k = 3; k < bits.length; k += 4) bits[k] = NO_PARTNER;
      gpu.writeBuffer(buffers.slotsA as GpuBufferHandle, 16 * capacity * keep, empty);
      gpu.writeBuffer(buffers.slotsB as GpuBufferHandle, 16 * capacity * keep, empty);
    }
    if (keep > 0 && oldSlots !== undefined) {
      const encoder = gpu.device.createCommandEncoder({ label: 'dem history copy' });
      encoder.copyBufferToBuffer(
        oldSlots.buffer,
        0,
        (buffers.slotsA as GpuBufferHandle).buffer,
        0,
        16 * capacity * keep,
      );
      gpu.submit([encoder.finish()]);
    }
    for (const buffer of Object.values(old)) buffer.release();
    this.#buffers = buffers;
    this.#count = n;
    this.#cells = totalCells;
    this.#parity = 0;
    this.#forcesValid = false;
    this.#kernels = this.#bind();
  }

  #bind(): Record<string, Kernel> {
    const b = this.#buffers;
    const device = this.#gpu.device;
    const make = (name: string, ...lists: string[][]): Kernel => {
      const pipeline = this.#pipelines.get(name) as GPUComputePipeline;
      const groups = lists.map((list) =>
        device.createBindGroup({
          label: `dem ${name}`,
          layout: pipeline.getBindGroupLayout(0),
          entries: ['params', ...list].map((key, binding) => ({
            binding,
            resource: { buffer: (b[key] as GpuBufferHandle).buffer },
          })),
        }),
      );
      return { pipeline, groups };
    };
    const forces = (slotsIn: string, slotsOut: string) => [
      'position',
      'predicted',
      'cellStart',
      'sorted',
      slotsIn,
      slotsOut,
      'forceTorque',
      'status',
    ];
    return {
      count: make('count', ['position', 'cellOfSphere', 'counts']),
      scan: make('scan', ['counts', 'cellStart']),
      scatter: make('scatter', ['cellOfSphere', 'cellStart', 'counts', 'sorted']),
      sortCells: make('sortCells', ['cellStart', 'counts', 'sorted']),
      // Group k reads the springs of buffer k and writes the other.
      forces: make('forces', forces('slotsA', 'slotsB'), forces('slotsB', 'slotsA')),
      kickDrift: make('kickDrift', ['velocity', 'angularVelocity', 'forceTorque', 'position', 'predicted', 'status']),
      kick: make('kick', ['velocity', 'angularVelocity', 'forceTorque']),
    };
  }

  #dispatch(pass: GPUComputePassEncoder, name: string, workgroups: number, group = 0): void {
    const kernel = this.#kernels[name] as Kernel;
    pass.setPipeline(kernel.pipeline);
    pass.setBindGroup(0, kernel.groups[group] as GPUBindGroup);
    pass.dispatchWorkgroups(workgroups);
  }

  #forces(pass: GPUComputePassEncoder): void {
    const spheres = Math.ceil(this.#count / WORKGROUP);
    this.#dispatch(pass, 'count', spheres);
    this.#dispatch(pass, 'scan', 1);
    this.#dispatch(pass, 'scatter', spheres);
    this.#dispatch(pass, 'sortCells', Math.ceil(this.#cells / WORKGROUP));
    this.#dispatch(pass, 'forces', spheres, this.#parity);
    this.#parity ^= 1;
  }

  /**
   * Encodes and submits `steps` velocity-Verlet steps, then reads the state back into `state`
   * (which must hold N spheres). Resolves with the status of the batch.
   */
  async advance(steps: number, state: HostState): Promise<EngineReport> {
    const gpu = this.#gpu;
    const n = this.#count;
    const status = new Uint32Array(STATUS_WORDS);
    status[2] = 0xffffffff;
    status[4] = 0xffffffff;
    gpu.writeBuffer(this.#buffers.status as GpuBufferHandle, 0, status);
    const encoder = gpu.device.createCommandEncoder({ label: 'dem steps' });
    const pass = encoder.beginComputePass({ label: 'dem steps' });
    const spheres = Math.ceil(n / WORKGROUP);
    if (!this.#forcesValid) {
      // Forces at the current state, needed by the first half kick.
      this.#forces(pass);
      this.#forcesValid = true;
    }
    for (let s = 0; s < steps; s++) {
      this.#dispatch(pass, 'kickDrift', spheres);
      this.#forces(pass);
      this.#dispatch(pass, 'kick', spheres);
    }
    pass.end();
    gpu.submit([encoder.finish()]);
    return this.#readBack(state);
  }

  async #readBack(state: HostState): Promise<EngineReport> {
    const gpu = this.#gpu;
    const b = this.#buffers;
    const n = this.#count;
    const [position, velocity, angularVelocity, forceTorque, status] = await Promise.all([
      gpu.read(b.position as GpuBufferHandle, 0, 32 * n),
      gpu.read(b.velocity as GpuBufferHandle, 0, 16 * n),
      gpu.read(b.angularVelocity as GpuBufferHandle, 0, 16 * n),
      gpu.read(b.forceTorque as GpuBufferHandle, 0, 32 * n),
      gpu.read(b.status as GpuBufferHandle, 0, 4 * STATUS_WORDS),
    ]);
    state.position.set(new Float32Array(position));
    state.velocity.set(new Float32Array(velocity));
    state.angularVelocity.set(new Float32Array(angularVelocity));
    state.forceTorque.set(new Float32Array(forceTorque));
    const words = new Uint32Array(status);
    return {
      nonFinite: words[0] !== 0,
      clampedSpheres: words[1] as number,
      firstClampedSphere: words[1] === 0 ? -1 : (words[2] as number),
      overflowSphere: words[3] === 0 ? -1 : (words[4] as number),
      overflowContacts: words[5] as number,
    };
  }

  /** Releases the device buffers (not the device). */
  release(): void {
    for (const buffer of Object.values(this.#buffers)) buffer.release();
    this.#buffers = {};
    this.#kernels = {};
    this.#count = 0;
  }
}
