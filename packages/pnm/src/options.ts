/**
 * Reading the public arguments of pnm through the argument vocabulary of `@peclet/core`: every
 * options object is read once, every number checked. Errors are TypeErrors or RangeErrors whose
 * message starts with the argument.
 * @internal
 */
import {
  fail,
  isDetached,
  readBoolean,
  readEnum,
  readFloat64Array,
  readFunction,
  readInteger,
  readNumber,
  readOptions,
  readSignal,
} from '@peclet/core';
import type { NativeDrainageOptions, NativeExtractOptions, NativeSolveOptions } from './native.js';
import type { Axis, ExtractProgress } from './types.js';

export const AXES: readonly Axis[] = ['x', 'y', 'z'];
const MAX_THREADS = 65_536;
/** Voxel indices of the watershed and labels fit 32-bit region numbers; voxels are counted in doubles. */
const MAX_VOXELS = 2 ** 40;

/** `'x' | 'y' | 'z'` or 0, 1, 2 → 0, 1, 2. */
export function readAxis(value: unknown, argument: string, fallback?: Axis): 0 | 1 | 2 {
  if (value === 0 || value === 1 || value === 2) return value;
  return AXES.indexOf(readEnum(value, argument, AXES, fallback)) as 0 | 1 | 2;
}

/** `true` (all six faces), `false`, or a list of axes (both faces of each) → six flags. */
function readBoundaries(value: unknown): boolean[] {
  if (value === undefined || value === false) return [false, false, false, false, false, false];
  if (value === true) return [true, true, true, true, true, true];
  if (!Array.isArray(value)) {
    fail('type', 'boundaries', 'must be true, false or a list of axes such as ["x"]');
  }
  const faces = [false, false, false, false, false, false];
  const list = [...(value as unknown[])];
  if (list.length > 3) fail('range', 'boundaries', `lists ${list.length} axes; there are 3`);
  list.forEach((axis, i) => {
    const a = readAxis(axis, `boundaries[${i}]`);
    faces[2 * a] = true;
    faces[2 * a + 1] = true;
  });
  return faces;
}

export interface ExtractSettings {
  readonly solid: Uint8Array;
  readonly native: NativeExtractOptions;
}

export const EXTRACT_KEYS = ['sigma', 'rMax', 'boundaries', 'watershed', 'threads'] as const;

/** The watershed algorithms of {@link extract} (the first is the default). */
export const WATERSHEDS = ['basins', 'priority-flood'] as const;
export const ASYNC_KEYS = [...EXTRACT_KEYS, 'signal', 'onProgress', 'progressInterval'] as const;

/**
 * The image and extraction options. The image's array is not copied here: the addon copies it
 * before it reads a value (one copy, so that a large image is not held three times).
 */
export function readExtract(image: unknown, options: unknown, async: boolean): ExtractSettings & AsyncSettings {
  const { solid, shape, voxelSize } = readImage(image);
  const o = readOptions(options, 'options', async ? ASYNC_KEYS : EXTRACT_KEYS, { optional: true });
  const settings = {
    solid,
    native: {
      shape,
      voxelSize,
      sigma: readNumber(o.sigma, 'sigma', { min: 0, max: 100, fallback: 0.4 }),
      rMax: readInteger(o.rMax, 'rMax', { min: 1, max: 64, fallback: 4 }),
      boundaries: readBoundaries(o.boundaries),
      watershed: WATERSHEDS.indexOf(readEnum(o.watershed, 'watershed', WATERSHEDS, 'basins')),
      threads: readInteger(o.threads, 'threads', { min: 0, max: MAX_THREADS, fallback: 0 }),
    },
  };
  if (!async) return { ...settings, signal: undefined, onProgress: undefined, progressInterval: 100 };
  const a = o as Record<(typeof ASYNC_KEYS)[number], unknown>;
  return {
    ...settings,
    signal: readSignal(a.signal, 'signal'),
    onProgress: readFunction<(progress: ExtractProgress) => void>(a.onProgress, 'onProgress'),
    progressInterval: readNumber(a.progressInterval, 'progressInterval', { above: 0, max: 60_000, fallback: 100 }),
  };
}

/** The image's solid array (not copied: the addon copies it), shape and voxel size, checked. */
function readImage(image: unknown): { solid: Uint8Array; shape: [number, number, number]; voxelSize: number } {
  const im = readOptions(image, 'image', ['solid', 'shape', 'voxelSize'], { open: true });
  const solid = im.solid;
  if (!(solid instanceof Uint8Array) || !ArrayBuffer.isView(solid)) {
    fail('type', 'image.solid', 'must be a Uint8Array (1 = solid, 0 = pore)');
  }
  if (isDetached(solid))
    fail('type', 'image.solid', 'is a detached Uint8Array (its memory was released or transferred)');
  if (!Array.isArray(im.shape) && !ArrayBuffer.isView(im.shape)) fail('type', 'image.shape', 'must be [n0, n1, n2]');
  const list = im.shape as ArrayLike<unknown>;
  if (list.length !== 3) fail('type', 'image.shape', `must have 3 extents, got ${list.length}`);
  const shape = [0, 1, 2].map((i) => readInteger(list[i], `image.shape[${i}]`, { min: 1, max: MAX_VOXELS })) as [
    number,
    number,
    number,
  ];
  const voxels = shape[0] * shape[1] * shape[2];
  if (voxels > MAX_VOXELS) fail('range', 'image.shape', `has ${voxels} voxels; extraction handles at most 2^40`);
  if (solid.length !== voxels) {
    fail(
      'range',
      'image.shape',
      `${shape[0]} × ${shape[1]} × ${shape[2]} = ${voxels} voxels, but image.solid holds ${solid.length}`,
    );
  }
  // Voxels from a picometre to a kilometre: beyond, volumes (h³) and conductances (h³/μ) leave
  // the range of doubles and the solvers would see zeros.
  const voxelSize = readNumber(im.voxelSize, 'image.voxelSize', { min: 1e-12, max: 1e3 });
  return { solid: solid as Uint8Array, shape, voxelSize };
}

/** The image and options of {@link formationFactor}. */
export function readFormationFactor(image: unknown, options: unknown) {
  const { solid, shape } = readImage(image);
  const o = readOptions(options, 'options', ['axis', 'tolerance', 'maxIterations', 'threads'] as const, {
    optional: true,
  });
  return {
    solid,
    native: {
      shape,
      axis: readAxis(o.axis, 'axis', 'x'),
      tolerance: readNumber(o.tolerance, 'tolerance', { above: 0, below: 1, fallback: 1e-8 }),
      maxIterations: readInteger(o.maxIterations, 'maxIterations', { min: 0, max: 2 ** 31, fallback: 0 }),
      threads: readInteger(o.threads, 'threads', { min: 0, max: MAX_THREADS, fallback: 0 }),
    },
  };
}

export interface AsyncSettings {
  readonly signal: AbortSignal | undefined;
  readonly onProgress: ((progress: ExtractProgress) => void) | undefined;
  readonly progressInterval: number;
}

function readSolve(o: Record<string, unknown>): NativeSolveOptions {
  return {
    axis: readAxis(o.axis, 'axis', 'x'),
    tolerance: readNumber(o.tolerance, 'tolerance', { above: 0, below: 1, fallback: 1e-10 }),
    maxIterations: readInteger(o.maxIterations, 'maxIterations', { min: 0, max: 2 ** 31, fallback: 0 }),
  };
}

const SOLVE_KEYS = ['axis', 'tolerance', 'maxIterations'] as const;

export function readStokes(value: unknown) {
  const o = readOptions(
    value,
    'options',
    [...SOLVE_KEYS, 'viscosity', 'conductance', 'spacing', 'entrance', 'inletPressure', 'outletPressure'] as const,
    { optional: true },
  );
  const inletPressure = readNumber(o.inletPressure, 'inletPressure', { min: -1e12, max: 1e12, fallback: 101_326 });
  const outletPressure = readNumber(o.outletPressure, 'outletPressure', { min: -1e12, max: 1e12, fallback: 101_325 });
  if (!(Math.abs(inletPressure - outletPressure) >= 1e-9)) {
    fail(
      'range',
      'inletPressure',
      `${inletPressure} Pa against outletPressure ${outletPressure} Pa: the difference must be at least 1e-9 Pa`,
    );
  }
  return {
    ...readSolve(o),
    viscosity: readNumber(o.viscosity, 'viscosity', { min: 1e-12, max: 1e12, fallback: 1e-3 }),
    // The default conduit model: the closest to direct simulation over the images of bench/models.mjs.
    model: readConductance(o.conductance, 'pyramids-and-cuboids'),
    spacing: readSpacing(o.spacing),
    entrance: readBoolean(o.entrance, 'entrance', true),
    inletPressure,
    outletPressure,
  };
}

export const CONDUCTANCE_MODELS = [
  'hagen-poiseuille',
  'shape-factor',
  'pyramids-and-cuboids',
  'cones-and-cylinders',
  'spheres-and-cylinders',
] as const;

function readConductance(
  value: unknown,
  fallback: (typeof CONDUCTANCE_MODELS)[number] = 'hagen-poiseuille',
): (typeof CONDUCTANCE_MODELS)[number] {
  return readEnum(value, 'conductance', CONDUCTANCE_MODELS, fallback);
}

function readSpacing(value: unknown): 'total-length' | 'direct-length' {
  return readEnum(value, 'spacing', ['total-length', 'direct-length'] as const, 'direct-length');
}

export function readDiffusion(value: unknown): NativeSolveOptions & { model: string; spacing: string } {
  const o = readOptions(value, 'options', [...SOLVE_KEYS, 'conductance', 'spacing'] as const, { optional: true });
  return { ...readSolve(o), model: readConductance(o.conductance), spacing: readSpacing(o.spacing) };
}

export function readSizeFactorModel(model: unknown, options: unknown): { model: string; spacing: string } {
  const o = readOptions(options, 'options', ['spacing'] as const, { optional: true });
  return {
    model: readEnum(model, 'model', CONDUCTANCE_MODELS.slice(2) as readonly string[]),
    spacing: readSpacing(o.spacing),
  };
}

export function readDrainage(value: unknown, invasion: boolean): NativeDrainageOptions {
  const keys = invasion
    ? (['axis', 'entry', 'contactAngle', 'surfaceTension'] as const)
    : (['axis', 'entry', 'contactAngle', 'surfaceTension', 'pressures'] as const);
  const o = readOptions(value, 'options', keys, { optional: true }) as Record<string, unknown>;
  readEnum(o.entry, 'entry', ['washburn'] as const, 'washburn');
  const contactAngle = readNumber(o.contactAngle, 'contactAngle', { min: 0, max: 180, fallback: 140 });
  if (!(Math.cos((contactAngle * Math.PI) / 180) < -1e-12)) {
    fail(
      'range',
      'contactAngle',
      `is ${contactAngle}°: the invading phase must be non-wetting (an angle above 90°, 140 for mercury)`,
    );
  }
  const pressures =
    o.pressures === undefined
      ? undefined
      : readFloat64Array(
          o.pressures instanceof Float64Array ? o.pressures : Float64Array.from(readList(o.pressures)),
          'pressures',
        );
  if (pressures !== undefined) {
    if (pressures.length === 0) fail('range', 'pressures', 'is empty; leave it out to use every entry pressure');
    for (let i = 0; i < pressures.length; i++) {
      const p = pressures[i] as number;
      if (!(Number.isFinite(p) && p > 0))
        fail('range', 'pressures', `element ${i} is ${p}, not a positive finite pressure`, i);
      if (i > 0 && !(p > (pressures[i - 1] as number))) {
        fail('range', 'pressures', `element ${i} (${p}) does not exceed the one before: pressures must ascend`, i);
      }
    }
  }
  return {
    axis: readAxis(o.axis, 'axis', 'x'),
    contactAngle,
    surfaceTension: readNumber(o.surfaceTension, 'surfaceTension', { min: 1e-9, max: 1e3, fallback: 0.48 }),
    pressures,
  };
}

function readList(value: unknown): number[] {
  if (!Array.isArray(value)) fail('type', 'pressures', 'must be a Float64Array or an array of numbers (Pa)');
  return (value as unknown[]).map((x, i) => {
    if (typeof x !== 'number') fail('type', 'pressures', `element ${i} is not a number`, i);
    return x;
  });
}
