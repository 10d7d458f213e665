// A liquid-fluidized bed through minimum fluidization: @peclet/dem deposits glass beads (1 mm,
// 2500 kg/m³) on the floor of a box periodic in x and y, then @peclet/coupling passes water up
// through them at superficial velocities ramped from a quarter of minimum fluidization to three times it,
// one stage per velocity, with a progress bar. The pressure drop of each stage (its second half,
// averaged) is printed and plotted against the velocity with Ergun's line for the packed bed's
// void fraction and the bed's buoyant weight per area; at the end the bed is drawn (spheres near
// the mid-plane y, coloured by speed) and written for ParaView.
//
//   node src/main.mjs [--quick] [--spheres N] [--drag di-felice|beetstra|gidaspow]
//
// Writes into out/ (each file atomically): pressure-drop.svg, bed.svg, bed.vtp, fluid.vti.
import { mkdirSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { CoupledSimulation } from '@peclet/coupling';
import { Simulation } from '@peclet/dem';
import { writeAtomically, writeVti, writeVtp } from '@peclet/io';
import cliProgress from 'cli-progress';

const here = import.meta.dirname ?? new URL('.', import.meta.url).pathname;
const { values } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== '--'), // pnpm passes a `--` through
  options: {
    quick: { type: 'boolean', default: false },
    spheres: { type: 'string' },
    drag: { type: 'string', default: 'di-felice' },
  },
});
const quick = values.quick;
const count = Number(values.spheres ?? (quick ? 1500 : 3000));
if (!Number.isInteger(count) || count < 200 || count > 200_000)
  throw new RangeError(`--spheres must be an integer in [200, 200000], got ${values.spheres}`);
const drag = values.drag;

// The case (SI): glass beads in water.
const d = 1e-3; // diameter (m)
const rhoP = 2500; // kg/m³
const rhoF = 1000;
const mu = 1e-3; // Pa·s
const g = 9.81;
const cell = 3 * d; // fluid cells of 3 diameters
const across = quick ? 3 : 4; // cells along x and y: a bed several cells deep
const width = across * cell;
const area = width * width;
const sphereVolume = (Math.PI * d ** 3) / 6;
// Room for the bed to expand: about 2.5 times a packed bed of solid fraction 0.6.
const cellsUp = Math.max(12, Math.ceil((2.5 * count * sphereVolume) / (0.6 * area) / cell));
const height = cellsUp * cell;
// Hookean contacts, stiff enough for a mean overlap under 1% of the radius in the dry deposit;
// dem steps of a twentieth of the contact time.
const stiffness = 20; // N/m
const mass = rhoP * sphereVolume;
const timestep = (Math.PI * Math.sqrt(mass / 2 / stiffness)) / 20;
// The ramp, as multiples of the packed bed's Ergun minimum fluidization velocity.
const ramp = quick ? [0.25, 0.5, 1, 1.5, 2, 2.5, 3] : [0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2, 2.5, 3];
const stageTime = quick ? 0.05 : 0.06; // simulated seconds per velocity

const out = join(here, '..', 'out');
mkdirSync(out, { recursive: true });
const started = performance.now();
const seconds = () => ((performance.now() - started) / 1e3).toFixed(0);

// 1. The packed bed: deposited dry under gravity.
const particles = new Simulation({
  box: { min: [0, 0, 0], max: [width, width, height] },
  periodic: [true, true, false], // walls on z: the floor is the distributor
  gravity: [0, 0, -g],
  timestep,
  contact: { model: 'linear', stiffness, restitution: 0.3, friction: 0.5 },
});
console.log(
  `${count} glass beads of ${d * 1e3} mm in water; box ${(width * 1e3).toFixed(0)} × ${(width * 1e3).toFixed(0)} × ${(height * 1e3).toFixed(0)} mm, ` +
    `${across} × ${across} × ${cellsUp} fluid cells of ${cell * 1e3} mm; ${drag} drag`,
);
const bar = new cliProgress.SingleBar(
  { format: '{stage} {bar} {percentage}% | {detail}', hideCursor: true, etaBuffer: 20 },
  cliProgress.Presets.shades_classic,
);
{
  // Settling is judged on the kinetic energy per sphere: show it on a log scale.
  const threshold = 1e-5 * mass * g * d;
  let first;
  bar.start(100, 0, { stage: 'depositing ', detail: '' });
  const report = await particles.depositAsync({
    count,
    radius: d / 2,
    density: rhoP,
    seed: 2024,
    regionTop: 0.8 * height,
    kineticEnergyThreshold: threshold,
    maxSteps: 40_000,
    onProgress: ({ steps, kineticEnergyPerSphere }) => {
      first ??= kineticEnergyPerSphere;
      const f = Math.log(first / kineticEnergyPerSphere) / Math.log(first / threshold);
      bar.update(Math.round(99 * Math.min(1, Math.max(0, Number.isFinite(f) ? f : 0))), {
        detail: `${steps} dem steps`,
      });
    },
  });
  bar.update(100, {
    detail: `${report.steps} dem steps, ${report.settled ? 'settled' : 'NOT settled'}, ${seconds()} s`,
  });
  bar.stop();
}

// The packed bed's void fraction ε in its bulk (two diameters clear of the floor and of the
// rough top), and its height H: that of a uniform bed of ε holding every sphere, so that
// (1 − ε) H A is the spheres' volume exactly.
let top = 0;
for (let i = 2; i < 3 * count; i += 3) top = Math.max(top, particles.positions[i]);
const voidFraction = 1 - particles.packingFraction({ min: [0, 0, 2 * d], max: [width, width, top - 2 * d] });
const bedHeight = (count * sphereVolume) / ((1 - voidFraction) * area);
// The bed's buoyant weight per area: the plateau of a fluidized bed.
const bedWeight = (rhoP - rhoF) * g * (1 - voidFraction) * bedHeight;
// Ergun (1952) for the packed bed: Δp/H = 150 μ (1−ε)² U / (ε³ d²) + 1.75 ρ (1−ε) U² / (ε³ d).
const ergunLinear = (150 * mu * (1 - voidFraction) ** 2) / (voidFraction ** 3 * d ** 2);
const ergunQuadratic = (1.75 * rhoF * (1 - voidFraction)) / (voidFraction ** 3 * d);
const ergun = (u) => bedHeight * (ergunLinear * u + ergunQuadratic * u * u);
// Minimum fluidization: Ergun's pressure drop equals the weight.
const perHeight = bedWeight / bedHeight;
const minimumFluidization =
  (-ergunLinear + Math.sqrt(ergunLinear ** 2 + 4 * ergunQuadratic * perHeight)) / (2 * ergunQuadratic);
console.log(
  `packed bed: ε = ${voidFraction.toFixed(3)}, H = ${(bedHeight * 1e3).toFixed(1)} mm; ` +
    `buoyant weight per area ${bedWeight.toFixed(1)} Pa; Ergun U_mf = ${(minimumFluidization * 1e3).toFixed(2)} mm/s ` +
    `(Re_mf ${((rhoF * minimumFluidization * d) / mu).toFixed(1)})`,
);

// 2. The ramp: one coupled simulation, its fluid step chosen for the fastest velocity of the ramp,
//    the drive raised in place stage after stage (the fluid keeps its state between stages).
const stages = [];
const coupled = new CoupledSimulation({
  particles,
  fluid: {
    cellSize: cell,
    viscosity: mu,
    density: rhoF,
    drive: { superficialVelocity: [0, 0, Math.max(...ramp) * minimumFluidization] },
  },
  drag,
});
bar.start(Math.round(ramp.length * stageTime * 1e3), 0, { stage: 'fluidizing', detail: '' });
for (const [index, ratio] of ramp.entries()) {
  const velocity = ratio * minimumFluidization;
  coupled.setDrive({ superficialVelocity: [0, 0, velocity] });
  const steps = Math.ceil(stageTime / coupled.timestepReport.timestep);
  let sum = 0;
  let sumSquares = 0;
  let samples = 0;
  let shown = performance.now();
  for (let k = 0; k < steps; k++) {
    coupled.step(1);
    if (2 * k >= steps) {
      const dp = coupled.pressureDrop('z');
      sum += dp;
      sumSquares += dp * dp;
      samples++;
    }
    if (performance.now() - shown > 100 || k === steps - 1) {
      shown = performance.now();
      bar.update(Math.round((index + (k + 1) / steps) * stageTime * 1e3), {
        detail: `U ${(velocity * 1e3).toFixed(2)} mm/s (${ratio.toFixed(2)} U_mf), Δp ${samples ? (sum / samples).toFixed(1) : '…'} Pa, ${seconds()} s`,
      });
      await new Promise((resolve) => setTimeout(resolve, 0)); // let the bar draw
    }
  }
  const mean = sum / samples;
  let highest = 0;
  const z = particles.positions;
  for (let i = 2; i < z.length; i += 3) highest = Math.max(highest, z[i]);
  stages.push({
    velocity,
    ratio,
    pressureDrop: mean,
    spread: Math.sqrt(Math.max(0, sumSquares / samples - mean * mean)),
    top: highest + d / 2,
    substeps: coupled.timestepReport.substeps,
    steps,
  });
}
bar.stop();

console.log('\n  U (mm/s)  U/U_mf   Δp (Pa)   ± (Pa)   Δp/weight   Ergun (Pa)   bed top (mm)');
for (const s of stages) {
  console.log(
    `  ${(s.velocity * 1e3).toFixed(2).padStart(8)}  ${s.ratio.toFixed(2).padStart(6)}  ${s.pressureDrop.toFixed(1).padStart(8)}` +
      `  ${s.spread.toFixed(1).padStart(7)}  ${(s.pressureDrop / bedWeight).toFixed(3).padStart(10)}` +
      `  ${ergun(s.velocity).toFixed(1).padStart(11)}  ${(s.top * 1e3).toFixed(1).padStart(13)}`,
  );
}
const fluidized = stages.filter((s) => s.ratio >= 2.5);
const plateau = fluidized.reduce((a, s) => a + s.pressureDrop, 0) / fluidized.length;
console.log(
  `\nplateau (U ≥ 2.5 U_mf): ${plateau.toFixed(1)} Pa against the bed's buoyant weight per area ${bedWeight.toFixed(1)} Pa ` +
    `(ratio ${(plateau / bedWeight).toFixed(3)}); ${stages[0].substeps} dem steps per fluid step of ` +
    `${(stageTime / stages[0].steps).toExponential(2)} s`,
);

// 3. Pictures and files.
const round = (v) => Math.round(v * 100) / 100;
const svg = (w, h, title, body) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" font-family="sans-serif" font-size="13">\n<title>${title}</title>\n${body.join('\n')}\n</svg>\n`;
const save = (name, text) => writeAtomically(join(out, name), (temp) => writeFile(temp, text));
const VIRIDIS = ['#440154', '#472d7b', '#3b528b', '#2c728e', '#21918c', '#28ae80', '#5ec962', '#addc30', '#fde725'];
function viridis(x) {
  const f = Math.min(1, Math.max(0, x)) * (VIRIDIS.length - 1);
  const i = Math.min(VIRIDIS.length - 2, Math.floor(f));
  const [a, b] = [VIRIDIS[i], VIRIDIS[i + 1]].map((c) => [1, 3, 5].map((p) => Number.parseInt(c.slice(p, p + 2), 16)));
  return `rgb(${a.map((v, c) => Math.round(v + (b[c] - v) * (f - i))).join(',')})`;
}

// Pressure drop against superficial velocity.
{
  const [w, h, m] = [680, 460, { left: 72, right: 24, top: 44, bottom: 56 }];
  const [pw, ph] = [w - m.left - m.right, h - m.top - m.bottom];
  const uMax = 1.05 * Math.max(...stages.map((s) => s.velocity)) * 1e3; // mm/s
  const pMax = 1.3 * Math.max(bedWeight, ...stages.map((s) => s.pressureDrop + s.spread));
  const X = (u) => round(m.left + (u * 1e3 * pw) / uMax);
  const Y = (p) => round(m.top + ph - (p / pMax) * ph);
  const title = `Fluidization of ${count} glass beads (d = ${d * 1e3} mm) in water, ${drag} drag`;
  const body = [
    `<text x="${w / 2}" y="26" text-anchor="middle" font-size="15">${title}</text>`,
    `<rect x="${m.left}" y="${m.top}" width="${pw}" height="${ph}" fill="none" stroke="#000"/>`,
  ];
  const tick = (max) => {
    const raw = max / 6;
    const step = 10 ** Math.floor(Math.log10(raw));
    return [1, 2, 5, 10].map((k) => k * step).find((s) => s >= raw);
  };
  for (let u = 0, du = tick(uMax); u <= uMax + 1e-9; u += du) {
    const x = X(u / 1e3);
    body.push(
      `<line x1="${x}" y1="${m.top}" x2="${x}" y2="${m.top + ph}" stroke="#ddd"/>`,
      `<text x="${x}" y="${m.top + ph + 20}" text-anchor="middle">${round(u)}</text>`,
    );
  }
  for (let p = 0, dp = tick(pMax); p <= pMax + 1e-9; p += dp) {
    const y = Y(p);
    body.push(
      `<line x1="${m.left}" y1="${y}" x2="${m.left + pw}" y2="${y}" stroke="#ddd"/>`,
      `<text x="${m.left - 8}" y="${y + 4}" text-anchor="end">${round(p)}</text>`,
    );
  }
  // Ergun's line, as far as it stays in the plot.
  const ergunPoints = [];
  for (let i = 0; i <= 200; i++) {
    const u = (i / 200) * (uMax / 1e3);
    if (ergun(u) > pMax) break;
    ergunPoints.push(`${X(u)},${Y(ergun(u))}`);
  }
  body.push(
    `<polyline points="${ergunPoints.join(' ')}" fill="none" stroke="#e6550d" stroke-width="2"/>`,
    `<line x1="${m.left}" y1="${Y(bedWeight)}" x2="${m.left + pw}" y2="${Y(bedWeight)}" stroke="#31a354" stroke-width="2" stroke-dasharray="8 5"/>`,
    `<line x1="${X(minimumFluidization)}" y1="${m.top}" x2="${X(minimumFluidization)}" y2="${m.top + ph}" stroke="#777" stroke-dasharray="3 4"/>`,
    `<text x="${X(minimumFluidization) + 4}" y="${m.top + ph - 8}" fill="#555">U_mf (Ergun) ${(minimumFluidization * 1e3).toFixed(2)} mm/s</text>`,
  );
  const points = stages.map((s) => [X(s.velocity), Y(s.pressureDrop)]);
  body.push(
    `<polyline points="${points.join(' ')}" fill="none" stroke="#1f5fbf" stroke-width="1.5"/>`,
    ...stages.map(
      (s) =>
        `<line x1="${X(s.velocity)}" y1="${Y(s.pressureDrop - s.spread)}" x2="${X(s.velocity)}" y2="${Y(s.pressureDrop + s.spread)}" stroke="#1f5fbf"/>`,
    ),
    `<g fill="#1f5fbf">${points.map(([x, y]) => `<circle cx="${x}" cy="${y}" r="3.5"/>`).join('')}</g>`,
  );
  const legend = [
    ['#1f5fbf', 'solid', 'CFD-DEM: mean of each stage’s second half (± its spread)'],
    ['#e6550d', 'solid', `Ergun, packed bed: ε = ${voidFraction.toFixed(3)}, H = ${(bedHeight * 1e3).toFixed(1)} mm`],
    ['#31a354', '8 5', `bed weight (ρp − ρf) g (1 − ε) H = ${bedWeight.toFixed(1)} Pa`],
  ];
  legend.forEach(([colour, dash, text], i) => {
    const y = m.top + 20 + 20 * i;
    body.push(
      `<line x1="${m.left + 14}" y1="${y - 4}" x2="${m.left + 44}" y2="${y - 4}" stroke="${colour}" stroke-width="2"${dash === 'solid' ? '' : ` stroke-dasharray="${dash}"`}/>`,
      `<text x="${m.left + 52}" y="${y}">${text}</text>`,
    );
  });
  body.push(
    `<text x="${m.left + pw / 2}" y="${h - 14}" text-anchor="middle">superficial velocity U (mm/s)</text>`,
    `<text transform="translate(20,${m.top + ph / 2}) rotate(-90)" text-anchor="middle">pressure drop Δp (Pa)</text>`,
  );
  await save('pressure-drop.svg', svg(w, h, title, body));
}

// The bed at the end: the spheres whose centres lie within half a cell of the mid-plane y,
// projected on x–z (farther ones first), coloured by speed; the fluid cells drawn faintly.
const positions = particles.positions;
const velocities = particles.velocities;
const radii = particles.radii;
const speed = new Float64Array(count);
for (let i = 0; i < count; i++) speed[i] = Math.hypot(velocities[3 * i], velocities[3 * i + 1], velocities[3 * i + 2]);
{
  const scale = 16; // px per mm
  const plane = width / 2;
  const slab = cell / 2;
  const [w, h] = [round(width * 1e3 * scale), round(height * 1e3 * scale)];
  const [left, topMargin] = [20, 64];
  const shown = [];
  for (let i = 0; i < count; i++) {
    const dy = Math.abs(positions[3 * i + 1] - plane);
    if (dy < slab) shown.push([dy, i]);
  }
  shown.sort((a, b) => b[0] - a[0]);
  const sorted = Array.from(speed).sort((a, b) => a - b);
  const vMax = Math.max(sorted[Math.floor(0.98 * (count - 1))], 1e-12);
  const title = `The bed at U = ${(stages.at(-1).velocity * 1e3).toFixed(2)} mm/s (${stages.at(-1).ratio} U_mf), t = ${(ramp.length * stageTime).toFixed(2)} s`;
  const body = [
    `<text x="${left}" y="22" font-size="15">${title}</text>`,
    `<text x="${left}" y="42">spheres within ±${(slab * 1e3).toFixed(1)} mm of y = ${(plane * 1e3).toFixed(1)} mm, coloured by speed; grid: fluid cells</text>`,
    `<g transform="translate(${left},${topMargin})">`,
    `<rect width="${w}" height="${h}" fill="#fff" stroke="#000"/>`,
  ];
  for (let k = 1; k < cellsUp; k++) {
    const y = round(h - k * cell * 1e3 * scale);
    body.push(`<line x1="0" y1="${y}" x2="${w}" y2="${y}" stroke="#eee"/>`);
  }
  for (let k = 1; k < across; k++) {
    const x = round(k * cell * 1e3 * scale);
    body.push(`<line x1="${x}" y1="0" x2="${x}" y2="${h}" stroke="#eee"/>`);
  }
  for (const [, i] of shown) {
    body.push(
      `<circle cx="${round(positions[3 * i] * 1e3 * scale)}" cy="${round(h - positions[3 * i + 2] * 1e3 * scale)}" r="${round(radii[i] * 1e3 * scale)}" fill="${viridis(speed[i] / vMax)}" stroke="#000" stroke-width="0.3"/>`,
    );
  }
  body.push('</g>');
  const barX = left + w + 24;
  for (let i = 0; i < 40; i++) {
    body.push(
      `<rect x="${barX}" y="${round(topMargin + 200 - (i + 1) * 5)}" width="16" height="5.5" fill="${viridis(i / 39)}"/>`,
    );
  }
  body.push(
    `<text x="${barX}" y="${topMargin + 224}">speed (mm/s)</text>`,
    `<text x="${barX + 22}" y="${topMargin + 204}">0</text>`,
    `<text x="${barX + 22}" y="${topMargin + 4}">${(vMax * 1e3).toFixed(1)}</text>`,
    `<text x="${left}" y="${topMargin + h + 22}">x → (${(width * 1e3).toFixed(0)} mm, periodic), z up</text>`,
  );
  await save('bed.svg', svg(Math.max(barX + 120, 560), topMargin + h + 36, title, body));
}
await writeVtp(join(out, 'bed.vtp'), {
  points: positions,
  pointData: {
    radius: radii,
    velocity: { values: velocities, components: 3 },
    speed,
    dragForce: { values: coupled.dragForces, components: 3 },
  },
});
await writeVti(join(out, 'fluid.vti'), {
  shape: coupled.shape,
  spacing: cell,
  cellData: {
    voidFraction: coupled.voidFraction,
    superficialVelocity: { values: coupled.fluidVelocity, components: 3 },
    pressure: coupled.pressure,
  },
});
coupled.release();
particles.release();

console.log(`\nWrote (${seconds()} s in all)`);
for (const name of ['pressure-drop.svg', 'bed.svg', 'bed.vtp', 'fluid.vti']) {
  const path = join(out, name);
  console.log(
    `  ${relative(process.cwd(), path).padEnd(30)} ${(statSync(path).size / 1024).toFixed(0).padStart(6)} KiB`,
  );
}
