/**
 * The Lattice class: the public object over the native lattice.
 * @internal
 */

import { basename, dirname, join } from 'node:path';
import { argumentError, cancelledError, fail, ReleasedError, readNumber, readOptions, readVector3 } from '@peclet/core';
import { writePvti, writeVti } from '@peclet/io';
import { GpuPath } from './gpu/path.js';
import { flowModule, type NativeLattice, type NativeLatticeInfo, type NativeStep, native } from './native.js';
import { type LatticeSettings, readAxis, readLatticeOptions, readRunOptions } from './options.js';
import { projectSteps, Settling } from './settling.js';
import { Distributed, mpiOption, readMpi } from './slab.js';
import type { Axis, LatticeOptions, RunOptions, RunReport, StepReport } from './types.js';

/** @internal The distributed half of each Lattice built with `mpi`. */
export const distributedOf = new WeakMap<Lattice, Distributed>();

/** @internal The error of work stopped by a release, a finalize or the module's exit. */
export function cancelled(what: string, by: string): Error {
  return cancelledError(`${what}: cancelled by ${by}`);
}

/**
 * The error of a step that would make the state non-finite: `kept` says which state the lattice
 * holds (the native step never takes such a step).
 */
function divergedError(what: string, failing: number, kept: string): Error {
  return Object.assign(
    new Error(
      `${what}: the flow diverges at step ${failing} (a speed past 10 lattice units, a value not finite, or a per-voxel porosity outside (0, 1]); ${kept}. Lower the body force ` +
        'or pressure difference (keep velocities well below 0.1 in lattice units), check per-voxel force and porosity, ' +
        'or raise the viscosity',
    ),
    { code: 'PECLET_DIVERGED', step: failing },
  );
}

/**
 * A D3Q19 lattice-Boltzmann lattice over a voxel image, in lattice units (spacing 1, time step
 * 1, rest density 1): TRT collision (Λ = 3/16 by default) or BGK, halfway bounce-back on solid
 * voxels and on faces that are not periodic, a body force, an optional pressure drive, gray
 * voxels, and per-voxel porosity and force for volume-averaged (coupled) flow.
 *
 * Fields (`velocity`, 3 per voxel interleaved; `density`) are zero-copy views over the whole
 * image in C order (0 in solid voxels), refreshed at the end of every `step()` and `run()`;
 * `porosity` and `force` are writable views the next step reads. All are detached (length 0)
 * once the lattice is released or its module finalized. One view per buffer: each getter returns
 * the same array (`l.velocity === l.velocity`) until then, so reading it in a loop allocates
 * nothing.
 *
 * @example
 * ```ts
 * // Plane Poiseuille flow between walls 8 voxels apart
 * using lattice = new Lattice({ shape: [1, 8, 1], periodic: [true, false, true], bodyForce: [1e-6, 0, 0] });
 * lattice.step(5000);
 * lattice.velocity[3 * 4]; // F/(2ν)·(y + ½)(H − y − ½) at y = 4, to round-off
 * ```
 *
 * With `executionSpace: 'webgpu'` the same model runs in WGSL compute shaders (f32, fluid nodes
 * only): `run()` is the way to step (`step()` throws a TypeError), and `velocity`/`density` are
 * copies of the fields read back after the last batch of steps.
 */
export class Lattice implements Disposable {
  // On `webgpu` the native lattice still validates the options, holds the lifecycle (id,
  // release, the module's finalize) and answers `info`; the device path computes.
  readonly #native: NativeLattice;
  readonly #gpu: GpuPath | undefined;
  readonly #settings: LatticeSettings;
  readonly #shape: readonly [number, number, number];
  readonly #mpi: Distributed | undefined;
  #releasedByCall = false;
  #running = false;
  // One view per buffer (host): the same array until release or finalize detaches it (over MPI,
  // this rank's planes of it).
  readonly #velocity = flowModule.zeroCopyView(() => this.#field(this.#native.velocity, 3));
  readonly #density = flowModule.zeroCopyView(() => this.#field(this.#native.density, 1));
  readonly #porosity = flowModule.zeroCopyView(() => this.#field(this.#native.porosity, 1));
  readonly #force = flowModule.zeroCopyView(() => this.#field(this.#native.force, 3));

  /**
   * Throws TypeError/RangeError naming the option at fault. With `mpi` the construction is
   * collective: every rank builds its part, and when any rank's options are refused every rank
   * throws.
   */
  constructor(options: LatticeOptions) {
    const mpiValue = mpiOption(options);
    if (mpiValue !== undefined) {
      const mpi = readMpi(mpiValue, 'mpi');
      let settings: LatticeSettings | undefined;
      let error: unknown;
      try {
        settings = readLatticeOptions(options);
      } catch (e) {
        error = e;
      }
      this.#mpi = new Distributed(mpi, settings?.native, error, (o) => new native.Lattice(o));
      this.#native = this.#mpi.native;
      this.#gpu = undefined;
      this.#settings = settings as LatticeSettings;
      this.#shape = Object.freeze([...this.#mpi.slab.shape]) as readonly [number, number, number];
      distributedOf.set(this, this.#mpi);
      return;
    }
    const settings = readLatticeOptions(options);
    if (settings.mpi !== undefined) fail('type', 'mpi', 'must be a data property of the options (not a getter)');
    this.#native = new native.Lattice(settings.native);
    if (settings.executionSpace === 'webgpu') {
      const info = this.#native.info;
      try {
        this.#gpu = new GpuPath({
          module: flowModule,
          native: settings.native,
          tauPlus: info.tauPlus,
          tauMinus: info.tauMinus,
        });
      } catch (error) {
        this.#native.release();
        throw error;
      }
    }
    this.#settings = settings;
    this.#shape = Object.freeze([...settings.native.shape]) as readonly [number, number, number];
  }

  /** Id in the module (`Lattice#<id>` in errors and the trace). */
  get id(): number {
    return this.#native.id;
  }
  get released(): boolean {
    return this.#releasedByCall || this.#native.released;
  }
  /** Frees the native state; idempotent. A run in flight stops at its next step and rejects. */
  release(): void {
    this.#releasedByCall = true;
    this.#gpu?.release();
    this.#native.release();
  }
  [Symbol.dispose](): void {
    this.release();
  }

  /** `[n0, n1, n2]`: the whole lattice's, over every rank with `mpi`. */
  get shape(): readonly [number, number, number] {
    return this.#shape;
  }
  /**
   * With `mpi`: this rank, the number of ranks, the planes along axis 0 this rank holds
   * (`start`, `count`), and the seconds it spent in steps (`stepSeconds`) and in halo exchanges
   * (`haloSeconds`: sending and receiving its edge planes, waiting for its neighbours included,
   * and agreeing with every rank on each step's outcome); undefined otherwise.
   */
  get slab():
    | { rank: number; size: number; start: number; count: number; stepSeconds: number; haloSeconds: number }
    | undefined {
    const d = this.#mpi;
    if (d === undefined) return undefined;
    const { rank, size, start, count } = d.slab;
    return { rank, size, start, count, stepSeconds: d.stepSeconds, haloSeconds: d.haloSeconds };
  }
  /** Lattice viscosity ν = (τ+ − ½)/3. */
  get viscosity(): number {
    return this.#settings.viscosity;
  }
  /** Where it computes: `'host'` (CPU thread pool) or `'webgpu'` (compute shaders, f32). */
  get executionSpace(): 'host' | 'webgpu' {
    this.#native.info; // throws ReleasedError once released
    return this.#gpu === undefined ? 'host' : 'webgpu';
  }
  /**
   * Layout, streaming scheme (`'in-place'`: one copy of the populations, the AA pattern, also
   * on `webgpu`; `'two-lattice'`: pull between two copies, what `sdf` walls need),
   * precision, node counts, relaxation times, steps taken, memory, bytes per update. On
   * `webgpu` `bytes` counts the device buffers (0 before the first run).
   */
  get info(): NativeLatticeInfo {
    const info = this.#native.info;
    const gpu = this.#gpu;
    return gpu === undefined ? info : { ...info, streaming: 'in-place', stepCount: gpu.stepCount, bytes: gpu.bytes };
  }
  /** `'sparse'` (fluid nodes only) or `'dense'`. */
  get layout(): 'sparse' | 'dense' {
    return this.#native.info.layout;
  }
  get stepCount(): number {
    return this.info.stepCount;
  }

  /**
   * Velocity, 3 per voxel (ux, uy, uz), C order, lattice units; 0 in solid. Zero-copy (host); on
   * `webgpu` a copy of the fields read back after the last batch of steps.
   */
  get velocity(): Float64Array | Float32Array {
    if (this.#gpu !== undefined) return this.#liveGpu().velocity();
    return this.#running ? this.#field(this.#native.velocity, 3) : this.#velocity();
  }
  /**
   * Density per voxel (rest density 1; pressure = density/3); 0 in solid. Zero-copy (host); on
   * `webgpu` a copy read back after the last batch of steps.
   */
  get density(): Float64Array | Float32Array {
    if (this.#gpu !== undefined) return this.#liveGpu().density();
    return this.#running ? this.#field(this.#native.density, 1) : this.#density();
  }
  /**
   * Writable porosity ε per voxel (default 1), read by every step (Guo & Zhao's equilibrium and
   * force). Not on `webgpu` (TypeError).
   */
  get porosity(): Float64Array {
    if (this.#gpu !== undefined) this.#hostOnly('porosity');
    return this.#running ? this.#field(this.#native.porosity, 1) : this.#porosity();
  }
  /** Writable body force per voxel, 3 per voxel, lattice units, added to `bodyForce`. Not on `webgpu`. */
  get force(): Float64Array {
    if (this.#gpu !== undefined) this.#hostOnly('force');
    return this.#running ? this.#field(this.#native.force, 3) : this.#force();
  }

  // A field of the native lattice as the getters hand it out: over MPI, this rank's planes.
  #field<T extends Float64Array | Float32Array>(field: T, components: number): T {
    return this.#mpi === undefined ? field : this.#mpi.owned(field, components);
  }

  #liveGpu(): GpuPath {
    this.#native.info; // ReleasedError once released
    return this.#gpu as GpuPath;
  }
  #hostOnly(what: string): never {
    this.#native.info;
    return fail(
      'type',
      what,
      `per-voxel ${what} is not available on executionSpace 'webgpu' (Lattice#${this.id}); use executionSpace 'host'`,
    );
  }
  /** The uniform body force (lattice units). */
  get bodyForce(): readonly [number, number, number] {
    return this.#native.info.bodyForce;
  }
  set bodyForce(value: readonly [number, number, number]) {
    this.#native.setBodyForce(readVector3(value, 'bodyForce', { maxMagnitude: 1 }));
    this.#gpu?.setBodyForce(this.#native.info.bodyForce);
  }
  /** Sets the inlet and outlet densities of a lattice built with `pressure`. */
  setPressure(inletDensity: number, outletDensity: number): void {
    this.#native.setPressure(inletDensity, outletDensity);
    this.#gpu?.setPressure(inletDensity, outletDensity);
  }

  /**
   * Takes `steps` steps on the calling thread (and the module's pool). On `webgpu` a TypeError:
   * the device steps asynchronously, through {@link run}. A step from a state that has diverged
   * (a speed past 10 lattice units, a non-finite velocity or density: too strong a drive, NaN
   * written into `force`; or a `porosity` outside (0, 1]) is not taken: the call throws an
   * Error with code `PECLET_DIVERGED` and leaves the lattice as it was before the call: a call of
   * more than one step keeps a copy of the populations for that (allocated on the first such call
   * and reused; `step(1)` needs none).
   */
  step(steps = 1): StepReport {
    if (this.#gpu !== undefined) {
      this.#native.info;
      fail(
        'type',
        'step',
        `Lattice#${this.id} runs on executionSpace 'webgpu', which steps asynchronously: use await run({ maxSteps, tolerance: 0 })`,
      );
    }
    const n = Number.isInteger(steps) && steps >= 0 && steps <= 2 ** 40 ? steps : NaN;
    if (this.#mpi !== undefined) return this.#stepMpi(this.#mpi, n, steps);
    if (Number.isNaN(n)) fail('range', 'steps', `must be an integer in [0, 2^40], got ${String(steps)}`);
    const outcome = this.#native.step(n);
    if (outcome.status === 'diverged') {
      // The native call went back to the state it started from.
      const now = this.stepCount;
      throw divergedError(
        'step',
        outcome.divergedAt ?? now + 1,
        `the lattice is as it was before this call (step ${now})`,
      );
    }
    if (outcome.status === 'cancelled') throw cancelled('step', 'the module finalizing');
    return this.#report(outcome);
  }

  /**
   * Steps off the JS thread until the mean velocity changes by less than `tolerance` (relative)
   * between checks, or `maxSteps`. Rejects with the signal's reason when aborted, with code
   * `PECLET_CANCELLED` when released or finalized, with code `PECLET_DIVERGED` at a step from a
   * diverged state (as {@link step} says) — the steps before it stand, as after an abort: the
   * lattice holds the last finite state and `stepCount` counts it.
   */
  async run(options: RunOptions = {}): Promise<RunReport> {
    if (this.#mpi !== undefined) return this.#runMpi(this.#mpi, options);
    const { maxSteps, tolerance, checkInterval, signal, onProgress } = readRunOptions(options);
    if (this.#running) fail('type', 'run', `Lattice#${this.id} is already running`);
    this.#native.info; // ReleasedError now, not in a later microtask
    this.#running = true;
    let cancel: (() => void) | undefined;
    const onAbort = () => cancel?.();
    signal?.addEventListener('abort', onAbort, { once: true });
    const interruption = (): unknown =>
      this.released
        ? cancelled('run', this.#releasedByCall ? 'release()' : 'finalize()')
        : this.#gpu !== undefined && flowModule.exiting
          ? cancelled('run', 'finalizeAsync()') // no new GPU work starts once the module is exiting
          : signal?.aborted
            ? signal.reason
            : undefined;
    let steps = 0;
    const settling = new Settling();
    let mean: [number, number, number] = [0, 0, 0];
    try {
      for (;;) {
        const before = interruption();
        if (before !== undefined) throw before;
        const n = Math.min(checkInterval, maxSteps - steps);
        let outcome: NativeStep;
        try {
          if (this.#gpu !== undefined) {
            outcome = await this.#gpuBatch(this.#gpu, n);
          } else {
            const work = this.#native.stepAsync(n);
            cancel = work.cancel;
            outcome = await work.promise;
          }
        } catch (error) {
          throw interruption() ?? error;
        } finally {
          cancel = undefined;
        }
        const after = interruption();
        if (after !== undefined) throw after;
        if (outcome.status === 'cancelled') throw cancelled('run', 'the module finalizing');
        steps += outcome.steps;
        if (outcome.status === 'diverged') {
          // On webgpu the copies of the fields become those of the state kept, as on the host.
          if (this.#gpu !== undefined) await this.#gpu.refreshFields();
          const last = this.stepCount;
          throw divergedError(
            'run',
            outcome.divergedAt ?? last + 1,
            `the lattice holds the state of step ${last}, the last finite one`,
          );
        }
        mean = this.#mean(outcome);
        settling.update(Math.hypot(...mean));
        const residual = settling.residual;
        onProgress?.({
          steps,
          maxSteps,
          residual,
          meanVelocity: mean,
          projectedSteps: projectSteps(steps, settling.checksToSettle(tolerance), checkInterval, maxSteps),
        });
        const during = interruption();
        if (during !== undefined) throw during;
        const converged = settling.settled(tolerance);
        if (converged || steps >= maxSteps) {
          if (this.#gpu !== undefined) {
            try {
              await this.#gpu.refreshFields();
            } catch (error) {
              throw interruption() ?? error;
            }
            const last = interruption();
            if (last !== undefined) throw last;
          }
          return { steps, converged, residual, meanVelocity: mean };
        }
      }
    } finally {
      this.#running = false;
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /**
   * Mean volumetric flux through a plane normal to `axis` (lattice units: voxel³ per step per
   * plane); in steady flow every plane carries the same.
   */
  flux(axis: Axis | 0 | 1 | 2): number {
    if (this.#mpi !== undefined) return this.#fluxMpi(this.#mpi, axis);
    const a = readAxis(axis, 'axis');
    const u = this.velocity;
    let sum = 0;
    for (let i = a; i < u.length; i += 3) sum += u[i] as number;
    return sum / this.#shape[a];
  }

  /**
   * Writes the solid, density and velocity fields as a VTK image (`.vti`, cell data, spacing
   * `voxelSize`) for ParaView, atomically.
   */
  async writeVti(path: string, options?: { voxelSize?: number }): Promise<void> {
    if (this.#mpi !== undefined) return this.#writePvti(this.#mpi, path, options);
    // The arguments are checked before the lattice's state, so a bad voxel size is named as such
    // whether or not the lattice is running.
    const o = readOptions(options, 'options', ['voxelSize'], { optional: true });
    const voxelSize = readNumber(o.voxelSize, 'voxelSize', { above: 0, unit: 'm', fallback: 1 });
    const velocity = this.velocity;
    const density = this.density;
    const solid = new Uint8Array(density.length);
    for (let i = 0; i < solid.length; i++) solid[i] = density[i] === 0 ? 1 : 0;
    await writeVti(path, {
      shape: [...this.#shape] as [number, number, number],
      spacing: voxelSize,
      cellData: { solid, density, velocity: { values: velocity, components: 3 } },
    });
  }

  // ---- With mpi: every call below is collective, and checks with the other ranks before it
  // starts that every rank can (so that a rank that throws never leaves the others waiting).

  /** Throws on every rank when any rank's lattice is released or its call refused. */
  #together(d: Distributed, what: string, error: unknown, agreed: readonly number[] = []): void {
    // A call made while this rank's run() is between batches: refused here alone, before any
    // collective call (the other ranks are in that run, whose collective calls go on).
    if (this.#running) fail('type', what, `Lattice#${this.id} is running over MPI ranks: await its run() first`);
    // MPI gone (finalized, which finalizes flow first): no rank can be asked; this lattice's own error.
    if (!d.slab.mpi.initialized()) {
      this.#native.info;
      fail('type', what, 'MPI is no longer initialized (mpi.finalize() ran): no collective call can run');
    }
    const { released, refused, agreed: same } = d.ready(error !== undefined, agreed);
    if (error !== undefined) throw error;
    if (this.released) this.#native.info; // ReleasedError on the rank that released it
    if (released) throw cancelled(what, 'release() or finalize() on another rank');
    if (refused) fail('range', what, 'was refused on another rank (the error there says why); no rank ran it');
    if (!same)
      fail('range', what, 'was called with different arguments on different ranks; every rank must pass the same');
  }

  #stepMpi(d: Distributed, n: number, steps: unknown): StepReport {
    let error: unknown;
    if (Number.isNaN(n)) {
      error = argumentError('range', 'steps', `must be an integer in [0, 2^40], got ${String(steps)}`);
    } else if (n > 1 && !this.released) {
      try {
        d.native.saveState();
      } catch (e) {
        error = e;
      }
    }
    this.#together(d, 'step', error, [n]);
    let outcome: ReturnType<Distributed['advance']>;
    try {
      outcome = d.advance(n, false);
    } catch (e) {
      // MPI failed mid-call: as before the call, where a copy was kept.
      if (n > 1 && !this.released) d.native.restoreState();
      throw e;
    }
    if (outcome.divergedAt !== undefined) {
      // Every rank took the same steps: every rank goes back (its fields are those of before).
      if (n > 1) d.native.restoreState();
      const now = this.stepCount;
      throw divergedError('step', outcome.divergedAt, `the lattice is as it was before this call (step ${now})`);
    }
    if (outcome.cancelled) throw cancelled('step', 'the module finalizing');
    const m = d.moments();
    return { steps: outcome.steps, meanVelocity: this.#meanOf(m.momentum), mass: m.mass };
  }

  async #runMpi(d: Distributed, options: RunOptions): Promise<RunReport> {
    let settings: ReturnType<typeof readRunOptions> | undefined;
    let error: unknown;
    try {
      settings = readRunOptions(options);
    } catch (e) {
      error = e;
    }
    const agreed = settings ? [settings.maxSteps, settings.tolerance, settings.checkInterval] : [];
    this.#together(d, 'run', error, agreed);
    const { maxSteps, tolerance, checkInterval, signal, onProgress } = settings as NonNullable<typeof settings>;
    this.#running = true;
    let steps = 0;
    let pending: unknown; // an error of onProgress, thrown once the other ranks know
    const settling = new Settling();
    try {
      for (;;) {
        const before =
          pending ??
          (this.released
            ? cancelled('run', this.#releasedByCall ? 'release()' : 'finalize()')
            : signal?.aborted
              ? signal.reason
              : undefined);
        const { released, refused } = d.ready(before !== undefined);
        if (before !== undefined) throw before;
        if (released || refused) throw cancelled('run', 'another rank stopping (aborted, released or finalized)');
        const outcome = d.advance(Math.min(checkInterval, maxSteps - steps), true);
        steps += outcome.steps;
        if (outcome.divergedAt !== undefined) {
          throw divergedError(
            'run',
            outcome.divergedAt,
            `the lattice holds the state of step ${this.stepCount}, the last finite one`,
          );
        }
        if (outcome.cancelled) throw cancelled('run', 'the module finalizing');
        const mean = this.#meanOf(d.moments().momentum);
        settling.update(Math.hypot(...mean));
        const residual = settling.residual;
        try {
          onProgress?.({
            steps,
            maxSteps,
            residual,
            meanVelocity: mean,
            projectedSteps: projectSteps(steps, settling.checksToSettle(tolerance), checkInterval, maxSteps),
          });
        } catch (e) {
          pending = e;
        }
        // Every rank decides alike: the sums are the same on every rank.
        const converged = settling.settled(tolerance);
        if (converged || steps >= maxSteps) {
          if (pending !== undefined) throw pending;
          return { steps, converged, residual, meanVelocity: mean };
        }
        // Signals, timers and I/O between batches.
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      this.#running = false;
    }
  }

  #fluxMpi(d: Distributed, axis: unknown): number {
    let a: 0 | 1 | 2 = 0;
    let error: unknown;
    try {
      a = readAxis(axis, 'axis');
    } catch (e) {
      error = e;
    }
    this.#together(d, 'flux', error, [a]);
    const u = this.#native.velocity;
    const n = d.slab.planeSize;
    const [sum] = d.slab.sums(1, (_plane, local, out) => {
      let s = 0;
      for (let v = local * n; v < (local + 1) * n; v++) s += u[3 * v + a] as number;
      out[0] = s;
    });
    return (sum as number) / (this.#shape[a] as number);
  }

  /**
   * The parallel image: each rank writes its planes as `<name>_<rank>.vti` beside `path`, then
   * rank 0 writes `path` (`.pvti`) once every piece is written.
   */
  async #writePvti(d: Distributed, path: string, options?: { voxelSize?: number }): Promise<void> {
    let error: unknown;
    let voxelSize = 1;
    try {
      const o = readOptions(options, 'options', ['voxelSize'], { optional: true });
      voxelSize = readNumber(o.voxelSize, 'voxelSize', { above: 0, unit: 'm', fallback: 1 });
      if (typeof path !== 'string' || !path.endsWith('.pvti')) {
        fail(
          'type',
          'path',
          'of a lattice over MPI ranks must end in .pvti (a parallel image, one .vti piece per rank)',
        );
      }
    } catch (e) {
      error = e;
    }
    this.#together(d, 'writeVti', error, [voxelSize]);
    const { slab } = d;
    const stem = basename(path, '.pvti');
    const piece = (rank: number) => `${stem}_${rank}.vti`;
    const pieceShape: [number, number, number] = [slab.count, slab.shape[1], slab.shape[2]];
    const density = this.density;
    const solid = new Uint8Array(density.length);
    for (let i = 0; i < solid.length; i++) solid[i] = density[i] === 0 ? 1 : 0;
    const type = d.precision === 'f32' ? 'Float32' : 'Float64';
    let failure: unknown;
    try {
      await writeVti(join(dirname(path), piece(slab.rank)), {
        shape: pieceShape,
        offset: [slab.start, 0, 0],
        spacing: voxelSize,
        cellData: { solid, density, velocity: { values: this.velocity, components: 3 } },
      });
    } catch (e) {
      failure = e;
    }
    this.#together(d, 'writeVti', failure);
    if (slab.rank === 0) {
      const counts = slab.counts;
      let start = 0;
      try {
        await writePvti(path, {
          shape: [...slab.shape],
          spacing: voxelSize,
          pieces: counts.map((count, rank) => {
            const p = { source: piece(rank), offset: [start, 0, 0], shape: [count, slab.shape[1], slab.shape[2]] };
            start += count;
            return p;
          }),
          cellData: { solid: { type: 'UInt8' }, density: { type }, velocity: { type, components: 3 } },
        });
      } catch (e) {
        failure = e;
      }
    }
    this.#together(d, 'writeVti', failure);
  }

  #meanOf(momentum: readonly number[]): [number, number, number] {
    const n = this.#shape[0] * this.#shape[1] * this.#shape[2];
    return [(momentum[0] as number) / n, (momentum[1] as number) / n, (momentum[2] as number) / n];
  }

  // One batch on the device: `steps` steps, then the sums over the state reached.
  async #gpuBatch(gpu: GpuPath, steps: number): Promise<NativeStep> {
    await gpu.prepare();
    if (this.released) return { status: 'cancelled', steps: 0, momentum: [0, 0, 0], speed: 0, mass: 0 };
    const sums = await gpu.advance(steps);
    // Stopped: a step from the state reached would diverge (the host's rule, before each step).
    return { status: sums.finite && !sums.stopped ? 'done' : 'diverged', ...sums, steps: sums.taken };
  }

  #mean(outcome: NativeStep): [number, number, number] {
    return this.#meanOf(outcome.momentum);
  }

  #report(outcome: NativeStep): StepReport {
    return { steps: outcome.steps, meanVelocity: this.#mean(outcome), mass: outcome.mass };
  }
}

export { ReleasedError };
