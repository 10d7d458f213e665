// io's targets: checkVoxelImage, readRaw, readNpy (malformed headers), readTiff (corrupt bytes),
// writeVti (mismatched lengths, hostile containers). Files live in a fresh temp directory per
// case. A corrupt file may end in a FileFormatError (code PECLET_BAD_FILE) whose message says
// what is wrong; everything else must be a TypeError/RangeError or a value.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { containers, numbers } from './domains.mjs';

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

export const ioTargets = {
  'io.checkVoxelImage': {
    build: (r) => ({ image: r.pick(Object.keys(images)), how: r.pick(['checkVoxelImage', 'porosity']) }),
    async exec(plan, h, { io }) {
      const entry = images[plan.image];
      const image = entry.make();
      const result = await h.call(
        `${plan.how}(${plan.image})`,
        () => (plan.how === 'porosity' ? io.porosity(image) : io.checkVoxelImage(image)),
        { bad: entry.bad === true },
      );
      if (result.ok && plan.how === 'porosity' && !(result.value >= 0 && result.value <= 1)) {
        h.problem(`porosity returned ${result.value}`);
      }
      if (result.ok && plan.how === 'checkVoxelImage' && result.value.solid !== image.solid) {
        h.problem('checkVoxelImage copied the solid array');
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
        const goodOptions =
          Number.isFinite(voxelSize) &&
          voxelSize > 0 &&
          solid !== 'pore' &&
          littleEndian !== 'yes' &&
          size !== undefined;
        const result = await h.call(
          `readRaw(${plan.fileBytes} bytes, { shape: ${plan.shape}, dtype: ${plan.dtype}, voxelSize: ${plan.voxelSize}, solid: ${plan.solid}, littleEndian: ${plan.littleEndian} })`,
          () => io.readRaw(file, { shape, dtype, voxelSize, solid, littleEndian }),
          { bad: !(fits && goodOptions) },
        );
        if (result.ok) {
          const expected = solid === 'zero' ? 0 : 1;
          if (result.value.solid.length !== 60 || result.value.solid.some((x) => x !== expected)) {
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
        const good =
          goodArrays.has(plan.array) &&
          plan.shape === '[3, 4, 5]' &&
          ['undefined', '1e-6', '[1, 2, 3]'].includes(plan.spacing);
        const result = await h.call(
          `writeVti({ shape: ${plan.shape}, spacing: ${plan.spacing}, cellData: { a: ${plan.array} } })`,
          () => io.writeVti(file, { shape: rawShapes[plan.shape], spacing, cellData: { a: vtiArrays[plan.array]() } }),
          { bad: !good },
        );
        const { readdirSync } = await import('node:fs');
        const left = readdirSync(dir);
        if (result.ok && !left.includes('field.vti')) h.problem('writeVti succeeded but wrote no file');
        if (left.some((f) => f.endsWith('.tmp'))) h.problem(`writeVti left a temp file: ${left.join(', ')}`);
      });
    },
  },
};
