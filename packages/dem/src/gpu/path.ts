/**
 * The WebGPU execution space of a Simulation: the host copy of the state (f32, user order), the
 * device engine acquired on first use, and the measurements made on the host copy.
 * @internal
 */
import type { PecletModule } from '@peclet/core';
import type { LawConstants } from './contact-law.js';
import { type GpuDeviceHandle, sharedDevice } from './device.js';
import { type EngineConfig, type EngineReport, GpuEngine, type HostState } from './engine.js';
import { QUANTA } from './shaders.js';

/** Spheres added together share a density. */
export interface SphereBatchRecord {
  readonly start: number;
  readonly count: number;
  readonly density: number;
}

/** Default tangential-history slots per sphere: 12 touching equal spheres + 3 walls in a corner. */
export const DEFAULT_CONTACT_CAPACITY = 16;

export interface GpuPathOptions {
  readonly module: PecletModule;
  readonly boxMin: readonly number[];
  readonly boxMax: readonly number[];
  readonly periodic: readonly boolean[];
  readonly walls: readonly boolean[];
  readonly gravity: readonly number[];
  readonly law: LawConstants;
  readonly rotation: boolean;
  readonly contactCapacity: number;
}

function grow(array: Float32Array, length: number): Float32Array {
  const next = new Float32Array(length);
  next.set(array.subarray(0, Math.min(array.length, length)));
  return next;
}

export class GpuPath {
  readonly #options: GpuPathOptions;
  readonly #config: EngineConfig;
  #engine: GpuEngine | undefined;
  #device: GpuDeviceHandle | undefined;
  #state: HostState = {
    position: new Float32Array(0),
    velocity: new Float32Array(0),
    angularVelocity: new Float32Array(0),
    forceTorque: new Float32Array(0),
  };
  #radii = new Float64Array(0);
  #mass = new Float64Array(0);
  readonly batches: SphereBatchRecord[] = [];
  /** Metres per fixed-point quantum per axis (the device's edge, f32, over 2^30). */
  readonly #quantum: number[];
  /** Spheres whose state is on the device; the rest wait for the next upload. */
  #uploaded = 0;
  #pendingUpload = false;
  #timestep = 0;
  /** Simulated time (s) and steps taken. */
  time = 0;
  stepCount = 0;
  /** Bumped whenever the host copy changes (measurements made on it are then stale). */
  version = 0;

  constructor(options: GpuPathOptions) {
    this.#options = options;
    this.#config = {
      boxLength: [0, 1, 2].map((a) => (options.boxMax[a] as number) - (options.boxMin[a] as number)) as [
        number,
        number,
        number,
      ],
      periodic: options.periodic,
      walls: options.walls.map((wall, face) => wall && !options.periodic[Math.floor(face / 2)]),
      gravity: options.gravity,
      law: options.law,
      rotation: options.rotation,
      contactCapacity: options.contactCapacity,
    };
    this.#quantum = this.#config.boxLength.map((length) => Math.fround(length) / QUANTA);
  }

  get sphereCount(): number {
    return this.#radii.length;
  }

  /** Tangential-history slots per sphere. */
  get contactCapacity(): number {
    return this.#config.contactCapacity;
  }

  /** The device in use, once acquired. */
  get device(): GpuDeviceHandle | undefined {
    return this.#device;
  }

  /**
   * Throws a RangeError naming `argument` when `total` spheres would not fit the device's limits
   * (the WebGPU defaults until the device is acquired): one workgroup of 64 per 64 spheres and
   * per 16 grid cells along one dispatch dimension, and the history slots in one storage binding.
   */
  checkCapacity(total: number, argument: string): void {
    const limits = this.#device?.limits as Record<string, number> | undefined;
    const binding = limits?.maxStorageBufferBindingSize ?? 134_217_728;
    const workgroups = limits?.maxComputeWorkgroupsPerDimension ?? 65_535;
    const perSphere = Math.max(32, 16 * (this.#config.law.friction > 0 ? this.#config.contactCapacity : 0));
    const most = Math.min(Math.floor(binding / perSphere), (workgroups * 64) / 4);
    if (total > most) {
      const error = new RangeError(
        `${argument}: ${total} spheres exceed what executionSpace 'webgpu' holds on this device (${most}: ` +
          `storage bindings of ${binding} bytes, ${perSphere} bytes per sphere, ${workgroups} workgroups per dispatch)`,
      );
      throw Object.assign(error, { argument, index: -1 });
    }
  }

  /**
   * Appends spheres already validated (and wrapped on periodic axes) by the CPU kernel:
   * positions and velocities 3N, radii N.
   */
  append(positions: Float64Array, velocities: Float64Array, radii: Float64Array, density: number): void {
    const old = this.sphereCount;
    const added = radii.length;
    const n = old + added;
    const s = this.#state;
    this.#state = {
      position: grow(s.position, 8 * n),
      velocity: grow(s.velocity, 4 * n),
      angularVelocity: grow(s.angularVelocity, 4 * n),
      forceTorque: grow(s.forceTorque, 8 * n),
    };
    const nextRadii = new Float64Array(n);
    nextRadii.set(this.#radii);
    const nextMass = new Float64Array(n);
    nextMass.set(this.#mass);
    const min = this.#options.boxMin;
    const whole = new Int32Array(this.#state.position.buffer);
    const fraction = this.#state.position;
    const quantum = this.#quantum;
    for (let k = 0; k < added; k++) {
      const i = old + k;
      const r = radii[k] as number;
      const mass = ((density * 4) / 3) * Math.PI * r * r * r;
      nextRadii[i] = r;
      nextMass[i] = mass;
      for (let a = 0; a < 3; a++) {
        // Fixed point: nearest whole quantum, the rest as the fraction (|fraction| ≤ ½).
        const t = ((positions[3 * k + a] as number) - (min[a] as number)) / (quantum[a] as number);
        let steps = Math.round(t);
        const rest = t - steps;
        if (this.#config.periodic[a]) steps = ((steps % QUANTA) + QUANTA) % QUANTA;
        else steps = Math.min(QUANTA, Math.max(0, steps));
        whole[8 * i + a] = steps;
        fraction[8 * i + 4 + a] = rest;
        this.#state.velocity[4 * i + a] = velocities[3 * k + a] as number;
      }
      this.#state.position[8 * i + 3] = r;
      this.#state.velocity[4 * i + 3] = 1 / mass;
      this.#state.angularVelocity[4 * i + 3] = 1 / (0.4 * mass * r * r);
    }
    this.#radii = nextRadii;
    this.#mass = nextMass;
    this.batches.push({ start: old, count: added, density });
    this.#pendingUpload = true;
    this.version++;
  }

  /** Acquires the device and compiles the kernels (first call), then uploads pending spheres. */
  async prepare(timestep: number): Promise<void> {
    if (this.#engine === undefined) {
      this.#device ??= await sharedDevice(this.#options.module);
      this.#engine = await GpuEngine.create(this.#device, this.#config);
    }
    if (this.#pendingUpload || timestep !== this.#timestep) {
      this.#engine.upload(this.#state, timestep, this.#uploaded);
      this.#uploaded = this.sphereCount;
      this.#pendingUpload = false;
      this.#timestep = timestep;
    }
  }

  /** Runs `steps` steps on the device (after {@link prepare}) and refreshes the host copy. */
  async advance(steps: number): Promise<EngineReport> {
    const engine = this.#engine as GpuEngine;
    const report =
      this.sphereCount === 0
        ? { nonFinite: false, clampedSpheres: 0, firstClampedSphere: -1, overflowSphere: -1, overflowContacts: 0 }
        : await engine.advance(steps, this.#state);
    for (let s = 0; s < steps; s++) this.time += this.#timestep;
    this.stepCount += steps;
    this.version++;
    return report;
  }

  /** Reads the device state again into the host copy. */
  async refresh(timestep: number): Promise<void> {
    await this.prepare(timestep);
    if (this.sphereCount > 0) await (this.#engine as GpuEngine).advance(0, this.#state);
    this.version++;
  }

  /**
   * 3N centres (m) in user coordinates: wrapped into [min, max) on periodic axes, within
   * [min, max] on the others.
   */
  positions(): Float64Array {
    const n = this.sphereCount;
    const out = new Float64Array(3 * n);
    const { boxMin, boxMax } = this.#options;
    const whole = new Int32Array(this.#state.position.buffer);
    const fraction = this.#state.position;
    const quantum = this.#quantum;
    for (let i = 0; i < n; i++)
      for (let a = 0; a < 3; a++) {
        const min = boxMin[a] as number;
        const max = boxMax[a] as number;
        let x = min + ((whole[8 * i + a] as number) + (fraction[8 * i + 4 + a] as number)) * (quantum[a] as number);
        if (this.#config.periodic[a]) {
          const length = max - min;
          x -= length * Math.floor((x - min) / length);
          if (x >= max) x = min;
        }
        out[3 * i + a] = Math.min(max, Math.max(min, x));
      }
    return out;
  }

  #vectors(source: Float32Array, stride: number, offset = 0): Float64Array {
    const n = this.sphereCount;
    const out = new Float64Array(3 * n);
    for (let i = 0; i < n; i++) for (let a = 0; a < 3; a++) out[3 * i + a] = source[stride * i + offset + a] as number;
    return out;
  }

  velocities(): Float64Array {
    return this.#vectors(this.#state.velocity, 4);
  }
  angularVelocities(): Float64Array {
    return this.#vectors(this.#state.angularVelocity, 4);
  }
  /** Total forces (N): contacts and walls from the device, plus m·g. */
  forces(): Float64Array {
    const out = this.#vectors(this.#state.forceTorque, 8);
    const g = this.#options.gravity;
    for (let i = 0; i < this.sphereCount; i++)
      for (let a = 0; a < 3; a++)
        out[3 * i + a] = (out[3 * i + a] as number) + (this.#mass[i] as number) * (g[a] as number);
    return out;
  }
  radii(): Float64Array {
    return this.#radii.slice();
  }

  translationalKineticEnergy(): number {
    let energy = 0;
    const v = this.#state.velocity;
    for (let i = 0; i < this.sphereCount; i++) {
      const x = v[4 * i] as number;
      const y = v[4 * i + 1] as number;
      const z = v[4 * i + 2] as number;
      energy += 0.5 * (this.#mass[i] as number) * (x * x + y * y + z * z);
    }
    return energy;
  }

  kineticEnergy(): number {
    let energy = this.translationalKineticEnergy();
    if (!this.#options.rotation) return energy;
    const w = this.#state.angularVelocity;
    for (let i = 0; i < this.sphereCount; i++) {
      const x = w[4 * i] as number;
      const y = w[4 * i + 1] as number;
      const z = w[4 * i + 2] as number;
      const r = this.#radii[i] as number;
      energy += 0.5 * 0.4 * (this.#mass[i] as number) * r * r * (x * x + y * y + z * z);
    }
    return energy;
  }

  momentum(): [number, number, number] {
    const p = [0, 0, 0];
    const v = this.#state.velocity;
    for (let i = 0; i < this.sphereCount; i++)
      for (let a = 0; a < 3; a++) p[a] = (p[a] as number) + (this.#mass[i] as number) * (v[4 * i + a] as number);
    return p as [number, number, number];
  }

  /** Frees the device buffers; the device itself belongs to the module (or to the caller). */
  release(): void {
    this.#engine?.release();
    this.#engine = undefined;
  }
}
