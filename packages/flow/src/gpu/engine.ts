/// <reference types="@webgpu/types" />
/**
 * The device side of a Lattice on the WebGPU execution space: one population lattice streamed
 * in place (f32, structure of arrays, fluid nodes only), the pull-source table, the uniform
 * parameters, and the step and measure pipelines of either form (see shaders.ts).
 * @internal
 */
import { type GpuBufferHandle, type GpuDeviceHandle, Usage } from './device.js';
import {
  checkShader,
  decideShader,
  localCheckShader,
  localStepShader,
  measureShader,
  PARAMS_BYTES,
  PARTIAL_WORDS,
  STATUS_WORDS,
  stepShader,
  WORKGROUP,
  weight,
} from './shaders.js';

/** The fluid nodes and where each pulls from. */
export interface GpuGeometry {
  /** Fluid nodes N. */
  readonly nodes: number;
  /** Voxel index of each node. */
  readonly nodeOf: Uint32Array;
  /** 18N pull sources (direction q at (q − 1)·N + s), then N gray drags γ as f32 bits. */
  readonly table: Uint32Array;
  readonly gray: boolean;
}

/** Parameters the step reads, changeable between batches. */
export interface GpuParameters {
  readonly tauPlus: number;
  readonly tauMinus: number;
  readonly inertia: boolean;
  readonly bodyForce: readonly [number, number, number];
  readonly inletDensity: number;
  readonly outletDensity: number;
}

/** Sums over the fluid nodes of the current lattice (f64 of per-workgroup f32 sums). */
export interface GpuSums {
  readonly momentum: [number, number, number];
  readonly speed: number;
  readonly mass: number;
  readonly finite: boolean;
  /** Steps taken; fewer than asked when a step would have diverged (`stopped`). */
  readonly taken: number;
  readonly stopped: boolean;
}

interface Kernel {
  readonly pipeline: GPUComputePipeline;
  readonly group: GPUBindGroup;
}

/** Parameters as the device reads them: f32 rounded exactly as the host's `T(...)`. */
export function packParameters(nodes: number, groupsX: number, gray: boolean, p: GpuParameters): ArrayBuffer {
  const bytes = new ArrayBuffer(PARAMS_BYTES);
  const u = new Uint32Array(bytes);
  const f = new Float32Array(bytes);
  u.set([nodes, groupsX, p.inertia ? 1 : 0, gray ? 1 : 0], 0);
  const wp = Math.fround(1 / p.tauPlus);
  const wm = Math.fround(1 / p.tauMinus);
  f.set([wp, wm, Math.fround(1 - Math.fround(0.5 * wp)), Math.fround(1 - Math.fround(0.5 * wm))], 4);
  // The bound under which the values a step writes prove the state within the rule (as the
  // host's certificateBound: 1/2, 1/4 with gray voxels, less a pressure face's 2w|ρ − 1|).
  const face = (2 / 18) * Math.max(Math.abs(p.inletDensity - 1), Math.abs(p.outletDensity - 1));
  const bound = Math.max(0, (gray ? 0.25 : 0.5) - face);
  f.set([p.bodyForce[0], p.bodyForce[1], p.bodyForce[2], bound], 8);
  for (let q = 0; q < 19; q++) {
    f[12 + q] = 2 * weight(q) * (p.inletDensity - 1);
    f[12 + 20 + q] = 2 * weight(q) * (p.outletDensity - 1);
  }
  return bytes;
}

export class GpuEngine {
  readonly #gpu: GpuDeviceHandle;
  readonly #nodes: number;
  readonly #gray: boolean;
  readonly #groups: [number, number];
  #buffers: Record<string, GpuBufferHandle>;
  /** Index 0: from the state after an even number of steps; 1: after an odd number. */
  #kernels: { step: [Kernel, Kernel]; check: [Kernel, Kernel]; decide: Kernel; measure: Kernel } | undefined;
  /** The parity of the steps taken (which form the populations are in). */
  #parity = 0;

  private constructor(gpu: GpuDeviceHandle, geometry: GpuGeometry, buffers: Record<string, GpuBufferHandle>) {
    this.#gpu = gpu;
    this.#nodes = geometry.nodes;
    this.#gray = geometry.gray;
    this.#groups = GpuEngine.workgroups(geometry.nodes, gpu);
    this.#buffers = buffers;
  }

  /** Workgroups along x and y covering `nodes` (x at most the device's per-dimension limit). */
  static workgroups(nodes: number, gpu: GpuDeviceHandle): [number, number] {
    const total = Math.max(1, Math.ceil(nodes / WORKGROUP));
    const most = (gpu.limits as unknown as Record<string, number>).maxComputeWorkgroupsPerDimension ?? 65_535;
    const x = Math.min(total, most);
    return [x, Math.ceil(total / x)];
  }

  /** Bytes of the population lattice, the largest storage binding. */
  static latticeBytes(nodes: number): number {
    return 19 * 4 * Math.max(1, nodes);
  }

  /** Allocates the buffers, uploads the table and the rest state, compiles the kernels. */
  static async create(gpu: GpuDeviceHandle, geometry: GpuGeometry, parameters: GpuParameters): Promise<GpuEngine> {
    const n = geometry.nodes;
    const [gx, gy] = GpuEngine.workgroups(n, gpu);
    const storage = Usage.STORAGE | Usage.COPY_DST | Usage.COPY_SRC;
    const sized = (bytes: number) => Math.max(16, Math.ceil(bytes / 16) * 16);
    const buffers: Record<string, GpuBufferHandle> = {};
    try {
      const make = (key: string, bytes: number, usage: number) => {
        buffers[key] = gpu.createBuffer({ label: `flow ${key}`, size: sized(bytes), usage });
      };
      make('params', PARAMS_BYTES, Usage.UNIFORM | Usage.COPY_DST);
      make('lattice', GpuEngine.latticeBytes(n), storage);
      make('sources', 4 * geometry.table.length, storage);
      make('out', 4 * (4 * n + PARTIAL_WORDS * gx * gy + STATUS_WORDS), storage);
      make('status', 4 * STATUS_WORDS, storage);
      make('args', 16, Usage.STORAGE | Usage.INDIRECT | Usage.COPY_DST);
      // New buffers are zero: the rest state h = f − w = 0.
      gpu.writeBuffer(buffers.sources as GpuBufferHandle, 0, geometry.table);
      gpu.writeBuffer(buffers.params as GpuBufferHandle, 0, packParameters(n, gx, geometry.gray, parameters));
      const engine = new GpuEngine(gpu, geometry, buffers);
      await engine.#compile();
      return engine;
    } catch (error) {
      for (const buffer of Object.values(buffers)) buffer.release();
      throw error;
    }
  }

  async #compile(): Promise<void> {
    const device = this.#gpu.device;
    const pipeline = async (name: string, code: string) =>
      device.createComputePipelineAsync({
        label: `flow ${name}`,
        layout: 'auto',
        compute: { module: device.createShaderModule({ label: `flow ${name}`, code }), entryPoint: 'main' },
      });
    const [gx, gy] = this.#groups;
    const [step, localStep, check, localCheck, decide, measure] = await Promise.all([
      pipeline('step', stepShader),
      pipeline('local step', localStepShader),
      pipeline('check', checkShader),
      pipeline('local check', localCheckShader),
      pipeline('decide', decideShader(gx, gy)),
      pipeline('measure', measureShader),
    ]);
    const b = this.#buffers;
    const kernel = (name: string, p: GPUComputePipeline, keys: string[]): Kernel => ({
      pipeline: p,
      group: device.createBindGroup({
        label: `flow ${name}`,
        layout: p.getBindGroupLayout(0),
        entries: keys.map((key, binding) => ({ binding, resource: { buffer: (b[key] as GpuBufferHandle).buffer } })),
      }),
    });
    const stepKeys = ['params', 'lattice', 'sources', 'status'];
    this.#kernels = {
      step: [kernel('step', step, stepKeys), kernel('local step', localStep, stepKeys)],
      check: [kernel('check', check, stepKeys), kernel('local check', localCheck, stepKeys)],
      decide: kernel('decide', decide, ['status', 'args']),
      measure: kernel('measure', measure, ['params', 'lattice', 'out', 'sources', 'status']),
    };
  }

  /** Bytes held on the device. */
  get bytes(): number {
    let total = 0;
    for (const buffer of Object.values(this.#buffers)) total += buffer.size;
    return total;
  }

  /** Writes new parameters; the next submission reads them. */
  setParameters(parameters: GpuParameters): void {
    this.#gpu.writeBuffer(
      this.#buffers.params as GpuBufferHandle,
      0,
      packParameters(this.#nodes, this.#groups[0], this.#gray, parameters),
    );
  }

  /**
   * Submits `steps` steps and a measure of the state reached; resolves with its sums. Before each
   * step the host's rule: the state is read (check) first in the batch and after a step that
   * could not prove it; a step that would diverge stops the batch there, its state kept.
   */
  async advance(steps: number): Promise<GpuSums> {
    const kernels = this.#kernels;
    if (kernels === undefined) throw new Error('flow: GPU engine used after release');
    const gpu = this.#gpu;
    const [gx, gy] = this.#groups;
    const b = this.#buffers;
    gpu.writeBuffer(b.status as GpuBufferHandle, 0, Uint32Array.from([0, 0, 0, this.#parity]));
    gpu.writeBuffer(b.args as GpuBufferHandle, 0, Uint32Array.from([gx, gy, 1, 0]));
    const encoder = gpu.device.createCommandEncoder({ label: 'flow steps' });
    const pass = encoder.beginComputePass({ label: 'flow steps' });
    const use = (k: Kernel) => {
      pass.setPipeline(k.pipeline);
      pass.setBindGroup(0, k.group);
    };
    // The kernels of each form alternate as steps are taken; once the batch stops the rest
    // write nothing, and the measure finds the form from the steps taken.
    let parity = this.#parity;
    for (let s = 0; s < steps; s++) {
      use(kernels.check[parity] as Kernel);
      pass.dispatchWorkgroupsIndirect((b.args as GpuBufferHandle).buffer, 0);
      use(kernels.step[parity] as Kernel);
      pass.dispatchWorkgroups(gx, gy);
      use(kernels.decide);
      pass.dispatchWorkgroups(1);
      parity ^= 1;
    }
    use(kernels.measure);
    pass.dispatchWorkgroups(gx, gy);
    pass.end();
    const n = this.#nodes;
    const tail = 16 * n + 4 * PARTIAL_WORDS * gx * gy;
    encoder.copyBufferToBuffer(
      (b.status as GpuBufferHandle).buffer,
      0,
      (b.out as GpuBufferHandle).buffer,
      tail,
      4 * STATUS_WORDS,
    );
    gpu.submit([encoder.finish()]);
    const words = await gpu.read(b.out as GpuBufferHandle, 16 * n, 4 * PARTIAL_WORDS * gx * gy + 4 * STATUS_WORDS);
    const partials = new Float32Array(words, 0, PARTIAL_WORDS * gx * gy);
    const status = new Uint32Array(words, 4 * PARTIAL_WORDS * gx * gy, STATUS_WORDS);
    const taken = status[2] as number;
    this.#parity = (this.#parity + taken) & 1;
    const sums = [0, 0, 0, 0, 0];
    for (let g = 0; g < gx * gy; g++) {
      for (let k = 0; k < 5; k++) sums[k] = (sums[k] as number) + (partials[PARTIAL_WORDS * g + k] as number);
    }
    const [x, y, z, speed, mass] = sums as [number, number, number, number, number];
    return { momentum: [x, y, z], speed, mass, finite: sums.every(Number.isFinite), taken, stopped: status[0] !== 0 };
  }

  /** The fields of the last measure: velocity xyz and density per node (4N words). */
  async fields(): Promise<Float32Array> {
    return new Float32Array(await this.#gpu.read(this.#buffers.out as GpuBufferHandle, 0, 16 * this.#nodes));
  }

  /** Releases the device buffers (not the device). */
  release(): void {
    const buffers = this.#buffers;
    this.#buffers = {};
    this.#kernels = undefined;
    for (const buffer of Object.values(buffers)) buffer.release();
  }
}
