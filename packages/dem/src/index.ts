/**
 * @peclet/dem — discrete element method for frictional spheres.
 *
 * @example
 * ```ts
 * import { Simulation } from '@peclet/dem';
 * using simulation = new Simulation({
 *   box: { min: [0, 0, 0], max: [0.02, 0.02, 0.05] },
 *   periodic: [true, true, false],
 *   contact: { model: 'hertz-mindlin', youngsModulus: 1e7, restitution: 0.5, friction: 0.5 },
 * });
 * simulation.deposit({ count: 2000, radius: 0.0005, density: 2500, seed: 1 });
 * simulation.packingFraction({ min: [0, 0, 0.003], max: [0.02, 0.02, 0.008] }); // ≈ 0.6
 * ```
 *
 * @packageDocumentation
 */
import { ReleasedError } from '@peclet/core';
import type { GpuOptions } from '@peclet/core/gpu';
import { lawConstants } from './gpu/contact-law.js';
import { type GpuDeviceHandle, sharedDevice } from './gpu/device.js';
import { DEFAULT_CONTACT_CAPACITY, GpuPath } from './gpu/path.js';
import { demModule, type NativeAdvance, type NativeSimulation, native } from './native.js';

export { ReleasedError } from '@peclet/core';

/** A point or vector [x, y, z]. */
export type Vector3 = readonly [number, number, number];

/** An axis-aligned box (m). */
export interface Box {
  readonly min: Vector3;
  readonly max: Vector3;
}

/** The contact law, shared by sphere–sphere and sphere–wall contacts. */
export interface ContactOptions {
  /**
   * `hertz-mindlin` (default): Hertz normal force with Mindlin tangential stiffness, needs
   * `youngsModulus`. `linear`: Hookean springs, needs `stiffness`.
   */
  readonly model?: 'hertz-mindlin' | 'linear';
  /** Young's modulus E (Pa), Hertz–Mindlin. */
  readonly youngsModulus?: number;
  /** Poisson's ratio ν in [0, 0.5) (default 0.3), Hertz–Mindlin. */
  readonly poissonRatio?: number;
  /** Normal spring constant kn (N/m), linear model. */
  readonly stiffness?: number;
  /** kt / kn, linear model (default 2/7). */
  readonly tangentialStiffnessRatio?: number;
  /** Coefficient of normal restitution e in (0, 1] (default 0.5). */
  readonly restitution?: number;
  /** Coulomb friction coefficient μ ≥ 0 (default 0.5; 0 switches tangential forces off). */
  readonly friction?: number;
}

/** Options of {@link Simulation}. SI units (m, kg, s, N, Pa); any consistent system works. */
export interface SimulationOptions {
  readonly box: Box;
  /** Periodic axes: `true` for all three, or one flag per axis (default none). */
  readonly periodic?: boolean | readonly [boolean, boolean, boolean];
  /**
   * Planar walls on the non-periodic faces, in the order [x−, x+, y−, y+, z−, z+] (default all;
   * ignored on periodic axes). A face without a wall is open (see {@link SimulationOptions.escape}).
   */
  readonly walls?: boolean | readonly boolean[];
  /** Body acceleration (m/s², default [0, 0, −9.81]). */
  readonly gravity?: Vector3;
  /**
   * Time step (s). Default (or 0): contact time / 50, derived again whenever spheres are added,
   * see {@link Simulation.timestepReport}. A value above the stability limit (contact time / 5)
   * is a RangeError when spheres are added, and the message states the limit.
   */
  readonly timestep?: number;
  readonly contact: ContactOptions;
  /** Verlet skin (m); default 0.1 × the largest diameter. */
  readonly skin?: number;
  /** Integrate rotations (default true); false keeps spheres from spinning. */
  readonly rotation?: boolean;
  /** Hertz: impact speed (m/s) at which the contact time is quoted (default √(2·|g|·height) or 1). */
  readonly impactVelocity?: number;
  /** Threads to use (default: the module's CPU budget). */
  readonly threads?: number;
  /**
   * What happens when a sphere centre ends a step outside the box on a non-periodic axis (an
   * open face, or a blow-up tunnelling through a wall). `clamp` (default): it is put back on the
   * face with its outward velocity zeroed and counted in {@link StepReport.clampedSpheres}.
   * `throw`: the same, then `step`/`run` throw a RangeError naming `positions` and the sphere.
   */
  readonly escape?: 'clamp' | 'throw';
  /**
   * Where the simulation steps: `host` (default, the CPU kernel on the module's thread pool,
   * f64) or `webgpu` (WGSL compute shaders, f32, through `@peclet/core/gpu`). On `webgpu`,
   * stepping is asynchronous (`run`, `depositAsync`) and the arrays are copies of the state read
   * back after each batch of steps; see the README's *WebGPU* section.
   */
  readonly executionSpace?: 'host' | 'webgpu';
  /**
   * `webgpu` only: tangential-history slots per sphere (sphere and wall contacts it can hold at
   * once with friction on; default 16). More contacts than this make `run`/`depositAsync` reject
   * with a RangeError naming `contactCapacity`.
   */
  readonly contactCapacity?: number;
}

/** Spheres for {@link Simulation.addSpheres}. Arrays are copied. */
export interface SphereBatch {
  /** 3N centre coordinates (m), inside the box on non-periodic axes. */
  readonly positions: Float64Array | readonly number[];
  /** N radii (m), positive. */
  readonly radii: Float64Array | readonly number[];
  /** Material density (kg/m³) of the whole batch, positive. */
  readonly density: number;
  /** 3N initial velocities (m/s); default at rest. */
  readonly velocities?: Float64Array | readonly number[];
}

/** How {@link Simulation.deposit} draws radii: a number is a fixed radius. */
export type RadiusDistribution =
  | number
  | { readonly kind: 'fixed'; readonly radius: number }
  | { readonly kind: 'uniform'; readonly minRadius: number; readonly maxRadius: number }
  | {
      /** ln r ~ Normal(ln medianRadius, logStandardDeviation²), truncated to [minRadius, maxRadius]. */
      readonly kind: 'lognormal';
      readonly medianRadius: number;
      readonly logStandardDeviation: number;
      readonly minRadius: number;
      readonly maxRadius: number;
    };

/** Options of {@link Simulation.deposit}; gravity must point along −z. */
export interface DepositOptions {
  /** Spheres to insert (all or none). */
  readonly count: number;
  readonly radius: RadiusDistribution;
  /** Density (kg/m³). */
  readonly density: number;
  /** Seed of the random stream (integer, default 1): a seed gives the same spheres everywhere. */
  readonly seed?: number;
  /** Insertion region along z (m): default from the top of the bed to the box ceiling. */
  readonly regionBottom?: number;
  readonly regionTop?: number;
  /** Random trials per sphere before the insertion is declared impossible (default 10000). */
  readonly maxAttemptsPerSphere?: number;
  /** Settled once the mean translational kinetic energy per sphere is below this (J); default 1e-5·m̄·|g|·d̄. */
  readonly kineticEnergyThreshold?: number;
  /** Steps between kinetic-energy checks (default 200). */
  readonly checkInterval?: number;
  /** Settling gives up after this many steps (default 10^7; the report says `settled: false`). */
  readonly maxSteps?: number;
}

/** Progress of {@link Simulation.run} and {@link Simulation.depositAsync}. */
export interface Progress {
  /** Steps taken so far in this call. */
  readonly steps: number;
  /** Steps asked for (for a deposit: its `maxSteps`). */
  readonly totalSteps: number;
  /** Simulated time (s) since the simulation was created. */
  readonly time: number;
  /** Mean translational kinetic energy per sphere (J). */
  readonly kineticEnergyPerSphere: number;
}

/** Options of {@link Simulation.run}. */
export interface RunOptions {
  readonly steps: number;
  /** Aborting cancels the run at the next whole step; the promise rejects with `signal.reason`. */
  readonly signal?: AbortSignal;
  /** Called on the JS thread between slices of the run (about every `progressInterval` ms). */
  readonly onProgress?: (progress: Progress) => void;
  /** Target wall time of one slice (ms, default 100). */
  readonly progressInterval?: number;
}

/** Options of {@link Simulation.depositAsync}. */
export interface DepositAsyncOptions extends DepositOptions {
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: Progress) => void;
  readonly progressInterval?: number;
}

/** Outcome of {@link Simulation.step} and {@link Simulation.run}. */
export interface StepReport {
  /** Steps taken. */
  readonly steps: number;
  /** Times a sphere centre was clamped back onto a non-periodic face (see `escape`). */
  readonly clampedSpheres: number;
  /** Index of the first clamped sphere, or −1. */
  readonly firstClampedSphere: number;
}

/** Outcome of {@link Simulation.deposit}. */
export interface DepositReport extends StepReport {
  /** Spheres inserted (always `count`). */
  readonly inserted: number;
  /** Whether the kinetic-energy threshold was reached within `maxSteps`. */
  readonly settled: boolean;
  /** Mean translational kinetic energy per sphere at the end (J). */
  readonly kineticEnergyPerSphere: number;
  /** The threshold used (J). */
  readonly kineticEnergyThreshold: number;
}

/** The time step and how it relates to the contact time. */
export interface TimestepReport {
  /** Time step in use (s); 0 until spheres are present when automatic. */
  readonly timestep: number;
  /** Duration of a binary collision of the two lightest spheres (s; Hertz: at `impactVelocity`). */
  readonly contactTime: number;
  /** Largest accepted time step: contactTime / 5 (s). */
  readonly stabilityLimit: number;
  /** Whether the time step was derived (contactTime / 50) rather than given. */
  readonly automatic: boolean;
}

/** Current sphere–sphere contacts. */
export interface Contacts {
  /** 2M sphere indices, first < second per contact. */
  readonly pairs: Uint32Array;
  /** M overlaps (m), positive. */
  readonly overlaps: Float64Array;
}

const FACES = ['x−', 'x+', 'y−', 'y+', 'z−', 'z+'];

function fail(kind: 'type' | 'range', argument: string, message: string, index = -1): never {
  const error = kind === 'type' ? new TypeError(`${argument}: ${message}`) : new RangeError(`${argument}: ${message}`);
  Object.assign(error, { argument, index });
  throw error;
}

function optionalNumber(value: unknown, argument: string): number {
  if (value === undefined) return Number.NaN;
  if (typeof value !== 'number') fail('type', argument, `must be a number, got ${typeof value}`);
  if (!Number.isFinite(value)) fail('range', argument, `must be a finite number, got ${value}`);
  return value;
}

function integer(value: unknown, argument: string, min: number, fallback?: number): number {
  if (value === undefined && fallback !== undefined) return fallback;
  if (typeof value !== 'number') fail('type', argument, `must be a number, got ${typeof value}`);
  if (!Number.isInteger(value) || value < min || value > Number.MAX_SAFE_INTEGER) {
    fail('range', argument, `must be an integer ≥ ${min}, got ${value}`);
  }
  return value;
}

function vector3(value: unknown, argument: string): number[] {
  const ok = (Array.isArray(value) || value instanceof Float64Array) && value.length === 3;
  if (!ok) fail('type', argument, 'must be [x, y, z]');
  const v = Array.from(value as ArrayLike<unknown>);
  v.forEach((x, i) => {
    if (typeof x !== 'number') fail('type', `${argument}[${i}]`, 'must be a number');
    if (!Number.isFinite(x)) fail('range', `${argument}[${i}]`, `must be finite, got ${x}`);
  });
  return v as number[];
}

function flags(value: unknown, count: number, fallback: boolean, argument: string): boolean[] {
  if (value === undefined) return new Array(count).fill(fallback);
  if (typeof value === 'boolean') return new Array(count).fill(value);
  if (Array.isArray(value) && value.length === count && value.every((p) => typeof p === 'boolean')) return [...value];
  return fail('type', argument, `must be a boolean or ${count} booleans`);
}

function float64(value: unknown, argument: string): Float64Array {
  if (value instanceof Float64Array) return value;
  if (Array.isArray(value)) {
    value.forEach((x, i) => {
      if (typeof x !== 'number') fail('type', argument, `element ${i} must be a number`, i);
    });
    return Float64Array.from(value as number[]);
  }
  return fail('type', argument, 'must be a Float64Array or an array of numbers');
}

function normalizeOptions(options: SimulationOptions): Record<string, unknown> {
  if (typeof options !== 'object' || options === null)
    fail('type', 'options', 'must be an object with box and contact');
  const { box, contact } = options;
  if (typeof box !== 'object' || box === null) fail('type', 'box', 'must be { min: [x, y, z], max: [x, y, z] }');
  if (typeof contact !== 'object' || contact === null) fail('type', 'contact', 'must be an object with a model');
  const model = contact.model ?? 'hertz-mindlin';
  if (model !== 'hertz-mindlin' && model !== 'linear') {
    fail('type', 'contact.model', `must be 'hertz-mindlin' or 'linear', got ${String(model)}`);
  }
  if (options.escape !== undefined && options.escape !== 'clamp' && options.escape !== 'throw') {
    fail('type', 'escape', "must be 'clamp' or 'throw'");
  }
  const timestep = optionalNumber(options.timestep, 'timestep');
  const threads = options.threads === undefined ? 0 : integer(options.threads, 'threads', 1);
  const walls = flags(options.walls, 6, true, 'walls');
  if (walls.length !== 6) fail('type', 'walls', `must list the faces ${FACES.join(', ')}`);
  const orDefault = (v: unknown, name: string, fallback: number) =>
    v === undefined ? fallback : optionalNumber(v, name);
  return {
    boxMin: vector3(box.min, 'box.min'),
    boxMax: vector3(box.max, 'box.max'),
    periodic: flags(options.periodic, 3, false, 'periodic'),
    walls,
    gravity: options.gravity === undefined ? [0, 0, -9.81] : vector3(options.gravity, 'gravity'),
    timestep: timestep === 0 ? Number.NaN : timestep,
    model: model === 'linear' ? 1 : 0,
    youngsModulus: optionalNumber(contact.youngsModulus, 'contact.youngsModulus'),
    poissonRatio: orDefault(contact.poissonRatio, 'contact.poissonRatio', 0.3),
    stiffness: optionalNumber(contact.stiffness, 'contact.stiffness'),
    tangentialStiffnessRatio: orDefault(contact.tangentialStiffnessRatio, 'contact.tangentialStiffnessRatio', 2 / 7),
    restitution: orDefault(contact.restitution, 'contact.restitution', 0.5),
    friction: orDefault(contact.friction, 'contact.friction', 0.5),
    skin: optionalNumber(options.skin, 'skin'),
    rotation: options.rotation ?? true,
    impactVelocity: optionalNumber(options.impactVelocity, 'impactVelocity'),
    threads,
  };
}

function normalizeDeposit(options: DepositOptions): Record<string, number | string> {
  if (typeof options !== 'object' || options === null) fail('type', 'options', 'must be an object');
  const out: Record<string, number | string> = {
    count: integer(options.count, 'count', 1),
    density: optionalNumber(options.density, 'density'),
    seed: integer(options.seed, 'seed', 0, 1),
    regionBottom: optionalNumber(options.regionBottom, 'regionBottom'),
    regionTop: optionalNumber(options.regionTop, 'regionTop'),
    maxAttemptsPerSphere: integer(options.maxAttemptsPerSphere, 'maxAttemptsPerSphere', 1, 10_000),
    kineticEnergyThreshold: optionalNumber(options.kineticEnergyThreshold, 'kineticEnergyThreshold'),
    checkInterval: integer(options.checkInterval, 'checkInterval', 1, 200),
    maxSteps: integer(options.maxSteps, 'maxSteps', 0, 10_000_000),
  };
  if (options.density === undefined) fail('type', 'density', 'is required (kg/m³)');
  const radius = options.radius;
  if (typeof radius === 'number') {
    out.kind = 'fixed';
    out.radius = optionalNumber(radius, 'radius');
  } else if (typeof radius === 'object' && radius !== null) {
    out.kind = radius.kind;
    if (radius.kind === 'fixed') out.radius = optionalNumber(radius.radius, 'radius.radius');
    else if (radius.kind === 'uniform' || radius.kind === 'lognormal') {
      out.minRadius = optionalNumber(radius.minRadius, 'radius.minRadius');
      out.maxRadius = optionalNumber(radius.maxRadius, 'radius.maxRadius');
      if (radius.kind === 'lognormal') {
        out.medianRadius = optionalNumber(radius.medianRadius, 'radius.medianRadius');
        out.logStandardDeviation = optionalNumber(radius.logStandardDeviation, 'radius.logStandardDeviation');
      }
    } else fail('type', 'radius.kind', "must be 'fixed', 'uniform' or 'lognormal'");
  } else fail('type', 'radius', 'must be a number (m) or a distribution object');
  return out;
}

// The kernel names a fixed radius `radius.radius`; the API lets it be `radius`.
function renameRadius<T>(radius: RadiusDistribution, body: () => T): T {
  try {
    return body();
  } catch (error) {
    if (
      typeof radius === 'number' &&
      error instanceof Error &&
      (error as { argument?: string }).argument === 'radius.radius'
    ) {
      error.message = error.message.replace(/^radius\.radius/, 'radius');
      Object.assign(error, { argument: 'radius' });
    }
    throw error;
  }
}

function checkSignal(signal: unknown): AbortSignal | undefined {
  if (signal !== undefined && !(signal instanceof AbortSignal)) fail('type', 'signal', 'must be an AbortSignal');
  return signal as AbortSignal | undefined;
}

/**
 * A discrete element simulation of frictional spheres in a box: velocity Verlet, linked-cell
 * neighbour lists with a Verlet skin, Hertz–Mindlin or linear contacts with Coulomb friction,
 * planar walls on non-periodic faces, gravity.
 *
 * Arrays (`positions`, `velocities`, `angularVelocities`, `forces`, `radii`) are zero-copy,
 * read-only views of native memory in the order spheres were added: they are refreshed in place
 * at the end of every step, detached (length 0) when spheres are added (read them again) and
 * when the simulation is released or its module finalized. Writing to them changes nothing.
 * With `executionSpace: 'webgpu'` the same model runs in compute shaders: stepping is
 * asynchronous (`run`, `depositAsync`) and the arrays are copies of the state read back after the
 * last batch of steps (see the README's *WebGPU* section).
 *
 * @example
 * ```ts
 * const simulation = new Simulation({
 *   box: { min: [0, 0, 0], max: [1, 1, 1] },
 *   gravity: [0, 0, 0],
 *   contact: { model: 'linear', stiffness: 1e5, restitution: 0.9, friction: 0 },
 * });
 * simulation.addSpheres({ positions: [0.3, 0.5, 0.5, 0.7, 0.5, 0.5], radii: [0.1, 0.1], density: 1000,
 *   velocities: [1, 0, 0, -1, 0, 0] });
 * await simulation.run({ steps: 10_000, onProgress: ({ steps }) => console.log(steps) });
 * simulation.velocities; // rebounded at 0.9 m/s
 * ```
 */
export class Simulation implements Disposable {
  // On `webgpu` the native simulation holds the sphere set (validation, time step, insertion)
  // and is rebuilt from the device state when a measurement needs the current geometry.
  #native: NativeSimulation;
  readonly #normalized: Record<string, unknown>;
  readonly #escape: 'clamp' | 'throw';
  readonly #id: number;
  readonly #gpu: GpuPath | undefined;
  #nativeVersion = 0;
  #releasedByCall = false;
  #running = false;

  /** Throws TypeError/RangeError naming the option at fault (e.g. `contact.restitution`). */
  constructor(options: SimulationOptions) {
    const normalized = normalizeOptions(options);
    const space = options.executionSpace ?? 'host';
    if (space !== 'host' && space !== 'webgpu') {
      fail('type', 'executionSpace', `must be 'host' or 'webgpu', got ${String(space)}`);
    }
    const capacity = integer(options.contactCapacity, 'contactCapacity', 1, DEFAULT_CONTACT_CAPACITY);
    this.#native = new native.Simulation(normalized);
    this.#normalized = normalized;
    this.#id = this.#native.id;
    this.#escape = options.escape ?? 'clamp';
    if (space === 'webgpu') {
      this.#gpu = new GpuPath({
        module: demModule,
        boxMin: normalized.boxMin as number[],
        boxMax: normalized.boxMax as number[],
        periodic: normalized.periodic as boolean[],
        walls: normalized.walls as boolean[],
        gravity: normalized.gravity as number[],
        law: lawConstants(normalized),
        rotation: normalized.rotation as boolean,
        contactCapacity: capacity,
      });
    }
  }

  /** Id in the module (`Simulation#<id>` in errors and the trace). */
  get id(): number {
    return this.#id;
  }
  get released(): boolean {
    return this.#releasedByCall || this.#native.released;
  }
  /** Frees the native state (stopping a run in flight); idempotent. Afterwards members throw ReleasedError. */
  release(): void {
    this.#releasedByCall = true;
    this.#gpu?.release();
    this.#native.release();
  }
  [Symbol.dispose](): void {
    this.release();
  }

  /** `host` (CPU kernel, f64, zero-copy arrays) or `webgpu` (device kernels, f32, copied arrays). */
  get executionSpace(): 'host' | 'webgpu' {
    this.#live();
    return this.#gpu === undefined ? 'host' : 'webgpu';
  }

  // The GPU path's own members check liveness here; the CPU path's native calls do it themselves.
  #live(): void {
    if (!this.released) return;
    const by = this.#releasedByCall ? 'release()' : 'finalize()';
    throw new ReleasedError(`Simulation#${this.#id} of module dem was released by ${by}`, {
      module: 'dem',
      className: 'Simulation',
      releasedBy: by,
    });
  }

  #idle(what: string): void {
    this.#live();
    if (this.#running) fail('type', what, `Simulation#${this.id} is running (await run() or abort it first)`);
  }

  #asyncOnly(what: string, instead: string): void {
    fail(
      'type',
      what,
      `Simulation#${this.id} runs on executionSpace 'webgpu', which steps asynchronously: use ${instead}`,
    );
  }

  // The native simulation with the current sphere set at the device state of the host copy.
  #current(): NativeSimulation {
    const gpu = this.#gpu;
    if (gpu === undefined || this.#nativeVersion === gpu.version) return this.#native;
    const positions = gpu.positions();
    const velocities = gpu.velocities();
    const radii = gpu.radii();
    const next = new native.Simulation(this.#normalized);
    try {
      for (const batch of gpu.batches) {
        const a = batch.start;
        const b = batch.start + batch.count;
        next.addSpheres(
          positions.subarray(3 * a, 3 * b),
          radii.subarray(a, b),
          batch.density,
          velocities.subarray(3 * a, 3 * b),
        );
      }
    } catch (error) {
      next.release();
      throw error;
    }
    this.#native.release();
    this.#native = next;
    this.#nativeVersion = gpu.version;
    return next;
  }

  /**
   * Acquires the device (on `webgpu`), uploads spheres added since the last run and reads the
   * device state back into the arrays the getters copy from. Resolves at once on `host`, whose
   * arrays are always current. Rejects with code `PECLET_NO_WEBGPU` or `PECLET_NO_GPU` when
   * WebGPU or an adapter is missing.
   */
  async sync(): Promise<void> {
    this.#idle('sync');
    const gpu = this.#gpu;
    if (gpu === undefined) return;
    this.#running = true;
    try {
      await gpu.refresh(this.#native.timestepReport.timestep);
    } catch (error) {
      throw this.#cancelled('sync', error);
    } finally {
      this.#running = false;
    }
  }

  // A GPU call that failed or finished after release(), finalize() or the start of
  // finalizeAsync() reports a cancellation.
  #cancelled(what: string, error: unknown): unknown {
    if (!this.released && !demModule.exiting) return error;
    const why = this.#releasedByCall
      ? 'cancelled'
      : this.released
        ? 'cancelled: module dem was finalized by finalize()'
        : 'cancelled: module dem is finalizing (finalizeAsync())';
    return Object.assign(new Error(`${what} ${why}`), { code: 'PECLET_CANCELLED' });
  }

  /**
   * Adds spheres. Validates the whole batch first (nothing is added on error): lengths, radii and
   * density positive and finite, positions finite and inside the box on non-periodic axes,
   * velocities finite — a TypeError or RangeError naming the argument and the first offending
   * index. Also rejects a given time step above the new stability limit. Detaches the arrays.
   */
  addSpheres(batch: SphereBatch): void {
    this.#idle('addSpheres');
    if (typeof batch !== 'object' || batch === null) fail('type', 'batch', 'must be { positions, radii, density }');
    const positions = float64(batch.positions, 'positions');
    const radii = float64(batch.radii, 'radii');
    const velocities = batch.velocities === undefined ? undefined : float64(batch.velocities, 'velocities');
    if (typeof batch.density !== 'number') fail('type', 'density', 'must be a number (kg/m³)');
    const gpu = this.#gpu;
    if (gpu === undefined) {
      this.#native.addSpheres(positions, radii, batch.density, velocities);
      return;
    }
    // The CPU kernel validates the batch and derives the time step; the device gets the spheres
    // (wrapped on periodic axes) at the next asynchronous call.
    gpu.checkCapacity(gpu.sphereCount + radii.length, 'radii');
    const simulation = this.#current();
    const before = simulation.sphereCount;
    simulation.addSpheres(positions, radii, batch.density, velocities);
    this.#appendFrom(simulation, before, batch.density);
  }

  #appendFrom(simulation: NativeSimulation, before: number, density: number): void {
    const gpu = this.#gpu as GpuPath;
    const after = simulation.sphereCount;
    gpu.append(
      simulation.positions.slice(3 * before, 3 * after),
      simulation.velocities.slice(3 * before, 3 * after),
      simulation.radii.slice(before, after),
      density,
    );
    this.#nativeVersion = gpu.version;
  }

  #check(outcome: NativeAdvance, what: string): StepReport {
    const report = {
      steps: outcome.steps,
      clampedSpheres: outcome.clampedSpheres,
      firstClampedSphere: outcome.firstClampedSphere,
    };
    if (outcome.status === 'diverged') {
      fail(
        'range',
        'timestep',
        `${what}: the simulation diverged (a position or velocity became NaN or infinite) after ${outcome.steps} steps; ` +
          `the time step ${this.timestep} s is too large for these contacts (stability limit ${this.timestepReport.stabilityLimit} s)`,
      );
    }
    if (this.#escape === 'throw' && outcome.clampedSpheres > 0) {
      fail(
        'range',
        'positions',
        `${what}: sphere ${outcome.firstClampedSphere} left the box through a face without a wall`,
        outcome.firstClampedSphere,
      );
    }
    return report;
  }

  /**
   * Advances `steps` time steps (default 1) on the module's threads, blocking this thread.
   * Throws a RangeError (argument `timestep`) if the state diverged.
   */
  step(steps = 1): StepReport {
    this.#idle('step');
    if (this.#gpu !== undefined) this.#asyncOnly('step', 'await run({ steps })');
    const n = integer(steps, 'steps', 0);
    return this.#check(this.#native.advance(n, -1, 0), 'step');
  }

  async #slices(
    what: string,
    total: number,
    threshold: number,
    checkInterval: number,
    signal: AbortSignal | undefined,
    onProgress: ((p: Progress) => void) | undefined,
    intervalMs: number,
  ): Promise<NativeAdvance> {
    signal?.throwIfAborted();
    this.#idle(what);
    if (this.#gpu !== undefined) {
      return this.#gpuSlices(this.#gpu, what, total, threshold, checkInterval, signal, onProgress, intervalMs);
    }
    this.#running = true;
    let cancel: (() => void) | undefined;
    const onAbort = () => cancel?.();
    signal?.addEventListener('abort', onAbort, { once: true });
    let done = 0;
    let clampedSpheres = 0;
    let firstClampedSphere = -1;
    let last: NativeAdvance | undefined;
    // Slices are sized to take about `intervalMs` each, measured as they go; a deposit's are
    // whole multiples of its check interval so settling is judged exactly as in deposit().
    let slice = Math.max(1, Math.min(total, checkInterval > 0 ? checkInterval : 10));
    try {
      while (done < total || last === undefined) {
        const n = Math.min(slice, total - done);
        const started = performance.now();
        const work = this.#native.advanceAsync(n, threshold, checkInterval);
        cancel = work.cancel;
        if (signal?.aborted) work.cancel();
        last = await work.promise;
        cancel = undefined;
        if (signal?.aborted) throw signal.reason;
        done += last.steps;
        clampedSpheres += last.clampedSpheres;
        if (firstClampedSphere < 0) firstClampedSphere = last.firstClampedSphere;
        onProgress?.({
          steps: done,
          totalSteps: total,
          time: this.#native.time,
          kineticEnergyPerSphere: last.kineticEnergyPerSphere,
        });
        if (last.status !== 'done' || last.settled || n === 0) break;
        const perStep = (performance.now() - started) / Math.max(1, last.steps);
        let next = Math.max(1, Math.round(intervalMs / Math.max(perStep, 1e-6)));
        if (checkInterval > 0) next = Math.max(1, Math.round(next / checkInterval)) * checkInterval;
        slice = Math.min(next, 4 * slice);
      }
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw error;
    } finally {
      this.#running = false;
      signal?.removeEventListener('abort', onAbort);
    }
    return { ...last, steps: done, clampedSpheres, firstClampedSphere };
  }

  // The same on the device: each slice is one submission followed by a read-back of the state.
  // A deposit's slices are one check interval each, so settling is judged at the same steps.
  async #gpuSlices(
    gpu: GpuPath,
    what: string,
    total: number,
    threshold: number,
    checkInterval: number,
    signal: AbortSignal | undefined,
    onProgress: ((p: Progress) => void) | undefined,
    intervalMs: number,
  ): Promise<NativeAdvance> {
    this.#running = true;
    let done = 0;
    let clampedSpheres = 0;
    let firstClampedSphere = -1;
    let status: NativeAdvance['status'] = 'done';
    let settled = false;
    let kineticEnergyPerSphere = 0;
    let slice = Math.max(1, Math.min(total, checkInterval > 0 ? checkInterval : 20));
    try {
      await gpu.prepare(this.#native.timestepReport.timestep);
      let first = true;
      while (done < total || first) {
        first = false;
        const n = Math.min(slice, total - done);
        const started = performance.now();
        const report = await gpu.advance(n);
        if (this.released || demModule.exiting) throw this.#cancelled(what, undefined);
        if (signal?.aborted) throw signal.reason;
        done += n;
        clampedSpheres += report.clampedSpheres;
        if (firstClampedSphere < 0) firstClampedSphere = report.firstClampedSphere;
        if (report.overflowSphere >= 0) {
          fail(
            'range',
            'contactCapacity',
            `${what}: sphere ${report.overflowSphere} had ${report.overflowContacts} contacts at once, more than its ` +
              `${gpu.contactCapacity} tangential-history slots (the springs of the extra contacts restarted from zero ` +
              'in those steps); create the simulation with a larger contactCapacity',
            report.overflowSphere,
          );
        }
        const count = gpu.sphereCount;
        kineticEnergyPerSphere = count > 0 ? gpu.translationalKineticEnergy() / count : 0;
        if (report.nonFinite) {
          status = 'diverged';
          break;
        }
        onProgress?.({ steps: done, totalSteps: total, time: gpu.time, kineticEnergyPerSphere });
        if (threshold >= 0 && checkInterval > 0 && kineticEnergyPerSphere < threshold) {
          settled = true;
          break;
        }
        if (n === 0) break;
        if (checkInterval > 0) continue;
        const perStep = (performance.now() - started) / Math.max(1, n);
        const next = Math.max(1, Math.round(intervalMs / Math.max(perStep, 1e-6)));
        slice = Math.min(next, 4 * slice);
      }
    } catch (error) {
      if (signal?.aborted && !this.released) throw signal.reason;
      throw this.#cancelled(what, error);
    } finally {
      this.#running = false;
    }
    return { status, steps: done, clampedSpheres, firstClampedSphere, settled, kineticEnergyPerSphere };
  }

  /**
   * Advances `steps` time steps off the JS thread, on the module's thread pool. The run goes in
   * slices of about `progressInterval` ms; `onProgress` is called on the JS thread after each,
   * when the arrays hold a whole step. While a slice computes, the other members throw a
   * TypeError (the arrays already handed out may change under you). Aborting `signal` stops it
   * at the next whole step and rejects with `signal.reason`; `finalize()` or `release()` stop it
   * too (rejecting with code `PECLET_CANCELLED`).
   */
  async run(options: RunOptions): Promise<StepReport> {
    if (typeof options !== 'object' || options === null) fail('type', 'options', 'must be { steps }');
    const steps = integer(options.steps, 'steps', 0);
    const signal = checkSignal(options.signal);
    const interval = options.progressInterval ?? 100;
    const outcome = await this.#slices('run', steps, -1, 0, signal, options.onProgress, interval);
    return this.#check(outcome, 'run');
  }

  /**
   * Inserts `count` spheres without overlap by random sequential insertion above the bed (or in
   * `[regionBottom, regionTop]`), then steps until the mean translational kinetic energy per
   * sphere falls below the threshold or `maxSteps` pass. Needs gravity along −z. Spheres that
   * cannot all be placed are a RangeError naming `count` and the first sphere that did not fit;
   * nothing is added then. Blocks this thread (see {@link Simulation.depositAsync}).
   */
  deposit(options: DepositOptions): DepositReport {
    this.#idle('deposit');
    if (this.#gpu !== undefined) this.#asyncOnly('deposit', 'await depositAsync(options)');
    const normalized = normalizeDeposit(options);
    const result = renameRadius(options.radius, () => this.#native.deposit(normalized));
    return {
      ...this.#check(result, 'deposit'),
      inserted: result.inserted,
      settled: result.settled,
      kineticEnergyPerSphere: result.kineticEnergyPerSphere,
      kineticEnergyThreshold: result.kineticEnergyThreshold,
    };
  }

  /**
   * {@link Simulation.deposit} with the settling off the JS thread: the insertion runs here, then
   * settling goes in slices (whole multiples of `checkInterval`) with `onProgress` after each.
   * `signal` cancels it (the inserted spheres stay, at a whole step).
   */
  async depositAsync(options: DepositAsyncOptions): Promise<DepositReport> {
    this.#idle('depositAsync');
    const normalized = normalizeDeposit(options);
    const signal = checkSignal(options.signal);
    signal?.throwIfAborted();
    // On webgpu the insertion runs in the CPU kernel against the current bed, exactly as on host.
    this.#gpu?.checkCapacity(this.#gpu.sphereCount + (normalized.count as number), 'count');
    const simulation = this.#current();
    const before = simulation.sphereCount;
    const inserted = renameRadius(options.radius, () => simulation.deposit({ ...normalized, maxSteps: 0 }));
    if (this.#gpu !== undefined) this.#appendFrom(simulation, before, normalized.density as number);
    const outcome = await this.#slices(
      'depositAsync',
      normalized.maxSteps as number,
      inserted.kineticEnergyThreshold,
      normalized.checkInterval as number,
      signal,
      options.onProgress,
      options.progressInterval ?? 100,
    );
    return {
      ...this.#check(outcome, 'depositAsync'),
      inserted: inserted.inserted,
      settled: outcome.settled,
      kineticEnergyPerSphere: outcome.kineticEnergyPerSphere,
      kineticEnergyThreshold: inserted.kineticEnergyThreshold,
    };
  }

  // On webgpu the getters below copy the host state (f32 read back after the last batch of
  // steps, converted to f64) and measure it; they work while a run computes.
  #device(): GpuPath | undefined {
    if (this.#gpu !== undefined) this.#live();
    return this.#gpu;
  }

  /** Number of spheres N. */
  get sphereCount(): number {
    return this.#device()?.sphereCount ?? this.#native.sphereCount;
  }
  /** 3N centre coordinates (m); wrapped into the box on periodic axes. Read-only view (host), copy (webgpu). */
  get positions(): Float64Array {
    return this.#device()?.positions() ?? this.#native.positions;
  }
  /** 3N velocities (m/s). Read-only view (host), copy (webgpu). */
  get velocities(): Float64Array {
    return this.#device()?.velocities() ?? this.#native.velocities;
  }
  /** 3N angular velocities (rad/s). Read-only view (host), copy (webgpu). */
  get angularVelocities(): Float64Array {
    return this.#device()?.angularVelocities() ?? this.#native.angularVelocities;
  }
  /** 3N total forces (N): contacts, walls and gravity. Read-only view (host), copy (webgpu). */
  get forces(): Float64Array {
    return this.#device()?.forces() ?? this.#native.forces;
  }
  /** N radii (m). Read-only view (host), copy (webgpu). */
  get radii(): Float64Array {
    return this.#device()?.radii() ?? this.#native.radii;
  }
  /** The time step in use (s). */
  get timestep(): number {
    this.#device();
    return this.#native.timestepReport.timestep;
  }
  /** Time step, contact time and stability limit. */
  get timestepReport(): TimestepReport {
    this.#device();
    return this.#native.timestepReport;
  }
  /** Simulated time (s). */
  get time(): number {
    return this.#device()?.time ?? this.#native.time;
  }
  /** Steps taken since creation. */
  get stepCount(): number {
    return this.#device()?.stepCount ?? this.#native.stepCount;
  }

  /** Translational + rotational kinetic energy (J). */
  kineticEnergy(): number {
    return this.#device()?.kineticEnergy() ?? this.#native.kineticEnergy();
  }
  /** Translational kinetic energy Σ ½mv² (J). */
  translationalKineticEnergy(): number {
    return this.#device()?.translationalKineticEnergy() ?? this.#native.translationalKineticEnergy();
  }
  /** Elastic energy stored in the normal springs of all contacts, walls included (J). */
  elasticEnergy(): number {
    this.#device();
    return this.#current().elasticEnergy();
  }
  /** Total momentum Σ m·v (kg·m/s). */
  momentum(): [number, number, number] {
    return this.#device()?.momentum() ?? this.#native.momentum();
  }
  /** Current sphere–sphere contacts as typed arrays (copies). */
  contacts(): Contacts {
    this.#device();
    return this.#current().contacts();
  }
  /** Mean number of sphere–sphere contacts per sphere. */
  coordinationNumber(): number {
    this.#device();
    return this.#current().coordinationNumber();
  }
  /**
   * Solid volume fraction of the box [min, max]: the exact volume of every sphere's
   * intersection with it (images across periodic axes included) over its volume.
   */
  packingFraction(region: Box): number {
    this.#device();
    if (typeof region !== 'object' || region === null) fail('type', 'region', 'must be { min, max }');
    const min = vector3(region.min, 'min');
    const max = vector3(region.max, 'max');
    return this.#current().packingFraction(Float64Array.from(min), Float64Array.from(max));
  }
}

/**
 * Releases every simulation of this thread, stops runs in flight and finalizes the module.
 * Idempotent; runs by itself at exit.
 */
export function finalize(): void {
  demModule.finalize();
}

/**
 * The WebGPU device that simulations with `executionSpace: 'webgpu'` use in this thread, acquired
 * on first use (here or by their first asynchronous call) through `requestGpu` of
 * `@peclet/core/gpu` with `options` (backend, powerPreference, requiredLimits; they apply to the
 * first acquisition only). It belongs to the dem module: {@link finalize} releases it with every
 * buffer. Rejects with code `PECLET_NO_WEBGPU` (the optional `webgpu` package is missing) or
 * `PECLET_NO_GPU` (no adapter).
 *
 * @example
 * ```ts
 * const device = await gpuDevice();
 * device.backend; // 'vulkan', 'opengles', ...
 * ```
 */
export function gpuDevice(options: GpuOptions = {}): Promise<GpuDeviceHandle> {
  return sharedDevice(demModule, options);
}

/**
 * {@link finalize} after the module's submitted GPU work has ended (at most `timeoutMs`, default
 * `PECLET_FINALIZE_TIMEOUT_MS` or 10 s); no new GPU work starts meanwhile.
 *
 * @example
 * ```ts
 * await simulation.run({ steps: 1000 }); // executionSpace: 'webgpu'
 * await finalizeAsync({ timeoutMs: 2000 });
 * ```
 */
export function finalizeAsync(options: { timeoutMs?: number } = {}): Promise<void> {
  return demModule.finalizeAsync(options);
}

/** Where dem computes: `host` (the CPU thread pool). */
export const executionSpace: string = demModule.executionSpace;
