/**
 * The argument vocabulary every peclet package uses to read its public arguments: one reader per
 * kind of value, one error shape. Each reader reads its value once, checks type, finiteness and
 * range, and throws a `TypeError` (wrong kind of value) or a `RangeError` (right kind, value out
 * of range) whose message starts with the argument's name, and which carries `argument` and
 * `index` (-1 when the problem is not tied to one element).
 *
 * Options objects are read once ({@link readOptions}): a getter or Proxy that changes its answer
 * cannot split validation from use. Typed arrays are copied before they are checked
 * ({@link readFloat64Array}): a `SharedArrayBuffer` written by another thread, or a zero-copy
 * view of the object being changed, cannot change under the call.
 *
 * @example
 * ```ts
 * const o = readOptions(options, 'options', ['steps', 'signal']);
 * const steps = readInteger(o.steps, 'steps', { min: 0 });
 * const signal = readSignal(o.signal, 'signal');
 * ```
 */

/** A `TypeError` or `RangeError` from a reader, with the argument at fault. */
export interface ArgumentError extends Error {
  /** The argument's name in the public API (`options.box.min`, `radii`, ...). */
  readonly argument: string;
  /** The first offending element, or -1. */
  readonly index: number;
}

/** `type`: the value is of the wrong kind (`TypeError`); `range`: out of range (`RangeError`). */
export type ArgumentErrorKind = 'type' | 'range';

/**
 * Makes the error every reader throws: `<argument>[ (index i)]: <message>`, with `argument` and
 * `index` set.
 *
 * @example
 * ```ts
 * throw argumentError('range', 'radii', 'must be positive, got -1', 3);
 * // RangeError: radii (index 3): must be positive, got -1
 * ```
 */
export function argumentError(
  kind: ArgumentErrorKind,
  argument: string,
  message: string,
  index = -1,
): TypeError | RangeError {
  const where = index >= 0 ? ` (index ${index})` : '';
  const text = `${argument}${where}: ${message}`;
  const error = kind === 'type' ? new TypeError(text) : new RangeError(text);
  Object.defineProperty(error, 'argument', { value: argument, enumerable: true });
  Object.defineProperty(error, 'index', { value: index, enumerable: true });
  return error;
}

/** Throws {@link argumentError}. */
export function fail(kind: ArgumentErrorKind, argument: string, message: string, index = -1): never {
  throw argumentError(kind, argument, message, index);
}

/** A value for a message: short, and never throws (a Proxy or a symbol cannot break the error). */
export function describeValue(value: unknown): string {
  try {
    if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value);
    if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
    if (typeof value === 'bigint') return `${value}n`;
    if (value === null || value === undefined || typeof value === 'boolean') return String(value);
    if (typeof value === 'symbol') return value.toString();
    if (typeof value === 'function') return 'a function';
    if (ArrayBuffer.isView(value)) return `a ${value.constructor.name}`;
    if (Array.isArray(value)) return `an array of length ${value.length}`;
    return 'an object';
  } catch {
    return 'a value';
  }
}

/** Options of {@link readOptions}. */
export interface ReadOptionsSettings {
  /** `undefined` for the whole object reads as an object with every key `undefined`. */
  readonly optional?: boolean;
  /**
   * Own keys other than `keys` are left unread instead of refused: only for records that carry
   * data beside the fields read (an image from a reader, an environment), never for options.
   */
  readonly open?: boolean;
}

/**
 * Options that some packages take and others do not yet, and where they are taken: an options
 * object that holds one where it is not an option is refused with this note, not ignored (a
 * script launched under `mpirun` must not compute the same run on every rank without a word).
 */
const TAKEN_ELSEWHERE: Readonly<Record<string, string>> = {
  mpi: "MPI is taken by @peclet/flow's Lattice and permeability() only",
};

/** Optimal string alignment distance (Levenshtein with adjacent transpositions), case-insensitive. */
function editDistance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  const rows: number[][] = [];
  for (let i = 0; i <= x.length; i++) {
    const row = new Array<number>(y.length + 1).fill(0);
    row[0] = i;
    rows.push(row);
  }
  const first = rows[0] as number[];
  for (let j = 0; j <= y.length; j++) first[j] = j;
  for (let i = 1; i <= x.length; i++) {
    const row = rows[i] as number[];
    const above = rows[i - 1] as number[];
    for (let j = 1; j <= y.length; j++) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      let d = Math.min((above[j] as number) + 1, (row[j - 1] as number) + 1, (above[j - 1] as number) + cost);
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1]) {
        d = Math.min(d, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      }
      row[j] = d;
    }
  }
  return (rows[x.length] as number[])[y.length] as number;
}

/**
 * The known key a misspelt `key` most likely meant: the nearest by edit distance (case ignored)
 * within 2 edits and at most half the key's length, the first of equals; undefined when none is.
 */
export function closestKey(key: string, keys: readonly string[]): string | undefined {
  if (typeof key !== 'string') fail('type', 'key', `must be a string, got ${describeValue(key)}`);
  if (!Array.isArray(keys)) fail('type', 'keys', `must be an array of strings, got ${describeValue(keys)}`);
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const known of keys) {
    if (typeof known !== 'string') fail('type', 'keys', `must hold strings, got ${describeValue(known)}`);
    // The distance is at least the difference in length: only near lengths are compared.
    if (Math.abs(known.length - key.length) > 2) continue;
    const d = editDistance(key, known);
    if (d < bestDistance) {
      best = known;
      bestDistance = d;
    }
  }
  return bestDistance <= 2 && bestDistance <= Math.floor(key.length / 2) ? best : undefined;
}

/**
 * Reads `keys` of an options object, each exactly once, into a plain object. `undefined` (and,
 * with `optional`, a missing options object) gives all keys `undefined`. Anything else that is
 * not an object is a TypeError naming `argument`. An own enumerable key that is not in `keys` is
 * a TypeError naming `<argument>.<key>`, with the nearest known key when one is near (`did you
 * mean 'periodic'?`) or where it is taken when another package takes it, unless `open`. A getter
 * that throws propagates its error.
 */
export function readOptions<K extends string>(
  value: unknown,
  argument: string,
  keys: readonly K[],
  settings: ReadOptionsSettings = {},
): Record<K, unknown> {
  if (settings !== undefined && Object.keys(settings).some((k) => k !== 'optional' && k !== 'open')) {
    readOptions(settings, 'settings', ['optional', 'open']);
  }
  const { optional = false, open = false } = settings ?? {};
  const out = Object.create(null) as Record<K, unknown>;
  if (value === undefined && optional) {
    for (const key of keys) out[key] = undefined;
    return out;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value) || ArrayBuffer.isView(value)) {
    fail('type', argument, `must be an options object, got ${describeValue(value)}`);
  }
  const source = value as Record<string, unknown>;
  if (!open) {
    const known = keys as readonly string[];
    for (const key of Object.keys(source)) {
      if (known.includes(key)) continue;
      const path = `${argument}.${key.length > 60 ? `${key.slice(0, 60)}…` : key}`;
      const elsewhere = Object.hasOwn(TAKEN_ELSEWHERE, key) ? TAKEN_ELSEWHERE[key] : undefined;
      if (elsewhere !== undefined) fail('type', path, `is not an option here: ${elsewhere}`);
      const near = closestKey(key, known);
      const list = known.length > 0 ? `the options are ${known.join(', ')}` : 'it takes no options';
      fail('type', path, `is not an option${near === undefined ? '' : `; did you mean '${near}'?`} (${list})`);
    }
  }
  for (const key of keys) out[key] = source[key];
  return out;
}

/**
 * Checks the keys of a reader's own settings object (`range`, `shape`, ...) the way
 * {@link readOptions} checks options: a misspelt setting would silently loosen a check.
 */
function checkSettings(settings: object | undefined, argument: string, keys: readonly string[]): void {
  if (settings !== undefined) readOptions(settings, argument, keys);
}

/** Options of {@link readNumber}. */
export interface NumberRange {
  /** Smallest accepted value (inclusive). */
  readonly min?: number;
  /** Largest accepted value (inclusive). */
  readonly max?: number;
  /** The value must be greater than this. */
  readonly above?: number;
  /** The value must be less than this. */
  readonly below?: number;
  /** Whole numbers only. */
  readonly integer?: boolean;
  /** Used when the value is `undefined`; without it `undefined` is a TypeError. */
  readonly fallback?: number | undefined;
  /** Accept ±Infinity (never NaN). */
  readonly infinite?: boolean;
  /** The unit, for messages (`m`, `s`, `kg/m³`). */
  readonly unit?: string;
}

function rangeText(r: NumberRange): string {
  const parts: string[] = [];
  if (r.min !== undefined) parts.push(`≥ ${r.min}`);
  if (r.above !== undefined) parts.push(`> ${r.above}`);
  if (r.max !== undefined) parts.push(`≤ ${r.max}`);
  if (r.below !== undefined) parts.push(`< ${r.below}`);
  const what = r.integer ? 'an integer' : r.infinite ? 'a number' : 'a finite number';
  return parts.length > 0 ? `${what} ${parts.join(' and ')}` : what;
}

const NUMBER_RANGE_KEYS = ['min', 'max', 'above', 'below', 'integer', 'fallback', 'infinite', 'unit'] as const;

/**
 * A number: TypeError when it is not a number (or absent without a fallback), RangeError when it
 * is NaN, infinite (unless `infinite`), not whole (with `integer`) or out of range.
 */
export function readNumber(value: unknown, argument: string, range: NumberRange = {}): number {
  checkSettings(range, 'range', NUMBER_RANGE_KEYS);
  if (value === undefined && range.fallback !== undefined) return range.fallback;
  if (typeof value !== 'number') {
    fail(
      'type',
      argument,
      `must be ${rangeText(range)}${range.unit ? ` (${range.unit})` : ''}, got ${describeValue(value)}`,
    );
  }
  const ok =
    !Number.isNaN(value) &&
    (range.infinite === true || Number.isFinite(value)) &&
    (range.integer !== true || Number.isInteger(value)) &&
    (range.min === undefined || value >= range.min) &&
    (range.max === undefined || value <= range.max) &&
    (range.above === undefined || value > range.above) &&
    (range.below === undefined || value < range.below);
  if (!ok) {
    fail(
      'range',
      argument,
      `must be ${rangeText(range)}${range.unit ? ` (${range.unit})` : ''}, got ${describeValue(value)}`,
    );
  }
  return value;
}

/** A whole number in [min, max] (default [0, 2^53 − 1]); see {@link readNumber}. */
export function readInteger(
  value: unknown,
  argument: string,
  range: { min?: number; max?: number; fallback?: number } = {},
): number {
  checkSettings(range, 'range', ['min', 'max', 'fallback']);
  const { min = 0, max = Number.MAX_SAFE_INTEGER, fallback } = range;
  return readNumber(value, argument, { min, max, integer: true, fallback });
}

/** A boolean (or `fallback` when `undefined`). */
export function readBoolean(value: unknown, argument: string, fallback?: boolean): boolean {
  if (value === undefined && fallback !== undefined) return fallback;
  if (typeof value !== 'boolean') fail('type', argument, `must be true or false, got ${describeValue(value)}`);
  return value;
}

/** One of `choices` (or `fallback` when `undefined`). */
export function readEnum<T extends string>(value: unknown, argument: string, choices: readonly T[], fallback?: T): T {
  if (value === undefined && fallback !== undefined) return fallback;
  if (typeof value !== 'string' || !(choices as readonly string[]).includes(value)) {
    fail('type', argument, `must be one of ${choices.map((c) => `'${c}'`).join(', ')}, got ${describeValue(value)}`);
  }
  return value as T;
}

/** A list of a fixed number of elements, read once each: an array or a typed array. */
function readList(value: unknown, argument: string, count: number, what: string): unknown[] {
  if (!Array.isArray(value) && !(ArrayBuffer.isView(value) && !(value instanceof DataView))) {
    fail('type', argument, `must be ${what}, got ${describeValue(value)}`);
  }
  const list = value as ArrayLike<unknown>;
  const length = list.length;
  if (length !== count) fail('type', argument, `must be ${what}, got length ${length}`);
  const out: unknown[] = [];
  for (let i = 0; i < count; i++) out.push(list[i]);
  return out;
}

/**
 * `[x, y, z]`: three finite numbers from an array or typed array, copied. `maxMagnitude` bounds
 * each |component| (RangeError above it).
 */
export function readVector3(
  value: unknown,
  argument: string,
  options: { fallback?: readonly [number, number, number] | undefined; maxMagnitude?: number | undefined } = {},
): [number, number, number] {
  checkSettings(options, 'options', ['fallback', 'maxMagnitude']);
  const { fallback, maxMagnitude } = options;
  if (value === undefined && fallback !== undefined) return [fallback[0], fallback[1], fallback[2]];
  const list = readList(value, argument, 3, '[x, y, z]');
  const out = list.map((x, i) => {
    if (typeof x !== 'number') fail('type', `${argument}[${i}]`, `must be a number, got ${describeValue(x)}`, i);
    if (!Number.isFinite(x)) fail('range', `${argument}[${i}]`, `must be finite, got ${describeValue(x)}`, i);
    if (maxMagnitude !== undefined && Math.abs(x) > maxMagnitude) {
      fail('range', `${argument}[${i}]`, `must lie within ±${maxMagnitude}, got ${x}`, i);
    }
    return x;
  });
  return out as [number, number, number];
}

/** `count` booleans: one boolean for all, an array of `count` booleans, or `fallback` for all when `undefined`. */
export function readFlags(value: unknown, count: number, argument: string, fallback: boolean): boolean[] {
  if (value === undefined) return new Array<boolean>(count).fill(fallback);
  if (typeof value === 'boolean') return new Array<boolean>(count).fill(value);
  const list = readList(value, argument, count, `a boolean or ${count} booleans`);
  return list.map((x, i) => {
    if (typeof x !== 'boolean') fail('type', `${argument}[${i}]`, `must be true or false, got ${describeValue(x)}`, i);
    return x;
  });
}

/** Options of {@link readFloat64Array}. */
export interface Float64ArrayShape {
  /** Exact length required. */
  readonly length?: number;
  /** The length must be a multiple of this (3 for xyz triples). */
  readonly multipleOf?: number;
  /** Accept a plain array of numbers too (default true). */
  readonly arrays?: boolean;
  /** Check every element is finite (on the copy). */
  readonly finite?: boolean;
  /** Largest accepted length (the caller's memory bound); RangeError above it. */
  readonly maxLength?: number;
}

/** True when the typed array's buffer was detached (transferred, or released by its owner). */
export function isDetached(view: ArrayBufferView): boolean {
  if (!ArrayBuffer.isView(view)) fail('type', 'view', `must be a typed array or DataView, got ${describeValue(view)}`);
  const buffer = view.buffer as ArrayBuffer & { detached?: boolean };
  if (typeof buffer.detached === 'boolean') return buffer.detached;
  if (buffer.byteLength !== 0) return false;
  try {
    new Uint8Array(buffer);
    return false;
  } catch {
    return true;
  }
}

/**
 * A `Float64Array` (or, unless `arrays: false`, an array of numbers) as a fresh copy: never
 * shared with another thread, never a view of memory the call may move. A detached array is a
 * TypeError; a wrong length a TypeError; with `finite`, a NaN or infinite element a RangeError
 * with its index — checked on the copy, so a concurrent writer cannot slip one in after the check.
 */
export function readFloat64Array(value: unknown, argument: string, shape: Float64ArrayShape = {}): Float64Array {
  checkSettings(shape, 'shape', ['length', 'multipleOf', 'arrays', 'finite', 'maxLength']);
  let copy: Float64Array;
  // ArrayBuffer.isView: a Proxy of a Float64Array passes instanceof but is no typed array.
  if (value instanceof Float64Array && ArrayBuffer.isView(value)) {
    if (isDetached(value)) {
      fail('type', argument, 'is a detached Float64Array (its memory was released or transferred): read it again');
    }
    copy = new Float64Array(value);
  } else if (Array.isArray(value) && shape.arrays !== false) {
    const length = value.length;
    if (shape.maxLength !== undefined && length > shape.maxLength) {
      fail('range', argument, `holds ${length} numbers, more than the ${shape.maxLength} allowed`);
    }
    copy = new Float64Array(length);
    for (let i = 0; i < length; i++) {
      const x = value[i];
      if (typeof x !== 'number') fail('type', argument, `element ${i} must be a number, got ${describeValue(x)}`, i);
      copy[i] = x;
    }
  } else {
    const what = shape.arrays === false ? 'a Float64Array' : 'a Float64Array or an array of numbers';
    return fail('type', argument, `must be ${what}, got ${describeValue(value)}`);
  }
  const n = copy.length;
  if (shape.maxLength !== undefined && n > shape.maxLength) {
    fail('range', argument, `holds ${n} numbers, more than the ${shape.maxLength} allowed`);
  }
  if (shape.length !== undefined && n !== shape.length) {
    fail('type', argument, `must hold ${shape.length} numbers, got ${n}`);
  }
  if (shape.multipleOf !== undefined && n % shape.multipleOf !== 0) {
    fail('type', argument, `length ${n} is not a multiple of ${shape.multipleOf}`);
  }
  if (shape.finite) {
    for (let i = 0; i < n; i++) {
      if (!Number.isFinite(copy[i])) fail('range', argument, `element ${i} is not finite (${copy[i]})`, i);
    }
  }
  return copy;
}

/** An `AbortSignal` or `undefined`. */
export function readSignal(value: unknown, argument: string): AbortSignal | undefined {
  if (value === undefined) return undefined;
  if (!(value instanceof AbortSignal)) fail('type', argument, `must be an AbortSignal, got ${describeValue(value)}`);
  return value;
}

/** A function or `undefined`. */
export function readFunction<F extends (...args: never[]) => unknown>(value: unknown, argument: string): F | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'function') fail('type', argument, `must be a function, got ${describeValue(value)}`);
  return value as F;
}

/** An axis-aligned box read once. */
export interface BoxValue {
  readonly min: [number, number, number];
  readonly max: [number, number, number];
}

/**
 * `{ min: [x, y, z], max: [x, y, z] }` with `min < max` on every axis and every width
 * `max − min` finite (a box from −1e308 to 1e308 is a RangeError: its width overflows).
 * `maxExtent` bounds each width and `maxMagnitude` each coordinate.
 */
export function readBox(
  value: unknown,
  argument: string,
  limits: { maxExtent?: number | undefined; maxMagnitude?: number | undefined } = {},
): BoxValue {
  checkSettings(limits, 'limits', ['maxExtent', 'maxMagnitude']);
  const { maxExtent, maxMagnitude } = limits;
  const o = readOptions(value, argument, ['min', 'max']);
  const min = readVector3(o.min, `${argument}.min`, { maxMagnitude });
  const max = readVector3(o.max, `${argument}.max`, { maxMagnitude });
  for (let a = 0; a < 3; a++) {
    const axis = 'xyz'[a];
    const lo = min[a] as number;
    const hi = max[a] as number;
    if (!(hi > lo)) fail('range', argument, `max must exceed min on axis ${axis} (got ${lo} .. ${hi})`, a);
    const width = hi - lo;
    if (!Number.isFinite(width)) {
      fail('range', argument, `width on axis ${axis} (${hi} − ${lo}) overflows a double`, a);
    }
    if (maxExtent !== undefined && width > maxExtent) {
      fail('range', argument, `width on axis ${axis} is ${width}, more than the ${maxExtent} allowed`, a);
    }
  }
  return { min, max };
}
