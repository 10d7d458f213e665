import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineModule, lazyAddon, type NativeBinding } from '@peclet/core';
import type { PoreArrays, ThroatArrays } from './arrays.js';

/** @internal How a sparse solve went. */
export interface SolveReport {
  /** Pores solved for (not fixed by a boundary condition, not excluded). */
  readonly unknowns: number;
  /** Conjugate-gradient iterations. */
  readonly iterations: number;
  /** ‖b − Ax‖ / ‖b‖ at the end. */
  readonly residual: number;
  /** The relative residual asked for. */
  readonly tolerance: number;
  readonly converged: boolean;
  readonly cancelled: boolean;
  /** Connected clusters of pores in the network. */
  readonly clusters: number;
  /** Pores in clusters that do not join both faces: no equation, NaN in the result. */
  readonly excludedPores: number;
}

/** @internal */
export interface NativeNetworkInfo {
  readonly shape: [number, number, number];
  readonly voxelSize: number;
  readonly porosity: number;
  readonly bytes: number;
  readonly timings: ExtractTimings;
  readonly peaks: { readonly found: number; readonly saddles: number; readonly nearby: number };
}

/** Seconds spent in each stage of the extraction. */
export interface ExtractTimings {
  readonly distanceTransform: number;
  readonly smoothing: number;
  readonly peaks: number;
  readonly watershed: number;
  readonly network: number;
}

/** @internal */
export interface NativeSolveOptions {
  axis: number;
  tolerance: number;
  maxIterations: number;
}

/** @internal */
export interface NativeDrainageOptions {
  axis: number;
  contactAngle: number;
  surfaceTension: number;
  pressures?: Float64Array | undefined;
}

/** @internal The addon's Network object. */
export interface NativeNetwork {
  readonly id: number;
  readonly released: boolean;
  release(): void;
  readonly counts: [number, number];
  arrays(): { pores: PoreArrays; throats: ThroatArrays };
  regions(): Int32Array;
  readonly info: NativeNetworkInfo;
  stokesFlow(
    options: NativeSolveOptions & {
      viscosity: number;
      model: string;
      spacing: string;
      entrance: boolean;
      inletPressure: number;
      outletPressure: number;
    },
  ): {
    permeability: number;
    flowRate: number;
    pressure: Float64Array;
    throatFlow: Float64Array;
    conductance: Float64Array;
    solve: SolveReport;
  };
  sizeFactors(options: { model: string; spacing: string }): {
    conduitLengths: Float64Array;
    hydraulic: Float64Array;
    diffusive: Float64Array;
  };
  diffusion(options: NativeSolveOptions & { model: string; spacing: string }): {
    formationFactor: number;
    tortuosity: number;
    effectiveDiffusivity: number;
    concentration: Float64Array;
    solve: SolveReport;
  };
  drainage(options: NativeDrainageOptions): {
    pressure: Float64Array;
    saturation: Float64Array;
    poreEntry: Float64Array;
    throatEntry: Float64Array;
    poreInvaded: Float64Array;
    throatInvaded: Float64Array;
  };
  invasionPercolation(options: NativeDrainageOptions): {
    poreSequence: Int32Array;
    throatSequence: Int32Array;
    pressure: Float64Array;
    saturation: Float64Array;
  };
}

/** @internal The options the native extraction reads (checked by src/options.ts). */
export interface NativeExtractOptions {
  shape: [number, number, number];
  voxelSize: number;
  sigma: number;
  rMax: number;
  boundaries: boolean[];
  /** 0: basins, 1: priority flood */
  watershed: number;
  threads: number;
}

/** @internal The exports of the pnm addon. */
export interface PnmBinding extends NativeBinding {
  extract(solid: Uint8Array, options: NativeExtractOptions): NativeNetwork;
  formationFactor(
    solid: Uint8Array,
    options: {
      shape: [number, number, number];
      axis: number;
      tolerance: number;
      maxIterations: number;
      threads: number;
    },
  ): {
    formationFactor: number;
    tortuosity: number;
    effectiveDiffusivity: number;
    porosity: number;
    effectivePorosity: number;
    inletRate: number;
    outletRate: number;
    concentration: Float64Array;
    solve: { unknowns: number; iterations: number; residual: number; tolerance: number; converged: boolean };
  };
  extractAsync(
    solid: Uint8Array,
    options: NativeExtractOptions,
  ): { promise: Promise<NativeNetwork>; cancel(): void; stage(): number };
}

// dist/ sits beside package.json and native/.
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { version } = require('../package.json') as { version: string };

/**
 * @internal The addon, loaded at first use (an import never opens it):
 * PECLET_PNM_BINARY, else the local build (native/build), else the
 * platform package of this machine, named literally here.
 */
export const native = lazyAddon<PnmBinding>({
  name: 'pnm',
  root,
  packageName: '@peclet/pnm',
  version,
  platforms: {
    'linux-x64-gnu': () => require.resolve('@peclet/pnm-linux-x64-gnu/package.json'),
  },
});

/** @internal The pnm module in this thread. */
export const pnmModule = defineModule({ name: 'pnm', native, executionSpace: 'host' });
