import type { FileHandle } from 'node:fs/promises';
import { open, writeFile } from 'node:fs/promises';
import { endianness } from 'node:os';
import { describeValue, fail, isDetached, readInteger, readNumber, readOptions, readVector3 } from '@peclet/core';
import { readPath, writeAtomically } from './atomic.js';
import { readShape, type Shape3, voxelCount } from './voxel.js';

/** The typed arrays VTK files (and {@link sliceOf}) take. */
export type NumericArray =
  | Uint8Array
  | Int8Array
  | Uint16Array
  | Int16Array
  | Uint32Array
  | Int32Array
  | Float32Array
  | Float64Array;

/** A data array: one value per cell or point, or `components` values each (interleaved). */
export type DataArrayInput = NumericArray | { values: NumericArray; components: number };

/** Named data arrays, written in key order. */
export type DataArrays = Record<string, DataArrayInput>;

const vtkTypes: [new (n: number) => NumericArray, string][] = [
  [Uint8Array, 'UInt8'],
  [Int8Array, 'Int8'],
  [Uint16Array, 'UInt16'],
  [Int16Array, 'Int16'],
  [Uint32Array, 'UInt32'],
  [Int32Array, 'Int32'],
  [Float32Array, 'Float32'],
  [Float64Array, 'Float64'],
];

/** Bytes per write chunk. */
const chunkBytes = 2 * 2 ** 20;

/** Reads a supported typed array: not a Proxy, not detached. Returns its VTK type name. */
export function readNumericArray(value: unknown, argument: string): { values: NumericArray; type: string } {
  if (ArrayBuffer.isView(value) && !(value instanceof DataView)) {
    for (const [Ctor, type] of vtkTypes) {
      if (value instanceof Ctor) {
        if (isDetached(value))
          fail('type', argument, `is a detached ${Ctor.name} (its memory was released or transferred)`);
        return { values: value as NumericArray, type };
      }
    }
  }
  return fail(
    'type',
    argument,
    `must be a Uint8/Int8/Uint16/Int16/Uint32/Int32/Float32/Float64Array, got ${describeValue(value)}`,
  );
}

interface DataArray {
  readonly name: string;
  readonly type: string;
  readonly components: number;
  readonly values: NumericArray;
}

/** Reads `{ name: array | { values, components } }`, each array `tuples · components` long. */
function readArrays(value: unknown, argument: string, tuples: number, what: string): DataArray[] {
  if (value === undefined) return [];
  if (typeof value !== 'object' || value === null || Array.isArray(value) || ArrayBuffer.isView(value)) {
    fail('type', argument, `must be an object of named arrays, got ${describeValue(value)}`);
  }
  const out: DataArray[] = [];
  for (const name of Object.keys(value)) {
    const at = `${argument}.${name}`;
    if (name.length === 0) fail('type', argument, 'has an array with an empty name');
    const entry = (value as Record<string, unknown>)[name];
    let values: unknown = entry;
    let components = 1;
    if (!ArrayBuffer.isView(entry)) {
      const o = readOptions(entry, at, ['values', 'components']);
      values = o.values;
      components = readInteger(o.components, `${at}.components`, { min: 1, max: 4096 });
    }
    const read = readNumericArray(values, ArrayBuffer.isView(entry) ? at : `${at}.values`);
    const expected = tuples * components;
    if (read.values.length !== expected) {
      fail(
        'range',
        at,
        `holds ${read.values.length} values, but ${tuples} ${what} × ${components} component(s) need ${expected}`,
      );
    }
    out.push({ name, type: read.type, components, values: read.values });
  }
  return out;
}

const escapeXml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] as string);

/** Writes all of `bytes` at the handle's position. */
async function writeAll(handle: FileHandle, bytes: Uint8Array): Promise<void> {
  let done = 0;
  while (done < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, done, bytes.length - done);
    done += bytesWritten;
  }
}

/** One array of the appended block: its XML attributes, its byte length and how to stream it. */
interface Block {
  readonly xml: (offset: number) => string;
  readonly bytes: number;
  readonly emit: (handle: FileHandle) => Promise<void>;
}

function dataArrayXml(name: string, type: string, components: number, offset: number): string {
  return `<DataArray type="${type}" Name="${escapeXml(name)}" NumberOfComponents="${components}" format="appended" offset="${offset}"/>`;
}

/**
 * Streams `count` elements made by `fill(chunk, first, n)` through one reusable chunk of `Ctor`
 * (an array never held whole twice).
 */
async function streamChunks<T extends NumericArray | BigInt64Array>(
  handle: FileHandle,
  chunk: T,
  count: number,
  fill: (chunk: T, first: number, n: number) => void,
): Promise<void> {
  const per = chunk.length;
  for (let first = 0; first < count; first += per) {
    const n = Math.min(per, count - first);
    fill(chunk, first, n);
    await writeAll(handle, new Uint8Array(chunk.buffer, 0, n * chunk.BYTES_PER_ELEMENT));
  }
}

function chunkOf(values: NumericArray, components: number, count = values.length): NumericArray {
  const Ctor = values.constructor as new (n: number) => NumericArray;
  const tuples = Math.max(1, Math.floor(chunkBytes / values.BYTES_PER_ELEMENT / components));
  return new Ctor(Math.min(tuples * components, Math.max(count, components)));
}

/** A plain block: the values as they are (VTP arrays). */
function plainBlock(a: DataArray, prefixTuples = 0): Block {
  const prefix = prefixTuples * a.components;
  const count = prefix + a.values.length;
  const blank = a.type.startsWith('Float') ? Number.NaN : 0;
  return {
    xml: (offset) => dataArrayXml(a.name, a.type, a.components, offset),
    bytes: count * a.values.BYTES_PER_ELEMENT,
    emit: (handle) =>
      streamChunks(handle, chunkOf(a.values, a.components, count), count, (chunk, first, n) => {
        let i = 0;
        for (; i < n && first + i < prefix; i++) chunk[i] = blank;
        if (i < n) chunk.set(a.values.subarray(first + i - prefix, first + n - prefix), i);
      }),
  };
}

/**
 * A cell block of an image, transposed: VTK cell (x = i, y = j, z = k) is number i + n0 (j + n1 k)
 * (x fastest); it holds our element (i n1 + j) n2 + k (C order, z fastest). Components stay together.
 */
function transposedBlock(a: DataArray, shape: Shape3): Block {
  const [n0, n1, n2] = shape;
  const c = a.components;
  const values = a.values;
  const strideX = n1 * n2 * c;
  return {
    xml: (offset) => dataArrayXml(a.name, a.type, c, offset),
    bytes: values.length * values.BYTES_PER_ELEMENT,
    emit: async (handle) => {
      const chunk = chunkOf(values, c);
      const tuplesPerChunk = chunk.length / c;
      let fill = 0;
      for (let k = 0; k < n2; k++) {
        for (let j = 0; j < n1; j++) {
          let source = (j * n2 + k) * c;
          for (let i = 0; i < n0; i++, source += strideX) {
            if (c === 1) chunk[fill++] = values[source] as number;
            else for (let q = 0; q < c; q++) chunk[fill++] = values[source + q] as number;
            if (fill === tuplesPerChunk * c) {
              await writeAll(handle, new Uint8Array(chunk.buffer, 0, fill * chunk.BYTES_PER_ELEMENT));
              fill = 0;
            }
          }
        }
      }
      if (fill > 0) await writeAll(handle, new Uint8Array(chunk.buffer, 0, fill * chunk.BYTES_PER_ELEMENT));
    },
  };
}

/** An integer sequence block (connectivity, offsets): Int32 when it fits, else Int64. */
function sequenceBlock(name: string, count: number, largest: number, at: (i: number) => number): Block {
  const wide = largest > 2 ** 31 - 1;
  const type = wide ? 'Int64' : 'Int32';
  const size = wide ? 8 : 4;
  return {
    xml: (offset) => dataArrayXml(name, type, 1, offset),
    bytes: count * size,
    emit: (handle) => {
      const per = Math.max(1, Math.min(count, chunkBytes / size));
      if (wide) {
        return streamChunks(handle, new BigInt64Array(per), count, (chunk, first, n) => {
          for (let i = 0; i < n; i++) chunk[i] = BigInt(at(first + i));
        });
      }
      return streamChunks(handle, new Int32Array(per), count, (chunk, first, n) => {
        for (let i = 0; i < n; i++) chunk[i] = at(first + i);
      });
    },
  };
}

/**
 * Writes the XML (with `{{offset:i}}` placeholders filled) and the appended block of `blocks`:
 * `_`, then per array its byte count as a UInt64 and its bytes.
 */
async function writeVtkFile(path: string, head: (offsets: number[]) => string, blocks: Block[]): Promise<void> {
  const offsets: number[] = [];
  let at = 0;
  for (const b of blocks) {
    offsets.push(at);
    at += 8 + b.bytes;
  }
  const little = endianness() === 'LE';
  const xml = head(offsets).replace('{{byte_order}}', little ? 'LittleEndian' : 'BigEndian');
  await writeAtomically(path, async (temp) => {
    const handle = await open(temp, 'w');
    try {
      await writeAll(handle, Buffer.from(`${xml}  <AppendedData encoding="raw">\n   _`, 'utf8'));
      const size = new DataView(new ArrayBuffer(8));
      for (const b of blocks) {
        size.setBigUint64(0, BigInt(b.bytes), little);
        await writeAll(handle, new Uint8Array(size.buffer));
        await b.emit(handle);
      }
      await writeAll(handle, Buffer.from('\n  </AppendedData>\n</VTKFile>\n', 'utf8'));
    } finally {
      await handle.close();
    }
  });
}

const fileHead = (type: string) =>
  `<?xml version="1.0"?>\n<VTKFile type="${type}" version="1.0" byte_order="{{byte_order}}" header_type="UInt64">\n`;

const formatNumbers = (xs: readonly number[]) => xs.map((x) => String(x)).join(' ');

/** Options of {@link writeVti}. */
export interface WriteVtiOptions {
  /** `[n0, n1, n2]` cells, our C order (axis 0 = x). */
  shape: readonly [number, number, number] | [number, number, number];
  /** Cell edge (m): one number or `[dx, dy, dz]` (default 1). */
  spacing?: number | readonly [number, number, number] | [number, number, number];
  /** Corner of the grid (m), default `[0, 0, 0]`. */
  origin?: readonly [number, number, number] | [number, number, number];
  /** Arrays over the cells, each C order: element `(i n1 + j) n2 + k` (× components) is cell (x = i, y = j, z = k). */
  cellData: DataArrays;
  /**
   * Index of the first cell in a larger image (default `[0, 0, 0]`): the extent of a piece of a
   * parallel image (`.pvti`, see {@link writePvti}), whose origin and spacing are the whole's.
   */
  offset?: readonly [number, number, number] | [number, number, number];
}

/** Reads a cell offset: three integers ≥ 0. */
function readOffset(value: unknown, argument: string): [number, number, number] {
  if (value === undefined) return [0, 0, 0];
  const v = readVector3(value, argument);
  v.forEach((x, a) => {
    if (!(Number.isInteger(x) && x >= 0 && x <= 2 ** 32)) {
      fail('range', `${argument}[${a}]`, `must be an integer ≥ 0, got ${describeValue(x)}`, a);
    }
  });
  return v;
}

const extentOf = (offset: readonly number[], shape: readonly number[]) =>
  [0, 1, 2].map((a) => `${offset[a]} ${(offset[a] as number) + (shape[a] as number)}`).join(' ');

/** Reads `spacing`: one number or three, each > 0 (default 1). */
function readSpacing(value: unknown): [number, number, number] {
  if (value === undefined) return [1, 1, 1];
  if (typeof value === 'number') {
    const s = readNumber(value, 'spacing', { above: 0, unit: 'm' });
    return [s, s, s];
  }
  const spacing = readVector3(value, 'spacing');
  spacing.forEach((s, a) => {
    if (!(s > 0)) fail('range', `spacing[${a}]`, `must be > 0, got ${describeValue(s)}`, a);
  });
  return spacing;
}

/**
 * Writes a VTK XML ImageData file (`.vti`): the voxels as cells (WholeExtent `0 n0 0 n1 0 n2`),
 * appended raw binary with UInt64 headers. Each array is written transposed to VTK's x-fastest
 * order through a 2 MiB chunk buffer, never copied whole. Atomic.
 *
 * @example
 * ```ts
 * await writeVti('flow.vti', {
 *   shape: image.shape,
 *   spacing: image.voxelSize,
 *   cellData: { solid: image.solid, velocity: { values: velocity, components: 3 } },
 * });
 * ```
 */
export async function writeVti(path: string, options: WriteVtiOptions): Promise<void> {
  const file = readPath(path);
  const o = readOptions(options, 'options', ['shape', 'spacing', 'origin', 'cellData', 'offset']);
  const shape = readShape(o.shape, 'shape');
  const spacing = readSpacing(o.spacing);
  const origin = readVector3(o.origin, 'origin', { fallback: [0, 0, 0] });
  const offset = readOffset(o.offset, 'offset');
  if (o.cellData === undefined) fail('type', 'cellData', 'is required (an object of named arrays, may be empty)');
  const arrays = readArrays(o.cellData, 'cellData', voxelCount(shape), 'cells');
  const extent = extentOf(offset, shape);
  const head = (offsets: number[]) =>
    `${fileHead('ImageData')}  <ImageData WholeExtent="${extent}" Origin="${formatNumbers(origin)}" Spacing="${formatNumbers(spacing)}">\n` +
    `    <Piece Extent="${extent}">\n      <PointData>\n      </PointData>\n      <CellData>\n` +
    arrays.map((a, i) => `        ${dataArrayXml(a.name, a.type, a.components, offsets[i] as number)}\n`).join('') +
    '      </CellData>\n    </Piece>\n  </ImageData>\n';
  await writeVtkFile(
    file,
    head,
    arrays.map((a) => transposedBlock(a, shape)),
  );
}

/** The VTK type names of the arrays a `.vti` holds. */
export type VtkType = 'UInt8' | 'Int8' | 'UInt16' | 'Int16' | 'UInt32' | 'Int32' | 'Float32' | 'Float64';

/** Most pieces a `.pvti` lists (one per MPI rank of a large job). */
const MAX_PIECES = 1 << 20;

/** Options of {@link writePvti}. */
export interface WritePvtiOptions {
  /** The whole image's `[n0, n1, n2]` cells, C order (axis 0 = x). */
  shape: readonly [number, number, number] | [number, number, number];
  /** As {@link WriteVtiOptions.spacing}: the pieces must have the same. */
  spacing?: number | readonly [number, number, number] | [number, number, number];
  origin?: readonly [number, number, number] | [number, number, number];
  /**
   * The pieces: each a `.vti` written by {@link writeVti} with its `offset` and `shape`, named
   * relative to the `.pvti`'s folder. Together they must tile the whole image.
   */
  pieces: readonly { source: string; offset: readonly number[]; shape: readonly number[] }[];
  /** The cell arrays every piece holds: their VTK type and components (default 1). */
  cellData: Record<string, { type: VtkType; components?: number }>;
}

/**
 * Writes a parallel VTK image (`.pvti`): the whole extent and the list of its pieces (`.vti`
 * files, one per MPI rank for a distributed lattice), which ParaView opens as one image.
 * Checks that the pieces tile the whole image (no gap, no overlap). Atomic.
 *
 * @example
 * ```ts
 * await writePvti('flow.pvti', {
 *   shape: [64, 32, 32],
 *   pieces: [
 *     { source: 'flow_0.vti', offset: [0, 0, 0], shape: [32, 32, 32] },
 *     { source: 'flow_1.vti', offset: [32, 0, 0], shape: [32, 32, 32] },
 *   ],
 *   cellData: { density: { type: 'Float64' }, velocity: { type: 'Float64', components: 3 } },
 * });
 * ```
 */
export async function writePvti(path: string, options: WritePvtiOptions): Promise<void> {
  const file = readPath(path);
  const o = readOptions(options, 'options', ['shape', 'spacing', 'origin', 'pieces', 'cellData']);
  const shape = readShape(o.shape, 'shape');
  const spacing = readSpacing(o.spacing);
  const origin = readVector3(o.origin, 'origin', { fallback: [0, 0, 0] });
  if (!Array.isArray(o.pieces) || o.pieces.length === 0) fail('type', 'pieces', 'must be a non-empty array');
  const list = o.pieces as unknown[];
  if (list.length > MAX_PIECES)
    fail('range', 'pieces', `has ${list.length} pieces, more than the ${MAX_PIECES} allowed`);
  let cells = 0;
  const pieces: { source: string; extent: string; lo: number[]; hi: number[]; index: number }[] = [];
  for (let i = 0; i < list.length; i++) {
    // Every index is read, holes included (a hole is refused, not skipped).
    const p = readOptions(list[i], `pieces[${i}]`, ['source', 'offset', 'shape']);
    if (
      typeof p.source !== 'string' ||
      p.source.length === 0 ||
      /[<>&"]/.test(p.source) ||
      [...p.source].some((ch) => (ch.codePointAt(0) as number) < 0x20 || ch === '\x7f')
    ) {
      fail('type', `pieces[${i}].source`, 'must be a file name (no <, >, &, " or control character)');
    }
    const offset = readOffset(p.offset, `pieces[${i}].offset`);
    const size = readShape(p.shape, `pieces[${i}].shape`);
    const hi = offset.map((x, a) => x + (size[a] as number));
    if (hi.some((x, a) => x > (shape[a] as number))) {
      fail(
        'range',
        `pieces[${i}]`,
        `extends past the whole image (${extentOf(offset, size)} in ${extentOf([0, 0, 0], shape)})`,
      );
    }
    cells += voxelCount(size);
    pieces.push({ source: p.source as string, extent: extentOf(offset, size), lo: offset, hi, index: i });
  }
  // Overlaps, by a sweep along x: only pieces whose x ranges meet are compared (a slab split
  // compares each piece with none).
  const byX = [...pieces].sort((p, q) => (p.lo[0] as number) - (q.lo[0] as number));
  let active: typeof pieces = [];
  for (const p of byX) {
    active = active.filter((q) => (q.hi[0] as number) > (p.lo[0] as number));
    for (const q of active) {
      if ([1, 2].every((a) => (p.lo[a] as number) < (q.hi[a] as number) && (q.lo[a] as number) < (p.hi[a] as number))) {
        const [first, second] = p.index < q.index ? [p, q] : [q, p];
        fail('range', `pieces[${second.index}]`, `overlaps pieces[${first.index}]`);
      }
    }
    active.push(p);
  }
  if (cells !== voxelCount(shape)) {
    fail('range', 'pieces', `cover ${cells} of the image's ${voxelCount(shape)} cells; they must tile it`);
  }
  if (typeof o.cellData !== 'object' || o.cellData === null || Array.isArray(o.cellData)) {
    fail('type', 'cellData', 'must be an object of { type, components }');
  }
  const types = vtkTypes.map(([, t]) => t);
  const arrays = Object.keys(o.cellData).map((name) => {
    if (name.length === 0) fail('type', 'cellData', 'has an array with an empty name');
    const a = readOptions((o.cellData as Record<string, unknown>)[name], `cellData.${name}`, ['type', 'components']);
    if (!types.includes(a.type as string)) fail('type', `cellData.${name}.type`, `must be one of ${types.join(', ')}`);
    const components = readInteger(a.components, `cellData.${name}.components`, { min: 1, max: 4096, fallback: 1 });
    return `        <PDataArray type="${a.type}" Name="${escapeXml(name)}" NumberOfComponents="${components}"/>\n`;
  });
  const little = endianness() === 'LE';
  const xml =
    fileHead('PImageData').replace('{{byte_order}}', little ? 'LittleEndian' : 'BigEndian') +
    `  <PImageData WholeExtent="${extentOf([0, 0, 0], shape)}" GhostLevel="0" Origin="${formatNumbers(origin)}" Spacing="${formatNumbers(spacing)}">\n` +
    `    <PCellData>\n${arrays.join('')}    </PCellData>\n` +
    pieces.map((p) => `    <Piece Extent="${p.extent}" Source="${escapeXml(p.source)}"/>\n`).join('') +
    '  </PImageData>\n</VTKFile>\n';
  await writeAtomically(file, async (temp) => {
    await writeFile(temp, xml, 'utf8');
  });
}

/** Options of {@link writeVtp}. */
export interface WriteVtpOptions {
  /** Point coordinates (m), 3 per point (pore centres). */
  points: Float64Array | Float32Array;
  /** Line segments, 2 point indices each (throats). */
  lines?: Uint32Array | Int32Array;
  /** Arrays over the points (`pore.*`). */
  pointData?: DataArrays;
  /**
   * Polygons (the faces of Voronoi cells): `offsets[p]` is where polygon p's point indices end in
   * `connectivity` (VTK's convention: the first starts at 0), each polygon at least 3 points.
   */
  polys?: { connectivity: Uint32Array | Int32Array; offsets: Uint32Array | Int32Array };
  /** Arrays over the lines (`throat.*`), one tuple per line, then one per polygon. */
  cellData?: DataArrays;
  /** Write one vertex cell per point so isolated pores show (default true). */
  verts?: boolean;
}

/** Reads `polys`: index arrays whose offsets rise by 3 or more, to the end of `connectivity`. */
function readPolys(
  value: unknown,
  n: number,
): { connectivity: Uint32Array | Int32Array; offsets: Uint32Array | Int32Array } {
  const empty = { connectivity: new Uint32Array(0), offsets: new Uint32Array(0) };
  if (value === undefined) return empty;
  const o = readOptions(value, 'polys', ['connectivity', 'offsets']);
  const indices = (v: unknown, argument: string) => {
    if (!(v instanceof Uint32Array || v instanceof Int32Array) || !ArrayBuffer.isView(v)) {
      fail('type', argument, `must be a Uint32Array or Int32Array, got ${describeValue(v)}`);
    }
    return readNumericArray(v, argument).values as Uint32Array | Int32Array;
  };
  const connectivity = indices(o.connectivity, 'polys.connectivity');
  const offsets = indices(o.offsets, 'polys.offsets');
  for (let i = 0; i < connectivity.length; i++) {
    const p = connectivity[i] as number;
    if (!(p >= 0 && p < n)) {
      fail('range', 'polys.connectivity', `element ${i} is ${p}, not a point index in [0, ${n})`, i);
    }
  }
  let start = 0;
  for (let i = 0; i < offsets.length; i++) {
    const end = offsets[i] as number;
    if (!(end >= start + 3)) {
      fail(
        'range',
        'polys.offsets',
        `element ${i} is ${end}: polygon ${i} starts at ${start} and needs 3 points at least`,
        i,
      );
    }
    start = end;
  }
  if (start !== connectivity.length) {
    fail('range', 'polys.offsets', `ends at ${start}, but polys.connectivity holds ${connectivity.length} indices`);
  }
  return { connectivity, offsets };
}

/**
 * Writes a VTK XML PolyData file (`.vtp`) for a pore network — pores as points, throats as lines —
 * or for polyhedral cells (`polys`: their faces), appended raw binary with UInt64 headers. Atomic.
 *
 * Cells in a PolyData file are numbered verts first, then lines (VTK's order: verts, lines,
 * strips, polys). With `verts` (default) every point also gets a vertex cell, so the file's cell
 * arrays hold N vertex values first — NaN for float arrays, 0 for integer ones — then your M line
 * values, then one per polygon. `cellData` is therefore given per line and polygon (M + P
 * tuples); with `verts: false` the file's cells are exactly the lines and polygons.
 *
 * @example
 * ```ts
 * await writeVtp('network.vtp', {
 *   points: network['pore.coords'],
 *   lines: network['throat.conns'],
 *   pointData: { 'pore.diameter': network['pore.diameter'] },
 *   cellData: { 'throat.diameter': network['throat.diameter'] },
 * });
 * ```
 */
export async function writeVtp(path: string, options: WriteVtpOptions): Promise<void> {
  const file = readPath(path);
  const o = readOptions(options, 'options', ['points', 'lines', 'polys', 'pointData', 'cellData', 'verts']);
  if (!(o.points instanceof Float64Array || o.points instanceof Float32Array) || !ArrayBuffer.isView(o.points)) {
    fail('type', 'points', `must be a Float64Array or Float32Array (3 per point), got ${describeValue(o.points)}`);
  }
  const points = readNumericArray(o.points, 'points').values as Float64Array | Float32Array;
  if (points.length % 3 !== 0) fail('range', 'points', `length ${points.length} is not a multiple of 3`);
  for (let i = 0; i < points.length; i++) {
    if (!Number.isFinite(points[i])) fail('range', 'points', `element ${i} is not finite (${points[i]})`, i);
  }
  const n = points.length / 3;
  let lines: Uint32Array | Int32Array = new Uint32Array(0);
  if (o.lines !== undefined) {
    if (!(o.lines instanceof Uint32Array || o.lines instanceof Int32Array) || !ArrayBuffer.isView(o.lines)) {
      fail('type', 'lines', `must be a Uint32Array or Int32Array (2 per line), got ${describeValue(o.lines)}`);
    }
    lines = readNumericArray(o.lines, 'lines').values as Uint32Array | Int32Array;
    if (lines.length % 2 !== 0) fail('range', 'lines', `length ${lines.length} is not a multiple of 2`);
    for (let i = 0; i < lines.length; i++) {
      const p = lines[i] as number;
      if (!(p >= 0 && p < n)) fail('range', 'lines', `element ${i} is ${p}, not a point index in [0, ${n})`, i);
    }
  }
  const m = lines.length / 2;
  const polys = readPolys(o.polys, n);
  const q = polys.offsets.length;
  const verts = o.verts === undefined ? true : o.verts;
  if (typeof verts !== 'boolean') fail('type', 'verts', `must be true or false, got ${describeValue(verts)}`);
  const pointArrays = readArrays(o.pointData, 'pointData', n, 'points');
  const cellArrays = readArrays(o.cellData, 'cellData', m + q, q > 0 ? 'lines and polygons' : 'lines');
  const vertCount = verts ? n : 0;
  const lineValues = lines;
  const blocks: Block[] = [
    ...pointArrays.map((a) => plainBlock(a)),
    ...cellArrays.map((a) => plainBlock(a, vertCount)),
    plainBlock({
      name: 'Points',
      type: points instanceof Float64Array ? 'Float64' : 'Float32',
      components: 3,
      values: points,
    }),
    sequenceBlock('connectivity', vertCount, vertCount - 1, (i) => i),
    sequenceBlock('offsets', vertCount, vertCount, (i) => i + 1),
    sequenceBlock('connectivity', 2 * m, n - 1, (i) => lineValues[i] as number),
    sequenceBlock('offsets', m, 2 * m, (i) => 2 * (i + 1)),
    sequenceBlock('connectivity', polys.connectivity.length, n - 1, (i) => polys.connectivity[i] as number),
    sequenceBlock('offsets', q, polys.connectivity.length, (i) => polys.offsets[i] as number),
  ];
  const head = (offsets: number[]) => {
    const line = (i: number) => `        ${(blocks[i] as Block).xml(offsets[i] as number)}\n`;
    const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => line(from + i)).join('');
    const p = pointArrays.length;
    const c = cellArrays.length;
    return (
      `${fileHead('PolyData')}  <PolyData>\n` +
      `    <Piece NumberOfPoints="${n}" NumberOfVerts="${vertCount}" NumberOfLines="${m}" NumberOfStrips="0" NumberOfPolys="${q}">\n` +
      `      <PointData>\n${range(0, p)}      </PointData>\n` +
      `      <CellData>\n${range(p, c)}      </CellData>\n` +
      `      <Points>\n${range(p + c, 1)}      </Points>\n` +
      `      <Verts>\n${range(p + c + 1, 2)}      </Verts>\n` +
      `      <Lines>\n${range(p + c + 3, 2)}      </Lines>\n` +
      `      <Polys>\n${range(p + c + 5, 2)}      </Polys>\n` +
      '    </Piece>\n  </PolyData>\n'
    );
  };
  await writeVtkFile(file, head, blocks);
}
