import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineModule, loadAddon, type NativeBinding } from '@peclet/core';

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

// dist/ sits beside binding.gyp and build/.
const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** @internal */
export const native = loadAddon<CouplingBinding>({
  root,
  name: 'coupling',
  buildCommand: 'pnpm --filter @peclet/coupling build',
});

/** @internal The coupling module in this thread. */
export const couplingModule = defineModule({ name: 'coupling', native });
