// The direct formation factor of an image (diffusion on its pore voxels): exact answers for an
// open box and straight tubes, conservation, the same bits on any thread count, what it refuses,
// and Berea 200³ beside the published direct figure and the network's.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extract, formationFactor } from '../dist/index.js';
import { berea, tubes } from './helpers.mjs';

describe('formationFactor(image)', () => {
  it('is 1 for an open box, with a linear concentration', () => {
    const shape = [12, 5, 6];
    const r = formationFactor({ solid: new Uint8Array(12 * 5 * 6), shape, voxelSize: 1e-6 }, { tolerance: 1e-12 });
    assert.ok(Math.abs(r.formationFactor - 1) < 1e-9, `${r.formationFactor}`);
    assert.ok(Math.abs(r.tortuosity - 1) < 1e-9);
    assert.ok(Math.abs(r.concentration[3 * 30] - (1 - 3 / 11)) < 1e-9);
  });

  it('is the area ratio for straight tubes along the axis (tortuosity 1); across them it refuses', () => {
    const { image } = tubes({ radii: [3, 5], length: 20 });
    const along = image.shape[0];
    let open = 0;
    for (let v = 0; v < image.solid.length / along; v++) open += image.solid[v] === 0 ? 1 : 0;
    const area = image.solid.length / along;
    const r = formationFactor(image, { axis: 'x', tolerance: 1e-12 });
    assert.ok(Math.abs(r.formationFactor / (area / open) - 1) < 1e-9, `${r.formationFactor} against ${area / open}`);
    assert.ok(Math.abs(r.tortuosity - 1) < 1e-9);
    assert.ok(Math.abs(r.inletRate / r.outletRate - 1) < 1e-9);
    // Across the tubes nothing joins the two faces.
    assert.throws(() => formationFactor(image, { axis: 'y' }), {
      name: 'RangeError',
      message: /^image\.solid: has no path of pore voxels joining the first and last planes along y/,
    });
  });

  it('gives the same bits on 1 and 2 threads, and conserves the flux', () => {
    const full = berea();
    const n = 60;
    const solid = new Uint8Array(n * n * n);
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++)
        for (let k = 0; k < n; k++) solid[(i * n + j) * n + k] = full.solid[((i + 20) * 200 + j + 20) * 200 + k + 20];
    const image = { solid, shape: [n, n, n], voxelSize: full.voxelSize };
    const one = formationFactor(image, { threads: 1 });
    const two = formationFactor(image, { threads: 2 });
    assert.equal(one.formationFactor, two.formationFactor);
    assert.equal(one.solve.iterations, two.solve.iterations);
    assert.ok(one.solve.converged && one.solve.residual <= 1e-8);
    assert.ok(Math.abs(one.inletRate / one.outletRate - 1) < 1e-5, `${one.inletRate} ${one.outletRate}`);
    assert.ok(one.effectivePorosity <= one.porosity);
  });

  it('names what it refuses', () => {
    const image = { solid: new Uint8Array(27), shape: [3, 3, 3], voxelSize: 1e-6 };
    assert.throws(() => formationFactor(image, { axis: 'w' }), { name: 'TypeError', message: /^axis/ });
    assert.throws(() => formationFactor(image, { tolerance: 2 }), { name: 'RangeError', message: /^tolerance/ });
    assert.throws(() => formationFactor({ ...image, shape: [1, 3, 9] }), {
      name: 'RangeError',
      message: /^image\.shape: has 1 voxel along the axis/,
    });
    assert.throws(() => formationFactor({ ...image, solid: new Uint8Array(27).fill(2) }), {
      name: 'RangeError',
      message: /^image\.solid/,
    });
  });
});

describe('Berea 200³: direct formation factor', () => {
  it('is within 20% of the published direct figure of the 400³ image, and the network’s beside it', () => {
    const image = berea();
    const direct = formationFactor(image, { axis: 'x' });
    const network = extract(image, { boundaries: ['x'] });
    const models = {
      default: network.diffusion({ axis: 'x' }).formationFactor,
      'pyramids-and-cuboids': network.diffusion({ axis: 'x', conductance: 'pyramids-and-cuboids' }).formationFactor,
      'pyramids-and-cuboids, direct spacing': network.diffusion({
        axis: 'x',
        conductance: 'pyramids-and-cuboids',
        spacing: 'direct-length',
      }).formationFactor,
    };
    console.log(
      `Berea 200³ x: direct F ${direct.formationFactor.toFixed(2)}, tortuosity ${direct.tortuosity.toFixed(2)} ` +
        `(${direct.solve.iterations} iterations, ${direct.solve.unknowns} unknowns; published direct F of the 400³ image 23.12); ` +
        Object.entries(models)
          .map(([name, f]) => `network ${name} ${f.toFixed(2)} (${(f / direct.formationFactor).toFixed(3)})`)
          .join(', '),
    );
    assert.ok(direct.solve.converged);
    assert.ok(Math.abs(direct.formationFactor / 23.12 - 1) < 0.2, `${direct.formationFactor}`);
    assert.ok(Math.abs(direct.inletRate / direct.outletRate - 1) < 1e-5);
  });
});
