import { stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describeValue, fail, isDetached } from '@peclet/core';
import { readPath, writeAtomically } from '@peclet/io';
import type { NetworkArrays, PoreArrays, ThroatArrays } from './arrays.js';

/** The largest shape factor, a circle's: A / P² = πr² / (2πr)² = 1 / (4π). */
export const circleShapeFactor = 1 / (4 * Math.PI);

/**
 * The shape factor G = A / P² of a throat's cross-section, clipped to (0, 1/(4π)]: above a
 * circle's it is a circle's, and a degenerate section (A or P zero) counts as a circle.
 * @internal
 */
export function throatShapeFactor(area: number, perimeter: number): number {
  if (!(area > 0 && perimeter > 0)) return circleShapeFactor;
  const g = area / (perimeter * perimeter);
  return g > 0 && g < circleShapeFactor ? g : circleShapeFactor;
}

type TypedCtor<T> = { new (values: T): T; readonly name: string };

/** Reads the listed properties of an object, each exactly once. */
function readFields<K extends string>(value: unknown, argument: string, keys: readonly K[], what: string) {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || ArrayBuffer.isView(value)) {
    fail('type', argument, `must be ${what}, got ${describeValue(value)}`);
  }
  const source = value as Record<string, unknown>;
  const out = Object.create(null) as Record<K, unknown>;
  for (const key of keys) out[key] = source[key];
  return out;
}

/** A typed array of exactly `Ctor`, not detached, of `length` elements, copied. */
function readTyped<T extends Float64Array | Int32Array | Int8Array>(
  value: unknown,
  argument: string,
  Ctor: TypedCtor<T>,
  length: number | undefined,
): T {
  if (
    !ArrayBuffer.isView(value) ||
    !(value instanceof (Ctor as unknown as typeof Float64Array | typeof Int32Array | typeof Int8Array))
  ) {
    fail('type', argument, `must be a ${Ctor.name}, got ${describeValue(value)}`);
  }
  if (isDetached(value as T)) fail('type', argument, `is a detached ${Ctor.name} (its memory was released)`);
  const copy = new Ctor(value as T);
  if (length !== undefined && copy.length !== length) {
    fail('range', argument, `must hold ${length} elements, got ${copy.length}`);
  }
  return copy;
}

/** Float64Array copy whose elements are finite (and, with `nonNegative`, ≥ 0). */
function readReals(value: unknown, argument: string, length: number | undefined, nonNegative: boolean): Float64Array {
  const copy = readTyped(value, argument, Float64Array, length);
  for (let i = 0; i < copy.length; i++) {
    const x = copy[i] as number;
    if (!Number.isFinite(x)) fail('range', argument, `element ${i} is not finite (${x})`, i);
    if (nonNegative && x < 0) fail('range', argument, `element ${i} is negative (${x})`, i);
  }
  return copy;
}

/**
 * Reads a {@link NetworkArrays} once: every property read once, every array copied (so nothing
 * changes under an asynchronous write) and checked — types, lengths, finite values, non-negative
 * sizes, `face` in −1..5, `conns` joining two different pores in [0, N). Errors name the property
 * (`network.pores.volume`, ...).
 * @internal
 */
export function readNetwork(value: unknown, argument = 'network'): NetworkArrays {
  const o = readFields(value, argument, ['shape', 'voxelSize', 'porosity', 'pores', 'throats'], 'a pore network');
  const shapeValue = o.shape;
  if (!Array.isArray(shapeValue) || shapeValue.length !== 3) {
    fail('type', `${argument}.shape`, `must be [n0, n1, n2], got ${describeValue(shapeValue)}`);
  }
  const shape = [0, 0, 0] as [number, number, number];
  for (let a = 0; a < 3; a++) {
    const n: unknown = shapeValue[a];
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n <= 0) {
      fail('range', `${argument}.shape`, `[${a}] must be a positive integer, got ${describeValue(n)}`, a);
    }
    shape[a] = n;
  }
  const voxelSize = o.voxelSize;
  if (typeof voxelSize !== 'number' || !Number.isFinite(voxelSize) || !(voxelSize > 0)) {
    fail('range', `${argument}.voxelSize`, `must be a finite number > 0 (m), got ${describeValue(voxelSize)}`);
  }
  const porosity = o.porosity;
  if (typeof porosity !== 'number' || !(porosity >= 0 && porosity <= 1)) {
    fail('range', `${argument}.porosity`, `must be a number in [0, 1], got ${describeValue(porosity)}`);
  }

  const at = `${argument}.pores`;
  const p = readFields(
    o.pores,
    at,
    ['coordinates', 'volume', 'inscribedDiameter', 'equivalentDiameter', 'surfaceArea', 'label', 'face'],
    'the pore arrays',
  );
  const volume = readReals(p.volume, `${at}.volume`, undefined, true);
  const n = volume.length;
  const face = readTyped(p.face, `${at}.face`, Int8Array, n);
  for (let i = 0; i < n; i++) {
    const f = face[i] as number;
    if (f < -1 || f > 5) fail('range', `${at}.face`, `element ${i} is ${f}, not −1 (interior) or a face 0..5`, i);
  }
  const pores: PoreArrays = {
    coordinates: readReals(p.coordinates, `${at}.coordinates`, 3 * n, false),
    volume,
    inscribedDiameter: readReals(p.inscribedDiameter, `${at}.inscribedDiameter`, n, true),
    equivalentDiameter: readReals(p.equivalentDiameter, `${at}.equivalentDiameter`, n, true),
    surfaceArea: readReals(p.surfaceArea, `${at}.surfaceArea`, n, true),
    label: readTyped(p.label, `${at}.label`, Int32Array, n),
    face,
  };

  const tt = `${argument}.throats`;
  const t = readFields(
    o.throats,
    tt,
    ['conns', 'inscribedDiameter', 'area', 'perimeter', 'length', 'totalLength', 'conduitLengths'],
    'the throat arrays',
  );
  const conns = readTyped(t.conns, `${tt}.conns`, Int32Array, undefined);
  if (conns.length % 2 !== 0) fail('range', `${tt}.conns`, `length ${conns.length} is not a multiple of 2`);
  const m = conns.length / 2;
  for (let i = 0; i < m; i++) {
    const a = conns[2 * i] as number;
    const b = conns[2 * i + 1] as number;
    if (!(a >= 0 && a < n && b >= 0 && b < n)) {
      fail('range', `${tt}.conns`, `throat ${i} joins pores ${a} and ${b}, not both in [0, ${n})`, 2 * i);
    }
    if (a === b) fail('range', `${tt}.conns`, `throat ${i} joins pore ${a} to itself`, 2 * i);
  }
  const throats: ThroatArrays = {
    conns,
    inscribedDiameter: readReals(t.inscribedDiameter, `${tt}.inscribedDiameter`, m, true),
    area: readReals(t.area, `${tt}.area`, m, true),
    perimeter: readReals(t.perimeter, `${tt}.perimeter`, m, true),
    length: readReals(t.length, `${tt}.length`, m, true),
    ...(t.totalLength === undefined ? {} : { totalLength: readReals(t.totalLength, `${tt}.totalLength`, m, true) }),
    conduitLengths: readReals(t.conduitLengths, `${tt}.conduitLengths`, 3 * m, true),
  };
  return { shape, voxelSize, porosity, pores, throats };
}

// ---------------------------------------------------------------------------------------------
// Statoil

/** The link-file index of the inlet reservoir. */
const inletReservoir = -1;
/** The link-file index of the outlet reservoir. */
const outletReservoir = 0;

/** Numbers as JavaScript's shortest round-trip text (`String(x)`): `1.5e-7`, `0.25`, `12`. */
const num = (x: number): string => String(x);

/** Yields the lines of a file joined into strings of about 1 MiB each, newline-terminated. */
function* batched(lines: Iterable<string>): Generator<string> {
  let parts: string[] = [];
  let size = 0;
  for (const line of lines) {
    parts.push(line);
    size += line.length + 1;
    if (size >= 2 ** 20) {
      yield `${parts.join('\n')}\n`;
      parts = [];
      size = 0;
    }
  }
  if (parts.length > 0) yield `${parts.join('\n')}\n`;
}

/** The kept links and each written pore's adjacency, numbered as the files number them. */
interface StatoilLayout {
  /** Original index of each written pore (file index = position + 1). */
  readonly nodes: Int32Array;
  /** Original index of each written link's throat (file index = position + 1). */
  readonly links: Int32Array;
  /** Per link: the file's pore 1 and pore 2 (−1 inlet, 0 outlet, else a 1-based node). */
  readonly ends: Int32Array;
  /** Per link: pore 1 length, throat length, pore 2 length (m), in the file's pore order. */
  readonly lengths: Float64Array;
  /** Per link: shape factor. */
  readonly shapeFactor: Float64Array;
  /** CSR over nodes: `start[i]..start[i+1]` indexes `neighbour` (file codes) and `linkOf` (1-based). */
  readonly start: Int32Array;
  readonly neighbour: Int32Array;
  readonly linkOf: Int32Array;
}

/** Which reservoir a boundary pore on `face` becomes, or null when it is dropped. */
function reservoirOf(face: number): number | null {
  if (face === 0) return inletReservoir;
  if (face === 1) return outletReservoir;
  return null;
}

function statoilLayout(network: NetworkArrays): StatoilLayout {
  const { pores, throats } = network;
  const n = pores.volume.length;
  const m = throats.length.length;
  const fileIndex = new Int32Array(n);
  const nodeList: number[] = [];
  for (let i = 0; i < n; i++) {
    if (pores.face[i] === -1) {
      nodeList.push(i);
      fileIndex[i] = nodeList.length;
    }
  }
  const linkList: number[] = [];
  const ends: number[] = [];
  const lengths: number[] = [];
  const degree = new Int32Array(nodeList.length + 1);
  const { conns, conduitLengths: cl } = throats;
  for (let t = 0; t < m; t++) {
    const a = conns[2 * t] as number;
    const b = conns[2 * t + 1] as number;
    const la = cl[3 * t] as number;
    const lt = cl[3 * t + 1] as number;
    const lb = cl[3 * t + 2] as number;
    const fa = fileIndex[a] as number;
    const fb = fileIndex[b] as number;
    if (fa > 0 && fb > 0) {
      ends.push(fa, fb);
      lengths.push(la, lt, lb);
    } else if (fa > 0 || fb > 0) {
      // One interior pore, one boundary pore: the boundary pore becomes its face's reservoir.
      const [inner, outer, lInner, lOuter] = fa > 0 ? [fa, b, la, lb] : [fb, a, lb, la];
      const reservoir = reservoirOf(pores.face[outer] as number);
      if (reservoir === null) continue;
      ends.push(reservoir, inner);
      lengths.push(lOuter, lt, lInner);
    } else {
      continue;
    }
    linkList.push(t);
    const e0 = ends[ends.length - 2] as number;
    const e1 = ends[ends.length - 1] as number;
    if (e0 > 0) degree[e0 - 1] = (degree[e0 - 1] as number) + 1;
    if (e1 > 0) degree[e1 - 1] = (degree[e1 - 1] as number) + 1;
  }
  const nodes = Int32Array.from(nodeList);
  const links = Int32Array.from(linkList);
  const start = new Int32Array(nodes.length + 1);
  for (let i = 0; i < nodes.length; i++) start[i + 1] = (start[i] as number) + (degree[i] as number);
  const total = start[nodes.length] as number;
  const neighbour = new Int32Array(total);
  const linkOf = new Int32Array(total);
  const fill = start.slice(0, nodes.length);
  const shapeFactor = new Float64Array(links.length);
  for (let k = 0; k < links.length; k++) {
    const t = links[k] as number;
    shapeFactor[k] = throatShapeFactor(throats.area[t] as number, throats.perimeter[t] as number);
    const e0 = ends[2 * k] as number;
    const e1 = ends[2 * k + 1] as number;
    for (const [self, other] of [
      [e0, e1],
      [e1, e0],
    ] as const) {
      if (self <= 0) continue;
      const slot = fill[self - 1] as number;
      fill[self - 1] = slot + 1;
      neighbour[slot] = other;
      linkOf[slot] = k + 1;
    }
  }
  return {
    nodes,
    links,
    ends: Int32Array.from(ends),
    lengths: Float64Array.from(lengths),
    shapeFactor,
    start,
    neighbour,
    linkOf,
  };
}

function* node1Lines(network: NetworkArrays, layout: StatoilLayout): Generator<string> {
  const [n0, n1, n2] = network.shape;
  const h = network.voxelSize;
  yield `${layout.nodes.length} ${num(n0 * h)} ${num(n1 * h)} ${num(n2 * h)}`;
  const xyz = network.pores.coordinates;
  for (let i = 0; i < layout.nodes.length; i++) {
    const p = layout.nodes[i] as number;
    const from = layout.start[i] as number;
    const to = layout.start[i + 1] as number;
    const neighbours = Array.from(layout.neighbour.subarray(from, to));
    const inlet = neighbours.includes(inletReservoir) ? 1 : 0;
    const outlet = neighbours.includes(outletReservoir) ? 1 : 0;
    const parts = [
      String(i + 1),
      num(xyz[3 * p] as number),
      num(xyz[3 * p + 1] as number),
      num(xyz[3 * p + 2] as number),
      String(to - from),
      ...neighbours.map(String),
      String(inlet),
      String(outlet),
      ...Array.from(layout.linkOf.subarray(from, to), String),
    ];
    yield parts.join(' ');
  }
}

function* node2Lines(network: NetworkArrays, layout: StatoilLayout): Generator<string> {
  const { volume, inscribedDiameter } = network.pores;
  for (let i = 0; i < layout.nodes.length; i++) {
    const p = layout.nodes[i] as number;
    const from = layout.start[i] as number;
    const to = layout.start[i + 1] as number;
    let g = circleShapeFactor;
    if (to > from) {
      let sum = 0;
      for (let s = from; s < to; s++) sum += layout.shapeFactor[(layout.linkOf[s] as number) - 1] as number;
      g = sum / (to - from);
    }
    yield `${i + 1} ${num(volume[p] as number)} ${num((inscribedDiameter[p] as number) / 2)} ${num(g)} 0`;
  }
}

function* link1Lines(network: NetworkArrays, layout: StatoilLayout): Generator<string> {
  const { inscribedDiameter, length } = network.throats;
  yield String(layout.links.length);
  for (let k = 0; k < layout.links.length; k++) {
    const t = layout.links[k] as number;
    yield `${k + 1} ${layout.ends[2 * k]} ${layout.ends[2 * k + 1]} ${num((inscribedDiameter[t] as number) / 2)} ${num(
      layout.shapeFactor[k] as number,
    )} ${num(length[t] as number)}`;
  }
}

function* link2Lines(layout: StatoilLayout): Generator<string> {
  const l = layout.lengths;
  for (let k = 0; k < layout.links.length; k++) {
    yield `${k + 1} ${layout.ends[2 * k]} ${layout.ends[2 * k + 1]} ${num(l[3 * k] as number)} ${num(
      l[3 * k + 2] as number,
    )} ${num(l[3 * k + 1] as number)} 0 0`;
  }
}

/** Reads a file-name prefix: a non-empty string with no path separator or NUL. */
function readPrefix(value: unknown, argument: string): string {
  if (typeof value !== 'string') {
    fail('type', argument, `must be a file-name prefix (a string), got ${describeValue(value)}`);
  }
  if (value.length === 0) fail('type', argument, 'must be a file-name prefix, got an empty string');
  if (/[/\\\0]/.test(value)) {
    fail('range', argument, `must be a file-name prefix without '/', '\\' or NUL, got ${describeValue(value)}`);
  }
  return value;
}

/**
 * Writes a network in the Statoil format — the four text files of Imperial College's network
 * extraction, read by pnflow and by OpenPNM's `io.network_from_statoil` — as
 * `<dir>/<prefix>_node1.dat`, `_node2.dat`, `_link1.dat` and `_link2.dat`. Flow runs along x.
 *
 * What is written (every number in SI units, in JavaScript's shortest round-trip form;
 * fields separated by one space; pore and throat indices 1-based):
 *
 * - `node1`: a line `Np Lx Ly Lz` (Lᵢ = shape[i] · voxelSize), then per pore
 *   `index x y z z_c neighbour₁…neighbour_z inlet outlet link₁…link_z`, where z_c is the
 *   coordination number (reservoir links included), a neighbour is a pore index or a reservoir
 *   (−1 inlet, 0 outlet), and `inlet`/`outlet` are 1 when the pore is linked to that reservoir.
 * - `node2`: per pore `index volume radius shapeFactor clayVolume`.
 * - `link1`: a line `Nt`, then per link `index pore1 pore2 radius shapeFactor totalLength`.
 * - `link2`: per link `index pore1 pore2 pore1Length pore2Length throatLength volume clayVolume`.
 *
 * How our network maps onto it:
 *
 * - Interior pores (`face` −1) are the nodes, numbered 1… in their order in the network.
 * - Boundary pores are not written. A boundary pore on the inlet face x− (face 0) becomes the
 *   inlet reservoir (−1) and one on the outlet face x+ (face 1) the outlet reservoir (0): each
 *   throat joining it to an interior pore is written as a link with `pore1` the reservoir and
 *   `pore2` the interior pore (and `pore1Length` the boundary pore's part of the conduit).
 *   Boundary pores on the y and z faces are dropped with their throats, as are throats joining
 *   two boundary pores. Links are numbered 1… in the order of the kept throats.
 * - radius = inscribed diameter / 2 (pores and throats).
 * - Throat shape factor G = area / perimeter², clipped to (0, 1/(4π)]: a value above a circle's,
 *   or a degenerate section with zero area or perimeter, is written as 1/(4π).
 * - Pore shape factor: the mean of the shape factors of the pore's written links, or 1/(4π) for
 *   a pore with none.
 * - totalLength is the centre-to-centre throat length; pore1Length, throatLength and
 *   pore2Length are the conduit lengths (swapped with the pore order when a reservoir link
 *   reverses it). Throat volume and every clay volume are written as 0.
 *
 * `dir` must be an existing directory (RangeError naming `dir` otherwise); `prefix` a non-empty
 * string without `/`, `\` or NUL. The network is read and checked, and the four files laid out,
 * before any file is touched; each file is then written atomically (a reader sees the old file
 * or the new one, never a part), one after the other.
 *
 * @example
 * ```ts
 * await writeStatoil(network, 'out', 'berea');
 * // out/berea_node1.dat, out/berea_node2.dat, out/berea_link1.dat, out/berea_link2.dat
 * // then in OpenPNM: op.io.network_from_statoil(path='out', prefix='berea')
 * ```
 */
export async function writeStatoil(network: NetworkArrays, dir: string, prefix: string): Promise<void> {
  const net = readNetwork(network, 'network');
  const folder = readPath(dir, 'dir');
  const name = readPrefix(prefix, 'prefix');
  let isDirectory = false;
  let why = 'is not a directory';
  try {
    isDirectory = (await stat(folder)).isDirectory();
  } catch (error) {
    why = `cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
  }
  if (!isDirectory) fail('range', 'dir', `must be an existing directory: ${describeValue(folder)} ${why}`);
  const layout = statoilLayout(net);
  const files: [string, Iterable<string>][] = [
    ['node1', node1Lines(net, layout)],
    ['node2', node2Lines(net, layout)],
    ['link1', link1Lines(net, layout)],
    ['link2', link2Lines(layout)],
  ];
  for (const [kind, lines] of files) {
    await writeAtomically(join(folder, `${name}_${kind}.dat`), (temp) => writeFile(temp, batched(lines)));
  }
}

// ---------------------------------------------------------------------------------------------
// OpenPNM dictionary

/**
 * A network as OpenPNM's flat dictionary (the keys PoreSpy's `snow2` gives, plus its boundary
 * labels), every value a plain array, so `JSON.stringify` writes it and
 * `openpnm.network.Network().update(...)` reads it (after `numpy.asarray` of each value).
 */
export type NetworkJSON = {
  /** [x, y, z] per pore (m). */
  'pore.coords': number[][];
  /** m³ (0 for boundary pores). */
  'pore.volume': number[];
  /** m. */
  'pore.inscribed_diameter': number[];
  /** m. */
  'pore.equivalent_diameter': number[];
  /** m². */
  'pore.surface_area': number[];
  /** The image region of each pore (for a boundary pore, of the pore it caps). */
  'pore.region_label': number[];
  /** True for interior pores (`face` −1). */
  'pore.internal': boolean[];
  /** True for boundary pores. */
  'pore.boundary': boolean[];
  /** Boundary pores on x− (face 0). */
  'pore.xmin': boolean[];
  /** Boundary pores on x+ (face 1). */
  'pore.xmax': boolean[];
  /** Boundary pores on y− (face 2). */
  'pore.ymin': boolean[];
  /** Boundary pores on y+ (face 3). */
  'pore.ymax': boolean[];
  /** Boundary pores on z− (face 4). */
  'pore.zmin': boolean[];
  /** Boundary pores on z+ (face 5). */
  'pore.zmax': boolean[];
  /** [pore1, pore2] per throat, 0-based, smaller first. */
  'throat.conns': number[][];
  /** m. */
  'throat.inscribed_diameter': number[];
  /** m². */
  'throat.cross_sectional_area': number[];
  /** m. */
  'throat.perimeter': number[];
  /** Centre to centre (m). */
  'throat.direct_length': number[];
  /**
   * Pore centre → the throat's peak → pore centre (m), PoreSpy's definition; only when the
   * network has `throats.totalLength` (every extracted network does).
   */
  'throat.total_length'?: number[];
  /** The pore 1 part of the conduit (m). */
  'throat.conduit_lengths.pore1': number[];
  /** The throat part of the conduit (m). */
  'throat.conduit_lengths.throat': number[];
  /** The pore 2 part of the conduit (m). */
  'throat.conduit_lengths.pore2': number[];
};

const faceKeys = ['pore.xmin', 'pore.xmax', 'pore.ymin', 'pore.ymax', 'pore.zmin', 'pore.zmax'] as const;

/**
 * The network as OpenPNM's flat dictionary of plain arrays ({@link NetworkJSON}): pore keys
 * `pore.coords`, `pore.volume`, `pore.inscribed_diameter`, `pore.equivalent_diameter`,
 * `pore.surface_area`, `pore.region_label`, the labels `pore.internal`, `pore.boundary` and
 * `pore.xmin` … `pore.zmax` (booleans, as PoreSpy names boundary faces); throat keys
 * `throat.conns`, `throat.inscribed_diameter`, `throat.cross_sectional_area`,
 * `throat.perimeter`, `throat.direct_length` (centre to centre), `throat.total_length` (through the
 * throat's peak, when the arrays have it), `throat.conduit_lengths.pore1`,
 * `throat.conduit_lengths.throat`, `throat.conduit_lengths.pore2`. Indices are 0-based and units
 * SI. The image's shape, voxel size and porosity are not in it (OpenPNM takes only `pore.*` and
 * `throat.*` keys).
 *
 * @example
 * ```ts
 * await writeFile('network.json', JSON.stringify(networkToJSON(network)));
 * // Python: pn = op.network.Network(); pn.update({k: np.asarray(v) for k, v in json.load(f).items()})
 * ```
 */
export function networkToJSON(network: NetworkArrays): NetworkJSON {
  const { pores, throats } = readNetwork(network, 'network');
  const n = pores.volume.length;
  const m = throats.length.length;
  const xyz = pores.coordinates;
  const faces = Array.from(pores.face);
  const out: NetworkJSON = {
    'pore.coords': Array.from({ length: n }, (_, i) => [
      xyz[3 * i] as number,
      xyz[3 * i + 1] as number,
      xyz[3 * i + 2] as number,
    ]),
    'pore.volume': Array.from(pores.volume),
    'pore.inscribed_diameter': Array.from(pores.inscribedDiameter),
    'pore.equivalent_diameter': Array.from(pores.equivalentDiameter),
    'pore.surface_area': Array.from(pores.surfaceArea),
    'pore.region_label': Array.from(pores.label),
    'pore.internal': faces.map((f) => f === -1),
    'pore.boundary': faces.map((f) => f !== -1),
    'pore.xmin': [],
    'pore.xmax': [],
    'pore.ymin': [],
    'pore.ymax': [],
    'pore.zmin': [],
    'pore.zmax': [],
    'throat.conns': Array.from({ length: m }, (_, t) => [
      throats.conns[2 * t] as number,
      throats.conns[2 * t + 1] as number,
    ]),
    'throat.inscribed_diameter': Array.from(throats.inscribedDiameter),
    'throat.cross_sectional_area': Array.from(throats.area),
    'throat.perimeter': Array.from(throats.perimeter),
    'throat.direct_length': Array.from(throats.length),
    ...(throats.totalLength === undefined ? {} : { 'throat.total_length': Array.from(throats.totalLength) }),
    'throat.conduit_lengths.pore1': Array.from({ length: m }, (_, t) => throats.conduitLengths[3 * t] as number),
    'throat.conduit_lengths.throat': Array.from({ length: m }, (_, t) => throats.conduitLengths[3 * t + 1] as number),
    'throat.conduit_lengths.pore2': Array.from({ length: m }, (_, t) => throats.conduitLengths[3 * t + 2] as number),
  };
  faceKeys.forEach((key, f) => {
    out[key] = faces.map((x) => x === f);
  });
  return out;
}
