/**
 * The Network class and extraction: the public objects over the native network.
 * @internal
 */
import { fail } from '@peclet/core';
import { type VoxelImage, writeVtp } from '@peclet/io';
import type { NetworkArrays, PoreArrays, ThroatArrays } from './arrays.js';
import { type NativeNetwork, type NativeNetworkInfo, native, pnmModule } from './native.js';
import {
  readDiffusion,
  readDrainage,
  readExtract,
  readFormationFactor,
  readSizeFactorModel,
  readStokes,
} from './options.js';
import { type NetworkStatistics, type NetworkStatisticsOptions, networkStatistics } from './statistics.js';
import type {
  DiffusionOptions,
  DiffusionResult,
  DrainageOptions,
  DrainageResult,
  ExtractAsyncOptions,
  ExtractOptions,
  ExtractProgress,
  ExtractTimings,
  FormationFactorOptions,
  FormationFactorResult,
  InvasionResult,
  SizeFactorModel,
  SizeFactors,
  Spacing,
  StokesFlowOptions,
  StokesFlowResult,
} from './types.js';
import { type NetworkJSON, networkToJSON, readNetwork, writeStatoil } from './writers.js';

/** m² per millidarcy (1 D = 9.869233e-13 m²). */
export const MILLIDARCY = 9.869233e-16;

const STAGES = ['distanceTransform', 'smoothing', 'peaks', 'watershed', 'network'] as const;

/**
 * Native networks made by {@link extract} and {@link extractAsync} and not yet wrapped: the only
 * values `new Network` accepts, each once. A membership test reads nothing of the value, so no
 * getter or Proxy trap of a hostile argument runs.
 */
const unwrapped = new WeakSet<object>();

/** The public Network over a native network this module has just made. */
function wrap(nativeNetwork: NativeNetwork): Network {
  unwrapped.add(nativeNetwork);
  return new Network(nativeNetwork);
}

/**
 * A pore network extracted from a voxel image: pores (one per watershed region, plus boundary
 * pores on the faces asked for) and throats (one per pair of touching regions), in SI units.
 *
 * The arrays of `pores`, `throats` and `regions` are zero-copy views over native memory: they
 * are detached (length 0) once the network is released or its module finalized. The solvers
 * check them on every call, so writing into them cannot crash a solve — it gives a RangeError
 * naming the array.
 *
 * @example
 * ```ts
 * const network = extract({ solid, shape: [200, 200, 200], voxelSize: 5.345e-6 }, { boundaries: ['x'] });
 * network.poreCount; // ≈ 1,500
 * const { millidarcy } = network.stokesFlow({ axis: 'x' });
 * network.release();
 * ```
 */
export class Network implements Disposable, NetworkArrays {
  readonly #native: NativeNetwork;
  readonly #info: NativeNetworkInfo;
  #releasedByCall = false;
  // One view per buffer, held weakly: the same arrays (and containers) until release detaches
  // them. The containers are frozen (the typed arrays in them stay writable): replacing an array
  // would give the writers and statistics other values than the solvers read.
  readonly #arrays = pnmModule.zeroCopyView(
    () => {
      const { pores, throats } = this.#native.arrays();
      return { pores: Object.freeze(pores), throats: Object.freeze(throats) };
    },
    (views) => views.pores.label.length !== 0,
  );
  readonly #regions = pnmModule.zeroCopyView(() => this.#native.regions());

  /**
   * @internal Networks come from {@link extract} and {@link extractAsync}: anything else (a
   * Network, which would alias its native network, or a look-alike object) is a TypeError.
   */
  constructor(nativeNetwork: NativeNetwork) {
    if (!unwrapped.delete(nativeNetwork)) {
      fail('type', 'network', 'a Network cannot be constructed directly: use extract() or extractAsync()');
    }
    this.#native = nativeNetwork;
    // Read once and frozen: the getters hand out these objects, so writing into one must not
    // change what the network reports (or what the writers and statistics read).
    const info = nativeNetwork.info;
    Object.freeze(info.shape);
    Object.freeze(info.timings);
    Object.freeze(info.peaks);
    this.#info = Object.freeze(info);
  }

  /** Id in the module (`Network#<id>` in errors and the trace). */
  get id(): number {
    return this.#native.id;
  }
  get released(): boolean {
    return this.#releasedByCall || this.#native.released;
  }
  /** Frees the native network; idempotent. Its arrays are detached. */
  release(): void {
    this.#releasedByCall = true;
    this.#native.release();
  }
  [Symbol.dispose](): void {
    this.release();
  }

  /** Pores, boundary pores included. */
  get poreCount(): number {
    return this.#native.counts[0];
  }
  get throatCount(): number {
    return this.#native.counts[1];
  }
  /** The image's `[n0, n1, n2]`. */
  get shape(): readonly [number, number, number] {
    return this.#info.shape;
  }
  /** m. */
  get voxelSize(): number {
    return this.#info.voxelSize;
  }
  /** Pore voxels over all voxels: the image's porosity, exactly. */
  get porosity(): number {
    return this.#info.porosity;
  }
  /** Seconds per extraction stage. */
  get timings(): ExtractTimings {
    return this.#info.timings;
  }
  /** Peak clusters found by the maximum filter, and how many each trimming step removed. */
  get peaks(): NativeNetworkInfo['peaks'] {
    return this.#info.peaks;
  }
  /** Pore arrays (zero-copy). */
  get pores(): PoreArrays {
    return this.#views().pores;
  }
  /** Throat arrays (zero-copy). */
  get throats(): ThroatArrays {
    return this.#views().throats;
  }
  /** The watershed's region label of every voxel (0 in solid), C order over the image (zero-copy; the same array until release). */
  get regions(): Int32Array {
    return this.#regions();
  }

  #views(): { pores: PoreArrays; throats: ThroatArrays } {
    return this.#arrays();
  }

  /**
   * Stokes flow along `axis` with the pressures on the inlet and outlet boundary pores (the
   * network needs boundary pores on both faces of the axis). Pores in clusters that do not join
   * both faces are excluded and counted in `solve.excludedPores`.
   *
   * @example
   * ```ts
   * const flow = network.stokesFlow({ axis: 'x', viscosity: 1e-3 });
   * flow.millidarcy;
   * ```
   */
  stokesFlow(options: StokesFlowOptions = {}): StokesFlowResult {
    const result = this.#native.stokesFlow(readStokes(options));
    return { ...result, millidarcy: result.permeability / MILLIDARCY };
  }

  /**
   * OpenPNM's size factors of every conduit for `model` — what {@link Network.stokesFlow} and
   * {@link Network.diffusion} use with `conductance: model` — 3 per throat (pore 1, throat,
   * pore 2).
   *
   * @example
   * ```ts
   * const { hydraulic } = network.sizeFactors('pyramids-and-cuboids');
   * ```
   */
  sizeFactors(model: SizeFactorModel, options: { spacing?: Spacing } = {}): SizeFactors {
    return this.#native.sizeFactors(readSizeFactorModel(model, options));
  }

  /**
   * Diffusion along `axis` (concentration 1 at the inlet boundary pores, 0 at the outlet):
   * formation factor F = D_bulk / D_eff and tortuosity F·φ.
   */
  diffusion(options: DiffusionOptions = {}): DiffusionResult {
    return this.#native.diffusion(readDiffusion(options));
  }

  /**
   * Drainage by ordinary percolation with access from the inlet face: at each pressure, a throat
   * or pore whose Washburn entry pressure is reached fills when it joins the inlet through filled
   * ones — the capillary pressure curve of mercury intrusion porosimetry.
   *
   * @example
   * ```ts
   * const curve = network.drainage({ contactAngle: 140, surfaceTension: 0.48 });
   * curve.pressure; curve.saturation;
   * ```
   */
  drainage(options: DrainageOptions = {}): DrainageResult {
    return this.#native.drainage(readDrainage(options, false));
  }

  /** Invasion percolation from the inlet face: the invasion sequence, one element at a time. */
  invasionPercolation(options: Omit<DrainageOptions, 'pressures'> = {}): InvasionResult {
    return this.#native.invasionPercolation(readDrainage(options, true));
  }

  /** Pore and throat size distributions and the coordination number distribution. */
  statistics(options?: NetworkStatisticsOptions): NetworkStatistics {
    return networkStatistics(this, options);
  }

  /**
   * The Statoil files (`<prefix>_node1.dat`, `_node2.dat`, `_link1.dat`, `_link2.dat`) that
   * OpenPNM and pnflow import, each written atomically.
   */
  writeStatoil(dir: string, prefix: string): Promise<void> {
    return writeStatoil(this, dir, prefix);
  }

  /**
   * A VTK PolyData file for ParaView: pores as points, throats as lines, with their properties.
   * The arrays are read and checked as {@link writeStatoil} reads them, into copies, before the
   * file is touched: writing into them, or releasing the network, while the file is written
   * changes nothing in it.
   */
  async writeVtp(path: string): Promise<void> {
    const { pores, throats } = readNetwork(this, 'network');
    return writeVtp(path, {
      points: pores.coordinates,
      lines: throats.conns,
      pointData: {
        'pore.volume': pores.volume,
        'pore.inscribed_diameter': pores.inscribedDiameter,
        'pore.equivalent_diameter': pores.equivalentDiameter,
        'pore.surface_area': pores.surfaceArea,
        'pore.region_label': pores.label,
        'pore.face': pores.face,
      },
      cellData: {
        'throat.inscribed_diameter': throats.inscribedDiameter,
        'throat.cross_sectional_area': throats.area,
        'throat.perimeter': throats.perimeter,
        'throat.direct_length': throats.length,
        ...(throats.totalLength === undefined ? {} : { 'throat.total_length': throats.totalLength }),
      },
    });
  }

  /**
   * OpenPNM-style `pore.*` / `throat.*` arrays (plain arrays; `JSON.stringify` works), with
   * PoreSpy's keys as OpenPNM's `network_from_porespy` reads them (see {@link networkToJSON}).
   */
  toJSON(): NetworkJSON {
    return networkToJSON(this);
  }
}

/**
 * Extracts the pore network of a voxel image (1 = solid, 0 = pore) by the SNOW recipe
 * (Gostick 2017): exact distance transform of the pore space, Gaussian smoothing (`sigma`),
 * peaks of a maximum filter over a ball (`rMax`) without saddle and nearby peaks, marker-based
 * watershed, then one pore per region and one throat per pair of touching regions.
 *
 * Throws a RangeError naming `image.solid` for an image with no pore or no solid voxel or a
 * value other than 0 and 1, and for any option out of range.
 *
 * @example
 * ```ts
 * const network = extract({ solid, shape: [200, 200, 200], voxelSize: 5.345e-6 }, { boundaries: ['x'] });
 * ```
 */
export function extract(image: VoxelImage, options: ExtractOptions = {}): Network {
  const settings = readExtract(image, options, false);
  return wrap(native.extract(settings.solid, settings.native));
}

/**
 * The direct formation factor and tortuosity of an image, as PoreSpy's `tortuosity_fd` defines
 * them: steady diffusion (the Laplace equation) on the pore voxels, concentration 1 on the pore of
 * the first plane along `axis` and 0 on the last, no flux through solid and the other faces, over
 * the pore clusters (6-connected) that join both planes. The 7-point finite-volume Laplacian (unit
 * conductance between face-adjacent pore voxels) is solved by conjugate gradients preconditioned
 * by symmetric Gauss–Seidel in red–black order, on the module's pool (the same bits on any thread
 * count). D_eff = rate · (L − 1)/A with A the plane's area and L − 1 the distance between the two
 * planes' voxel centres; F = 1/D_eff; tortuosity φ_eff·F. Synchronous: it blocks the thread for
 * the solve (seconds on a 200³ rock; `solve.iterations` says how many).
 *
 * Throws a RangeError naming `image.solid` when no pore path joins the two planes or a value is
 * not 0 or 1, `image.shape` for fewer than 2 voxels along the axis.
 *
 * @example
 * ```ts
 * const direct = formationFactor(image, { axis: 'x' });
 * console.log(direct.formationFactor, direct.tortuosity);
 * ```
 */
export function formationFactor(image: VoxelImage, options: FormationFactorOptions = {}): FormationFactorResult {
  const settings = readFormationFactor(image, options);
  return native.formationFactor(settings.solid, settings.native);
}

/**
 * {@link extract} off the main thread: `signal` aborts (rejecting with its reason), `onProgress`
 * reports the stage; release or finalize meanwhile reject with code `PECLET_CANCELLED`.
 *
 * @example
 * ```ts
 * const network = await extractAsync(image, { boundaries: true, onProgress: (p) => console.log(p.stage) });
 * ```
 */
export async function extractAsync(image: VoxelImage, options: ExtractAsyncOptions = {}): Promise<Network> {
  const settings = readExtract(image, options, true);
  const { signal, onProgress, progressInterval } = settings;
  signal?.throwIfAborted();
  const started = performance.now();
  const handle = native.extractAsync(settings.solid, settings.native);
  const onAbort = () => handle.cancel();
  signal?.addEventListener('abort', onAbort, { once: true });
  let progressError: { error: unknown } | undefined;
  let timer: ReturnType<typeof setInterval> | undefined;
  if (onProgress !== undefined) {
    let inCall = false;
    const report = () => {
      if (inCall || progressError !== undefined) return;
      const stageIndex = handle.stage();
      if (stageIndex < 0) return;
      inCall = true;
      try {
        const progress: ExtractProgress = {
          stage: STAGES[Math.min(stageIndex, 4)] as ExtractProgress['stage'],
          stageIndex,
          stages: 5,
          elapsedMs: performance.now() - started,
        };
        onProgress(progress);
      } catch (error) {
        progressError = { error };
        handle.cancel();
      } finally {
        inCall = false;
      }
    };
    timer = setInterval(report, progressInterval);
    timer.unref?.();
  }
  try {
    const result = await handle.promise;
    if (progressError !== undefined) {
      result.release();
      throw progressError.error;
    }
    return wrap(result);
  } catch (error) {
    if (progressError !== undefined) throw progressError.error;
    if (signal?.aborted) throw signal.reason;
    throw error;
  } finally {
    if (timer !== undefined) clearInterval(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}
