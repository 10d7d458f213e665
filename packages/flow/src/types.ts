/** Public types of @peclet/flow. */
import type { VoxelImage } from '@peclet/io';
import type { Mpi } from './slab.js';

export type { Mpi, VoxelImage };

/** An image axis: 0 = `'x'`, 1 = `'y'`, 2 = `'z'` (C order, as NumPy and PoreSpy). */
export type Axis = 'x' | 'y' | 'z';

/** How a lattice relaxes: TRT with its magic parameter Λ, or BGK with one relaxation time. */
export type Relaxation = { model: 'trt'; magic?: number } | { model: 'bgk'; tau?: number };

/** Options of {@link Lattice} (lattice units: voxel = 1, step = 1, rest density = 1). */
export interface LatticeOptions {
  /** Voxel dimensions `[n0, n1, n2]`, C order (last index fastest). */
  shape: readonly [number, number, number] | readonly number[];
  /** Per voxel, non-zero = solid (halfway bounce-back). Give this or `solidFraction`, or neither. */
  solid?: Uint8Array;
  /**
   * Per voxel solid fraction in [0, 1]: 1 solid, 0 open, between: gray (partial bounce-back,
   * Walsh et al. 2009; a uniform medium of fraction s has permeability ν(1 − s)/(2s)).
   */
  solidFraction?: Float64Array;
  /**
   * Per voxel signed distance to the walls in voxel units, positive in the fluid, for a geometry
   * known better than its voxels (spheres, cylinders): voxels at d ≤ 0 are solid and each cut
   * link bounces back where the distance, interpolated linearly along it, vanishes (central
   * linear interpolation) — second-order accurate on curved walls. Uses the sparse layout.
   */
  sdf?: Float64Array;
  /** Periodic wrap per axis (default all true); a face that is not periodic is a wall. */
  periodic?: readonly [boolean, boolean, boolean] | readonly boolean[];
  /** Kinematic viscosity in lattice units (default 1/6, τ+ = 1); with BGK `relaxation.tau` may give it instead. */
  viscosity?: number;
  /** Default `{ model: 'trt', magic: 3/16 }`. */
  relaxation?: Relaxation;
  /** Body force per unit volume, lattice units, along axes 0, 1, 2 (default 0). */
  bodyForce?: readonly [number, number, number] | readonly number[];
  /** Fixed densities on the first and last planes along `axis` (that axis must not be periodic). */
  pressure?: { axis: Axis | 0 | 1 | 2; inletDensity: number; outletDensity: number };
  /** Keep the quadratic (inertial) terms of the equilibrium (default true); false: creeping flow. */
  inertia?: boolean;
  /** Storage of the populations (default `'f64'`). */
  precision?: 'f64' | 'f32';
  /** `'auto'` (default) stores fluid nodes only when that moves fewer bytes per step. */
  layout?: 'auto' | 'dense' | 'sparse';
  /**
   * `'host'` (default: the CPU thread pool) or `'webgpu'` (WGSL compute shaders through
   * `@peclet/core/gpu`: f32, sparse layout, `solid` or `solidFraction` geometry; step with
   * `run()`, fields are copies read back after the last batch).
   */
  executionSpace?: 'host' | 'webgpu';
  /** Most threads of the module's pool a step may use (default: all). */
  threads?: number | undefined;
  /**
   * Runs the lattice over MPI ranks: the `@peclet/mpi` module (`import * as mpi from
   * '@peclet/mpi'`), initialized. Then `shape`, `solid`, `solidFraction` and `sdf` are this rank's
   * planes along axis 0 of the whole lattice, ranks in order (rank 0 the first planes: see
   * `slabPlanes` and `slabOf`), at least 2 per rank; every rank builds the lattice with the same
   * other options, and steps, runs, measures and writes it together (each of those calls is
   * collective). The halo (the populations crossing between neighbouring slabs) is exchanged after
   * every step; sums over the lattice are reduced across ranks in the same order whatever their
   * number.
   */
  mpi?: Mpi | undefined;
}

/** Progress of a run, between batches of steps. */
export interface Progress {
  readonly steps: number;
  readonly maxSteps: number;
  /** Relative change of the mean velocity over the last check (NaN before the second check). */
  readonly residual: number;
  /** Mean velocity over every voxel (superficial), lattice units. */
  readonly meanVelocity: readonly [number, number, number];
  /**
   * The step at which the run is projected to settle, from how fast its relative change shrank
   * over the last checks (a geometric decay), at most `maxSteps`; NaN while there is no estimate
   * (the first three checks, a change that is not shrinking, or no tolerance). What a progress
   * bar measures the work left against.
   */
  readonly projectedSteps: number;
}

/** Options of {@link Lattice.run}. */
export interface RunOptions {
  /** Most steps (default 100,000). */
  maxSteps?: number;
  /**
   * Stop once the relative change of the mean velocity between checks falls below this, and so
   * does that change summed over the checks to come as its decay over the last two checks
   * extrapolates (so that a slowly settling flow does not pass for steady) (default 1e-6; 0: never).
   */
  tolerance?: number;
  /** Steps between convergence checks (default 100). */
  checkInterval?: number;
  signal?: AbortSignal | undefined;
  onProgress?: ((progress: Progress) => void) | undefined;
}

/** What a run reached. */
export interface RunReport {
  readonly steps: number;
  readonly converged: boolean;
  readonly residual: number;
  readonly meanVelocity: readonly [number, number, number];
}

/** What a synchronous step reached (lattice units). */
export interface StepReport {
  readonly steps: number;
  /** Mean velocity over every voxel (solid counts as 0). */
  readonly meanVelocity: readonly [number, number, number];
  /** Total mass of the fluid nodes (Σ ρ): constant in a periodic lattice. */
  readonly mass: number;
}

/** Options of {@link permeability}. */
export interface PermeabilityOptions {
  /** Flow axis (default `'x'`, image axis 0). */
  axis?: Axis;
  /** `'body-force'` (default; periodic wrap along the axis) or `'pressure'` (inlet and outlet densities). */
  drive?: 'body-force' | 'pressure';
  /**
   * Relative change of the mean velocity between checks at which the flow counts as steady, the
   * change still to come extrapolated from its decay included (as {@link RunOptions.tolerance}; default 1e-6).
   */
  tolerance?: number;
  /** Most steps (default 100,000). */
  maxSteps?: number;
  /** Open layers added before and after the sample along the axis (default 4). */
  buffer?: number;
  /** Faces parallel to the flow: walls (default `'sealed'`) or periodic. */
  sides?: 'sealed' | 'periodic';
  /** Lattice viscosity (default 0.05, chosen for speed); with TRT Λ = 3/16 the permeability does not depend on it. */
  viscosity?: number;
  precision?: 'f64' | 'f32';
  executionSpace?: 'host' | 'webgpu';
  threads?: number;
  signal?: AbortSignal;
  onProgress?: (progress: Progress) => void;
  /**
   * Runs over MPI ranks: the `@peclet/mpi` module, initialized. `image` is then this rank's
   * planes along axis 0 (ranks in order: `slabOf`, or `readRaw` with `planes: slabPlanes(n0, mpi)`),
   * at least 2 per rank; every rank passes the same options. The result is the same on every
   * rank, and equals the single-process result to round-off (see the README's MPI section).
   */
  mpi?: Mpi;
}

/** The lattice units a result was computed in, and how they map to SI. */
export interface LatticeUnits {
  /** Metres per lattice spacing (the image's voxel size). */
  readonly voxelSize: number;
  /** Lattice viscosity ν (voxel² per step) and the relaxation times. */
  readonly viscosity: number;
  readonly tauPlus: number;
  readonly tauMinus: number;
  /** Permeability in voxel² (multiply by voxelSize² for m²). */
  readonly permeability: number;
  /** Body force (lattice units) along the axis; 0 under a pressure drive. */
  readonly bodyForce: number;
  /** Density difference between the planes bounding the sample (lattice units, ρ0 = 1). */
  readonly densityDrop: number;
  /** Mean velocity along the axis over every voxel (superficial), lattice units. */
  readonly meanVelocity: number;
  /** Open layers added at each end along the axis. */
  readonly buffer: number;
}

/** The result of {@link permeability}. */
export interface PermeabilityResult {
  /** Permeability along the axis, m². */
  readonly permeability: number;
  /** The same in millidarcy (1 mD = 9.869233e-16 m²). */
  readonly millidarcy: number;
  /** Pore fraction of the image (all pore voxels). */
  readonly porosity: number;
  readonly axis: Axis;
  readonly steps: number;
  /** Whether the mean velocity and the estimate of k both settled within `tolerance` before `maxSteps`. */
  readonly converged: boolean;
  /** The larger relative change, over the last check, of the mean velocity and of the estimate of k. */
  readonly residual: number;
  /** Flow tortuosity ⟨|u|⟩ / ⟨u·axis⟩ over the sample's pore voxels. */
  readonly tortuosity: number;
  readonly layout: 'sparse' | 'dense';
  readonly latticeUnits: LatticeUnits;
  /**
   * Likely mistakes, as sentences (empty when none): a voxel size outside 1 nm – 1 mm, a porosity
   * outside 0.01 – 0.9, an axis along which neighbouring voxels are unrelated (a raw file read with
   * the wrong shape), a permeability above 1000 D (@peclet/io's `imageWarnings` and
   * `permeabilityWarning`). Over MPI ranks, the permeability's only.
   */
  readonly warnings: string[];
  /** The lattice it ran on (the image with its buffer layers); release it when done with its fields. */
  readonly lattice: import('./lattice.js').Lattice;
}
