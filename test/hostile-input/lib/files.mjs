// Hostile files and environments: valid files of every format io reads (raw, .npy, .npz stored
// and deflated, TIFF and BigTIFF uncompressed, LZW, Deflate, Adobe Deflate and PackBits), each
// built with its layout (every header field, offset, count and compressed payload, and every
// structure boundary), then mutated through that layout: a field set to 0, −1, a huge value or
// one more than it was; the file cut at a boundary; a payload replaced, shortened or inflated; an
// offset pointed out of the file or back into a loop; a data byte flipped. Special files (FIFO,
// devices, directories, symlink loops, unreadable files, names at the file system's limits), the
// CLI run on all of them, readers and solvers under an address-space cap, and damaged addon
// binaries. The verdict: the valid file's result, or the documented error; a result from corrupt
// bytes where the file says what its bytes must be (a zip CRC-32, a zlib Adler-32) fails.

import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  copyFileSync,
  existsSync,
  ftruncateSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync, zipSync, zlibSync } from 'fflate';
import { hashArray } from './check.mjs';
import { random } from './random.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repository = join(here, '..', '..', '..');
const cliPath = join(repository, 'packages', 'cli', 'dist', 'cli.js');

const badFile = (e) => e instanceof Error && e.code === 'PECLET_BAD_FILE' && /\S/.test(e.message);
const fsError = (e) => e instanceof Error && /^E[A-Z]+$/.test(String(e.code)) && typeof e.syscall === 'string';

function withTempDir(fn) {
  const dir = mkdtempSync(join(tmpdir(), 'peclet-hostile-files-'));
  return Promise.resolve()
    .then(() => fn(dir))
    .finally(() => {
      try {
        chmodSync(dir, 0o700);
      } catch {}
      rmSync(dir, { recursive: true, force: true });
    });
}

// ---- the valid image ---------------------------------------------------------------------------

/** 3 pages × 4 rows × 5 columns, values 0, 1, 2 (0 is pore). */
const SHAPE = [3, 4, 5];
const VOXELS = 60;
const valueAt = (i) => (i * 7 + (i >> 2)) % 3;
const values = Array.from({ length: VOXELS }, (_, i) => valueAt(i));

// ---- encoders ----------------------------------------------------------------------------------

/** PackBits: runs of repeats where they are, literals elsewhere. */
function packBits(data) {
  const out = [];
  let i = 0;
  while (i < data.length) {
    let run = 1;
    while (i + run < data.length && run < 128 && data[i + run] === data[i]) run++;
    if (run >= 2) {
      out.push(257 - run, data[i]);
      i += run;
    } else {
      let n = 1;
      while (i + n < data.length && n < 128 && !(data[i + n] === data[i + n + 1])) n++;
      out.push(n - 1, ...data.subarray(i, i + n));
      i += n;
    }
  }
  return Uint8Array.from(out);
}

/** TIFF LZW (MSB first): a clear code, every byte as its own code, the end code. Short strips only. */
function lzw(data) {
  const out = [];
  let buffer = 0;
  let bits = 0;
  const emit = (code) => {
    buffer = (buffer << 9) | code;
    bits += 9;
    while (bits >= 8) {
      out.push((buffer >>> (bits - 8)) & 255);
      bits -= 8;
    }
    buffer &= (1 << bits) - 1;
  };
  emit(256);
  for (const b of data) emit(b);
  emit(257);
  if (bits > 0) out.push((buffer << (8 - bits)) & 255);
  return Uint8Array.from(out);
}

// ---- formats, each with its layout -------------------------------------------------------------

/**
 * A built file: `bytes`; `fields` [{ name, at, size, le, kind: 'field' | 'offset' | 'count' |
 * 'text', expect }] where `expect` says what a mutation of it may give: 'error', 'same' (the
 * valid result), 'sameOrError' (the valid result or an error: anything else is a result from
 * corrupt bytes) or 'unsure'; `boundaries` where one structure ends and the next begins;
 * `payloads` [{ at, size, countField, offsetField }] the strips or the zip entry's data;
 * `checked`: the format carries a checksum of its data (a changed payload must be an error or
 * decode to the valid data).
 */
// 'deflate stored': Deflate's stored blocks, whose bytes are the pixels: only the Adler-32 tells a changed one.
const tiffCompressions = { none: 1, lzw: 5, deflate: 8, 'deflate stored': 8, 'adobe deflate': 32946, packbits: 32773 };

function tiffFile({ compression = 'none', big = false, bigEndian = false }) {
  const code = tiffCompressions[compression];
  const le = !bigEndian;
  const rowsPerStrip = 2;
  const strips = SHAPE[1] / rowsPerStrip;
  const entrySize = big ? 20 : 12;
  const countSize = big ? 8 : 2;
  const inline = big ? 8 : 4;
  const offsetSize = big ? 8 : 4;
  const headerSize = big ? 16 : 8;
  // The strips, encoded.
  const payloads = [];
  for (let p = 0; p < SHAPE[0]; p++)
    for (let s = 0; s < strips; s++) {
      const start = p * 20 + s * rowsPerStrip * SHAPE[2];
      const raw = Uint8Array.from(values.slice(start, start + rowsPerStrip * SHAPE[2]));
      payloads.push(encodeStrip(compression, raw));
    }
  const tags = [
    [256, 'ImageWidth', SHAPE[2]],
    [257, 'ImageLength', SHAPE[1]],
    [258, 'BitsPerSample', 8],
    [259, 'Compression', code],
    [262, 'PhotometricInterpretation', 1],
    [273, 'StripOffsets', null],
    [277, 'SamplesPerPixel', 1],
    [278, 'RowsPerStrip', rowsPerStrip],
    [279, 'StripByteCounts', null],
  ];
  const ifdSize = countSize + tags.length * entrySize + inline;
  const arraySize = strips * offsetSize; // out of line: more than fits inline
  const pageSize = ifdSize + 2 * arraySize;
  let dataAt = headerSize + SHAPE[0] * pageSize;
  const total = dataAt + payloads.reduce((a, b) => a + b.length, 0);
  const b = Buffer.alloc(total);
  const fields = [];
  const boundaries = [headerSize];
  const field = (name, at, size, kind, expect) => fields.push({ name, at, size, le, kind, expect });
  const put = (at, size, v) => {
    if (size === 2) le ? b.writeUInt16LE(v, at) : b.writeUInt16BE(v, at);
    else if (size === 4) le ? b.writeUInt32LE(v, at) : b.writeUInt32BE(v, at);
    else le ? b.writeBigUInt64LE(BigInt(v), at) : b.writeBigUInt64BE(BigInt(v), at);
  };
  b.write(le ? 'II' : 'MM', 0, 'latin1');
  put(2, 2, big ? 43 : 42);
  field('byte order', 0, 2, 'field', 'error');
  field('version', 2, 2, 'field', 'error');
  if (big) {
    put(4, 2, 8);
    put(6, 2, 0);
    field('offset size', 4, 2, 'field', 'error');
  }
  put(big ? 8 : 4, offsetSize, headerSize);
  field('first directory', big ? 8 : 4, offsetSize, 'offset', 'error');
  const strip = payloads.map(() => ({}));
  for (let p = 0; p < SHAPE[0]; p++) {
    const ifd = headerSize + p * pageSize;
    const offsetsAt = ifd + ifdSize;
    const countsAt = offsetsAt + arraySize;
    put(ifd, countSize, tags.length);
    field(`page ${p} entry count`, ifd, countSize, 'count', 'error');
    tags.forEach(([tag, name, value], e) => {
      const at = ifd + countSize + e * entrySize;
      put(at, 2, tag);
      const array = value === null;
      put(at + 2, 2, array ? (big ? 16 : 4) : 3);
      put(at + 4, big ? 8 : 4, array ? strips : 1);
      const valueAt = at + (big ? 12 : 8);
      if (array) put(valueAt, offsetSize, tag === 273 ? offsetsAt : countsAt);
      else put(valueAt, 2, value);
      field(`page ${p} ${name} tag`, at, 2, 'field', tagExpect(tag));
      if (array) field(`page ${p} ${name} array offset`, valueAt, offsetSize, 'offset', 'error');
      else field(`page ${p} ${name}`, valueAt, 2, 'field', valueExpect(tag, compression));
    });
    const next = ifd + countSize + tags.length * entrySize;
    put(next, offsetSize, p + 1 < SHAPE[0] ? ifd + pageSize : 0);
    // A chain cut short reads fewer pages: a smaller image, not one the file's bytes contradict.
    field(`page ${p} next directory`, next, offsetSize, 'offset', 'unsure');
    boundaries.push(ifd + 2, next, offsetsAt, countsAt, countsAt + arraySize);
    for (let s = 0; s < strips; s++) {
      const k = p * strips + s;
      put(offsetsAt + s * offsetSize, offsetSize, dataAt);
      put(countsAt + s * offsetSize, offsetSize, payloads[k].length);
      b.set(payloads[k], dataAt);
      const offsetField = { name: `strip ${k} offset`, at: offsetsAt + s * offsetSize, size: offsetSize, le };
      const countField = { name: `strip ${k} byte count`, at: countsAt + s * offsetSize, size: offsetSize, le };
      // Moved or resized, a strip reads other bytes: only zlib's Adler-32 can tell they are wrong.
      const moved = compression.includes('deflate') ? 'sameOrError' : 'unsure';
      fields.push({ ...offsetField, kind: 'offset', expect: moved });
      fields.push({ ...countField, kind: 'count', expect: moved });
      strip[k] = { at: dataAt, size: payloads[k].length, offsetField, countField };
      boundaries.push(dataAt);
      dataAt += payloads[k].length;
    }
  }
  boundaries.push(total);
  return {
    bytes: b,
    fields,
    boundaries: [...new Set(boundaries)].filter((x) => x > 0 && x < total),
    payloads: strip,
    compression,
    // zlib's Adler-32 guards a Deflate strip; LZW, PackBits and plain strips carry no checksum.
    checked: compression.includes('deflate'),
    directories: Array.from({ length: SHAPE[0] }, (_, p) => headerSize + p * pageSize),
    nextFields: fields.filter((f) => f.name.endsWith('next directory')),
  };
}

/** What a changed tag number may give: a missing width or height is an error, others a different reading. */
function tagExpect(tag) {
  return tag === 256 || tag === 257 || tag === 273 || tag === 279 ? 'error' : 'unsure';
}

/** What a changed value may give. */
function valueExpect(tag, compression) {
  if (tag === 278) return 'rowsPerStrip'; // 0 is an error; more rows than the page: one strip, the same image
  if (tag === 262) return 'unsure'; // photometric: io reads values, not colours
  if (tag === 259) return 'error'; // another or an unknown compression over these strips
  return compression === 'none' && (tag === 256 || tag === 257) ? 'unsure' : 'sameOrError';
}

function encodeStrip(compression, raw) {
  switch (compression) {
    case 'none':
      return raw;
    case 'lzw':
      return lzw(raw);
    case 'deflate stored':
      return zlibSync(raw, { level: 0 });
    case 'packbits':
      return packBits(raw);
    default:
      return zlibSync(raw);
  }
}

/** .npy files: |u1 C order (v1), <u2 Fortran order (v2), >f4 C order (v1), or points <f8 (8, 3). */
function npyFile({ descr = '|u1', version = 1, fortran = false, points = false, shapeText }) {
  const shape = points ? [8, 3] : SHAPE;
  const itemSize = Number(descr.slice(2));
  const count = shape.reduce((a, b) => a * b, 1);
  const data = Buffer.alloc(count * itemSize);
  for (let i = 0; i < count; i++) {
    // Element i in file order: in Fortran order the first index runs fastest.
    let c = i;
    if (fortran) {
      const [a, b2, c2] = shape;
      const x = i % a;
      const y = Math.floor(i / a) % b2;
      const z = Math.floor(i / (a * b2));
      c = (x * b2 + y) * c2 + z;
    }
    const v = points ? c * 0.125 : valueAt(c);
    if (descr === '|u1') data[i] = v;
    else if (descr === '<u2') data.writeUInt16LE(v, i * 2);
    else if (descr === '>f4') data.writeFloatBE(v, i * 4);
    else data.writeDoubleLE(v, i * 8);
  }
  const shapeStr = shapeText ?? `(${shape.join(', ')})`;
  const dict = `{'descr': '${descr}', 'fortran_order': ${fortran ? 'True' : 'False'}, 'shape': ${shapeStr}, }`;
  const pre = version === 1 ? 10 : 12;
  const padded = `${dict}${' '.repeat(Math.max(0, 63 - ((pre + dict.length) % 64)))}\n`;
  const head = Buffer.alloc(pre);
  Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, version, 0]).copy(head);
  if (version === 1) head.writeUInt16LE(padded.length, 8);
  else head.writeUInt32LE(padded.length, 8);
  const bytes = Buffer.concat([head, Buffer.from(padded, 'latin1'), data]);
  const dataOffset = pre + padded.length;
  const fields = [
    { name: 'magic', at: 0, size: 4, le: false, kind: 'field', expect: 'error' },
    { name: 'major version', at: 6, size: 1, le: true, kind: 'field', expect: 'error' },
    { name: 'header length', at: 8, size: version === 1 ? 2 : 4, le: true, kind: 'count', expect: 'error' },
  ];
  // The shape's numbers, as text: set through a rebuilt header (`text`), so the header stays padded.
  shape.forEach((_, d) => {
    fields.push({ name: `shape[${d}]`, kind: 'text', dimension: d, expect: 'error' });
  });
  const boundaries = [6, 8, pre, dataOffset];
  const plane = (count / shape[0]) * itemSize;
  for (let p = 1; p < shape[0]; p++) boundaries.push(dataOffset + p * plane);
  return {
    bytes,
    fields,
    boundaries,
    payloads: [],
    dataOffset,
    shape,
    rebuild: (dims) => npyFile({ descr, version, fortran, points, shapeText: `(${dims.join(', ')})` }).bytes,
    checked: false,
  };
}

/** A zip field `name` of `size` bytes at `at` (little-endian). */
const zipField = (name, at, size, kind = 'field') => ({ name, at, size, le: true, kind, expect: 'sameOrError' });

async function npzFile({ level }) {
  const npy = npyFile({});
  const bytes = Buffer.from(zipSync({ 'im.npy': new Uint8Array(npy.bytes) }, { level }));
  const local = 0;
  const nameLength = bytes.readUInt16LE(local + 26);
  const extraLength = bytes.readUInt16LE(local + 28);
  const dataAt = local + 30 + nameLength + extraLength;
  const compressed = bytes.readUInt32LE(local + 18);
  const eocd = bytes.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const central = bytes.readUInt32LE(eocd + 16);
  const fields = [
    zipField('local signature', local, 4),
    zipField('local method', local + 8, 2),
    zipField('local CRC-32', local + 14, 4),
    zipField('local compressed size', local + 18, 4, 'count'),
    zipField('local original size', local + 22, 4, 'count'),
    zipField('local name length', local + 26, 2, 'count'),
    zipField('local extra length', local + 28, 2, 'count'),
    zipField('central signature', central, 4),
    zipField('central method', central + 10, 2),
    zipField('central CRC-32', central + 16, 4),
    zipField('central compressed size', central + 20, 4, 'count'),
    zipField('central original size', central + 24, 4, 'count'),
    zipField('central name length', central + 28, 2, 'count'),
    zipField('central local header offset', central + 42, 4, 'offset'),
    zipField('end entries', eocd + 10, 2, 'count'),
    zipField('end directory size', eocd + 12, 4, 'count'),
    zipField('end directory offset', eocd + 16, 4, 'offset'),
    zipField('end comment length', eocd + 20, 2, 'count'),
  ];
  const compressedField = fields[3];
  const centralCompressed = fields[10];
  const offsetField = fields[13];
  return {
    bytes,
    fields,
    boundaries: [30, 30 + nameLength, dataAt, dataAt + compressed, central, central + 46, eocd, eocd + 22].filter(
      (x) => x < bytes.length,
    ),
    payloads: [{ at: dataAt, size: compressed, countField: compressedField, centralCompressed, offsetField }],
    checked: true, // the zip's CRC-32 of the entry
    level,
    npy,
  };
}

function rawFile({ dtype }) {
  const size = dtype === 'uint16' ? 2 : 1;
  const bytes = Buffer.alloc(VOXELS * size);
  for (let i = 0; i < VOXELS; i++) {
    if (size === 1) bytes[i] = values[i];
    else bytes.writeUInt16BE(values[i], 2 * i);
  }
  return {
    bytes,
    fields: [],
    boundaries: [20 * size, 40 * size, 1],
    payloads: [],
    dtype,
    checked: false,
  };
}

/** Every format io reads, with its reader. */
export const formats = {
  'raw uint8': { ext: 'raw', make: () => rawFile({ dtype: 'uint8' }) },
  'raw uint16 big-endian': { ext: 'raw', make: () => rawFile({ dtype: 'uint16' }) },
  'npy |u1 v1': { ext: 'npy', make: () => npyFile({}) },
  'npy <u2 Fortran v2': { ext: 'npy', make: () => npyFile({ descr: '<u2', version: 2, fortran: true }) },
  'npy >f4': { ext: 'npy', make: () => npyFile({ descr: '>f4' }) },
  'npy points <f8': { ext: 'npy', points: true, make: () => npyFile({ descr: '<f8', points: true }) },
  'npz stored': { ext: 'npz', make: () => npzFile({ level: 0 }) },
  'npz deflated': { ext: 'npz', make: () => npzFile({ level: 6 }) },
  tiff: { ext: 'tif', make: () => tiffFile({}) },
  'tiff big-endian': { ext: 'tif', make: () => tiffFile({ bigEndian: true }) },
  'tiff lzw': { ext: 'tif', make: () => tiffFile({ compression: 'lzw' }) },
  'tiff deflate': { ext: 'tif', make: () => tiffFile({ compression: 'deflate' }) },
  'tiff adobe deflate': { ext: 'tif', make: () => tiffFile({ compression: 'adobe deflate' }) },
  'tiff deflate stored': { ext: 'tif', make: () => tiffFile({ compression: 'deflate stored' }) },
  'tiff packbits': { ext: 'tif', make: () => tiffFile({ compression: 'packbits' }) },
  bigtiff: { ext: 'tif', make: () => tiffFile({ big: true }) },
  'bigtiff deflate': { ext: 'tif', make: () => tiffFile({ big: true, compression: 'deflate' }) },
  'bigtiff big-endian packbits': {
    ext: 'tif',
    make: () => tiffFile({ big: true, bigEndian: true, compression: 'packbits' }),
  },
};
const formatNames = Object.keys(formats);

/** Builds the format's valid file with its layout. */
async function build(format) {
  return formats[format].make();
}

export const mutations = [
  'field 0',
  'field -1',
  'field huge',
  'field +1',
  'truncated at a boundary',
  'payload replaced',
  'payload shortened',
  'payload inflated',
  'offset out of the file',
  'offset into a loop',
  'data byte flipped',
  'bytes appended',
];

function readField(b, f) {
  if (f.size === 1) return b[f.at];
  if (f.size === 2) return f.le ? b.readUInt16LE(f.at) : b.readUInt16BE(f.at);
  if (f.size === 4) return f.le ? b.readUInt32LE(f.at) : b.readUInt32BE(f.at);
  return Number(f.le ? b.readBigUInt64LE(f.at) : b.readBigUInt64BE(f.at));
}
function writeField(b, f, v) {
  const max = 2 ** (8 * f.size) - 1;
  const x = v < 0 ? max : Math.min(v, max);
  if (f.size === 1) b[f.at] = x;
  else if (f.size === 2) f.le ? b.writeUInt16LE(x, f.at) : b.writeUInt16BE(x, f.at);
  else if (f.size === 4) f.le ? b.writeUInt32LE(x, f.at) : b.writeUInt32BE(x, f.at);
  else {
    const big = x >= 2 ** 64 - 1 ? 2n ** 64n - 1n : BigInt(x);
    f.le ? b.writeBigUInt64LE(big, f.at) : b.writeBigUInt64BE(big, f.at);
  }
}

/**
 * Applies `mutation` to the built file `built`, choosing with `pick` (a number in [0, 1)) and
 * `rng` (random bytes): `{ bytes, what, expect }`.
 */
async function mutate(built, mutation, pick, rng) {
  const b = Buffer.from(built.bytes);
  const choose = (list) => list[Math.floor(pick * list.length)];
  const fieldMutation = mutation.startsWith('field');
  if (fieldMutation && built.fields.length === 0) mutation = 'truncated at a boundary';
  const payloadMutation = mutation.startsWith('payload');
  if (payloadMutation && built.payloads.length === 0) mutation = 'data byte flipped';
  if (mutation.startsWith('offset') && !built.fields.some((f) => f.kind === 'offset')) mutation = 'bytes appended';
  switch (mutation) {
    case 'field 0':
    case 'field -1':
    case 'field huge':
    case 'field +1': {
      const f = choose(built.fields);
      if (f.kind === 'text') {
        const dims = [...built.shape];
        const old = dims[f.dimension];
        dims[f.dimension] = { 'field 0': 0, 'field -1': -1, 'field huge': '99999999999999999999', 'field +1': old + 1 }[
          mutation
        ];
        return { bytes: built.rebuild(dims), what: `${f.name} = ${dims[f.dimension]}`, expect: 'error' };
      }
      const old = readField(b, f);
      const v = { 'field 0': 0, 'field -1': -1, 'field huge': 2 ** (8 * f.size) - 2, 'field +1': old + 1 }[mutation];
      writeField(b, f, v);
      const now = readField(b, f);
      let expect = f.expect;
      if (expect === 'rowsPerStrip') expect = now === 0 ? 'error' : now >= SHAPE[1] ? 'same' : 'unsure';
      if (now === old) expect = 'same';
      return { bytes: b, what: `${f.name} ${old} → ${now}`, expect };
    }
    case 'truncated at a boundary': {
      const at = choose(built.boundaries);
      const shift = Math.floor(rng() * 3) - 1;
      const cut = Math.max(0, Math.min(b.length - 1, at + shift));
      return { bytes: b.subarray(0, cut), what: `cut at byte ${cut} of ${b.length}`, expect: 'error' };
    }
    case 'payload replaced': {
      const p = choose(built.payloads);
      for (let i = 0; i < p.size; i++) b[p.at + i] = Math.floor(rng() * 256);
      return { bytes: b, what: `payload at ${p.at} (${p.size} bytes) replaced`, expect: corruptExpect(built) };
    }
    case 'payload shortened': {
      // Fewer bytes: the count says so (the data after the payload stays where it was).
      const p = choose(built.payloads);
      const shorter = Math.floor(rng() * p.size);
      writeField(b, p.countField, shorter);
      if (p.centralCompressed) writeField(b, p.centralCompressed, shorter);
      return { bytes: b, what: `payload at ${p.at} shortened to ${shorter} of ${p.size} bytes`, expect: 'sameOrError' };
    }
    case 'payload inflated': {
      // A payload appended at the end that decodes to far more than its strip or entry holds.
      const p = choose(built.payloads);
      const huge = new Uint8Array(16 * 2 ** 20);
      const isZip = p.centralCompressed !== undefined;
      let bomb;
      if (isZip) bomb = built.level === 0 ? huge.subarray(0, 2 ** 20) : deflateSync(huge);
      else if (built.compression === 'packbits')
        bomb = Uint8Array.from({ length: 2 ** 16 }, (_, i) => (i % 2 ? 7 : 0x81));
      else if (built.compression === 'lzw') bomb = lzw(new Uint8Array(4096).fill(1));
      else if (built.compression === 'none') bomb = new Uint8Array(4096).fill(1);
      else bomb = zlibSync(huge);
      const at = b.length;
      const out = Buffer.concat([b, Buffer.from(bomb)]);
      if (isZip) {
        // The entry's data grows in place: the local header's sizes and the central directory's.
        const grown = Buffer.concat([b.subarray(0, p.at), Buffer.from(bomb), b.subarray(p.at + p.size)]);
        const delta = bomb.length - p.size;
        writeField(grown, p.countField, bomb.length);
        const moved = (f) => ({ ...f, at: f.at + delta });
        writeField(grown, moved(p.centralCompressed), bomb.length);
        const eocdOffset = built.fields.find((f) => f.name === 'end directory offset');
        writeField(grown, moved(eocdOffset), readField(b, eocdOffset) + delta);
        return {
          bytes: grown,
          what: `entry data replaced by ${bomb.length} bytes that inflate to ${huge.length}`,
          expect: 'error',
        };
      }
      writeField(out, p.offsetField, at);
      writeField(out, p.countField, bomb.length);
      return {
        bytes: out,
        what: `strip pointed at ${bomb.length} bytes that decode to far more than its pixels`,
        // A plain strip longer than its pixels: the pixels are its first bytes, ones here.
        expect: built.compression === 'none' ? 'unsure' : 'error',
      };
    }
    case 'offset out of the file': {
      const f = choose(built.fields.filter((x) => x.kind === 'offset'));
      const v = choose([b.length, b.length + 1, 2 ** (8 * f.size) - 1, 2 ** 31]);
      writeField(b, f, v);
      return { bytes: b, what: `${f.name} → ${readField(b, f)} (file of ${b.length} bytes)`, expect: 'error' };
    }
    case 'offset into a loop': {
      if (built.nextFields) {
        // The last directory's next pointer back to an earlier one (or itself).
        const last = built.nextFields[built.nextFields.length - 1];
        const target = choose(built.directories);
        writeField(b, last, target);
        return { bytes: b, what: `last directory's next → ${target}`, expect: 'error' };
      }
      // zip: the local header offset or the central directory offset pointed at the end record or itself.
      const f = choose(built.fields.filter((x) => x.kind === 'offset'));
      writeField(b, f, f.at - Math.floor(rng() * 8));
      return { bytes: b, what: `${f.name} → ${readField(b, f)} (into itself)`, expect: 'sameOrError' };
    }
    case 'data byte flipped': {
      const region = built.payloads.length > 0 ? choose(built.payloads) : dataRegion(built);
      const i = region.at + Math.floor(rng() * region.size);
      const old = b[i];
      // Zero to non-zero and back: a voxel of uint8 data changes phase, so a reading that took it differs.
      b[i] = old === 0 ? 1 + Math.floor(rng() * 255) : 0;
      return {
        bytes: b,
        what: `byte ${i} ${old} → ${b[i]} (data)`,
        // A checksum says the bytes are wrong; without one, other data is still data.
        expect: built.checked ? 'sameOrError' : 'unsure',
      };
    }
    case 'bytes appended': {
      const extra = 1 + Math.floor(rng() * 64);
      const out = Buffer.concat([b, Buffer.alloc(extra, 0x55)]);
      // raw and .npy: the size is the data's; a zip ends with its directory; TIFF ignores what it does not point at.
      const expect =
        built.payloads.length > 0 && built.nextFields ? 'same' : built.level !== undefined ? 'sameOrError' : 'error';
      return { bytes: out, what: `${extra} bytes appended`, expect };
    }
    default:
      throw new Error(`no mutation ${mutation}`);
  }
}

function corruptExpect(built) {
  return built.checked ? 'sameOrError' : 'unsure';
}

function dataRegion(built) {
  if (built.dataOffset !== undefined) return { at: built.dataOffset, size: built.bytes.length - built.dataOffset };
  return { at: 0, size: built.bytes.length };
}

// ---- reading a file, as each format's reader does ----------------------------------------------

/** The call that reads `file` of `format` with `reader` ('reader' or 'readImage'). */
function readCall(io, format, file, via) {
  const spec = formats[format];
  if (spec.points) return { label: 'readNpyArray', call: () => io.readNpyArray(file) };
  const options = { voxelSize: 1e-6 };
  if (spec.ext === 'raw') {
    Object.assign(options, { shape: [...SHAPE], dtype: format.includes('16') ? 'uint16' : 'uint8' });
    if (format.includes('big-endian')) options.littleEndian = false;
  }
  if (via === 'readImage') return { label: 'readImage', call: () => io.readImage(file, options) };
  const reader = { raw: 'readRaw', npy: 'readNpy', npz: 'readNpy', tif: 'readTiff' }[spec.ext];
  return { label: reader, call: () => io[reader](file, options) };
}

/** A digest of a result that two equal readings share. */
function digest(value) {
  if (value?.data) return `${value.shape}:${hashArray(value.data)}`;
  return `${value?.shape}:${hashArray(value?.solid)}`;
}

/** Writes the format's valid file and returns its reading (checked against the values it holds). */
async function validReading(h, io, format, dir) {
  const built = await build(format);
  const file = join(dir, `valid.${formats[format].ext}`);
  writeFileSync(file, built.bytes);
  const { call } = readCall(io, format, file, 'reader');
  let value;
  try {
    value = await call();
  } catch (error) {
    h.problem(`the valid ${format} file is refused: ${error?.message}`);
    return { built };
  }
  if (formats[format].points) {
    if (value.data.some((x, i) => x !== i * 0.125)) h.problem(`the valid ${format} file reads other values`);
  } else if (value.solid.some((x, i) => x !== (values[i] !== 0 ? 1 : 0)))
    h.problem(`the valid ${format} file reads other voxels`);
  return { built, valid: digest(value) };
}

/** Judges one reading of a mutated file against the valid reading. */
async function judgeReading(h, label, call, expect, valid) {
  const result = await h.call(label, call, { bad: expect === 'error', allow: badFile });
  if (result.ok) {
    const value = result.value;
    const got = digest(value);
    const shape = value.shape ?? [];
    const length = value.solid?.length ?? value.data?.length;
    if (shape.reduce((a, b) => a * b, 1) !== length) h.problem(`${label}: shape [${shape}] for ${length} values`);
    if ((expect === 'same' || expect === 'sameOrError') && valid !== undefined && got !== valid)
      h.problem(`${label}: a result from corrupt bytes (${got}, the valid file gives ${valid})`);
  } else if (expect === 'same') {
    h.problem(`${label}: refused a file whose data the mutation left intact (${result.error?.message})`);
  }
  return result;
}

function mutationPlan(r) {
  const format = r.member(formatNames);
  return {
    format,
    mutation: r.pick(mutations),
    pick: r.next(),
    seed: Math.floor(r.next() * 2 ** 31),
    via: r.pick(['reader', 'reader', 'readImage']),
  };
}

async function mutatedFile(plan, dir) {
  const built = await build(plan.format);
  const rng = random(plan.seed);
  const m = await mutate(built, plan.mutation, plan.pick, () => rng.next());
  const file = join(dir, `mutated.${formats[plan.format].ext}`);
  writeFileSync(file, m.bytes);
  return { file, ...m };
}

// ---- special files and names at the limits -----------------------------------------------------

/**
 * Files that are not what a reader expects. `expect`: 'error' (a TypeError or RangeError naming
 * path, a file-system error or a FileFormatError), 'same' (the valid file's reading), 'sameOrFs'
 * (the valid reading, or the file system's refusal: root reads a file of mode 000).
 */
const specialFiles = {
  'a FIFO': { make: (p) => execFileSync('mkfifo', [p]), expect: 'error' },
  'a link to /dev/null': { make: (p) => symlinkSync('/dev/null', p), expect: 'error' },
  'a link to /dev/zero': { make: (p) => symlinkSync('/dev/zero', p), expect: 'error' },
  'a link to /dev/urandom': { make: (p) => symlinkSync('/dev/urandom', p), expect: 'error' },
  'a directory': { make: (p) => mkdirSync(p), expect: 'error' },
  'a symlink loop': {
    make: (p) => {
      symlinkSync(`${p}.b`, p);
      symlinkSync(p, `${p}.b`);
    },
    expect: 'error',
  },
  'a dangling symlink': { make: (p) => symlinkSync(`${p}.missing`, p), expect: 'error' },
  'a missing file': { make: () => {}, expect: 'error' },
  'an empty file': { make: (p) => writeFileSync(p, ''), expect: 'error' },
  'an unreadable file': {
    make: (p, bytes) => {
      writeFileSync(p, bytes);
      chmodSync(p, 0);
    },
    expect: 'sameOrFs',
  },
  'in an unsearchable directory': {
    make: (p, bytes, dir) => {
      writeFileSync(p, bytes);
      chmodSync(dir, 0o200);
    },
    expect: 'sameOrFs',
  },
  'a link to a file in /proc (size 0, content not)': {
    make: (p) => symlinkSync('/proc/self/status', p),
    expect: 'error',
  },
  'a name of 255 bytes': { name: (ext) => `${'n'.repeat(255 - ext.length - 1)}.${ext}`, expect: 'same' },
  'a name of 255 bytes in UTF-8': {
    name: (ext) => `${'é'.repeat(Math.floor((255 - ext.length - 2) / 2))}${ext.length % 2 ? '' : 'n'}.${ext}`,
    expect: 'same',
  },
  'a name of 256 bytes': { name: (ext) => `${'n'.repeat(256 - ext.length - 1)}.${ext}`, expect: 'error' },
  'a path of 4096 bytes': {
    path: (dir, ext) => `${dir}/${'d/..'.repeat(1100)}/x.${ext}`.slice(-4100),
    expect: 'error',
  },
  'a path through a file': { path: (dir, ext) => `${dir}/valid.${ext}/x.${ext}`, expect: 'error' },
  'a link to the valid file': {
    make: (p, _bytes, dir, ext) => symlinkSync(join(dir, `valid.${ext}`), p),
    expect: 'same',
  },
};
const specialNames = Object.keys(specialFiles);

/** Makes the special file; returns its path. The valid file is `valid.<ext>` beside it. */
function specialFile(kind, dir, format, bytes) {
  const ext = formats[format].ext;
  const entry = specialFiles[kind];
  let path = join(dir, entry.name ? entry.name(ext) : `special.${ext}`);
  if (entry.path) path = entry.path(dir, ext);
  entry.make?.(path, bytes, dir, ext);
  return path;
}

const specialError = (e) =>
  badFile(e) || fsError(e) || ((e instanceof TypeError || e instanceof RangeError) && typeof e.argument === 'string');

// ---- the CLI -----------------------------------------------------------------------------------

/** The flags `command` needs for a file of `format`. */
function cliArgs(command, format, file) {
  if (command === 'tessellate') return ['tessellate', file, '--box', '0,0,0,1,1,1', '--json'];
  const args = [command, file, '--voxel-size', '1e-6', '--no-report'];
  if (formats[format].ext === 'raw') {
    args.push('--shape', SHAPE.join(','));
    if (format.includes('16')) args.push('--dtype', 'uint16', '--byte-order', 'big');
  }
  return args;
}

/** io's argument names the CLI's flags set: a refusal naming one is a usage error (exit 2). */
const flagArguments = new Set([
  'shape',
  'dtype',
  'voxelSize',
  'littleEndian',
  'key',
  'poreValue',
  'solidValue',
  'solid',
]);

/** The exit statuses the CLI may give for a file the reader ended with `result`. */
function cliStatuses(result) {
  if (result.ok) return [0, 1]; // read: the computation may still fail (no fluid crosses)
  const e = result.error;
  const argument = e?.argument?.replace(/^(image|options)\./, '');
  if (
    (e instanceof TypeError || e instanceof RangeError) &&
    e.code !== 'PECLET_OUT_OF_MEMORY' &&
    flagArguments.has(argument)
  )
    return [2];
  return [1];
}

/** Runs the built CLI in `dir` and judges how it ended: the status, one `peclet: ` line, no stack, no temp file. */
function runCli(h, label, args, dir, statuses) {
  const started = performance.now();
  const r = spawnSync(process.execPath, [cliPath, ...args], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 15_000,
    env: { ...process.env, PECLET_DEBUG: '', PECLET_TEARDOWN_TRACE: '', FORCE_COLOR: '0' },
  });
  const ms = performance.now() - started;
  h.call(`${label} → ${r.signal ?? r.status} in ${Math.round(ms)} ms`, () => r.status);
  if (r.error?.code === 'ETIMEDOUT' || r.signal === 'SIGTERM') {
    h.problem(`${label}: hung (killed after 15 s)`);
    return r;
  }
  if (r.signal) {
    h.problem(`${label}: died by ${r.signal}`);
    return r;
  }
  if (!statuses.includes(r.status))
    h.problem(`${label}: exit ${r.status}, expected ${statuses.join(' or ')}: ${r.stderr.trim().slice(0, 300)}`);
  const lines = r.stderr.split('\n').filter((l) => l.length > 0);
  const errors = lines.filter((l) => l.startsWith('peclet: ') && !/^peclet: (warning|note):/.test(l));
  if (r.status !== 0 && errors.length !== 1)
    h.problem(`${label}: exit ${r.status} with ${errors.length} 'peclet: ' error lines: ${r.stderr.slice(0, 300)}`);
  if (r.status === 0 && errors.length > 0) h.problem(`${label}: exit 0 with an error line: ${errors[0]}`);
  const stack = lines.find((l) => /^\s+at /.test(l) || /^(TypeError|RangeError|Error)\b/.test(l));
  if (stack) h.problem(`${label}: a stack or raw error on stderr: ${stack.slice(0, 200)}`);
  if (r.status === 0 && r.stdout.trim() === '') h.problem(`${label}: exit 0 and nothing on stdout`);
  const temps = readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.tmp'));
  if (temps.length > 0) h.problem(`${label}: temp files left: ${temps.join(', ')}`);
  return r;
}

// ---- the address-space cap ---------------------------------------------------------------------

/** Caps (KiB) from just above what Node needs to start with io, flow and pnm loaded (under 1 GB it may not start). */
const caps = [1_200_000, 1_500_000];

/** Files and calls that allocate more than a cap allows, in JS (ArrayBuffers, arrays) or natively. */
const capCases = [
  'readRaw of a 2 GiB sparse file',
  'readNpy of a 1.5 GB sparse file',
  'readNpyArray of 2·10⁸ uint8 values (1.6 GB of float64)',
  'readTiff of a 2¹⁵ × 2¹⁵ page (1 GiB)',
  'readTiff with 2·10⁷ strips listed',
  'readNpy of an .npz entry claiming 500 MB',
  'permeability of 400³',
  'extract of 320³',
];

/** A sparse file of `size` bytes with `head` at the start (holes read as zeros, cost no disk). */
function sparseFile(path, size, head) {
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, head, 0, head.length, 0);
    ftruncateSync(fd, size);
  } finally {
    closeSync(fd);
  }
}

/** A classic TIFF, one page of `width` × `height` uint8 in `strips` strips of zeros, sparse. */
function bigTiff(path, width, height, strips) {
  const rows = Math.ceil(height / strips);
  const ifdAt = 8;
  const entries = 9;
  const arraysAt = ifdAt + 2 + entries * 12 + 4;
  const countsAt = arraysAt + 4 * strips;
  const dataAt = countsAt + 4 * strips;
  const stripBytes = rows * width;
  const head = Buffer.alloc(dataAt);
  head.write('II', 0, 'latin1');
  head.writeUInt16LE(42, 2);
  head.writeUInt32LE(ifdAt, 4);
  head.writeUInt16LE(entries, ifdAt);
  const tags = [
    [256, 4, 1, width],
    [257, 4, 1, height],
    [258, 3, 1, 8],
    [259, 3, 1, 1],
    [262, 3, 1, 1],
    [273, 4, strips, strips === 1 ? dataAt : arraysAt],
    [277, 3, 1, 1],
    [278, 4, 1, rows],
    [279, 4, strips, strips === 1 ? stripBytes : countsAt],
  ];
  tags.forEach(([tag, type, count, value], e) => {
    const at = ifdAt + 2 + 12 * e;
    head.writeUInt16LE(tag, at);
    head.writeUInt16LE(type, at + 2);
    head.writeUInt32LE(count, at + 4);
    if (type === 3) head.writeUInt16LE(value, at + 8);
    else head.writeUInt32LE(value, at + 8);
  });
  if (strips > 1)
    for (let s = 0; s < strips; s++) {
      head.writeUInt32LE(dataAt + s * stripBytes, arraysAt + 4 * s);
      head.writeUInt32LE(stripBytes, countsAt + 4 * s);
    }
  sparseFile(path, dataAt + strips * stripBytes, head);
}

function npyHead(descr, shape) {
  const dict = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${shape.join(', ')}), }`;
  const padded = `${dict}${' '.repeat(Math.max(0, 63 - ((10 + dict.length) % 64)))}\n`;
  const head = Buffer.alloc(10);
  Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]).copy(head);
  head.writeUInt16LE(padded.length, 8);
  return Buffer.concat([head, Buffer.from(padded, 'latin1')]);
}

/** A 3-D image of `n`³ with spheres of pore in solid (percolating). */
function porousImage(n) {
  const solid = new Uint8Array(n * n * n);
  for (let i = 0; i < solid.length; i++) solid[i] = Math.imul(i, 2654435761) >>> 0 < 0x66666666 ? 1 : 0;
  return { solid, shape: [n, n, n], voxelSize: 1e-6 };
}

/** The allowed end of a call under the cap: a value, or a RangeError with code PECLET_OUT_OF_MEMORY naming the argument (a reader's FileFormatError for a file that claims more than it holds). */
const memoryError = (e) =>
  (e instanceof RangeError && e.code === 'PECLET_OUT_OF_MEMORY' && typeof e.argument === 'string') || badFile(e);

// ---- damaged addons ----------------------------------------------------------------------------

const addonModules = ['voro', 'dem', 'flow', 'pnm'];

/** The module's built addon, or undefined where it was not built. */
function builtAddon(name) {
  const file = join(repository, 'packages', name, 'native', 'build', 'Release', `${name}.node`);
  return existsSync(file) ? file : undefined;
}

/** ELF program headers: `{ phoff, phentsize, phnum, loads: [{ offset, filesz }] }` (64-bit little-endian). */
function elfLayout(b) {
  const phoff = Number(b.readBigUInt64LE(32));
  const phentsize = b.readUInt16LE(54);
  const phnum = b.readUInt16LE(56);
  const loads = [];
  for (let i = 0; i < phnum; i++) {
    const at = phoff + i * phentsize;
    if (b.readUInt32LE(at) === 1)
      loads.push({ offset: Number(b.readBigUInt64LE(at + 8)), filesz: Number(b.readBigUInt64LE(at + 32)) });
  }
  return { phoff, phentsize, phnum, loads };
}

/**
 * Damage to an addon binary. `expect`: 'refused' (an AddonLoadError), 'either' (it loads and
 * works, or an AddonLoadError: damage the loader need not notice, such as a cut after the last
 * loadable segment, where only the section headers were).
 */
const damages = {
  'an intact copy': { make: (b) => b, expect: 'loads' },
  'an empty file': { make: () => Buffer.alloc(0), expect: 'refused' },
  'the ELF header alone': { make: (b) => b.subarray(0, 64), expect: 'refused' },
  'cut inside the program headers': {
    make: (b, e) => b.subarray(0, e.phoff + Math.floor(e.phentsize * e.phnum * 0.5)),
    expect: 'refused',
  },
  'cut inside the first loadable segment': {
    make: (b, e) =>
      b.subarray(
        0,
        e.loads[0].offset + Math.max(e.phoff + e.phentsize * e.phnum + 1, Math.floor(e.loads[0].filesz / 2)),
      ),
    expect: 'refused',
  },
  'cut inside the last loadable segment': {
    make: (b, e) => {
      const last = e.loads[e.loads.length - 1];
      return b.subarray(0, last.offset + Math.floor(last.filesz / 2));
    },
    expect: 'refused',
  },
  'cut one byte short': { make: (b) => b.subarray(0, b.length - 1), expect: 'either' },
  'program headers past the end': {
    make: (b) => {
      const c = Buffer.from(b);
      c.writeBigUInt64LE(BigInt(b.length + 4096), 32);
      return c;
    },
    expect: 'refused',
  },
  'no program headers': {
    make: (b) => {
      const c = Buffer.from(b);
      c.writeUInt16LE(0, 56);
      return c;
    },
    expect: 'refused',
  },
  'another machine (AArch64)': {
    make: (b) => {
      const c = Buffer.from(b);
      c.writeUInt16LE(183, 18);
      return c;
    },
    expect: 'refused',
  },
  'a 32-bit class byte': {
    make: (b) => {
      const c = Buffer.from(b);
      c[4] = 1;
      return c;
    },
    expect: 'refused',
  },
  'bad magic': {
    make: (b) => {
      const c = Buffer.from(b);
      c[1] = 0x58;
      return c;
    },
    expect: 'refused',
  },
  'a text file': { make: () => Buffer.from('not an addon\n'), expect: 'refused' },
  'another addon': { other: true, expect: 'refused' },
  'a missing file': { missing: true, expect: 'refused' },
  'a symlink loop': { loop: true, expect: 'refused' },
  'zeros of the same size': { make: (b) => Buffer.alloc(b.length), expect: 'refused' },
  // Opened non-blocking and refused unless a regular file (a FIFO once hung the first call for
  // ever, a directory ended it in a raw EISDIR).
  'a FIFO': { fifo: true, expect: 'refused' },
  'a directory': { directory: true, expect: 'refused' },
};
const damageNames = Object.keys(damages);

/** The script the grandchild runs: loads the module's addon through one call, prints how it ended. */
const addonScript = `
const name = process.argv[1];
const m = await import('@peclet/' + name);
const calls = {
  voro: () => m.tessellate(Float64Array.of(0.25, 0.5, 0.5, 0.75, 0.5, 0.5), { box: { min: [0, 0, 0], max: [1, 1, 1] } }).size,
  dem: () => new m.Simulation({ box: { min: [0, 0, 0], max: [1, 1, 1] }, contact: { model: 'linear', stiffness: 1e3 } }).sphereCount,
  flow: async () => (await m.permeability({ solid: new Uint8Array(27), shape: [3, 3, 3], voxelSize: 1e-6 }, { maxSteps: 5 })).steps,
  pnm: () => m.extract({ solid: Uint8Array.from({ length: 27 }, (_, i) => (i === 13 ? 1 : 0)), shape: [3, 3, 3], voxelSize: 1e-6 }).pores.count,
};
try {
  const v = await calls[name]();
  if (name === 'flow' || name === 'pnm') m.finalize();
  console.log('addon-end ' + JSON.stringify({ ok: String(v) }));
} catch (e) {
  console.log('addon-end ' + JSON.stringify({ name: e?.name, code: e?.code, message: String(e?.message).slice(0, 400) }));
}
`;

// ---- the targets -------------------------------------------------------------------------------

export const fileTargets = {
  // Every format's valid file mutated through its layout, read by its reader (or readImage).
  'io.mutated file': {
    build: mutationPlan,
    async exec(plan, h, { io }) {
      await withTempDir(async (dir) => {
        const { valid } = await validReading(h, io, plan.format, dir);
        const m = await mutatedFile(plan, dir);
        const { label, call } = readCall(io, plan.format, m.file, plan.via);
        await judgeReading(h, `${label}(${plan.format}, ${m.what}) [${m.expect}]`, call, m.expect, valid);
      });
    },
  },

  // Special files and names at the file system's limits, for every reader.
  'io.special file': {
    build: (r) => ({ kind: r.member(specialNames), format: r.pick(formatNames), via: r.pick(['reader', 'readImage']) }),
    async exec(plan, h, { io }) {
      await withTempDir(async (dir) => {
        const { built, valid } = await validReading(h, io, plan.format, dir);
        const path = specialFile(plan.kind, dir, plan.format, built.bytes);
        if (specialFiles[plan.kind].name && specialFiles[plan.kind].expect === 'same') writeFileSync(path, built.bytes);
        const { label, call } = readCall(io, plan.format, path, plan.via);
        const expect = specialFiles[plan.kind].expect;
        const result = await h.call(`${label}(${plan.format} as ${plan.kind}) [${expect}]`, call, {
          bad: expect === 'error',
          allow: (e) => specialError(e) || (expect === 'sameOrFs' && fsError(e)),
        });
        if (result.ok && digest(result.value) !== valid)
          h.problem(`${label}(${plan.kind}): read ${digest(result.value)}, the valid file gives ${valid}`);
        if (!result.ok && expect === 'same') h.problem(`${label}(${plan.kind}): refused (${result.error?.message})`);
        if (!result.ok && expect !== 'same' && !specialError(result.error))
          h.problem(`${label}(${plan.kind}): not a documented error: ${result.error?.message}`);
      });
    },
  },

  // The built CLI on mutated and special files: exit 1 (failure) or 2 (a flag's value refused),
  // one `peclet: ` line, no stack, no temp file; 0 only where the file reads.
  'cli.hostile file': {
    build: (r) => {
      const source = r.member(['mutated', 'mutated', 'special']);
      const plan = source === 'mutated' ? mutationPlan(r) : { format: r.pick(formatNames), kind: r.pick(specialNames) };
      return { source, ...plan, command: r.pick(['permeability', 'extract']) };
    },
    async exec(plan, h, { io }) {
      await withTempDir(async (dir) => {
        const { built, valid } = await validReading(h, io, plan.format, dir);
        let file;
        let expect;
        if (plan.source === 'mutated') {
          const m = await mutatedFile(plan, dir);
          file = m.file;
          expect = m.expect;
        } else {
          file = specialFile(plan.kind, dir, plan.format, built.bytes);
          if (specialFiles[plan.kind].name && specialFiles[plan.kind].expect === 'same')
            writeFileSync(file, built.bytes);
          expect = 'unsure';
        }
        const command = formats[plan.format].points ? 'tessellate' : plan.command;
        // What the reader says of the file decides the status: read → 0 or 1; a flag's value refused → 2; else 1.
        const { label, call } = readCall(io, plan.format, file, 'readImage');
        const result = await h.call(`${label}(${plan.format}) before the CLI`, call, { allow: specialError });
        if (result.ok && (expect === 'same' || expect === 'sameOrError') && digest(result.value) !== valid)
          h.problem(`${label}: a result from corrupt bytes`);
        let statuses = cliStatuses(result);
        // tessellate checks the array's dtype and shape itself (exit 1).
        if (command === 'tessellate' && result.ok) statuses = [0, 1];
        runCli(
          h,
          `peclet ${command} ${plan.source === 'mutated' ? plan.mutation : plan.kind} (${plan.format})`,
          cliArgs(command, plan.format, file),
          dir,
          statuses,
        );
      });
    },
  },

  // The CLI's exit statuses by class: usage (2), failure (1), a signal (death by it, no temp file).
  'cli.exit class': {
    build: (r) => ({
      kind: r.member([
        'usage: unknown flag',
        'usage: a voxel size of -1',
        'usage: --shape off by one',
        'failure: a corrupt file',
        'failure: a missing file',
        'signal: SIGINT',
        'signal: SIGTERM',
      ]),
    }),
    async exec(plan, h, { io }) {
      await withTempDir(async (dir) => {
        const { built } = await validReading(h, io, 'raw uint8', dir);
        const file = join(dir, 'valid.raw');
        const base = ['permeability', file, '--voxel-size', '1e-6', '--shape', '3,4,5', '--no-report'];
        const args = {
          'usage: unknown flag': [...base, '--bogus'],
          'usage: a voxel size of -1': ['permeability', file, '--voxel-size', '-1', '--shape', '3,4,5', '--no-report'],
          'usage: --shape off by one': [
            'permeability',
            file,
            '--voxel-size',
            '1e-6',
            '--shape',
            '3,4,6',
            '--no-report',
          ],
          'failure: a corrupt file': ['permeability', join(dir, 'bad.npy'), '--voxel-size', '1e-6', '--no-report'],
          'failure: a missing file': ['permeability', join(dir, 'none.npy'), '--voxel-size', '1e-6', '--no-report'],
        }[plan.kind];
        writeFileSync(join(dir, 'bad.npy'), built.bytes.subarray(0, 30));
        if (args) {
          runCli(h, `peclet ${plan.kind}`, args, dir, [plan.kind.startsWith('usage') ? 2 : 1]);
          return;
        }
        // A run long enough to be interrupted: 48³ with a report written (temp files on the way).
        const n = 48;
        const image = porousImage(n);
        const big = join(dir, 'big.raw');
        writeFileSync(big, image.solid);
        const signal = plan.kind.slice('signal: '.length);
        const { spawn } = await import('node:child_process');
        const child = spawn(
          process.execPath,
          [
            cliPath,
            'permeability',
            big,
            '--voxel-size',
            '1e-6',
            '--shape',
            `${n},${n},${n}`,
            '--report',
            join(dir, 'rep'),
          ],
          { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
        );
        let stderr = '';
        child.stderr.on('data', (d) => {
          stderr += d;
        });
        const ended = new Promise((resolve) => child.on('exit', (status, sig) => resolve({ status, sig })));
        await new Promise((resolve) => setTimeout(resolve, 400));
        child.kill(signal);
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        const { status, sig } = await ended;
        clearTimeout(timer);
        h.call(`peclet permeability 48³, ${signal} after 400 ms → ${sig ?? status}`, () => sig ?? status);
        // Finished before the signal: exit 0. Otherwise death by the signal itself.
        if (!(sig === signal || status === 0))
          h.problem(`${signal}: ended ${sig ?? `with exit ${status}`}, not by ${signal}: ${stderr.slice(0, 200)}`);
        if (/^\s+at /m.test(stderr)) h.problem(`${signal}: a stack on stderr`);
        const temps = readdirSync(dir).filter((f) => f.endsWith('.tmp'));
        if (temps.length > 0) h.problem(`${signal}: temp files left: ${temps.join(', ')}`);
      });
    },
  },

  // Readers, permeability() and extract() in a process whose address space is capped: an
  // allocation that fails, in JS or natively, is a RangeError (PECLET_OUT_OF_MEMORY), never a crash.
  'env.memory cap': {
    build: (r) => ({ case: r.member(capCases), memoryLimitKiB: r.pick(caps) }),
    async exec(plan, h, { io, flow, pnm }) {
      await withTempDir(async (dir) => {
        const path = join(dir, 'big');
        let call;
        switch (plan.case) {
          case 'readRaw of a 2 GiB sparse file':
            sparseFile(`${path}.raw`, 2 ** 31, Buffer.alloc(1));
            call = () => io.readRaw(`${path}.raw`, { shape: [2048, 1024, 1024], voxelSize: 1e-6 });
            break;
          case 'readNpy of a 1.5 GB sparse file': {
            const head = npyHead('|u1', [1500, 1000, 1000]);
            sparseFile(`${path}.npy`, head.length + 1.5e9, head);
            call = () => io.readNpy(`${path}.npy`, { voxelSize: 1e-6 });
            break;
          }
          case 'readNpyArray of 2·10⁸ uint8 values (1.6 GB of float64)': {
            const head = npyHead('|u1', [2e8]);
            sparseFile(`${path}.npy`, head.length + 2e8, head);
            call = () => io.readNpyArray(`${path}.npy`);
            break;
          }
          case 'readTiff of a 2¹⁵ × 2¹⁵ page (1 GiB)':
            bigTiff(`${path}.tif`, 2 ** 15, 2 ** 15, 1);
            call = () => io.readTiff(`${path}.tif`, { voxelSize: 1e-6 });
            break;
          case 'readTiff with 2·10⁷ strips listed':
            bigTiff(`${path}.tif`, 8, 2e7, 2e7);
            call = () => io.readTiff(`${path}.tif`, { voxelSize: 1e-6 });
            break;
          case 'readNpy of an .npz entry claiming 500 MB': {
            const zip = Buffer.from(zipSync({ 'im.npy': new Uint8Array(npyFile({}).bytes) }, { level: 6 }));
            const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
            const central = zip.readUInt32LE(eocd + 16);
            zip.writeUInt32LE(5e8, central + 24);
            zip.writeUInt32LE(5e8, 22);
            writeFileSync(`${path}.npz`, zip);
            call = () => io.readNpy(`${path}.npz`, { voxelSize: 1e-6 });
            break;
          }
          case 'permeability of 400³':
            call = () => flow.permeability(porousImage(400), { maxSteps: 20, tolerance: 1e-3 });
            break;
          case 'extract of 320³':
            call = () => pnm.extract(porousImage(320));
            break;
          default:
            throw new Error(plan.case);
        }
        const started = performance.now();
        const result = await h.call(`${plan.case} under ${plan.memoryLimitKiB} KiB`, call, {
          allow: (e) =>
            memoryError(e) || (e instanceof Error && /PECLET_(DIVERGED|NOT_CONVERGED|UNSETTLED)/.test(String(e.code))),
        });
        // A RangeError passes the recorder: under the cap it must also say it is memory, naming what.
        if (!result.ok && !memoryError(result.error) && !/PECLET_/.test(String(result.error?.code)))
          h.problem(
            `${plan.case}: ${result.error?.name}: ${result.error?.message} — not PECLET_OUT_OF_MEMORY naming its argument`,
          );
        // The process lives on after a refused allocation: the shipped sample still reads, whole.
        const sample = await h.call('readBereaSample() after it', () => io.readBereaSample(), {
          allow: memoryError,
        });
        if (sample.ok && (sample.value.solid.length !== 1e6 || Math.abs(io.porosity(sample.value) - 0.2153) > 1e-4))
          h.problem(
            `readBereaSample() after ${plan.case}: ${sample.value.solid.length} voxels, porosity ${io.porosity(sample.value)}`,
          );
        if (plan.case.startsWith('permeability')) {
          // And flow still computes: a channel of 4 × 4 voxels through 8³, its fields the sample's size.
          const n = 8;
          const solid = new Uint8Array(n * n * n).fill(1);
          for (let x = 0; x < n; x++)
            for (let y = 2; y < 6; y++) for (let z = 2; z < 6; z++) solid[(x * n + y) * n + z] = 0;
          const small = await h.call('permeability(a channel through 8³) after it', () =>
            flow.permeability({ solid, shape: [n, n, n], voxelSize: 1e-6 }, { maxSteps: 200, tolerance: 1e-3 }),
          );
          if (small.ok) {
            if (!(small.value.permeability > 0)) h.problem(`permeability of the channel: ${small.value.permeability}`);
            // Pressure is NaN in solid voxels, as documented: the call returns what is checked.
            const fields = await h.call('flowFields(its result)', () => {
              const f = flow.flowFields(small.value);
              let bad = 0;
              for (let v = 0; v < n ** 3; v++) if (solid[v] === 0 && !Number.isFinite(f.pressure[v])) bad++;
              return { shape: [...f.shape], velocities: f.velocity.length, pressureNotFiniteInPore: bad };
            });
            const f = fields.value;
            if (
              fields.ok &&
              (f.shape.join() !== '8,8,8' || f.velocities !== 3 * n ** 3 || f.pressureNotFiniteInPore > 0)
            )
              h.problem(`flowFields of the channel: ${JSON.stringify(f)}`);
          }
        }
        const seconds = (performance.now() - started) / 1000;
        if (seconds > 10) h.problem(`${plan.case}: ${seconds.toFixed(1)} s`);
        if (
          result.ok &&
          result.value?.solid &&
          result.value.solid.length !== result.value.shape.reduce((a, b) => a * b, 1)
        )
          h.problem(`${plan.case}: a result whose shape and voxels disagree`);
      });
    },
  },

  // A module's addon binary damaged (PECLET_<NAME>_BINARY at a cut, corrupted or wrong copy):
  // the first call throws an AddonLoadError that names the variable, never a signal or a hang.
  'env.damaged addon': {
    build: (r) => ({ damage: r.member(damageNames), module: r.pick(addonModules) }),
    async exec(plan, h) {
      await withTempDir(async (dir) => {
        const source = builtAddon(plan.module);
        if (source === undefined) {
          h.call(`${plan.module}'s addon is not built here`, () => undefined);
          return;
        }
        const entry = damages[plan.damage];
        const file = join(dir, `${plan.module}.node`);
        if (entry.loop) {
          symlinkSync(`${file}.b`, file);
          symlinkSync(file, `${file}.b`);
        } else if (entry.fifo) {
          execFileSync('mkfifo', [file]);
        } else if (entry.directory) {
          mkdirSync(file);
        } else if (entry.other) {
          const other = addonModules.map(builtAddon).find((f) => f !== undefined && f !== source);
          if (other === undefined) return;
          copyFileSync(other, file);
        } else if (!entry.missing) {
          const bytes = readFileSync(source);
          writeFileSync(file, entry.make(bytes, elfLayout(bytes)));
        }
        const variable = `PECLET_${plan.module.toUpperCase()}_BINARY`;
        const r = spawnSync(process.execPath, ['--input-type=module', '-e', addonScript, plan.module], {
          cwd: join(here, '..'),
          encoding: 'utf8',
          timeout: 15_000,
          env: { ...process.env, [variable]: file, PECLET_TEARDOWN_TRACE: '' },
        });
        const label = `${variable}=${plan.damage}`;
        h.call(`${label} → ${r.signal ?? r.status}`, () => r.status);
        if (r.error?.code === 'ETIMEDOUT') return h.problem(`${label}: hung (killed after 15 s)`);
        if (r.signal) return h.problem(`${label}: died by ${r.signal}: ${r.stderr.slice(-300)}`);
        const line = r.stdout.split('\n').find((l) => l.startsWith('addon-end '));
        if (!line) return h.problem(`${label}: exit ${r.status}, no end line: ${r.stderr.slice(-300)}`);
        const end = JSON.parse(line.slice('addon-end '.length));
        if (end.ok !== undefined) {
          if (entry.expect === 'refused') h.problem(`${label}: loaded a damaged addon (${end.ok})`);
          return;
        }
        if (entry.expect === 'loads')
          return h.problem(`${label}: an intact copy did not load: ${end.name}: ${end.message}`);
        if (end.name !== 'AddonLoadError' || end.code !== 'PECLET_ADDON_NOT_LOADED')
          h.problem(`${label}: threw ${end.name} (${end.code}): ${end.message}`);
        else if (!end.message.includes(variable)) h.problem(`${label}: the AddonLoadError does not name ${variable}`);
      });
    },
  },
};
