/**
 * The Lattice class: the public object over the native lattice.
 * @internal
 */
import { fail, ReleasedError } from '@peclet/core';
import { writeVti } from '@peclet/io';
import { type NativeLattice, type NativeLatticeInfo, type NativeStep, native } from './native.js';
import { type LatticeSettings, readAxis, readLatticeOptions, readRunOptions } from './options.js';
import type { Axis, LatticeOptions, RunOptions, RunReport, StepReport } from './types.js';

function cancelled(what: string, by: string): Error {
  return Object.assign(new Error(`${what}: cancelled by ${by}`), { code: 'PECLET_CANCELLED' });
}

function divergedError(what: string, steps: number): Error {
  return Object.assign(
    new Error(
      `${what}: the flow diverged (non-finite velocity) by step ${steps}; lower the body force or pressure difference ` +
        '(keep velocities well below 0.1 in lattice units) or raise the viscosity',
    ),
    { code: 'PECLET_DIVERGED' },
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
 * once the lattice is released or its module finalized.
 *
 * @example
 * ```ts
 * // Plane Poiseuille flow between walls 8 voxels apart
 * using lattice = new Lattice({ shape: [1, 8, 1], periodic: [true, false, true], bodyForce: [1e-6, 0, 0] });
 * lattice.step(5000);
 * lattice.velocity[3 * 4]; // F/(2ν)·(y + ½)(H − y − ½) at y = 4, to round-off
 * ```
 */
export class Lattice implements Disposable {
  readonly #native: NativeLattice;
  readonly #settings: LatticeSettings;
  readonly #shape: readonly [number, number, number];
  #releasedByCall = false;
  #running = false;

  /** Throws TypeError/RangeError naming the option at fault. */
  constructor(options: LatticeOptions) {
    const settings = readLatticeOptions(options);
    if (settings.executionSpace === 'webgpu') {
      fail('range', 'executionSpace', "'webgpu' is not available for flow in this version; use 'host'");
    }
    this.#native = new native.Lattice(settings.native);
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
    this.#native.release();
  }
  [Symbol.dispose](): void {
    this.release();
  }

  /** `[n0, n1, n2]`. */
  get shape(): readonly [number, number, number] {
    return this.#shape;
  }
  /** Lattice viscosity ν = (τ+ − ½)/3. */
  get viscosity(): number {
    return this.#settings.viscosity;
  }
  /** Where it computes: `'host'`. */
  get executionSpace(): 'host' | 'webgpu' {
    this.#native.info; // throws ReleasedError once released
    return 'host';
  }
  /** Layout, precision, node counts, relaxation times, steps taken, memory, bytes per update. */
  get info(): NativeLatticeInfo {
    return this.#native.info;
  }
  /** `'sparse'` (fluid nodes only) or `'dense'`. */
  get layout(): 'sparse' | 'dense' {
    return this.#native.info.layout;
  }
  get stepCount(): number {
    return this.#native.info.stepCount;
  }

  /** Velocity, 3 per voxel (ux, uy, uz), C order, lattice units; 0 in solid. Zero-copy. */
  get velocity(): Float64Array | Float32Array {
    return this.#native.velocity;
  }
  /** Density per voxel (rest density 1; pressure = density/3); 0 in solid. Zero-copy. */
  get density(): Float64Array | Float32Array {
    return this.#native.density;
  }
  /** Writable porosity ε per voxel (default 1), read by every step (Guo & Zhao's equilibrium and force). */
  get porosity(): Float64Array {
    return this.#native.porosity;
  }
  /** Writable body force per voxel, 3 per voxel, lattice units, added to `bodyForce`. */
  get force(): Float64Array {
    return this.#native.force;
  }
  /** The uniform body force (lattice units). */
  get bodyForce(): readonly [number, number, number] {
    return this.#native.info.bodyForce;
  }
  set bodyForce(value: readonly [number, number, number]) {
    this.#native.setBodyForce([...value] as [number, number, number]);
  }
  /** Sets the inlet and outlet densities of a lattice built with `pressure`. */
  setPressure(inletDensity: number, outletDensity: number): void {
    this.#native.setPressure(inletDensity, outletDensity);
  }

  /** Takes `steps` steps on the calling thread (and the module's pool). */
  step(steps = 1): StepReport {
    const n = Number.isInteger(steps) && steps >= 0 && steps <= 2 ** 40 ? steps : NaN;
    if (Number.isNaN(n)) fail('range', 'steps', `must be an integer in [0, 2^40], got ${String(steps)}`);
    const outcome = this.#native.step(n);
    if (outcome.status === 'diverged') throw divergedError('step', this.stepCount);
    if (outcome.status === 'cancelled') throw cancelled('step', 'the module finalizing');
    return this.#report(outcome);
  }

  /**
   * Steps off the JS thread until the mean velocity changes by less than `tolerance` (relative)
   * between checks, or `maxSteps`. Rejects with the signal's reason when aborted, with code
   * `PECLET_CANCELLED` when released or finalized, with code `PECLET_DIVERGED` if it blows up.
   */
  async run(options: RunOptions = {}): Promise<RunReport> {
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
        : signal?.aborted
          ? signal.reason
          : undefined;
    let steps = 0;
    let residual = Number.NaN;
    let previous: number | undefined;
    let mean: [number, number, number] = [0, 0, 0];
    try {
      for (;;) {
        const before = interruption();
        if (before !== undefined) throw before;
        const n = Math.min(checkInterval, maxSteps - steps);
        let outcome: NativeStep;
        try {
          const work = this.#native.stepAsync(n);
          cancel = work.cancel;
          outcome = await work.promise;
        } catch (error) {
          throw interruption() ?? error;
        } finally {
          cancel = undefined;
        }
        const after = interruption();
        if (after !== undefined) throw after;
        if (outcome.status === 'cancelled') throw cancelled('run', 'the module finalizing');
        steps += outcome.steps;
        if (outcome.status === 'diverged') throw divergedError('run', this.stepCount);
        mean = this.#mean(outcome);
        const magnitude = Math.hypot(...mean);
        if (previous !== undefined) {
          residual = magnitude === 0 ? (previous === 0 ? 0 : 1) : Math.abs(magnitude - previous) / magnitude;
        }
        previous = magnitude;
        onProgress?.({ steps, maxSteps, residual, meanVelocity: mean });
        const during = interruption();
        if (during !== undefined) throw during;
        const converged = tolerance > 0 && residual < tolerance;
        if (converged || steps >= maxSteps) return { steps, converged, residual, meanVelocity: mean };
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
  async writeVti(path: string, { voxelSize = 1 }: { voxelSize?: number } = {}): Promise<void> {
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

  #mean(outcome: NativeStep): [number, number, number] {
    const n = this.#shape[0] * this.#shape[1] * this.#shape[2];
    return [outcome.momentum[0] / n, outcome.momentum[1] / n, outcome.momentum[2] / n];
  }

  #report(outcome: NativeStep): StepReport {
    return { steps: outcome.steps, meanVelocity: this.#mean(outcome), mass: outcome.mass };
  }
}

export { ReleasedError };
