// The checks that catch the common mistakes of a first run: a voxel size in micrometres, pore
// and solid swapped, a raw file read with the wrong shape, a permeability no rock has.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { imageWarnings, neighbourCorrelation, permeabilityWarning } from '../dist/index.js';

/** Spheres of radius 4 at random places in an n³ image (a small deterministic generator). */
function blobs(n, count, seed = 1) {
  let a = seed;
  const next = () => {
    a = (Math.imul(a, 1103515245) + 12345) >>> 0;
    return a / 2 ** 32;
  };
  const centres = Array.from({ length: count }, () => [next() * n, next() * n, next() * n]);
  const solid = new Uint8Array(n * n * n);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++)
      for (let k = 0; k < n; k++)
        if (centres.some(([x, y, z]) => (i - x) ** 2 + (j - y) ** 2 + (k - z) ** 2 < 16))
          solid[(i * n + j) * n + k] = 1;
  return { solid, shape: [n, n, n], voxelSize: 2e-6 };
}

describe('imageWarnings', () => {
  const image = blobs(40, 120);
  it('says nothing of a plausible image', () => {
    assert.deepEqual(imageWarnings(image), []);
    const r = neighbourCorrelation(image);
    assert.ok(
      r.every((x) => x > 0.5),
      `correlations ${r}`,
    );
  });
  it('names a voxel size outside 1 nm – 1 mm as a unit slip', () => {
    assert.match(
      imageWarnings({ ...image, voxelSize: 5.345 })[0],
      /^the voxel size 5.345 m is above 1 mm.*micrometres/,
    );
    assert.match(imageWarnings({ ...image, voxelSize: 5e-12 })[0], /below 1 nm/);
  });
  it('names a porosity outside 0.01 – 0.9 as pore and solid swapped', () => {
    // 15 grains in open space: porosity about 0.94, as a rock read with pore and solid swapped.
    const open = { ...blobs(40, 15), convention: 'zero = solid, non-zero = pore' };
    const dense = {
      ...image,
      solid: new Uint8Array(image.solid.length).fill(1).map((_, i) => (i % 200 === 0 ? 0 : 1)),
    };
    assert.match(imageWarnings(open)[0], /porosity 0.9\d+ is above 0.9.*swapped\? \(zero = solid/);
    assert.match(imageWarnings(dense).join('\n'), /porosity 0.005 is below 0.01.*swapped/);
  });
  it('finds the rows of a wrong shape: the same bytes as 80 × 40 × 20', () => {
    const wrong = { ...image, shape: [80, 40, 20] };
    const r = neighbourCorrelation(wrong);
    assert.ok(Math.abs(r[0]) < 0.1 && Math.abs(r[1]) < 0.1 && r[2] > 0.5, `correlations ${r}`);
    const [warning] = imageWarnings(wrong);
    assert.match(warning, /neighbouring voxels along x and y are unrelated .* the shape may not match the data/);
  });
  it('leaves small regular geometries alone, and null where a correlation is undefined', () => {
    assert.deepEqual(neighbourCorrelation({ solid: new Uint8Array(8), shape: [2, 2, 2], voxelSize: 1e-6 }), [
      null,
      null,
      null,
    ]);
    assert.deepEqual(
      neighbourCorrelation({ solid: new Uint8Array(4).fill(1), shape: [1, 2, 2], voxelSize: 1e-6 })[0],
      null,
    );
    const duct = new Uint8Array(6 * 6 * 6).map((_, v) =>
      (v % 6) % 5 === 0 || (Math.floor(v / 6) % 6) % 5 === 0 ? 1 : 0,
    );
    assert.deepEqual(imageWarnings({ solid: duct, shape: [6, 6, 6], voxelSize: 1e-6 }), []);
  });
});

describe('permeabilityWarning', () => {
  it('warns above 1000 D only', () => {
    assert.equal(permeabilityWarning(1e-12, 'direct'), undefined);
    assert.equal(permeabilityWarning(Number.NaN, 'direct'), undefined);
    assert.match(
      permeabilityWarning(1.5, 'network'),
      /^the network permeability 1.500e\+0 m² \(1.52e\+12 D\) is above 1000 D/,
    );
  });
  it('refuses what is not a number', () => {
    assert.throws(
      () => permeabilityWarning('1', 'direct'),
      (e) => e instanceof TypeError && e.argument === 'k',
    );
    assert.throws(
      () => permeabilityWarning(1, 2),
      (e) => e instanceof TypeError && e.argument === 'what',
    );
  });
});
