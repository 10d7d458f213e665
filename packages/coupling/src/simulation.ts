/**
 * CoupledSimulation: spheres of a @peclet/dem Simulation in a fluid on a @peclet/flow lattice,
 * unresolved (volume-averaged) CFD-DEM.
 * @internal
 */
import {
  cancelledError,
  fail,
  ReleasedError,
  readBoolean,
  readEnum,
  readFunction,
  readInteger,
  readNumber,
  readOptions,
  readSignal,
  readVector3,
} from '@peclet/core';
import { Simulation } from '@peclet/dem';
import { Lattice } from '@peclet/flow';
import { type CouplerArrays, couplingModule, type ExchangeReport, type NativeCoupler, native } from './native.js';

/** A drag closure: Di Felice (1994), Beetstra, van der Hoef & Kuipers (2007), Gidaspow (1994). */
export type DragModel = 'di-felice' | 'beetstra' | 'gidaspow';

const DRAGS: readonly DragModel[] = ['di-felice', 'beetstra', 'gidaspow'];
const AXES = ['x', 'y', 'z'] as const;

/** The fluid's drive: a mean superficial velocity (m/s) held by the body force, or a mean pressure gradient (Pa/m). */
export type Drive =
  | { readonly superficialVelocity: readonly [number, number, number] }
  | { readonly pressureGradient: readonly [number, number, number] };

export interface FluidOptions {
  /** Edge of the cubic fluid cells (m): at least the largest sphere diameter; the box's widths must be whole multiples of it. */
  readonly cellSize: number;
  /** Dynamic viscosity μ (Pa·s). */
  readonly viscosity: number;
  /** Density ρ (kg/m³). */
  readonly density: number;
  /** Default: no drive (`pressureGradient: [0, 0, 0]`). */
  readonly drive?: Drive;
  /** Per axis or for all (default true): a fluid face that is not periodic is a no-slip wall. */
  readonly periodic?: boolean | readonly [boolean, boolean, boolean];
  /** The smallest void fraction the fluid and the closures see (default 0.3). */
  readonly minVoidFraction?: number;
}

export interface CoupledSimulationOptions {
  /** The spheres: a dem Simulation you built, with at least one sphere. Held, not owned. */
  readonly particles: Simulation;
  readonly fluid: FluidOptions;
  /** Default 'di-felice'. */
  readonly drag?: DragModel;
  /** `substeps`: dem steps per fluid step (default: the most the stability limits allow). */
  readonly dem?: { readonly substeps?: number };
  /** Threads of the fluid lattice (CPU budget by default). */
  readonly threads?: number;
  /**
   * Take out of what each sphere sees what its own presence adds on average: its own volume in
   * the void fraction and the velocity its own drag's reaction induced in its cells, weighted by
   * the structure factor of the spheres around it (default true; see the README's Method).
   */
  readonly selfCorrection?: boolean;
}

/** How the fluid time step was chosen: each limit (s) and the one that decided. */
export interface TimestepReport {
  /** The fluid step (s) = substeps × the dem time step. */
  readonly timestep: number;
  readonly substeps: number;
  readonly demTimestep: number;
  readonly limits: {
    /** Lattice viscosity 1/6 (τ = 1). */
    readonly viscous: number;
    /** Lattice speed 0.1 at the reference speed. */
    readonly mach: number;
    /** 0.2 × the fastest sphere response m/β. */
    readonly particleDrag: number;
    /**
     * The lattice's pressure: the drag of every sphere at the densest cell's void fraction and
     * the reference speed, over the smallest cross-section of the box, changes the lattice
     * density by at most 0.1 (the drag on the fluid is implicit: not a limit of its own).
     */
    readonly pressure: number;
  };
  /** The speed (m/s) the Mach limit was set for: the drive's superficial velocity or the largest sphere's terminal velocity. */
  readonly referenceSpeed: number;
  /** Lattice viscosity ν Δt/Δx² of the fluid. */
  readonly latticeViscosity: number;
}

/** What a coupled step or run reports. */
export interface CoupledStepReport {
  /** Coupled (fluid) steps taken by the call. */
  readonly steps: number;
  readonly time: number;
  /** Of the last exchange. */
  readonly maxReynolds: number;
  readonly minVoidFraction: number;
  readonly cappedCells: number;
  /** The mean superficial velocity (m/s) of the fluid. */
  readonly superficialVelocity: [number, number, number];
}

export interface CoupledRunOptions {
  /** Simulated time (s), rounded up to whole fluid steps; or `steps`. */
  readonly time?: number;
  readonly steps?: number;
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: { steps: number; totalSteps: number; time: number }) => void;
  /** ms between progress calls and yields to the event loop (default 100). */
  readonly progressInterval?: number;
}

function cancelled(what: string, by: string): Error {
  return cancelledError(`${what} cancelled: ${by}`);
}

// Whole number of cells along a width, or a RangeError naming fluid.cellSize.
function cellsAlong(width: number, cellSize: number, axis: number): number {
  const n = Math.round(width / cellSize);
  if (n < 1 || Math.abs(n * cellSize - width) > 1e-9 * width) {
    fail(
      'range',
      'fluid.cellSize',
      `the box's width along ${AXES[axis]} (${width} m) is not a whole number of cells of ${cellSize} m`,
    );
  }
  return n;
}

/**
 * Spheres (`@peclet/dem`) in a fluid (`@peclet/flow`'s lattice, volume-averaged) that push on
 * each other: unresolved CFD-DEM. See the package README for the method, units and limits.
 *
 * @example
 * ```ts
 * const particles = new Simulation({ box: { min: [0, 0, 0], max: [0.02, 0.02, 0.04] }, periodic: [true, true, false] });
 * particles.deposit({ count: 2000, radius: 5e-4, density: 2500 });
 * const bed = new CoupledSimulation({
 *   particles,
 *   fluid: { cellSize: 2e-3, viscosity: 1e-3, density: 1000, drive: { superficialVelocity: [0, 0, 2e-3] } },
 *   drag: 'di-felice',
 * });
 * await bed.run({ time: 1 });
 * console.log(bed.pressureDrop('z'), 'Pa');
 * ```
 */
export class CoupledSimulation implements Disposable {
  readonly #particles: Simulation;
  readonly #lattice: Lattice;
  readonly #coupler: NativeCoupler;
  readonly #shape: [number, number, number];
  readonly #cellSize: number;
  readonly #fluidDensity: number;
  readonly #periodic: [boolean, boolean, boolean];
  readonly #gravity: [number, number, number];
  readonly #timestep: TimestepReport;
  readonly #scales: { velocityScale: number; pressureScale: number; forceScale: number };
  #superficial: [number, number, number] | undefined;
  #drive: [number, number, number];
  readonly #limits: { particle: number };
  // One view per buffer, held weakly: the same arrays until a new sphere count (which
  // reallocates them after detaching the old ones) or release.
  readonly #arrays = couplingModule.zeroCopyView(
    () => this.#coupler.arrays(),
    (arrays) => arrays.voidFraction.length !== 0 && arrays.dragForces.length !== 0,
  );
  #time = 0;
  #stepCount = 0;
  #running = false;
  #last: ExchangeReport | undefined;
  #releasedByCall = false;
  readonly #timings = { coupling: 0, fluid: 0, particles: 0 };
  // The spheres' masses, 0 for fixed ones (no response to limit), for as many spheres as counted.
  #masses: Float64Array = new Float64Array(0);
  // Mean lattice force (εG + f) of the last fluid step, for the drive's controller.

  constructor(options: CoupledSimulationOptions) {
    couplingModule.assertLive('CoupledSimulation');
    const o = readOptions(options, 'options', ['particles', 'fluid', 'drag', 'dem', 'threads', 'selfCorrection']);
    // The options' shape first (a TypeError naming fluid, whatever the particles are), then what
    // the values hold.
    const fluid = readOptions(o.fluid, 'fluid', [
      'cellSize',
      'viscosity',
      'density',
      'drive',
      'periodic',
      'minVoidFraction',
    ]);
    if (!(o.particles instanceof Simulation)) fail('type', 'particles', 'must be a @peclet/dem Simulation');
    const particles = o.particles;
    let count: number;
    try {
      count = particles.sphereCount;
    } catch (error) {
      // An object made from the prototype without the constructor has none of its state.
      if (!(error instanceof ReleasedError))
        fail('type', 'particles', 'must be a @peclet/dem Simulation built with new');
      throw relabel(error, 'particles: the Simulation passed in');
    }
    if (count < 1) fail('range', 'particles', 'has no spheres: add them before coupling');
    const cellSize = readNumber(fluid.cellSize, 'fluid.cellSize', { above: 0, unit: 'm' });
    const mu = readNumber(fluid.viscosity, 'fluid.viscosity', { min: 1e-12, max: 1e12, unit: 'Pa·s' });
    const rho = readNumber(fluid.density, 'fluid.density', { min: 1e-9, max: 1e9, unit: 'kg/m³' });
    const minVoidFraction = readNumber(fluid.minVoidFraction, 'fluid.minVoidFraction', {
      above: 0.05,
      below: 1,
      fallback: 0.3,
    });
    const periodic = readPeriodic(fluid.periodic);
    const drag = readEnum(o.drag, 'drag', DRAGS, 'di-felice');
    const dem = readOptions(o.dem, 'dem', ['substeps'], { optional: true });
    const substepsAsked =
      dem.substeps === undefined ? undefined : readInteger(dem.substeps, 'dem.substeps', { min: 1, max: 1e6 });
    const threads = o.threads === undefined ? undefined : readInteger(o.threads, 'threads', { min: 1, max: 1024 });
    const selfCorrection = readBoolean(o.selfCorrection, 'selfCorrection', true);
    const { superficial, drive } = readDrive(fluid.drive, 'fluid.drive');

    // The fluid grid is the dem box.
    const box = particles.box;
    const dpPeriodic = particles.periodic;
    const shape = [0, 1, 2].map((a) => cellsAlong((box.max[a] as number) - (box.min[a] as number), cellSize, a)) as [
      number,
      number,
      number,
    ];
    for (let a = 0; a < 3; a++) {
      if (dpPeriodic[a] && !periodic[a])
        fail('range', 'fluid.periodic', `the particles are periodic along ${AXES[a]}: the fluid must be too`);
    }
    const radii = particles.radii;
    const masses = particles.masses;
    const fixed = particles.fixed;
    let rMax = 0;
    let fastestParticle = 0;
    let totalDrag = 0; // N
    let terminal = 0;
    const gravity = particles.gravity;
    const g = Math.hypot(...gravity);
    const nu = mu / rho;
    for (let i = 0; i < radii.length; i++) {
      const r = radii[i] as number;
      if (2 * r > cellSize)
        fail(
          'range',
          'fluid.cellSize',
          `cells of ${cellSize} m are smaller than sphere ${i} (diameter ${2 * r} m): unresolved coupling needs cells of at least a diameter (2 to 5 are usual)`,
        );
      if (r <= rMax) continue;
      rMax = r;
    }
    const volume = (r: number) => (4 / 3) * Math.PI * r ** 3;
    // The largest spheres settle fastest; among them the heaviest (one bisection, not one per sphere).
    let excess = 0;
    for (let i = 0; i < radii.length; i++) {
      if (radii[i] === rMax) excess = Math.max(excess, Math.abs((masses[i] as number) - rho * volume(rMax)));
    }
    terminal = terminalVelocity(drag, 2 * rMax, excess * g, mu, rho);
    const referenceSpeed = Math.max(superficial ? Math.hypot(...superficial) : 0, terminal, 1e-12);
    const coupler = new native.Coupler({
      shape,
      cellSize,
      origin: [...box.min],
      periodic,
      drag,
      viscosity: mu,
      density: rho,
      minVoidFraction,
      selfCorrection,
      spheres: count,
    });
    let lattice: Lattice;
    let plan: TimestepReport;
    // The stiffest responses: the closures at the void fraction of the densest cell now and the
    // largest slip expected (the reference speed through that void fraction). Every exchange
    // checks the state it sees against the same limits.
    const densest = Math.max(minVoidFraction, coupler.densestCell(particles.positions, radii));
    const slip = referenceSpeed / densest;
    // The drag the fluid carries: a fixed sphere's at the drive's superficial velocity through the
    // densest cell; a free one's its buoyant weight (settling or fluidized; without gravity as if
    // it were fixed).
    const through = (superficial ? Math.hypot(...superficial) : 0) / densest;
    for (let i = 0; i < radii.length; i++) {
      const r = radii[i] as number;
      const beta = native.dragCoefficient(drag, densest, 2 * r, slip, mu, rho);
      const held = native.dragCoefficient(drag, densest, 2 * r, through, mu, rho) * through;
      const weight = Math.abs((masses[i] as number) - rho * volume(r)) * g;
      totalDrag += fixed[i] !== 0 || g === 0 ? held : weight;
      if (fixed[i] === 0) fastestParticle = Math.max(fastestParticle, beta / (masses[i] as number));
    }
    try {
      const limits = {
        viscous: (cellSize * cellSize) / (6 * nu),
        mach: (0.1 * cellSize) / referenceSpeed,
        particleDrag: fastestParticle > 0 ? 0.2 / fastestParticle : Number.POSITIVE_INFINITY,
        pressure: Number.POSITIVE_INFINITY,
      };
      // δρ = 3 Δp Δt²/(ρ Δx²) ≤ 0.1 (lattice units: c_s² = 1/3), Δp the whole drag over the
      // smallest cross-section (a pressure gradient given is checked against the step chosen,
      // below).
      const [x, y, z] = shape.map((n) => n * cellSize) as [number, number, number];
      const section = Math.min(y * z, x * z, x * y);
      const drop = totalDrag / section;
      if (drop > 0) limits.pressure = cellSize * Math.sqrt((0.1 * rho) / (3 * drop));
      const demTimestep = particles.timestep;
      const limit = Math.min(limits.viscous, limits.mach, limits.particleDrag, limits.pressure);
      if (demTimestep > limit) {
        fail(
          'range',
          'particles',
          `its time step ${demTimestep} s is above the coupling's stability limit ${limit} s (viscous ${limits.viscous}, Mach ${limits.mach}, particle drag ${limits.particleDrag}, pressure ${limits.pressure}): give the Simulation a smaller timestep`,
        );
      }
      const substeps = substepsAsked ?? Math.max(1, Math.floor(limit / demTimestep));
      const timestep = substeps * demTimestep;
      if (substepsAsked !== undefined && timestep > limit * (1 + 1e-9)) {
        fail(
          'range',
          'dem.substeps',
          `${substepsAsked} dem steps of ${demTimestep} s make a fluid step of ${timestep} s, above the stability limit ${limit} s (viscous ${limits.viscous}, Mach ${limits.mach}, particle drag ${limits.particleDrag}, pressure ${limits.pressure})`,
        );
      }
      const latticeViscosity = (nu * timestep) / (cellSize * cellSize);
      plan = { timestep, substeps, demTimestep, limits, referenceSpeed, latticeViscosity };
      checkDrive(drive, (rho * cellSize) / (timestep * timestep), 'fluid.drive.pressureGradient');
      lattice = new Lattice({
        shape,
        periodic,
        viscosity: latticeViscosity,
        precision: 'f64',
        layout: 'dense',
        ...(threads === undefined ? {} : { threads }),
      });
    } catch (error) {
      coupler.release();
      throw error;
    }
    const timestep = plan.timestep;
    this.#timestep = plan;
    this.#scales = {
      velocityScale: cellSize / timestep,
      pressureScale: rho * (cellSize / timestep) ** 2,
      forceScale: (rho * cellSize) / (timestep * timestep),
    };
    this.#limits = { particle: 0.5 / timestep };
    this.#particles = particles;
    this.#lattice = lattice;
    this.#coupler = coupler;
    this.#shape = shape;
    this.#cellSize = cellSize;
    this.#fluidDensity = rho;
    this.#periodic = periodic;
    this.#gravity = [...gravity] as [number, number, number];
    this.#superficial = superficial;
    this.#drive = drive;
    owned.set(this.#coupler.id, new WeakRef(this.#lattice));
  }

  /** Id in the module (`CoupledSimulation#<id>` in errors and the trace). */
  get id(): number {
    return this.#coupler.id;
  }
  get className(): string {
    return 'CoupledSimulation';
  }
  get released(): boolean {
    return this.#releasedByCall || this.#coupler.released;
  }
  /**
   * Frees the coupling's native state and its fluid lattice; idempotent. The dem Simulation it
   * holds stays. A run in flight stops at its next slice with code `PECLET_CANCELLED`.
   */
  release(): void {
    this.#releasedByCall = true;
    this.#coupler.release();
    this.#lattice.release();
    owned.delete(this.#coupler.id);
  }
  [Symbol.dispose](): void {
    this.release();
  }

  // ReleasedError once released (by release() or the module's finalize).
  #assertLive(): void {
    if (!this.released) return;
    const by = this.#releasedByCall ? 'release()' : 'finalize()';
    throw new ReleasedError(`CoupledSimulation#${this.id} of module coupling was released by ${by}`, {
      module: 'coupling',
      className: 'CoupledSimulation',
      releasedBy: by,
    });
  }

  /** The dem Simulation this holds. */
  get particles(): Simulation {
    this.#assertLive();
    return this.#particles;
  }
  /** Fluid cells per axis. */
  get shape(): readonly [number, number, number] {
    this.#assertLive();
    return this.#shape;
  }
  /** m. */
  get cellSize(): number {
    this.#assertLive();
    return this.#cellSize;
  }
  /** How the fluid step and the dem substeps were chosen. */
  get timestepReport(): TimestepReport {
    this.#assertLive();
    return this.#timestep;
  }
  /**
   * Wall-clock seconds spent so far in the coupling's own work (void fraction, interpolation, drag,
   * exchange, drive), the fluid steps and the dem steps.
   */
  get timings(): { coupling: number; fluid: number; particles: number } {
    this.#assertLive();
    return { ...this.#timings };
  }
  /** Simulated time (s) of the coupled steps taken. */
  get time(): number {
    this.#assertLive();
    return this.#time;
  }
  get stepCount(): number {
    this.#assertLive();
    return this.#stepCount;
  }
  /** Where the coupling computes (`host`). */
  get executionSpace(): string {
    return couplingModule.executionSpace;
  }

  /** Void fraction per cell (capped at `minVoidFraction`), C order; zero-copy, updated each step. */
  get voidFraction(): Float64Array {
    return this.#views().voidFraction;
  }
  /** Superficial fluid velocity (m/s), 3 per cell, as of the last exchange; zero-copy. */
  get fluidVelocity(): Float64Array {
    return this.#views().fluidVelocity;
  }
  /** Pressure (Pa) per cell relative to its mean, without the drive's mean gradient; zero-copy. */
  get pressure(): Float64Array {
    return this.#views().pressure;
  }
  /** Drag force (N) on each sphere, 3 per sphere in dem's order, of the last exchange; zero-copy. */
  get dragForces(): Float64Array {
    return this.#views().dragForces;
  }
  /** The mean pressure gradient −∇p (Pa/m) driving the fluid now. */
  get drive(): [number, number, number] {
    this.#live();
    return [...this.#drive] as [number, number, number];
  }

  /**
   * Pressure drop (Pa) across the fluid along `axis`, inlet minus outlet: the drive's mean gradient
   * times the length, plus, on an axis with walls, the difference of the plane-averaged pressures
   * of the first and last cells.
   */
  pressureDrop(axis: 'x' | 'y' | 'z' | 0 | 1 | 2): number {
    this.#live();
    const a = typeof axis === 'number' ? axis : AXES.indexOf(axis as 'x');
    if (!(a === 0 || a === 1 || a === 2)) fail('type', 'axis', `must be 'x', 'y', 'z', 0, 1 or 2, got ${String(axis)}`);
    const length = this.#shape[a] * this.#cellSize;
    if (this.#periodic[a]) return this.#drive[a] * length;
    const p = this.#views().pressure;
    const [n0, n1, n2] = this.#shape;
    // Each term divided first: a mean of huge values (a pressure field written over) cannot
    // overflow to an infinity, whose difference with another would be NaN.
    const count = (n0 * n1 * n2) / (this.#shape[a] as number);
    const plane = (index: number) => {
      let mean = 0;
      for (let i = 0; i < n0; i++)
        for (let j = 0; j < n1; j++)
          for (let k = 0; k < n2; k++) {
            const at = a === 0 ? i : a === 1 ? j : k;
            if (at !== index) continue;
            mean += (p[(i * n1 + j) * n2 + k] as number) / count;
          }
      return mean;
    };
    const drop = this.#drive[a] * (length - this.#cellSize) + plane(0) - plane(this.#shape[a] - 1);
    // The pressure array is writable: a value written over it that is not finite (the next
    // exchange rewrites it) has no pressure drop.
    if (!Number.isFinite(drop))
      fail(
        'range',
        'pressure',
        `holds values that are not finite (written over since the last exchange?): no pressure drop along ${AXES[a]}`,
      );
    return drop;
  }

  /**
   * Changes the drive from the next coupled step: `{ superficialVelocity }` or
   * `{ pressureGradient }`, as `fluid.drive`. A superficial velocity faster than the fluid step was
   * chosen for (a lattice speed above 0.1) is a RangeError with the largest it takes; nothing
   * changes then.
   */
  setDrive(drive: Drive): void {
    this.#live();
    const next = readDrive(drive, 'drive');
    if (next.superficial !== undefined) {
      const largest = (0.1 * this.#cellSize) / this.#timestep.timestep;
      const speed = Math.hypot(...next.superficial);
      if (speed > largest) {
        fail(
          'range',
          'drive.superficialVelocity',
          `${speed} m/s is faster than the fluid step allows (${largest} m/s, a lattice speed of 0.1): build the coupled simulation with the fastest drive, its step is chosen for it`,
        );
      }
    }
    checkDrive(next.drive, this.#scales.forceScale, 'drive.pressureGradient');
    this.#superficial = next.superficial;
    if (next.superficial === undefined) this.#drive = next.drive;
  }

  /**
   * Momentum (kg·m/s) of the fluid and of the spheres. Without gravity and drive their sum is
   * conserved to round-off: each exchange gives the fluid, for the whole fluid step, the opposite
   * of what the spheres get for it.
   */
  momentum(): { fluid: [number, number, number]; particles: [number, number, number] } {
    this.#assertLive();
    const lattice = this.#live();
    const u = lattice.velocity;
    const eps = lattice.porosity;
    const f = lattice.force;
    const g = lattice.bodyForce;
    const j = new Float64Array(3);
    for (let c = 0; c < eps.length; c++) {
      for (let a = 0; a < 3; a++)
        j[a] =
          (j[a] as number) +
          (u[3 * c + a] as number) -
          0.5 * ((eps[c] as number) * (g[a] as number) + (f[3 * c + a] as number));
    }
    const scale = this.#fluidDensity * this.#scales.velocityScale * this.#cellSize ** 3;
    return {
      fluid: [...j].map((x) => x * scale) as [number, number, number],
      particles: this.#particles.momentum() as [number, number, number],
    };
  }

  /** `n` coupled steps on this thread: each one exchange, one fluid step, `substeps` dem steps. */
  step(n = 1): CoupledStepReport {
    this.#assertLive();
    if (this.#running) fail('type', 'step', `${this.className}#${this.id} is running (await run() first)`);
    const steps = readInteger(n, 'n', { min: 0, max: 1e9 });
    for (let k = 0; k < steps; k++) this.#coupledStep();
    return this.#report(steps);
  }

  /** Coupled steps off the event loop's back: slices of about `progressInterval` ms, a Promise. */
  async run(options: CoupledRunOptions): Promise<CoupledStepReport> {
    this.#assertLive();
    const o = readOptions(options, 'options', ['time', 'steps', 'signal', 'onProgress', 'progressInterval']);
    if ((o.time === undefined) === (o.steps === undefined)) fail('type', 'options', 'give time or steps, one of them');
    const total =
      o.steps !== undefined
        ? readInteger(o.steps, 'steps', { min: 0, max: 1e12 })
        : Math.ceil(readNumber(o.time, 'time', { min: 0, max: 1e12, unit: 's' }) / this.#timestep.timestep - 1e-9);
    const signal = readSignal(o.signal, 'signal');
    const onProgress = readFunction<NonNullable<CoupledRunOptions['onProgress']>>(o.onProgress, 'onProgress');
    const interval = readNumber(o.progressInterval, 'progressInterval', { above: 0, max: 60000, fallback: 100 });
    if (this.#running) fail('type', 'run', `${this.className}#${this.id} is running already`);
    signal?.throwIfAborted();
    this.#running = true;
    let done = 0;
    try {
      // At least one pass, so that even a run of no steps yields once and is in flight until its
      // promise settles (a second run() in the same tick is refused, as for the other solvers).
      do {
        // At least one step per slice: a slice shorter than the clock's resolution (an interval
        // of 5e-324 ms) made none, and the run yielded for ever without progress.
        const start = performance.now();
        for (let first = true; done < total && (first || performance.now() - start < interval); first = false) {
          this.#coupledStep();
          done++;
        }
        // A timer, not setImmediate: Bun does not end the process on an uncaught error
        // while a chain of immediates keeps its event loop busy (it hung on the exit matrix's
        // uncaught and rejection paths).
        await new Promise((resolve) => setTimeout(resolve, 0));
        if (this.released) throw cancelled(`${this.className}#${this.id}.run()`, 'the simulation was released');
        if (couplingModule.finalized)
          throw cancelled(`${this.className}#${this.id}.run()`, 'module coupling was finalized');
        signal?.throwIfAborted();
        onProgress?.({ steps: done, totalSteps: total, time: this.#time });
      } while (done < total);
    } finally {
      this.#running = false;
    }
    return this.#report(done);
  }

  #report(steps: number): CoupledStepReport {
    const u = new Float64Array(3);
    const v = this.#views().fluidVelocity;
    const cells = v.length / 3;
    for (let c = 0; c < cells; c++) for (let a = 0; a < 3; a++) u[a] = (u[a] as number) + (v[3 * c + a] as number);
    return {
      steps,
      time: this.#time,
      maxReynolds: this.#last?.maxReynolds ?? 0,
      minVoidFraction: this.#last?.minVoidFraction ?? 1,
      cappedCells: this.#last?.cappedCells ?? 0,
      superficialVelocity: [...u].map((x) => (cells > 0 ? x / cells : 0)) as [number, number, number],
    };
  }

  #views(): CouplerArrays {
    this.#live();
    return this.#arrays();
  }

  // The lattice, after checking that this object, its dem simulation and its lattice are live:
  // else a ReleasedError naming the module that went (coupling, dem, then flow).
  #live(): Lattice {
    this.#assertLive();
    if (this.#particles.released) {
      throw new ReleasedError(
        `${this.className}#${this.id}: its particles, dem Simulation#${this.#particles.id}, were released (module dem finalized, or release())`,
        { module: 'dem', className: 'Simulation', releasedBy: 'finalize()' },
      );
    }
    if (this.#lattice.released) {
      throw new ReleasedError(
        `${this.className}#${this.id}: its fluid, a @peclet/flow Lattice, was released (module flow finalized?)`,
        { module: 'flow', className: 'Lattice', releasedBy: 'finalize()' },
      );
    }
    return this.#lattice;
  }

  #coupledStep(): void {
    const start = performance.now();
    this.#assertLive();
    const lattice = this.#live();
    const particles = this.#particles;
    let positions: Float64Array;
    let velocities: Float64Array;
    let radii: Float64Array;
    let masses: Float64Array;
    let externalForces: Float64Array;
    let particleForces: Float64Array;
    try {
      positions = particles.positions;
      velocities = particles.velocities;
      radii = particles.radii;
      if (this.#masses.length !== particles.sphereCount) {
        const m = particles.masses;
        const fixed = particles.fixed;
        for (let i = 0; i < m.length; i++) if (fixed[i] !== 0) m[i] = 0;
        this.#masses = m;
      }
      masses = this.#masses;
      externalForces = particles.externalForces;
      particleForces = particles.forces;
    } catch (error) {
      throw relabel(error, `${this.className}#${this.id}: its particles`);
    }
    const report = this.#coupler.exchange({
      positions,
      velocities,
      radii,
      masses,
      particleForces,
      latticeVelocity: lattice.velocity as Float64Array,
      latticeDensity: lattice.density as Float64Array,
      ...this.#scales,
      drive: this.#drive,
      ...(this.#superficial === undefined ? {} : { flux: this.#superficial }),
      gravity: this.#gravity,
      latticeBodyForce: lattice.bodyForce,
      externalForces,
      latticeForce: lattice.force,
      latticePorosity: lattice.porosity,
      maxDragRate: this.#limits.particle,
    });
    // The spheres step first (both steps use only what this exchange computed, so their order does
    // not change the result): a dem step that throws leaves the dem simulation, the fluid and the
    // drive as they were.
    const kept = { last: this.#last, drive: this.#drive };
    this.#last = report;
    this.#drive = [...report.drive] as [number, number, number];
    const exchanged = performance.now();
    try {
      particles.step(this.#timestep.substeps);
    } catch (error) {
      this.#last = kept.last;
      this.#drive = kept.drive;
      this.#coupler.undo(lattice.force, lattice.porosity);
      throw error;
    }
    const stepped = performance.now();
    // flow's step refuses a step that would diverge and keeps its state; the spheres have then
    // taken theirs (see the README).
    lattice.step(1);
    const end = performance.now();
    this.#timings.coupling += (exchanged - start) / 1000;
    this.#timings.particles += (stepped - exchanged) / 1000;
    this.#timings.fluid += (end - stepped) / 1000;
    this.#time += this.#timestep.timestep;
    this.#stepCount++;
  }
}

// The lattices of live coupled simulations: the module's finalize releases them too (the
// native finalize releases the coupled simulations themselves). On a path where no JS runs
// (a terminated worker) flow's own cleanup releases them.
const owned = new Map<number, WeakRef<Lattice>>();
couplingModule.registry.onRelease('fluid lattices of coupled simulations', () => {
  for (const lattice of owned.values()) lattice.deref()?.release();
  owned.clear();
});

// A drive option: the mixture's volume flux to hold, or the mean −∇p (Pa/m) to apply.
function readDrive(
  value: unknown,
  argument: string,
): { superficial: [number, number, number] | undefined; drive: [number, number, number] } {
  if (value === undefined) return { superficial: undefined, drive: [0, 0, 0] };
  const d = readOptions(value, argument, ['superficialVelocity', 'pressureGradient']);
  if ((d.superficialVelocity === undefined) === (d.pressureGradient === undefined))
    fail('type', argument, 'give superficialVelocity or pressureGradient, one of them');
  if (d.superficialVelocity !== undefined) {
    const superficial = readVector3(d.superficialVelocity, `${argument}.superficialVelocity`);
    // The drag closures are defined for slips up to 1e6 m/s; a faster flux has no drag to give.
    const speed = Math.hypot(...superficial);
    if (speed > 1e6)
      fail('range', `${argument}.superficialVelocity`, `|u| = ${speed} m/s is above the closures' range (1e6 m/s)`);
    return { superficial, drive: [0, 0, 0] };
  }
  const g = readVector3(d.pressureGradient, `${argument}.pressureGradient`);
  return { superficial: undefined, drive: [-g[0], -g[1], -g[2]] };
}

// A mean pressure gradient the lattice can take: a body force of at most 0.1 in lattice units
// (forceScale Pa/m each), or a RangeError naming `argument` with the largest.
function checkDrive(drive: readonly number[], forceScale: number, argument: string): void {
  const largest = 0.1 * forceScale;
  const magnitude = Math.hypot(...drive);
  if (magnitude > largest) {
    fail(
      'range',
      argument,
      `|∇p| = ${magnitude} Pa/m is more than this fluid step can take (${largest} Pa/m, a lattice body force of 0.1)`,
    );
  }
}

function readPeriodic(value: unknown): [boolean, boolean, boolean] {
  if (value === undefined) return [true, true, true];
  if (typeof value === 'boolean') return [value, value, value];
  if (!Array.isArray(value) || value.length !== 3 || value.some((v) => typeof v !== 'boolean'))
    fail('type', 'fluid.periodic', 'must be a boolean or three booleans');
  return [...value] as [boolean, boolean, boolean];
}

// A ReleasedError of dem or flow, said from the coupling's side.
function relabel(error: unknown, what: string): unknown {
  if (!(error instanceof ReleasedError)) return error;
  return new ReleasedError(`${what}: ${error.message}`, {
    module: error.module,
    className: error.className,
    releasedBy: error.releasedBy,
  });
}

/**
 * The terminal velocity (m/s) of a lone sphere (void fraction 1) of diameter `d` under the
 * buoyant weight `weight` (N), by the closure's own drag: β(U)·U = weight, solved by bisection.
 */
export function terminalVelocity(
  drag: DragModel,
  d: number,
  weight: number,
  viscosity: number,
  density: number,
): number {
  const model = readEnum(drag, 'drag', DRAGS);
  readNumber(d, 'diameter', { above: 0 });
  readNumber(weight, 'buoyantWeight', { min: 0 });
  readNumber(viscosity, 'viscosity', { above: 0 });
  readNumber(density, 'density', { above: 0 });
  if (weight === 0) return 0;
  drag = model;
  let lo = 0;
  // Stokes-like: an upper bound; the closures take slips up to 1e6 m/s.
  let hi = Math.min(weight / native.dragCoefficient(drag, 1, d, 0, viscosity, density), 1e6);
  if (native.dragCoefficient(drag, 1, d, hi, viscosity, density) * hi < weight)
    fail('range', 'buoyantWeight', `${weight} N would settle faster than 1e6 m/s`);
  for (let k = 0; k < 200; k++) {
    const mid = 0.5 * (lo + hi);
    if (native.dragCoefficient(drag, 1, d, mid, viscosity, density) * mid < weight) lo = mid;
    else hi = mid;
  }
  return 0.5 * (lo + hi);
}

/**
 * The drag coefficient β (kg/s) of one sphere: F = β (u − v), u the interstitial fluid velocity,
 * for the closure, void fraction, diameter (m), slip speed |u − v| (m/s), viscosity (Pa·s) and
 * density (kg/m³) given.
 */
export function dragCoefficient(
  drag: DragModel,
  voidFraction: number,
  diameter: number,
  slip: number,
  viscosity: number,
  density: number,
): number {
  return native.dragCoefficient(readEnum(drag, 'drag', DRAGS), voidFraction, diameter, slip, viscosity, density);
}
