/**
 * @peclet/pnm — pore networks from voxel images: SNOW extraction, permeability, formation
 * factor, drainage and invasion percolation, and the files OpenPNM, pnflow and ParaView read.
 *
 * @example
 * ```ts
 * import { extract } from '@peclet/pnm';
 * const network = extract({ solid, shape: [200, 200, 200], voxelSize: 5.345e-6 }, { boundaries: ['x'] });
 * console.log(network.poreCount, network.throatCount, network.stokesFlow({ axis: 'x' }).millidarcy);
 * network.release();
 * ```
 *
 * @packageDocumentation
 */
import { pnmModule } from './native.js';

export { ReleasedError } from '@peclet/core';
export { fromPoreSpy, type VoxelImage } from '@peclet/io';
export type { NetworkArrays, PoreArrays, ThroatArrays } from './arrays.js';
export type { NativeNetworkInfo as NetworkInfo } from './native.js';
export { extract, extractAsync, formationFactor, MILLIDARCY, Network } from './network.js';
export {
  type CoordinationStatistics,
  type Histogram,
  type NetworkStatistics,
  type NetworkStatisticsOptions,
  networkStatistics,
} from './statistics.js';
export type {
  Axis,
  ConductanceModel,
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
  SolveReport,
  Spacing,
  StokesFlowOptions,
  StokesFlowResult,
} from './types.js';
export { type NetworkJSON, networkToJSON, writeStatoil } from './writers.js';

/**
 * Releases every network of this thread, stops extractions in flight and finalizes the module.
 * Idempotent; runs by itself at exit.
 */
export function finalize(): void {
  pnmModule.finalize();
}

/** Where pnm computes: `host` (the CPU thread pool). */
export const executionSpace: string = pnmModule.executionSpace;
