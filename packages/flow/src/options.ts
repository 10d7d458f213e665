/**
 * Reading the public arguments of flow through the argument vocabulary of `@peclet/core`: every
 * options object is read once, every number checked, every typed array copied before it is
 * checked. Errors are TypeErrors or RangeErrors whose message starts with the argument.
 * @internal
 */
import {
  fail,
  isDetached,
  readBoolean,
  readEnum,
  readFlags,
  readFloat64Array,
  readFunction,
  readInteger,
  readNumber,
  readOptions,
  readSignal,
  readVector3,
} from '@peclet/core';
import type { NativeLatticeOptions } from './native.js';
import type { Axis, Progress } from './types.js';

const MAX_THREADS = 65_536;
/** Largest lattice extent (voxel indices are 32-bit). */
const MAX_VOXELS = 2 ** 32 - 1;
export const AXES: readonly Axis[] = ['x', 'y', 'z'];

/** `'x' | 'y' | 'z'` or 0, 1, 2 → 0, 1, 2. */
export function readAxis(value: unknown, argument: string, fallback?: Axis): 0 | 1 | 2 {
  if (value === 0 || value === 1 || value === 2) return value;
  return AXES.indexOf(readEnum(value, argument, AXES, fallback)) as 0 | 1 | 2;
}

export function readShape(value: unknown, argument: string): [number, number, number] {
  if (!Array.isArray(value) && !ArrayBuffer.isView(value)) fail('type', argument, 'must be [n0, n1, n2]');
  const list = value as ArrayLike<unknown>;
  if (list.length !== 3) fail('type', argument, `must have 3 extents, got ${list.length}`);
  const shape = [0, 1, 2].map((i) => readInteger(list[i], `${argument}[${i}]`, { min: 1, max: MAX_VOXELS })) as [
    number,
    number,
    number,
  ];
  const voxels = shape[0] * shape[1] * shape[2];
  if (voxels > MAX_VOXELS) fail('range', argument, `has ${voxels} voxels; a lattice holds at most ${MAX_VOXELS}`);
  return shape;
}

/** A Uint8Array of `length` voxels, copied (it may be a view the caller changes later). */
export function readSolid(value: unknown, argument: string, length: number): Uint8Array {
  if (!(value instanceof Uint8Array) || !ArrayBuffer.isView(value)) {
    fail('type', argument, 'must be a Uint8Array (non-zero = solid)');
  }
  if (isDetached(value)) fail('type', argument, 'is detached');
  const copy = value.slice();
  if (copy.length !== length) fail('range', argument, `has ${copy.length} voxels, the shape needs ${length}`);
  return copy;
}

export interface LatticeSettings {
  readonly native: NativeLatticeOptions;
  readonly viscosity: number;
  readonly executionSpace: 'host' | 'webgpu';
  /** The `mpi` option as given (read by the Lattice, collectively). */
  readonly mpi: unknown;
}

export const DEFAULT_VISCOSITY = 1 / 6;
export const DEFAULT_MAGIC = 3 / 16;

/** Reads {@link LatticeOptions}. */
export function readLatticeOptions(value: unknown): LatticeSettings {
  const o = readOptions(value, 'options', [
    'shape',
    'solid',
    'solidFraction',
    'sdf',
    'periodic',
    'viscosity',
    'relaxation',
    'bodyForce',
    'pressure',
    'inertia',
    'precision',
    'layout',
    'executionSpace',
    'threads',
    'mpi',
  ]);
  const shape = readShape(o.shape, 'shape');
  const voxels = shape[0] * shape[1] * shape[2];
  const geometries = ['solid', 'solidFraction', 'sdf'].filter((k) => o[k as 'solid'] !== undefined);
  if (geometries.length > 1)
    fail('type', geometries[1] as string, `give one of solid, solidFraction or sdf, not ${geometries.join(' and ')}`);
  const solid = o.solid === undefined ? undefined : readSolid(o.solid, 'solid', voxels);
  const solidFraction =
    o.solidFraction === undefined
      ? undefined
      : readFloat64Array(o.solidFraction, 'solidFraction', { length: voxels, arrays: false });
  if (solidFraction) {
    const bad = solidFraction.findIndex((s) => !(s >= 0 && s <= 1));
    if (bad >= 0) fail('range', 'solidFraction', `must lie in [0, 1], got ${solidFraction[bad]}`, bad);
  }
  const sdf = o.sdf === undefined ? undefined : readFloat64Array(o.sdf, 'sdf', { length: voxels, arrays: false });
  if (sdf) {
    const bad = sdf.findIndex((d) => Number.isNaN(d));
    if (bad >= 0) fail('range', 'sdf', 'must hold numbers, got NaN', bad);
  }
  const periodic = readFlags(o.periodic, 3, 'periodic', true) as [boolean, boolean, boolean];
  const r = readOptions(o.relaxation, 'relaxation', ['model', 'magic', 'tau'], { optional: true });
  const model = readEnum(r.model, 'relaxation.model', ['trt', 'bgk'] as const, 'trt');
  let tau: number;
  let magic = DEFAULT_MAGIC;
  if (model === 'bgk') {
    if (r.magic !== undefined) fail('type', 'relaxation.magic', 'applies to TRT only');
    if (r.tau !== undefined && o.viscosity !== undefined) {
      fail('type', 'relaxation.tau', 'give viscosity or relaxation.tau, not both');
    }
    tau =
      r.tau !== undefined
        ? readNumber(r.tau, 'relaxation.tau', { above: 0.5, max: 1e4 })
        : 3 * readNumber(o.viscosity, 'viscosity', { above: 0, max: 3333, fallback: DEFAULT_VISCOSITY }) + 0.5;
  } else {
    if (r.tau !== undefined) fail('type', 'relaxation.tau', 'applies to BGK only (TRT takes viscosity and magic)');
    magic = readNumber(r.magic, 'relaxation.magic', { above: 0, max: 1e4, fallback: DEFAULT_MAGIC });
    tau = 3 * readNumber(o.viscosity, 'viscosity', { above: 0, max: 3333, fallback: DEFAULT_VISCOSITY }) + 0.5;
  }
  const bodyForce = readVector3(o.bodyForce, 'bodyForce', { fallback: [0, 0, 0], maxMagnitude: 1 });
  const executionSpace = readEnum(o.executionSpace, 'executionSpace', ['host', 'webgpu'] as const, 'host');
  const gpu = executionSpace === 'webgpu';
  const native: NativeLatticeOptions = {
    shape,
    solid,
    solidFraction,
    sdf,
    periodic,
    model,
    tau,
    magic,
    bodyForce,
    inertia: readBoolean(o.inertia, 'inertia', true),
    precision: readEnum(o.precision, 'precision', ['f64', 'f32'] as const, gpu ? 'f32' : 'f64'),
    layout: readEnum(o.layout, 'layout', ['auto', 'dense', 'sparse'] as const, 'auto'),
    threads: readInteger(o.threads, 'threads', { min: 1, max: MAX_THREADS, fallback: 0 }),
  };
  if (native.threads === 0 && o.threads !== undefined) fail('range', 'threads', 'must be at least 1');
  if (o.pressure !== undefined) {
    const p = readOptions(o.pressure, 'pressure', ['axis', 'inletDensity', 'outletDensity']);
    const pressureAxis = readAxis(p.axis, 'pressure.axis');
    native.pressureAxis = pressureAxis;
    native.inletDensity = readNumber(p.inletDensity, 'pressure.inletDensity', { above: 0.1, below: 10 });
    native.outletDensity = readNumber(p.outletDensity, 'pressure.outletDensity', { above: 0.1, below: 10 });
    if (periodic[pressureAxis]) fail('range', 'pressure.axis', `is periodic; set periodic[${pressureAxis}] to false`);
    // With mpi the planes along axis 0 are this rank's; the whole lattice's are checked once known.
    if (shape[pressureAxis] < 3 && !(o.mpi !== undefined && pressureAxis === 0)) {
      fail('range', 'shape', 'a pressure drive needs at least 3 planes along its axis');
    }
  }
  if (gpu) {
    // The device kernels: f32, sparse layout, voxel or gray geometry (see the README's WebGPU section).
    if (native.precision === 'f64') fail('range', 'precision', "executionSpace 'webgpu' computes in f32 only");
    if (native.layout === 'dense') fail('range', 'layout', "executionSpace 'webgpu' uses the sparse layout only");
    if (sdf) fail('range', 'sdf', "is not available on executionSpace 'webgpu'; give solid or solidFraction");
    native.layout = 'sparse';
  }
  if (gpu && o.mpi !== undefined) fail('range', 'executionSpace', "'webgpu' does not run over MPI ranks; use 'host'");
  return { native, viscosity: (tau - 0.5) / 3, executionSpace, mpi: o.mpi };
}

export interface RunSettings {
  readonly maxSteps: number;
  readonly tolerance: number;
  readonly checkInterval: number;
  readonly signal: AbortSignal | undefined;
  readonly onProgress: ((progress: Progress) => void) | undefined;
}

export const DEFAULT_MAX_STEPS = 100_000;
export const DEFAULT_TOLERANCE = 1e-6;

export function readRunOptions(value: unknown): RunSettings {
  const o = readOptions(value, 'options', ['maxSteps', 'tolerance', 'checkInterval', 'signal', 'onProgress'], {
    optional: true,
  });
  return {
    maxSteps: readInteger(o.maxSteps, 'maxSteps', { min: 1, max: 2 ** 40, fallback: DEFAULT_MAX_STEPS }),
    tolerance: readNumber(o.tolerance, 'tolerance', { min: 0, below: 1, fallback: DEFAULT_TOLERANCE }),
    checkInterval: readInteger(o.checkInterval, 'checkInterval', { min: 1, max: 1_000_000, fallback: 100 }),
    signal: readSignal(o.signal, 'signal'),
    onProgress: readFunction<(progress: Progress) => void>(o.onProgress, 'onProgress'),
  };
}
