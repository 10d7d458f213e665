// The pore network of the Berea sandstone (200³ voxels of 5.345 µm, 1 = solid) with @peclet/pnm:
// statistics and extraction timings; permeability (pnm's default, Hagen–Poiseuille and shape-factor conduits) and
// formation factor along x beside the direct simulation of @peclet/flow on the same image (the
// first 100³ sub-cube, or all 200³ with --full); the network drawn over the slice x = 100
// (out/network.svg); the mercury-intrusion capillary pressure curve (out/capillary-pressure.svg);
// out/network.vtp for ParaView and the Statoil files out/berea_*.dat for OpenPNM and pnflow.
//   node main.mjs [--full]
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { permeability } from '@peclet/flow';
import { writeAtomically } from '@peclet/io';
import { colourBar, css, lengthUnit, viridisColour, writeFigure } from '@peclet/plot';
import { extract } from '@peclet/pnm';
import { capillaryPressureSvg } from './capillary.mjs';

const here = import.meta.dirname ?? new URL('.', import.meta.url).pathname;
const args = process.argv.slice(2).filter((arg) => arg !== '--'); // pnpm passes a `--` through
if (args.some((arg) => arg !== '--full')) throw new Error(`usage: node main.mjs [--full] (got ${args.join(' ')})`);
const full = args.includes('--full');
const out = join(here, 'out');
mkdirSync(out, { recursive: true });

// The image ships with @peclet/flow's tests (see ../../packages/flow/test/fixtures).
const raw = gunzipSync(
  readFileSync(join(here, '..', '..', 'packages', 'flow', 'test', 'fixtures', 'berea-200.raw.gz')),
);
const berea = {
  solid: new Uint8Array(raw.buffer, raw.byteOffset, raw.length),
  shape: [200, 200, 200],
  voxelSize: 5.345e-6,
};

/** The cube [0, n)³ of an image (C order: the last index is fastest). */
function crop(image, n) {
  const [, n1, n2] = image.shape;
  const solid = new Uint8Array(n ** 3);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      const from = (i * n1 + j) * n2;
      solid.set(image.solid.subarray(from, from + n), (i * n + j) * n);
    }
  }
  return { solid, shape: [n, n, n], voxelSize: image.voxelSize };
}

const um = (m) => (m * 1e6).toFixed(1);

// 1. The network of the whole sample.
const network = extract(berea, { boundaries: ['x'] });
const stats = network.statistics();
const stages = network.timings;
const totalTime = Object.values(stages).reduce((a, b) => a + b, 0);
console.log(
  `Berea sandstone 200³ at 5.345 µm, porosity ${network.porosity.toFixed(4)}: SNOW network, boundary pores on x`,
);
console.log(
  `  pores        ${stats.poreCount} (${stats.boundaryPoreCount} boundary), throats ${stats.throatCount}, mean coordination ${stats.coordination.mean.toFixed(2)} (interior pores)`,
);
console.log(
  `  diameters    pores mean ${um(stats.poreDiameter.mean)} µm, median ${um(stats.poreDiameter.median)} µm; throats mean ${um(stats.throatDiameter.mean)} µm, median ${um(stats.throatDiameter.median)} µm`,
);
console.log(
  `  extraction   distance transform ${stages.distanceTransform.toFixed(2)} s, smoothing ${stages.smoothing.toFixed(2)} s, peaks ${stages.peaks.toFixed(2)} s, watershed ${stages.watershed.toFixed(2)} s, network ${stages.network.toFixed(2)} s: ${totalTime.toFixed(2)} s`,
);

// 2. Transport on the network beside the direct simulation of the same image.
const transport = (net) => ({
  pyramids: net.stokesFlow({ axis: 'x' }).millidarcy,
  poiseuille: net.stokesFlow({ axis: 'x', conductance: 'hagen-poiseuille' }).millidarcy,
  shapeFactor: net.stokesFlow({ axis: 'x', conductance: 'shape-factor' }).millidarcy,
  formationFactor: net.diffusion({ axis: 'x' }).formationFactor,
});
const size = full ? 200 : 100;
const sample = full ? berea : crop(berea, size);
const sampleNetwork = full ? network : extract(sample, { boundaries: ['x'] });
const onNetwork = transport(network);
const onSample = full ? onNetwork : transport(sampleNetwork);

console.log(`\nDirect simulation (lattice Boltzmann, @peclet/flow) of the ${size}³ sample along x…`);
const started = performance.now();
const direct = await permeability(sample, {
  axis: 'x',
  onProgress: ({ steps, residual }) => {
    if (process.stdout.isTTY) process.stdout.write(`\r  ${steps} steps, residual ${residual.toExponential(2)}   `);
  },
});
if (process.stdout.isTTY) process.stdout.write('\r\x1b[K');
direct.lattice.release();
console.log(
  `  ${direct.steps} steps, ${direct.converged ? 'converged' : 'NOT converged'}, ${((performance.now() - started) / 1e3).toFixed(1)} s; porosity ${direct.porosity.toFixed(4)}, tortuosity ${direct.tortuosity.toFixed(3)}`,
);

const row = (label, d, a, b, c) =>
  console.log(`  ${label.padEnd(26)}${d.padStart(10)}${a.padStart(18)}${b.padStart(14)}${c.padStart(18)}`);
console.log('\nPermeability along x (mD) and formation factor');
row('', 'default', 'Hagen–Poiseuille', 'shape factor', 'formation factor');
row(
  'network 200³',
  onNetwork.pyramids.toFixed(0),
  onNetwork.poiseuille.toFixed(0),
  onNetwork.shapeFactor.toFixed(0),
  onNetwork.formationFactor.toFixed(2),
);
if (!full) {
  row(
    `network ${size}³`,
    onSample.pyramids.toFixed(0),
    onSample.poiseuille.toFixed(0),
    onSample.shapeFactor.toFixed(0),
    onSample.formationFactor.toFixed(2),
  );
}
row(`direct simulation ${size}³`, direct.millidarcy.toFixed(0), '', '', '');
row(
  `network / direct (${size}³)`,
  (onSample.pyramids / direct.millidarcy).toFixed(2),
  (onSample.poiseuille / direct.millidarcy).toFixed(2),
  (onSample.shapeFactor / direct.millidarcy).toFixed(2),
  '',
);
console.log('Published figures, not computed here:');
console.log("  OpenPNM on PoreSpy snow2's network of this 200³ image: 1.318e-12 m² (1336 mD), formation factor 25.10");
console.log('  direct simulation of the full 400³ image:             1360 mD');
console.log(
  `  (our 200³ network, default conductances / OpenPNM: permeability ${(onNetwork.pyramids / 1335.6).toFixed(2)}, formation factor ${(onNetwork.formationFactor / 25.1).toFixed(2)})`,
);
if (!full) sampleNetwork.release();

// SVG helpers: numbers rounded to keep the files small; viridis as in every peclet picture.
const round = (v) => Math.round(v * 100) / 100;
const svg = (width, height, title, body) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="13">\n<title>${title}</title>\n${body.join('\n')}\n</svg>\n`;
const viridis = (t) => css(viridisColour(t));
const save = (name, text) => writeAtomically(join(out, name), (temp) => writeFile(temp, text));

// 3. The network over the slice x = 100: y to the right, z up, 3 px per voxel.
{
  const plane = 100;
  const slab = 5; // voxels either side of the plane's centre
  const [, n1, n2] = berea.shape;
  const h = berea.voxelSize;
  const scale = 3;
  const title = `Berea 200³: SNOW network over the slice x = ${plane}`;
  const body = [`<text x="20" y="24" font-size="15">${title}</text>`];
  body.push(`<g transform="translate(20,40) scale(${scale})">`, `<rect width="${n1}" height="${n2}" fill="#fff"/>`);
  // Solid as one rect per run of solid voxels in each row of constant z.
  const voxel = (j, k) => berea.solid[(plane * n1 + j) * n2 + k];
  const runs = [];
  for (let k = 0; k < n2; k++) {
    for (let j = 0; j < n1; ) {
      let end = j + 1;
      while (end < n1 && voxel(end, k) === voxel(j, k)) end++;
      if (voxel(j, k) === 1) runs.push(`<rect x="${j}" y="${n2 - 1 - k}" width="${end - j}" height="1"/>`);
      j = end;
    }
  }
  body.push(`<g fill="#999" shape-rendering="crispEdges">${runs.join('')}</g>`);
  const { pores, throats } = network;
  const xy = (p) => [round(pores.coordinates[3 * p + 1] / h), round(n2 - pores.coordinates[3 * p + 2] / h)];
  const near = (p) => Math.abs(pores.coordinates[3 * p] / h - (plane + 0.5)) <= slab;
  const drawn = [];
  for (let t = 0; t < network.throatCount; t++) {
    if (near(throats.conns[2 * t]) && near(throats.conns[2 * t + 1])) drawn.push(t);
  }
  const diameters = drawn.map((t) => throats.inscribedDiameter[t]);
  const [lo, hi] = [Math.min(...diameters), Math.max(...diameters)];
  const shade = (d) => viridis((d - lo) / (hi - lo || 1));
  for (const t of drawn) {
    const [[x1, y1], [x2, y2]] = [xy(throats.conns[2 * t]), xy(throats.conns[2 * t + 1])];
    body.push(
      `<line x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}" stroke="${shade(throats.inscribedDiameter[t])}" stroke-width="1"/>`,
    );
  }
  let shown = 0;
  let boundaryShown = 0;
  for (let p = 0; p < network.poreCount; p++) {
    if (!near(p)) continue;
    const [x, y] = xy(p);
    const boundary = pores.face[p] >= 0;
    shown++;
    if (boundary) boundaryShown++;
    const colour = boundary ? '#e6550d' : '#1f5fbf';
    body.push(
      `<circle cx="${x}" cy="${y}" r="${round(pores.inscribedDiameter[p] / 2 / h)}" fill="${colour}" fill-opacity="0.2" stroke="${colour}" stroke-width="0.4"/>`,
    );
  }
  body.push('</g>');
  // Legend: pores, then the colour bar of the throat diameters.
  const left = 40 + n1 * scale;
  body.push(
    `<circle cx="${left + 10}" cy="60" r="7" fill="#1f5fbf" fill-opacity="0.2" stroke="#1f5fbf"/><text x="${left + 24}" y="65">pore (${shown - boundaryShown})</text>`,
    `<circle cx="${left + 10}" cy="84" r="7" fill="#e6550d" fill-opacity="0.2" stroke="#e6550d"/><text x="${left + 24}" y="89">boundary pore (${boundaryShown})</text>`,
    `<text x="${left}" y="112">(on the x faces)</text>`,
    `<text x="${left}" y="132">centres within ±${slab} voxels</text>`,
  );
  body.push(
    colourBar({
      x: left,
      y: 160,
      width: 16,
      height: 250,
      range: [lo, hi],
      title: 'throat diameter',
      unit: lengthUnit(hi),
    }),
  );
  body.push(
    `<text x="20" y="${60 + n2 * scale}">y → (200 voxels = ${um(200 * h)} µm); z up; solid gray, pore space white; radius = inscribed radius</text>`,
  );
  await save('network.svg', svg(left + 190, 70 + n2 * scale, title, body));
  console.log(
    `\nNetwork drawn over the slice x = ${plane}: ${shown} pores and ${drawn.length} throats within ±${slab} voxels`,
  );
}

// 4. Mercury intrusion: the drainage capillary pressure curve, a staircase of log pressure
// against wetting saturation (SVG and PNG).
{
  const curve = network.drainage({ contactAngle: 140, surfaceTension: 0.48 });
  const svg = capillaryPressureSvg({
    pressure: curve.pressure,
    saturation: curve.saturation,
    title: 'Mercury intrusion in the Berea 200³ network (θ = 140°, σ = 0.48 N/m)',
    label: 'drainage from the x = 0 face',
  });
  await writeFigure(svg, {
    svgPath: join(out, 'capillary-pressure.svg'),
    pngPath: join(out, 'capillary-pressure.png'),
  });
  const at = (s) => curve.pressure[curve.saturation.findIndex((v) => v >= s)];
  console.log(
    `Mercury intrusion: ${curve.pressure.length} pressures from ${curve.pressure[0].toFixed(0)} Pa (saturation ${curve.saturation[0].toFixed(3)}) to ${curve.pressure.at(-1).toFixed(0)} Pa (saturation ${curve.saturation.at(-1).toFixed(3)}); saturation 0.5 at ${at(0.5).toFixed(0)} Pa`,
  );
}

// 5. ParaView and Statoil files, then where everything is.
await network.writeVtp(join(out, 'network.vtp'));
await network.writeStatoil(out, 'berea');
network.release();
console.log('\nWrote');
for (const name of [
  'network.svg',
  'capillary-pressure.svg',
  'capillary-pressure.png',
  'network.vtp',
  ...['node1', 'node2', 'link1', 'link2'].map((k) => `berea_${k}.dat`),
]) {
  const path = join(out, name);
  console.log(
    `  ${relative(process.cwd(), path).padEnd(36)} ${(statSync(path).size / 1024).toFixed(0).padStart(6)} KiB`,
  );
}
