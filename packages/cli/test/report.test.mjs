// The report pages of `peclet permeability` and `peclet extract`, drawn from small synthetic data
// (no solver runs): each renders at its stated size, says what its colour bar and axes measure
// and in which units, and the permeability map shows the sample without the lattice's buffers.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { checkPicture, embeddedRaster, svgTexts } from '@peclet/plot/check';
import { writeExtractReport, writePermeabilityReport } from '../dist/report.js';
import { grains, peclet, tempFolder } from './helpers.mjs';

const dir = process.env.PECLET_KEEP_PICTURES ?? mkdtempSync(join(tmpdir(), 'peclet-report-'));
after(() => process.env.PECLET_KEEP_PICTURES ?? rmSync(dir, { recursive: true, force: true }));

describe('report pages', () => {
  it('permeability: the mid-plane speed of the sample in physical units, buffers cropped', async () => {
    // 24 × 16 × 8 voxels of 5 µm along x, a solid disc in each z plane; 3 buffer layers either
    // side along x carrying a speed 1000 times the sample's, which must not show.
    const shape = [24, 16, 8];
    const buffer = 3;
    const solid = new Uint8Array(24 * 16 * 8);
    for (let i = 0; i < 24; i++)
      for (let j = 0; j < 16; j++)
        for (let k = 0; k < 8; k++) solid[(i * 16 + j) * 8 + k] = (i - 12) ** 2 + (j - 8) ** 2 < 25 ? 1 : 0;
    const lattice = [24 + 2 * buffer, 16, 8];
    const velocity = new Float32Array(3 * lattice[0] * lattice[1] * lattice[2]);
    for (let i = 0; i < lattice[0]; i++)
      for (let j = 0; j < 16; j++)
        for (let k = 0; k < 8; k++) {
          const inSample = i >= buffer && i < buffer + 24;
          if (inSample && solid[((i - buffer) * 16 + j) * 8 + k]) continue;
          velocity[3 * ((i * 16 + j) * 8 + k)] = inSample ? 0.01 : 10;
        }
    const files = { svg: join(dir, 'permeability.svg'), png: join(dir, 'permeability.png') };
    const permeability = 1.5e-12;
    const written = await writePermeabilityReport({
      files,
      source: 'synthetic.raw',
      image: { solid, shape, voxelSize: 5e-6 },
      velocity,
      buffer,
      axis: 'x',
      permeability,
      porosity: 0.8,
      steps: 1200,
      converged: true,
      tortuosity: 1.01,
    });
    assert.deepEqual(written, [files.svg, files.png]);
    // The speed is uniform in the pore space: the mid-cross-section's pore fraction φ_x carries
    // Darcy's U = k ∇p / μ (10 kPa/m, water), so |u| = U / φ_x = 15 µm/s / φ_x everywhere.
    let pore = 0;
    for (let j = 0; j < 16; j++) for (let k = 0; k < 8; k++) pore += 1 - solid[(12 * 16 + j) * 8 + k];
    const speed = ((permeability * 1e4) / 1e-3 / (pore / 128)) * 1e6; // µm/s
    const { svg, labels } = checkPicture(files.svg, {
      // 440 px along the longer side, the aspect kept; the table right of the colour bar.
      width: 90 + 440 + 150 + 330,
      height: Math.ceil(60 + (440 * 16) / 24 + 100),
      pngPath: files.png,
      texts: [
        'Permeability of synthetic.raw',
        '|u| (µm/s)',
        'x (µm)',
        'y (µm)',
        /^\d+ µm$/,
        '1.500e-12 m²',
        'porosity',
      ],
    });
    // The colour bar runs from 0 to the largest speed, the sample's own (the buffers' would be
    // 1000 times more).
    const bar = svg.match(/<g class="colour-bar">[\s\S]*?<\/g>/)[0];
    const ticks = svgTexts(bar)
      .filter((t) => /^[\d.]+$/.test(t))
      .map(Number);
    assert.equal(Math.min(...ticks), 0);
    assert.ok(Math.max(...ticks) <= speed && Math.max(...ticks) >= speed / 2, `ticks ${ticks}, speed ${speed} µm/s`);
    assert.ok(labels.some((t) => t.includes('mid-plane z = 4 of the sample; flow along x')));
    // The map is the sample alone: its raster is a whole multiple of 24 × 16 voxels.
    const raster = embeddedRaster(svg);
    const scale = raster.width / 24;
    assert.ok(Number.isInteger(scale) && scale >= 1, `raster ${raster.width} × ${raster.height}`);
    assert.equal(raster.height, 16 * scale);
    assert.ok(raster.width >= 300, `the map is drawn large: ${raster.width} px`);
  });

  it('extract: the network seen along z, throats coloured by diameter with a colour bar', async () => {
    // 4 × 3 × 2 pores on a 10-voxel grid in a 40 × 30 × 20 image of 2 µm voxels, joined to
    // their neighbours along x and y; the pores at x = 0 and x = 3 on the x faces.
    const [nx, ny, nz] = [4, 3, 2];
    const coordinates = [];
    const inscribedDiameter = [];
    const face = [];
    for (let i = 0; i < nx; i++)
      for (let j = 0; j < ny; j++)
        for (let k = 0; k < nz; k++) {
          coordinates.push((10 * i + 5) * 2e-6, (10 * j + 5) * 2e-6, (10 * k + 5) * 2e-6);
          inscribedDiameter.push((4 + i + j) * 2e-6);
          face.push(i === 0 ? 0 : i === nx - 1 ? 1 : -1);
        }
    const id = (i, j, k) => (i * ny + j) * nz + k;
    const conns = [];
    const throatDiameter = [];
    for (let i = 0; i < nx; i++)
      for (let j = 0; j < ny; j++)
        for (let k = 0; k < nz; k++) {
          if (i + 1 < nx) conns.push(id(i, j, k), id(i + 1, j, k));
          if (j + 1 < ny) conns.push(id(i, j, k), id(i, j + 1, k));
        }
    for (let t = 0; t < conns.length / 2; t++) throatDiameter.push((1 + (t % 5)) * 2e-6);
    const files = { svg: join(dir, 'extract.svg'), png: join(dir, 'extract.png') };
    await writeExtractReport({
      files,
      source: 'synthetic.raw',
      shape: [40, 30, 20],
      voxelSize: 2e-6,
      porosity: 0.31,
      pores: { coordinates: Float64Array.from(coordinates), inscribedDiameter, face },
      throats: { conns: Int32Array.from(conns), inscribedDiameter: throatDiameter },
      axis: 'x',
      boundaryPores: 12,
      coordination: 3.2,
      permeability: 2.2e-13,
    });
    const { svg } = checkPicture(files.svg, {
      width: 90 + 440 + 150 + 330,
      height: 60 + (440 * 30) / 40 + 100,
      pngPath: files.png,
      texts: [
        'Pore network of synthetic.raw',
        'throat diameter (µm)',
        'x (µm)',
        'y (µm)',
        '24 (12 boundary)',
        '2.200e-13 m²',
        'all 24 pores',
        '34 throats coloured by their inscribed diameter; seen along z',
      ],
    });
    // One circle per pore and one coloured line per throat.
    assert.equal(svg.match(/<circle /g).length, 24);
    assert.equal(svg.match(/<line [^>]*stroke="rgb\(/g).length, conns.length / 2);
  });
});

/** The page `<prefix>.svg` renders at its own size with `texts`, and `<prefix>.png` is it at zoom 2. */
function checkPage(prefix, texts) {
  const svg = readFileSync(`${prefix}.svg`, 'utf8');
  const [, width, height] = svg.match(/^<svg [^>]*width="([\d.]+)" height="([\d.]+)"/).map(Number);
  checkPicture(`${prefix}.svg`, { width, height, texts, pngPath: `${prefix}.png`, zoom: 2 });
}

describe('the commands write their report', () => {
  const { dir: cwd, cleanup } = tempFolder();
  after(cleanup);
  const { solid, shape } = grains(40);
  it('extract: <image>-network.svg and .png by default, listed in --json; --report <prefix>; --no-report none', async () => {
    writeFileSync(join(cwd, 'grains.raw'), solid);
    const base = ['extract', 'grains.raw', '--shape', shape.join(','), '--voxel-size', '2e-6', '--json'];
    const r = await peclet(base, { cwd });
    assert.equal(r.status, 0, r.stderr);
    const { files } = JSON.parse(r.stdout);
    assert.deepEqual(files, ['grains-network.svg', 'grains-network.png']);
    checkPage(join(cwd, 'grains-network'), [/throat diameter \(µm\)/, 'x (µm)', 'y (µm)']);
    mkdirSync(join(cwd, 'out'));
    const named = await peclet([...base, '--report', 'out/berea'], { cwd });
    assert.deepEqual(JSON.parse(named.stdout).files, ['out/berea.svg', 'out/berea.png']);
    assert.ok(existsSync(join(cwd, 'out', 'berea.png')));
    rmSync(join(cwd, 'out'), { recursive: true });
    mkdirSync(join(cwd, 'out'));
    const quiet = await peclet(
      ['extract', '../grains.raw', '--shape', shape.join(','), '--voxel-size', '2e-6', '--no-report', '--json'],
      {
        cwd: join(cwd, 'out'),
      },
    );
    assert.equal(quiet.status, 0, quiet.stderr);
    assert.deepEqual(JSON.parse(quiet.stdout).files, []);
    assert.deepEqual(readdirSync(join(cwd, 'out')), [], '--no-report writes nothing');
  });
  it('permeability: <image>-permeability.svg and .png, the speed map of the sample in m/s', async () => {
    const r = await peclet(
      [
        'permeability',
        'grains.raw',
        '--shape',
        shape.join(','),
        '--voxel-size',
        '2e-6',
        '--precision',
        'f32',
        '--tolerance',
        '1e-3',
        '--json',
      ],
      { cwd, timeoutMs: 120_000 },
    );
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout).report, ['grains-permeability.svg', 'grains-permeability.png']);
    checkPage(join(cwd, 'grains-permeability'), [/\|u\| \((mm|µm|nm)\/s\)/, 'x (µm)', 'y (µm)']);
  });
});
