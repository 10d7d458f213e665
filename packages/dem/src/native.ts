import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineModule, lazyAddon, type NativeBinding } from '@peclet/core';

/** @internal The step outcome the addon reports. */
export interface NativeAdvance {
  /** `invalid`: the kernel refused the call (a non-finite external force); nothing changed. */
  readonly status: 'done' | 'cancelled' | 'diverged' | 'invalid';
  readonly steps: number;
  readonly clampedSpheres: number;
  readonly firstClampedSphere: number;
  readonly settled: boolean;
  readonly kineticEnergyPerSphere: number;
  /** Sphere–sphere overlaps relative to the smaller radius at the end (absent with `invalid`). */
  readonly meanOverlap?: number;
  readonly maxOverlap?: number;
  /** With `invalid`: the argument at fault, its element and the kernel's message. */
  readonly argument?: string;
  readonly index?: number;
  readonly message?: string;
  /** With `diverged`: what the kernel found (the sphere, overlaps, speeds, the time step). */
  readonly diagnosis?: string;
  /** With `diverged`: the first sphere that became non-finite, or -1. */
  readonly divergedSphere?: number;
}

/** @internal What the addon's deposit returns. */
export interface NativeDeposit extends NativeAdvance {
  readonly inserted: number;
  readonly kineticEnergyThreshold: number;
}

/** @internal The time step report. */
export interface NativeTimestep {
  readonly timestep: number;
  readonly contactTime: number;
  readonly stabilityLimit: number;
  readonly automatic: boolean;
}

/** @internal The addon's Simulation object (arguments read by src/options.ts). */
export interface NativeSimulation {
  readonly id: number;
  readonly released: boolean;
  release(): void;
  addSpheres(
    positions: Float64Array,
    radii: Float64Array,
    density: number,
    velocities: Float64Array | undefined,
    fixed?: Uint8Array,
  ): void;
  advance(steps: number, threshold: number, checkInterval: number): NativeAdvance;
  advanceAsync(
    steps: number,
    threshold: number,
    checkInterval: number,
  ): { promise: Promise<NativeAdvance>; cancel(): void };
  deposit(options: Record<string, number | string>): NativeDeposit;
  readonly positions: Float64Array;
  readonly velocities: Float64Array;
  readonly angularVelocities: Float64Array;
  readonly forces: Float64Array;
  masses(): Float64Array;
  readonly radii: Float64Array;
  readonly externalForces: Float64Array;
  readonly fixed: Uint8Array;
  overlapStatistics(): { meanOverlap: number; maxOverlap: number };
  readonly sphereCount: number;
  kineticEnergy(): number;
  translationalKineticEnergy(): number;
  elasticEnergy(): number;
  momentum(): [number, number, number];
  contacts(): { pairs: Uint32Array; overlaps: Float64Array };
  coordinationNumber(): number;
  packingFraction(min: Float64Array, max: Float64Array): number;
  voxelize(min: Float64Array, shape: Float64Array, voxelSize: number): Uint8Array;
  readonly timestepReport: NativeTimestep;
  readonly time: number;
  readonly stepCount: number;
  readonly busy: boolean;
}

/** @internal The exports of the dem addon. */
export interface DemBinding extends NativeBinding {
  readonly Simulation: new (options: Record<string, unknown>) => NativeSimulation;
}

// dist/ sits beside package.json and native/.
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { version } = require('../package.json') as { version: string };

/**
 * @internal The addon, loaded at first use (an import never opens it):
 * PECLET_DEM_BINARY, else the local build (native/build), else the
 * platform package of this machine, named literally here.
 */
export const native = lazyAddon<DemBinding>({
  name: 'dem',
  root,
  packageName: '@peclet/dem',
  version,
  platforms: {
    'linux-x64-gnu': () => require.resolve('@peclet/dem-linux-x64-gnu/package.json'),
  },
});

/** @internal The dem module in this thread. */
export const demModule = defineModule({ name: 'dem', native, executionSpace: 'host' });
