// The common mistakes of a first run, each caught: a PoreSpy boolean image read inside out, a
// voxel size in micrometres, a raw file read with the wrong shape, a labelled image with more than
// two phases, a reader that closes the pipe early, and a flow field that does not lie on the image.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cliPath, grains, peclet, random, readVtk, tempFolder } from './helpers.mjs';

/** An .npy of booleans (format 1.0, C order) holding `pore` as True: PoreSpy's convention. */
function writeBoolNpy(path, pore, shape) {
  let header = `{'descr': '|b1', 'fortran_order': False, 'shape': (${shape.join(', ')}), }`;
  const total = Math.ceil((10 + header.length + 1) / 64) * 64;
  header = `${header.padEnd(total - 10 - 1, ' ')}\n`;
  const prefix = Buffer.alloc(10);
  prefix.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]);
  prefix.writeUInt16LE(header.length, 8);
  writeFileSync(path, Buffer.concat([prefix, Buffer.from(header, 'latin1'), Buffer.from(pore)]));
}

const porosityOf = (solid) => solid.reduce((a, s) => a + (s === 0 ? 1 : 0), 0) / solid.length;

describe('the CLI catches the common mistakes', () => {
  const { dir, cleanup } = tempFolder();
  const n = 40;
  const { solid, shape } = grains(n);
  const porosity = porosityOf(solid);
  const raw = join(dir, 'grains.raw');
  before(() => {
    writeFileSync(raw, solid);
    writeBoolNpy(
      join(dir, 'porespy.npy'),
      solid.map((s) => (s ? 0 : 1)),
      shape,
    );
  });
  after(cleanup);

  it("reads a boolean .npy as PoreSpy's True = pore, and says so", async () => {
    const r = await peclet(['extract', 'porespy.npy', '--voxel-size', '1e-6', '--json'], { cwd: dir });
    assert.equal(r.status, 0, r.stderr);
    const report = JSON.parse(r.stdout);
    assert.ok(Math.abs(report.image.porosity - porosity) < 1e-12, `porosity ${report.image.porosity}, not ${porosity}`);
    assert.match(report.image.convention, /True = pore \(PoreSpy/);
    assert.match(r.stderr, /^peclet: note: porespy\.npy holds a boolean array: read as True = pore/m);

    const inverted = await peclet(['extract', 'porespy.npy', '--voxel-size', '1e-6', '--solid', 'nonzero', '--json'], {
      cwd: dir,
    });
    assert.equal(inverted.status, 0, inverted.stderr);
    assert.ok(Math.abs(JSON.parse(inverted.stdout).image.porosity - (1 - porosity)) < 1e-12);
    assert.doesNotMatch(inverted.stderr, /note/, 'an explicit --solid needs no note');

    const quiet = await peclet(['extract', 'porespy.npy', '--voxel-size', '1e-6', '--json', '--quiet'], { cwd: dir });
    assert.equal(quiet.stderr, '', '--quiet leaves stderr empty');
  });

  it('warns about a voxel size in micrometres and the permeability it gives, and --quiet silences it', async () => {
    const args = ['extract', 'grains.raw', '--shape', '40,40,40', '--voxel-size', '5.345', '--json'];
    const r = await peclet(args, { cwd: dir });
    assert.equal(r.status, 0, r.stderr);
    const { warnings } = JSON.parse(r.stdout);
    assert.equal(warnings.length, 2, warnings.join('\n'));
    assert.match(warnings[0], /voxel size 5\.345 m is above 1 mm.*micrometres/);
    assert.match(warnings[1], /network permeability .* above 1000 D/);
    assert.equal(r.stderr.match(/^peclet: warning: /gm)?.length, 2, r.stderr);

    const quiet = await peclet([...args, '-q'], { cwd: dir });
    assert.equal(quiet.stderr, '');
    assert.deepEqual(JSON.parse(quiet.stdout).warnings, warnings, '--json lists the warnings whether or not quiet');

    const right = await peclet(['extract', 'grains.raw', '--shape', '40,40,40', '--voxel-size', '5.345e-6', '--json'], {
      cwd: dir,
    });
    assert.deepEqual(JSON.parse(right.stdout).warnings, []);
    assert.equal(right.stderr, '');
  });

  it('warns when the rows of a raw file do not line up with --shape', async () => {
    // Spheres at random places (a lattice of them would repeat along a wrong row as well).
    const next = random(7);
    const centres = Array.from({ length: 90 }, () => [next() * n, next() * n, next() * n]);
    const blobs = new Uint8Array(n * n * n);
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++)
        for (let k = 0; k < n; k++)
          if (centres.some(([x, y, z]) => (i - x) ** 2 + (j - y) ** 2 + (k - z) ** 2 < 16))
            blobs[(i * n + j) * n + k] = 1;
    writeFileSync(join(dir, 'blobs.raw'), blobs);
    const right = await peclet(['extract', 'blobs.raw', '--shape', '40,40,40', '--voxel-size', '1e-6', '--json'], {
      cwd: dir,
    });
    assert.deepEqual(JSON.parse(right.stdout).warnings, [], 'the right shape draws no warning');
    const r = await peclet(['extract', 'blobs.raw', '--shape', '80,40,20', '--voxel-size', '1e-6', '--json'], {
      cwd: dir,
    });
    assert.equal(r.status, 0, r.stderr);
    const { warnings } = JSON.parse(r.stdout);
    assert.ok(
      warnings.some((w) => /neighbouring voxels along .* are unrelated .* the shape may not match the data/.test(w)),
      warnings.join('\n'),
    );
  });

  it('--pore-value and --solid-value read a labelled image with more than two phases', async () => {
    // Phase 0 pore, phases 1 and 2 solid (2 where the grains' voxel index is even).
    const labels = solid.map((s, i) => (s ? 1 + (i % 2) : 0));
    writeFileSync(join(dir, 'labels.raw'), labels);
    const base = ['extract', 'labels.raw', '--shape', '40,40,40', '--voxel-size', '1e-6', '--json'];
    const pore0 = await peclet([...base, '--pore-value', '0'], { cwd: dir });
    assert.equal(pore0.status, 0, pore0.stderr);
    assert.ok(Math.abs(JSON.parse(pore0.stdout).image.porosity - porosity) < 1e-12);
    const solid2 = await peclet([...base, '--solid-value', '2'], { cwd: dir });
    const twos = labels.reduce((a, v) => a + (v === 2 ? 1 : 0), 0) / labels.length;
    assert.ok(Math.abs(JSON.parse(solid2.stdout).image.porosity - (1 - twos)) < 1e-12);
    assert.match(JSON.parse(solid2.stdout).image.convention, /value 2 = solid/);

    const both = await peclet([...base, '--solid', 'zero', '--pore-value', '0'], { cwd: dir });
    assert.equal(both.status, 2);
    assert.match(both.stderr, /--solid and --pore-value both say which voxels are solid/);
    const word = await peclet([...base, '--pore-value', 'zero'], { cwd: dir });
    assert.equal(word.status, 2);
    assert.match(word.stderr, /--pore-value must be a number, got "zero"/);
  });

  it("extract's network permeability is pnm's default, the conductance model the library uses", async () => {
    const { extract } = await import('@peclet/pnm');
    const network = extract({ solid, shape, voxelSize: 2e-6 }, { boundaries: ['x'] });
    let library;
    try {
      library = network.stokesFlow({ axis: 'x' });
    } finally {
      network.release();
    }
    const r = await peclet(['extract', 'grains.raw', '--shape', '40,40,40', '--voxel-size', '2e-6', '--json'], {
      cwd: dir,
    });
    assert.equal(r.status, 0, r.stderr);
    const report = JSON.parse(r.stdout);
    assert.ok(
      Math.abs(report.network.permeability / library.permeability - 1) < 1e-12,
      `CLI ${report.network.permeability} m², library default ${library.permeability} m²`,
    );
  });

  it('ends quietly when the reader of stdout has gone (… --json | true)', async () => {
    const child = spawn(
      process.execPath,
      [cliPath, 'extract', 'grains.raw', '--shape', '40,40,40', '--voxel-size', '1e-6', '--json'],
      {
        cwd: dir,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const [status, signal] = await new Promise((resolve) => child.on('close', (s, g) => resolve([s, g])));
    assert.equal(signal, null);
    assert.equal(stderr, '', 'no EPIPE stack');
    assert.equal(status, 0);
  });

  it("writes the flow field of the sample alone, in SI units, where the image and the network's pores lie", async () => {
    const flow = await peclet(
      [
        'permeability',
        'grains.raw',
        '--shape',
        '40,40,40',
        '--voxel-size',
        '2e-6',
        '--precision',
        'f32',
        '--tolerance',
        '1e-3',
        '--out',
        'flow.vti',
        '--json',
      ],
      { cwd: dir, timeoutMs: 120_000 },
    );
    assert.equal(flow.status, 0, flow.stderr);
    const network = await peclet(
      ['extract', 'grains.raw', '--shape', '40,40,40', '--voxel-size', '2e-6', '--out', 'network.vtp', '--json'],
      { cwd: dir },
    );
    assert.equal(network.status, 0, network.stderr);
    const vti = readVtk(join(dir, 'flow.vti'));
    assert.deepEqual(vti.image, { extent: '0 40 0 40 0 40', origin: '0 0 0', spacing: '0.000002 0.000002 0.000002' });
    for (const name of [
      'solid',
      'velocity [m/s]',
      'pressure [Pa]',
      'velocity [lattice units]',
      'density [lattice units]',
    ]) {
      assert.ok(name in vti.arrays, `the .vti has no array '${name}'`);
    }
    // VTK orders cells x fastest: cell (i, j, k) is element i + 40 (j + 40 k).
    const at = (i, j, k) => i + n * (j + n * k);
    let mismatches = 0;
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++)
        for (let k = 0; k < n; k++) if (vti.arrays.solid[at(i, j, k)] !== solid[(i * n + j) * n + k]) mismatches++;
    assert.equal(mismatches, 0, 'every voxel of the .vti is the image voxel at the same place');
    // The network's largest interior pore: its centre lies in a pore cell of the .vti.
    const vtp = readVtk(join(dir, 'network.vtp'));
    const faces = vtp.arrays['pore.face'];
    const sizes = vtp.arrays['pore.inscribed_diameter'];
    let best = -1;
    for (let p = 0; p < sizes.length; p++) if (faces[p] < 0 && (best < 0 || sizes[p] > sizes[best])) best = p;
    const centre = vtp.arrays.Points.slice(3 * best, 3 * best + 3).map((x) => Math.floor(x / 2e-6));
    assert.equal(
      vti.arrays.solid[at(...centre)],
      0,
      `pore ${best}'s centre (cell ${centre}) is a pore voxel of the .vti`,
    );
    // SI units: Darcy's law gives the mean velocity along x over every voxel, k G / μ.
    const { direct } = JSON.parse(flow.stdout);
    const u = vti.arrays['velocity [m/s]'];
    let mean = 0;
    for (let c = 0; c < n * n * n; c++) mean += u[3 * c];
    mean /= n * n * n;
    const darcy = (direct.permeability * 1e4) / 1e-3;
    // (to the run's tolerance: the flux of each plane settles to the same value)
    assert.ok(Math.abs(mean / darcy - 1) < 1e-3, `mean velocity ${mean} m/s, Darcy ${darcy} m/s`);
  });
});
