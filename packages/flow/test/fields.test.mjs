// What a permeability() run gives besides k: its flow field in SI units on the sample alone
// (flowFields, writeFlowVti), a projection of the steps it will take (onProgress's
// projectedSteps, what a progress bar measures), and warnings about likely mistakes.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { flowFields, permeability, writeFlowVti } from '@peclet/flow';
import { berea, crop } from './helpers.mjs';

const h = 2e-6;

/** A square duct along x: [L, n + 2, n + 2] with walls around an n × n bore. */
function duct(L, n) {
  const m = n + 2;
  const solid = new Uint8Array(L * m * m);
  for (let i = 0; i < L; i++)
    for (let j = 0; j < m; j++)
      for (let k = 0; k < m; k++) solid[(i * m + j) * m + k] = j === 0 || k === 0 || j === m - 1 || k === m - 1 ? 1 : 0;
  return { solid, shape: [L, m, m], voxelSize: h };
}

/** Mean of `values` over the pore voxels of plane `i` (axis 0) of a [n0, n1, n2] field. */
function planeMean(values, solid, shape, i) {
  const plane = shape[1] * shape[2];
  let sum = 0;
  let count = 0;
  for (let v = i * plane; v < (i + 1) * plane; v++) {
    if (solid[v] !== 0) continue;
    sum += values[v];
    count++;
  }
  return sum / count;
}

describe('flowFields and writeFlowVti', () => {
  for (const drive of ['body-force', 'pressure']) {
    it(`${drive}: the sample alone, the pressure dropping by G·(L − 1)·voxelSize across it and the mean velocity k·G/μ`, async () => {
      const image = duct(20, 6);
      const result = await permeability(image, { drive, tolerance: 1e-8, maxSteps: 100_000 });
      try {
        const G = 2.5e4;
        const mu = 8.9e-4;
        const f = flowFields(result, { pressureGradient: G, viscosity: mu });
        assert.deepEqual(f.shape, image.shape, 'the buffers are cut off');
        assert.deepEqual([...f.solid], [...image.solid]);
        const count = image.solid.length;
        let mean = 0;
        for (let c = 0; c < count; c++) mean += f.velocity[3 * c];
        mean /= count;
        const darcy = (result.permeability * G) / mu;
        assert.ok(Math.abs(mean / darcy - 1) < 1e-6, `mean velocity ${mean}, k G / μ ${darcy}`);
        assert.equal(f.darcyVelocity, darcy);
        const drop = planeMean(f.pressure, f.solid, f.shape, 0) - planeMean(f.pressure, f.solid, f.shape, 19);
        const expected = G * 19 * h;
        assert.ok(Math.abs(drop / expected - 1) < 0.01, `pressure drop ${drop} Pa, G (L − 1) h = ${expected} Pa`);
        assert.ok(Math.abs(planeMean(f.pressure, f.solid, f.shape, 19)) < 1e-9 * expected, 'zero at the last plane');
        for (let c = 0; c < count; c++) {
          if (f.solid[c] !== 0) assert.ok(Number.isNaN(f.pressure[c]), 'NaN pressure in solid voxels');
        }
        // The lattice's own fields of the same voxels, beside the SI ones.
        const whole = result.lattice.shape;
        const buffer = result.latticeUnits.buffer;
        const inLattice = (buffer * whole[1] + 3) * whole[2] + 3;
        assert.equal(f.latticeDensity[3 * 8 + 3], result.lattice.density[inLattice]);
      } finally {
        result.lattice.release();
      }
    });
  }

  it('writeFlowVti writes the sample with origin 0, spacing in metres and fields named with their units', async () => {
    const image = duct(6, 4);
    const result = await permeability(image, { tolerance: 1e-4 });
    const dir = mkdtempSync(join(tmpdir(), 'peclet-fields-'));
    try {
      await writeFlowVti(result, join(dir, 'flow.vti'));
      const xml = readFileSync(join(dir, 'flow.vti'), 'latin1');
      assert.match(xml, /<ImageData WholeExtent="0 6 0 6 0 6" Origin="0 0 0" Spacing="0.000002 0.000002 0.000002">/);
      for (const name of [
        'solid',
        'velocity [m/s]',
        'pressure [Pa]',
        'velocity [lattice units]',
        'density [lattice units]',
      ])
        assert.ok(xml.includes(`Name="${name}"`), name);
    } finally {
      result.lattice.release();
      rmSync(dir, { recursive: true, force: true });
    }
    assert.throws(() => flowFields(result), /released/);
  });

  it('refuses bad options naming them, and a result that is not one', async () => {
    const result = await permeability(duct(4, 4), { tolerance: 1e-3 });
    try {
      assert.throws(
        () => flowFields(result, { viscosity: 0 }),
        (e) => e instanceof RangeError && e.argument === 'viscosity',
      );
      assert.throws(
        () => flowFields(result, { pressureGradient: 'high' }),
        (e) => e instanceof TypeError && e.argument === 'pressureGradient',
      );
      assert.throws(
        () => flowFields(result, { gradient: 1 }),
        (e) => e instanceof TypeError && /gradient/.test(e.message),
      );
      assert.throws(() => flowFields({ ...result, lattice: {} }), TypeError);
      assert.throws(() => flowFields(null), TypeError);
    } finally {
      result.lattice.release();
    }
  });
});

describe("permeability()'s progress and warnings", () => {
  it('projects the steps it will take: at half the run the projection is within a factor 1.5 of the end', async () => {
    const image = crop(berea(), 40);
    const seen = [];
    const result = await permeability(
      { ...image, voxelSize: 5.345e-6 },
      {
        precision: 'f32',
        tolerance: 1e-5,
        onProgress: ({ steps, projectedSteps }) => seen.push([steps, projectedSteps]),
      },
    );
    result.lattice.release();
    assert.equal(result.converged, true);
    const end = result.steps;
    const half = seen.find(([steps]) => steps >= end / 2);
    assert.ok(half !== undefined && half[1] > 0, `no projection at half the run: ${JSON.stringify(seen.slice(0, 8))}`);
    assert.ok(half[1] >= end / 1.5 && half[1] <= end * 1.5, `at ${half[0]} steps projected ${half[1]}, took ${end}`);
    // A bar at steps / projected then shows at most 75%, not 99% with half the work left.
    assert.ok(half[0] / half[1] <= 0.75, `bar at ${((100 * half[0]) / half[1]).toFixed(0)}%`);
  });

  it('lists a voxel size in micrometres and the permeability it gives; none for a right one', async () => {
    const image = duct(6, 4);
    const wrong = await permeability({ ...image, voxelSize: 2 }, { tolerance: 1e-3 });
    wrong.lattice.release();
    assert.equal(wrong.warnings.length, 2, wrong.warnings.join('\n'));
    assert.match(wrong.warnings[0], /voxel size 2 m is above 1 mm/);
    assert.match(wrong.warnings[1], /direct permeability .* above 1000 D/);
    const right = await permeability(image, { tolerance: 1e-3 });
    right.lattice.release();
    assert.deepEqual(right.warnings, []);
  });
});
