// voxelize(): the spheres as a binary image, checked against exact volumes, periodic images,
// thread counts and bad options.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Simulation } from '../dist/index.js';

const count = (solid) => solid.reduce((sum, x) => sum + x, 0);

function box(periodic, threads) {
  return new Simulation({
    box: { min: [0, 0, 0], max: [1, 1, 1] },
    periodic,
    gravity: [0, 0, 0],
    contact: { model: 'linear', stiffness: 1e3 },
    ...(threads ? { threads } : {}),
  });
}

describe('voxelize', () => {
  it("a sphere's voxels hold its volume to the sampling error, centred where it is", () => {
    const s = box(false);
    s.addSpheres({ positions: [0.5, 0.45, 0.52], radii: [0.2], density: 1000 });
    const image = s.voxelize({ resolution: 40 });
    assert.deepEqual(image.shape, [100, 100, 100]);
    assert.equal(image.voxelSize, 0.01);
    assert.deepEqual(image.origin, [0, 0, 0]);
    const volume = count(image.solid) * image.voxelSize ** 3;
    const exact = (4 / 3) * Math.PI * 0.2 ** 3;
    assert.ok(Math.abs(volume / exact - 1) < 0.005, `${volume} vs ${exact}`);
    // The voxel at the centre is solid, one just beyond the radius is not.
    const at = (i, j, k) => image.solid[(i * 100 + j) * 100 + k];
    assert.equal(at(50, 45, 52), 1);
    assert.equal(at(50, 45, 73), 0);
    assert.equal(at(71, 45, 52), 0);
    s.release();
  });

  it('on periodic axes a sphere across a face appears on both sides, voxel for voxel as inside', () => {
    const inside = box(true);
    inside.addSpheres({ positions: [0.505, 0.505, 0.505], radii: [0.1234], density: 1000 });
    const across = box(true);
    // Shifted by 50 voxels on each axis: its centre on the box's corner, split over 8 corners.
    across.addSpheres({ positions: [0.005, 0.005, 0.005], radii: [0.1234], density: 1000 });
    const a = inside.voxelize({ voxelSize: 0.01 });
    const b = across.voxelize({ voxelSize: 0.01 });
    assert.ok(count(a.solid) > 0);
    assert.equal(count(b.solid), count(a.solid));
    assert.equal(b.solid[0], 1);
    assert.equal(b.solid[b.solid.length - 1], 1);
    // Walled, the same sphere keeps only the octant inside the box.
    const walled = box(false);
    walled.addSpheres({ positions: [0.005, 0.005, 0.005], radii: [0.1234], density: 1000 });
    const c = walled.voxelize({ voxelSize: 0.01 });
    assert.ok(Math.abs(count(c.solid) / count(a.solid) - 1 / 8) < 0.05, `${count(c.solid) / count(a.solid)}`);
    for (const s of [inside, across, walled]) s.release();
  });

  it('a deposited packing: the same image on 1 and 2 threads, its porosity the exact one to 1%', () => {
    const options = {
      box: { min: [0, 0, 0], max: [0.02, 0.02, 0.04] },
      periodic: [true, true, false],
      gravity: [0, 0, -9.81],
      contact: { model: 'linear', stiffness: 2000, restitution: 0.3, friction: 0.3 },
    };
    const bed = new Simulation(options);
    bed.deposit({
      count: 300,
      radius: { kind: 'uniform', minRadius: 1e-3, maxRadius: 1.5e-3 },
      density: 2500,
      seed: 5,
    });
    const region = { min: [0, 0, 0.003], max: [0.02, 0.02, 0.009] };
    const exact = bed.packingFraction(region);
    // The same spheres in simulations of 1 and 2 threads.
    const images = [1, 2].map((threads) => {
      const s = new Simulation({ ...options, threads });
      s.addSpheres({ positions: bed.positions, radii: bed.radii, density: 2500 });
      const image = s.voxelize({ resolution: 20, region });
      s.release();
      return image;
    });
    bed.release();
    const [one, two] = images;
    assert.deepEqual(one.shape, two.shape);
    assert.ok(Buffer.from(one.solid).equals(Buffer.from(two.solid)), 'the images differ');
    const fraction = count(one.solid) / one.solid.length;
    console.log(`voxelized packing: solid fraction ${fraction.toFixed(4)}, exact ${exact.toFixed(4)}`);
    assert.ok(exact > 0.5, `${exact}`);
    assert.ok(Math.abs(fraction - exact) < 0.01, `${fraction} vs ${exact}`);
  });

  it('bad options are named and change nothing', () => {
    const s = box(false);
    const named = (kind, argument) => (e) => e instanceof kind && e.argument === argument;
    assert.throws(() => s.voxelize(), named(RangeError, 'resolution'));
    s.addSpheres({ positions: [0.5, 0.5, 0.5], radii: [0.1], density: 1000 });
    assert.throws(() => s.voxelize({ voxelSize: 0.1, resolution: 4 }), named(TypeError, 'options'));
    assert.throws(() => s.voxelize({ voxelSize: 0 }), named(RangeError, 'voxelSize'));
    assert.throws(() => s.voxelize({ voxelSize: '0.1' }), named(TypeError, 'voxelSize'));
    assert.throws(() => s.voxelize({ resolution: Number.NaN }), named(RangeError, 'resolution'));
    assert.throws(() => s.voxelize({ voxelSize: 1e-6 }), named(RangeError, 'voxelSize'));
    assert.throws(() => s.voxelize({ region: { min: [0, 0, 0], max: [0, 1, 1] } }), named(RangeError, 'region'));
    assert.equal(count(s.voxelize({ voxelSize: 0.2 }).solid), 1);
    // A width that is a whole number of voxels up to round-off (0.3/0.1 = 2.9999999999999996).
    assert.deepEqual(s.voxelize({ voxelSize: 0.1, region: { min: [0, 0, 0], max: [0.3, 0.3, 0.7] } }).shape, [3, 3, 7]);
    assert.deepEqual(s.voxelize({ voxelSize: 0.3 }).shape, [3, 3, 3]);
    s.release();
    assert.throws(
      () => s.voxelize({ voxelSize: 0.1 }),
      (e) => e.name === 'ReleasedError',
    );
  });
});
