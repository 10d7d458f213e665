/**
 * Reading the public arguments of dem through the argument vocabulary of `@peclet/core`: every
 * options object is read exactly once (a getter or Proxy that changes its answer cannot split
 * validation from use), every number is checked for type, finiteness and range, and every typed
 * array is copied before anything looks at it. Errors are TypeErrors or RangeErrors whose
 * message starts with the argument's name and which carry `argument` and `index`. The native
 * kernel validates again what it receives; these checks make the error the same whatever the
 * execution space and keep user code (getters) from running between a check and its use.
 * @internal
 */
import {
  describeValue,
  fail,
  isDetached,
  readBoolean,
  readBox,
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
import { DEFAULT_CONTACT_CAPACITY } from './gpu/path.js';
import type { Box, Progress } from './types.js';

/** Default target wall time of one slice of a run (ms). */
export const DEFAULT_PROGRESS_INTERVAL = 100;
/** Longest accepted slice target (ms): progress at least once a minute. */
export const MAX_PROGRESS_INTERVAL = 60_000;
/** Most threads a simulation may ask for (the pool caps it further at its own size). */
const MAX_THREADS = 65_536;
/** Most spheres one deposit inserts (the kernel's own bound). */
const MAX_DEPOSIT_COUNT = 2 ** 30;

/** The options the native constructor reads (NaN: unset, the kernel's default). */
export type NativeSimulationOptions = {
  boxMin: number[];
  boxMax: number[];
  periodic: boolean[];
  walls: boolean[];
  gravity: number[];
  timestep: number;
  /** 0: Hertz–Mindlin, 1: linear. */
  model: 0 | 1;
  youngsModulus: number;
  poissonRatio: number;
  stiffness: number;
  tangentialStiffnessRatio: number;
  restitution: number;
  friction: number;
  skin: number;
  rotation: boolean;
  impactVelocity: number;
  threads: number;
};

/** {@link SimulationOptions} read once and checked. */
export interface SimulationSettings {
  readonly native: NativeSimulationOptions;
  readonly escape: 'clamp' | 'throw';
  readonly executionSpace: 'host' | 'webgpu';
  readonly contactCapacity: number;
}

// A number the kernel defaults when absent (NaN), checked when present.
function optional(value: unknown, argument: string, range: Parameters<typeof readNumber>[2]): number {
  return value === undefined ? Number.NaN : readNumber(value, argument, range);
}

/** Reads `new Simulation(options)`: the options, their `box` and `contact`, each once. */
export function readSimulationOptions(options: unknown): SimulationSettings {
  const o = readOptions(options, 'options', [
    'box',
    'periodic',
    'walls',
    'gravity',
    'timestep',
    'contact',
    'skin',
    'rotation',
    'impactVelocity',
    'threads',
    'escape',
    'executionSpace',
    'contactCapacity',
  ]);
  const box = readBox(o.box, 'box');
  const periodic = readFlags(o.periodic, 3, 'periodic', false);
  const walls = readFlags(o.walls, 6, 'walls', true);
  const gravity = readVector3(o.gravity, 'gravity', { fallback: [0, 0, -9.81] });
  // 0 (or unset) asks for the automatic time step.
  const timestep = readNumber(o.timestep, 'timestep', { min: 0, fallback: 0, unit: 's' });
  const c = readOptions(o.contact, 'contact', [
    'model',
    'youngsModulus',
    'poissonRatio',
    'stiffness',
    'tangentialStiffnessRatio',
    'restitution',
    'friction',
  ]);
  const model = readEnum(c.model, 'contact.model', ['hertz-mindlin', 'linear'], 'hertz-mindlin');
  const youngsModulus =
    model === 'hertz-mindlin'
      ? readNumber(c.youngsModulus, 'contact.youngsModulus', { above: 0, unit: 'Pa' })
      : optional(c.youngsModulus, 'contact.youngsModulus', { above: 0, unit: 'Pa' });
  const stiffness =
    model === 'linear'
      ? readNumber(c.stiffness, 'contact.stiffness', { above: 0, unit: 'N/m' })
      : optional(c.stiffness, 'contact.stiffness', { above: 0, unit: 'N/m' });
  const native: NativeSimulationOptions = {
    boxMin: box.min,
    boxMax: box.max,
    periodic,
    walls,
    gravity,
    timestep: timestep === 0 ? Number.NaN : timestep,
    model: model === 'linear' ? 1 : 0,
    youngsModulus,
    poissonRatio: readNumber(c.poissonRatio, 'contact.poissonRatio', { min: 0, below: 0.5, fallback: 0.3 }),
    stiffness,
    tangentialStiffnessRatio: readNumber(c.tangentialStiffnessRatio, 'contact.tangentialStiffnessRatio', {
      above: 0,
      fallback: 2 / 7,
    }),
    restitution: readNumber(c.restitution, 'contact.restitution', { above: 0, max: 1, fallback: 0.5 }),
    friction: readNumber(c.friction, 'contact.friction', { min: 0, fallback: 0.5 }),
    skin: optional(o.skin, 'skin', { above: 0, unit: 'm' }),
    rotation: readBoolean(o.rotation, 'rotation', true),
    impactVelocity: optional(o.impactVelocity, 'impactVelocity', { above: 0, unit: 'm/s' }),
    // 0: the module's CPU budget.
    threads: o.threads === undefined ? 0 : readInteger(o.threads, 'threads', { min: 1, max: MAX_THREADS }),
  };
  return {
    native,
    escape: readEnum(o.escape, 'escape', ['clamp', 'throw'], 'clamp'),
    executionSpace: readEnum(o.executionSpace, 'executionSpace', ['host', 'webgpu'], 'host'),
    // Bounded by the device's limits when spheres are added (a RangeError naming `radii`/`count`).
    contactCapacity: readInteger(o.contactCapacity, 'contactCapacity', { min: 1, fallback: DEFAULT_CONTACT_CAPACITY }),
  };
}

/** {@link SphereBatch} read once, its arrays fresh copies. */
export interface SphereBatchValue {
  readonly positions: Float64Array;
  readonly radii: Float64Array;
  readonly density: number;
  readonly velocities: Float64Array | undefined;
  /** N flags, 1 for a fixed sphere; undefined when none is fixed. */
  readonly fixed: Uint8Array | undefined;
}

/**
 * `fixed` of a sphere batch: a boolean for all, or N booleans or a `Uint8Array` of N flags
 * (non-zero: fixed), copied. Undefined (none fixed) when absent or `false`.
 */
function readFixed(value: unknown, n: number): Uint8Array | undefined {
  if (value === undefined || value === false) return undefined;
  if (value === true) return new Uint8Array(n).fill(1);
  if (value instanceof Uint8Array && ArrayBuffer.isView(value)) {
    if (isDetached(value)) fail('type', 'fixed', 'is a detached Uint8Array: read it again');
    const copy = new Uint8Array(value);
    if (copy.length !== n) fail('type', 'fixed', `must hold one flag per sphere (${n}), got ${copy.length}`);
    for (let i = 0; i < n; i++) copy[i] = copy[i] === 0 ? 0 : 1;
    return copy;
  }
  if (!Array.isArray(value)) {
    fail('type', 'fixed', `must be a boolean, an array of ${n} booleans or a Uint8Array, got ${describeValue(value)}`);
  }
  return Uint8Array.from(readFlags(value, n, 'fixed', false), (flag) => (flag ? 1 : 0));
}

/**
 * Reads `addSpheres(batch)`. The arrays are copied first (a `SharedArrayBuffer` written by
 * another thread, or a zero-copy view of this simulation that adding spheres detaches, cannot
 * change under the call); their values are checked by the kernel on the copies.
 */
export function readSphereBatch(batch: unknown): SphereBatchValue {
  const o = readOptions(batch, 'batch', ['positions', 'radii', 'density', 'velocities', 'fixed']);
  const positions = readFloat64Array(o.positions, 'positions', { multipleOf: 3 });
  const radii = readFloat64Array(o.radii, 'radii');
  const velocities = o.velocities === undefined ? undefined : readFloat64Array(o.velocities, 'velocities');
  const n = radii.length;
  if (positions.length !== 3 * n) {
    fail('type', 'positions', `must hold 3 numbers per sphere (${3 * n} for ${n} radii), got ${positions.length}`);
  }
  if (velocities !== undefined && velocities.length !== 3 * n) {
    fail('type', 'velocities', `must hold 3 numbers per sphere (${3 * n} for ${n} radii), got ${velocities.length}`);
  }
  const density = readNumber(o.density, 'density', { above: 0, unit: 'kg/m³' });
  const fixed = readFixed(o.fixed, n);
  return { positions, radii, density, velocities, fixed };
}

/** The deposit options the native `deposit` reads (absent or NaN: the kernel's default). */
export type NativeDepositOptions = Record<string, number | string>;

/** {@link DepositOptions} (and, for `depositAsync`, its run options) read once. */
export interface DepositSettings {
  readonly native: NativeDepositOptions;
  /** `radius` was a plain number (the kernel names it `radius.radius`). */
  readonly fixedRadius: boolean;
  readonly count: number;
  readonly density: number;
  readonly maxSteps: number;
  readonly checkInterval: number;
  readonly run: RunSettings;
}

const DEPOSIT_KEYS = [
  'count',
  'radius',
  'density',
  'seed',
  'regionBottom',
  'regionTop',
  'maxAttemptsPerSphere',
  'kineticEnergyThreshold',
  'checkInterval',
  'maxSteps',
] as const;
const RUN_KEYS = ['signal', 'onProgress', 'progressInterval'] as const;

// The radius distribution, read once: a number or { kind, ... }.
function readRadius(value: unknown, out: NativeDepositOptions): boolean {
  if (typeof value === 'number') {
    out.kind = 'fixed';
    out.radius = readNumber(value, 'radius', { above: 0, unit: 'm' });
    return true;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    fail('type', 'radius', 'must be a number (m) or a distribution object { kind, ... }');
  }
  const r = readOptions(value, 'radius', [
    'kind',
    'radius',
    'minRadius',
    'maxRadius',
    'medianRadius',
    'logStandardDeviation',
  ]);
  const kind = readEnum(r.kind, 'radius.kind', ['fixed', 'uniform', 'lognormal']);
  out.kind = kind;
  if (kind === 'fixed') {
    out.radius = readNumber(r.radius, 'radius.radius', { above: 0, unit: 'm' });
    return false;
  }
  const minRadius = readNumber(r.minRadius, 'radius.minRadius', { above: 0, unit: 'm' });
  const maxRadius = readNumber(r.maxRadius, 'radius.maxRadius', { above: 0, unit: 'm' });
  if (minRadius > maxRadius) {
    fail('range', 'radius.minRadius', `must not exceed radius.maxRadius (got ${minRadius} > ${maxRadius})`);
  }
  out.minRadius = minRadius;
  out.maxRadius = maxRadius;
  if (kind === 'lognormal') {
    out.medianRadius = readNumber(r.medianRadius, 'radius.medianRadius', { above: 0, unit: 'm' });
    out.logStandardDeviation = readNumber(r.logStandardDeviation, 'radius.logStandardDeviation', { min: 0 });
  }
  return false;
}

/**
 * Reads `deposit(options)`, or with `async` the options of `depositAsync` (the same plus
 * `signal`, `onProgress` and `progressInterval`), in one pass over the object.
 */
export function readDepositOptions(options: unknown, async: boolean): DepositSettings {
  const o = readOptions(options, 'options', async ? [...DEPOSIT_KEYS, ...RUN_KEYS] : DEPOSIT_KEYS) as Record<
    string,
    unknown
  >;
  const count = readInteger(o.count, 'count', { min: 1, max: MAX_DEPOSIT_COUNT });
  const out: NativeDepositOptions = { count };
  const fixedRadius = readRadius(o.radius, out);
  const density = readNumber(o.density, 'density', { above: 0, unit: 'kg/m³' });
  const checkInterval = readInteger(o.checkInterval, 'checkInterval', { min: 1, fallback: 200 });
  const maxSteps = readInteger(o.maxSteps, 'maxSteps', { min: 0, fallback: 10_000_000 });
  Object.assign(out, {
    density,
    seed: readInteger(o.seed, 'seed', { min: 0, fallback: 1 }),
    regionBottom: optional(o.regionBottom, 'regionBottom', { unit: 'm' }),
    regionTop: optional(o.regionTop, 'regionTop', { unit: 'm' }),
    maxAttemptsPerSphere: readInteger(o.maxAttemptsPerSphere, 'maxAttemptsPerSphere', { min: 1, fallback: 10_000 }),
    kineticEnergyThreshold: optional(o.kineticEnergyThreshold, 'kineticEnergyThreshold', { min: 0, unit: 'J' }),
    checkInterval,
    maxSteps,
  });
  const run = async ? readRunFields(o) : { signal: undefined, onProgress: undefined, progressInterval: 0 };
  return { native: out, fixedRadius, count, density, maxSteps, checkInterval, run };
}

/** The asynchronous part of {@link RunOptions} and {@link DepositAsyncOptions}, read once. */
export interface RunSettings {
  readonly signal: AbortSignal | undefined;
  readonly onProgress: ((progress: Progress) => void) | undefined;
  /** Target wall time of one slice (ms), finite, in (0, {@link MAX_PROGRESS_INTERVAL}]. */
  readonly progressInterval: number;
}

function readRunFields(o: Record<string, unknown>): RunSettings {
  return {
    signal: readSignal(o.signal, 'signal'),
    onProgress: readFunction<(progress: Progress) => void>(o.onProgress, 'onProgress'),
    progressInterval: readNumber(o.progressInterval, 'progressInterval', {
      above: 0,
      max: MAX_PROGRESS_INTERVAL,
      fallback: DEFAULT_PROGRESS_INTERVAL,
      unit: 'ms',
    }),
  };
}

/** Reads `run(options)`: `steps` and the run fields, once each. */
export function readRunOptions(options: unknown): RunSettings & { readonly steps: number } {
  const o = readOptions(options, 'options', ['steps', ...RUN_KEYS]) as Record<string, unknown>;
  const steps = readInteger(o.steps, 'steps', { min: 0 });
  return { steps, ...readRunFields(o) };
}

/** Reads `step(steps)`. */
export function readSteps(steps: unknown): number {
  return readInteger(steps, 'steps', { min: 0 });
}

/** Reads the region of `packingFraction(region)`: a box read once, with min < max. */
export function readRegion(region: unknown): Box {
  return readBox(region, 'region');
}
