/**
 * The WebGPU execution space of a Lattice: the pull-source table built from the geometry (the
 * same table the host's sparse layout builds), the device engine acquired on first use, and the
 * f32 fields read back after the last batch of steps.
 * @internal
 */
import type { PecletModule } from '@peclet/core';
import type { NativeLatticeOptions } from '../native.js';
import { type GpuDeviceHandle, sharedDevice } from './device.js';
import { GpuEngine, type GpuGeometry, type GpuParameters, type GpuSums } from './engine.js';
import { BOUNCE, D3Q19, INDEX_MASK, OUTLET_BIT, opposite } from './shaders.js';

/** Drag γ = 2s/(1 − s) of a gray voxel of solid fraction s < 1 (as on the host). */
const grayDrag = (s: number): number => (2 * s) / (1 - s);

/**
 * The fluid nodes of `o` and their pull sources, as native/lattice.cpp's buildGeometry (sparse),
 * each resolved to the index in the population array it reads (see shaders.ts).
 */
export function buildGeometry(o: NativeLatticeOptions): GpuGeometry {
  const [n0, n1, n2] = o.shape;
  const voxels = n0 * n1 * n2;
  const solidAt = (v: number): boolean =>
    (o.solid !== undefined && o.solid[v] !== 0) ||
    (o.solidFraction !== undefined && (o.solidFraction[v] as number) >= 1);
  const storageOf = new Uint32Array(voxels).fill(BOUNCE); // BOUNCE: solid
  let nodes = 0;
  for (let v = 0; v < voxels; v++) if (!solidAt(v)) storageOf[v] = nodes++;
  const nodeOf = new Uint32Array(nodes);
  for (let v = 0; v < voxels; v++) if (storageOf[v] !== BOUNCE) nodeOf[storageOf[v] as number] = v;
  const table = new Uint32Array(19 * nodes);
  const grayBits = new Float32Array(table.buffer, 18 * 4 * nodes, nodes);
  let gray = false;
  if (o.solidFraction !== undefined) {
    for (let s = 0; s < nodes; s++) {
      const fraction = o.solidFraction[nodeOf[s] as number] as number;
      if (fraction > 0) gray = true;
      grayBits[s] = grayDrag(fraction);
    }
  }
  const shape = [n0, n1, n2];
  const pressureAxis = o.pressureAxis ?? -1;
  const { cx, cy, cz } = D3Q19;
  const p = [0, 0, 0];
  for (let s = 0; s < nodes; s++) {
    const v = nodeOf[s] as number;
    const i = Math.floor(v / (n1 * n2));
    const j = Math.floor(v / n2) % n1;
    const k = v % n2;
    for (let q = 1; q < 19; q++) {
      p[0] = i - (cx[q] as number);
      p[1] = j - (cy[q] as number);
      p[2] = k - (cz[q] as number);
      // The voxel pulled from, or a wall / pressure face outside a face that is not periodic.
      let index = 0;
      let face = -1;
      let wall = false;
      for (let a = 0; a < 3 && !wall; a++) {
        let x = p[a] as number;
        const n = shape[a] as number;
        if (x < 0 || x >= n) {
          if (!o.periodic[a]) {
            // A link through a wall and a pressure face at once bounces back: the wall wins.
            if (a !== pressureAxis) wall = true;
            else face = x < 0 ? 1 : 2;
            continue;
          }
          x = (x + n) % n;
        }
        index = index * n + x;
      }
      // Streamed in place (engine.ts): population q pulled from node m lies in slot opposite(q)
      // of m; one that bounces back lies in the node's own slot q.
      const self = q * nodes + s;
      const entry = wall
        ? self
        : face === 1
          ? BOUNCE | self
          : face === 2
            ? BOUNCE | OUTLET_BIT | self
            : (storageOf[index] as number) === BOUNCE
              ? self
              : opposite(q) * nodes + (storageOf[index] as number);
      table[(q - 1) * nodes + s] = entry >>> 0;
    }
  }
  return { nodes, nodeOf, table, gray };
}

export interface GpuPathOptions {
  readonly module: PecletModule;
  readonly native: NativeLatticeOptions;
  readonly tauPlus: number;
  readonly tauMinus: number;
}

export class GpuPath {
  readonly #module: PecletModule;
  readonly #geometry: GpuGeometry;
  readonly #voxels: number;
  #parameters: GpuParameters;
  #engine: GpuEngine | undefined;
  #device: GpuDeviceHandle | undefined;
  #velocity: Float32Array;
  #density: Float32Array;
  #released = false;
  stepCount = 0;

  constructor(options: GpuPathOptions) {
    const o = options.native;
    this.#module = options.module;
    this.#geometry = buildGeometry(o);
    this.#voxels = o.shape[0] * o.shape[1] * o.shape[2];
    this.#parameters = {
      tauPlus: options.tauPlus,
      tauMinus: options.tauMinus,
      inertia: o.inertia,
      bodyForce: [...o.bodyForce] as [number, number, number],
      inletDensity: o.inletDensity ?? 1,
      outletDensity: o.outletDensity ?? 1,
    };
    // The rest state's fields, as the host's field pass gives them: ρ = 1, u = F/2 (over 1 + γ/2).
    this.#velocity = new Float32Array(3 * this.#voxels);
    this.#density = new Float32Array(this.#voxels);
    const fields = new Float32Array(4 * this.#geometry.nodes);
    const gamma = new Float32Array(this.#geometry.table.buffer, 18 * 4 * this.#geometry.nodes, this.#geometry.nodes);
    for (let s = 0; s < this.#geometry.nodes; s++) {
      const implicit = this.#geometry.gray
        ? Math.fround(1 / Math.fround(1 + Math.fround(0.5 * (gamma[s] as number))))
        : 1;
      for (let a = 0; a < 3; a++) {
        fields[4 * s + a] = Math.fround(Math.fround(0.5 * Math.fround(o.bodyForce[a] as number)) * implicit);
      }
      fields[4 * s + 3] = 1;
    }
    this.#scatter(fields);
  }

  /** Fluid nodes. */
  get nodes(): number {
    return this.#geometry.nodes;
  }
  /** The device in use, once acquired. */
  get device(): GpuDeviceHandle | undefined {
    return this.#device;
  }
  /** Bytes on the device (0 before the first run). */
  get bytes(): number {
    return this.#engine?.bytes ?? 0;
  }

  /** Acquires the device, checks the lattice fits it, and uploads the table (first call). */
  async prepare(): Promise<void> {
    if (this.#engine !== undefined) return;
    const device = await sharedDevice(this.#module);
    this.#device = device;
    const limits = device.limits as unknown as Record<string, number>;
    const binding = Math.min(limits.maxStorageBufferBindingSize ?? 134_217_728, limits.maxBufferSize ?? 268_435_456);
    const bytes = GpuEngine.latticeBytes(this.#geometry.nodes);
    // Table entries index the population array in 30 bits.
    if (bytes > binding || 19 * this.#geometry.nodes > INDEX_MASK) {
      throw Object.assign(
        new RangeError(
          `shape: ${this.#geometry.nodes} fluid nodes need storage bindings of ${bytes} bytes (19 f32 per node), ` +
            `more than this device allows (${binding} bytes); executionSpace 'webgpu' holds at most ` +
            `${Math.min(Math.floor(binding / 76), Math.floor(INDEX_MASK / 19))} fluid nodes here — use executionSpace 'host'`,
        ),
        { code: 'PECLET_OUT_OF_MEMORY', argument: 'shape', index: -1 },
      );
    }
    const engine = await GpuEngine.create(device, this.#geometry, this.#parameters);
    if (this.#released) {
      engine.release();
      return;
    }
    this.#engine = engine;
  }

  /** Runs `steps` steps (after {@link prepare}); resolves with the sums over the state reached. */
  async advance(steps: number): Promise<GpuSums> {
    const engine = this.#engine;
    if (engine === undefined) throw new Error('flow: the GPU lattice was released');
    const sums = await engine.advance(steps);
    this.stepCount += sums.taken;
    return sums;
  }

  /** Reads the fields of the state reached back into the host copies. */
  async refreshFields(): Promise<void> {
    const engine = this.#engine;
    if (engine === undefined) return;
    this.#scatter(await engine.fields());
  }

  #scatter(fields: Float32Array): void {
    const nodeOf = this.#geometry.nodeOf;
    const velocity = this.#velocity;
    const density = this.#density;
    for (let s = 0; s < nodeOf.length; s++) {
      const v = nodeOf[s] as number;
      velocity[3 * v] = fields[4 * s] as number;
      velocity[3 * v + 1] = fields[4 * s + 1] as number;
      velocity[3 * v + 2] = fields[4 * s + 2] as number;
      density[v] = fields[4 * s + 3] as number;
    }
  }

  /** Copies of the fields read back after the last batch (0 in solid voxels). */
  velocity(): Float32Array {
    return this.#velocity.slice();
  }
  density(): Float32Array {
    return this.#density.slice();
  }

  setBodyForce(force: readonly [number, number, number]): void {
    this.#parameters = { ...this.#parameters, bodyForce: [force[0], force[1], force[2]] };
    this.#engine?.setParameters(this.#parameters);
  }
  setPressure(inletDensity: number, outletDensity: number): void {
    this.#parameters = { ...this.#parameters, inletDensity, outletDensity };
    this.#engine?.setParameters(this.#parameters);
  }

  /** Frees the device buffers; the device itself belongs to the module. */
  release(): void {
    this.#released = true;
    this.#engine?.release();
    this.#engine = undefined;
    this.#velocity = new Float32Array(0);
    this.#density = new Float32Array(0);
  }
}
