// `peclet tessellate`: cells of random points fill the box, walled and periodic, Voronoi and
// Laguerre; the cells file.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { transcript } from '@peclet/test-harness';
import { peclet, random, readVtk, tempFolder, writeNpy } from './helpers.mjs';

describe('peclet tessellate', () => {
  const temp = tempFolder();
  const n = 300;
  const box = { min: [-1, 0, 2], max: [1, 0.5, 3.5] };
  const boxVolume = 2 * 0.5 * 1.5;
  before(() => {
    const next = random(7);
    const points = new Float64Array(3 * n);
    for (let i = 0; i < n; i++) {
      for (let a = 0; a < 3; a++) points[3 * i + a] = box.min[a] + next() * (box.max[a] - box.min[a]);
    }
    writeNpy(join(temp.dir, 'points.npy'), points, [n, 3]);
    writeNpy(
      join(temp.dir, 'radii.npy'),
      Array.from({ length: n }, () => 0.02 + 0.03 * next()),
      [n],
    );
  });
  after(() => temp.cleanup());
  const boxFlag = [...box.min, ...box.max].join(',');

  for (const [name, extra] of [
    ['walled Voronoi', []],
    ['periodic Voronoi', ['--periodic']],
    ['Laguerre, periodic along x and z', ['--radii', 'radii.npy', '--periodic', 'x,z']],
  ]) {
    it(`${name}: the cell volumes sum to the box volume within 1e-9`, async () => {
      const r = await peclet(['tessellate', 'points.npy', '--box', boxFlag, ...extra, '--json'], { cwd: temp.dir });
      assert.equal(r.status, 0, transcript(r));
      assert.equal(r.stderr, '');
      const report = JSON.parse(r.stdout);
      assert.equal(report.cells, n);
      assert.ok(Math.abs(report.totalVolume / boxVolume - 1) < 1e-9, `${report.totalVolume} vs ${boxVolume}`);
      assert.ok(Math.abs(report.boxVolume / boxVolume - 1) < 1e-15);
      assert.ok(report.meanNeighbors > 8 && report.meanNeighbors < 20, String(report.meanNeighbors));
    });
  }

  it('--out cells.json: one volume per point, summing to the box volume; the summary', async () => {
    const r = await peclet(['tessellate', 'points.npy', '--box', boxFlag, '--out', 'cells.json'], { cwd: temp.dir });
    assert.equal(r.status, 0, transcript(r));
    assert.equal(r.stderr, '');
    const cells = JSON.parse(readFileSync(join(temp.dir, 'cells.json'), 'utf8'));
    assert.equal(cells.volumes.length, n);
    assert.equal(cells.faces.length, n);
    assert.equal(cells.centroids.length, 3 * n);
    const total = cells.volumes.reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(total / boxVolume - 1) < 1e-9);
    assert.match(r.stdout, /300 Voronoi cells/);
    assert.match(r.stdout, /mean neighbours per cell/);
  });

  it('--out cells.vtp: every face a polygon, each cell closed: its faces enclose its volume', async () => {
    const r = await peclet(['tessellate', 'points.npy', '--box', boxFlag, '--out', 'cells.vtp', '--json'], {
      cwd: temp.dir,
    });
    assert.equal(r.status, 0, transcript(r));
    const { xml, arrays } = readVtk(join(temp.dir, 'cells.vtp'));
    const polys = Number(/NumberOfPolys="(\d+)"/.exec(xml)[1]);
    assert.equal(arrays.cell.length, polys);
    // The last connectivity/offsets pair is the polygons' (verts and lines are empty).
    const connectivity = [...xml.matchAll(/Name="connectivity"/g)].length;
    assert.equal(connectivity, 3, 'verts, lines and polys each have a connectivity array');
    const { Points: p, volume, cell } = arrays;
    const { conn, offs } = lastPolys(join(temp.dir, 'cells.vtp'));
    assert.equal(offs.length, polys);
    // Divergence theorem: a cell's volume is the sum over its faces (counter-clockwise seen from
    // outside) of the fan's signed tetrahedra (1/6) p0 · (p1 × p2).
    const enclosed = new Float64Array(n);
    let start = 0;
    offs.forEach((end, f) => {
      const at = (k) => [p[3 * conn[k]], p[3 * conn[k] + 1], p[3 * conn[k] + 2]];
      const a = at(start);
      for (let k = start + 1; k + 1 < end; k++) {
        const b = at(k);
        const c = at(k + 1);
        enclosed[cell[f]] +=
          (a[0] * (b[1] * c[2] - b[2] * c[1]) -
            a[1] * (b[0] * c[2] - b[2] * c[0]) +
            a[2] * (b[0] * c[1] - b[1] * c[0])) /
          6;
      }
      start = end;
    });
    for (let f = 0; f < polys; f++) {
      const i = cell[f];
      assert.ok(
        Math.abs(enclosed[i] - volume[f]) < 1e-9,
        `cell ${i}: faces enclose ${enclosed[i]}, volume ${volume[f]}`,
      );
    }
    assert.equal(new Set(cell).size, n, 'every cell has faces');
  });

  it('points that are a device or a FIFO are refused at once, not read without end', async () => {
    symlinkSync('/dev/zero', join(temp.dir, 'zero.npy'));
    execFileSync('mkfifo', [join(temp.dir, 'fifo.npy')]);
    for (const name of ['zero.npy', 'fifo.npy']) {
      const r = await peclet(['tessellate', name, '--box', boxFlag], { cwd: temp.dir, timeoutMs: 20_000 });
      assert.equal(r.signal, null, transcript(r));
      assert.equal(r.status, 1, transcript(r));
      assert.match(r.stderr, /must name a regular file/, transcript(r));
    }
  });
});

/** The polygons' connectivity and offsets of a .vtp: the last pair of those arrays in the file. */
function lastPolys(path) {
  const bytes = readFileSync(path);
  const text = bytes.toString('latin1');
  const start = text.indexOf('<AppendedData encoding="raw">');
  const base = text.indexOf('_', start) + 1;
  const xml = text.slice(0, start);
  const read = (name) => {
    const all = [
      ...xml.matchAll(new RegExp(`Name="${name}" NumberOfComponents="1" format="appended" offset="(\\d+)"`, 'g')),
    ];
    const at = base + Number(all.at(-1)[1]);
    const size = Number(bytes.readBigUInt64LE(at));
    const copy = bytes.subarray(at + 8, at + 8 + size);
    return Array.from(new Int32Array(copy.buffer.slice(copy.byteOffset, copy.byteOffset + size)));
  };
  return { conn: read('connectivity'), offs: read('offsets') };
}
