import type { ExtractTimings, SolveReport } from './native.js';

export type { ExtractTimings, SolveReport };

/** An axis of the image: `'x'` is axis 0 (the slowest index), as PoreSpy reads an array. */
export type Axis = 'x' | 'y' | 'z';

/** Options of {@link extract}. */
export interface ExtractOptions {
  /** Standard deviation (voxels) of the Gaussian smoothing of the distance transform; 0: none. Default 0.4. */
  sigma?: number;
  /** Radius (voxels) of the ball of the maximum filter that finds peaks. Default 4. */
  rMax?: number;
  /**
   * Boundary pores: `true` on all six faces, a list of axes (`['x']`: both x faces), or `false`
   * (default). A boundary pore sits on the face, has no volume, and caps each region that
   * touches the face; flow and drainage need them on the faces of their axis.
   */
  boundaries?: boolean | Axis[];
  /**
   * The marker-based watershed: `'basins'` (default) floods the graph of the steepest-ascent
   * basins of the smoothed distance from the markers, on every thread, with the same labels on
   * any number of threads; `'priority-flood'` floods voxel by voxel in scikit-image's order (the
   * regions PoreSpy's snow2 gets), on one thread.
   */
  watershed?: 'basins' | 'priority-flood';
  /** Threads (0: the module's pool, sized by `cpuBudget()`). */
  threads?: number;
}

/** Progress of {@link extractAsync}. */
export interface ExtractProgress {
  /** The stage running. */
  readonly stage: 'distanceTransform' | 'smoothing' | 'peaks' | 'watershed' | 'network';
  /** 0 to 4. */
  readonly stageIndex: number;
  readonly stages: 5;
  /** Milliseconds since the call. */
  readonly elapsedMs: number;
}

/** Options of {@link extractAsync}. */
export interface ExtractAsyncOptions extends ExtractOptions {
  /** Aborting rejects with the signal's reason; native work stops within milliseconds. */
  signal?: AbortSignal;
  /** Called when a stage starts and every `progressInterval` ms. Throwing cancels the extraction. */
  onProgress?: (progress: ExtractProgress) => void;
  /** Milliseconds between progress calls (default 100). */
  progressInterval?: number;
}

/** Options of {@link Network.stokesFlow}. */
export interface StokesFlowOptions {
  /** Flow from the face where the axis starts to the face where it ends. Default `'x'`. */
  axis?: Axis;
  /** Pa·s. Default 1e-3 (water). */
  viscosity?: number;
  /**
   * Conduit conductance: one of OpenPNM's size-factor models (see {@link SizeFactorModel}),
   * which reproduce OpenPNM's number on the same image — `'pyramids-and-cuboids'` is the default,
   * the closest to direct simulation over the six images of `pnpm --filter @peclet/pnm models`
   * (within 15% on Berea, three sphere packings and overlapping spheres) — or
   * `'hagen-poiseuille'` (circular sections: spheres of the pores' inscribed radii truncated by
   * cylinders, with Sampson's entrance term) or `'shape-factor'` (the throat's measured shape
   * factor G = A/P², Patzek & Silin 2001).
   */
  conductance?: ConductanceModel;
  /** The size-factor models' conduit spacing (see {@link Spacing}). Default `'direct-length'`. */
  spacing?: Spacing;
  /**
   * Sampson's entrance resistance, 3μ/(2r³), at each end of a throat that opens into a pore wider
   * than itself (Weissberg 1962): the pressure a creeping flow loses converging into and
   * diverging out of an opening, which a conduit model of straight sections leaves out.
   * Default true; OpenPNM's size-factor models have no entrance term and ignore it.
   */
  entrance?: boolean;
  /** Pa on the inlet boundary pores (default 101326). */
  inletPressure?: number;
  /** Pa on the outlet boundary pores (default 101325). */
  outletPressure?: number;
  /** Relative residual of the conjugate-gradient solve (default 1e-10). */
  tolerance?: number;
  /** Iteration cap (default 0: 10 × unknowns + 1000). */
  maxIterations?: number;
}

/**
 * OpenPNM's size-factor conduit models (`openpnm.models.geometry.hydraulic_size_factors` and
 * `diffusive_size_factors`, conduit lengths of `cones_and_cylinders` for the first two) on the
 * geometry of OpenPNM's recipe for snow2 networks: pore diameter `pores.equivalentDiameter`,
 * throat diameter `throats.inscribedDiameter`, spacing `throats.totalLength`; the parts in series,
 * g = 1/(1/g1 + 1/gt + 1/g2), no entrance term. Pores and throats are frusta of square pyramids
 * and cuboids, frusta of cones and cylinders, or spheres cut by cylinders (which refuses a
 * throat wider than one of its pores, as OpenPNM does). Permeability and formation factor are
 * taken over the distance between the boundary regions' centres, the image's extent plus 3
 * voxels (OpenPNM's notebook divides by the padded image's, extent plus 6: 1.5% more on 200³).
 */
export type SizeFactorModel = 'pyramids-and-cuboids' | 'cones-and-cylinders' | 'spheres-and-cylinders';

/**
 * The conduit spacing the size-factor models read: `'direct-length'` (default: pore centre to pore
 * centre; a boundary throat to its snow2 region's centre), which OpenPNM measured itself when it
 * ignored `throat.spacing` — its published Berea figures (K = 1.318e-12 m², F = 25.10) come from
 * that reading, and it is the closer to direct simulation — or `'total-length'` (pore centre → the
 * throat's peak → pore centre, `throats.totalLength`, as OpenPNM's recipe sets `throat.spacing`
 * and OpenPNM reads it today).
 */
export type Spacing = 'total-length' | 'direct-length';

/** Every conduit model of {@link Network.stokesFlow} and {@link Network.diffusion}. */
export type ConductanceModel = 'hagen-poiseuille' | 'shape-factor' | SizeFactorModel;

/** What {@link Network.sizeFactors} computed: 3 values per throat (pore 1, throat, pore 2). */
export interface SizeFactors {
  /** m: the conduit's lengths (OpenPNM's `throat.conduit_lengths`). */
  readonly conduitLengths: Float64Array;
  /** m⁴: hydraulic size factors, g = S/μ (Infinity for a part of no length). */
  readonly hydraulic: Float64Array;
  /** m: diffusive size factors, g = D·S. */
  readonly diffusive: Float64Array;
}

/** What {@link Network.stokesFlow} computed. */
export interface StokesFlowResult {
  /**
   * m²: Q μ L / (A ΔP), with A the image's section and L its extent (the size-factor models: the
   * extent plus 3 voxels, see {@link SizeFactorModel}).
   */
  readonly permeability: number;
  /** The same in millidarcy. */
  readonly millidarcy: number;
  /** m³/s through the inlet face. */
  readonly flowRate: number;
  /** Pa per pore; NaN in excluded (disconnected) pores. */
  readonly pressure: Float64Array;
  /** m³/s per throat, positive from `conns[2t]` to `conns[2t + 1]`. */
  readonly throatFlow: Float64Array;
  /** m³/(Pa·s) per throat: the pore–throat–pore conduit's conductance. */
  readonly conductance: Float64Array;
  /** Iterations, residual and the clusters excluded. */
  readonly solve: SolveReport;
}

/** Options of {@link Network.diffusion}. */
export interface DiffusionOptions {
  axis?: Axis;
  /**
   * Conduits: a size-factor model's diffusive size factors (see {@link SizeFactorModel}), or
   * (`'hagen-poiseuille'`, `'shape-factor'`, default) the spheres of the pores' inscribed radii
   * truncated by the throats' measured sections.
   */
  conductance?: ConductanceModel;
  /** The size-factor models' conduit spacing (see {@link Spacing}). Default `'direct-length'`. */
  spacing?: Spacing;
  tolerance?: number;
  maxIterations?: number;
}

/** What {@link Network.diffusion} computed. */
export interface DiffusionResult {
  /** D_bulk / D_eff. */
  readonly formationFactor: number;
  /** F · φ. */
  readonly tortuosity: number;
  /** D_eff / D_bulk. */
  readonly effectiveDiffusivity: number;
  /** Per pore, 1 at the inlet and 0 at the outlet; NaN when excluded. */
  readonly concentration: Float64Array;
  readonly solve: SolveReport;
}

/** Options of {@link formationFactor}. */
export interface FormationFactorOptions {
  /** Concentration 1 on the first plane along the axis, 0 on the last. Default `'x'`. */
  axis?: Axis;
  /** Relative residual ‖b − Ax‖/‖b‖ the solve stops at. Default 1e-8. */
  tolerance?: number;
  /** Iteration cap (default 0: 20 × (the axis's extent + the largest extent) + 10000). */
  maxIterations?: number;
  /** Threads (0: the module's pool, sized by `cpuBudget()`). The result is the same on any count. */
  threads?: number;
}

/** What {@link formationFactor} computed. */
export interface FormationFactorResult {
  /** F = 1/D_eff (D_eff relative to the free diffusivity). */
  readonly formationFactor: number;
  /** φ_eff · F (PoreSpy's `tortuosity_fd`: the effective porosity over D_eff). */
  readonly tortuosity: number;
  /** D_eff / D_bulk = rate · (L − 1) / A, in voxels. */
  readonly effectiveDiffusivity: number;
  /** Pore voxels / voxels. */
  readonly porosity: number;
  /** Pore voxels of the clusters that join both planes / voxels. */
  readonly effectivePorosity: number;
  /** Flux out of the first plane and into the last (voxel units); equal at convergence. */
  readonly inletRate: number;
  readonly outletRate: number;
  /** Per voxel (C order over the image); NaN in solid and in pore that joins not both planes. */
  readonly concentration: Float64Array;
  readonly solve: {
    readonly unknowns: number;
    readonly iterations: number;
    readonly residual: number;
    readonly tolerance: number;
    readonly converged: boolean;
  };
}

/** Options of {@link Network.drainage} and {@link Network.invasionPercolation}. */
export interface DrainageOptions {
  /** The non-wetting phase enters from the face where this axis starts. Default `'x'`. */
  axis?: Axis;
  /** Entry pressure model: `'washburn'`, Pc = −2σ cos θ / r (the only one). */
  entry?: 'washburn';
  /** Degrees, through the wetting phase; above 90. Default 140 (mercury). */
  contactAngle?: number;
  /** N/m. Default 0.48 (mercury). */
  surfaceTension?: number;
  /** Pa, ascending (drainage only). Default: every distinct entry pressure. */
  pressures?: Float64Array | number[];
}

/** The capillary pressure curve of {@link Network.drainage}. */
export interface DrainageResult {
  /** Pa, ascending. */
  readonly pressure: Float64Array;
  /** Non-wetting saturation (invaded pore volume over pore volume) at each pressure. */
  readonly saturation: Float64Array;
  /** Pa per pore: its Washburn entry pressure. */
  readonly poreEntry: Float64Array;
  /** Pa per throat. */
  readonly throatEntry: Float64Array;
  /** Pa per pore: the lowest pressure applied that fills it (Infinity: never). */
  readonly poreInvaded: Float64Array;
  /** Pa per throat. */
  readonly throatInvaded: Float64Array;
}

/** The invasion sequence of {@link Network.invasionPercolation}. */
export interface InvasionResult {
  /** Per pore, the step that invaded it (−1: never). */
  readonly poreSequence: Int32Array;
  /** Per throat, likewise. */
  readonly throatSequence: Int32Array;
  /** Per step, the entry pressure of what was invaded (Pa). */
  readonly pressure: Float64Array;
  /** Per step, the saturation after it. */
  readonly saturation: Float64Array;
}
