// `peclet tessellate`: cells of random points fill the box, walled and periodic, Voronoi and
// Laguerre; the cells file.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { transcript } from '@peclet/test-harness';
import { peclet, random, tempFolder, writeNpy } from './helpers.mjs';

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
