/**
 * Readers of flag values: each takes the text commander collected and returns the value a
 * package wants, or throws a {@link UsageError} that names the flag and quotes what it got.
 */
import { stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { UsageError } from './errors.js';

export type Axis = 'x' | 'y' | 'z';
export const axes: readonly Axis[] = ['x', 'y', 'z'];

const quote = (text: string) => JSON.stringify(text);

/** Comma-separated fields, spaces around them ignored. */
function fields(text: string): string[] {
  return text.split(',').map((s) => s.trim());
}

/** A finite number written as JS or C would (`5.345e-6`, `-1`, `.5`); not `''`, `0x10` or `Infinity`. */
function parseDecimal(text: string): number | undefined {
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) return undefined;
  const x = Number(text);
  return Number.isFinite(x) ? x : undefined;
}

/**
 * `--shape n0,n1,n2`: three positive integers, C order (the last index fastest in the file).
 *
 * @example
 * ```ts
 * readShapeFlag('200,200,200'); // [200, 200, 200]
 * ```
 */
export function readShapeFlag(text: string, command: string, flag = '--shape'): [number, number, number] {
  const parts = fields(text);
  const values = parts.map((p) => (/^\d+$/.test(p) ? Number(p) : Number.NaN));
  if (parts.length !== 3 || !values.every((v) => Number.isSafeInteger(v) && v > 0)) {
    throw new UsageError(`${flag} must be three positive integers, got ${quote(text)}`, command);
  }
  return values as [number, number, number];
}

/** Any finite number (`--pore-value`, `--solid-value`). */
export function readNumberFlag(text: string, flag: string, command: string): number {
  const x = parseDecimal(text.trim());
  if (x === undefined) throw new UsageError(`${flag} must be a number, got ${quote(text)}`, command);
  return x;
}

/** A finite number > 0 (`--voxel-size`, `--tolerance`). */
export function readPositiveFlag(text: string, flag: string, command: string, what = 'a positive number'): number {
  const x = parseDecimal(text.trim());
  if (x === undefined || !(x > 0)) throw new UsageError(`${flag} must be ${what}, got ${quote(text)}`, command);
  return x;
}

/** A finite number ≥ 0 (`--sigma`). */
export function readNonNegativeFlag(text: string, flag: string, command: string): number {
  const x = parseDecimal(text.trim());
  if (x === undefined || x < 0) throw new UsageError(`${flag} must be a number ≥ 0, got ${quote(text)}`, command);
  return x;
}

/** An integer in [min, max] (`--buffer`, `--max-steps`, `--threads`). */
export function readIntegerFlag(text: string, flag: string, command: string, min: number, max: number): number {
  const t = text.trim();
  const x = /^[+-]?\d+$/.test(t) ? Number(t) : Number.NaN;
  if (!Number.isSafeInteger(x) || x < min || x > max) {
    throw new UsageError(`${flag} must be an integer from ${min} to ${max}, got ${quote(text)}`, command);
  }
  return x;
}

/** An axis box `{ min, max }` in the order voro++ and the README give it. */
export interface BoxFlag {
  readonly min: [number, number, number];
  readonly max: [number, number, number];
}

/**
 * `--box xmin,ymin,zmin,xmax,ymax,zmax`: six finite numbers, each max above its min.
 *
 * @example
 * ```ts
 * readBoxFlag('0,0,0,1,1,2'); // { min: [0, 0, 0], max: [1, 1, 2] }
 * ```
 */
export function readBoxFlag(text: string, command: string): BoxFlag {
  const parts = fields(text);
  const values = parts.map(parseDecimal);
  if (parts.length !== 6 || values.some((v) => v === undefined)) {
    throw new UsageError(`--box must be six numbers xmin,ymin,zmin,xmax,ymax,zmax, got ${quote(text)}`, command);
  }
  const v = values as number[];
  const min = v.slice(0, 3) as [number, number, number];
  const max = v.slice(3) as [number, number, number];
  for (let a = 0; a < 3; a++) {
    if (!((max[a] as number) > (min[a] as number))) {
      const axis = axes[a] as Axis;
      throw new UsageError(
        `--box: ${axis}max (${max[a]}) must be greater than ${axis}min (${min[a]}), got ${quote(text)}`,
        command,
      );
    }
  }
  return { min, max };
}

/**
 * A set of axes: `all` (or `true`, `xyz`), `none` (or `false`), or a list such as `x,z` or `xz`.
 * Returns one flag per axis.
 */
export function readAxesFlag(text: string, flag: string, command: string): [boolean, boolean, boolean] {
  const t = text.trim().toLowerCase();
  if (t === 'all' || t === 'true') return [true, true, true];
  if (t === 'none' || t === 'false') return [false, false, false];
  const letters = t.replace(/[\s,]/g, '');
  const out: [boolean, boolean, boolean] = [false, false, false];
  if (letters.length === 0 || !/^[xyz]+$/.test(letters)) {
    throw new UsageError(`${flag} must be all, none or axes such as x,z, got ${quote(text)}`, command);
  }
  for (const letter of letters) {
    const a = axes.indexOf(letter as Axis);
    if (out[a]) throw new UsageError(`${flag} names ${letter} twice, got ${quote(text)}`, command);
    out[a] = true;
  }
  return out;
}

/** The flagged axes' names (`['x', 'z']`). */
export function axisNames(flags: readonly boolean[]): Axis[] {
  return axes.filter((_, a) => flags[a]);
}

/** An output path whose extension must be one of `extensions` (lower case, with the dot). */
export function readOutputFlag(text: string, flag: string, command: string, extensions: readonly string[]): string {
  const lower = text.toLowerCase();
  if (text.length === 0 || !extensions.some((e) => lower.endsWith(e) && lower.length > e.length)) {
    throw new UsageError(`${flag} must name a ${extensions.join(' or ')} file, got ${quote(text)}`, command);
  }
  return text;
}

/**
 * Checks that the folder an output goes into exists, before a long computation rather than
 * after it.
 */
export async function checkOutputFolder(path: string, flag: string, command: string): Promise<void> {
  const folder = dirname(path);
  let isDirectory = false;
  try {
    isDirectory = (await stat(folder)).isDirectory();
  } catch {
    // Reported below.
  }
  if (!isDirectory) throw new UsageError(`${flag}: the folder ${folder} of ${path} does not exist`, command);
}

/** `value`, or a {@link UsageError} saying it is required. */
export function requiredFlag(value: string | undefined, message: string, command: string): string {
  if (value === undefined) throw new UsageError(message, command);
  return value;
}
