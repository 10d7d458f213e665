// `peclet permeability`: the direct permeability of a slit against its exact value, the summary,
// and the pore network's permeability beside the direct one on a packing of grains.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { transcript } from '@peclet/test-harness';
import { grains, peclet, slit, tempFolder } from './helpers.mjs';

describe('peclet permeability', () => {
  const temp = tempFolder();
  const h = 7; // aperture of the slit, voxels
  const voxelSize = 1e-6;
  before(() => {
    // Walls normal to y, flow along z; x and y periodic sides (`--sides periodic`).
    const { solid } = slit(h, 3, 4);
    writeFileSync(join(temp.dir, 'slit.raw'), solid);
    writeFileSync(join(temp.dir, 'grains.raw'), grains(30).solid);
  });
  after(() => temp.cleanup());

  const slitArgs = [
    'permeability',
    'slit.raw',
    '--shape',
    `3,${h + 2},4`,
    '--voxel-size',
    String(voxelSize),
    '--axis',
    'z',
    '--sides',
    'periodic',
    '--buffer',
    '0',
    '--tolerance',
    '1e-13',
    '--max-steps',
    '200000',
  ];

  // As @peclet/flow's own test: the flux is the midpoint rule over the exact parabola, so a slit
  // of aperture H gives (H²/12 + 1/24)·φ voxel², exactly (1e-9 relative).
  it('--json: the slit of aperture 7 gives (H²/12 + 1/24)·φ·voxelSize², to 1e-9', async () => {
    const r = await peclet([...slitArgs, '--json'], { cwd: temp.dir });
    assert.equal(r.status, 0, transcript(r));
    assert.equal(r.stderr, '', 'nothing on stderr when it is not a terminal');
    const report = JSON.parse(r.stdout);
    const porosity = h / (h + 2);
    const expected = ((h * h) / 12 + 1 / 24) * porosity * voxelSize ** 2;
    assert.ok(
      Math.abs(report.direct.permeability / expected - 1) < 1e-9,
      `${report.direct.permeability} vs ${expected}`,
    );
    assert.ok(Math.abs(report.image.porosity - porosity) < 1e-15);
    assert.deepEqual(report.image.shape, [3, h + 2, 4]);
    assert.equal(report.axis, 'z');
    assert.equal(report.direct.converged, true);
    assert.ok(report.direct.steps > 0);
    assert.ok(Math.abs(report.direct.millidarcy / (expected / 9.869233e-16) - 1) < 1e-9);
    assert.ok(Math.abs(report.direct.darcy * 1e3 - report.direct.millidarcy) < 1e-9 * report.direct.millidarcy);
    assert.equal(report.network, undefined);
  });

  it('without --json: a summary with the porosity, m² and mD, the steps', async () => {
    const r = await peclet(slitArgs, { cwd: temp.dir });
    assert.equal(r.status, 0, transcript(r));
    assert.equal(r.stderr, '');
    assert.match(r.stdout, /porosity 0\.7778/);
    assert.match(r.stdout, /direct permeability along z \(lattice Boltzmann\): 3\.208e-12 m² = 3\.251 D/);
    assert.match(r.stdout, /\d+ steps, converged/);
  });

  it('--network: the pore network and the direct simulation agree within a factor of 3 on a packing of grains', async () => {
    const r = await peclet(
      [
        'permeability',
        'grains.raw',
        '--shape',
        '30,30,30',
        '--voxel-size',
        '1e-5',
        '--network',
        '--precision',
        'f32',
        '--tolerance',
        '1e-4',
        '--out',
        'flow.vti',
        '--json',
      ],
      { cwd: temp.dir },
    );
    assert.equal(r.status, 0, transcript(r));
    assert.equal(r.stderr, '');
    const report = JSON.parse(r.stdout);
    const direct = report.direct.permeability;
    const network = report.network.permeability;
    assert.ok(direct > 0 && network > 0, transcript(r));
    assert.ok(network / direct > 1 / 3 && network / direct < 3, `network ${network} m², direct ${direct} m²`);
    assert.ok(report.network.pores > report.network.boundaryPores && report.network.boundaryPores > 0);
    assert.equal(report.network.conductance, 'pyramids-and-cuboids');
    assert.equal(report.direct.vti, 'flow.vti');
  });
});
