// io's targets: checkVoxelImage, readRaw, readNpy (malformed headers), readTiff (corrupt bytes),
// writeVti (mismatched lengths, hostile containers, offsets), writePvti (pieces that do not tile
// the image, hostile offsets, sources, shapes and array types), sliceOf, writePng, readImage,
// readPath, writeAtomically(Sync), fromPoreSpy, writeVtp. Files live in a fresh temp directory per
// case. A corrupt file may end in a FileFormatError (code PECLET_BAD_FILE) whose message says
// what is wrong; everything else must be a TypeError/RangeError or a value.

import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { open, rm, writeFile } from 'node:fs/promises';
import { endianness, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { hashArray } from './check.mjs';
import { containers, detached, numbers } from './domains.mjs';

const badFile = (e) => e instanceof Error && e.code === 'PECLET_BAD_FILE' && /\S/.test(e.message);

function withTempDir(fn) {
  const dir = mkdtempSync(join(tmpdir(), 'peclet-hostile-io-'));
  return Promise.resolve()
    .then(() => fn(dir))
    .finally(() => rmSync(dir, { recursive: true, force: true }));
}

/** Images for checkVoxelImage: `bad` ones are documented errors. */
const images = {
  valid: { make: () => ({ solid: new Uint8Array(60), shape: [3, 4, 5], voxelSize: 1e-6 }) },
  'shape as Int32Array': { make: () => ({ solid: new Uint8Array(8), shape: Int32Array.of(2, 2, 2), voxelSize: 1 }) },
  'length mismatch': { make: () => ({ solid: new Uint8Array(59), shape: [3, 4, 5], voxelSize: 1 }), bad: true },
  'overflowing shape': {
    make: () => ({ solid: new Uint8Array(1), shape: [2 ** 30, 2 ** 30, 2 ** 30], voxelSize: 1 }),
    bad: true,
  },
  'shape 1e12 each': { make: () => ({ solid: new Uint8Array(1), shape: [1e12, 1e12, 1e12], voxelSize: 1 }), bad: true },
  'negative shape': { make: () => ({ solid: new Uint8Array(8), shape: [2, -2, -2], voxelSize: 1 }), bad: true },
  'NaN shape': { make: () => ({ solid: new Uint8Array(8), shape: [2, 2, Number.NaN], voxelSize: 1 }), bad: true },
  'shape of 2': { make: () => ({ solid: new Uint8Array(4), shape: [2, 2], voxelSize: 1 }), bad: true },
  'detached solid': {
    make: () => {
      const solid = new Uint8Array(8);
      structuredClone(solid.buffer, { transfer: [solid.buffer] });
      return { solid, shape: [2, 2, 2], voxelSize: 1 };
    },
    bad: true,
  },
  'solid as Float64Array': { make: () => ({ solid: new Float64Array(8), shape: [2, 2, 2], voxelSize: 1 }), bad: true },
  'solid as array': { make: () => ({ solid: new Array(8).fill(0), shape: [2, 2, 2], voxelSize: 1 }), bad: true },
  'solid as Proxy': {
    make: () => ({ solid: new Proxy(new Uint8Array(8), {}), shape: [2, 2, 2], voxelSize: 1 }),
    bad: true,
  },
  'SharedArrayBuffer solid': {
    make: () => ({ solid: new Uint8Array(new SharedArrayBuffer(8)), shape: [2, 2, 2], voxelSize: 1 }),
  },
  'a throwing getter': {
    make: () => ({
      solid: new Uint8Array(8),
      get shape() {
        throw new RangeError('hostile getter');
      },
      voxelSize: 1,
    }),
    unsure: true,
  },
  null: { make: () => null, bad: true },
  'a number': { make: () => 3, bad: true },
};
for (const name of ['0', '-1', 'NaN', 'Infinity', "'1' (string)", 'undefined', '5e-324', '1e308']) {
  const bad = !['5e-324', '1e308'].includes(name);
  images[`voxelSize ${name}`] = {
    make: () => ({ solid: new Uint8Array(8), shape: [2, 2, 2], voxelSize: numbers[name]() }),
    bad,
  };
}

const rawShapes = {
  '[3, 4, 5]': [3, 4, 5],
  '[1e12, 1e12, 1e12]': [1e12, 1e12, 1e12],
  '[2**20, 2**20, 2**20]': [2 ** 20, 2 ** 20, 2 ** 20],
  '[-3, 4, 5]': [-3, 4, 5],
  '[3, 4]': [3, 4],
  '[3, 4, 5.5]': [3, 4, 5.5],
  '[NaN, 4, 5]': [Number.NaN, 4, 5],
  '[0, 4, 5]': [0, 4, 5],
  "'3,4,5'": '3,4,5',
};
const rawDtypes = ["'uint8'", "'int16'", "'float32'", "'float64'", "'uint64'", "'bool'", '8', 'undefined'];
const dtypeOf = (s) => (s === 'undefined' ? undefined : s === '8' ? 8 : s.slice(1, -1));
const sizes = { uint8: 1, int16: 2, float32: 4, float64: 8 };

/** An .npy header dict and file built from named pieces. */
function npyBytes(variant) {
  const header = (dict, version = 1) => {
    const pre = version === 1 ? 10 : 12;
    const padded = `${dict}${' '.repeat(Math.max(0, 63 - ((pre + dict.length) % 64)))}\n`;
    const head = Buffer.alloc(pre);
    Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, version, 0]).copy(head);
    if (version === 1) head.writeUInt16LE(padded.length, 8);
    else head.writeUInt32LE(padded.length, 8);
    return Buffer.concat([head, Buffer.from(padded, 'latin1')]);
  };
  const dict = (descr, shape, fortran = 'False') =>
    `{'descr': '${descr}', 'fortran_order': ${fortran}, 'shape': ${shape}, }`;
  const valid = Buffer.concat([header(dict('|u1', '(3, 4, 5)')), Buffer.alloc(60, 1)]);
  switch (variant) {
    case 'valid':
      return { bytes: valid };
    case 'valid fortran <f8 v2':
      return { bytes: Buffer.concat([header(dict('<f8', '(3, 4, 5)', 'True'), 2), Buffer.alloc(480, 0x3f)]) };
    case 'truncated header':
      return { bytes: valid.subarray(0, 30), bad: true };
    case 'truncated data':
      return { bytes: valid.subarray(0, valid.length - 7), bad: true };
    case 'empty file':
      return { bytes: Buffer.alloc(0), bad: true };
    case 'magic only':
      return { bytes: valid.subarray(0, 6), bad: true };
    case 'header length beyond file': {
      const b = Buffer.from(valid);
      b.writeUInt16LE(65535, 8);
      return { bytes: b, bad: true };
    }
    case 'v2 header length 4 GB': {
      const b = Buffer.concat([header(dict('|u1', '(3, 4, 5)'), 2), Buffer.alloc(60)]);
      b.writeUInt32LE(0xffffffff, 8);
      return { bytes: b, bad: true };
    }
    case 'absurd shape 1e12^3':
      return {
        bytes: Buffer.concat([header(dict('|u1', '(1000000000000, 1000000000000, 1000000000000)')), Buffer.alloc(60)]),
        bad: true,
      };
    case 'shape 2^20^3 (4 PB, fits a double)':
      return {
        bytes: Buffer.concat([header(dict('<f8', '(1048576, 1048576, 1048576)')), Buffer.alloc(64)]),
        bad: true,
      };
    case 'huge digits':
      return { bytes: Buffer.concat([header(dict('|u1', `(${'9'.repeat(400)}, 1, 1)`)), Buffer.alloc(60)]), bad: true };
    case 'negative shape':
      return { bytes: Buffer.concat([header(dict('|u1', '(-3, 4, 5)')), Buffer.alloc(60)]), bad: true };
    case '2-D':
      return { bytes: Buffer.concat([header(dict('|u1', '(6, 10)')), Buffer.alloc(60)]), bad: true };
    case '0-D':
      return { bytes: Buffer.concat([header(dict('|u1', '()')), Buffer.alloc(1)]), bad: true };
    case 'empty dimension':
      return { bytes: Buffer.concat([header(dict('|u1', '(0, 4, 5)'))]), bad: true };
    case "dtype '<c16'":
      return { bytes: Buffer.concat([header(dict('<c16', '(3, 4, 5)')), Buffer.alloc(960)]), bad: true };
    case "dtype 'O'":
      return { bytes: Buffer.concat([header(dict('|O', '(3, 4, 5)')), Buffer.alloc(480)]), bad: true };
    case "dtype '<u8'":
      return { bytes: Buffer.concat([header(dict('<u8', '(3, 4, 5)')), Buffer.alloc(480)]), bad: true };
    case "dtype '|u2' (no byte order)":
      return { bytes: Buffer.concat([header(dict('|u2', '(3, 4, 5)')), Buffer.alloc(120)]), bad: true };
    case 'structured dtype':
      return {
        bytes: Buffer.concat([
          header("{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (3, 4, 5), }"),
          Buffer.alloc(480),
        ]),
        bad: true,
      };
    case 'not a dict':
      return { bytes: Buffer.concat([header('garbage'), Buffer.alloc(60)]), bad: true };
    case 'missing shape':
      return {
        bytes: Buffer.concat([header("{'descr': '|u1', 'fortran_order': False}"), Buffer.alloc(60)]),
        bad: true,
      };
    case 'version 9':
      return { bytes: Buffer.concat([header(dict('|u1', '(3, 4, 5)'), 9), Buffer.alloc(60)]), bad: true };
    case 'random bytes':
      return { bytes: Buffer.from(Array.from({ length: 200 }, (_, i) => (i * 7919) % 256)), bad: true };
    default:
      throw new Error(`no npy variant ${variant}`);
  }
}
const npyVariants = [
  'valid',
  'valid fortran <f8 v2',
  'truncated header',
  'truncated data',
  'empty file',
  'magic only',
  'header length beyond file',
  'v2 header length 4 GB',
  'absurd shape 1e12^3',
  'shape 2^20^3 (4 PB, fits a double)',
  'huge digits',
  'negative shape',
  '2-D',
  '0-D',
  'empty dimension',
  "dtype '<c16'",
  "dtype 'O'",
  "dtype '<u8'",
  "dtype '|u2' (no byte order)",
  'structured dtype',
  'not a dict',
  'missing shape',
  'version 9',
  'random bytes',
];

/** A minimal two-page classic TIFF, 4 × 3 uint8, little-endian, uncompressed. */
function tiffBytes() {
  const entries = 8;
  const ifd = 2 + entries * 12 + 4;
  const pages = 2;
  const plane = 12;
  const buf = Buffer.alloc(8 + pages * ifd + pages * plane);
  buf.write('II', 0, 'latin1');
  buf.writeUInt16LE(42, 2);
  buf.writeUInt32LE(8, 4);
  for (let p = 0; p < pages; p++) {
    const at = 8 + p * ifd;
    const data = 8 + pages * ifd + p * plane;
    buf.writeUInt16LE(entries, at);
    const tags = [
      [256, 3, 4],
      [257, 3, 3],
      [258, 3, 8],
      [259, 3, 1],
      [262, 3, 1],
      [273, 4, data],
      [277, 3, 1],
      [279, 4, plane],
    ];
    tags.forEach(([tag, type, value], e) => {
      const t = at + 2 + 12 * e;
      buf.writeUInt16LE(tag, t);
      buf.writeUInt16LE(type, t + 2);
      buf.writeUInt32LE(1, t + 4);
      if (type === 3) buf.writeUInt16LE(value, t + 8);
      else buf.writeUInt32LE(value, t + 8);
    });
    buf.writeUInt32LE(p + 1 < pages ? at + ifd : 0, at + 2 + 12 * entries);
    for (let i = 0; i < plane; i++) buf[data + i] = (i + p) % 3;
  }
  return buf;
}
const tiffCorruptions = [
  'none',
  'flip bytes',
  'truncate',
  'garbage',
  'loop',
  'huge count',
  'huge width',
  'BigTIFF header on classic',
  'zero',
];

function corruptTiff(how, r) {
  const b = tiffBytes();
  switch (how) {
    case 'none':
      return b;
    case 'flip bytes': {
      const n = 1 + Math.floor(r.next() * 6);
      for (let i = 0; i < n; i++) b[Math.floor(r.next() * b.length)] = Math.floor(r.next() * 256);
      return b;
    }
    case 'truncate':
      return b.subarray(0, Math.floor(r.next() * b.length));
    case 'garbage':
      return Buffer.from(Array.from({ length: 1 + Math.floor(r.next() * 400) }, () => Math.floor(r.next() * 256)));
    case 'loop':
      b.writeUInt32LE(8, 8 + 2 * (2 + 8 * 12 + 4) - 4);
      return b;
    case 'huge count':
      b.writeUInt16LE(0xffff, 8);
      return b;
    case 'huge width':
      b.writeUInt16LE(4, 8 + 2 + 2); // LONG
      b.writeUInt32LE(0xffffffff, 8 + 2 + 8);
      return b;
    case 'BigTIFF header on classic':
      b.writeUInt16LE(43, 2);
      return b;
    case 'zero':
      return Buffer.alloc(b.length);
    default:
      throw new Error(how);
  }
}

const vtiArrays = {
  'Float64Array of 60': () => new Float64Array(60),
  'Float64Array of 59': () => new Float64Array(59),
  'Uint8Array of 61': () => new Uint8Array(61),
  '3 components of 180': () => ({ values: new Float32Array(180), components: 3 }),
  '3 components of 60': () => ({ values: new Float32Array(60), components: 3 }),
  'components 0': () => ({ values: new Float32Array(60), components: 0 }),
  'components NaN': () => ({ values: new Float32Array(60), components: Number.NaN }),
  'components 2**53': () => ({ values: new Float32Array(60), components: 2 ** 53 }),
  'BigInt64Array of 60': () => new BigInt64Array(60),
  'plain array of 60': () => new Array(60).fill(0),
  DataView: () => new DataView(new ArrayBuffer(480)),
  'Proxy of a Float64Array': () => new Proxy(new Float64Array(60), {}),
  'detached Float64Array': () => containers['detached Float64Array'](new Array(60).fill(0)),
  'SharedArrayBuffer-backed': () => containers['SharedArrayBuffer-backed'](new Array(60).fill(1)),
  'subarray at offset 1': () => containers['subarray at offset 1'](new Array(60).fill(1)),
  null: () => null,
};
const goodArrays = new Set([
  'Float64Array of 60',
  '3 components of 180',
  'SharedArrayBuffer-backed',
  'subarray at offset 1',
]);

// The rest of the API: sliceOf, writePng, readImage, readPath, writeAtomically(Sync), fromPoreSpy,
// writeVtp. A refusal must be a TypeError or RangeError naming the argument at fault
// (`error.argument`); a writer's file-system error (ENOENT, EISDIR, ENOTDIR, ENAMETOOLONG) is an
// allowed end only for a path the file system refuses; no writer leaves a temp file, and a failed
// write leaves the target as it was.

/** A file-system refusal as Node reports it. */
const fsError = (e) => e instanceof Error && /^E[A-Z]+$/.test(String(e.code)) && typeof e.syscall === 'string';

/** A TypeError or RangeError must name the argument at fault: `error.argument` under one of `roots`. */
function checkNamed(h, label, error, roots) {
  if (!(error instanceof TypeError || error instanceof RangeError)) return;
  const named = error.argument;
  if (typeof named !== 'string') {
    h.problem(`${label}: ${error.name} names no argument (${String(error.message).slice(0, 80)})`);
    return;
  }
  if (!roots.some((root) => named === root || named.startsWith(`${root}.`) || named.startsWith(`${root}[`))) {
    h.problem(`${label}: ${error.name} names '${named.slice(0, 60)}', expected one of ${roots.join(', ')}`);
  }
}

/**
 * Judges one call: `roots`, the arguments a refusal must name (empty: the arguments are valid);
 * `fs`, the file system refuses the path; `unsure`, either end is right; `allow`, more errors.
 */
async function judge(h, label, fn, { roots = [], fs = false, unsure = false, allow, mustThrow } = {}) {
  const bad = roots.length > 0;
  const allowed = (e) => (fs && fsError(e)) || allow?.(e) === true;
  const result = await h.call(label, fn, {
    bad: bad && !unsure,
    mustThrow: mustThrow ?? (fs && !bad && !unsure ? 'the file system refuses this path' : undefined),
    allow: allowed,
  });
  if (!result.ok) {
    const e = result.error;
    if (bad) checkNamed(h, label, e, roots);
    else if (!unsure && !allowed(e)) {
      h.problem(`${label}: refused valid arguments (${e?.constructor?.name}: ${String(e?.message).slice(0, 120)})`);
    }
  }
  return result;
}

/** The temp files (`.tmp`) anywhere under `dir`. */
const tempsLeft = (dir) =>
  readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.tmp'));

/** FNV of a typed array's bytes, or undefined for anything else (to see that a call left its input alone). */
const inputHash = (a) => {
  try {
    return ArrayBuffer.isView(a) ? hashArray(a) : undefined;
  } catch {
    return undefined;
  }
};

const made = (path) => {
  mkdirSync(path);
  return path;
};
const filed = (path, text = 'x') => {
  writeFileSync(path, text);
  return path;
};

/**
 * Target paths of the writers, made in the case's directory for the file name `name`. `bad`:
 * readPath refuses it (a TypeError naming `path`); `fs`: the file system does (its error is the
 * end); `old`: the content of a file already there, which a failed write must leave.
 */
const writePaths = {
  'a fresh file': { v: (dir, name) => join(dir, name) },
  'an existing file': { v: (dir, name) => filed(join(dir, name), 'old'), old: 'old' },
  'a unicode name with spaces': { v: (dir, name) => join(dir, `ü n ï ✓ ${name}`) },
  'a directory': { v: (dir) => made(join(dir, 'adir')), fs: true },
  'in a missing directory': { v: (dir, name) => join(dir, 'missing', name), fs: true },
  "a file's child": { v: (dir, name) => join(filed(join(dir, 'file')), name), fs: true },
  'a name of 300 characters': { v: (dir) => join(dir, 'n'.repeat(300)), fs: true },
  'ending in a slash': { v: (dir, name) => `${join(dir, name)}/`, fs: true },
  "''": { v: () => '', bad: true },
  'containing NUL': { v: (dir, name) => join(dir, `a\0${name}`), bad: true },
  5: { v: () => 5, bad: true },
  undefined: { v: () => undefined, bad: true },
  null: { v: () => null, bad: true },
  'a Buffer': { v: (dir, name) => Buffer.from(join(dir, name)), bad: true },
  'a file: URL': { v: (dir, name) => pathToFileURL(join(dir, name)), bad: true },
  'a String object': { v: (dir, name) => Object(join(dir, name)), bad: true },
};
const writePathNames = Object.keys(writePaths);
/** A writer's path: mostly a valid one, else any. */
const pickWritePath = (r, hostile = r.chance(0.3)) =>
  hostile ? r.pick(writePathNames) : r.pick(['a fresh file', 'an existing file', 'a unicode name with spaces']);

/** After a writer's call: no temp file; on success `check(bytes)`; on failure the target as it was. */
function checkWritten(h, label, dir, path, entry, result, check) {
  const left = tempsLeft(dir);
  if (left.length > 0) h.problem(`${label}: a temp file was left: ${left.join(', ')}`);
  if (entry.bad || entry.fs) return;
  if (result.ok) {
    if (!existsSync(path)) h.problem(`${label}: succeeded but wrote no file`);
    else check(readFileSync(path));
  } else if (entry.old !== undefined) {
    if (readFileSync(path, 'utf8') !== entry.old) h.problem(`${label}: the failed write changed the existing file`);
  } else if (existsSync(path)) h.problem(`${label}: the failed write left a file at the target`);
}

// ---- sliceOf ----------------------------------------------------------------------------------

/** Fields of sliceOf: vtiArrays' hostile containers and a few multi-component ones. */
const sliceFields = {
  ...vtiArrays,
  'Float32Array of 180': () => new Float32Array(180),
  'Float64Array of 180': () => new Float64Array(180),
  'Int16Array of 180': () => new Int16Array(180),
};
const goodSliceFields = ['Float64Array of 60', 'SharedArrayBuffer-backed', 'subarray at offset 1'];
const goodSliceFields3 = ['Float32Array of 180', 'Float64Array of 180', 'Int16Array of 180'];

/** Fills a live numeric typed array with distinct small values (negative ones wrap in unsigned arrays). */
function fillField(a) {
  if (!ArrayBuffer.isView(a) || a instanceof DataView || a.byteLength === 0) return;
  if (a instanceof BigInt64Array || a instanceof BigUint64Array) return;
  for (let i = 0; i < a.length; i++) a[i] = ((i * 7) % 13) - 4;
}

/** Shapes of sliceOf: `dims` of a valid one; `bad` the argument its refusal names. */
const sliceShapes = {
  '[3, 4, 5]': { v: () => [3, 4, 5], dims: [3, 4, 5] },
  '[5, 4, 3]': { v: () => [5, 4, 3], dims: [5, 4, 3] },
  '[60, 1, 1]': { v: () => [60, 1, 1], dims: [60, 1, 1] },
  'Int32Array [3, 4, 5]': { v: () => Int32Array.of(3, 4, 5), dims: [3, 4, 5] },
  '[3, 4, 6]': { v: () => [3, 4, 6], bad: 'field' },
  '[3, 4, 5.5]': { v: () => [3, 4, 5.5], bad: 'shape' },
  '[-3, 4, 5]': { v: () => [-3, 4, 5], bad: 'shape' },
  '[0, 4, 5]': { v: () => [0, 4, 5], bad: 'shape' },
  '[3, 4]': { v: () => [3, 4], bad: 'shape' },
  '[NaN, 4, 5]': { v: () => [Number.NaN, 4, 5], bad: 'shape' },
  '[2**20, 2**20, 2**20]': { v: () => [2 ** 20, 2 ** 20, 2 ** 20], bad: 'shape' },
  "['3', 4, 5]": { v: () => ['3', 4, 5], bad: 'shape' },
  "'3,4,5'": { v: () => '3,4,5', bad: 'shape' },
  null: { v: () => null, bad: 'shape' },
};

/** Axis values: `axis` the one a valid value means. */
const sliceAxes = {
  0: { v: () => 0, axis: 0 },
  1: { v: () => 1, axis: 1 },
  2: { v: () => 2, axis: 2 },
  "'x'": { v: () => 'x', axis: 0 },
  "'y'": { v: () => 'y', axis: 1 },
  "'z'": { v: () => 'z', axis: 2 },
  '-0': { v: () => -0, axis: 0 },
  "'w'": { v: () => 'w', bad: 'axis' },
  "'X'": { v: () => 'X', bad: 'axis' },
  '-1': { v: () => -1, bad: 'axis' },
  3: { v: () => 3, bad: 'axis' },
  1.5: { v: () => 1.5, bad: 'axis' },
  NaN: { v: () => Number.NaN, bad: 'axis' },
  "'1'": { v: () => '1', bad: 'axis' },
  "'toString'": { v: () => 'toString', bad: 'axis' },
  "'__proto__'": { v: () => '__proto__', bad: 'axis' },
  true: { v: () => true, bad: 'axis' },
  undefined: { v: () => undefined, bad: 'axis' },
};
const validAxes = Object.keys(sliceAxes).filter((k) => sliceAxes[k].bad === undefined);

/** Index values, given the length `n` along the axis. */
const sliceIndices = {
  0: { v: () => 0 },
  '-0': { v: () => -0 },
  middle: { v: (n) => Math.floor(n / 2) },
  last: { v: (n) => n - 1 },
  'last + 1': { v: (n) => n, bad: 'index' },
  '-1': { v: () => -1, bad: 'index' },
  1.5: { v: () => 1.5, bad: 'index' },
  NaN: { v: () => Number.NaN, bad: 'index' },
  Infinity: { v: () => Number.POSITIVE_INFINITY, bad: 'index' },
  '2**53': { v: () => 2 ** 53, bad: 'index' },
  "'0'": { v: () => '0', bad: 'index' },
  undefined: { v: () => undefined, bad: 'index' },
};
const validIndices = ['0', '-0', 'middle', 'last'];

/** Components for a field of 60 values (one per voxel). */
const sliceComponents = {
  undefined: { v: () => undefined },
  1: { v: () => 1 },
  2: { v: () => 2, bad: 'field' },
  3: { v: () => 3, bad: 'field' },
  0: { v: () => 0, bad: 'components' },
  '-1': { v: () => -1, bad: 'components' },
  1.5: { v: () => 1.5, bad: 'components' },
  NaN: { v: () => Number.NaN, bad: 'components' },
  4097: { v: () => 4097, bad: 'components' },
  "'1'": { v: () => '1', bad: 'components' },
  null: { v: () => null, bad: 'components' },
};
const sliceMagnitudes = {
  undefined: { v: () => undefined },
  true: { v: () => true },
  false: { v: () => false },
  "'yes'": { v: () => 'yes', bad: 'magnitude' },
  1: { v: () => 1, bad: 'magnitude' },
  null: { v: () => null, bad: 'magnitude' },
};
/** `component` for a field of 3 components. */
const sliceComponentValues = {
  undefined: { v: () => undefined },
  0: { v: () => 0 },
  1: { v: () => 1 },
  2: { v: () => 2 },
  3: { v: () => 3, bad: 'component' },
  '-1': { v: () => -1, bad: 'component' },
  1.5: { v: () => 1.5, bad: 'component' },
  NaN: { v: () => Number.NaN, bad: 'component' },
  "'0'": { v: () => '0', bad: 'component' },
  null: { v: () => null, bad: 'component' },
  'undefined, magnitude false': { v: () => undefined, bad: 'component' },
};
const sliceOptionValues = { null: null, 5: 5, undefined: undefined, '[]': [], "'z'": 'z' };

const sliceParts = [
  'valid',
  'valid, 3 components',
  'field',
  'shape',
  'axis',
  'index',
  'components',
  'magnitude',
  'component',
  'options',
];

function slicePlan(r) {
  const part = r.member(sliceParts);
  const plan = {
    part,
    field: r.pick(goodSliceFields),
    shape: r.pick(['[3, 4, 5]', '[3, 4, 5]', '[5, 4, 3]', '[60, 1, 1]', 'Int32Array [3, 4, 5]']),
    axis: r.pick(validAxes),
    index: r.pick(validIndices),
    components: r.pick(['undefined', '1']),
    magnitude: r.pick(['undefined', 'true', 'false']),
    component: r.pick(['undefined', 'undefined', '0']),
    options: 'object',
  };
  const hostile = (table) => r.pick(Object.keys(table).filter((k) => table[k].bad !== undefined));
  if (part === 'valid, 3 components' || part === 'component') {
    plan.field = r.pick(goodSliceFields3);
    plan.components = '3';
    plan.component = r.pick(['undefined', '0', '1', '2']);
    if (plan.magnitude === 'false' && plan.component === 'undefined') plan.component = '1';
  }
  if (part === 'field') plan.field = r.pick(Object.keys(vtiArrays).filter((k) => !goodSliceFields.includes(k)));
  if (part === 'shape') plan.shape = r.pick(Object.keys(sliceShapes));
  if (part === 'axis') plan.axis = hostile(sliceAxes);
  if (part === 'index') plan.index = hostile(sliceIndices);
  if (part === 'components') plan.components = hostile(sliceComponents);
  if (part === 'magnitude') plan.magnitude = hostile(sliceMagnitudes);
  if (part === 'component') {
    plan.component = hostile(sliceComponentValues);
    if (plan.component === 'undefined, magnitude false') plan.magnitude = 'false';
  }
  if (part === 'options') plan.options = r.pick(Object.keys(sliceOptionValues));
  return plan;
}

async function sliceExec(plan, h, { io }) {
  const field = sliceFields[plan.field]();
  fillField(field);
  const shapeEntry = sliceShapes[plan.shape];
  const dims = shapeEntry.dims ?? [3, 4, 5];
  const axisEntry = sliceAxes[plan.axis];
  const a = axisEntry.axis ?? 0;
  const componentsEntry = goodSliceFields3.includes(plan.field) ? { v: () => 3 } : sliceComponents[plan.components];
  const componentEntry = sliceComponentValues[plan.component];
  const index = sliceIndices[plan.index].v(dims[a]);
  const components = componentsEntry.v();
  const magnitude = sliceMagnitudes[plan.magnitude].v();
  const component = componentEntry.v();
  const options =
    plan.options === 'object'
      ? { axis: axisEntry.v(), index, components, magnitude, component }
      : sliceOptionValues[plan.options];
  // The order sliceOf reads its arguments in: the first bad one is named.
  const goodField = goodSliceFields.includes(plan.field) || goodSliceFields3.includes(plan.field);
  const order = [
    goodField ? undefined : 'field',
    shapeEntry.bad === 'shape' ? 'shape' : undefined,
    plan.options === 'object' ? undefined : 'options',
    axisEntry.bad,
    sliceIndices[plan.index].bad,
    componentsEntry.bad === 'components' ? 'components' : undefined,
    sliceMagnitudes[plan.magnitude].bad,
    componentEntry.bad,
    components > 1 && magnitude === false && component === undefined ? 'component' : undefined,
    shapeEntry.bad === 'field' || componentsEntry.bad === 'field' ? 'field' : undefined,
  ];
  const first = order.find((x) => x !== undefined);
  const before = inputHash(field);
  const label = `sliceOf(${plan.field}, ${plan.shape}, { axis: ${plan.axis}, index: ${plan.index}, components: ${plan.components}, magnitude: ${plan.magnitude}, component: ${plan.component} }${plan.options === 'object' ? '' : ` → options ${plan.options}`})`;
  const result = await judge(h, label, () => io.sliceOf(field, shapeEntry.v(), options), {
    roots: first === undefined ? [] : [first],
  });
  if (inputHash(field) !== before) h.problem(`${label}: changed its field`);
  if (!result.ok) return;
  const { data, width, height } = result.value;
  const [uAxis, vAxis] = [0, 1, 2].filter((x) => x !== a);
  if (!(data instanceof Float64Array) || width !== dims[uAxis] || height !== dims[vAxis]) {
    h.problem(`${label}: a ${data?.constructor?.name} slice of ${width} × ${height}`);
    return;
  }
  if (width * height !== data.length) h.problem(`${label}: ${width} × ${height} but ${data.length} values`);
  // The plain loop: voxel (i, j, k) with the fixed axis at `index`, u across, v down.
  const c = components ?? 1;
  const [, n1, n2] = dims;
  for (let v = 0; v < height; v++) {
    for (let u = 0; u < width; u++) {
      const ijk = [0, 0, 0];
      ijk[a] = index;
      ijk[uAxis] = u;
      ijk[vAxis] = v;
      const at = ((ijk[0] * n1 + ijk[1]) * n2 + ijk[2]) * c;
      let expected;
      if (c === 1) expected = field[at];
      else if (component !== undefined) expected = field[at + component];
      else {
        let sum = 0;
        for (let q = 0; q < c; q++) sum += field[at + q] ** 2;
        expected = Math.sqrt(sum);
      }
      if (data[v * width + u] !== expected) {
        h.problem(`${label}: pixel (${u}, ${v}) is ${data[v * width + u]}, the field holds ${expected}`);
        return;
      }
    }
  }
}

// ---- writePng ---------------------------------------------------------------------------------

const pngBase = () => Float64Array.from({ length: 12 }, (_, i) => i * 0.5 - 1);
/** Data of a 4 × 3 (12 pixel) image; `bad` the argument its refusal names, `unsure` either end. */
const pngData = {
  Float64Array: { v: pngBase },
  'Float64Array with NaN and ±Infinity': {
    v: () => {
      const a = pngBase();
      a[2] = Number.NaN;
      a[5] = Number.POSITIVE_INFINITY;
      a[7] = Number.NEGATIVE_INFINITY;
      return a;
    },
  },
  'plain array': { v: () => Array.from(pngBase()) },
  Int16Array: { v: () => Int16Array.from(pngBase(), (x) => Math.round(x * 100)) },
  'SharedArrayBuffer-backed': { v: () => containers['SharedArrayBuffer-backed'](pngBase()) },
  'subarray at offset 1': { v: () => containers['subarray at offset 1'](pngBase()) },
  'Proxy of an array': { v: () => new Proxy(Array.from(pngBase()), {}) },
  '±1e308': { v: () => Float64Array.from({ length: 12 }, (_, i) => (i - 5.5) * 3e307) },
  'all NaN': { v: () => new Float64Array(12).fill(Number.NaN) },
  Uint8ClampedArray: { v: () => Uint8ClampedArray.from({ length: 12 }, (_, i) => i * 20), unsure: 'image.data' },
  'Float64Array of 11': { v: () => new Float64Array(11), bad: 'image.data' },
  'array of strings': { v: () => Array.from(pngBase(), String), bad: 'image.data' },
  'array with a hole': {
    v: () => {
      const a = Array.from(pngBase());
      delete a[4];
      return a;
    },
    bad: 'image.data',
  },
  DataView: { v: () => new DataView(pngBase().buffer), bad: 'image.data' },
  'detached Float64Array': { v: () => containers['detached Float64Array'](pngBase()), bad: 'image.data' },
  BigInt64Array: { v: () => new BigInt64Array(12), bad: 'image.data' },
  'Proxy of a Float64Array': { v: () => new Proxy(pngBase(), {}), bad: 'image.data' },
  '{ length: 12 } (array-like)': { v: () => ({ length: 12 }), bad: 'image.data' },
  'a string of 12 characters': { v: () => '0123456789ab', bad: 'image.data' },
  null: { v: () => null, bad: 'image.data' },
};
const validPngData = Object.keys(pngData).filter((k) => !pngData[k].bad && !pngData[k].unsure);
/** Width × height of 12 pixels, or worse. */
const pngSizes = {
  '4 × 3': { v: [4, 3] },
  '12 × 1': { v: [12, 1] },
  '1 × 12': { v: [1, 12] },
  '2 × 6': { v: [2, 6] },
  'width 0': { v: [0, 3], bad: 'image.width' },
  'width 1.5': { v: [1.5, 3], bad: 'image.width' },
  'width NaN': { v: [Number.NaN, 3], bad: 'image.width' },
  "width '4'": { v: ['4', 3], bad: 'image.width' },
  'width 2**31': { v: [2 ** 31, 1], bad: 'image.width' },
  'height -1': { v: [4, -1], bad: 'image.height' },
  'height undefined': { v: [4, undefined], bad: 'image.height' },
  '1e5 × 1e5 (memory)': { v: [1e5, 1e5], bad: 'image' },
  '(2**31 - 1)²': { v: [2 ** 31 - 1, 2 ** 31 - 1], bad: 'image' },
};
const pngColormaps = {
  undefined: { v: undefined },
  "'viridis'": { v: 'viridis' },
  "'gray'": { v: 'gray' },
  "'jet'": { v: 'jet', bad: 'colormap' },
  "'GRAY'": { v: 'GRAY', bad: 'colormap' },
  null: { v: null, bad: 'colormap' },
  5: { v: 5, bad: 'colormap' },
};
const pngRanges = {
  undefined: { v: () => undefined },
  '[0, 1]': { v: () => [0, 1] },
  '[-1, 5]': { v: () => [-1, 5] },
  '[2, 2]': { v: () => [2, 2] },
  '[-1e308, 1e308]': { v: () => [-1e308, 1e308] },
  '[-1.7e308, 1.7e308]': { v: () => [-1.7e308, 1.7e308] },
  '[1, 0]': { v: () => [1, 0], bad: 'range' },
  '[NaN, 1]': { v: () => [Number.NaN, 1], bad: 'range' },
  '[0, Infinity]': { v: () => [0, Number.POSITIVE_INFINITY], bad: 'range' },
  "['0', 1]": { v: () => ['0', 1], bad: 'range' },
  '[0]': { v: () => [0], bad: 'range' },
  '[0, 1, 2]': { v: () => [0, 1, 2], bad: 'range' },
  'Float64Array [0, 1]': { v: () => Float64Array.of(0, 1), unsure: 'range' },
  null: { v: () => null, bad: 'range' },
};
const pngMasks = {
  undefined: { v: () => undefined },
  zeros: { v: () => new Uint8Array(12) },
  'every third': { v: () => Uint8Array.from({ length: 12 }, (_, i) => (i % 3 === 0 ? 1 : 0)) },
  'all 255': { v: () => new Uint8Array(12).fill(255) },
  'a Buffer': { v: () => Buffer.from([0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1]) },
  'Uint8Array of 11': { v: () => new Uint8Array(11), bad: 'mask' },
  Float64Array: { v: () => new Float64Array(12), bad: 'mask' },
  Uint8ClampedArray: { v: () => new Uint8ClampedArray(12), bad: 'mask' },
  'plain array': { v: () => new Array(12).fill(0), bad: 'mask' },
  'detached Uint8Array': {
    v: () => detached(new Uint8Array(12)),
    bad: 'mask',
  },
  'Proxy of a Uint8Array': { v: () => new Proxy(new Uint8Array(12), {}), bad: 'mask' },
  null: { v: () => null, bad: 'mask' },
};
const pngMaskColors = {
  undefined: { v: () => undefined },
  '[255, 0, 0]': { v: () => [255, 0, 0] },
  '[0, 0, 0]': { v: () => [0, 0, 0] },
  '[256, 0, 0]': { v: () => [256, 0, 0], bad: 'maskColor' },
  '[-1, 0, 0]': { v: () => [-1, 0, 0], bad: 'maskColor' },
  '[1.5, 0, 0]': { v: () => [1.5, 0, 0], bad: 'maskColor' },
  '[1, 2]': { v: () => [1, 2], bad: 'maskColor' },
  "['255', 0, 0]": { v: () => ['255', 0, 0], bad: 'maskColor' },
  'Uint8Array [1, 2, 3]': { v: () => Uint8Array.of(1, 2, 3), bad: 'maskColor' },
  null: { v: () => null, bad: 'maskColor' },
};
const pngImages = { null: null, 5: 5, 'a Float64Array': new Float64Array(12), "'image'": 'image' };
const pngOptions = { null: null, 5: 5, '[]': [], "'gray'": 'gray' };

const pngParts = [
  'valid',
  'valid, gray',
  'data',
  'size',
  'image',
  'colormap',
  'range',
  'mask',
  'maskColor',
  'options',
  'path',
];

function pngPlan(r) {
  const part = r.member(pngParts);
  const valid = (table) => r.pick(Object.keys(table).filter((k) => !table[k].bad && !table[k].unsure));
  const hostile = (table) => r.pick(Object.keys(table).filter((k) => table[k].bad || table[k].unsure));
  const plan = {
    part,
    path: part === 'path' ? pickWritePath(r, true) : pickWritePath(r, false),
    data: r.pick(validPngData),
    size: r.chance(0.6) ? '4 × 3' : valid(pngSizes),
    image: 'object',
    colormap: part === 'valid, gray' ? "'gray'" : valid(pngColormaps),
    range: r.chance(0.5) ? 'undefined' : valid(pngRanges),
    mask: r.chance(0.5) ? 'undefined' : valid(pngMasks),
    maskColor: r.chance(0.5) ? 'undefined' : valid(pngMaskColors),
    options: r.chance(0.1) ? 'undefined' : 'object',
  };
  if (part === 'data') plan.data = hostile(pngData);
  if (part === 'size') plan.size = hostile(pngSizes);
  if (part === 'image') plan.image = r.pick(Object.keys(pngImages));
  if (part === 'colormap') plan.colormap = hostile(pngColormaps);
  if (part === 'range') plan.range = hostile(pngRanges);
  if (part === 'mask') plan.mask = hostile(pngMasks);
  if (part === 'maskColor') plan.maskColor = hostile(pngMaskColors);
  if (['colormap', 'range', 'mask', 'maskColor'].includes(part)) plan.options = 'object';
  if (part === 'options') plan.options = r.pick(Object.keys(pngOptions));
  return plan;
}

/** The PNG's IHDR and its pixels when every row is unfiltered (as fast-png writes them), else undefined. */
function readPng(bytes) {
  let at = 8;
  const idat = [];
  let ihdr;
  while (at + 8 <= bytes.length) {
    const length = bytes.readUInt32BE(at);
    const type = bytes.toString('latin1', at + 4, at + 8);
    const data = bytes.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') {
      ihdr = { width: data.readUInt32BE(0), height: data.readUInt32BE(4), depth: data[8], colorType: data[9] };
    } else if (type === 'IDAT') idat.push(data);
    else if (type === 'IEND') break;
    at += 12 + length;
  }
  return { ihdr, idat: Buffer.concat(idat) };
}

const viridisEnds = [
  [68, 1, 84],
  [253, 231, 37],
];

async function pngExec(plan, h, { io }) {
  const { unzlibSync } = await import('fflate');
  await withTempDir(async (dir) => {
    const pathEntry = writePaths[plan.path];
    const path = pathEntry.v(dir, 'slice.png');
    const dataEntry = pngData[plan.data];
    const sizeEntry = pngSizes[plan.size];
    const data = dataEntry.v();
    const [width, height] = sizeEntry.v;
    const image = plan.image === 'object' ? { data, width, height } : pngImages[plan.image];
    const entries = {
      colormap: pngColormaps[plan.colormap],
      range: pngRanges[plan.range],
      mask: pngMasks[plan.mask],
      maskColor: pngMaskColors[plan.maskColor],
    };
    const colormap = entries.colormap.v;
    const range = entries.range.v();
    const mask = entries.mask.v();
    const maskColor = entries.maskColor.v();
    const options =
      plan.options === 'object'
        ? { colormap, range, mask, maskColor }
        : plan.options === 'undefined'
          ? undefined
          : pngOptions[plan.options];
    // writePng reads the path, the image, the options; one part at most is hostile.
    const hostile = [
      pathEntry.bad ? 'path' : undefined,
      plan.image === 'object' ? undefined : 'image',
      sizeEntry.bad,
      dataEntry.bad ?? dataEntry.unsure,
      plan.options === 'object' || plan.options === 'undefined' ? undefined : 'options',
      ...Object.values(entries).map((e) => e.bad ?? e.unsure),
    ].find((x) => x !== undefined);
    const unsure = dataEntry.unsure !== undefined || entries.range.unsure !== undefined;
    const label = `writePng(${plan.path}, { data: ${plan.data}, ${plan.size}${plan.image === 'object' ? '' : ` → image ${plan.image}`} }, ${plan.options === 'object' ? `{ colormap: ${plan.colormap}, range: ${plan.range}, mask: ${plan.mask}, maskColor: ${plan.maskColor} }` : plan.options})`;
    const before = inputHash(data);
    const result = await judge(h, label, () => io.writePng(path, image, options), {
      roots: hostile === undefined ? [] : [hostile],
      fs: pathEntry.fs === true,
      unsure,
    });
    if (inputHash(data) !== before) h.problem(`${label}: changed its data`);
    checkWritten(h, label, dir, path, pathEntry, result, (bytes) => {
      const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
      if (!bytes.subarray(0, 8).equals(signature)) return h.problem(`${label}: the file has no PNG signature`);
      const { ihdr, idat } = readPng(bytes);
      if (ihdr?.width !== width || ihdr?.height !== height || ihdr?.depth !== 8 || ihdr?.colorType !== 2) {
        return h.problem(`${label}: IHDR ${JSON.stringify(ihdr)}, expected an 8-bit RGB ${width} × ${height}`);
      }
      let raw;
      try {
        raw = unzlibSync(idat);
      } catch (e) {
        return h.problem(`${label}: the image data does not inflate (${e?.message})`);
      }
      const row = 1 + 3 * width;
      if (raw.length !== row * height)
        return h.problem(`${label}: ${raw.length} bytes of pixels, expected ${row * height}`);
      for (let v = 0; v < height; v++) if (raw[v * row] !== 0) return; // a filtered row: not checked here
      checkPixels(
        h,
        label,
        (i) => {
          const at = Math.floor(i / width) * row + 1 + 3 * (i % width);
          return [raw[at], raw[at + 1], raw[at + 2]];
        },
        Array.from(data, Number),
        options ?? {},
      );
    });
  });
}

/** Pixels against the documented mapping: masked and NaN in maskColor; gray = 255 t; viridis' ends. */
function checkPixels(h, label, pixel, values, { colormap = 'viridis', range, mask, maskColor }) {
  const gray = colormap === 'gray';
  const maskRgb = maskColor ?? (gray ? [0, 0, 0] : [128, 128, 128]);
  const unmasked = (i) => !(mask !== undefined && mask[i] !== 0) && !Number.isNaN(values[i]);
  let lo;
  let hi;
  if (range) [lo, hi] = range;
  else {
    const finite = values.filter((x, i) => unmasked(i) && Number.isFinite(x));
    [lo, hi] = finite.length > 0 ? [Math.min(...finite), Math.max(...finite)] : [0, 1];
  }
  for (let i = 0; i < values.length; i++) {
    const got = pixel(i);
    const x = values[i];
    if (!unmasked(i)) {
      if (got.some((c, k) => c !== maskRgb[k]))
        return h.problem(`${label}: pixel ${i} is ${got}, not the mask colour ${maskRgb}`);
      continue;
    }
    let t;
    if (hi > lo) t = Math.min(1, Math.max(0, (x / 2 - lo / 2) / (hi / 2 - lo / 2)));
    else if (x === lo)
      continue; // a range of one value: its own value may take either end
    else t = x > lo ? 1 : 0;
    if (gray) {
      const g = Math.round(255 * t);
      if (got.some((c) => Math.abs(c - g) > 1))
        return h.problem(`${label}: pixel ${i} (${x}) is ${got}, expected gray ${g}`);
    } else if (t === 0 || t === 1) {
      const end = viridisEnds[t];
      if (got.some((c, k) => c !== end[k]))
        return h.problem(`${label}: pixel ${i} (${x}) is ${got}, expected viridis(${t}) = ${end}`);
    }
  }
}

// ---- readImage --------------------------------------------------------------------------------

/** Files for readImage: `kind` the reader the extension picks. */
const imageFiles = {
  "'image.raw'": { name: 'image.raw', kind: 'raw' },
  "'image.bin'": { name: 'image.bin', kind: 'raw' },
  "'image.npy'": { name: 'image.npy', kind: 'npy' },
  "'image.npz'": { name: 'image.npz', kind: 'npz' },
  "'stack.tif'": { name: 'stack.tif', kind: 'tiff' },
  "'stack.tiff'": { name: 'stack.tiff', kind: 'tiff' },
  "'STACK.TIF'": { name: 'STACK.TIF', kind: 'tiff' },
  "'image.png' (unknown extension)": { name: 'image.png', kind: 'raw', unknown: true },
  "'image' (no extension)": { name: 'image', kind: 'raw', unknown: true },
  "'.npy' (a dot file)": { name: '.npy', kind: 'npy', unknown: true },
  "a directory 'dir.raw'": { name: 'dir.raw', kind: 'raw', state: 'dir' },
  "a missing 'gone.npy'": { name: 'gone.npy', kind: 'npy', state: 'missing' },
  "''": { value: '' },
  "'a\\0.raw'": { value: 'a\0.raw' },
  5: { value: 5 },
};

/**
 * Options for readImage: `early` the argument a reader refuses before it opens the file,
 * `late` after (a string: every reader; an object: per reader kind).
 */
const imageOptions = {
  '{ shape: [3, 4, 5], voxelSize: 1e-6 }': { v: () => ({ shape: [3, 4, 5], voxelSize: 1e-6 }) },
  "{ ..., solid: 'zero' }": { v: () => ({ shape: [3, 4, 5], voxelSize: 1e-6, solid: 'zero' }), zero: true },
  '{ voxelSize: 1e-6 } (no shape)': { v: () => ({ voxelSize: 1e-6 }), early: { raw: 'shape' } },
  '{ shape: [3, 4, 6], ... }': { v: () => ({ shape: [3, 4, 6], voxelSize: 1e-6 }), late: { raw: 'shape' } },
  "{ ..., dtype: 'int16' }": {
    v: () => ({ shape: [3, 4, 5], voxelSize: 1e-6, dtype: 'int16' }),
    late: { raw: 'shape' },
  },
  "{ ..., key: 'im' }": { v: () => ({ shape: [3, 4, 5], voxelSize: 1e-6, key: 'im' }), early: { npy: 'key' } },
  "{ ..., key: 'other' }": {
    v: () => ({ shape: [3, 4, 5], voxelSize: 1e-6, key: 'other' }),
    early: { npy: 'key' },
    late: { npz: 'key' },
  },
  "{ ..., key: '' }": { v: () => ({ shape: [3, 4, 5], voxelSize: 1e-6, key: '' }), early: { npy: 'key', npz: 'key' } },
  '{ ..., voxelSize: NaN }': { v: () => ({ shape: [3, 4, 5], voxelSize: Number.NaN }), early: 'voxelSize' },
  "{ ..., solid: 'pore' }": { v: () => ({ shape: [3, 4, 5], voxelSize: 1e-6, solid: 'pore' }), early: 'solid' },
  null: { v: () => null, early: 'options' },
  undefined: { v: () => undefined, early: 'options' },
  5: { v: () => 5, early: 'options' },
};
const perKind = (spec, kind) => (typeof spec === 'string' ? spec : spec?.[kind]);

/** The image each valid file holds (`solid` under the default rule). */
function expectedImage(kind) {
  if (kind === 'tiff') {
    return {
      shape: [2, 3, 4],
      solid: Uint8Array.from({ length: 24 }, (_, i) => ((i % 12) + Math.floor(i / 12)) % 3 !== 0),
    };
  }
  return { shape: [3, 4, 5], solid: new Uint8Array(60).fill(1) };
}

async function readImageExec(plan, h, { io }) {
  const { zipSync } = await import('fflate');
  await withTempDir(async (dir) => {
    const f = imageFiles[plan.file];
    let path = f.value;
    if (path === undefined) {
      path = join(dir, f.name);
      const npy = npyBytes('valid').bytes;
      if (f.state === 'dir') mkdirSync(path);
      else if (f.state !== 'missing') {
        const bytes = {
          raw: Buffer.alloc(60, 1),
          npy,
          npz: Buffer.from(zipSync({ 'im.npy': new Uint8Array(npy) })),
          tiff: tiffBytes(),
        }[f.kind];
        writeFileSync(path, bytes);
      }
    }
    const o = imageOptions[plan.options];
    let roots = [];
    let fs = false;
    if (f.value !== undefined || f.unknown) roots = ['path'];
    else if (perKind(o.early, f.kind)) roots = [perKind(o.early, f.kind)];
    else if (f.state === 'dir') roots = ['path'];
    else if (f.state === 'missing') fs = true;
    else if (perKind(o.late, f.kind)) roots = [perKind(o.late, f.kind)];
    const label = `readImage(${plan.file}, ${plan.options})`;
    const result = await judge(h, label, () => io.readImage(path, o.v()), { roots, fs });
    if (!result.ok) return;
    const { shape, solid } = expectedImage(f.kind);
    const got = result.value;
    const want = o.zero ? solid.map((x) => 1 - x) : solid;
    if (
      JSON.stringify(Array.from(got.shape)) !== JSON.stringify(shape) ||
      !(got.solid instanceof Uint8Array) ||
      got.solid.length !== want.length ||
      got.solid.some((x, i) => x !== want[i]) ||
      got.voxelSize !== 1e-6
    ) {
      h.problem(`${label}: read shape ${got.shape}, ${got.solid?.length} voxels, not the file's image`);
    }
  });
}

// ---- readPath ---------------------------------------------------------------------------------

const pathValues = {
  "'image.raw'": { v: () => 'image.raw' },
  "'/abs/dir/file'": { v: () => '/abs/dir/file' },
  "' ' (a space)": { v: () => ' ' },
  "'ü n ï ✓'": { v: () => 'ü n ï ✓' },
  '5000 characters': { v: () => 'p'.repeat(5000) },
  "''": { v: () => '', bad: true },
  "'a\\0b'": { v: () => 'a\0b', bad: true },
  "'\\0'": { v: () => '\0', bad: true },
  5: { v: () => 5, bad: true },
  undefined: { v: () => undefined, bad: true },
  null: { v: () => null, bad: true },
  'a Buffer': { v: () => Buffer.from('image.raw'), bad: true },
  'a file: URL': { v: () => pathToFileURL('/tmp/image.raw'), bad: true },
  'a String object': { v: () => Object('image.raw'), bad: true },
  'Symbol()': { v: () => Symbol('path'), bad: true },
};
const pathArguments = { undefined: undefined, "'file'": 'file', "'options.out'": 'options.out' };

// ---- writeAtomically, writeAtomicallySync ------------------------------------------------------

const atomicCases = [
  'writeAtomically: writes',
  'writeAtomically: writes in two steps',
  'writeAtomically: throws',
  'writeAtomically: rejects',
  'writeAtomically: writes, then throws',
  'writeAtomically: writes nothing',
  'writeAtomically: writes, then deletes',
  'writeAtomically: not a function',
  'writeAtomicallySync: writes',
  'writeAtomicallySync: writes, then throws',
  'writeAtomicallySync: returns a promise',
  'writeAtomicallySync: writes nothing',
  'writeAtomicallySync: writes, then deletes',
  'writeAtomicallySync: not a function',
];
const notFunctions = { undefined: undefined, null: null, "'write'": 'write', '{}': {}, 'a Promise': Promise.resolve() };

async function atomicExec(plan, h, { io }) {
  const [member, how] = plan.case.split(': ');
  const sync = member === 'writeAtomicallySync';
  const content = `written by case ${plan.case} ${'·'.repeat(100)}\n`;
  const failure = new Error('the writer failed');
  let pending;
  const writers = {
    writes: sync ? (t) => writeFileSync(t, content) : (t) => writeFile(t, content),
    'writes in two steps': async (t) => {
      const handle = await open(t, 'w');
      try {
        await handle.write(content.slice(0, 10));
        await new Promise((resolve) => setTimeout(resolve, 2));
        await handle.write(content.slice(10));
      } finally {
        await handle.close();
      }
    },
    throws: () => {
      throw failure;
    },
    rejects: () => Promise.reject(failure),
    'writes, then throws': sync
      ? (t) => {
          writeFileSync(t, 'partial');
          throw failure;
        }
      : async (t) => {
          await writeFile(t, 'partial');
          throw failure;
        },
    'returns a promise': (t) => {
      pending = writeFile(t, content);
      return pending;
    },
    'writes nothing': () => {},
    'writes, then deletes': sync
      ? (t) => {
          writeFileSync(t, content);
          rmSync(t);
        }
      : async (t) => {
          await writeFile(t, content);
          await rm(t);
        },
  };
  await withTempDir(async (dir) => {
    const pathEntry = writePaths[plan.path];
    const path = pathEntry.v(dir, 'out.txt');
    const write = how === 'not a function' ? notFunctions[plan.write] : writers[how];
    let roots = [];
    if (pathEntry.bad) roots = ['path'];
    else if (how === 'not a function' || how === 'returns a promise') roots = ['write'];
    // The writer's own error ends the call as it is; a writer that leaves no temp file ends it in
    // the file system's ENOENT for the temp path (nothing to rename).
    const own = (e) => e === failure;
    const none = how === 'writes nothing' || how === 'writes, then deletes';
    const label = `${member}(${plan.path}, ${how === 'not a function' ? plan.write : `a writer that ${how}`})`;
    const result = await judge(h, label, () => io[member](path, write), {
      roots,
      fs: pathEntry.fs === true || none,
      allow: own,
      mustThrow: ['throws', 'rejects', 'writes, then throws'].includes(how)
        ? 'the writer failed'
        : none && roots.length === 0
          ? 'no temp file to rename'
          : undefined,
    });
    if (
      !result.ok &&
      none &&
      !pathEntry.bad &&
      !(fsError(result.error) && result.error.code === 'ENOENT') &&
      !pathEntry.fs
    ) {
      h.problem(`${label}: ended in ${result.error?.constructor?.name} ${result.error?.code ?? ''}, not ENOENT`);
    }
    if (result.value !== undefined) h.problem(`${label}: returned ${typeof result.value}, not undefined`);
    // A promise the synchronous form refused still runs: its temp file goes once it settles.
    if (pending !== undefined) {
      await pending.catch(() => {});
      for (let i = 0; i < 200 && tempsLeft(dir).length > 0; i++)
        await new Promise((resolve) => setTimeout(resolve, 10));
    }
    checkWritten(h, label, dir, path, pathEntry, result, (bytes) => {
      if (bytes.toString('utf8') !== content)
        h.problem(`${label}: the file holds ${bytes.length} bytes, not what was written`);
    });
  });
}

// ---- fromPoreSpy ------------------------------------------------------------------------------

const poreValues = (i) => [0, 1, 2, 0, -1, 0.5, -0][i % 7];
/** `im` of 60 voxels; `bad` the argument its refusal names. */
const poreSpyIms = {
  'Uint8Array of 0/1/2': { v: () => Uint8Array.from({ length: 60 }, (_, i) => i % 3) },
  'array of booleans': { v: () => Array.from({ length: 60 }, (_, i) => i % 4 === 0) },
  'array of numbers (-0, 0.5, -1)': { v: () => Array.from({ length: 60 }, (_, i) => poreValues(i)) },
  'Float64Array with -0 and ±Infinity': {
    v: () =>
      Float64Array.from(
        { length: 60 },
        (_, i) => [0, -0, Number.POSITIVE_INFINITY, 1e-300, Number.NEGATIVE_INFINITY][i % 5],
      ),
  },
  'SharedArrayBuffer-backed Uint8Array': {
    v: () => {
      const a = new Uint8Array(new SharedArrayBuffer(60));
      for (let i = 0; i < 60; i++) a[i] = i % 2;
      return a;
    },
  },
  'Proxy of an array': {
    v: () =>
      new Proxy(
        Array.from({ length: 60 }, (_, i) => i % 5 === 0),
        {},
      ),
  },
  'array with NaN': { v: () => Array.from({ length: 60 }, (_, i) => (i === 17 ? Number.NaN : 1)), element: true },
  'Float32Array with NaN': {
    v: () => Float32Array.from({ length: 60 }, (_, i) => (i === 59 ? Number.NaN : 0)),
    element: true,
  },
  BigInt64Array: { v: () => new BigInt64Array(60), bad: 'im' },
  'detached Uint8Array': {
    v: () => detached(new Uint8Array(60)),
    bad: 'im',
  },
  DataView: { v: () => new DataView(new ArrayBuffer(60)), bad: 'im' },
  'Uint8Array of 59': { v: () => new Uint8Array(59), mismatch: true },
  'Proxy of a Uint8Array': { v: () => new Proxy(new Uint8Array(60), {}), bad: 'im' },
  'array with a string, a null or a hole': {
    v: (r) => {
      const a = new Array(60).fill(0);
      const which = Math.floor(r.next() * 3);
      if (which === 0) a[30] = '0';
      else if (which === 1) a[30] = null;
      else delete a[30];
      return a;
    },
    element: true,
  },
  'null, a number or a string': { v: (r) => [null, 60, '0'.repeat(60)][Math.floor(r.next() * 3)], bad: 'im' },
};
const poreSpyShapes = {
  '[3, 4, 5]': { v: () => [3, 4, 5] },
  '[5, 4, 3]': { v: () => [5, 4, 3] },
  'Int32Array [60, 1, 1]': { v: () => Int32Array.of(60, 1, 1) },
  ...Object.fromEntries(
    Object.entries(sliceShapes)
      .filter(([, e]) => e.bad === 'shape')
      .map(([k, e]) => [k, { v: e.v, bad: 'shape' }]),
  ),
  '[3, 4, 6]': { v: () => [3, 4, 6], mismatch: true },
};

async function poreSpyExec(plan, h, { io, r }) {
  const imEntry = poreSpyIms[plan.im];
  const shapeEntry = poreSpyShapes[plan.shape];
  const im = imEntry.v(r);
  const voxelSize = numbers[plan.voxelSize]();
  const badSize = !(typeof voxelSize === 'number' && Number.isFinite(voxelSize) && voxelSize > 0);
  // fromPoreSpy reads the shape, the voxel size, im's container, its length, then its elements.
  let roots = [];
  if (shapeEntry.bad) roots = ['shape'];
  else if (badSize) roots = ['voxelSize'];
  else if (imEntry.bad) roots = ['im'];
  else if (shapeEntry.mismatch || imEntry.mismatch) roots = ['shape', 'im'];
  else if (imEntry.element) roots = ['im'];
  const before = inputHash(im);
  const label = `fromPoreSpy(${plan.im}, ${plan.shape}, ${plan.voxelSize})`;
  const shape = shapeEntry.v();
  const result = await judge(h, label, () => io.fromPoreSpy(im, shape, voxelSize), { roots });
  if (inputHash(im) !== before) h.problem(`${label}: changed im`);
  if (!result.ok) return;
  const { solid, shape: s, voxelSize: size } = result.value;
  if (!(solid instanceof Uint8Array) || solid === im || solid.length !== 60) {
    return h.problem(
      `${label}: solid is a ${solid?.constructor?.name} of ${solid?.length}, not a new Uint8Array of 60`,
    );
  }
  if (!Array.isArray(s) || s.length !== 3 || s.some((x, a) => x !== shape[a])) h.problem(`${label}: shape ${s}`);
  if (size !== voxelSize) h.problem(`${label}: voxelSize ${size}, given ${voxelSize}`);
  for (let i = 0; i < 60; i++) {
    const x = im[i];
    const want = x === 0 || x === false ? 1 : 0;
    if (solid[i] !== want) return h.problem(`${label}: solid[${i}] is ${solid[i]} for im ${String(x)}`);
  }
}

// ---- writeVtp ---------------------------------------------------------------------------------

const vtpPoints = () => Float64Array.from({ length: 12 }, (_, i) => (i * 0.37) % 1.3);
const vtpLines = () => Uint32Array.of(0, 1, 1, 2, 2, 3);
/** Points (4 unless said); `bad` the argument its refusal names. */
const vtpPointValues = {
  Float64Array: { v: vtpPoints },
  Float32Array: { v: () => Float32Array.from(vtpPoints()) },
  'SharedArrayBuffer-backed': { v: () => containers['SharedArrayBuffer-backed'](vtpPoints()) },
  'subarray at offset 1': { v: () => containers['subarray at offset 1'](vtpPoints()) },
  'Float64Array of 11': { v: () => new Float64Array(11), bad: 'points' },
  'with NaN': { v: () => Object.assign(vtpPoints(), { 4: Number.NaN }), bad: 'points' },
  'with Infinity': { v: () => Object.assign(vtpPoints(), { 11: Number.POSITIVE_INFINITY }), bad: 'points' },
  Int32Array: { v: () => new Int32Array(12), bad: 'points' },
  'plain array': { v: () => Array.from(vtpPoints()), bad: 'points' },
  DataView: { v: () => new DataView(vtpPoints().buffer), bad: 'points' },
  'detached Float64Array': { v: () => containers['detached Float64Array'](vtpPoints()), bad: 'points' },
  'Proxy of a Float64Array': { v: () => new Proxy(vtpPoints(), {}), bad: 'points' },
  null: { v: () => null, bad: 'points' },
  undefined: { v: () => undefined, bad: 'points' },
};
const vtpLineValues = {
  Uint32Array: { v: vtpLines },
  Int32Array: { v: () => Int32Array.from(vtpLines()) },
  'Uint32Array of 5': { v: () => Uint32Array.of(0, 1, 1, 2, 2), bad: 'lines' },
  'index 4 (= points)': { v: () => Uint32Array.of(0, 1, 1, 2, 2, 4), bad: 'lines' },
  'Int32Array with -1': { v: () => Int32Array.of(0, 1, 1, 2, -1, 3), bad: 'lines' },
  'index 2**32 - 1': { v: () => Uint32Array.of(0, 1, 1, 2, 2, 2 ** 32 - 1), bad: 'lines' },
  Float64Array: { v: () => Float64Array.from(vtpLines()), bad: 'lines' },
  Uint16Array: { v: () => Uint16Array.from(vtpLines()), bad: 'lines' },
  'plain array': { v: () => Array.from(vtpLines()), bad: 'lines' },
  'detached Uint32Array': {
    v: () => detached(vtpLines()),
    bad: 'lines',
  },
  'Proxy of a Uint32Array': { v: () => new Proxy(vtpLines(), {}), bad: 'lines' },
  null: { v: () => null, bad: 'lines' },
};
/** Arrays over `n` tuples (4 points, 3 lines); `bad` the argument under `pointData`/`cellData` its refusal names. */
const vtpArrayValues = {
  '{ a: Float64Array(n) }': { v: (n) => ({ a: Float64Array.from({ length: n }, (_, i) => i / 3) }) },
  '{ a: Uint8Array(n), b: Int16Array(n) }': { v: (n) => ({ a: new Uint8Array(n).fill(7), b: new Int16Array(n) }) },
  '{ v: { values: Float32Array(3n), components: 3 } }': {
    v: (n) => ({ v: { values: new Float32Array(3 * n).fill(0.25), components: 3 } }),
  },
  "{ 'a<&>\"': Int32Array(n) }": { v: (n) => ({ 'a<&>"': new Int32Array(n) }) },
  '{}': { v: () => ({}) },
  '{ a: Float64Array(n + 1) }': { v: (n) => ({ a: new Float64Array(n + 1) }), bad: '.a' },
  "{ '': Float64Array(n) }": { v: (n) => ({ '': new Float64Array(n) }), bad: '' },
  '{ a: null }': { v: () => ({ a: null }), bad: '.a' },
  '{ a: plain array }': { v: (n) => ({ a: new Array(n).fill(0) }), bad: '.a' },
  '{ a: BigInt64Array(n) }': { v: (n) => ({ a: new BigInt64Array(n) }), bad: '.a' },
  '{ a: DataView }': { v: (n) => ({ a: new DataView(new ArrayBuffer(8 * n)) }), bad: '.a' },
  '{ a: { values, components: 0 } }': { v: (n) => ({ a: { values: new Float64Array(n), components: 0 } }), bad: '.a' },
  '{ a: Proxy of a Float64Array }': { v: (n) => ({ a: new Proxy(new Float64Array(n), {}) }), bad: '.a' },
  'a Float64Array': { v: (n) => new Float64Array(n), bad: '' },
  null: { v: () => null, bad: '' },
};
const vtpVerts = {
  undefined: { v: undefined },
  true: { v: true },
  false: { v: false },
  "'yes'": { v: 'yes', bad: 'verts' },
  1: { v: 1, bad: 'verts' },
  null: { v: null, bad: 'verts' },
};
const vtpOptions = { null: null, 5: 5, '[]': [], undefined: undefined };

const vtpParts = [
  'valid',
  'valid, no verts',
  'valid, no lines',
  'valid, no points',
  'points',
  'lines',
  'verts',
  'pointData',
  'cellData',
  'options',
  'path',
];

/** `polys` of writeVtp over the 4 corners of a square: `bad` names the argument refused. */
const vtpPolys = {
  undefined: { v: () => undefined },
  'a quad': { v: () => ({ connectivity: Uint32Array.of(0, 1, 2, 3), offsets: Uint32Array.of(4) }), polygons: 1 },
  'two triangles': {
    v: () => ({ connectivity: Int32Array.of(0, 1, 2, 0, 2, 3), offsets: Int32Array.of(3, 6) }),
    polygons: 2,
  },
  'a point past the end': {
    v: () => ({ connectivity: Uint32Array.of(0, 1, 4), offsets: Uint32Array.of(3) }),
    bad: 'polys.connectivity',
  },
  'a negative index': {
    v: () => ({ connectivity: Int32Array.of(0, -1, 2), offsets: Int32Array.of(3) }),
    bad: 'polys.connectivity',
  },
  'a polygon of 2 points': {
    v: () => ({ connectivity: Uint32Array.of(0, 1, 2, 3), offsets: Uint32Array.of(2, 4) }),
    bad: 'polys.offsets',
  },
  'offsets short of the end': {
    v: () => ({ connectivity: Uint32Array.of(0, 1, 2, 3), offsets: Uint32Array.of(3) }),
    bad: 'polys.offsets',
  },
  'offsets past the end': {
    v: () => ({ connectivity: Uint32Array.of(0, 1, 2), offsets: Uint32Array.of(4) }),
    bad: 'polys.offsets',
  },
  'Float64Array connectivity': {
    v: () => ({ connectivity: Float64Array.of(0, 1, 2), offsets: Uint32Array.of(3) }),
    bad: 'polys.connectivity',
  },
  'no offsets': { v: () => ({ connectivity: Uint32Array.of(0, 1, 2) }), bad: 'polys.offsets' },
  'an unknown key': {
    v: () => ({ connectivity: Uint32Array.of(0, 1, 2), offsets: Uint32Array.of(3), sizes: 1 }),
    bad: 'polys',
  },
  'a number': { v: () => 3, bad: 'polys' },
};

function vtpPlan(r) {
  const part = r.member(vtpParts);
  const valid = (table) => r.pick(Object.keys(table).filter((k) => !table[k].bad));
  const hostile = (table) => r.pick(Object.keys(table).filter((k) => table[k].bad !== undefined));
  const plan = {
    part,
    path: part === 'path' ? pickWritePath(r, true) : pickWritePath(r, false),
    points: r.chance(0.6) ? 'Float64Array' : valid(vtpPointValues),
    lines: r.chance(0.6) ? 'Uint32Array' : valid(vtpLineValues),
    verts: part === 'valid, no verts' ? 'false' : valid(vtpVerts),
    pointData: r.chance(0.3) ? 'undefined' : valid(vtpArrayValues),
    cellData: r.chance(0.3) ? 'undefined' : valid(vtpArrayValues),
    options: 'object',
  };
  if (part === 'valid, no lines') {
    plan.lines = 'undefined';
    plan.cellData = r.pick(['undefined', '{}']);
  }
  if (part === 'valid, no points') {
    plan.points = 'empty';
    plan.lines = 'undefined';
    plan.pointData = r.pick(['undefined', '{ a: Float64Array(n) }']);
    plan.cellData = 'undefined';
  }
  if (part === 'points') plan.points = hostile(vtpPointValues);
  if (part === 'lines') plan.lines = hostile(vtpLineValues);
  if (part === 'verts') plan.verts = hostile(vtpVerts);
  if (part === 'pointData') plan.pointData = hostile(vtpArrayValues);
  if (part === 'cellData') plan.cellData = hostile(vtpArrayValues);
  if (part === 'options') plan.options = r.pick(Object.keys(vtpOptions));
  return plan;
}

async function vtpExec(plan, h, { io }) {
  await withTempDir(async (dir) => {
    const pathEntry = writePaths[plan.path];
    const path = pathEntry.v(dir, 'network.vtp');
    const pointsEntry = plan.points === 'empty' ? { v: () => new Float64Array(0) } : vtpPointValues[plan.points];
    const linesEntry = plan.lines === 'undefined' ? { v: () => undefined } : vtpLineValues[plan.lines];
    const pointDataEntry = plan.pointData === 'undefined' ? { v: () => undefined } : vtpArrayValues[plan.pointData];
    const cellDataEntry = plan.cellData === 'undefined' ? { v: () => undefined } : vtpArrayValues[plan.cellData];
    const points = pointsEntry.v();
    const lines = linesEntry.v();
    const n = plan.points === 'empty' ? 0 : 4;
    const m = lines === undefined ? 0 : 3;
    const options =
      plan.options === 'object'
        ? { points, lines, verts: vtpVerts[plan.verts].v, pointData: pointDataEntry.v(n), cellData: cellDataEntry.v(m) }
        : vtpOptions[plan.options];
    // writeVtp reads the path, the options, points, lines, verts, pointData, cellData.
    const named = (root, e) => (e.bad === undefined ? undefined : `${root}${e.bad}`);
    const first = [
      pathEntry.bad ? 'path' : undefined,
      plan.options === 'object' ? undefined : 'options',
      pointsEntry.bad,
      linesEntry.bad,
      vtpVerts[plan.verts].bad,
      named('pointData', pointDataEntry),
      named('cellData', cellDataEntry),
    ].find((x) => x !== undefined);
    const label = `writeVtp(${plan.path}, ${plan.options === 'object' ? `{ points: ${plan.points}, lines: ${plan.lines}, verts: ${plan.verts}, pointData: ${plan.pointData}, cellData: ${plan.cellData} }` : plan.options})`;
    const result = await judge(h, label, () => io.writeVtp(path, options), {
      roots: first === undefined ? [] : [first],
      fs: pathEntry.fs === true,
    });
    const verts = vtpVerts[plan.verts].v !== false;
    checkWritten(h, label, dir, path, pathEntry, result, (bytes) => {
      const text = bytes.toString('latin1');
      const start = text.indexOf('<AppendedData encoding="raw">');
      const xml = text.slice(0, start);
      if (!xml.startsWith('<?xml') || !xml.includes('<VTKFile type="PolyData"') || start < 0) {
        return h.problem(`${label}: no VTKFile PolyData root`);
      }
      const counts = `NumberOfPoints="${n}" NumberOfVerts="${verts ? n : 0}" NumberOfLines="${m}"`;
      if (!xml.includes(counts)) return h.problem(`${label}: the piece does not say ${counts}`);
      // The appended block: after '_', per DataArray a UInt64 byte count and the bytes, in offset order.
      const arrays = [
        ...xml.matchAll(
          /<DataArray type="(\w+)" Name="([^"]*)" NumberOfComponents="(\d+)" format="appended" offset="(\d+)"\/>/g,
        ),
      ];
      if (!arrays.some((a) => a[2] === 'Points')) return h.problem(`${label}: no Points array`);
      let at = text.indexOf('_', start) + 1;
      const base = at;
      const blocks = new Map();
      for (let b = 0; b < arrays.length; b++) {
        if (at + 8 > bytes.length) return h.problem(`${label}: the appended data ends at block ${b}`);
        const size = Number(bytes.readBigUInt64LE(at));
        blocks.set(at - base, { at: at + 8, size });
        at += 8 + size;
      }
      if (text.slice(at) !== '\n  </AppendedData>\n</VTKFile>\n')
        return h.problem(`${label}: the file does not end after its ${arrays.length} blocks`);
      for (const [, type, name, , offset] of arrays) {
        if (!blocks.has(Number(offset))) return h.problem(`${label}: ${name}'s offset ${offset} starts no block`);
        if (name === 'Points') {
          const { at: p, size } = blocks.get(Number(offset));
          const want = Buffer.from((type === 'Float64' ? Float64Array : Float32Array).from(points).buffer);
          if (size !== want.length || !bytes.subarray(p, p + size).equals(want))
            h.problem(`${label}: the Points block is not the points`);
        }
      }
      for (const key of Object.keys(options.pointData ?? {})) {
        const escaped = key.replace(
          /[&<>"']/g,
          (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c],
        );
        if (!arrays.some((a) => a[2] === escaped)) h.problem(`${label}: no DataArray named ${escaped}`);
      }
    });
  });
}

// ---- writePvti, and writeVti's offset ---------------------------------------------------------

/** writeVti's `offset`: `extent` the first cell's index when accepted, `bad` refused (naming `offset`). */
const vtiOffsets = {
  undefined: { v: () => undefined, at: [0, 0, 0] },
  '[0, 0, 0]': { v: () => [0, 0, 0], at: [0, 0, 0] },
  '[2, 0, 7]': { v: () => [2, 0, 7], at: [2, 0, 7] },
  '[-0, 0, 0]': { v: () => [-0, 0, 0], at: [0, 0, 0] },
  'Int32Array [1, 2, 3]': { v: () => Int32Array.of(1, 2, 3), at: [1, 2, 3] },
  '[2**32, 0, 0]': { v: () => [2 ** 32, 0, 0], at: [2 ** 32, 0, 0] },
  '[-1, 0, 0]': { v: () => [-1, 0, 0], bad: true },
  '[1.5, 0, 0]': { v: () => [1.5, 0, 0], bad: true },
  '[NaN, 0, 0]': { v: () => [Number.NaN, 0, 0], bad: true },
  '[0, 0, Infinity]': { v: () => [0, 0, Number.POSITIVE_INFINITY], bad: true },
  '[2**32 + 1, 0, 0]': { v: () => [2 ** 32 + 1, 0, 0], bad: true },
  '[1e308, 0, 0]': { v: () => [1e308, 0, 0], bad: true },
  '[0, 0]': { v: () => [0, 0], bad: true },
  "['1', 0, 0]": { v: () => ['1', 0, 0], bad: true },
  "'0,0,0'": { v: () => '0,0,0', bad: true },
  null: { v: () => null, bad: true },
};

/** The extent `i0 i1 j0 j1 k0 k1` of `shape` cells from `offset`. */
const extentOf = (offset, shape) => [0, 1, 2].map((a) => `${offset[a] + 0} ${offset[a] + shape[a]}`).join(' ');

/** Pieces `{ o, s }` tiling the whole [3, 4, 5] image. */
const tilings = {
  'one piece': [{ o: [0, 0, 0], s: [3, 4, 5] }],
  'slabs along x': [
    { o: [0, 0, 0], s: [2, 4, 5] },
    { o: [2, 0, 0], s: [1, 4, 5] },
  ],
  'one plane each': [0, 1, 2].map((i) => ({ o: [i, 0, 0], s: [1, 4, 5] })),
  'blocks over y and z, out of order': [
    { o: [0, 2, 3], s: [3, 2, 2] },
    { o: [0, 0, 0], s: [3, 2, 3] },
    { o: [0, 2, 0], s: [3, 2, 3] },
    { o: [0, 0, 3], s: [3, 2, 2] },
  ],
};

/** Pieces that do not tile the image: `bad` the argument the refusal names. */
const badTilings = {
  'a gap (a slab left out)': { pieces: [{ o: [0, 0, 0], s: [2, 4, 5] }], bad: 'pieces' },
  'a piece twice': { pieces: [tilings['slabs along x'][0], tilings['slabs along x'][0]], bad: 'pieces' },
  'an overlap covering as many cells': {
    pieces: [
      { o: [0, 0, 0], s: [2, 4, 5] },
      { o: [1, 0, 0], s: [1, 4, 5] },
    ],
    bad: 'pieces',
  },
  'past the edge': {
    pieces: [
      { o: [0, 0, 0], s: [2, 4, 5] },
      { o: [2, 0, 0], s: [2, 4, 5] },
    ],
    bad: 'pieces',
  },
  'past the edge at 2**32': { pieces: [{ o: [2 ** 32, 0, 0], s: [3, 4, 5] }], bad: 'pieces' },
  'too many cells, no overlap': {
    pieces: [
      { o: [0, 0, 0], s: [3, 4, 5] },
      { o: [3, 0, 0], s: [1, 4, 5] },
    ],
    bad: 'pieces',
  },
};

/** The second slab's offset (it should be [2, 0, 0]): `bad` a refusal naming its root. */
const pieceOffsets = {
  'Int32Array [2, 0, 0]': { v: () => Int32Array.of(2, 0, 0) },
  '[2, -0, 0]': { v: () => [2, -0, 0] },
  '[-1, 0, 0]': { v: () => [-1, 0, 0], bad: 'pieces[1].offset' },
  '[2.5, 0, 0]': { v: () => [2.5, 0, 0], bad: 'pieces[1].offset' },
  '[NaN, 0, 0]': { v: () => [Number.NaN, 0, 0], bad: 'pieces[1].offset' },
  '[Infinity, 0, 0]': { v: () => [Number.POSITIVE_INFINITY, 0, 0], bad: 'pieces[1].offset' },
  '[2**32 + 1, 0, 0]': { v: () => [2 ** 32 + 1, 0, 0], bad: 'pieces[1].offset' },
  '[1e308, 0, 0]': { v: () => [1e308, 0, 0], bad: 'pieces[1].offset' },
  '[2, 0]': { v: () => [2, 0], bad: 'pieces[1].offset' },
  "['2', 0, 0]": { v: () => ['2', 0, 0], bad: 'pieces[1].offset' },
  "'2,0,0'": { v: () => '2,0,0', bad: 'pieces[1].offset' },
  null: { v: () => null, bad: 'pieces[1].offset' },
  '{ 0: 2, 1: 0, 2: 0, length: 3 }': { v: () => ({ 0: 2, 1: 0, 2: 0, length: 3 }), bad: 'pieces[1].offset' },
  // No offset is [0, 0, 0]: the second slab then overlaps the first.
  undefined: { v: () => undefined, bad: 'pieces' },
};

/** The first piece's source: `bad` refused naming `pieces[0].source`; `name` the file name it gives. */
const pieceSources = {
  "it's ü.vti": { v: () => "it's ü.vti" },
  'sub/dir/piece.vti': { v: () => 'sub/dir/piece.vti' },
  '../up.vti': { v: () => '../up.vti' },
  'a name of 300 characters': { v: () => `${'n'.repeat(296)}.vti` },
  "''": { v: () => '', bad: true },
  'a<b.vti': { v: () => 'a<b.vti', bad: true },
  'a&b.vti': { v: () => 'a&b.vti', bad: true },
  'a"b.vti': { v: () => 'a"b.vti', bad: true },
  'a>b.vti': { v: () => 'a>b.vti', bad: true },
  'containing NUL': { v: () => 'a\0b.vti', bad: true },
  5: { v: () => 5, bad: true },
  undefined: { v: () => undefined, bad: true },
  null: { v: () => null, bad: true },
  'a String object': { v: () => Object('piece.vti'), bad: true },
  'a Buffer': { v: () => Buffer.from('piece.vti'), bad: true },
};

/** The second slab's shape (it should be [1, 4, 5]). */
const pieceShapes = {
  'Int32Array [1, 4, 5]': { v: () => Int32Array.of(1, 4, 5) },
  '[0, 4, 5]': { v: () => [0, 4, 5], bad: true },
  '[-1, 4, 5]': { v: () => [-1, 4, 5], bad: true },
  '[1.5, 4, 5]': { v: () => [1.5, 4, 5], bad: true },
  '[NaN, 4, 5]': { v: () => [Number.NaN, 4, 5], bad: true },
  '[1, 4]': { v: () => [1, 4], bad: true },
  "'1,4,5'": { v: () => '1,4,5', bad: true },
  undefined: { v: () => undefined, bad: true },
};

/** `pieces` itself: `bad` the root its refusal names; `unsure` either end. */
const pieceLists = {
  'a Proxy of the array': { v: (p) => new Proxy(p, {}) },
  '[]': { v: () => [], bad: 'pieces' },
  null: { v: () => null, bad: 'pieces' },
  undefined: { v: () => undefined, bad: 'pieces' },
  '{ 0: piece, length: 1 }': { v: (p) => ({ 0: p[0], length: 1 }), bad: 'pieces' },
  "'pieces' (a string)": { v: () => 'pieces', bad: 'pieces' },
  '[null]': { v: () => [null], bad: 'pieces[0]' },
  '[5]': { v: () => [5], bad: 'pieces[0]' },
  '[a piece, an array]': { v: (p) => [p[0], []], bad: 'pieces[1]' },
  '[a piece whose getter throws]': {
    v: () => [
      {
        source: 'a.vti',
        get offset() {
          throw new RangeError('hostile getter');
        },
        shape: [3, 4, 5],
      },
    ],
    allow: true,
  },
  // A hole is no piece: skipped (the pieces around it tile the image) or refused.
  '[a piece, a hole, a piece]': {
    v: (p) => {
      const list = [p[0], p[0], p[1]];
      delete list[1];
      return list;
    },
    unsure: 'pieces',
  },
};

/** `cellData`: `bad` the root its refusal names (under `cellData`). */
const pvtiCellData = {
  '{}': { v: () => ({}) },
  "{ a: { type: 'Float64' } }": { v: () => ({ a: { type: 'Float64' } }) },
  '{ velocity: Float32 × 3, solid: UInt8 }': {
    v: () => ({ velocity: { type: 'Float32', components: 3 }, solid: { type: 'UInt8' } }),
  },
  'every type': {
    v: () =>
      Object.fromEntries(
        ['UInt8', 'Int8', 'UInt16', 'Int16', 'UInt32', 'Int32', 'Float32', 'Float64'].map((t) => [
          t.toLowerCase(),
          { type: t },
        ]),
      ),
  },
  "{ 'a<&>\"\\'': { type: 'Int16' } }": { v: () => ({ 'a<&>"\'': { type: 'Int16' } }) },
  '{ a: components 4096 }': { v: () => ({ a: { type: 'UInt8', components: 4096 } }) },
  // writeVti refuses an array named '' (naming cellData); writePvti has taken one so far.
  "{ '': { type: 'Float64' } }": { v: () => ({ '': { type: 'Float64' } }), unsure: 'cellData' },
  null: { v: () => null, bad: 'cellData' },
  undefined: { v: () => undefined, bad: 'cellData' },
  '[]': { v: () => [], bad: 'cellData' },
  "'a' (a string)": { v: () => 'a', bad: 'cellData' },
  'a Float64Array': { v: () => new Float64Array(2), bad: 'cellData' },
  '{ a: null }': { v: () => ({ a: null }), bad: 'cellData.a' },
  '{ a: Float64Array(60) }': { v: () => ({ a: new Float64Array(60) }), bad: 'cellData.a' },
  '{ a: {} }': { v: () => ({ a: {} }), bad: 'cellData.a.type' },
  "{ a: { type: 'float64' } }": { v: () => ({ a: { type: 'float64' } }), bad: 'cellData.a.type' },
  "{ a: { type: 'Float16' } }": { v: () => ({ a: { type: 'Float16' } }), bad: 'cellData.a.type' },
  "{ a: { type: 'UInt64' } }": { v: () => ({ a: { type: 'UInt64' } }), bad: 'cellData.a.type' },
  '{ a: { type: Float64Array } }': { v: () => ({ a: { type: Float64Array } }), bad: 'cellData.a.type' },
  "{ a: { type: { toString: 'Float64' } } }": {
    v: () => ({ a: { type: { toString: () => 'Float64' } } }),
    bad: 'cellData.a.type',
  },
  '{ a: components 0 }': { v: () => ({ a: { type: 'UInt8', components: 0 } }), bad: 'cellData.a.components' },
  '{ a: components 4097 }': { v: () => ({ a: { type: 'UInt8', components: 4097 } }), bad: 'cellData.a.components' },
  '{ a: components 1.5 }': { v: () => ({ a: { type: 'UInt8', components: 1.5 } }), bad: 'cellData.a.components' },
  '{ a: components NaN }': {
    v: () => ({ a: { type: 'UInt8', components: Number.NaN } }),
    bad: 'cellData.a.components',
  },
  "{ a: components '3' }": { v: () => ({ a: { type: 'UInt8', components: '3' } }), bad: 'cellData.a.components' },
};

/** The whole image's shape, spacing and origin: `at` the values written, `bad` the root refused. */
const pvtiShapes = {
  '[0, 4, 5]': { v: () => [0, 4, 5], bad: 'shape' },
  '[3, 4]': { v: () => [3, 4], bad: 'shape' },
  '[3, NaN, 5]': { v: () => [3, Number.NaN, 5], bad: 'shape' },
  '[3, 4, 5.5]': { v: () => [3, 4, 5.5], bad: 'shape' },
  "'3,4,5'": { v: () => '3,4,5', bad: 'shape' },
  undefined: { v: () => undefined, bad: 'shape' },
};
const pvtiSpacings = {
  undefined: { v: () => undefined, at: [1, 1, 1] },
  '1e-6': { v: () => 1e-6, at: [1e-6, 1e-6, 1e-6] },
  '[1, 2, 3]': { v: () => [1, 2, 3], at: [1, 2, 3] },
  '5e-324': { v: () => 5e-324, at: [5e-324, 5e-324, 5e-324] },
  0: { v: () => 0, bad: 'spacing' },
  NaN: { v: () => Number.NaN, bad: 'spacing' },
  '-1': { v: () => -1, bad: 'spacing' },
  '[1, -1, 1]': { v: () => [1, -1, 1], bad: 'spacing' },
  '[1, 0]': { v: () => [1, 0], bad: 'spacing' },
  "'1'": { v: () => '1', bad: 'spacing' },
};
const pvtiOrigins = {
  undefined: { v: () => undefined, at: [0, 0, 0] },
  '[-1e300, 0, 1e300]': { v: () => [-1e300, 0, 1e300], at: [-1e300, 0, 1e300] },
  '[0.1, 0.2, 0.3]': { v: () => [0.1, 0.2, 0.3], at: [0.1, 0.2, 0.3] },
  '[NaN, 0, 0]': { v: () => [Number.NaN, 0, 0], bad: 'origin' },
  '[0, 0]': { v: () => [0, 0], bad: 'origin' },
  null: { v: () => null, bad: 'origin' },
  "'0 0 0'": { v: () => '0 0 0', bad: 'origin' },
};
const pvtiOptionValues = { null: null, 5: 5, '[]': [], undefined: undefined };

const pvtiParts = [
  'valid',
  'valid, its pieces written by writeVti',
  'tiling',
  'offset',
  'source',
  'piece shape',
  'pieces',
  'cellData',
  'shape',
  'spacing',
  'origin',
  'options',
  'path',
];

function pvtiPlan(r) {
  const part = r.member(pvtiParts);
  const valid = (table) => r.pick(Object.keys(table).filter((k) => !table[k].bad));
  const hostile = (table) => r.pick(Object.keys(table).filter((k) => table[k].bad !== undefined));
  const sliced = ['offset', 'piece shape', 'pieces'].includes(part);
  const plan = {
    part,
    path: part === 'path' ? pickWritePath(r, true) : pickWritePath(r, false),
    tiling:
      part === 'tiling' ? r.pick(Object.keys(badTilings)) : sliced ? 'slabs along x' : r.pick(Object.keys(tilings)),
    spacing: part === 'spacing' ? hostile(pvtiSpacings) : valid(pvtiSpacings),
    origin: part === 'origin' ? hostile(pvtiOrigins) : valid(pvtiOrigins),
    cellData: part === 'cellData' ? r.pick(Object.keys(pvtiCellData)) : valid(pvtiCellData),
  };
  if (part === 'offset') plan.offset = r.pick(Object.keys(pieceOffsets));
  if (part === 'source') plan.source = r.pick(Object.keys(pieceSources));
  if (part === 'piece shape') plan.pieceShape = r.pick(Object.keys(pieceShapes));
  if (part === 'pieces') plan.pieces = r.pick(Object.keys(pieceLists));
  if (part === 'shape') plan.shape = r.pick(Object.keys(pvtiShapes));
  if (part === 'options') plan.options = r.pick(Object.keys(pvtiOptionValues));
  return plan;
}

const unescapeXml = (s) =>
  s.replace(/&(amp|lt|gt|quot|apos);/g, (_, e) => ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" })[e]);

/** The numbers of a `"x y z"` attribute are the ones given (as JavaScript prints them, so the same doubles). */
const sameNumbers = (text, want) => {
  const got = text.split(' ').map(Number);
  return got.length === 3 && got.every((x, a) => Object.is(x, want[a] + 0));
};

async function pvtiExec(plan, h, { io }) {
  await withTempDir(async (dir) => {
    const pathEntry = writePaths[plan.path];
    const path = pathEntry.v(dir, 'image.pvti');
    const tiling = plan.part === 'tiling' ? badTilings[plan.tiling].pieces : tilings[plan.tiling];
    const pieces = tiling.map((p, i) => ({ source: `image_${i}.vti`, offset: [...p.o], shape: [...p.s] }));
    let roots = [];
    let unsure = false;
    let allow;
    if (plan.part === 'tiling') roots = [badTilings[plan.tiling].bad];
    if (plan.offset !== undefined) {
      const e = pieceOffsets[plan.offset];
      pieces[1].offset = e.v();
      if (e.bad) roots = [e.bad];
    }
    if (plan.source !== undefined) {
      const e = pieceSources[plan.source];
      pieces[0].source = e.v();
      if (e.bad) roots = ['pieces[0].source'];
    }
    if (plan.pieceShape !== undefined) {
      const e = pieceShapes[plan.pieceShape];
      pieces[1].shape = e.v();
      if (e.bad) roots = ['pieces[1].shape'];
    }
    let list = pieces;
    if (plan.pieces !== undefined) {
      const e = pieceLists[plan.pieces];
      list = e.v(pieces);
      if (e.bad) roots = [e.bad];
      if (e.unsure) {
        roots = [e.unsure];
        unsure = true;
      }
      if (e.allow) allow = (error) => error instanceof RangeError && error.message === 'hostile getter';
    }
    const cellEntry = pvtiCellData[plan.cellData];
    const cellData = cellEntry.v();
    if (cellEntry.bad && roots.length === 0) roots = [cellEntry.bad];
    if (cellEntry.unsure && roots.length === 0) {
      roots = [cellEntry.unsure];
      unsure = true;
    }
    // writePvti reads the path, the options, shape, spacing, origin, the pieces, then cellData.
    const shapeEntry = plan.shape === undefined ? { v: () => [3, 4, 5] } : pvtiShapes[plan.shape];
    const spacingEntry = pvtiSpacings[plan.spacing];
    const originEntry = pvtiOrigins[plan.origin];
    const first = [
      pathEntry.bad ? 'path' : undefined,
      plan.options === undefined ? undefined : 'options',
      shapeEntry.bad,
      spacingEntry.bad,
      originEntry.bad,
    ].find((x) => x !== undefined);
    if (first !== undefined) {
      roots = [first];
      unsure = false;
      allow = undefined;
    }
    const options =
      plan.options === undefined
        ? { shape: shapeEntry.v(), spacing: spacingEntry.v(), origin: originEntry.v(), pieces: list, cellData }
        : pvtiOptionValues[plan.options];
    const label = `writePvti(${plan.path}, { ${plan.part}: ${plan.tiling}, offset ${plan.offset}, source ${plan.source}, piece shape ${plan.pieceShape}, pieces ${plan.pieces}, cellData ${plan.cellData}, shape ${plan.shape}, spacing ${plan.spacing}, origin ${plan.origin} }${plan.options === undefined ? '' : ` (options ${plan.options})`})`;
    // The pieces first, as a parallel writer does: each by writeVti with its offset.
    const written = plan.part === 'valid, its pieces written by writeVti' && roots.length === 0 && !pathEntry.fs;
    if (written) {
      for (const p of pieces) {
        const cells = p.shape[0] * p.shape[1] * p.shape[2];
        const arrays = Object.fromEntries(
          Object.entries(cellData).map(([name, { type, components = 1 }]) => {
            const Ctor = {
              UInt8: Uint8Array,
              Int8: Int8Array,
              UInt16: Uint16Array,
              Int16: Int16Array,
              UInt32: Uint32Array,
              Int32: Int32Array,
              Float32: Float32Array,
              Float64: Float64Array,
            }[type];
            return [name, { values: new Ctor(cells * components).fill(1), components }];
          }),
        );
        await judge(
          h,
          `writeVti(${p.source}, { offset: [${p.offset}], shape: [${p.shape}] })`,
          () =>
            io.writeVti(join(dir, p.source), {
              shape: p.shape,
              offset: p.offset,
              spacing: spacingEntry.v(),
              origin: originEntry.v(),
              cellData: arrays,
            }),
          {},
        );
      }
    }
    const result = await judge(h, label, () => io.writePvti(path, options), {
      roots,
      unsure,
      fs: pathEntry.fs === true,
      allow,
    });
    checkWritten(h, label, dir, path, pathEntry, result, (bytes) => {
      const text = bytes.toString('utf8');
      const order = endianness() === 'LE' ? 'LittleEndian' : 'BigEndian';
      if (!text.startsWith(`<?xml version="1.0"?>\n<VTKFile type="PImageData" version="1.0" byte_order="${order}"`))
        return h.problem(`${label}: no VTKFile PImageData root (${order})`);
      if (!text.endsWith('  </PImageData>\n</VTKFile>\n')) return h.problem(`${label}: the file does not end as XML`);
      const head = text.match(/<PImageData WholeExtent="([^"]*)" GhostLevel="0" Origin="([^"]*)" Spacing="([^"]*)">/);
      if (!head) return h.problem(`${label}: no PImageData element`);
      if (head[1] !== '0 3 0 4 0 5') h.problem(`${label}: WholeExtent ${head[1]}`);
      if (!sameNumbers(head[2], originEntry.at)) h.problem(`${label}: Origin ${head[2]}, given [${originEntry.at}]`);
      if (!sameNumbers(head[3], spacingEntry.at)) h.problem(`${label}: Spacing ${head[3]}, given [${spacingEntry.at}]`);
      const arrays = [...text.matchAll(/<PDataArray type="(\w+)" Name="([^"]*)" NumberOfComponents="(\d+)"\/>/g)];
      const want = Object.entries(cellData);
      if (arrays.length !== want.length)
        return h.problem(`${label}: ${arrays.length} PDataArray for ${want.length} arrays`);
      want.forEach(([name, { type, components = 1 }], i) => {
        const [, t, n, k] = arrays[i];
        if (t !== type || unescapeXml(n) !== name || Number(k) !== components)
          h.problem(`${label}: PDataArray ${i} is ${t} ${n} × ${k}, given ${type} ${name} × ${components}`);
      });
      const listed = [...text.matchAll(/<Piece Extent="([^"]*)" Source="([^"]*)"\/>/g)];
      const given = Array.from(list).filter((p) => p !== undefined);
      if (listed.length !== given.length) return h.problem(`${label}: ${listed.length} pieces for ${given.length}`);
      given.forEach((p, i) => {
        const extent = extentOf(Array.from(p.offset ?? [0, 0, 0], Number), Array.from(p.shape, Number));
        if (listed[i][1] !== extent || unescapeXml(listed[i][2]) !== String(p.source))
          h.problem(
            `${label}: piece ${i} is ${listed[i][1]} from ${listed[i][2]}, given ${extent} from ${String(p.source)}`,
          );
        // A piece written by writeVti with its offset has the extent the parallel file gives it.
        if (written) {
          const piece = readFileSync(join(dir, String(p.source)), 'latin1').slice(0, 1000);
          if (!piece.includes(`<Piece Extent="${extent}">`) || !piece.includes(`WholeExtent="${extent}"`))
            h.problem(`${label}: ${String(p.source)} does not have the extent ${extent}`);
        }
      });
    });
  });
}

// readRaw's `planes` on the [3, 4, 5] image: `planes` is how many planes a valid one reads
// (undefined: the whole image), null where it is refused.
const rawPlanes = {
  undefined: { make: () => undefined, planes: undefined },
  '{ start: 0, count: 3 }': { make: () => ({ start: 0, count: 3 }), planes: 3 },
  '{ start: 1, count: 2 }': { make: () => ({ start: 1, count: 2 }), planes: 2 },
  '{ start: 2, count: 1 }': { make: () => ({ start: 2, count: 1 }), planes: 1 },
  '{ start: 3, count: 1 }': { make: () => ({ start: 3, count: 1 }), planes: null },
  '{ start: 1, count: 3 }': { make: () => ({ start: 1, count: 3 }), planes: null },
  '{ start: 0, count: 0 }': { make: () => ({ start: 0, count: 0 }), planes: null },
  '{ start: NaN, count: 1 }': { make: () => ({ start: Number.NaN, count: 1 }), planes: null },
  '{ start: -1, count: 1 }': { make: () => ({ start: -1, count: 1 }), planes: null },
  '{ start: 2**53, count: 1 }': { make: () => ({ start: 2 ** 53, count: 1 }), planes: null },
  "'all'": { make: () => 'all', planes: null },
  '{ count: 1 }': { make: () => ({ count: 1 }), planes: null },
};

export const ioTargets = {
  'io.checkVoxelImage': {
    build: (r) => ({
      image: r.pick(Object.keys(images)),
      how: r.pick(['checkVoxelImage', 'porosity', 'imageWarnings', 'neighbourCorrelation']),
    }),
    async exec(plan, h, { io }) {
      const entry = images[plan.image];
      const image = entry.make();
      const result = await h.call(`${plan.how}(${plan.image})`, () => io[plan.how](image), { bad: entry.bad === true });
      if (result.ok && plan.how === 'porosity' && !(result.value >= 0 && result.value <= 1)) {
        h.problem(`porosity returned ${result.value}`);
      }
      if (result.ok && plan.how === 'imageWarnings' && !result.value.every((w) => typeof w === 'string')) {
        h.problem(`imageWarnings returned ${result.value}`);
      }
      if (
        result.ok &&
        plan.how === 'neighbourCorrelation' &&
        !(result.value.length === 3 && result.value.every((x) => x === null || (x >= -1 - 1e-12 && x <= 1 + 1e-12)))
      ) {
        h.problem(`neighbourCorrelation returned [${result.value}]`);
      }
      if (result.ok && plan.how === 'checkVoxelImage' && result.value.solid !== image.solid) {
        h.problem('checkVoxelImage copied the solid array');
      }
    },
  },

  'io.permeabilityWarning': {
    build: (r) => ({ k: r.pick([...Object.keys(numbers), '1e-12', '1e-9', '1']) }),
    async exec(plan, h, { io }) {
      const k = plan.k in numbers ? numbers[plan.k]() : Number(plan.k);
      const result = await h.call(
        `permeabilityWarning(${plan.k}, 'direct')`,
        () => io.permeabilityWarning(k, 'direct'),
        {
          bad: typeof k !== 'number',
        },
      );
      const high = typeof k === 'number' && k > io.plausiblePermeability;
      if (result.ok && high !== (typeof result.value === 'string')) {
        h.problem(`permeabilityWarning(${plan.k}) returned ${result.value}`);
      }
    },
  },

  'io.readRaw': {
    build: (r) => ({
      shape: r.chance(0.5) ? '[3, 4, 5]' : r.pick(Object.keys(rawShapes)),
      dtype: r.pick(rawDtypes),
      fileBytes: r.pick([60, 120, 240, 480, 59, 0, 1000]),
      voxelSize: r.chance(0.6) ? '1' : r.pick(Object.keys(numbers)),
      solid: r.pick(["'nonzero'", "'zero'", 'undefined', "'pore'"]),
      littleEndian: r.pick(['true', 'false', 'undefined', "'yes'"]),
      planes: r.chance(0.6) ? 'undefined' : r.pick(Object.keys(rawPlanes)),
    }),
    async exec(plan, h, { io }) {
      await withTempDir(async (dir) => {
        const file = join(dir, 'image.raw');
        writeFileSync(file, Buffer.alloc(plan.fileBytes, 1));
        const shape = rawShapes[plan.shape];
        const dtype = dtypeOf(plan.dtype);
        const voxelSize = numbers[plan.voxelSize]();
        const solid = plan.solid === 'undefined' ? undefined : plan.solid.slice(1, -1);
        const littleEndian = { true: true, false: false, undefined: undefined, "'yes'": 'yes' }[plan.littleEndian];
        const size = sizes[dtype ?? 'uint8'];
        const fits = plan.shape === '[3, 4, 5]' && size !== undefined && plan.fileBytes === 60 * size;
        const planesEntry = rawPlanes[plan.planes ?? 'undefined'];
        const goodOptions =
          Number.isFinite(voxelSize) &&
          voxelSize > 0 &&
          solid !== 'pore' &&
          littleEndian !== 'yes' &&
          size !== undefined &&
          planesEntry.planes !== null;
        const result = await h.call(
          `readRaw(${plan.fileBytes} bytes, { shape: ${plan.shape}, dtype: ${plan.dtype}, voxelSize: ${plan.voxelSize}, solid: ${plan.solid}, littleEndian: ${plan.littleEndian}, planes: ${plan.planes ?? 'undefined'} })`,
          () => io.readRaw(file, { shape, dtype, voxelSize, solid, littleEndian, planes: planesEntry.make() }),
          { bad: !(fits && goodOptions) },
        );
        if (result.ok) {
          const expected = solid === 'zero' ? 0 : 1;
          const voxels = (planesEntry.planes ?? 3) * 20;
          if (result.value.solid.length !== voxels || result.value.solid.some((x) => x !== expected)) {
            h.problem('readRaw returned the wrong voxels');
          }
        }
      });
    },
  },

  'io.readNpy': {
    build: (r) => ({
      variant: r.pick(npyVariants),
      container: r.pick(['npy', 'npy', 'npz stored', 'npz deflated', 'npz corrupt']),
      voxelSize: r.chance(0.8) ? '1' : r.pick(Object.keys(numbers)),
    }),
    async exec(plan, h, { io }) {
      const { zipSync } = await import('fflate');
      await withTempDir(async (dir) => {
        const { bytes, bad = false } = npyBytes(plan.variant);
        let file = join(dir, 'image.npy');
        if (plan.container === 'npy') writeFileSync(file, bytes);
        else {
          file = join(dir, 'image.npz');
          const zip = Buffer.from(
            zipSync({ 'im.npy': new Uint8Array(bytes) }, { level: plan.container === 'npz stored' ? 0 : 6 }),
          );
          if (plan.container === 'npz corrupt') {
            // Claim a 4 GB original size in the central directory and scramble the middle.
            const central = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
            if (central >= 0) zip.writeUInt32LE(0xfffffff0, central + 24);
            for (let i = 30; i < Math.min(zip.length - 60, 60); i++) zip[i] ^= 0x5a;
          }
          writeFileSync(file, zip);
        }
        const voxelSize = numbers[plan.voxelSize]();
        const badSize = !(typeof voxelSize === 'number' && Number.isFinite(voxelSize) && voxelSize > 0);
        const result = await h.call(
          `readNpy(${plan.variant} as ${plan.container}, { voxelSize: ${plan.voxelSize} })`,
          () => io.readNpy(file, { voxelSize }),
          { bad: bad || badSize || plan.container === 'npz corrupt', allow: badFile },
        );
        if (result.ok && result.value.solid.length !== 60)
          h.problem(`readNpy returned ${result.value.solid.length} voxels`);
      });
    },
  },

  'io.readNpyArray': {
    build: (r) => ({ variant: r.pick([...npyVariants, 'a FIFO', 'a link to /dev/zero', 'a directory']) }),
    async exec(plan, h, { io }) {
      await withTempDir(async (dir) => {
        const file = join(dir, 'array.npy');
        // Shapes readNpyArray takes that readNpy (3-D images only) refuses.
        const shapes = {
          valid: [3, 4, 5],
          'valid fortran <f8 v2': [3, 4, 5],
          '2-D': [6, 10],
          '0-D': [],
          'empty dimension': [0, 4, 5],
        };
        let bad = true;
        if (plan.variant === 'a FIFO') execFileSync('mkfifo', [file]);
        else if (plan.variant === 'a link to /dev/zero') symlinkSync('/dev/zero', file);
        else if (plan.variant === 'a directory') mkdirSync(file);
        else {
          writeFileSync(file, npyBytes(plan.variant).bytes);
          bad = !(plan.variant in shapes);
        }
        const result = await h.call(`readNpyArray(${plan.variant})`, () => io.readNpyArray(file), {
          bad,
          allow: badFile,
        });
        if (!result.ok) return;
        const { data, shape } = result.value;
        const want = shapes[plan.variant];
        if (JSON.stringify(shape) !== JSON.stringify(want))
          h.problem(`readNpyArray gave shape [${shape}], not [${want}]`);
        const count = want.reduce((a, b) => a * b, 1);
        if (!(data instanceof Float64Array) || data.length !== count)
          h.problem(`readNpyArray gave ${data?.length} values`);
        if (plan.variant === 'valid' && data.some((x) => x !== 1)) h.problem('readNpyArray changed the values');
      });
    },
  },

  'io.readTiff': {
    build: (r) => ({ how: r.pick(tiffCorruptions), seed: Math.floor(r.next() * 2 ** 31) }),
    async exec(plan, h, { io, r }) {
      await withTempDir(async (dir) => {
        const file = join(dir, 'stack.tif');
        writeFileSync(file, corruptTiff(plan.how, r));
        const result = await h.call(`readTiff(${plan.how})`, () => io.readTiff(file, { voxelSize: 1 }), {
          bad: [
            'truncate',
            'garbage',
            'loop',
            'huge count',
            'huge width',
            'BigTIFF header on classic',
            'zero',
          ].includes(plan.how),
          allow: badFile,
        });
        if (result.ok) {
          const { shape, solid } = result.value;
          if (solid.length !== shape[0] * shape[1] * shape[2])
            h.problem(`readTiff: shape ${shape} for ${solid.length} voxels`);
        }
      });
    },
  },

  'io.writeVti': {
    build: (r) => ({
      array: r.pick(Object.keys(vtiArrays)),
      shape: r.chance(0.7) ? '[3, 4, 5]' : r.pick(Object.keys(rawShapes)),
      spacing: r.pick(['undefined', '1e-6', '[1, 2, 3]', '0', 'NaN', '[1, -1, 1]', "'1'"]),
      offset: r.chance(0.5) ? 'undefined' : r.pick(Object.keys(vtiOffsets)),
    }),
    async exec(plan, h, { io }) {
      await withTempDir(async (dir) => {
        const file = join(dir, 'field.vti');
        const spacing = {
          undefined: undefined,
          '1e-6': 1e-6,
          '[1, 2, 3]': [1, 2, 3],
          0: 0,
          NaN: Number.NaN,
          '[1, -1, 1]': [1, -1, 1],
          "'1'": '1',
        }[plan.spacing];
        const offset = vtiOffsets[plan.offset ?? 'undefined'];
        const shapeOk = plan.shape === '[3, 4, 5]';
        const spacingOk = ['undefined', '1e-6', '[1, 2, 3]'].includes(plan.spacing);
        const good = goodArrays.has(plan.array) && shapeOk && spacingOk && !offset.bad;
        const label = `writeVti({ shape: ${plan.shape}, spacing: ${plan.spacing}, offset: ${plan.offset}, cellData: { a: ${plan.array} } })`;
        const result = await h.call(
          label,
          () =>
            io.writeVti(file, {
              shape: rawShapes[plan.shape],
              spacing,
              offset: offset.v(),
              cellData: { a: vtiArrays[plan.array]() },
            }),
          { bad: !good },
        );
        // writeVti reads the shape, the spacing, the origin, the offset, then cellData.
        if (!result.ok && shapeOk && spacingOk && offset.bad) checkNamed(h, label, result.error, ['offset']);
        const left = readdirSync(dir);
        if (result.ok && !left.includes('field.vti')) h.problem('writeVti succeeded but wrote no file');
        if (left.some((f) => f.endsWith('.tmp'))) h.problem(`writeVti left a temp file: ${left.join(', ')}`);
        if (result.ok && left.includes('field.vti')) {
          // A piece of a larger image: its extent starts at the offset, in the whole's origin and spacing.
          const head = readFileSync(join(dir, 'field.vti'), 'latin1').slice(0, 600);
          const extent = extentOf(offset.at, [3, 4, 5]);
          if (
            !head.includes(`<ImageData WholeExtent="${extent}" Origin="0 0 0"`) ||
            !head.includes(`<Piece Extent="${extent}">`)
          )
            h.problem(`${label}: the file's extent is not ${extent}`);
        }
      });
    },
  },

  'io.writePvti': { build: pvtiPlan, exec: pvtiExec },

  'io.sliceOf': { build: slicePlan, exec: sliceExec },

  'io.writePng': { build: pngPlan, exec: pngExec },

  'io.readImage': {
    build: (r) => ({
      file: r.member(Object.keys(imageFiles)),
      options: r.chance(0.5) ? '{ shape: [3, 4, 5], voxelSize: 1e-6 }' : r.pick(Object.keys(imageOptions)),
    }),
    exec: readImageExec,
  },

  'io.readPath': {
    build: (r) => ({ value: r.member(Object.keys(pathValues)), argument: r.pick(Object.keys(pathArguments)) }),
    async exec(plan, h, { io }) {
      const entry = pathValues[plan.value];
      const value = entry.v();
      const argument = pathArguments[plan.argument];
      const label = `readPath(${plan.value}${argument === undefined ? '' : `, ${plan.argument}`})`;
      const result = await judge(
        h,
        label,
        () => (argument === undefined ? io.readPath(value) : io.readPath(value, argument)),
        { roots: entry.bad ? [argument ?? 'path'] : [] },
      );
      if (result.ok && result.value !== value) h.problem(`${label}: returned ${String(result.value)}, not the path`);
      if (!result.ok && entry.bad && !(result.error instanceof TypeError)) {
        h.problem(`${label}: a ${result.error?.constructor?.name}, not a TypeError`);
      }
    },
  },

  'io.writeAtomically': {
    build: (r) => ({ case: r.member(atomicCases), path: pickWritePath(r), write: r.pick(Object.keys(notFunctions)) }),
    exec: atomicExec,
  },

  'io.fromPoreSpy': {
    build: (r) => ({
      im: r.member(Object.keys(poreSpyIms)),
      shape: r.chance(0.75)
        ? r.pick(['[3, 4, 5]', '[5, 4, 3]', 'Int32Array [60, 1, 1]'])
        : r.pick(Object.keys(poreSpyShapes)),
      voxelSize: r.chance(0.75) ? r.pick(['1', '5e-324', '1e308']) : r.pick(Object.keys(numbers)),
    }),
    exec: poreSpyExec,
  },

  'io.writeVtp': { build: vtpPlan, exec: vtpExec },

  // Polygons (the faces of cells): index arrays VTK reads as they are, so each must be checked.
  'io.writeVtp polys': {
    build: (r) => ({
      polys: r.pick(Object.keys(vtpPolys)),
      cellData: r.pick(['undefined', 'per polygon', 'one short']),
    }),
    async exec(plan, h, { io }) {
      await withTempDir(async (dir) => {
        const entry = vtpPolys[plan.polys];
        const polys = entry.v();
        const q = entry.polygons ?? 0;
        const cellData =
          plan.cellData === 'undefined'
            ? undefined
            : { cell: new Int32Array(plan.cellData === 'per polygon' ? q : Math.max(0, q - 1)) };
        // One short of no polygons is an empty array: exactly what is needed.
        const bad = entry.bad ?? (plan.cellData === 'one short' && q > 0 ? 'cellData.cell' : undefined);
        const path = join(dir, 'cells.vtp');
        const label = `writeVtp(cells.vtp, { polys: ${plan.polys}, cellData: ${plan.cellData} })`;
        const points = Float64Array.of(0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0);
        const result = await judge(h, label, () => io.writeVtp(path, { points, polys, cellData, verts: false }), {
          roots: bad === undefined ? [] : [bad],
        });
        if (result.ok) {
          const xml = readFileSync(path, 'latin1');
          if (!xml.includes(`NumberOfPolys="${q}"`)) h.problem(`${label}: the file does not say ${q} polygons`);
        }
      });
    },
  },
};
