// `peclet extract`: a network with pores and throats, its VTK and Statoil files.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { transcript } from '@peclet/test-harness';
import { grains, peclet, tempFolder } from './helpers.mjs';

describe('peclet extract', () => {
  const temp = tempFolder();
  before(() => writeFileSync(join(temp.dir, 'grains.raw'), grains(30).solid));
  after(() => temp.cleanup());
  const image = ['grains.raw', '--shape', '30,30,30', '--voxel-size', '1e-5'];

  it('--json --out x.vtp --statoil: pores, throats, a permeability, and the files', async () => {
    const r = await peclet(['extract', ...image, '--json', '--out', 'x.vtp', '--statoil', 'net'], { cwd: temp.dir });
    assert.equal(r.status, 0, transcript(r));
    assert.equal(r.stderr, '', 'nothing on stderr when it is not a terminal');
    const report = JSON.parse(r.stdout);
    assert.ok(report.pores > 0 && report.throats > 0, r.stdout);
    assert.ok(report.boundaryPores > 0 && report.boundaryPores < report.pores);
    assert.deepEqual(report.boundaries, ['x']);
    assert.ok(report.coordination > 0);
    assert.ok(Math.abs(report.image.porosity - 0.5) < 0.5);
    assert.ok(report.network.permeability > 0, r.stdout);
    const vtp = readFileSync(join(temp.dir, 'x.vtp'));
    const head = vtp.subarray(0, 200).toString('latin1');
    assert.ok(head.startsWith('<?xml'), head);
    assert.match(head, /<VTKFile type="PolyData"/);
    for (const kind of ['node1', 'node2', 'link1', 'link2']) {
      assert.ok(existsSync(join(temp.dir, `net_${kind}.dat`)), kind);
    }
    assert.deepEqual(report.files, [
      'x.vtp',
      'net_node1.dat',
      'net_node2.dat',
      'net_link1.dat',
      'net_link2.dat',
      'grains-network.svg',
      'grains-network.png',
    ]);
  });

  it('--boundaries none: the network has no permeability, and says why', async () => {
    const r = await peclet(['extract', ...image, '--boundaries', 'none'], { cwd: temp.dir });
    assert.equal(r.status, 0, transcript(r));
    assert.equal(r.stderr, '');
    assert.match(r.stdout, /\d+ pores \(0 boundary pores/);
    assert.match(r.stdout, /network permeability along x .*: none — /);
  });
});
