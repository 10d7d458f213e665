/** Colormaps, and scalar images coloured by one as PNG bytes. */

export type Rgb = readonly [number, number, number];

/** matplotlib's viridis sampled every 1/16, interpolated linearly in between. */
const viridis = [
  0x440154, 0x48186a, 0x472d7b, 0x424086, 0x3b528b, 0x33638d, 0x2c728e, 0x26828e, 0x21918c, 0x1fa088, 0x28ae80,
  0x3fbc73, 0x5ec962, 0x84d44b, 0xaddc30, 0xd8e219, 0xfde725,
].map((c) => [(c >> 16) & 255, (c >> 8) & 255, c & 255] as const);

/**
 * The viridis colour of t in [0, 1] (clamped): perceptually uniform, readable in gray and by
 * colour-blind readers.
 */
export function viridisColour(t: number): Rgb {
  const x = Math.min(1, Math.max(0, Number.isFinite(t) ? t : 0)) * (viridis.length - 1);
  const i = Math.min(Math.floor(x), viridis.length - 2);
  const f = x - i;
  const a = viridis[i] as Rgb;
  const b = viridis[i + 1] as Rgb;
  return [0, 1, 2].map((c) =>
    Math.round((a[c] as number) + f * ((b[c] as number) - (a[c] as number))),
  ) as unknown as Rgb;
}

/** `rgb(r,g,b)` for SVG. */
export function css(colour: Rgb): string {
  return `rgb(${colour[0]},${colour[1]},${colour[2]})`;
}

/** A 2-D scalar image, row-major: `data[row * width + column]`. */
export interface ScalarImage {
  readonly data: ArrayLike<number>;
  readonly width: number;
  readonly height: number;
}

/** Options of {@link colourImage}. */
export interface ColourImageOptions {
  /** Values at the two ends of the colormap; values beyond are clamped. */
  readonly range: readonly [number, number];
  /** Non-zero: drawn in `maskColour` (solid), whatever the value. */
  readonly mask?: ArrayLike<number>;
  /** Default mid gray. */
  readonly maskColour?: Rgb;
  /** Row 0 drawn at the bottom (`'lower'`, as a y axis pointing up), or at the top (default). */
  readonly origin?: 'upper' | 'lower';
  /** Each value becomes `scale × scale` pixels, so that any viewer shows sharp voxels. Default 1. */
  readonly scale?: number;
}

/**
 * A scalar image coloured by viridis as 8-bit RGB PNG bytes (fast-png), for an SVG `<image>` or
 * a file. NaN and masked values get `maskColour`.
 *
 * @example
 * ```ts
 * const png = await colourImage({ data, width: 64, height: 48 }, { range: [0, max], scale: 4 });
 * ```
 */
export async function colourImage(image: ScalarImage, options: ColourImageOptions): Promise<Uint8Array> {
  const { width, height, data } = image;
  const scale = options.scale ?? 1;
  if (!Number.isInteger(scale) || scale < 1) throw new RangeError(`scale must be a positive integer, got ${scale}`);
  if (data.length !== width * height) {
    throw new RangeError(`the image holds ${data.length} values, but ${width} × ${height} = ${width * height}`);
  }
  const [lo, hi] = options.range;
  const span = hi > lo ? hi - lo : 1;
  const mask = options.mask;
  const solid = options.maskColour ?? [128, 128, 128];
  const w = width * scale;
  const out = new Uint8Array(w * height * scale * 3);
  const row = new Uint8Array(w * 3);
  for (let v = 0; v < height; v++) {
    for (let u = 0; u < width; u++) {
      const i = v * width + u;
      const x = data[i] as number;
      const c = (mask !== undefined && mask[i] !== 0) || Number.isNaN(x) ? solid : viridisColour((x - lo) / span);
      for (let s = 0; s < scale; s++) row.set(c, (u * scale + s) * 3);
    }
    const y = options.origin === 'lower' ? height - 1 - v : v;
    for (let s = 0; s < scale; s++) out.set(row, (y * scale + s) * w * 3);
  }
  // fast-png is ESM only: a dynamic import keeps a CommonJS bundle loadable on Node 20.17.
  const { encode } = await import('fast-png');
  return encode({ width: w, height: height * scale, data: out, channels: 3, depth: 8 });
}
