// executionSpace 'webgpu': the contact model in WGSL compute shaders, checked against exact
// answers and against the CPU kernel. Skipped, with the reason, where WebGPU is unavailable.
//
// Tolerances. The device computes in f32 (unit roundoff u = 2^-24 ≈ 6e-8); positions are fixed
// point (2^30 quanta per box edge plus an f32 fraction), so they add no error of their own beyond
// u × the step's displacement. Each step rounds the velocity in two half kicks, at most u·|v|
// each, and these errors accumulate (a constant increment rounds the same way every step): after
// n steps |Δv| ≤ 2n·u·v_max, and the positions, which integrate it, |Δx| ≤ n²·u·v_max·Δt. The
// CPU kernel's f64 errors are 2^29 times smaller, so the same bounds hold for GPU − CPU. Contact
// forces add their own f32 rounding (the overlap is a difference of nearly equal lengths), so
// the many-sphere comparison adds a term for them (see there).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { gpuAvailable } from '@peclet/core/gpu';
import { exitPaths } from '../../core/test/exit-paths.mjs';
import { assertCleanExit, runNode } from '../../core/test/helpers.mjs';
import { finalizeAsync, gpuDevice, ReleasedError, Simulation } from '../dist/index.js';

const availability = await gpuAvailable();
const skip = availability.available ? false : `WebGPU is unavailable here: ${availability.reason}`;
if (skip) console.log(`skipping the webgpu tests: ${availability.reason}`);

const u = 2 ** -24;
const linear = (stiffness, restitution, friction) => ({ model: 'linear', stiffness, restitution, friction });
const hertz = (restitution, friction) => ({
  model: 'hertz-mindlin',
  youngsModulus: 1e7,
  poissonRatio: 0.3,
  restitution,
  friction,
});
const sphereMass = (r, density) => ((density * 4) / 3) * Math.PI * r ** 3;
const maxDifference = (a, b, period = 0) => {
  let worst = 0;
  for (let i = 0; i < a.length; i++) {
    let d = a[i] - b[i];
    if (period > 0 && i % 3 < 2) d -= period * Math.round(d / period);
    worst = Math.max(worst, Math.abs(d));
  }
  return worst;
};
const maxAbs = (a) => a.reduce((m, x) => Math.max(m, Math.abs(x)), 0);

// Deterministic pseudo-random numbers for the set-ups.
function random(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('webgpu: free fall', { skip }, () => {
  it('matches x0 + v0·t + ½g·t² within the f32 bound', async (t) => {
    const g = [0.3, -1.2, -9.81];
    const x0 = [0.5, 0.5, 0.9];
    const v0 = [0.1, 0.2, 0.5];
    const simulation = new Simulation({
      box: { min: [0, 0, 0], max: [1, 1, 1] },
      periodic: true,
      gravity: g,
      timestep: 1e-4,
      contact: linear(1e4, 0.5, 0),
      executionSpace: 'webgpu',
    });
    assert.equal(simulation.executionSpace, 'webgpu');
    simulation.addSpheres({ positions: x0, radii: [0.01], density: 1000, velocities: v0 });
    for (const steps of [1, 9, 990]) await simulation.run({ steps });
    assert.equal(simulation.stepCount, 1000);
    const n = 1000;
    const dt = simulation.timestep;
    const time = n * dt;
    const vmax = Math.max(...v0.map((v, d) => Math.abs(v) + Math.abs(g[d]) * time));
    const tolV = 2 * n * u * vmax;
    const tolX = n * n * u * vmax * dt;
    let worstX = 0;
    let worstV = 0;
    for (let d = 0; d < 3; d++) {
      let expected = x0[d] + v0[d] * time + 0.5 * g[d] * time * time;
      expected -= Math.floor(expected); // periodic box of side 1
      worstX = Math.max(worstX, Math.abs(simulation.positions[d] - expected));
      worstV = Math.max(worstV, Math.abs(simulation.velocities[d] - (v0[d] + g[d] * time)));
    }
    t.diagnostic(
      `|Δx| ${worstX.toExponential(2)} (≤ ${tolX.toExponential(2)}), |Δv| ${worstV.toExponential(2)} (≤ ${tolV.toExponential(2)})`,
    );
    assert.ok(worstX <= tolX, `positions off by ${worstX} > ${tolX}`);
    assert.ok(worstV <= tolV, `velocities off by ${worstV} > ${tolV}`);
    assert.equal(simulation.forces[2], sphereMass(0.01, 1000) * g[2]);
    simulation.release();
  });
});

async function collision(contact, space, offset) {
  const simulation = new Simulation({
    box: { min: [0, 0, 0], max: [1, 1, 1] },
    gravity: [0, 0, 0],
    contact,
    ...(space === 'webgpu' ? { executionSpace: 'webgpu' } : {}),
  });
  simulation.addSpheres({
    positions: [0.4, 0.5, 0.5, 0.6, 0.5 + offset, 0.5],
    radii: [0.05, 0.05],
    density: 1000,
    velocities: [0.5, 0, 0, -0.5, 0, 0],
  });
  const steps = Math.ceil((0.2 + 4 * simulation.timestepReport.contactTime) / simulation.timestep);
  if (space === 'webgpu') await simulation.run({ steps });
  else simulation.step(steps);
  assert.equal(simulation.contacts().pairs.length, 0, 'spheres separated');
  const state = [...simulation.velocities, ...simulation.angularVelocities.map((w) => 0.05 * w)];
  simulation.release();
  return { state, steps };
}

describe('webgpu: binary collisions', { skip }, () => {
  for (const e of [0.3, 0.5, 0.9, 1]) {
    for (const [name, contact] of [
      ['linear', linear(1e4, e, 0.3)],
      ['hertz-mindlin', hertz(e, 0.3)],
    ]) {
      it(`${name}, e = ${e}: restitution within 1%, oblique frictional impact equal to host within 2n·u`, async (t) => {
        const { state } = await collision(contact, 'webgpu', 0);
        const measured = state[3] - state[0];
        assert.ok(Math.abs(measured - e) < 0.01 * e, `restitution ${measured}`);
        // Off-centre impact: friction spins both spheres; compare v and r·ω with the CPU kernel.
        const gpu = await collision(contact, 'webgpu', 0.03);
        const cpu = await collision(contact, 'host', 0.03);
        const tolerance = 2 * gpu.steps * u * 1;
        const difference = maxDifference(gpu.state, cpu.state);
        t.diagnostic(
          `e ${measured.toFixed(6)}, |GPU − CPU| ${difference.toExponential(2)} (≤ ${tolerance.toExponential(2)})`,
        );
        assert.ok(Math.abs(cpu.state[2 * 3 + 2]) > 1e-3, 'the impact spun the spheres');
        assert.ok(difference <= tolerance, `GPU − CPU ${difference} > ${tolerance}`);
      });
    }
  }
});

// 125 spheres on a jittered lattice between a floor and a ceiling, periodic in x and y, under
// gravity, with friction and rotation: many contacts, sphere–sphere and wall.
function cluster(contact, space) {
  const n = 5;
  const spacing = 1.06;
  const side = n * spacing;
  const next = random(3);
  const positions = [];
  const velocities = [];
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++)
      for (let k = 0; k < n; k++) {
        positions.push(...[i, j, k].map((c) => (c + 0.5) * spacing + (next() - 0.5) * 0.05));
        velocities.push(next() - 0.5, next() - 0.5, next() - 0.5);
      }
  const simulation = new Simulation({
    box: { min: [0, 0, 0], max: [side, side, side + 0.5] },
    periodic: [true, true, false],
    gravity: [0, 0, -1],
    contact,
    ...(space === 'webgpu' ? { executionSpace: 'webgpu' } : {}),
  });
  simulation.addSpheres({ positions, radii: new Float64Array(n ** 3).fill(0.5), density: 1, velocities });
  return { simulation, side };
}

// In contact, the f32 force adds its own error: the overlap δ = ri + rj − |d| is a difference of
// lengths of order 2r, so it is off by up to ~4u·r, and each of a sphere's Z contacts then pushes
// with an error k·4u·r (k the contact stiffness, dF/dδ). Per step that is Δt·Z·k·4u·r/m on the
// velocity, on top of the 2u·v_max of the kicks; summed over n steps and integrated for positions.
describe('webgpu: a short many-sphere run equals the host run', { skip }, () => {
  for (const [name, contact] of [
    ['linear', linear(1e4, 0.5, 0.5)],
    ['hertz-mindlin', { ...hertz(0.5, 0.5), youngsModulus: 1e6 }],
  ]) {
    it(`${name}, friction 0.5, 400 steps: within the f32 bound with contact forces`, async (t) => {
      const cpu = cluster(contact, 'host');
      const gpu = cluster(contact, 'webgpu');
      const steps = 400;
      const r = 0.5;
      const m = sphereMass(r, 1);
      // Largest contact count per sphere (one more for a wall) and largest stiffness seen.
      let seen = 0;
      let most = 0;
      let stiffness = contact.model === 'linear' ? contact.stiffness : 0;
      for (let done = 0; done < steps; done += 50) {
        cpu.simulation.step(50);
        await gpu.simulation.run({ steps: 50 });
        const { pairs, overlaps } = cpu.simulation.contacts();
        seen += overlaps.length;
        const count = new Uint32Array(cpu.simulation.sphereCount);
        for (const i of pairs) count[i]++;
        most = Math.max(most, ...count);
        if (contact.model !== 'linear') {
          const E = contact.youngsModulus / (2 * (1 - contact.poissonRatio ** 2));
          const deepest = Math.max(0, ...overlaps);
          stiffness = Math.max(stiffness, 2 * E * Math.sqrt(r * deepest)); // dF/dδ = 2E*√(R*δ), R* ≤ r (wall)
        }
      }
      const vmax = maxAbs(cpu.simulation.velocities);
      const dt = cpu.simulation.timestep;
      const perStep = 2 * u * vmax + (dt * (most + 1) * stiffness * 4 * u * r) / m;
      const tolV = steps * perStep;
      const tolX = (steps * steps * perStep * dt) / 2 + steps * u * vmax * dt;
      const dx = maxDifference(gpu.simulation.positions, cpu.simulation.positions, gpu.side);
      const dv = maxDifference(gpu.simulation.velocities, cpu.simulation.velocities);
      const dw = r * maxDifference(gpu.simulation.angularVelocities, cpu.simulation.angularVelocities);
      t.diagnostic(
        `${seen} contacts seen, up to ${most} per sphere, k ≤ ${stiffness.toPrecision(3)}: ` +
          `Δx ${dx.toExponential(2)} (≤ ${tolX.toExponential(2)}), ` +
          `Δv ${dv.toExponential(2)}, r·Δω ${dw.toExponential(2)} (≤ ${tolV.toExponential(2)}); v_max ${vmax.toFixed(3)}`,
      );
      assert.ok(seen > 0, 'spheres touched');
      assert.ok(maxAbs(cpu.simulation.angularVelocities) > 0, 'friction spun spheres');
      assert.ok(dx <= tolX, `positions: ${dx} > ${tolX}`);
      assert.ok(dv <= tolV, `velocities: ${dv} > ${tolV}`);
      assert.ok(dw <= tolV, `angular velocities: ${dw} > ${tolV}`);
      assert.ok(Math.abs(gpu.simulation.kineticEnergy() / cpu.simulation.kineticEnergy() - 1) < 1e-4);
      assert.equal(gpu.simulation.time, cpu.simulation.time);
      cpu.simulation.release();
      gpu.simulation.release();
    });
  }
});

// Diameter 1, density 1, g = 10: each bed settles in ~10^4 steps.
async function bed(space, friction) {
  const simulation = new Simulation({
    box: { min: [0, 0, 0], max: [6, 6, 30] },
    periodic: [true, true, false],
    gravity: [0, 0, -10],
    timestep: 9e-4,
    contact: linear(1e4, 0.2, friction),
    ...(space === 'webgpu' ? { executionSpace: 'webgpu' } : {}),
  });
  const started = performance.now();
  // Frictionless spheres creep into denser arrangements for a long time: a looser threshold.
  const threshold = (friction > 0 ? 1e-5 : 1e-4) * sphereMass(0.5, 1) * 10;
  const report = await simulation.depositAsync({
    count: 512,
    radius: 0.5,
    density: 1,
    seed: 2024,
    kineticEnergyThreshold: threshold,
  });
  const seconds = (performance.now() - started) / 1000;
  let top = 0;
  const z = simulation.positions;
  for (let i = 0; i < simulation.sphereCount; i++) top = Math.max(top, z[3 * i + 2] + 0.5);
  // Bulk: 3 diameters clear of the floor and of the free surface.
  const fraction = simulation.packingFraction({ min: [0, 0, 3], max: [6, 6, top - 3] });
  const coordination = simulation.coordinationNumber();
  simulation.release();
  return { report, fraction, coordination, seconds };
}

describe('webgpu: gravity deposition of 512 spheres', { skip }, () => {
  for (const [friction, band] of [
    [0.5, [0.58, 0.64]],
    [0, [0.62, 0.66]],
  ]) {
    it(`friction ${friction}: bulk packing fraction in [${band}], within 0.02 of the host bed`, async (t) => {
      const gpu = await bed('webgpu', friction);
      const cpu = await bed('host', friction);
      t.diagnostic(
        `webgpu: phi ${gpu.fraction.toFixed(4)}, Z ${gpu.coordination.toFixed(2)}, ${gpu.report.steps} steps, ` +
          `${gpu.seconds.toFixed(1)} s; host: phi ${cpu.fraction.toFixed(4)}, Z ${cpu.coordination.toFixed(2)}, ` +
          `${cpu.report.steps} steps`,
      );
      assert.equal(gpu.report.inserted, 512);
      assert.ok(gpu.report.settled);
      assert.equal(gpu.report.clampedSpheres, 0);
      assert.ok(gpu.fraction >= band[0] && gpu.fraction <= band[1], `packing fraction ${gpu.fraction}`);
      assert.ok(Math.abs(gpu.fraction - cpu.fraction) < 0.02, `webgpu ${gpu.fraction} vs host ${cpu.fraction}`);
    });
  }
});

const small = (extra = {}) =>
  new Simulation({
    box: { min: [0, 0, 0], max: [1, 1, 1] },
    gravity: [0, 0, -9.81],
    contact: linear(1e4, 0.5, 0.5),
    executionSpace: 'webgpu',
    ...extra,
  });

describe('webgpu: bad input and policies', { skip }, () => {
  it('rejects an unknown execution space and a bad contactCapacity, naming them', () => {
    assert.throws(() => small({ executionSpace: 'cuda' }), { name: 'TypeError', argument: 'executionSpace' });
    assert.throws(() => small({ contactCapacity: 0 }), { name: 'RangeError', argument: 'contactCapacity' });
    assert.throws(() => small({ contactCapacity: 2.5 }), { name: 'RangeError', argument: 'contactCapacity' });
    assert.throws(() => small({ contactCapacity: '8' }), { name: 'TypeError', argument: 'contactCapacity' });
  });
  it('more spheres than the device limits hold is a RangeError, nothing added', async () => {
    // 10^7 slots of 16 bytes per sphere exceed a 128 MiB storage binding for a single sphere.
    const simulation = small({ contactCapacity: 10_000_000 });
    assert.throws(() => simulation.addSpheres({ positions: [0.5, 0.5, 0.5], radii: [0.05], density: 1 }), {
      name: 'RangeError',
      argument: 'radii',
      message: /exceed what executionSpace 'webgpu' holds/,
    });
    await assert.rejects(simulation.depositAsync({ count: 1, radius: 0.05, density: 1 }), {
      name: 'RangeError',
      argument: 'count',
    });
    assert.equal(simulation.sphereCount, 0);
    simulation.release();
  });
  it('step() and deposit() say to use the asynchronous forms', () => {
    const simulation = small();
    assert.throws(() => simulation.step(1), { name: 'TypeError', argument: 'step', message: /run\(\{ steps \}\)/ });
    assert.throws(() => simulation.deposit({ count: 1, radius: 0.1, density: 1 }), {
      name: 'TypeError',
      argument: 'deposit',
      message: /depositAsync/,
    });
    simulation.release();
  });
  it('validates spheres like the host (nothing added on error)', () => {
    const simulation = small();
    assert.throws(() => simulation.addSpheres({ positions: [0.5, 0.5, 0.5], radii: [0], density: 1 }), {
      name: 'RangeError',
      argument: 'radii',
      index: 0,
    });
    assert.throws(() => simulation.addSpheres({ positions: [0.5, 0.5, 1.5], radii: [0.1], density: 1 }), {
      name: 'RangeError',
      argument: 'positions',
    });
    assert.equal(simulation.sphereCount, 0);
    simulation.release();
  });
  it('arrays are copies, refreshed after each run and never detached', async () => {
    const simulation = small();
    simulation.addSpheres({ positions: [0.5, 0.5, 0.5], radii: [0.05], density: 1000 });
    const before = simulation.positions;
    before[2] = 0;
    assert.equal(simulation.positions[2], 0.5);
    await simulation.run({ steps: 100 });
    assert.ok(simulation.positions[2] < 0.5, 'fell');
    assert.equal(before.length, 3);
    simulation.addSpheres({ positions: [0.2, 0.2, 0.2], radii: [0.05], density: 1000 });
    assert.equal(before.length, 3);
    assert.equal(simulation.positions.length, 6);
    assert.notEqual(simulation.positions, simulation.positions);
    simulation.release();
  });
  it('more contacts than contactCapacity is a RangeError naming it and the sphere', async () => {
    // Sphere 1 rests on sphere 0, which rests on the floor: sphere 0 has two contacts.
    const simulation = small({ contactCapacity: 1 });
    simulation.addSpheres({ positions: [0.5, 0.5, 0.099, 0.5, 0.5, 0.297], radii: [0.1, 0.1], density: 1000 });
    await assert.rejects(simulation.run({ steps: 10 }), {
      name: 'RangeError',
      argument: 'contactCapacity',
      index: 0,
      message: /sphere 0 had 2 contacts/,
    });
    simulation.release();
  });
  it('an aborted run rejects with the signal reason and stays usable', async () => {
    const simulation = small();
    simulation.addSpheres({ positions: [0.5, 0.5, 0.5], radii: [0.05], density: 1000 });
    const controller = new AbortController();
    const reason = new Error('enough');
    const run = simulation.run({
      steps: 100_000,
      signal: controller.signal,
      onProgress: () => controller.abort(reason),
    });
    await assert.rejects(run, (error) => error === reason);
    assert.ok(simulation.stepCount > 0 && simulation.stepCount < 100_000);
    await simulation.run({ steps: 1 });
    simulation.release();
  });
});

// Every row of the exit contract that the device supports, each in a child process with a
// simulation on the device at script scope, most of them while a run computes on it. Not here:
// a worker torn down while its run waits on the device (terminate(), or the main thread calling
// process.exit()), which aborts inside Dawn's Node binding (see the README's WebGPU section).
const scenario = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, 'fixtures', 'gpu-scenario.mjs');
const unsupported = new Set(['worker-terminate', 'main-exit-while-worker']);
const exitRows = Object.fromEntries(Object.entries(exitPaths).filter(([path]) => !unsupported.has(path)));
exitRows['finalize-idle'] = {
  status: 0,
  reasons: ['explicit'],
  stdout: ['device released: true', 'after: ReleasedError'],
};
exitRows['finalize-during-run'] = {
  status: 0,
  reasons: ['explicit'],
  stdout: ['finalized', 'run: PECLET_CANCELLED', 'device released: true'],
  nodeArgs: ['--expose-gc'],
};
exitRows['finalize-async-during-run'] = {
  status: 0,
  reasons: ['explicit'],
  stdout: ['run: PECLET_CANCELLED', 'finalized', 'device released: true', 'after: ReleasedError'],
};

describe('webgpu: exit contract', { skip, concurrency: 2 }, () => {
  for (const [path, expected] of Object.entries(exitRows)) {
    it(path, async () => {
      const result = await runNode(scenario, [path], { nodeArgs: expected.nodeArgs ?? [] });
      assertCleanExit(result, {
        status: expected.status ?? 0,
        signal: expected.signal ?? null,
        finalizes: { dem: expected.reasons.length },
        reasons: { dem: expected.reasons },
      });
      for (const line of expected.stdout ?? []) assert.match(result.stdout, new RegExp(`^${line}$`, 'm'));
    });
  }
});

// Last: it finalizes the module.
describe('webgpu: release and finalize', { skip }, () => {
  it('release() makes members throw ReleasedError and cancels a run in flight', async () => {
    const simulation = small();
    simulation.addSpheres({ positions: [0.5, 0.5, 0.5], radii: [0.05], density: 1000 });
    const run = simulation.run({ steps: 1_000_000, onProgress: () => simulation.release() });
    await assert.rejects(run, { code: 'PECLET_CANCELLED' });
    assert.ok(simulation.released);
    assert.throws(() => simulation.positions, ReleasedError);
    assert.throws(() => simulation.kineticEnergy(), ReleasedError);
    await assert.rejects(simulation.run({ steps: 1 }), ReleasedError);
    await assert.rejects(simulation.sync(), ReleasedError);
  });
  it("finalizeAsync() during a run cancels it and releases the module's device and buffers", async () => {
    const device = await gpuDevice();
    const simulation = small();
    simulation.addSpheres({ positions: [0.5, 0.5, 0.5], radii: [0.05], density: 1000 });
    await simulation.sync();
    assert.equal(await gpuDevice(), device, 'one device per module');
    const run = simulation.run({ steps: 1_000_000 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const finalizing = finalizeAsync({ timeoutMs: 5000 });
    await assert.rejects(run, { code: 'PECLET_CANCELLED', message: /finaliz/ });
    await finalizing;
    assert.ok(device.released, 'device released');
    assert.throws(() => device.device, ReleasedError);
    assert.ok(simulation.released);
    assert.throws(() => simulation.velocities, ReleasedError);
    assert.throws(() => small(), ReleasedError);
  });
});
