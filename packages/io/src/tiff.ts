import { fail, readOptions } from '@peclet/core';
import { Unzlib } from 'fflate';
import { readPath, readRegularFile } from './atomic.js';
import { type ClassifierOptions, classifierKeys, classify, describeConvention, readClassifier } from './classify.js';
import { FileFormatError, outOfMemory } from './errors.js';
import { allocateImage } from './raw.js';
import { readVoxelSize, type Shape3, type VoxelImage } from './voxel.js';

/** Options of {@link readTiff}. */
export interface ReadTiffOptions extends ClassifierOptions {
  /** Voxel edge (m). */
  voxelSize: number;
}

/** Bytes per value of each TIFF field type (0: unknown). */
const typeSizes = [0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8, 4, 0, 0, 8, 8, 8];

interface Page {
  readonly width: number;
  readonly height: number;
}

/**
 * Walks the IFD chain before geotiff sees the file: every directory, every out-of-line value and
 * every strip or tile must lie inside the file, and the chain must not loop. geotiff trusts these
 * numbers (a looping chain would make it count pages forever).
 */
function walkTiff(bytes: Uint8Array, file: string): Page[] {
  const bad = (message: string) => new FileFormatError(file, `not a valid TIFF: ${message}`);
  const length = bytes.length;
  if (length < 8) throw bad(`only ${length} bytes`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const order = view.getUint16(0, false);
  if (order !== 0x4949 && order !== 0x4d4d) throw bad('no II or MM byte-order mark');
  const le = order === 0x4949;
  const version = view.getUint16(2, le);
  const big = version === 43;
  if (version !== 42 && !big) throw bad(`version ${version}, neither 42 (TIFF) nor 43 (BigTIFF)`);
  const u64 = (at: number) => Number(view.getBigUint64(at, le));
  if (big && (length < 16 || view.getUint16(4, le) !== 8))
    throw bad('a BigTIFF header with an offset size other than 8');
  const inline = big ? 8 : 4;
  const entrySize = big ? 20 : 12;
  const countSize = big ? 8 : 2;
  let offset = big ? u64(8) : view.getUint32(4, le);
  const seen = new Set<number>();
  const pages: Page[] = [];
  // A typed array, not a JS array: a file may list millions of strips, and a JS array that
  // cannot grow is a fatal V8 error under an address-space cap, where this is a RangeError.
  const integers = (type: number, count: number, at: number): Float64Array => {
    if (type !== 3 && type !== 4 && type !== 13 && type !== 16 && type !== 18)
      throw bad(`an offset or size field of type ${type}`);
    let out: Float64Array;
    try {
      out = new Float64Array(count);
    } catch (error) {
      return outOfMemory('path', `${file} lists ${count} values in one field (${(error as Error).message})`);
    }
    for (let i = 0; i < count; i++) {
      if (type === 3) out[i] = view.getUint16(at + 2 * i, le);
      else if (type === 4 || type === 13) out[i] = view.getUint32(at + 4 * i, le);
      else out[i] = u64(at + 8 * i);
    }
    return out;
  };
  while (offset !== 0) {
    if (seen.has(offset)) throw bad(`the directory chain loops back to offset ${offset}`);
    seen.add(offset);
    if (offset + countSize > length) throw bad(`a directory at offset ${offset}, past the end (${length} bytes)`);
    const count = big ? u64(offset) : view.getUint16(offset, le);
    const end = offset + countSize + count * entrySize + inline;
    if (end > length) throw bad(`the directory at ${offset} has ${count} entries, past the end`);
    const fields = new Map<number, Float64Array>();
    for (let e = 0; e < count; e++) {
      const at = offset + countSize + e * entrySize;
      const tag = view.getUint16(at, le);
      const type = view.getUint16(at + 2, le);
      const n = big ? u64(at + 4) : view.getUint32(at + 4, le);
      const size = (typeSizes[type] ?? 0) * n;
      let valueAt = at + (big ? 12 : 8);
      if (size > inline) {
        valueAt = big ? u64(valueAt) : view.getUint32(valueAt, le);
        if (valueAt + size > length) throw bad(`tag ${tag} holds ${size} bytes at offset ${valueAt}, past the end`);
      }
      if ([256, 257, 259, 273, 277, 278, 279, 284, 322, 323, 324, 325].includes(tag))
        fields.set(tag, integers(type, n, valueAt));
    }
    const width = fields.get(256)?.[0];
    const height = fields.get(257)?.[0];
    if (width === undefined || height === undefined) throw bad(`page ${pages.length} has no ImageWidth or ImageLength`);
    if (width === 0 || height === 0)
      fail('range', 'path', `${file} page ${pages.length} is empty (${width} × ${height})`);
    // Compression: what io decodes and bounds (none, LZW, Deflate, Adobe Deflate, PackBits). Any
    // other value (0 is none of TIFF's) would hand the strips to a decoder that reads them wrong.
    const compression = fields.get(259)?.[0] ?? 1;
    if (![1, 5, 8, 32946, 32773].includes(compression)) {
      throw bad(
        `page ${pages.length} has Compression ${compression}; io reads 1 (none), 5 (LZW), 8 and 32946 (Deflate), 32773 (PackBits)`,
      );
    }
    const offsets = fields.get(273) ?? fields.get(324);
    const sizes = fields.get(279) ?? fields.get(325);
    if (offsets === undefined || sizes === undefined || offsets.length !== sizes.length) {
      throw bad(`page ${pages.length} has no matching strip (or tile) offsets and byte counts`);
    }
    // The strips (or tiles) must cover the page: a tile of width 0 or too few strips would leave
    // voxels that no block decodes, read as zeros without a word.
    const tiled = fields.has(324);
    const blockWidth = tiled ? fields.get(322)?.[0] : width;
    const blockHeight = tiled ? fields.get(323)?.[0] : (fields.get(278)?.[0] ?? height);
    if (!blockWidth || !blockHeight) {
      throw bad(
        `page ${pages.length} has ${tiled ? `tiles of ${blockWidth ?? 'no'} × ${blockHeight ?? 'no'} pixels` : `${blockHeight} rows per strip`}`,
      );
    }
    const planes = fields.get(284)?.[0] === 2 ? (fields.get(277)?.[0] ?? 1) : 1;
    const blocks = Math.ceil(width / blockWidth) * Math.ceil(height / Math.min(blockHeight, height)) * planes;
    if (offsets.length < blocks) {
      throw bad(
        `page ${pages.length} (${width} × ${height}) needs ${blocks} ${tiled ? 'tiles' : 'strips'}, it lists ${offsets.length}`,
      );
    }
    for (let s = 0; s < offsets.length; s++) {
      // A block of no bytes decodes to nothing: geotiff would read its pixels as zeros, unsaid.
      if (s < blocks && sizes[s] === 0) {
        throw bad(`page ${pages.length} ${tiled ? 'tile' : 'strip'} ${s} has no bytes`);
      }
      if ((offsets[s] as number) + (sizes[s] as number) > length) {
        throw bad(`page ${pages.length} strip ${s} (${sizes[s]} bytes at ${offsets[s]}) runs past the end`);
      }
    }
    pages.push({ width, height });
    offset = big ? u64(end - 8) : view.getUint32(end - 4, le);
  }
  if (pages.length === 0) throw bad('no pages');
  return pages;
}

let decodersBounded: Promise<void> | undefined;

/** The bytes a strip or tile holds: width × height × bytes per pixel, from the decoder's parameters. */
function blockBytes(parameters: { tileWidth: number; tileHeight: number; bitsPerSample: unknown }) {
  const { tileWidth, tileHeight, bitsPerSample } = parameters;
  const bits =
    typeof bitsPerSample === 'number'
      ? bitsPerSample
      : Array.from(bitsPerSample as ArrayLike<number>).reduce((a, b) => a + b, 0);
  return {
    limit: tileWidth * tileHeight * Math.ceil(bits / 8),
    what: `${tileWidth} × ${tileHeight} pixels of ${bits} bits`,
  };
}

/** Adler-32 of `bytes` (zlib's checksum of the inflated data). */
function adler32(bytes: Uint8Array): number {
  let a = 1;
  let b = 0;
  for (let at = 0; at < bytes.length; ) {
    const end = Math.min(bytes.length, at + 5552);
    for (; at < end; at++) {
      a += bytes[at] as number;
      b += a;
    }
    a %= 65521;
    b %= 65521;
  }
  return (b * 65536 + a) >>> 0;
}

/**
 * Replaces geotiff's decoders where they trust the block:
 * - Deflate (8 and 32946) stops as soon as a strip or tile inflates past the bytes its header
 *   gives (width × height × bytes per pixel): a 1 MB file whose strip inflates to gigabytes is
 *   refused in milliseconds, not read into memory (the stream is fed in 16 KiB slices, so at most
 *   about 16 MiB come out past the bound); and the zlib stream's Adler-32 must match what came
 *   out (fflate does not check it), so a corrupt block is an error, not an image of other values.
 * - PackBits (32773) decodes into the block's bytes and stops past them (geotiff's grows a JS
 *   array without bound: a 10 MB strip would ask for 1.3 G elements).
 * - LZW (5) decodes into the block's bytes and stops past them (geotiff's grows a JS array: a
 *   1 MB strip of long codes could ask for gigabytes before its size was checked).
 */
function boundDecoders(geotiff: typeof import('geotiff')): Promise<void> {
  decodersBounded ??= bind(geotiff);
  return decodersBounded;
}

async function bind(geotiff: typeof import('geotiff')): Promise<void> {
  class BoundedDeflate extends geotiff.BaseDecoder {
    override decodeBlock(buffer: ArrayBufferLike): ArrayBufferLike {
      const { limit, what } = blockBytes(this.parameters);
      const chunks: Uint8Array[] = [];
      let total = 0;
      const stream = new Unzlib((chunk) => {
        total += chunk.length;
        if (total > limit) throw new Error(`a Deflate block inflates past the ${limit} bytes of its ${what}`);
        chunks.push(chunk);
      });
      const input = new Uint8Array(buffer);
      const slice = 16 * 1024;
      for (let at = 0; at < input.length; at += slice) {
        stream.push(input.subarray(at, Math.min(input.length, at + slice)), at + slice >= input.length);
      }
      if (input.length === 0) stream.push(input, true);
      const out = new Uint8Array(total);
      let at = 0;
      for (const c of chunks) {
        out.set(c, at);
        at += c.length;
      }
      const n = input.length;
      const stored =
        n < 4
          ? -1
          : ((input[n - 4] as number) * 2 ** 24 +
              ((input[n - 3] as number) << 16) +
              ((input[n - 2] as number) << 8) +
              (input[n - 1] as number)) >>>
            0;
      if (stored !== adler32(out))
        throw new Error('a Deflate block whose Adler-32 does not match its data (corrupt bytes)');
      return out.buffer;
    }
  }
  class BoundedPackBits extends geotiff.BaseDecoder {
    override decodeBlock(buffer: ArrayBufferLike): ArrayBufferLike {
      const { limit, what } = blockBytes(this.parameters);
      const input = new Uint8Array(buffer);
      const out = new Uint8Array(limit);
      let o = 0;
      const past = () => new Error(`a PackBits block decodes past the ${limit} bytes of its ${what}`);
      for (let i = 0; i < input.length; ) {
        const header = ((input[i++] as number) << 24) >> 24;
        if (header === -128) continue;
        if (header < 0) {
          if (i >= input.length) throw new Error('a PackBits block ends inside a run');
          const run = 1 - header;
          if (o + run > limit) throw past();
          out.fill(input[i++] as number, o, o + run);
          o += run;
        } else {
          const count = header + 1;
          if (i + count > input.length) throw new Error('a PackBits block ends inside a literal');
          if (o + count > limit) throw past();
          out.set(input.subarray(i, i + count), o);
          i += count;
          o += count;
        }
      }
      return out.buffer.slice(0, o);
    }
  }
  class BoundedLzw extends geotiff.BaseDecoder {
    override decodeBlock(buffer: ArrayBufferLike): ArrayBufferLike {
      const { limit, what } = blockBytes(this.parameters);
      return decodeLzw(new Uint8Array(buffer), limit, what).buffer;
    }
  }
  geotiff.addDecoder([8, 32946], async () => BoundedDeflate as unknown as typeof geotiff.BaseDecoder);
  geotiff.addDecoder(32773, async () => BoundedPackBits as unknown as typeof geotiff.BaseDecoder);
  geotiff.addDecoder(5, async () => BoundedLzw as unknown as typeof geotiff.BaseDecoder);
}

/** geotiff's sample formats: 1 unsigned, 2 signed, 3 float. */
function sampleType(format: number, bits: number): string | undefined {
  if ((format === 1 || format === 2) && (bits === 8 || bits === 16 || bits === 32)) {
    return `${format === 1 ? 'uint' : 'int'}${bits}`;
  }
  if (format === 3 && (bits === 32 || bits === 64)) return `float${bits}`;
  return undefined;
}

/**
 * Reads a multi-page TIFF (or BigTIFF) stack as a 3-D image of shape `[pages, height, width]`:
 * page index slowest, then row, then column. Pages must be single-channel 8/16/32-bit integer or
 * 32/64-bit float, all of one size and type (else a RangeError naming `path`). A corrupt file is a
 * {@link FileFormatError}. Decoding (uncompressed, LZW, Deflate, PackBits, ...) is geotiff's.
 *
 * @example
 * ```ts
 * const image = await readTiff('stack.tif', { voxelSize: 2e-6 });
 * image.shape; // [pages, height, width]
 * ```
 */
export async function readTiff(path: string, options: ReadTiffOptions): Promise<VoxelImage> {
  const file = readPath(path);
  const o = readOptions(options, 'options', ['voxelSize', ...classifierKeys]);
  const voxelSize = readVoxelSize(o.voxelSize, 'voxelSize');
  const classifier = readClassifier(o);
  const byValue = classifier.rule === 'pore-value' || classifier.rule === 'solid-value';
  const bytes = await readRegularFile(file);
  const pages = walkTiff(bytes, file);
  const first = pages[0] as Page;
  for (const [p, page] of pages.entries()) {
    if (page.width !== first.width || page.height !== first.height) {
      fail(
        'range',
        'path',
        `${file}: page ${p} is ${page.width} × ${page.height}, page 0 is ${first.width} × ${first.height}; all pages must share a size`,
      );
    }
  }
  const shape: Shape3 = [pages.length, first.height, first.width];
  if (!Number.isSafeInteger(shape[0] * shape[1] * shape[2])) fail('range', 'path', `${file} is too large`);
  const solid = allocateImage(shape, 'path');
  const whenNonzero = classifier.rule === 'zero' ? 0 : 1;
  const plane = first.width * first.height;
  let firstType: string | undefined;
  try {
    const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    // Loaded on first use: importing geotiff takes about 70 ms, paid by every program that
    // imports @peclet/io (flow and pnm do) whether it reads a TIFF or not.
    const geotiff = await import('geotiff');
    await boundDecoders(geotiff);
    const tiff = await geotiff.fromArrayBuffer(buffer);
    for (let p = 0; p < pages.length; p++) {
      const image = await tiff.getImage(p);
      const channels = image.getSamplesPerPixel();
      if (channels !== 1) fail('range', 'path', `${file} page ${p} has ${channels} samples per pixel; 1 is needed`);
      const type = sampleType(image.getSampleFormat(0), image.getBitsPerSample(0));
      if (type === undefined) {
        fail(
          'range',
          'path',
          `${file} page ${p} has ${image.getBitsPerSample(0)}-bit samples of format ${image.getSampleFormat(0)}; supported: 8/16/32-bit integers, 32/64-bit floats`,
        );
      }
      firstType ??= type;
      if (type !== firstType) fail('range', 'path', `${file} page ${p} holds ${type}, page 0 ${firstType}`);
      const raster = (await image.readRasters({ samples: [0], interleave: true })) as unknown as ArrayLike<number>;
      if (raster.length !== plane)
        throw new FileFormatError(file, `page ${p} decoded to ${raster.length} values, not ${plane}`);
      const base = p * plane;
      if (byValue) for (let i = 0; i < plane; i++) solid[base + i] = classify(classifier, raster[i] as number);
      else for (let i = 0; i < plane; i++) solid[base + i] = raster[i] !== 0 ? whenNonzero : 1 - whenNonzero;
    }
  } catch (error) {
    if (error instanceof FileFormatError || (error instanceof Error && 'argument' in error)) throw error;
    // geotiff's buffers for the pages: their allocation failing is memory, not a corrupt file.
    if (error instanceof RangeError && /allocation failed/i.test(error.message)) {
      outOfMemory('path', `decoding ${file}: ${error.message}`);
    }
    throw new FileFormatError(file, `corrupt TIFF: ${(error as Error)?.message ?? String(error)}`, { cause: error });
  }
  return { solid, shape, voxelSize, convention: describeConvention(classifier, false) };
}

const LZW_CLEAR = 256;
const LZW_END = 257;

/**
 * TIFF's LZW (MSB-first codes of 9 to 12 bits, the width growing one code early, as libtiff and
 * geotiff read it) into at most `limit` bytes: a block that decodes past them is an error as soon
 * as it does. A stream that ends without its end code ends there, as geotiff reads it.
 * @internal
 */
export function decodeLzw(input: Uint8Array, limit: number, what: string): Uint8Array {
  const prefix = new Uint16Array(4096);
  const suffix = new Uint8Array(4096);
  const length = new Uint16Array(4096);
  for (let c = 0; c < 256; c++) {
    suffix[c] = c;
    length[c] = 1;
  }
  const out = new Uint8Array(limit);
  const bits = input.length * 8;
  let o = 0;
  let position = 0;
  let width = 9;
  let size = 258;
  let previous = -1;
  const read = (): number => {
    if (position >= bits) return LZW_END;
    let code = 0;
    for (let b = 0; b < width; b++, position++) {
      const bit = position < bits ? ((input[position >> 3] as number) >> (7 - (position & 7))) & 1 : 0;
      code = (code << 1) | bit;
    }
    return code;
  };
  // Writes the string of `code` at o (walking its prefixes backwards); returns its first byte.
  const emit = (code: number): number => {
    const n = length[code] as number;
    if (o + n > limit) throw new Error(`an LZW block decodes past the ${limit} bytes of its ${what}`);
    let c = code;
    for (let i = o + n - 1; i >= o; i--) {
      out[i] = suffix[c] as number;
      c = prefix[c] as number;
    }
    o += n;
    return out[o - n] as number;
  };
  const add = (first: number) => {
    if (previous < 0 || size >= 4096) return;
    prefix[size] = previous;
    suffix[size] = first;
    length[size] = (length[previous] as number) + 1;
    size++;
  };
  for (let code = read(); code !== LZW_END; code = read()) {
    if (code === LZW_CLEAR) {
      size = 258;
      width = 9;
      previous = -1;
      continue;
    }
    if (code < size && (code < 256 || code > LZW_END)) {
      const first = emit(code);
      add(first);
    } else if (code === size && previous >= 0) {
      // The code being defined: the previous string and its own first byte.
      const start = o;
      const first = emit(previous);
      if (o + 1 > limit) throw new Error(`an LZW block decodes past the ${limit} bytes of its ${what}`);
      out[o++] = first;
      add(out[start] as number);
    } else {
      throw new Error(`a corrupt LZW block: code ${code} where at most ${size} is defined`);
    }
    previous = code;
    if (size + 1 >= 1 << width) {
      // At 12 bits the table is full: no code is added until the next clear code.
      if (width === 12) previous = -1;
      else width++;
    }
  }
  return out.slice(0, o);
}
