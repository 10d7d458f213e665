/**
 * The Simulation class: the public object over the native simulation (host) or the device
 * engine (webgpu). Arguments are read by ./options.ts, asynchronous runs go through ./slices.ts
 * (host) or ./gpu/slices.ts (webgpu), outcomes become reports or errors in ./outcome.ts.
 * @internal
 */
import { fail, ReleasedError, readNumber, readOptions } from '@peclet/core';
import { lawConstants } from './gpu/contact-law.js';
import { GpuPath } from './gpu/path.js';
import { gpuSlices } from './gpu/slices.js';
import { demModule, type NativeAdvance, type NativeSimulation, native } from './native.js';
import {
  type NativeSimulationOptions,
  type RunSettings,
  readDepositOptions,
  readRegion,
  readRunOptions,
  readSimulationOptions,
  readSphereBatch,
  readSteps,
} from './options.js';
import { cancelledError, checkOutcome } from './outcome.js';
import { hostSlices, type SliceRequest } from './slices.js';
import type {
  Box,
  Contacts,
  DepositAsyncOptions,
  DepositOptions,
  DepositReport,
  RunOptions,
  SimulationOptions,
  SphereBatch,
  StepReport,
  TimestepReport,
  VoxelizedSpheres,
  VoxelizeOptions,
} from './types.js';

/** Mean relative overlap above which the `PECLET_SOFT_CONTACT` warning is emitted. */
const SOFT_CONTACT_OVERLAP = 0.01;

// The kernel names a fixed radius `radius.radius`; the API lets it be `radius`.
function renameRadius<T>(fixedRadius: boolean, body: () => T): T {
  try {
    return body();
  } catch (error) {
    if (fixedRadius && error instanceof Error && (error as { argument?: string }).argument === 'radius.radius') {
      error.message = error.message.replace(/^radius\.radius/, 'radius');
      Object.assign(error, { argument: 'radius' });
    }
    throw error;
  }
}

/**
 * A discrete element simulation of frictional spheres in a box: velocity Verlet, linked-cell
 * neighbour lists with a Verlet skin, Hertz–Mindlin or linear contacts with Coulomb friction,
 * planar walls on non-periodic faces, gravity.
 *
 * Arrays (`positions`, `velocities`, `angularVelocities`, `forces`, `radii`) are zero-copy,
 * read-only views of native memory in the order spheres were added: they are refreshed in place
 * at the end of every step, detached (length 0) when spheres are added (read them again) and
 * when the simulation is released or its module finalized. One view per buffer: a getter returns
 * the same array (`s.positions === s.positions`) until one of those detaches it, and reading it
 * in a loop costs a field read and allocates nothing. Writing to them changes nothing —
 * except `externalForces`, the per-sphere forces every step adds (see its doc).
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
  readonly #normalized: NativeSimulationOptions;
  readonly #escape: 'clamp' | 'throw';
  readonly #id: number;
  readonly #gpu: GpuPath | undefined;
  #nativeVersion = 0;
  #releasedByCall = false;
  #running = false;
  #softContactWarned = false;
  // One view per buffer (host): the same array until addSpheres or release detaches it.
  readonly #positions = demModule.zeroCopyView(() => this.#native.positions);
  readonly #velocities = demModule.zeroCopyView(() => this.#native.velocities);
  readonly #angularVelocities = demModule.zeroCopyView(() => this.#native.angularVelocities);
  readonly #forces = demModule.zeroCopyView(() => this.#native.forces);
  readonly #radii = demModule.zeroCopyView(() => this.#native.radii);
  readonly #externalForces = demModule.zeroCopyView(() => this.#native.externalForces);

  /** Throws TypeError/RangeError naming the option at fault (e.g. `contact.restitution`). */
  constructor(options: SimulationOptions) {
    const settings = readSimulationOptions(options);
    const normalized = settings.native;
    this.#native = new native.Simulation(normalized);
    this.#normalized = normalized;
    this.#id = this.#native.id;
    this.#escape = settings.escape;
    if (settings.executionSpace === 'webgpu') {
      this.#gpu = new GpuPath({
        module: demModule,
        boxMin: normalized.boxMin,
        boxMax: normalized.boxMax,
        periodic: normalized.periodic,
        walls: normalized.walls,
        gravity: normalized.gravity,
        law: lawConstants(normalized),
        rotation: normalized.rotation,
        contactCapacity: settings.contactCapacity,
      });
    }
  }

  /** Id in the module (`Simulation#<id>` in errors and the trace). */
  get id(): number {
    return this.#id;
  }
  /** The box (m), as given. */
  get box(): { readonly min: readonly [number, number, number]; readonly max: readonly [number, number, number] } {
    const { boxMin, boxMax } = this.#normalized;
    return { min: [...boxMin] as [number, number, number], max: [...boxMax] as [number, number, number] };
  }
  /** Periodic flag per axis. */
  get periodic(): readonly [boolean, boolean, boolean] {
    return [...this.#normalized.periodic] as [boolean, boolean, boolean];
  }
  /** Gravity (m/s²). */
  get gravity(): readonly [number, number, number] {
    return [...this.#normalized.gravity] as [number, number, number];
  }
  get released(): boolean {
    return this.#releasedByCall || this.#native.released;
  }
  /**
   * Frees the native state; idempotent. Afterwards members throw ReleasedError. A run or
   * deposit in flight stops at its next whole step and rejects with code `PECLET_CANCELLED`.
   */
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

  // Live and not running. Called again after reading arguments: a getter of an options object
  // may have released the simulation or started a run.
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

  // The cancellation error once release(), finalize() or finalizeAsync() stopped this simulation.
  #stopped(what: string): Error | undefined {
    if (this.released) return cancelledError(what, this.#releasedByCall ? 'release' : 'finalize');
    if (demModule.exiting) return cancelledError(what, 'finalizing');
    return undefined;
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
      throw this.#stopped('sync') ?? error;
    } finally {
      this.#running = false;
    }
  }

  /**
   * Adds spheres. Validates the whole batch first (nothing is added on error): lengths, radii and
   * density positive and finite, positions finite and inside the box on non-periodic axes,
   * velocities finite — a TypeError or RangeError naming the argument and the first offending
   * index. Also rejects a given time step above the new stability limit. The arrays are copied
   * first (so this simulation's own arrays, or a `SharedArrayBuffer` another thread writes, may
   * be passed). Detaches the arrays handed out before.
   */
  addSpheres(batch: SphereBatch): void {
    this.#idle('addSpheres');
    const { positions, radii, density, velocities, fixed } = readSphereBatch(batch);
    this.#idle('addSpheres');
    const gpu = this.#gpu;
    if (gpu === undefined) {
      this.#native.addSpheres(positions, radii, density, velocities, fixed);
      return;
    }
    if (fixed?.includes(1)) fail('type', 'fixed', "fixed spheres are not supported on executionSpace 'webgpu'");
    // The CPU kernel validates the batch and derives the time step; the device gets the spheres
    // (wrapped on periodic axes) at the next asynchronous call.
    gpu.checkCapacity(gpu.sphereCount + radii.length, 'radii');
    const simulation = this.#current();
    const before = simulation.sphereCount;
    simulation.addSpheres(positions, radii, density, velocities);
    this.#appendFrom(simulation, before, density);
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
    const report = checkOutcome(outcome, what, this.#escape, () => this.timestepReport);
    this.#warnSoftContacts(report.meanOverlap, what);
    return report;
  }

  // Once per simulation: contacts overlapping by more than 1% of the radius on average are
  // softer than DEM practice accepts (packing fractions, coordination and stresses drift).
  #warnSoftContacts(meanOverlap: number, what: string): void {
    if (this.#softContactWarned || !(meanOverlap > SOFT_CONTACT_OVERLAP)) return;
    this.#softContactWarned = true;
    const n = this.#normalized;
    const factor = meanOverlap / SOFT_CONTACT_OVERLAP;
    // At a fixed load a Hertz overlap scales as E^(-2/3), a linear one as 1/k.
    const advice =
      n.model === 1
        ? `a contact.stiffness of about ${(n.stiffness * factor).toPrecision(2)} N/m (now ${n.stiffness.toPrecision(3)}) would keep it below 1%`
        : `a contact.youngsModulus of about ${(n.youngsModulus * factor ** 1.5).toPrecision(2)} Pa (now ${n.youngsModulus.toPrecision(3)}) would keep it below 1%`;
    process.emitWarning(
      `Simulation#${this.#id}: after ${what}() the mean sphere-sphere overlap is ${(100 * meanOverlap).toPrecision(2)}% ` +
        `of the smaller radius, above the 1% that DEM practice accepts; ${advice} ` +
        '(an estimate from the scaling of the overlap with the stiffness at a fixed load)',
      { type: 'PecletWarning', code: 'PECLET_SOFT_CONTACT' },
    );
  }

  /**
   * Advances `steps` time steps (default 1) on the module's threads, blocking this thread.
   * Throws a RangeError if the state diverged: naming `timestep` when the kernel's diagnosis
   * blames the time step, else `positions` and the sphere that diverged.
   */
  step(steps = 1): StepReport {
    this.#idle('step');
    if (this.#gpu !== undefined) this.#asyncOnly('step', 'await run({ steps })');
    const n = readSteps(steps);
    return this.#check(this.#native.advance(n, -1, 0), 'step');
  }

  // Runs `total` steps asynchronously on the host or the device; #running guards every other
  // member meanwhile (onProgress included), and is set before the first await.
  async #slices(
    what: string,
    total: number,
    threshold: number,
    checkInterval: number,
    run: RunSettings,
  ): Promise<NativeAdvance> {
    run.signal?.throwIfAborted();
    this.#idle(what);
    const request: SliceRequest = {
      what,
      total,
      threshold,
      checkInterval,
      signal: run.signal,
      onProgress: run.onProgress,
      intervalMs: run.progressInterval,
      stopped: () => this.#stopped(what),
      released: () => this.released,
    };
    this.#running = true;
    try {
      const gpu = this.#gpu;
      if (gpu === undefined) return await hostSlices(this.#native, request);
      const outcome = await gpuSlices(gpu, this.#native.timestepReport.timestep, request);
      // Measured by the CPU kernel on the state read back.
      return outcome.status === 'done' ? { ...outcome, ...this.#current().overlapStatistics() } : outcome;
    } finally {
      this.#running = false;
    }
  }

  /**
   * Advances `steps` time steps off the JS thread, on the module's thread pool. The run goes in
   * slices of about `progressInterval` ms; `onProgress` is called on the JS thread after each,
   * when the arrays hold a whole step. While a slice computes (and inside `onProgress`), the
   * members that change the simulation throw a TypeError (the arrays already handed out may
   * change under you); a second `run()` rejects with one. Aborting `signal` stops it at the next
   * whole step and rejects with `signal.reason`; `finalize()` or `release()` stop it too
   * (rejecting with code `PECLET_CANCELLED`), also from inside `onProgress`. An error thrown by
   * `onProgress` rejects the run; the simulation stays usable.
   *
   * @example
   * ```ts
   * const controller = new AbortController();
   * const report = await simulation.run({
   *   steps: 100_000,
   *   signal: controller.signal,
   *   progressInterval: 250,
   *   onProgress: ({ steps, totalSteps }) => console.log(`${steps} / ${totalSteps}`),
   * });
   * ```
   */
  async run(options: RunOptions): Promise<StepReport> {
    const run = readRunOptions(options);
    const outcome = await this.#slices('run', run.steps, -1, 0, run);
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
    const settings = readDepositOptions(options, false);
    this.#idle('deposit');
    const result = renameRadius(settings.fixedRadius, () => this.#native.deposit(settings.native));
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
   * `signal` cancels it (the inserted spheres stay, at a whole step); `release()` and
   * `finalize()` reject it with code `PECLET_CANCELLED`, as for {@link Simulation.run}.
   */
  async depositAsync(options: DepositAsyncOptions): Promise<DepositReport> {
    this.#idle('depositAsync');
    const settings = readDepositOptions(options, true);
    this.#idle('depositAsync');
    settings.run.signal?.throwIfAborted();
    // On webgpu the insertion runs in the CPU kernel against the current bed, exactly as on host.
    this.#gpu?.checkCapacity(this.#gpu.sphereCount + settings.count, 'count');
    const simulation = this.#current();
    const before = simulation.sphereCount;
    const inserted = renameRadius(settings.fixedRadius, () => simulation.deposit({ ...settings.native, maxSteps: 0 }));
    if (this.#gpu !== undefined) this.#appendFrom(simulation, before, settings.density);
    const outcome = await this.#slices(
      'depositAsync',
      settings.maxSteps,
      inserted.kineticEnergyThreshold,
      settings.checkInterval,
      settings.run,
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
    return this.#device()?.positions() ?? (this.#running ? this.#native.positions : this.#positions());
  }
  /** 3N velocities (m/s). Read-only view (host), copy (webgpu). */
  get velocities(): Float64Array {
    return this.#device()?.velocities() ?? (this.#running ? this.#native.velocities : this.#velocities());
  }
  /** 3N angular velocities (rad/s). Read-only view (host), copy (webgpu). */
  get angularVelocities(): Float64Array {
    return (
      this.#device()?.angularVelocities() ??
      (this.#running ? this.#native.angularVelocities : this.#angularVelocities())
    );
  }
  /** 3N total forces (N) of the last step: contacts, walls, gravity and `externalForces`. Read-only view (host), copy (webgpu). */
  get forces(): Float64Array {
    return this.#device()?.forces() ?? (this.#running ? this.#native.forces : this.#forces());
  }
  /** N radii (m). Read-only view (host), copy (webgpu). */
  get radii(): Float64Array {
    return this.#device()?.radii() ?? (this.#running ? this.#native.radii : this.#radii());
  }
  /** N masses (kg), in the order spheres were added: a copy. */
  get masses(): Float64Array {
    return this.#native.masses();
  }
  /**
   * 3N external forces (N), zero-copy and **writable**, in the order spheres were added; zero for
   * new spheres. Every step adds them to the spheres' forces, held until changed (each call
   * reads them at its start; a non-finite value makes the call throw a RangeError naming
   * `externalForces` and the element, changing nothing). Detached when spheres are added (the
   * values are kept: read the getter again) and on release. Host only.
   *
   * @example
   * ```ts
   * const drag = simulation.externalForces;
   * drag[3 * i + 2] = 0.5; // 0.5 N upwards on sphere i, from now on
   * simulation.step(100);
   * ```
   */
  get externalForces(): Float64Array {
    this.#live();
    if (this.#gpu !== undefined) {
      fail('type', 'externalForces', "external forces are not supported on executionSpace 'webgpu'");
    }
    return this.#running ? this.#native.externalForces : this.#externalForces();
  }
  /** N flags, 1 for a fixed sphere (see `addSpheres`); a copy. */
  get fixed(): Uint8Array {
    const gpu = this.#device();
    return gpu === undefined ? this.#native.fixed : new Uint8Array(gpu.sphereCount);
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
   * intersection with it (images across periodic axes included) over its volume. A region
   * without volume (max ≤ min on an axis) is a RangeError naming `region`.
   */
  packingFraction(region: Box): number {
    this.#device();
    const { min, max } = readRegion(region);
    return this.#current().packingFraction(Float64Array.from(min), Float64Array.from(max));
  }

  /**
   * The spheres as a binary image of cubic voxels, for the solvers that take one (`@peclet/flow`,
   * `@peclet/pnm`): a voxel is solid (1) when its centre lies inside a sphere or, on periodic
   * axes, one of its images. The voxel edge is `voxelSize` (m), or the smallest sphere diameter
   * over `resolution` (default 20 voxels across it); the image covers `region` (default the box)
   * from its `min` corner with as many whole voxels as fit along each axis. Multithreaded over
   * slabs of x. The result is a `@peclet/io` VoxelImage (`solid`, `shape`, `voxelSize`) plus
   * its `origin` (m); the array is the caller's (not a view of the simulation).
   *
   * @example
   * ```ts
   * const image = simulation.voxelize({ resolution: 20 });
   * const lattice = new Lattice({ shape: image.shape, solid: image.solid });
   * ```
   */
  voxelize(options: VoxelizeOptions = {}): VoxelizedSpheres {
    this.#device();
    const o = readOptions(options, 'options', ['voxelSize', 'resolution', 'region']);
    if (o.voxelSize !== undefined && o.resolution !== undefined)
      fail('type', 'options', 'give voxelSize or resolution, not both');
    const region = o.region === undefined ? this.box : readRegion(o.region);
    for (let a = 0; a < 3; a++)
      if (!((region.max[a] as number) > (region.min[a] as number)))
        fail('range', 'region', `has no width along ${'xyz'[a]}: max must be above min`, a);
    let voxelSize: number;
    if (o.voxelSize !== undefined) {
      voxelSize = readNumber(o.voxelSize, 'voxelSize', { above: 0, unit: 'm' });
    } else {
      const resolution = readNumber(o.resolution, 'resolution', { min: 1, max: 1e4, fallback: 20 });
      let smallest = Number.POSITIVE_INFINITY;
      for (const r of this.radii) smallest = Math.min(smallest, r);
      if (!Number.isFinite(smallest))
        fail('range', 'resolution', 'sets the voxel from the smallest sphere, and there are none: give voxelSize');
      voxelSize = (2 * smallest) / resolution;
    }
    const shape = [0, 1, 2].map((a) => {
      const width = (region.max[a] as number) - (region.min[a] as number);
      // Whole voxels, a width that is a multiple of the voxel up to round-off counting as one.
      return Math.max(1, Math.floor((width / voxelSize) * (1 + 1e-9)));
    }) as [number, number, number];
    if (shape[0] * shape[1] * shape[2] > 4e9)
      fail(
        'range',
        o.voxelSize !== undefined ? 'voxelSize' : 'resolution',
        `makes ${shape.join(' × ')} voxels, more than 4e9`,
      );
    const solid = this.#current().voxelize(Float64Array.from(region.min), Float64Array.from(shape), voxelSize);
    return { solid, shape, voxelSize, origin: [...region.min] as [number, number, number] };
  }
}
