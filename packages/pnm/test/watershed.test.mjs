// The two watersheds of extract(): 'basins' (the default, parallel) gives the same regions on any
// number of threads, byte for byte, and the same network as 'priority-flood' (scikit-image's
// order, the regions of PoreSpy's snow2) within a few per cent on Berea and on a packing of
// overlapping spheres; on the sphere lattice both divide each cylinder at its middle.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { overlappingSpheres } from '../bench/spheres.mjs';
import { extract } from '../dist/index.js';
import { berea, sphereLattice } from './helpers.mjs';

const digest = (array) =>
  createHash('sha256')
    .update(new Uint8Array(array.buffer, array.byteOffset, array.byteLength))
    .digest('hex');

/** The regions' digest and the network's counts and permeability. */
function summary(image, options) {
  const network = extract(image, { boundaries: ['x'], ...options });
  try {
    const regions = network.regions;
    let unlabelled = 0;
    for (let v = 0; v < regions.length; v++) unlabelled += regions[v] > 0 !== (image.solid[v] === 0) ? 1 : 0;
    return {
      regions: digest(regions),
      unlabelled,
      pores: network.poreCount,
      throats: network.throatCount,
      k: network.stokesFlow({ axis: 'x' }).permeability,
    };
  } finally {
    network.release();
  }
}

const samples = {
  'Berea 200³': berea(),
  'overlapping spheres 120³': overlappingSpheres(120, { rMin: 5, rMax: 8, seed: 7 }),
};

for (const [name, image] of Object.entries(samples)) {
  describe(name, () => {
    const one = summary(image, { threads: 1 });
    const two = summary(image, { threads: 2 });
    const flood = summary(image, { watershed: 'priority-flood', threads: 2 });

    it("'basins' labels every pore voxel and no solid one, the same on 1 and 2 threads", () => {
      assert.equal(one.unlabelled, 0);
      assert.equal(two.regions, one.regions);
      assert.deepEqual(two, one);
    });

    it("'basins' and 'priority-flood' give the same pores and nearly the same throats and permeability", () => {
      console.log(
        `${name}: basins ${one.pores} pores, ${one.throats} throats, K ${one.k.toExponential(4)} m²; ` +
          `priority flood ${flood.pores}, ${flood.throats}, ${flood.k.toExponential(4)} m²`,
      );
      assert.equal(flood.unlabelled, 0);
      assert.equal(one.pores, flood.pores); // one pore per marker either way
      assert.ok(Math.abs(one.throats / flood.throats - 1) < 0.02, `${one.throats} vs ${flood.throats}`);
      assert.ok(Math.abs(one.k / flood.k - 1) < 0.05, `${one.k} vs ${flood.k}`);
    });
  });
}

describe('the sphere lattice', () => {
  it('has the same regions with either watershed: each cylinder divided at its middle', () => {
    const image = sphereLattice({ cells: 3, a: 21, R: 7, r: 3, voxelSize: 1e-6 });
    const basins = extract(image);
    const flood = extract(image, { watershed: 'priority-flood' });
    assert.equal(basins.poreCount, 27);
    assert.equal(basins.throatCount, flood.throatCount);
    assert.equal(digest(basins.regions), digest(flood.regions));
    basins.release();
    flood.release();
  });

  it('refuses a watershed it does not know, naming the option', () => {
    const image = sphereLattice({ cells: 1, a: 21, R: 7, r: 3, voxelSize: 1e-6 });
    assert.throws(
      () => extract(image, { watershed: 'flood' }),
      (e) => e instanceof TypeError && /watershed/.test(e.message),
    );
  });
});
