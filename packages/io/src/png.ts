import { writeFile } from 'node:fs/promises';
import { describeValue, fail, readInteger, readNumber, readOptions } from '@peclet/core';
import { readPath, writeAtomically } from './atomic.js';
import { checkMemory } from './errors.js';
import { readShape, type Shape3, voxelCount } from './voxel.js';
import { type NumericArray, readNumericArray } from './vtk.js';

/** A 2-D scalar image, row-major: `data[row * width + column]`, row 0 at the top of a PNG. */
export interface Slice {
  data: Float64Array;
  width: number;
  height: number;
}

/** Options of {@link sliceOf}. */
export interface SliceOptions {
  /** The axis held fixed: 0/'x', 1/'y', 2/'z'. */
  axis: 0 | 1 | 2 | 'x' | 'y' | 'z';
  /** The index along `axis`. */
  index: number;
  /** Values per voxel, interleaved (default 1; 3 for a velocity). */
  components?: number;
  /** With components > 1: the Euclidean norm of each tuple (default true). */
  magnitude?: boolean;
  /** With components > 1: take this component instead of the magnitude. */
  component?: number;
}

/** The values of {@link SliceOptions.axis}: a Map, so that no inherited key ('toString') is an axis. */
const axisNames = new Map<unknown, number>([
  [0, 0],
  [1, 1],
  [2, 2],
  ['x', 0],
  ['y', 1],
  ['z', 2],
]);

/**
 * A 2-D slice of a C-order field over `shape` at `axis = index`. The two remaining axes, in
 * order, are the columns (u, fastest) and the rows (v): for axis x the image is y across and z
 * down, for y it is x across and z down, for z it is x across and y down. A multi-component
 * field gives the magnitude of each tuple (or one `component`).
 *
 * @example
 * ```ts
 * const slice = sliceOf(velocity, [64, 64, 64], { axis: 'z', index: 32, components: 3 });
 * await writePng('speed.png', slice, { colormap: 'viridis' });
 * ```
 */
export function sliceOf(
  field: NumericArray,
  shape: readonly [number, number, number] | [number, number, number],
  options: SliceOptions,
): Slice {
  const { values } = readNumericArray(field, 'field');
  const s: Shape3 = readShape(shape, 'shape');
  const o = readOptions(options, 'options', ['axis', 'index', 'components', 'magnitude', 'component']);
  const axis = axisNames.get(o.axis);
  if (axis === undefined) fail('type', 'axis', `must be 0, 1, 2, 'x', 'y' or 'z', got ${describeValue(o.axis)}`);
  const index = readInteger(o.index, 'index', { max: (s[axis] as number) - 1 });
  const components = readInteger(o.components, 'components', { min: 1, max: 4096, fallback: 1 });
  const magnitude = o.magnitude === undefined ? true : o.magnitude;
  if (typeof magnitude !== 'boolean')
    fail('type', 'magnitude', `must be true or false, got ${describeValue(magnitude)}`);
  const component =
    o.component === undefined ? undefined : readInteger(o.component, 'component', { max: components - 1 });
  if (components > 1 && !magnitude && component === undefined) {
    fail('type', 'component', 'is needed when magnitude is false and components > 1');
  }
  const expected = voxelCount(s) * components;
  if (values.length !== expected) {
    fail('range', 'field', `holds ${values.length} values, but ${s.join(' × ')} × ${components} need ${expected}`);
  }
  const [uAxis, vAxis] = [0, 1, 2].filter((a) => a !== axis) as [number, number];
  const width = s[uAxis] as number;
  const height = s[vAxis] as number;
  const strides = [s[1] * s[2], s[2], 1];
  const data = new Float64Array(width * height);
  const base = index * (strides[axis] as number);
  const su = strides[uAxis] as number;
  const sv = strides[vAxis] as number;
  for (let v = 0; v < height; v++) {
    for (let u = 0; u < width; u++) {
      const at = (base + u * su + v * sv) * components;
      let x: number;
      if (components === 1) x = values[at] as number;
      else if (component !== undefined) x = values[at + component] as number;
      else {
        let sum = 0;
        for (let q = 0; q < components; q++) sum += (values[at + q] as number) ** 2;
        x = Math.sqrt(sum);
      }
      data[v * width + u] = x;
    }
  }
  return { data, width, height };
}

/** matplotlib's viridis at 10 evenly spaced stops, interpolated linearly in between. */
const viridisStops = [
  [68, 1, 84],
  [72, 40, 120],
  [62, 74, 137],
  [49, 104, 142],
  [38, 130, 142],
  [31, 158, 137],
  [53, 183, 121],
  [109, 205, 89],
  [180, 222, 44],
  [253, 231, 37],
];

/** The colour of t in [0, 1] under a colormap. */
function colour(t: number, map: 'viridis' | 'gray', out: Uint8Array, at: number): void {
  if (map === 'gray') {
    const g = Math.round(255 * t);
    out[at] = g;
    out[at + 1] = g;
    out[at + 2] = g;
    return;
  }
  const x = t * (viridisStops.length - 1);
  const i = Math.min(Math.floor(x), viridisStops.length - 2);
  const f = x - i;
  const a = viridisStops[i] as number[];
  const b = viridisStops[i + 1] as number[];
  for (let c = 0; c < 3; c++) out[at + c] = Math.round((a[c] as number) + f * ((b[c] as number) - (a[c] as number)));
}

/** Options of {@link writePng}. */
export interface WritePngOptions {
  /** Default `'viridis'`. */
  colormap?: 'viridis' | 'gray';
  /** Values mapped to the ends of the colormap (default: the finite minimum and maximum). */
  range?: readonly [number, number] | [number, number];
  /** 1 = draw this pixel in `maskColor` (solid), 0 = colour its value. */
  mask?: Uint8Array;
  /** Colour of masked and non-finite pixels (default mid gray under viridis, black under gray). */
  maskColor?: readonly [number, number, number] | [number, number, number];
}

/**
 * Writes a 2-D scalar image as an 8-bit RGB PNG (via fast-png), atomically. Values are clamped
 * to `range`; NaN and masked pixels get `maskColor`.
 *
 * @example
 * ```ts
 * const slice = sliceOf(image.solid, image.shape, { axis: 'x', index: 0 });
 * await writePng('slice.png', slice, { colormap: 'gray' });
 * ```
 */
export async function writePng(
  path: string,
  image: { data: ArrayLike<number>; width: number; height: number },
  options: WritePngOptions = {},
): Promise<void> {
  const file = readPath(path);
  const im = readOptions(image, 'image', ['data', 'width', 'height'], { open: true });
  const width = readInteger(im.width, 'image.width', { min: 1, max: 2 ** 31 - 1 });
  const height = readInteger(im.height, 'image.height', { min: 1, max: 2 ** 31 - 1 });
  const pixels = width * height;
  checkMemory(pixels * 11, 'image', `a ${width} × ${height} PNG`);
  const data = im.data;
  if (!(Array.isArray(data) || (ArrayBuffer.isView(data) && !(data instanceof DataView)))) {
    fail('type', 'image.data', `must be an array or typed array of numbers, got ${describeValue(data)}`);
  }
  if (ArrayBuffer.isView(data) && readNumericArray(data, 'image.data') === undefined) return;
  const values = data as ArrayLike<unknown>;
  if (values.length !== pixels) {
    fail('range', 'image.data', `holds ${values.length} values, but ${width} × ${height} = ${pixels}`);
  }
  const o = readOptions(options, 'options', ['colormap', 'range', 'mask', 'maskColor'], { optional: true });
  const map = o.colormap === undefined ? 'viridis' : o.colormap;
  if (map !== 'viridis' && map !== 'gray')
    fail('type', 'colormap', `must be 'viridis' or 'gray', got ${describeValue(map)}`);
  const copy = new Float64Array(pixels);
  for (let i = 0; i < pixels; i++) {
    const x = values[i];
    if (typeof x !== 'number') fail('type', 'image.data', `element ${i} must be a number, got ${describeValue(x)}`, i);
    copy[i] = x;
  }
  let mask: Uint8Array | undefined;
  if (o.mask !== undefined) {
    if (!(o.mask instanceof Uint8Array) || !ArrayBuffer.isView(o.mask)) {
      fail('type', 'mask', `must be a Uint8Array, got ${describeValue(o.mask)}`);
    }
    readNumericArray(o.mask, 'mask');
    if (o.mask.length !== pixels) fail('range', 'mask', `holds ${o.mask.length} values, the image ${pixels}`);
    mask = o.mask;
  }
  let lo: number;
  let hi: number;
  if (o.range !== undefined) {
    if (!Array.isArray(o.range) || o.range.length !== 2) {
      fail('type', 'range', `must be [min, max], got ${describeValue(o.range)}`);
    }
    lo = readNumber(o.range[0], 'range[0]');
    hi = readNumber(o.range[1], 'range[1]');
    if (!(hi >= lo)) fail('range', 'range', `max must be ≥ min, got [${lo}, ${hi}]`);
  } else {
    lo = Number.POSITIVE_INFINITY;
    hi = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < pixels; i++) {
      const x = copy[i] as number;
      if (Number.isFinite(x) && (mask === undefined || mask[i] === 0)) {
        if (x < lo) lo = x;
        if (x > hi) hi = x;
      }
    }
    if (lo > hi) {
      lo = 0;
      hi = 1;
    }
  }
  const defaultMask: [number, number, number] = map === 'gray' ? [0, 0, 0] : [128, 128, 128];
  const maskColor = o.maskColor === undefined ? defaultMask : readColour(o.maskColor);
  // hi − lo overflows for a range wider than about 1.8e308: map with every value halved then.
  const scale = Number.isFinite(hi - lo) ? 1 : 0.5;
  const low = lo * scale;
  const span = hi * scale - low;
  const rgb = new Uint8Array(3 * pixels);
  for (let i = 0; i < pixels; i++) {
    const x = copy[i] as number;
    if ((mask !== undefined && mask[i] !== 0) || Number.isNaN(x)) {
      rgb.set(maskColor, 3 * i);
      continue;
    }
    const t = span > 0 ? Math.min(1, Math.max(0, (x * scale - low) / span)) : x > lo ? 1 : 0;
    colour(Number.isNaN(t) ? 0 : t, map, rgb, 3 * i);
  }
  // fast-png is ESM only: a dynamic import keeps the CommonJS build loadable on Node 20.17.
  const { encode } = await import('fast-png');
  const png = encode({ width, height, data: rgb, channels: 3, depth: 8 });
  await writeAtomically(file, (temp) => writeFile(temp, png));
}

function readColour(value: unknown): [number, number, number] {
  if (!Array.isArray(value) || value.length !== 3)
    fail('type', 'maskColor', `must be [r, g, b], got ${describeValue(value)}`);
  return value.map((c, i) => readInteger(c, `maskColor[${i}]`, { max: 255 })) as [number, number, number];
}
