// voro's geometry through the public API: exact volumes, symmetric faces,
// crystal lattices, Poisson–Voronoi statistics, Laguerre cells.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { tessellate } from '../dist/index.js';
import { random, randomPoints } from './random.mjs';

const unit = { min: [0, 0, 0], max: [1, 1, 1] };
const sum = (a) => a.reduce((x, y) => x + y, 0);

// Every face (i, j) is seen from j too, with the same area (as a multiset per pair).
function assertSymmetric(t) {
  const { neighborOffsets: off, neighbors: nb, faceAreas: area } = t;
  const faces = new Map();
  for (let i = 0; i < t.size; i++) {
    for (let k = off[i]; k < off[i + 1]; k++) {
      const j = nb[k];
      if (j < 0) continue;
      const key = i < j ? `${i},${j}` : `${j},${i}`;
      const side = i < j ? 0 : 1;
      const entry = faces.get(key) ?? [[], []];
      entry[side].push(area[k]);
      faces.set(key, entry);
    }
  }
  for (const [key, [a, b]] of faces) {
    if (key.split(',')[0] === key.split(',')[1]) continue; // own periodic image
    a.sort((x, y) => x - y);
    b.sort((x, y) => x - y);
    assert.deepEqual(a, b, `face ${key} differs between its two sides`);
  }
}

describe('volumes and faces', () => {
  const points = randomPoints(20_000, 7);
  for (const periodic of [false, true, [true, false, true]]) {
    it(`volumes sum to the box volume, periodic=${JSON.stringify(periodic)}`, () => {
      const box = { min: [-1, 0, 2], max: [2, 1, 4] }; // volume 6
      const scaled = points.map((x, i) => box.min[i % 3] + x * (box.max[i % 3] - box.min[i % 3]));
      const t = tessellate(scaled, { box, periodic });
      assert.ok(Math.abs(sum(t.volumes) - 6) / 6 < 1e-12, `sum ${sum(t.volumes)}`);
      assertSymmetric(t);
      t.release();
    });
  }

  it('Laguerre: volumes sum to the box, faces symmetric, radii move faces', () => {
    const next = random(3);
    const radii = new Float64Array(20_000).map(() => 0.005 + 0.01 * next());
    for (const periodic of [false, true]) {
      const t = tessellate(points, { box: unit, periodic, radii });
      assert.ok(Math.abs(sum(t.volumes) - 1) < 1e-12);
      assertSymmetric(t);
      t.release();
    }
    // Two points: the power plane between them sits where |x-p|^2 - r^2 is equal.
    const two = tessellate(new Float64Array([0.25, 0.5, 0.5, 0.75, 0.5, 0.5]), {
      box: unit,
      radii: new Float64Array([0.2, 0.1]),
    });
    // Plane at x with (x-0.25)^2 - 0.04 = (x-0.75)^2 - 0.01  →  x = 0.53
    assert.ok(Math.abs(two.volumes[0] - 0.53) < 1e-14, `${two.volumes[0]}`);
    assert.ok(Math.abs(two.volumes[1] - 0.47) < 1e-14);
  });

  it('walls are negative ids and every cell of a walled box is closed by them', () => {
    const t = tessellate(randomPoints(500, 11), { box: unit });
    const walls = new Set([...t.neighbors].filter((j) => j < 0));
    assert.deepEqual(
      [...walls].sort((a, b) => a - b),
      [-6, -5, -4, -3, -2, -1],
    );
    const wallArea = [...t.neighbors].reduce((a, j, k) => (j < 0 ? a + t.faceAreas[k] : a), 0);
    assert.ok(Math.abs(wallArea - 6) < 1e-12, `wall area ${wallArea}`);
  });
});

describe('crystal lattices give exact cells', () => {
  function lattice(basis, cells) {
    const pts = [];
    for (let x = 0; x < cells; x++)
      for (let y = 0; y < cells; y++)
        for (let z = 0; z < cells; z++)
          for (const [a, b, c] of basis) pts.push((x + a) / cells, (y + b) / cells, (z + c) / cells);
    return new Float64Array(pts);
  }
  const cases = {
    'simple cubic': { basis: [[0.25, 0.25, 0.25]], faces: 6 },
    BCC: {
      basis: [
        [0.25, 0.25, 0.25],
        [0.75, 0.75, 0.75],
      ],
      faces: 14,
    },
    FCC: {
      basis: [
        [0.25, 0.25, 0.25],
        [0.75, 0.75, 0.25],
        [0.75, 0.25, 0.75],
        [0.25, 0.75, 0.75],
      ],
      faces: 12,
    },
  };
  for (const [name, { basis, faces }] of Object.entries(cases)) {
    it(`${name}: ${faces} faces, volume 1/N`, () => {
      const points = lattice(basis, 5);
      const n = points.length / 3;
      const t = tessellate(points, { box: unit, periodic: true });
      for (let i = 0; i < n; i++) {
        assert.equal(t.neighborOffsets[i + 1] - t.neighborOffsets[i], faces, `cell ${i}`);
        assert.ok(Math.abs(t.volumes[i] * n - 1) < 1e-12, `cell ${i} volume ${t.volumes[i]}`);
      }
    });
  }
});

describe('Poisson–Voronoi statistics', () => {
  it('mean faces per cell is 15.535 ± 0.01 at 10^5 periodic points', () => {
    const t = tessellate(randomPoints(100_000, 2024), { box: unit, periodic: true });
    const mean = t.neighbors.length / t.size;
    assert.ok(Math.abs(mean - 15.535) <= 0.01, `mean faces ${mean}`);
  });
});

describe('cells and updates', () => {
  it('cell(i) is a closed polyhedron whose faces match neighbors', () => {
    const t = tessellate(randomPoints(1000, 5), { box: unit });
    for (const i of [0, 17, 999]) {
      const c = t.cell(i);
      const slice = t.neighbors.slice(t.neighborOffsets[i], t.neighborOffsets[i + 1]);
      assert.deepEqual([...c.neighbors], [...slice]);
      assert.equal(c.faces.length, slice.length);
      // Euler: V - E + F = 2, with E = half the sum of face sizes.
      const edges = c.faces.reduce((a, f) => a + f.length, 0) / 2;
      assert.equal(c.vertices.length / 3 - edges + c.faces.length, 2);
    }
    assert.throws(() => t.cell(1000), RangeError);
    assert.throws(() => t.cell(-1), RangeError);
    assert.throws(() => t.cell('0'), TypeError);
  });

  it('update() re-tessellates moved points, detaching old arrays', () => {
    const points = randomPoints(2000, 9);
    const t = tessellate(points, { box: unit, periodic: true });
    const before = t.volumes;
    const moved = points.map((x) => (x + 0.3) % 1);
    t.update(moved);
    assert.equal(before.length, 0, 'arrays read before update are detached');
    const fresh = tessellate(moved, { box: unit, periodic: true });
    assert.deepEqual([...t.volumes], [...fresh.volumes]);
    assert.deepEqual([...t.neighbors], [...fresh.neighbors]);
    assert.throws(() => t.update(new Float64Array(3)), RangeError);
  });

  it('results do not depend on the thread count', () => {
    const points = randomPoints(30_000, 4);
    const one = tessellate(points, { box: unit, threads: 1 });
    const two = tessellate(points, { box: unit, threads: 2 });
    assert.deepEqual(Buffer.from(one.volumes.buffer), Buffer.from(two.volumes.buffer));
    assert.deepEqual([...one.neighbors], [...two.neighbors]);
  });
});
