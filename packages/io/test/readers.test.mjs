// Readers: .raw (every dtype, both solid rules), .npy/.npz (handwritten files), TIFF stacks
// (handwritten classic TIFF and BigTIFF), readImage's dispatch.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { zipSync, zlibSync } from 'fflate';
import { FileFormatError, readImage, readNpy, readRaw, readTiff } from '../dist/index.js';
import { encodeNpy, encodeTiff, tempDir, throwsNaming } from './fixtures/helpers.mjs';

const here = import.meta.dirname;

const dir = tempDir();
const shape = [3, 4, 5];
const n = 60;
// A pattern with zeros, negatives and -0 (zero) in every dtype.
const pattern = Array.from({ length: n }, (_, i) => (i % 3 === 0 ? 0 : i % 3 === 1 ? i : -1));
const expectedSolid = (values, rule = 'nonzero') =>
  Uint8Array.from(values, (v) => (rule === 'nonzero' ? (v !== 0 ? 1 : 0) : v === 0 ? 1 : 0));

describe('readRaw', () => {
  const dtypes = {
    uint8: [Uint8Array, 1],
    int8: [Int8Array, 1],
    uint16: [Uint16Array, 2],
    int16: [Int16Array, 2],
    uint32: [Uint32Array, 4],
    int32: [Int32Array, 4],
    float32: [Float32Array, 4],
    float64: [Float64Array, 8],
  };
  for (const [dtype, [Ctor, size]] of Object.entries(dtypes)) {
    for (const littleEndian of [true, false]) {
      it(`${dtype}, ${littleEndian ? 'little' : 'big'}-endian, both solid rules`, async () => {
        const values = pattern.map((v) => (Ctor.name.startsWith('Uint') ? Math.abs(v) : v));
        const bytes = new Uint8Array(n * size);
        const view = new DataView(bytes.buffer);
        const setter = `set${Ctor.name.replace('Array', '')}`;
        for (const [i, v] of values.entries()) view[setter](i * size, v, littleEndian);
        if (dtype.startsWith('float')) view[setter](0, -0, littleEndian); // −0 is zero
        const file = join(dir, `${dtype}-${littleEndian}.raw`);
        writeFileSync(file, bytes);
        for (const solid of ['nonzero', 'zero']) {
          const image = await readRaw(file, { shape, dtype, voxelSize: 2e-6, littleEndian, solid });
          assert.deepEqual(image.shape, shape);
          assert.equal(image.voxelSize, 2e-6);
          assert.deepEqual(image.solid, expectedSolid(values, solid));
        }
      });
    }
  }
  it('a float NaN voxel is non-zero', async () => {
    const file = join(dir, 'nan.raw');
    writeFileSync(file, new Float32Array([Number.NaN, 0, 1, -0, 0, 0, 0, 0]));
    const image = await readRaw(file, { shape: [2, 2, 2], dtype: 'float32', voxelSize: 1 });
    assert.deepEqual([...image.solid], [1, 0, 1, 0, 0, 0, 0, 0]);
  });
  it('planes: every slab of a multi-byte image equals the same planes of the whole read', async () => {
    // 5 × 3 × 4 int16 voxels, big-endian, a pattern that differs in every plane.
    const full = [5, 3, 4];
    const values = Array.from({ length: 60 }, (_, i) => ((i * 7) % 5) - 2);
    const bytes = new Uint8Array(120);
    const view = new DataView(bytes.buffer);
    for (const [i, v] of values.entries()) view.setInt16(2 * i, v, false);
    const file = join(dir, 'planes.raw');
    writeFileSync(file, bytes);
    const options = { shape: full, dtype: 'int16', voxelSize: 3e-6, littleEndian: false };
    const whole = await readRaw(file, options);
    for (let start = 0; start < 5; start++) {
      for (let count = 1; start + count <= 5; count++) {
        const slab = await readRaw(file, { ...options, planes: { start, count } });
        assert.deepEqual(slab.shape, [count, 3, 4]);
        assert.equal(slab.voxelSize, 3e-6);
        assert.deepEqual(
          slab.solid,
          whole.solid.subarray(start * 12, (start + count) * 12),
          `planes ${start}+${count}`,
        );
      }
    }
  });
  it('a size mismatch is a RangeError naming shape with both sizes', async () => {
    const file = join(dir, 'short.raw');
    writeFileSync(file, new Uint8Array(59));
    await throwsNaming(() => readRaw(file, { shape, voxelSize: 1 }), RangeError, 'shape', /60 bytes.*59/);
    await throwsNaming(() => readRaw(file, { shape, dtype: 'uint16', voxelSize: 1 }), RangeError, 'shape', /120/);
    // Absurd shapes are refused by the file size, before any allocation.
    await throwsNaming(() => readRaw(file, { shape: [1e5, 1e5, 1e5], voxelSize: 1 }), RangeError, 'shape');
  });
});

describe('readNpy', () => {
  const c = Array.from({ length: n }, (_, i) => (i * 7) % 4); // C order, values 0..3
  it('v1.0 header, |u1, C order', async () => {
    const file = join(dir, 'u1.npy');
    writeFileSync(file, encodeNpy({ descr: '|u1', shape, values: c }));
    const image = await readNpy(file, { voxelSize: 1e-6 });
    assert.deepEqual(image.shape, shape);
    assert.deepEqual(image.solid, expectedSolid(c));
    const pores = await readNpy(file, { voxelSize: 1e-6, solid: 'zero' });
    assert.deepEqual(pores.solid, expectedSolid(c, 'zero'));
  });
  it('v2.0 header, |b1 (bool)', async () => {
    const file = join(dir, 'b1.npy');
    const b = c.map((v) => v > 1);
    writeFileSync(file, encodeNpy({ descr: '|b1', shape, values: b, version: 2 }));
    // PoreSpy's and OpenPNM's convention by default: True = pore; `solid` overrides it.
    const image = await readNpy(file, { voxelSize: 1 });
    assert.deepEqual(
      image.solid,
      Uint8Array.from(b, (x) => (x ? 0 : 1)),
    );
    assert.equal(image.convention, "True = pore (PoreSpy's convention for boolean arrays)");
    const solid = await readNpy(file, { voxelSize: 1, solid: 'nonzero' });
    assert.deepEqual(solid.solid, Uint8Array.from(b, Number));
    assert.equal(solid.convention, 'True = solid');
    const npz = join(dir, 'b1.npz');
    writeFileSync(npz, zipSync({ 'im.npy': encodeNpy({ descr: '|b1', shape, values: b }) }));
    assert.deepEqual((await readNpy(npz, { voxelSize: 1 })).solid, image.solid, 'the same in an .npz');
  });
  it('poreValue and solidValue: a labelled image of several phases, any dtype and order', async () => {
    const labels = c.map((v, i) => (v === 0 ? 0 : 1 + (i % 3)));
    const expect = (rule, value) =>
      Uint8Array.from(labels, (x) => ((rule === 'pore' ? x !== value : x === value) ? 1 : 0));
    for (const descr of ['|u1', '|i1', '<u2', '>i2', '<i4', '>u4', '<f4', '>f8']) {
      const file = join(dir, `labels-${descr.replace(/[<>|]/, '')}.npy`);
      writeFileSync(file, encodeNpy({ descr, shape, values: labels }));
      const pore = await readNpy(file, { voxelSize: 1, poreValue: 0 });
      assert.deepEqual(pore.solid, expect('pore', 0), descr);
      assert.equal(pore.convention, 'value 0 = pore, any other = solid');
      assert.deepEqual((await readNpy(file, { voxelSize: 1, solidValue: 2 })).solid, expect('solid', 2), descr);
    }
    const fortran = join(dir, 'labels-fortran.npy');
    const f = new Array(labels.length);
    const [n0, n1, n2] = shape;
    for (let i = 0; i < n0; i++)
      for (let j = 0; j < n1; j++)
        for (let k = 0; k < n2; k++) f[i + n0 * (j + n1 * k)] = labels[(i * n1 + j) * n2 + k];
    writeFileSync(fortran, encodeNpy({ descr: '<i2', shape, values: f, fortran: true }));
    assert.deepEqual((await readNpy(fortran, { voxelSize: 1, solidValue: 3 })).solid, expect('solid', 3));
    const raw = join(dir, 'labels.raw');
    writeFileSync(raw, Uint8Array.from(labels));
    const fromRaw = await readRaw(raw, { shape, voxelSize: 1, poreValue: 0 });
    assert.deepEqual(fromRaw.solid, expect('pore', 0));
    const tiff = join(dir, 'labels.tiff');
    const plane = n1 * n2;
    const pages = Array.from({ length: n0 }, (_, p) => Uint8Array.from(labels.slice(p * plane, (p + 1) * plane)));
    writeFileSync(tiff, encodeTiff({ pages, width: n2, height: n1 }));
    assert.deepEqual((await readTiff(tiff, { voxelSize: 1, solidValue: 1 })).solid, expect('solid', 1));
    assert.deepEqual((await readImage(tiff, { voxelSize: 1, poreValue: 0 })).solid, expect('pore', 0));
  });
  it('one rule at most, and a finite number for a value', async () => {
    const file = join(dir, 'labels-u1.npy');
    await throwsNaming(
      () => readNpy(file, { voxelSize: 1, solid: 'zero', poreValue: 0 }),
      TypeError,
      'poreValue',
      /solid/,
    );
    await throwsNaming(() => readNpy(file, { voxelSize: 1, poreValue: 0, solidValue: 1 }), TypeError, 'solidValue');
    await throwsNaming(() => readNpy(file, { voxelSize: 1, poreValue: '0' }), TypeError, 'poreValue');
    await throwsNaming(() => readNpy(file, { voxelSize: 1, solidValue: Number.NaN }), RangeError, 'solidValue');
  });
  it('<f8 with -0 and NaN, >i2 big-endian', async () => {
    const f = c.map((v, i) => (i === 0 ? -0 : i === 1 ? Number.NaN : v - 1.5 + 1.5));
    writeFileSync(join(dir, 'f8.npy'), encodeNpy({ descr: '<f8', shape, values: f }));
    const image = await readNpy(join(dir, 'f8.npy'), { voxelSize: 1 });
    assert.deepEqual(
      image.solid,
      Uint8Array.from(f, (v) => (v !== 0 ? 1 : 0)),
    );
    const s = c.map((v) => (v - 2) * 300);
    writeFileSync(join(dir, 'i2.npy'), encodeNpy({ descr: '>i2', shape, values: s }));
    const big = await readNpy(join(dir, 'i2.npy'), { voxelSize: 1 });
    assert.deepEqual(big.solid, expectedSolid(s));
  });
  it('fortran_order True is transposed into C order', async () => {
    // Fortran order stores (i, j, k) at i + n0 (j + n1 k).
    const [n0, n1, n2] = shape;
    const fortran = new Array(n);
    for (let i = 0; i < n0; i++)
      for (let j = 0; j < n1; j++)
        for (let k = 0; k < n2; k++) fortran[i + n0 * (j + n1 * k)] = c[(i * n1 + j) * n2 + k];
    const file = join(dir, 'fortran.npy');
    writeFileSync(file, encodeNpy({ descr: '<i4', shape, values: fortran, fortran: true }));
    const image = await readNpy(file, { voxelSize: 1 });
    assert.deepEqual(image.solid, expectedSolid(c));
  });
  it('2-D is a RangeError saying 3-D is needed; a bad dtype a RangeError', async () => {
    writeFileSync(join(dir, 'flat.npy'), encodeNpy({ descr: '|u1', shape: [6, 10], values: c }));
    await throwsNaming(() => readNpy(join(dir, 'flat.npy'), { voxelSize: 1 }), RangeError, 'path', /3-D/);
    const bytes = encodeNpy({ descr: '<u2', shape, values: c });
    bytes.write('<c8', bytes.indexOf('<u2'), 'latin1');
    writeFileSync(join(dir, 'c8.npy'), bytes);
    await throwsNaming(() => readNpy(join(dir, 'c8.npy'), { voxelSize: 1 }), RangeError, 'path', /dtype/);
  });
  it('corrupt headers are FileFormatErrors', async () => {
    const good = encodeNpy({ descr: '|u1', shape, values: c });
    const cases = {
      'bad magic': Buffer.concat([Buffer.from('NOTNPY'), good.subarray(6)]),
      truncated: good.subarray(0, good.length - 1),
      'header past the end': (() => {
        const b = Buffer.from(good);
        b.writeUInt16LE(60000, 8);
        return b;
      })(),
      'absurd shape': Buffer.from(
        good.toString('latin1').replace('(3, 4, 5)', '(1000000000000, 1000000000000, 1)'),
        'latin1',
      ),
      'negative dimension': Buffer.from(good.toString('latin1').replace('(3, 4, 5)', '(3, -4, 5)'), 'latin1'),
      'no header': good.subarray(0, 9),
    };
    for (const [name, bytes] of Object.entries(cases)) {
      const file = join(dir, `corrupt-${name.replaceAll(' ', '-')}.npy`);
      writeFileSync(file, bytes);
      await assert.rejects(readNpy(file, { voxelSize: 1 }), (e) => {
        assert.ok(e instanceof FileFormatError, `${name}: ${e}`);
        assert.equal(e.code, 'PECLET_BAD_FILE');
        assert.equal(e.path, file);
        return true;
      });
    }
  });
  it('.npz stored and deflated, two arrays, key', async () => {
    const a = encodeNpy({ descr: '|u1', shape, values: c });
    const b = encodeNpy({ descr: '<f4', shape, values: c.map((v) => 3 - v) });
    for (const level of [0, 6]) {
      const file = join(dir, `two-${level}.npz`);
      writeFileSync(file, zipSync({ 'im.npy': new Uint8Array(a), 'other.npy': new Uint8Array(b) }, { level }));
      assert.deepEqual((await readNpy(file, { voxelSize: 1 })).solid, expectedSolid(c), 'im by default');
      const other = await readNpy(file, { voxelSize: 1, key: 'other' });
      assert.deepEqual(other.solid, expectedSolid(c.map((v) => 3 - v)));
      await throwsNaming(() => readNpy(file, { voxelSize: 1, key: 'nope' }), RangeError, 'key', /'im', 'other'/);
    }
    const file = join(dir, 'noim.npz');
    writeFileSync(file, zipSync({ 'a.npy': new Uint8Array(a), 'b.npy': new Uint8Array(b) }));
    await throwsNaming(() => readNpy(file, { voxelSize: 1 }), RangeError, 'key', /'a', 'b'/);
    assert.deepEqual((await readNpy(file, { voxelSize: 1, key: 'b' })).shape, shape);
    const single = join(dir, 'single.npz');
    writeFileSync(single, zipSync({ 'x.npy': new Uint8Array(a) }, { level: 9 }));
    assert.deepEqual((await readNpy(single, { voxelSize: 1 })).solid, expectedSolid(c));
    // A byte of the entry changed, its size kept: the zip's CRC-32 says so (fflate does not check it).
    for (const level of [0, 6]) {
      const zip = Buffer.from(zipSync({ 'im.npy': new Uint8Array(a) }, { level }));
      const corrupt = join(dir, `crc-${level}.npz`);
      if (level === 0) zip[zip.indexOf(Buffer.from(a)) + a.length - 1] ^= 1;
      else zip.writeUInt32LE(zip.readUInt32LE(14) ^ 1, 14); // the local CRC (fflate reads the central one)
      if (level !== 0) {
        const central = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
        zip.writeUInt32LE(zip.readUInt32LE(central + 16) ^ 1, central + 16);
      }
      writeFileSync(corrupt, zip);
      await assert.rejects(
        readNpy(corrupt, { voxelSize: 1 }),
        (e) => e instanceof FileFormatError && /CRC-32/.test(e.message),
      );
    }
    const junk = join(dir, 'junk.npz');
    writeFileSync(junk, Buffer.from('PK not really a zip file at all'));
    await assert.rejects(readNpy(junk, { voxelSize: 1 }), FileFormatError);
  });
});

describe('readTiff', () => {
  it('decodes LZW as libtiff writes it (codes to 12 bits, clear codes mid-strip), value for value', async () => {
    // fixtures/lzw-libtiff.tif: 2 pages of 160 × 200 values 0–3 saved by Pillow 9.4 through
    // libtiff with compression='tiff_lzw' (one strip per page: 5928 codes, 2 clear codes, up to
    // 12 bits), from this generator (Python's: state = (state * 1103515245 + 12345) & 0x7fffffff).
    const [P, H, W] = [2, 160, 200];
    const expected = new Uint8Array(P * H * W);
    let state = 1;
    for (let p = 0, v = 0; p < P; p++)
      for (let y = 0; y < H; y++)
        for (let x = 0; x < W; x++, v++) {
          state = (Math.imul(state, 1103515245) + 12345) & 0x7fffffff;
          const noise = (state >> 12) % 3 === 0 ? (state >> 16) % 4 : 0;
          expected[v] = (((Math.floor(x / 7) + Math.floor(y / 5) + p) % 4) + noise) % 4;
        }
    const file = join(here, 'fixtures', 'lzw-libtiff.tif');
    for (let value = 0; value < 4; value++) {
      const image = await readTiff(file, { voxelSize: 1e-6, solidValue: value });
      assert.deepEqual(image.shape, [P, H, W]);
      let wrong = 0;
      for (let v = 0; v < expected.length; v++) if (image.solid[v] !== (expected[v] === value ? 1 : 0)) wrong++;
      assert.equal(wrong, 0, `value ${value}: ${wrong} voxels differ`);
    }
  });

  it('refuses a Compression it does not read (0, JPEG), not strips read as another code', async () => {
    const page = new Uint8Array(12).fill(1);
    for (const compression of [0, 7]) {
      const file = join(dir, `compression-${compression}.tif`);
      writeFileSync(file, encodeTiff({ pages: [page], width: 4, height: 3, strips: [page], compression }));
      await assert.rejects(readTiff(file, { voxelSize: 1e-6 }), (e) => {
        assert.ok(e instanceof FileFormatError, `${e?.name}: ${e?.message}`);
        assert.match(e.message, new RegExp(`Compression ${compression}; io reads`));
        return true;
      });
    }
  });

  it('stops an LZW strip as soon as it decodes past its pixels', async () => {
    // Literal codes (9 bits each) for 100 000 bytes in the strip of a 4 × 3 page.
    const codes = [256, ...Array.from({ length: 100_000 }, (_, i) => i % 200), 257];
    const bytes = [];
    let buffer = 0;
    let bits = 0;
    for (const code of codes) {
      buffer = (buffer << 9) | code;
      bits += 9;
      while (bits >= 8) {
        bytes.push((buffer >>> (bits - 8)) & 255);
        bits -= 8;
      }
      buffer &= (1 << bits) - 1;
    }
    bytes.push((buffer << (8 - bits)) & 255);
    const file = join(dir, 'lzw-bomb.tif');
    const page = new Uint8Array(12);
    writeFileSync(
      file,
      encodeTiff({ pages: [page], width: 4, height: 3, strips: [Uint8Array.from(bytes)], compression: 5 }),
    );
    await assert.rejects(readTiff(file, { voxelSize: 1e-6 }), (e) => {
      assert.ok(e instanceof FileFormatError, `${e?.name}: ${e?.message}`);
      assert.match(e.message, /LZW block decodes past the 12 bytes/);
      return true;
    });
  });

  it('refuses strips that do not cover the page (0 rows per strip, too few strips), not zeros', async () => {
    const page = new Uint8Array(12).fill(1);
    for (const [name, extraTags, pattern] of [
      ['rows0.tif', [[278, 4, 0]], /0 rows per strip/],
      ['rows1.tif', [[278, 4, 1]], /needs 3 strips, it lists 1/],
    ]) {
      const file = join(dir, name);
      writeFileSync(file, encodeTiff({ pages: [page], width: 4, height: 3, extraTags }));
      await assert.rejects(readTiff(file, { voxelSize: 1e-6 }), (e) => {
        assert.ok(e instanceof FileFormatError, `${e?.name}: ${e?.message}`);
        assert.match(e.message, pattern);
        return true;
      });
    }
    const whole = join(dir, 'rows3.tif');
    writeFileSync(whole, encodeTiff({ pages: [page], width: 4, height: 3, extraTags: [[278, 4, 3]] }));
    assert.deepEqual([...(await readTiff(whole, { voxelSize: 1e-6 })).solid], [...page]);
  });

  it('reads a Deflate strip, and refuses one that inflates past its pixels without reading it all', async () => {
    const width = 4;
    const height = 3;
    const page = Uint8Array.from({ length: 12 }, (_, i) => (i % 3 === 0 ? 1 : 0));
    const good = join(dir, 'deflate.tif');
    writeFileSync(good, encodeTiff({ pages: [page], width, height, strips: [zlibSync(page)], compression: 8 }));
    const image = await readTiff(good, { voxelSize: 1e-6 });
    assert.deepEqual([...image.solid], [...page]);
    // 12 voxels whose strip inflates to 256 MiB (a quarter of a MiB compressed).
    const bomb = join(dir, 'bomb.tif');
    const strip = zlibSync(new Uint8Array(256 * 2 ** 20), { level: 9 });
    writeFileSync(bomb, encodeTiff({ pages: [page], width, height, strips: [strip], compression: 8 }));
    const before = process.memoryUsage().rss;
    const start = performance.now();
    await assert.rejects(readTiff(bomb, { voxelSize: 1e-6 }), (e) => {
      assert.ok(e instanceof FileFormatError, `${e?.name}: ${e?.message}`);
      assert.match(e.message, /inflates past the 12 bytes/);
      return true;
    });
    const seconds = (performance.now() - start) / 1e3;
    const grown = (process.memoryUsage().rss - before) / 2 ** 20;
    console.log(`bomb refused in ${seconds.toFixed(3)} s, resident set +${grown.toFixed(0)} MiB`);
    assert.ok(grown < 128, `${grown} MiB`);
  });
  const width = 5;
  const height = 4;
  const pages = (bits) =>
    Array.from({ length: 3 }, (_, p) =>
      (bits === 8 ? Uint8Array : Uint16Array).from(
        { length: width * height },
        (_, i) => ((i + p) % 3) * (bits === 8 ? 100 : 30000),
      ),
    );
  for (const big of [false, true]) {
    for (const bits of [8, 16]) {
      for (const littleEndian of [true, false]) {
        it(`${big ? 'BigTIFF' : 'classic TIFF'}, uint${bits}, ${littleEndian ? 'II' : 'MM'}: shape [pages, height, width]`, async () => {
          const data = pages(bits);
          const file = join(dir, `stack-${big}-${bits}-${littleEndian}.tif`);
          writeFileSync(file, encodeTiff({ pages: data, width, height, bits, big, littleEndian }));
          const image = await readTiff(file, { voxelSize: 3e-6 });
          assert.deepEqual(image.shape, [3, height, width]);
          const all = data.flatMap((p) => [...p]);
          assert.deepEqual(image.solid, expectedSolid(all));
          const zero = await readTiff(file, { voxelSize: 3e-6, solid: 'zero' });
          assert.deepEqual(zero.solid, expectedSolid(all, 'zero'));
        });
      }
    }
  }
  it('a corrupt Deflate strip (Adler-32), a PackBits strip past its pixels and a strip of no bytes are FileFormatErrors', async () => {
    const width = 4;
    const height = 3;
    const page = Uint8Array.from({ length: 12 }, (_, i) => (i % 3 === 0 ? 1 : 0));
    const refused = async (name, options, pattern) => {
      const file = join(dir, name);
      writeFileSync(file, encodeTiff({ pages: [page], width, height, ...options }));
      await assert.rejects(readTiff(file, { voxelSize: 1e-6 }), (e) => {
        assert.ok(e instanceof FileFormatError, `${e?.name}: ${e?.message}`);
        assert.match(e.message, pattern);
        return true;
      });
    };
    // A stored block: a flipped byte inflates fine, to other voxels; only the checksum tells.
    const stored = zlibSync(page, { level: 0 });
    stored[stored.length - 5] ^= 1;
    await refused('adler.tif', { strips: [stored], compression: 8 }, /Adler-32/);
    // PackBits: 127 runs of 128 bytes for 12 pixels (geotiff's decoder grows a JS array without bound).
    const runs = Uint8Array.from({ length: 254 }, (_, i) => (i % 2 ? 1 : 0x81));
    await refused('packbits.tif', { strips: [runs], compression: 32773 }, /PackBits block decodes past the 12 bytes/);
    await refused('empty-strip.tif', { strips: [new Uint8Array(0)] }, /strip 0 has no bytes/);
    // The valid PackBits strip reads.
    const literal = Uint8Array.from([11, ...page]);
    const good = join(dir, 'packbits-good.tif');
    writeFileSync(good, encodeTiff({ pages: [page], width, height, strips: [literal], compression: 32773 }));
    assert.deepEqual([...(await readTiff(good, { voxelSize: 1e-6 })).solid], [...page]);
  });

  it('pages of different sizes are a RangeError', async () => {
    const data = [new Uint8Array(20), new Uint8Array(20)];
    const file = join(dir, 'mismatch.tif');
    writeFileSync(
      file,
      encodeTiff({
        pages: data,
        width: 5,
        height: 4,
        sizes: [
          [5, 4],
          [4, 5],
        ],
      }),
    );
    await throwsNaming(() => readTiff(file, { voxelSize: 1 }), RangeError, 'path', /share a size/);
  });
  it('corrupt bytes are FileFormatErrors, a looping page chain too', async () => {
    const good = encodeTiff({ pages: pages(8), width, height });
    const loop = Buffer.from(good);
    // Point the last page's next-IFD offset back at the first page.
    const lastNext = 8 + 2 * (2 + 8 * 12 + 4) + 2 + 8 * 12;
    loop.writeUInt32LE(8, lastNext);
    const cases = {
      garbage: Buffer.from('this is not a tiff file at all'),
      truncated: good.subarray(0, 100),
      'strip past the end': good.subarray(0, good.length - 5),
      loop,
    };
    for (const [name, bytes] of Object.entries(cases)) {
      const file = join(dir, `corrupt-${name.replaceAll(' ', '-')}.tif`);
      writeFileSync(file, bytes);
      await assert.rejects(
        readTiff(file, { voxelSize: 1 }),
        (e) => e instanceof FileFormatError || assert.fail(`${name}: ${e}`),
      );
    }
  });
});

describe('readImage', () => {
  it('dispatches by extension', async () => {
    writeFileSync(join(dir, 'd.raw'), new Uint8Array(8).fill(1));
    writeFileSync(join(dir, 'd.BIN'), new Uint8Array(8));
    assert.equal((await readImage(join(dir, 'd.raw'), { shape: [2, 2, 2], voxelSize: 1 })).solid[0], 1);
    assert.equal((await readImage(join(dir, 'd.BIN'), { shape: [2, 2, 2], voxelSize: 1 })).solid[0], 0);
    writeFileSync(join(dir, 'd.npy'), encodeNpy({ descr: '|u1', shape: [2, 2, 2], values: [1, 0, 0, 0, 0, 0, 0, 0] }));
    assert.equal((await readImage(join(dir, 'd.npy'), { voxelSize: 1 })).solid[0], 1);
    writeFileSync(join(dir, 'd.tiff'), encodeTiff({ pages: [new Uint8Array([7, 0, 0, 0])], width: 2, height: 2 }));
    assert.deepEqual((await readImage(join(dir, 'd.tiff'), { voxelSize: 1 })).shape, [1, 2, 2]);
    await throwsNaming(() => readImage(join(dir, 'd.vti'), { voxelSize: 1 }), RangeError, 'path', /\.vti/);
  });
});
