/**
 * The two pictures of porous media that both the apps and the CLI draw: the speed on a
 * mid-plane of the sample, and a pore network seen along one axis.
 */
import { colourImage, css, viridisColour } from './colour.js';
import { lengthUnit, speedUnit } from './scale.js';
import { type Box, colourBar, imagePanel, text } from './svg.js';

type Shape = readonly [number, number, number];
const AXES = ['x', 'y', 'z'] as const;
export type AxisName = (typeof AXES)[number];

/** Input of {@link speedSlice}. */
export interface SpeedSliceInput {
  /** The sample, C order (last index fastest), non-zero = solid. */
  readonly solid: ArrayLike<number>;
  readonly shape: Shape;
  /** Metres. */
  readonly voxelSize: number;
  /**
   * Velocity, 3 values per node, in any consistent unit (lattice units will do: the map is
   * scaled to physical units by Darcy's law, below), C order over the sample with `buffer`
   * extra layers before and after it along `axis` (the lattice of @peclet/flow).
   */
  readonly velocity: ArrayLike<number>;
  /** Layers of `velocity` before (and after) the sample along `axis`; default 0. */
  readonly buffer?: number;
  /** The flow axis. */
  readonly axis: AxisName;
  /** m², of the sample along `axis`. */
  readonly permeability: number;
  /** Pa/m along `axis` (default 10 kPa/m). */
  readonly pressureGradient?: number;
  /** Pa·s (default 1 mPa·s, water at 20 °C). */
  readonly viscosity?: number;
}

/** The speed on the sample's mid-plane that contains the flow axis, in m/s. */
export interface SpeedSlice {
  /** m/s, row 0 = the low end of the vertical axis; NaN in the solid. */
  readonly data: Float64Array;
  readonly mask: Uint8Array;
  readonly width: number;
  readonly height: number;
  /** Names of the image's horizontal and vertical axes. */
  readonly axes: readonly [AxisName, AxisName];
  /** The axis normal to the plane and the plane's voxel index along it. */
  readonly plane: { readonly axis: AxisName; readonly index: number };
  /** Metres across and up. */
  readonly extent: readonly [number, number];
  /** Darcy (superficial) velocity U = k ∇p / μ, m/s, that the map is scaled to. */
  readonly darcyVelocity: number;
  readonly pressureGradient: number;
  readonly viscosity: number;
  /** Largest speed on the plane, m/s. */
  readonly max: number;
}

/**
 * The speed |u| on the mid-plane of the sample that contains the flow axis (normal to z, or to y
 * when the flow is along z), buffers left out, in m/s for a stated fluid and pressure gradient:
 * creeping flow is linear, so the field is scaled until its superficial velocity (the mean of
 * u·axis over the sample's middle cross-section, solid included) is Darcy's k ∇p / μ.
 */
export function speedSlice(input: SpeedSliceInput): SpeedSlice {
  const { shape, solid, velocity, voxelSize } = input;
  const a = AXES.indexOf(input.axis);
  if (a < 0) throw new TypeError(`axis must be 'x', 'y' or 'z', got ${String(input.axis)}`);
  const buffer = input.buffer ?? 0;
  const lattice = shape.map((s, i) => (i === a ? s + 2 * buffer : s)) as unknown as Shape;
  const count = shape[0] * shape[1] * shape[2];
  if (solid.length !== count) throw new RangeError(`solid holds ${solid.length} values, the shape ${count}`);
  if (velocity.length !== 3 * lattice[0] * lattice[1] * lattice[2]) {
    throw new RangeError(
      `velocity holds ${velocity.length} values, but 3 per node of ${lattice.join(' × ')} (the sample and ${buffer} buffer layers either side along ${input.axis})`,
    );
  }
  const at = (p: readonly number[]) =>
    ((p[0] as number) * lattice[1] + (p[1] as number)) * lattice[2] + (p[2] as number);
  const shift = (p: number[]) => p.map((v, i) => (i === a ? v + buffer : v));
  // Superficial velocity in the field's units: the flux through the sample's middle cross-section.
  let flux = 0;
  const [b, c] = [0, 1, 2].filter((i) => i !== a) as [number, number];
  const middle = Math.floor((shape[a] as number) / 2);
  for (let i = 0; i < (shape[b] as number); i++) {
    for (let j = 0; j < (shape[c] as number); j++) {
      const p = [0, 0, 0];
      p[a] = middle;
      p[b] = i;
      p[c] = j;
      flux += velocity[3 * at(shift(p)) + a] as number;
    }
  }
  const superficial = flux / ((shape[b] as number) * (shape[c] as number));
  const pressureGradient = input.pressureGradient ?? 1e4;
  const viscosity = input.viscosity ?? 1e-3;
  const darcyVelocity = (input.permeability * pressureGradient) / viscosity;
  const factor = superficial !== 0 ? darcyVelocity / superficial : Number.NaN;

  const normal = a === 2 ? 1 : 2;
  const [u, v] = [0, 1, 2].filter((i) => i !== normal) as [number, number];
  const index = Math.floor((shape[normal] as number) / 2);
  const width = shape[u] as number;
  const height = shape[v] as number;
  const data = new Float64Array(width * height);
  const mask = new Uint8Array(width * height);
  let max = 0;
  for (let row = 0; row < height; row++) {
    for (let col = 0; col < width; col++) {
      const p = [0, 0, 0];
      p[normal] = index;
      p[u] = col;
      p[v] = row;
      const k = row * width + col;
      if ((solid[((p[0] as number) * shape[1] + (p[1] as number)) * shape[2] + (p[2] as number)] as number) !== 0) {
        mask[k] = 1;
        data[k] = Number.NaN;
        continue;
      }
      const q = 3 * at(shift(p));
      const s =
        Math.hypot(velocity[q] as number, velocity[q + 1] as number, velocity[q + 2] as number) * Math.abs(factor);
      data[k] = s;
      if (s > max) max = s;
    }
  }
  return {
    data,
    mask,
    width,
    height,
    axes: [AXES[u] as AxisName, AXES[v] as AxisName],
    plane: { axis: AXES[normal] as AxisName, index },
    extent: [width * voxelSize, height * voxelSize],
    darcyVelocity,
    pressureGradient,
    viscosity,
    max,
  };
}

/**
 * The speed map with its axes, scale bar and colour bar in the box (the colour bar right of
 * it: leave 110 px), and a caption line below saying the plane, the fluid and the drive.
 */
export async function speedPanel(slice: SpeedSlice, box: Box, flowAxis: AxisName): Promise<string> {
  const scale = Math.max(1, Math.ceil(Math.max(box.width / slice.width, box.height / slice.height)));
  const max = slice.max > 0 ? slice.max : 1;
  const png = await colourImage(slice, {
    range: [0, max],
    mask: slice.mask,
    maskColour: [150, 150, 150],
    origin: 'lower',
    scale,
  });
  const unit = speedUnit(max);
  const gradient =
    slice.pressureGradient >= 1e3 ? `${slice.pressureGradient / 1e3} kPa/m` : `${slice.pressureGradient} Pa/m`;
  const darcy = speedUnit(slice.darcyVelocity);
  return [
    imagePanel({ ...box, png, extent: slice.extent, axes: slice.axes, unit: lengthUnit(Math.max(...slice.extent)) }),
    colourBar({
      x: box.x + box.width + 20,
      y: box.y,
      width: 16,
      height: box.height,
      range: [0, max],
      title: '|u|',
      unit,
    }),
    text(
      box.x,
      box.y + box.height + 66,
      `mid-plane ${slice.plane.axis} = ${slice.plane.index} of the sample; flow along ${flowAxis}; solid gray`,
      { size: 12 },
    ),
    text(
      box.x,
      box.y + box.height + 82,
      `water (μ = ${slice.viscosity * 1e3} mPa·s) at ∇p = ${gradient}: Darcy velocity ${(slice.darcyVelocity / darcy.factor).toPrecision(3)} ${darcy.name}; |u| scales with ∇p/μ`,
      { size: 12 },
    ),
  ].join('\n');
}

let networks = 0;

/** Input of {@link networkPanel}: a pore network in OpenPNM's vocabulary, lengths in metres. */
export interface NetworkView {
  readonly pores: {
    /** x, y, z per pore. */
    readonly coordinates: ArrayLike<number>;
    readonly inscribedDiameter: ArrayLike<number>;
    /** Boundary pores: the face they sit on (≥ 0), −1 for interior pores. */
    readonly face?: ArrayLike<number>;
  };
  readonly throats: {
    /** Two pore indices per throat. */
    readonly conns: ArrayLike<number>;
    readonly inscribedDiameter: ArrayLike<number>;
  };
  /** The image the network was extracted from. */
  readonly shape: Shape;
  readonly voxelSize: number;
}

/**
 * The network projected along z (along y when `across` is z): throats as lines coloured by
 * their inscribed diameter (viridis, with a colour bar: leave 110 px right of the box), pores as
 * circles of their inscribed radius, boundary pores in orange. The box keeps the sample's
 * aspect ratio within it.
 */
export function networkPanel(view: NetworkView, box: Box, across: AxisName = 'x'): string {
  const a = AXES.indexOf(across);
  const normal = a === 2 ? 1 : 2;
  const [u, v] = [0, 1, 2].filter((i) => i !== normal) as [number, number];
  const h = view.voxelSize;
  const extent = [(view.shape[u] as number) * h, (view.shape[v] as number) * h] as const;
  const px = Math.min(box.width / extent[0], box.height / extent[1]);
  const w = extent[0] * px;
  const ht = extent[1] * px;
  const X = (p: number) => box.x + (view.pores.coordinates[3 * p + u] as number) * px;
  const Y = (p: number) => box.y + ht - (view.pores.coordinates[3 * p + v] as number) * px;
  const conns = view.throats.conns;
  const d = view.throats.inscribedDiameter;
  let lo = Number.POSITIVE_INFINITY;
  let hi = 0;
  for (let t = 0; t < d.length; t++) {
    lo = Math.min(lo, d[t] as number);
    hi = Math.max(hi, d[t] as number);
  }
  if (!(hi > lo)) {
    lo = 0;
    hi = Math.max(hi, 1e-12);
  }
  const r = (x: number) => Math.round(x * 10) / 10;
  // Thin throats first, so that the wide ones (the paths that carry the flow) are on top.
  const order = Array.from({ length: d.length }, (_, t) => t).sort((s, t) => (d[s] as number) - (d[t] as number));
  const lines = order.map((t) => {
    const [p, q] = [conns[2 * t] as number, conns[2 * t + 1] as number];
    const colour = css(viridisColour(((d[t] as number) - lo) / (hi - lo)));
    return `<line x1="${r(X(p))}" y1="${r(Y(p))}" x2="${r(X(q))}" y2="${r(Y(q))}" stroke="${colour}" stroke-width="1.5"/>`;
  });
  const circles: string[] = [];
  const boundary: string[] = [];
  const pores = view.pores.inscribedDiameter.length;
  for (let p = 0; p < pores; p++) {
    const radius = Math.max(1, ((view.pores.inscribedDiameter[p] as number) / 2) * px);
    const onFace = view.pores.face !== undefined && (view.pores.face[p] as number) >= 0;
    (onFace ? boundary : circles).push(`<circle cx="${r(X(p))}" cy="${r(Y(p))}" r="${r(radius)}"/>`);
  }
  const id = `network-${++networks}`;
  return [
    `<defs><clipPath id="${id}"><rect x="${box.x}" y="${box.y}" width="${r(w)}" height="${r(ht)}"/></clipPath></defs>`,
    `<rect x="${box.x}" y="${box.y}" width="${r(w)}" height="${r(ht)}" fill="#f4f4f4"/>`,
    `<g clip-path="url(#${id})">`,
    `<g fill="#1f5fbf" fill-opacity="0.12" stroke="#1f5fbf" stroke-opacity="0.5" stroke-width="0.6">${circles.join('')}</g>`,
    `<g fill="#e6550d" fill-opacity="0.3" stroke="#e6550d" stroke-width="0.8">${boundary.join('')}</g>`,
    `<g stroke-linecap="round">${lines.join('')}</g>`,
    '</g>',
    imagePanel({ x: box.x, y: box.y, width: w, height: ht, extent, axes: [AXES[u] as string, AXES[v] as string] }),
    colourBar({
      x: box.x + w + 20,
      y: box.y,
      width: 16,
      height: ht,
      range: [lo, hi],
      title: 'throat diameter',
      unit: lengthUnit(hi),
    }),
    text(box.x, box.y + ht + 66, `all ${pores} pores: circles of their inscribed radius, boundary pores orange;`, {
      size: 12,
    }),
    text(
      box.x,
      box.y + ht + 82,
      `${d.length} throats coloured by their inscribed diameter; seen along ${AXES[normal]}`,
      {
        size: 12,
      },
    ),
  ].join('\n');
}
