// The pipeline end to end on a small packing (10 voxels across the smallest sphere): the script's
// --json summary, its files, and the three permeabilities' agreement.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

const app = join(import.meta.dirname, '..');

describe('permeability pipeline', () => {
  it('a packing of 240 spheres: three permeabilities that agree, porosities that match', () => {
    const output = execFileSync(process.execPath, [join(app, 'src', 'main.mjs'), '--json', '--resolution', '10'], {
      encoding: 'utf8',
      timeout: 300_000,
    });
    const s = JSON.parse(output);
    console.log(
      `direct / network ${s.ratios.directOverNetwork.toFixed(3)}, direct / Kozeny–Carman ${s.ratios.directOverKozenyCarman.toFixed(3)}, porosity spheres ${s.porosity.spheres.toFixed(4)} voxels ${s.porosity.voxels.toFixed(4)} network ${s.porosity.network.toFixed(4)}`,
    );
    assert.deepEqual(s.voxels, [50, 50, 50]);
    assert.ok(s.flow.converged);
    // The voxels sample the spheres' exact volume (centre sampling at 10 voxels per diameter);
    // the network's pores hold every pore voxel.
    assert.ok(Math.abs(s.porosity.voxels - s.porosity.spheres) < 0.01, JSON.stringify(s.porosity));
    assert.ok(Math.abs(s.porosity.network - s.porosity.voxels) < 1e-9, JSON.stringify(s.porosity));
    // Three independent methods: within a factor of 2 of one another (see the README for the
    // figures at the default resolution).
    assert.ok(s.ratios.directOverKozenyCarman > 0.5 && s.ratios.directOverKozenyCarman < 2, JSON.stringify(s.ratios));
    // The network with pnm's default conductances within a factor of 1.25 of the direct answer.
    assert.ok(s.ratios.directOverNetwork > 1 / 1.25 && s.ratios.directOverNetwork < 1.25, JSON.stringify(s.ratios));
    assert.equal(s.flow.sides, 'periodic');
    for (const file of ['flow.vti', 'network.vtp', 'velocity.png', 'report.svg'])
      assert.ok(existsSync(join(app, 'out', file)), file);
  });
});
