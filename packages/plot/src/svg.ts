/**
 * SVG figures written by hand: each function returns a fragment of markup placed at the pixel
 * position it is given, and {@link svgDocument} wraps the fragments into one page. Every text is
 * real `<text>`, so the files stay searchable and the tests can find each label.
 */
import { css, viridisColour } from './colour.js';
import { formatTick, lengthUnit, logTicks, niceTicks, type Unit } from './scale.js';

/** The font every figure asks for; the PNG renderer ships DejaVu Sans, so the two look alike. */
export const fontFamily = "'DejaVu Sans', Verdana, sans-serif";

/** Text for XML content and attributes. */
export function escapeXml(text: unknown): string {
  return String(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** A number for an attribute: two decimals at most. */
const n = (v: number): string => String(Math.round(v * 100) / 100);

/** Attributes of a {@link text}. */
export interface TextStyle {
  readonly size?: number;
  readonly anchor?: 'start' | 'middle' | 'end';
  readonly weight?: 'bold';
  readonly colour?: string;
  /** Degrees, about the text's own position. */
  readonly rotate?: number;
}

/** One line of text at (x, y), y being its baseline. */
export function text(x: number, y: number, content: string, style: TextStyle = {}): string {
  const a = [`x="${n(x)}"`, `y="${n(y)}"`];
  if (style.size !== undefined) a.push(`font-size="${style.size}"`);
  if (style.anchor !== undefined && style.anchor !== 'start') a.push(`text-anchor="${style.anchor}"`);
  if (style.weight !== undefined) a.push(`font-weight="${style.weight}"`);
  if (style.colour !== undefined) a.push(`fill="${style.colour}"`);
  if (style.rotate !== undefined) a.push(`transform="rotate(${style.rotate} ${n(x)} ${n(y)})"`);
  return `<text ${a.join(' ')}>${escapeXml(content)}</text>`;
}

/** What {@link svgDocument} puts around the fragments. */
export interface DocumentOptions {
  readonly width: number;
  readonly height: number;
  /** The `<title>` (what a viewer shows as the file's name) and, unless `heading` is false, the bold heading. */
  readonly title: string;
  readonly heading?: boolean;
}

/** A whole SVG page, white, with the title as its `<title>` and as a heading at the top left. */
export function svgDocument(options: DocumentOptions, parts: readonly string[]): string {
  const { width, height, title } = options;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="${fontFamily}" font-size="13">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    ...(options.heading === false ? [] : [text(20, 30, title, { size: 17, weight: 'bold' })]),
    ...parts,
    '</svg>',
    '',
  ].join('\n');
}

/** An axis of a panel: its title and unit, the range shown and how it is drawn. */
export interface Axis {
  /** What is measured, without the unit: 'x', 'wetting saturation', 'capillary pressure'. */
  readonly title: string;
  /** Shown as "title (unit)"; values are divided by its factor. Absent: dimensionless. */
  readonly unit?: Unit;
  /** SI values at the two ends of the axis. */
  readonly range: readonly [number, number];
  readonly log?: boolean;
}

/** "title (unit)", or the title alone for a dimensionless quantity. */
export function axisTitle(axis: { title: string; unit?: Unit }): string {
  return axis.unit === undefined ? axis.title : `${axis.title} (${axis.unit.name})`;
}

/** The SI values of an axis's ticks, with their labels in its unit. */
function ticksOf(axis: Axis, count: number): { value: number; label: string }[] {
  const f = axis.unit?.factor ?? 1;
  const [lo, hi] = [axis.range[0] / f, axis.range[1] / f];
  const shown = axis.log ? logTicks(lo, hi) : niceTicks(Math.min(lo, hi), Math.max(lo, hi), count);
  return shown.map((v) => ({ value: v * f, label: formatTick(v, axis.log ? [] : shown) }));
}

/** Pixel position of SI value v on an axis drawn from p0 (at range[0]) to p1 (at range[1]). */
function place(axis: Axis, v: number, p0: number, p1: number): number {
  const [a, b] = axis.range;
  const t = axis.log ? Math.log(v / a) / Math.log(b / a) : (v - a) / (b - a);
  return p0 + t * (p1 - p0);
}

/** A rectangle on the page: the plotting area of a panel, in pixels. */
export interface Box {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/** Ticks, tick labels and titles of a horizontal axis below `box` and a vertical one left of it. */
function axesOf(box: Box, xAxis: Axis, yAxis: Axis, grid: boolean): string[] {
  const parts: string[] = [];
  const bottom = box.y + box.height;
  for (const { value, label } of ticksOf(xAxis, Math.max(2, Math.round(box.width / 90)))) {
    const x = place(xAxis, value, box.x, box.x + box.width);
    if (grid) parts.push(`<line x1="${n(x)}" y1="${box.y}" x2="${n(x)}" y2="${bottom}" stroke="#e4e4e4"/>`);
    parts.push(`<line x1="${n(x)}" y1="${bottom}" x2="${n(x)}" y2="${bottom + 5}" stroke="black"/>`);
    parts.push(text(x, bottom + 19, label, { anchor: 'middle', size: 12 }));
  }
  for (const { value, label } of ticksOf(yAxis, Math.max(2, Math.round(box.height / 60)))) {
    const y = place(yAxis, value, bottom, box.y);
    if (grid) parts.push(`<line x1="${box.x}" y1="${n(y)}" x2="${box.x + box.width}" y2="${n(y)}" stroke="#e4e4e4"/>`);
    parts.push(`<line x1="${box.x - 5}" y1="${n(y)}" x2="${box.x}" y2="${n(y)}" stroke="black"/>`);
    parts.push(text(box.x - 8, y + 4, label, { anchor: 'end', size: 12 }));
  }
  parts.push(text(box.x + box.width / 2, bottom + 40, axisTitle(xAxis), { anchor: 'middle' }));
  parts.push(text(box.x - 50, box.y + box.height / 2, axisTitle(yAxis), { anchor: 'middle', rotate: -90 }));
  return parts;
}

/** Options of {@link imagePanel}. */
export interface ImagePanelOptions extends Box {
  /** The raster, PNG bytes, stretched over the box (make it sharp with colourImage's `scale`); absent: axes only, over what the caller draws. */
  readonly png?: Uint8Array;
  /** The physical width and height the image covers, in metres; the axes run from 0 to these. */
  readonly extent: readonly [number, number];
  /** Names of the horizontal and vertical axes ('x', 'y'); the vertical one points up. */
  readonly axes: readonly [string, string];
  /** Default: µm or mm, whichever reads better for the larger extent. */
  readonly unit?: Unit;
  /** A scale bar below the lower right corner (default true). */
  readonly scaleBar?: boolean;
}

/**
 * An image with physical axes (ticks in µm or mm, the vertical axis pointing up), a frame and a
 * scale bar below its lower right corner. Leave about 60 px left of the box and 50 px below it.
 *
 * @example
 * ```ts
 * imagePanel({ x: 80, y: 50, width: 400, height: 400, png, extent: [1.07e-3, 1.07e-3], axes: ['x', 'y'] });
 * ```
 */
export function imagePanel(o: ImagePanelOptions): string {
  const unit = o.unit ?? lengthUnit(Math.max(o.extent[0], o.extent[1]));
  const parts = [
    ...(o.png === undefined
      ? []
      : [
          `<image x="${n(o.x)}" y="${n(o.y)}" width="${n(o.width)}" height="${n(o.height)}" preserveAspectRatio="none" image-rendering="optimizeSpeed" href="data:image/png;base64,${Buffer.from(o.png).toString('base64')}"/>`,
        ]),
    `<rect x="${n(o.x)}" y="${n(o.y)}" width="${n(o.width)}" height="${n(o.height)}" fill="none" stroke="black"/>`,
    ...axesOf(
      o,
      { title: o.axes[0], unit, range: [0, o.extent[0]] },
      { title: o.axes[1], unit, range: [0, o.extent[1]] },
      false,
    ),
  ];
  if (o.scaleBar !== false) parts.push(scaleBar(o, o.extent[0], unit));
  return parts.join('\n');
}

/**
 * A bar of a round length, at most a fifth of the width, below the lower right corner on the
 * line of the axis title: outside the image, so it hides none of it.
 */
function scaleBar(box: Box, extent: number, unit: Unit): string {
  // The round length (1, 2 or 5 × 10ⁿ) at most a fifth of the width.
  const raw = extent / unit.factor / 5;
  const power = 10 ** Math.floor(Math.log10(raw));
  const f = raw / power;
  const length = (f >= 5 ? 5 : f >= 2 ? 2 : 1) * power * unit.factor;
  const px = (length / extent) * box.width;
  const label = `${formatTick(length / unit.factor, [])} ${unit.name}`;
  const right = box.x + box.width;
  const y = box.y + box.height + 35;
  return [
    '<g class="scale-bar">',
    `<rect x="${n(right - px)}" y="${n(y)}" width="${n(px)}" height="5" fill="black"/>`,
    text(right - px - 6, y + 6, label, { anchor: 'end', size: 12 }),
    '</g>',
  ].join('\n');
}

/** Options of {@link colourBar}. */
export interface ColourBarOptions extends Box {
  /** SI values at the bottom and top of the bar (the range the image was coloured with). */
  readonly range: readonly [number, number];
  /** What the colour shows, without the unit: '|u|', 'local packing fraction'. */
  readonly title: string;
  /** Absent: dimensionless. */
  readonly unit?: Unit;
}

let gradients = 0;

/**
 * A vertical viridis colour bar with tick labels on its right and its title with the unit,
 * turned, right of them. Leave about 80 px right of the box.
 */
export function colourBar(o: ColourBarOptions): string {
  const id = `viridis-${++gradients}`;
  const stops = Array.from({ length: 17 }, (_, i) => {
    const t = i / 16;
    return `<stop offset="${n(t)}" stop-color="${css(viridisColour(t))}"/>`;
  });
  const axis: Axis = { title: o.title, ...(o.unit ? { unit: o.unit } : {}), range: o.range };
  const parts = [
    `<defs><linearGradient id="${id}" x1="0" y1="1" x2="0" y2="0">${stops.join('')}</linearGradient></defs>`,
    `<rect x="${n(o.x)}" y="${n(o.y)}" width="${n(o.width)}" height="${n(o.height)}" fill="url(#${id})" stroke="black"/>`,
  ];
  let widest = 0;
  for (const { value, label } of ticksOf(axis, Math.max(2, Math.round(o.height / 50)))) {
    const y = place(axis, value, o.y + o.height, o.y);
    parts.push(
      `<line x1="${n(o.x + o.width)}" y1="${n(y)}" x2="${n(o.x + o.width + 4)}" y2="${n(y)}" stroke="black"/>`,
    );
    parts.push(text(o.x + o.width + 7, y + 4, label, { size: 12 }));
    widest = Math.max(widest, label.length);
  }
  parts.push(
    text(o.x + o.width + 28 + widest * 7.5, o.y + o.height / 2, axisTitle(axis), { anchor: 'middle', rotate: -90 }),
  );
  return `<g class="colour-bar">\n${parts.join('\n')}\n</g>`;
}

/** One curve of a {@link linePlot}. */
export interface Series {
  /** SI values. */
  readonly x: ArrayLike<number>;
  readonly y: ArrayLike<number>;
  readonly colour: string;
  /** For the legend. */
  readonly label?: string;
  /**
   * How consecutive points are joined: straight (default), or a staircase that moves along y
   * first (`'vertical-first'`: the level rises, then the state jumps, as in a drainage curve)
   * or along x first.
   */
  readonly step?: 'vertical-first' | 'horizontal-first';
  /** Dots at the data points. */
  readonly markers?: boolean;
}

/** Options of {@link linePlot}. */
export interface LinePlotOptions extends Box {
  readonly xAxis: Axis;
  readonly yAxis: Axis;
  readonly series: readonly Series[];
}

let clips = 0;

/**
 * A framed plot with grid lines, ticks and axis titles with units, and its series clipped to
 * the frame; a legend in the upper right when any series has a label. Leave about 60 px left of
 * the box and 50 px below it.
 */
export function linePlot(o: LinePlotOptions): string {
  const id = `plot-${++clips}`;
  const X = (v: number) => n(place(o.xAxis, v, o.x, o.x + o.width));
  const Y = (v: number) => n(place(o.yAxis, v, o.y + o.height, o.y));
  const parts = [
    `<defs><clipPath id="${id}"><rect x="${n(o.x)}" y="${n(o.y)}" width="${n(o.width)}" height="${n(o.height)}"/></clipPath></defs>`,
    ...axesOf(o, o.xAxis, o.yAxis, true),
    `<g clip-path="url(#${id})">`,
  ];
  for (const s of o.series) {
    const d: string[] = [];
    for (let i = 0; i < s.x.length; i++) {
      const [x, y] = [s.x[i] as number, s.y[i] as number];
      if (i === 0) d.push(`M${X(x)} ${Y(y)}`);
      else if (s.step === 'vertical-first') d.push(`V${Y(y)}H${X(x)}`);
      else if (s.step === 'horizontal-first') d.push(`H${X(x)}V${Y(y)}`);
      else d.push(`L${X(x)} ${Y(y)}`);
    }
    parts.push(`<path d="${d.join('')}" fill="none" stroke="${s.colour}" stroke-width="2" stroke-linejoin="miter"/>`);
    if (s.markers) {
      const dots = Array.from(s.x, (x, i) => `<circle cx="${X(x)}" cy="${Y(s.y[i] as number)}" r="2.5"/>`);
      parts.push(`<g fill="${s.colour}">${dots.join('')}</g>`);
    }
  }
  parts.push(
    '</g>',
    `<rect x="${n(o.x)}" y="${n(o.y)}" width="${n(o.width)}" height="${n(o.height)}" fill="none" stroke="black"/>`,
  );
  const labelled = o.series.filter((s) => s.label !== undefined);
  if (labelled.length > 0) {
    const w = Math.max(...labelled.map((s) => (s.label as string).length)) * 7 + 44;
    const left = o.x + o.width - w - 10;
    parts.push(
      `<rect x="${n(left)}" y="${n(o.y + 10)}" width="${n(w)}" height="${labelled.length * 20 + 8}" fill="white" stroke="#999"/>`,
    );
    labelled.forEach((s, i) => {
      const y = o.y + 28 + i * 20;
      parts.push(
        `<line x1="${n(left + 8)}" y1="${n(y - 4)}" x2="${n(left + 30)}" y2="${n(y - 4)}" stroke="${s.colour}" stroke-width="2"/>`,
      );
      parts.push(text(left + 36, y, s.label as string, { size: 12 }));
    });
  }
  return parts.join('\n');
}

/** Options of {@link table}. */
export interface TableOptions {
  readonly x: number;
  readonly y: number;
  /** Width of the label column; values start after it. */
  readonly labelWidth: number;
  readonly rows: readonly (readonly [string, string])[];
  readonly heading?: string;
}

/** Key numbers: a label column and a value column, 20 px a row. */
export function table(o: TableOptions): string {
  const parts: string[] = [];
  let y = o.y;
  if (o.heading !== undefined) {
    parts.push(text(o.x, y, o.heading, { weight: 'bold' }));
    y += 22;
  }
  for (const [label, value] of o.rows) {
    parts.push(text(o.x, y, label, { colour: '#444' }), text(o.x + o.labelWidth, y, value));
    y += 20;
  }
  return `<g class="table">\n${parts.join('\n')}\n</g>`;
}
