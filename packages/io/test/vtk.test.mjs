// VTK XML writers: write, parse back (regexes for the XML, UInt64 sizes for the appended block),
// check values and the transposition from our C order to VTK's x-fastest cell order.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { writePvti, writeVti, writeVtp } from '../dist/index.js';
import { assertWellFormed, parseVtk, tempDir, throwsNaming } from './fixtures/helpers.mjs';

const dir = tempDir();

describe('writeVti', () => {
  it('3×4×5 cells: scalars and a 3-component field, transposed to x fastest', async () => {
    const [n0, n1, n2] = [3, 4, 5];
    const n = n0 * n1 * n2;
    const ours = (i, j, k) => (i * n1 + j) * n2 + k;
    const pressure = Float64Array.from({ length: n }, (_, e) => e * 0.5);
    const solid = Uint8Array.from({ length: n }, (_, e) => e % 2);
    const label = Int16Array.from({ length: n }, (_, e) => -e);
    const velocity = Float32Array.from({ length: 3 * n }, (_, e) => Math.floor(e / 3) + (e % 3) / 10);
    const file = join(dir, 'field.vti');
    await writeVti(file, {
      shape: [n0, n1, n2],
      spacing: 2e-6,
      origin: [1, 2, 3],
      cellData: { pressure, solid, 'label <&>': label, velocity: { values: velocity, components: 3 } },
    });
    const { xml, arrays } = parseVtk(readFileSync(file));
    assertWellFormed(xml);
    assert.match(xml, /<VTKFile type="ImageData" version="1.0"/);
    assert.match(xml, /WholeExtent="0 3 0 4 0 5"/);
    assert.match(xml, /<Piece Extent="0 3 0 4 0 5">/);
    assert.match(xml, /Spacing="0.000002 0.000002 0.000002"|Spacing="2e-6 2e-6 2e-6"/);
    assert.match(xml, /Origin="1 2 3"/);
    assert.match(xml, /Name="label &lt;&amp;&gt;"/);
    assert.deepEqual(
      arrays.map((a) => [a.name, a.type, a.components, a.section]),
      [
        ['pressure', 'Float64', 1, 'CellData'],
        ['solid', 'UInt8', 1, 'CellData'],
        ['label &lt;&amp;&gt;', 'Int16', 1, 'CellData'],
        ['velocity', 'Float32', 3, 'CellData'],
      ],
    );
    const [p, s, l, v] = arrays.map((a) => a.values);
    for (let k = 0; k < n2; k++) {
      for (let j = 0; j < n1; j++) {
        for (let i = 0; i < n0; i++) {
          const cell = i + n0 * (j + n1 * k); // VTK: x fastest
          const e = ours(i, j, k);
          assert.equal(p[cell], pressure[e]);
          assert.equal(s[cell], solid[e]);
          assert.equal(l[cell], label[e]);
          for (let q = 0; q < 3; q++) assert.equal(v[3 * cell + q], velocity[3 * e + q], 'components stay together');
        }
      }
    }
  });
  it('spacing per axis; no arrays', async () => {
    const file = join(dir, 'empty.vti');
    await writeVti(file, { shape: [1, 2, 3], spacing: [1, 2, 3], cellData: {} });
    const { xml, arrays } = parseVtk(readFileSync(file));
    assertWellFormed(xml);
    assert.match(xml, /Spacing="1 2 3"/);
    assert.equal(arrays.length, 0);
  });
  it('streams arrays larger than the chunk buffer', async () => {
    const shape = [70, 90, 110]; // 693,000 cells, 5.5 MB of Float64
    const n = 70 * 90 * 110;
    const values = Float64Array.from({ length: n }, (_, e) => e);
    const file = join(dir, 'large.vti');
    await writeVti(file, { shape, cellData: { e: values } });
    const [{ values: out }] = parseVtk(readFileSync(file)).arrays;
    for (const [i, j, k] of [
      [0, 0, 0],
      [69, 89, 109],
      [13, 44, 71],
      [69, 0, 109],
    ]) {
      assert.equal(out[i + 70 * (j + 90 * k)], (i * 90 + j) * 110 + k);
    }
  });
  it('mismatched lengths are RangeErrors naming cellData.<name>', async () => {
    const file = join(dir, 'bad.vti');
    await throwsNaming(
      () => writeVti(file, { shape: [2, 2, 2], cellData: { p: new Float64Array(7) } }),
      RangeError,
      'cellData.p',
      /7.*8/,
    );
    await throwsNaming(
      () => writeVti(file, { shape: [2, 2, 2], cellData: { u: { values: new Float64Array(8), components: 3 } } }),
      RangeError,
      'cellData.u',
      /24/,
    );
  });
});

describe('writeVtp', () => {
  it('pores as points and verts, throats as lines; cell data verts first (NaN / 0) then lines', async () => {
    const points = Float64Array.from([0, 0, 0, 1, 0, 0, 1, 1, 0, 5, 5, 5]); // pore 3 isolated
    const lines = Uint32Array.from([0, 1, 1, 2]);
    const file = join(dir, 'network.vtp');
    await writeVtp(file, {
      points,
      lines,
      pointData: { 'pore.diameter': Float64Array.from([1, 2, 3, 4]) },
      cellData: {
        'throat.diameter': Float32Array.from([0.5, 0.25]),
        'throat.id': Int32Array.from([7, 8]),
        'throat.vector': { values: Float64Array.from([1, 0, 0, 0, 1, 0]), components: 3 },
      },
    });
    const { xml, arrays } = parseVtk(readFileSync(file));
    assertWellFormed(xml);
    assert.match(
      xml,
      /<Piece NumberOfPoints="4" NumberOfVerts="4" NumberOfLines="2" NumberOfStrips="0" NumberOfPolys="0">/,
    );
    const by = (section, name) => arrays.find((a) => a.section === section && a.name === name);
    assert.deepEqual([...by('PointData', 'pore.diameter').values], [1, 2, 3, 4]);
    assert.deepEqual(
      [...by('CellData', 'throat.diameter').values],
      [Number.NaN, Number.NaN, Number.NaN, Number.NaN, 0.5, 0.25],
    );
    assert.deepEqual([...by('CellData', 'throat.id').values], [0, 0, 0, 0, 7, 8]);
    const vec = by('CellData', 'throat.vector');
    assert.equal(vec.components, 3);
    assert.deepEqual([...vec.values.slice(12)], [1, 0, 0, 0, 1, 0]);
    assert.deepEqual([...by('Points', 'Points').values], [...points]);
    assert.deepEqual([...by('Verts', 'connectivity').values], [0, 1, 2, 3]);
    assert.deepEqual([...by('Verts', 'offsets').values], [1, 2, 3, 4]);
    assert.deepEqual([...by('Lines', 'connectivity').values], [0, 1, 1, 2]);
    assert.deepEqual([...by('Lines', 'offsets').values], [2, 4]);
  });
  it('verts: false makes the cells exactly the lines; Float32 points; no lines', async () => {
    const file = join(dir, 'lines.vtp');
    await writeVtp(file, {
      points: Float32Array.from([0, 0, 0, 1, 1, 1]),
      lines: Int32Array.from([0, 1]),
      cellData: { g: Float64Array.from([3]) },
      verts: false,
    });
    const { xml, arrays } = parseVtk(readFileSync(file));
    assert.match(xml, /NumberOfVerts="0" NumberOfLines="1"/);
    assert.deepEqual([...arrays.find((a) => a.name === 'g').values], [3]);
    assert.equal(arrays.find((a) => a.name === 'Points').type, 'Float32');
    await writeVtp(join(dir, 'points.vtp'), { points: Float64Array.from([0, 0, 0]) });
    assert.match(
      parseVtk(readFileSync(join(dir, 'points.vtp'))).xml,
      /NumberOfPoints="1" NumberOfVerts="1" NumberOfLines="0"/,
    );
  });
  it('bad input', async () => {
    const file = join(dir, 'bad.vtp');
    const points = new Float64Array(6);
    await throwsNaming(() => writeVtp(file, { points: [0, 0, 0] }), TypeError, 'points');
    await throwsNaming(() => writeVtp(file, { points: new Float64Array(4) }), RangeError, 'points');
    await throwsNaming(() => writeVtp(file, { points: Float64Array.of(0, Number.NaN, 0) }), RangeError, 'points');
    await throwsNaming(() => writeVtp(file, { points, lines: Uint32Array.of(0, 2) }), RangeError, 'lines');
    await throwsNaming(() => writeVtp(file, { points, lines: Int32Array.of(0, -1) }), RangeError, 'lines');
    await throwsNaming(() => writeVtp(file, { points, lines: Uint32Array.of(0) }), RangeError, 'lines');
    await throwsNaming(
      () => writeVtp(file, { points, lines: Uint32Array.of(0, 1), cellData: { d: new Float64Array(2) } }),
      RangeError,
      'cellData.d',
    );
    await throwsNaming(
      () => writeVtp(file, { points, pointData: { d: new Float64Array(3) } }),
      RangeError,
      'pointData.d',
    );
  });
});

describe('writePvti and pieces', () => {
  it('a piece written with an offset, and the .pvti that tiles the whole image with two pieces', async () => {
    const [n0, n1, n2] = [4, 2, 3];
    const half = n0 / 2;
    const density = Float64Array.from({ length: half * n1 * n2 }, (_, e) => e);
    await writeVti(join(dir, 'piece_1.vti'), {
      shape: [half, n1, n2],
      offset: [half, 0, 0],
      spacing: 1e-6,
      cellData: { density },
    });
    const piece = parseVtk(readFileSync(join(dir, 'piece_1.vti')));
    assertWellFormed(piece.xml);
    assert.match(piece.xml, /WholeExtent="2 4 0 2 0 3"/);
    assert.match(piece.xml, /<Piece Extent="2 4 0 2 0 3">/);
    const file = join(dir, 'whole.pvti');
    await writePvti(file, {
      shape: [n0, n1, n2],
      spacing: 1e-6,
      pieces: [
        { source: 'piece_0.vti', offset: [0, 0, 0], shape: [half, n1, n2] },
        { source: 'piece_1.vti', offset: [half, 0, 0], shape: [half, n1, n2] },
      ],
      cellData: { density: { type: 'Float64' }, velocity: { type: 'Float32', components: 3 } },
    });
    const xml = readFileSync(file, 'utf8');
    // Plain XML, no appended block: every element opened is closed.
    const opened = [...xml.matchAll(/<(\w+)(?:\s[^>]*)?(?<!\/)>/g)].map((m) => m[1]);
    const closed = [...xml.matchAll(/<\/(\w+)>/g)].map((m) => m[1]);
    assert.deepEqual(opened.sort(), closed.sort());
    assert.match(xml, /<VTKFile type="PImageData" version="1.0" byte_order="LittleEndian" header_type="UInt64">/);
    assert.match(
      xml,
      /<PImageData WholeExtent="0 4 0 2 0 3" GhostLevel="0" Origin="0 0 0" Spacing="0.000001 0.000001 0.000001">/,
    );
    assert.match(xml, /<PDataArray type="Float64" Name="density" NumberOfComponents="1"\/>/);
    assert.match(xml, /<PDataArray type="Float32" Name="velocity" NumberOfComponents="3"\/>/);
    assert.deepEqual(
      [...xml.matchAll(/<Piece Extent="([^"]+)" Source="([^"]+)"\/>/g)].map((m) => [m[1], m[2]]),
      [
        ['0 2 0 2 0 3', 'piece_0.vti'],
        ['2 4 0 2 0 3', 'piece_1.vti'],
      ],
    );
  });

  it('refuses pieces that do not tile the image, and bad offsets and types, naming them', async () => {
    const base = { shape: [4, 2, 2], cellData: { d: { type: 'Float64' } } };
    const piece = (offset, shape, source = 'p.vti') => ({ source, offset, shape });
    const cases = [
      [{ ...base, pieces: [piece([0, 0, 0], [2, 2, 2])] }, 'RangeError', 'pieces'],
      [{ ...base, pieces: [piece([0, 0, 0], [3, 2, 2]), piece([2, 0, 0], [2, 2, 2])] }, 'RangeError', 'pieces[1]'],
      [{ ...base, pieces: [piece([0, 0, 0], [2, 2, 2]), piece([3, 0, 0], [2, 2, 2])] }, 'RangeError', 'pieces[1]'],
      [{ ...base, pieces: [piece([-1, 0, 0], [2, 2, 2])] }, 'RangeError', 'pieces[0].offset[0]'],
      [{ ...base, pieces: [piece([0.5, 0, 0], [2, 2, 2])] }, 'RangeError', 'pieces[0].offset[0]'],
      [{ ...base, pieces: [piece([0, 0, 0], [4, 2, 2], 'a"b.vti')] }, 'TypeError', 'pieces[0].source'],
      [{ ...base, pieces: [] }, 'TypeError', 'pieces'],
      // biome-ignore lint/suspicious/noSparseArray: a hole in the list is refused, not skipped
      [{ ...base, pieces: [piece([0, 0, 0], [2, 2, 2]), , piece([2, 0, 0], [2, 2, 2])] }, 'TypeError', 'pieces[1]'],
      [{ ...base, pieces: [piece([0, 0, 0], [4, 2, 2], 'a\nb.vti')] }, 'TypeError', 'pieces[0].source'],
      [
        { ...base, pieces: [piece([0, 0, 0], [4, 2, 2])], cellData: { '': { type: 'UInt8' } } },
        'TypeError',
        'cellData',
      ],
      [
        { ...base, pieces: [piece([0, 0, 0], [4, 2, 2])], cellData: { d: { type: 'Float16' } } },
        'TypeError',
        'cellData.d.type',
      ],
    ];
    for (const [options, name, argument] of cases) {
      await assert.rejects(writePvti(join(dir, 'bad.pvti'), options), { name, argument }, argument);
    }
    await assert.rejects(writeVti(join(dir, 'bad.vti'), { shape: [1, 1, 1], offset: [0, -2, 0], cellData: {} }), {
      name: 'RangeError',
      argument: 'offset[1]',
    });
  });
});
