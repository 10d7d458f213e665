// The public types of @peclet/dem: options, sphere batches, reports (re-exported by index.ts).

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
  /**
   * Fixed spheres (a packed bed held in place): `true` for the whole batch, or one flag per
   * sphere (booleans, or a `Uint8Array` where non-zero means fixed). A fixed sphere never moves
   * or rotates, acts in contacts as a body of infinite mass (like a wall), and must be given no
   * velocity. Default: none. Host only.
   */
  readonly fixed?: boolean | readonly boolean[] | Uint8Array;
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
  /**
   * Called on the JS thread between slices of the run (about every `progressInterval` ms). It
   * may read the simulation; calling `step`, `run`, `addSpheres`, `deposit` or `sync` from it
   * throws a TypeError (the run is still in progress), `release()` or `finalize()` from it
   * cancel the run (code `PECLET_CANCELLED`), and an error it throws rejects the run.
   */
  readonly onProgress?: (progress: Progress) => void;
  /** Target wall time of one slice (ms, default 100): a finite number > 0 and ≤ 60 000. */
  readonly progressInterval?: number;
}

/** Options of {@link Simulation.depositAsync}. */
export interface DepositAsyncOptions extends DepositOptions {
  /** As in {@link RunOptions.signal}: the inserted spheres stay, at a whole step. */
  readonly signal?: AbortSignal;
  /** As in {@link RunOptions.onProgress}; `totalSteps` is `maxSteps`. */
  readonly onProgress?: (progress: Progress) => void;
  /** As in {@link RunOptions.progressInterval}; slices are whole multiples of `checkInterval`. */
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
  /**
   * Mean overlap of the sphere–sphere contacts at the end of the call, each relative to the
   * smaller radius of its pair (δ / min(ri, rj)); 0 without contacts. Above 0.01 the contacts
   * are softer than DEM practice accepts (see the `PECLET_SOFT_CONTACT` warning).
   */
  readonly meanOverlap: number;
  /** Largest such relative overlap at the end of the call (0 without contacts). */
  readonly maxOverlap: number;
}

/** Outcome of {@link Simulation.deposit}. */
export interface DepositReport extends StepReport {
  /** Spheres inserted (always `count`). */
  readonly inserted: number;
  /** Whether the kinetic-energy threshold was reached within `maxSteps`. */
  readonly settled: boolean;
  /** Mean translational kinetic energy per free (not fixed) sphere at the end (J). */
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

/** Options of {@link Simulation.voxelize}: `voxelSize` or `resolution`, not both. */
export interface VoxelizeOptions {
  /** Voxel edge (m). */
  readonly voxelSize?: number;
  /** Voxels across the smallest sphere diameter (default 20), when `voxelSize` is not given. */
  readonly resolution?: number;
  /** The box to cover (default the simulation's box), from its `min` corner. */
  readonly region?: Box;
}

/** The spheres as voxels: a `@peclet/io` VoxelImage and where it starts. */
export interface VoxelizedSpheres {
  /** 1 solid, 0 pore; `solid[(i * n1 + j) * n2 + k]` is voxel (i, j, k), x first. */
  readonly solid: Uint8Array;
  readonly shape: [number, number, number];
  /** Voxel edge (m). */
  readonly voxelSize: number;
  /** The corner of voxel (0, 0, 0) (m). */
  readonly origin: [number, number, number];
}
