import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineModule, lazyAddon, type NativeBinding } from '@peclet/core';

/** @internal What one exchange measured. */
export interface ExchangeReport {
  readonly maxReynolds: number;
  readonly maxDragRate: number;
  readonly maxFluidDragRate: number;
  readonly minVoidFraction: number;
  /** The drive −∇p (Pa/m) of the step: the one given, or the one that holds the flux. */
  readonly drive: [number, number, number];
  readonly maxSolidFraction: number;
  readonly cappedCells: number;
  /** Σ V v / box volume (m/s): the spheres' share of the volume flux. */
  readonly particleVolumeFlux: [number, number, number];
}

/** @internal The fields a Coupler exports (zero-copy). */
export interface CouplerArrays {
  readonly voidFraction: Float64Array;
  readonly fluidVelocity: Float64Array;
  readonly pressure: Float64Array;
  readonly dragForces: Float64Array;
}

/** @internal The addon's Coupler object. */
export interface NativeCoupler {
  readonly id: number;
  readonly released: boolean;
  release(): void;
  readonly generation: number;
  arrays(): CouplerArrays;
  densestCell(positions: Float64Array, radii: Float64Array): number;
  exchange(options: {
    positions: Float64Array;
    velocities: Float64Array;
    radii: Float64Array;
    masses: Float64Array | undefined;
    particleForces?: Float64Array;
    latticeVelocity: Float64Array;
    latticeDensity: Float64Array;
    velocityScale: number;
    pressureScale: number;
    forceScale: number;
    drive: number[];
    /** Hold the mixture's volume flux (m/s) at this after the step, choosing the drive. */
    flux?: number[];
    gravity: number[];
    latticeBodyForce: readonly number[];
    externalForces: Float64Array;
    latticeForce: Float64Array;
    latticePorosity: Float64Array;
    maxDragRate: number;
  }): ExchangeReport;
  /** Puts back what the last exchange wrote into these arrays and its own drag state. */
  undo(latticeForce: Float64Array, latticePorosity: Float64Array): void;
}

/** @internal The exports of the coupling addon. */
export interface CouplingBinding extends NativeBinding {
  Coupler: new (options: {
    shape: number[];
    cellSize: number;
    origin: number[];
    periodic: boolean[];
    drag: string;
    viscosity: number;
    density: number;
    minVoidFraction: number;
    selfCorrection: boolean;
    spheres: number;
  }) => NativeCoupler;
  dragCoefficient(
    drag: string,
    voidFraction: number,
    diameter: number,
    slip: number,
    viscosity: number,
    density: number,
  ): number;
}

// dist/ sits beside package.json and native/.
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { version } = require('../package.json') as { version: string };

/**
 * @internal The addon, loaded at first use (an import never opens it):
 * PECLET_COUPLING_BINARY, else the local build (native/build), else the
 * platform package of this machine, named literally here.
 */
export const native = lazyAddon<CouplingBinding>({
  name: 'coupling',
  root,
  packageName: '@peclet/coupling',
  version,
  platforms: {
    'linux-x64-gnu': () => require.resolve('@peclet/coupling-linux-x64-gnu/package.json'),
  },
});

/** @internal The coupling module in this thread. */
export const couplingModule = defineModule({ name: 'coupling', native, executionSpace: 'host' });
