import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineModule, lazyAddon, type NativeBinding } from '@peclet/core';

/** @internal What a batch of steps reached (sums over fluid nodes, lattice units). */
export interface NativeStep {
  readonly status: 'done' | 'cancelled' | 'diverged';
  /** The number of the step that would have diverged (status 'diverged', host). */
  readonly divergedAt?: number;
  readonly steps: number;
  readonly momentum: [number, number, number];
  readonly speed: number;
  readonly mass: number;
}

/** @internal */
export interface NativeLatticeInfo {
  readonly layout: 'sparse' | 'dense';
  readonly streaming: 'in-place' | 'two-lattice';
  readonly precision: 'f64' | 'f32';
  readonly fluidNodes: number;
  readonly voxels: number;
  readonly tauPlus: number;
  readonly tauMinus: number;
  readonly stepCount: number;
  readonly bytes: number;
  readonly bytesPerUpdate: number;
  readonly bodyForce: [number, number, number];
}

/** @internal The options the native constructor reads (checked by src/options.ts). */
export interface NativeLatticeOptions {
  shape: [number, number, number];
  solid?: Uint8Array | undefined;
  solidFraction?: Float64Array | undefined;
  sdf?: Float64Array | undefined;
  periodic: [boolean, boolean, boolean];
  model: 'trt' | 'bgk';
  tau: number;
  magic: number;
  bodyForce: [number, number, number];
  inertia: boolean;
  precision: 'f64' | 'f32';
  layout: 'auto' | 'dense' | 'sparse';
  pressureAxis?: number;
  inletDensity?: number;
  outletDensity?: number;
  threads: number;
}

/** @internal The addon's Lattice object. */
export interface NativeLattice {
  readonly id: number;
  readonly released: boolean;
  release(): void;
  /** `measure` false: one step of a distributed lattice, no moments or fields (status and steps only). */
  step(steps: number, measure?: boolean): NativeStep;
  /** Values a halo of `plane` holds: its nodes in storage × the 5 populations that cross. */
  haloSize(plane: number): number;
  packHalo(plane: number, direction: 1 | -1, out: Float64Array | Float32Array): void;
  unpackHalo(plane: number, direction: 1 | -1, values: Float64Array | Float32Array): void;
  /** Computes the fields now (allocated on first use). */
  refreshFields(): void;
  saveState(): void;
  restoreState(): void;
  /**
   * Whether the next step may be taken. `read` false: whether the last step proved the state
   * within the bounds a step needs (reads nothing); true: reads the state and applies the rule.
   * A true answer holds for the next step.
   */
  checkStep(read: boolean): boolean;
  stepAsync(steps: number): { promise: Promise<NativeStep>; cancel(): void };
  readonly velocity: Float64Array | Float32Array;
  readonly density: Float64Array | Float32Array;
  readonly porosity: Float64Array;
  readonly force: Float64Array;
  setBodyForce(force: [number, number, number]): void;
  setPressure(inletDensity: number, outletDensity: number): void;
  readonly info: NativeLatticeInfo;
  readonly busy: boolean;
}

/** @internal The exports of the flow addon. */
export interface FlowBinding extends NativeBinding {
  readonly Lattice: new (options: NativeLatticeOptions) => NativeLattice;
  /** `periodic`: the axes whose faces the path may cross (the flow axis never). */
  percolates(solid: Uint8Array, shape: [number, number, number], axis: number, periodic?: boolean[]): boolean;
  /** -1 per solid voxel, else its 18-connected pore component, numbered from 0 in voxel order. */
  labelPores(solid: Uint8Array, shape: [number, number, number]): Int32Array;
}

// dist/ sits beside package.json and native/.
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { version } = require('../package.json') as { version: string };

/**
 * @internal The addon, loaded at first use (an import never opens it):
 * PECLET_FLOW_BINARY, else the local build (native/build), else the
 * platform package of this machine, named literally here.
 */
export const native = lazyAddon<FlowBinding>({
  name: 'flow',
  root,
  packageName: '@peclet/flow',
  version,
  platforms: {
    'linux-x64-gnu': () => require.resolve('@peclet/flow-linux-x64-gnu/package.json'),
  },
});

/** @internal The flow module in this thread. */
export const flowModule = defineModule({ name: 'flow', native, executionSpace: 'host' });
