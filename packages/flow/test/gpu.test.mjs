// executionSpace 'webgpu': the lattice-Boltzmann model in WGSL compute shaders (f32, sparse),
// checked against the host kernel in f32 and through the lifecycle. Skipped, with the reason,
// where WebGPU is unavailable.
//
// Tolerances. Both sides compute in f32 with the same operations in the same order (the shaders
// port native/lattice.cpp's sparse step), so they differ only where the device rounds
// differently (fused multiply-adds, division): a few ulps per step, which a converged Stokes flow
// forgets. Measured on llvmpipe: permeability of the sphere array 4e-9 relative, fields of the pressure/gray case 2e-7, Berea crop
// after 600 steps 1e-5 (2,700 steps to converge would take ~150 s there); we require 1e-3 (the brief's f32 tolerance) for permeabilities and 1e-4
// of the largest velocity for fields after a few hundred steps.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { gpuAvailable } from '@peclet/core/gpu';
import { exitPaths } from '../../core/test/exit-paths.mjs';
import { assertCleanExit, runNode } from '../../core/test/helpers.mjs';
import { finalizeAsync, gpuDevice, Lattice, permeability, ReleasedError } from '../dist/index.js';
import { berea, crop } from './helpers.mjs';

const availability = await gpuAvailable();
const skip = availability.available ? false : `WebGPU is unavailable here: ${availability.reason}`;
if (skip) console.log(`skipping the webgpu tests: ${availability.reason}`);

const relative = (a, b) => Math.abs(a - b) / Math.abs(b);
const maxAbs = (a) => a.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
const maxDifference = (a, b) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);

/** A sphere of solid fraction c centred in a periodic cube of n voxels, as voxels. */
function sphereVoxels(c, n) {
  const radius = n * Math.cbrt((3 * c) / (4 * Math.PI));
  const solid = new Uint8Array(n ** 3);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++)
      for (let k = 0; k < n; k++)
        solid[(i * n + j) * n + k] = Math.hypot(i + 0.5 - n / 2, j + 0.5 - n / 2, k + 0.5 - n / 2) < radius ? 1 : 0;
  return solid;
}

describe('webgpu: options', () => {
  const shape = [4, 4, 4];
  it('refuses f64, the dense layout, sdf, naming them', () => {
    assert.throws(() => new Lattice({ shape, precision: 'f64', executionSpace: 'webgpu' }), {
      name: 'RangeError',
      argument: 'precision',
    });
    assert.throws(() => new Lattice({ shape, layout: 'dense', executionSpace: 'webgpu' }), {
      name: 'RangeError',
      argument: 'layout',
    });
    assert.throws(() => new Lattice({ shape, sdf: new Float64Array(64).fill(1), executionSpace: 'webgpu' }), {
      name: 'RangeError',
      argument: 'sdf',
    });
  });
  it('step(), porosity and force throw TypeErrors naming them; f32 sparse by default', () => {
    const lattice = new Lattice({ shape, executionSpace: 'webgpu' });
    assert.equal(lattice.executionSpace, 'webgpu');
    assert.equal(lattice.info.precision, 'f32');
    assert.equal(lattice.layout, 'sparse');
    assert.throws(() => lattice.step(1), { name: 'TypeError', argument: 'step', message: /use await run/ });
    assert.throws(() => lattice.porosity, { name: 'TypeError', argument: 'porosity' });
    assert.throws(() => lattice.force, { name: 'TypeError', argument: 'force' });
    assert.ok(lattice.velocity instanceof Float32Array);
    assert.equal(lattice.density[0], 1);
    lattice.release();
  });
});

describe('webgpu: the same flow as the host kernel', { skip }, () => {
  it('permeability of a simple cubic array of voxel spheres (c = 0.216, 24³)', async (t) => {
    const n = 24;
    const solid = sphereVoxels(0.216, n);
    const F = 1e-5;
    const k = {};
    for (const space of ['host', 'webgpu']) {
      const started = performance.now();
      const lattice = new Lattice({
        shape: [n, n, n],
        solid,
        bodyForce: [F, 0, 0],
        inertia: false,
        precision: 'f32',
        executionSpace: space,
      });
      const run = await lattice.run({ tolerance: 1e-6, maxSteps: 20_000 });
      assert.ok(run.converged);
      k[space] = (lattice.viscosity * run.meanVelocity[0]) / F;
      t.diagnostic(`${space}: k = ${k[space]} voxel² in ${run.steps} steps, ${(performance.now() - started) | 0} ms`);
      lattice.release();
    }
    const difference = relative(k.webgpu, k.host);
    t.diagnostic(`relative difference ${difference.toExponential(2)}`);
    assert.ok(difference < 1e-3, `webgpu ${k.webgpu} vs host ${k.host}`);
  });

  it('pressure drive, walls, gray voxels and inertia: the same fields after 300 steps', async (t) => {
    const shape = [12, 7, 6];
    const voxels = 12 * 7 * 6;
    const solidFraction = new Float64Array(voxels);
    for (let v = 0; v < voxels; v++) {
      const r = (v * 2654435761) % 101;
      solidFraction[v] = r < 10 ? 1 : r < 40 ? r / 100 : 0;
    }
    const fields = {};
    for (const space of ['host', 'webgpu']) {
      const lattice = new Lattice({
        shape,
        solidFraction,
        periodic: [false, false, true],
        pressure: { axis: 'x', inletDensity: 1.01, outletDensity: 0.99 },
        bodyForce: [0, 1e-5, 2e-5],
        viscosity: 0.08,
        precision: 'f32',
        executionSpace: space,
      });
      await lattice.run({ maxSteps: 300, tolerance: 0 });
      fields[space] = { velocity: Float32Array.from(lattice.velocity), density: Float32Array.from(lattice.density) };
      lattice.release();
    }
    const scale = maxAbs(fields.host.velocity);
    const dv = maxDifference(fields.webgpu.velocity, fields.host.velocity) / scale;
    const dr = maxDifference(fields.webgpu.density, fields.host.density);
    t.diagnostic(`max |Δu|/max|u| = ${dv.toExponential(2)}, max |Δρ| = ${dr.toExponential(2)} (max |u| ${scale})`);
    assert.ok(scale > 1e-4);
    assert.ok(dv < 1e-4 && dr < 1e-6);
  });

  it("divergence: the host's rule before each step; the state kept is the last finite one, its step counted", async (t) => {
    // Too strong a force: both stop at the step whose state breaks the rule (a step that would
    // diverge is not taken), within a step of each other (the device rounds a few ulps apart).
    const shape = [8, 6, 6];
    const solid = new Uint8Array(8 * 6 * 6);
    for (let v = 0; v < solid.length; v += 7) solid[v] = 1;
    const stops = {};
    for (const space of ['host', 'webgpu']) {
      const lattice = new Lattice({ shape, solid, bodyForce: [0.9, 0, 0], precision: 'f32', executionSpace: space });
      await assert.rejects(lattice.run({ maxSteps: 10_000, tolerance: 0, checkInterval: 50 }), (e) => {
        assert.equal(e.code, 'PECLET_DIVERGED');
        assert.equal(e.step, lattice.stepCount + 1);
        return true;
      });
      stops[space] = lattice.stepCount;
      assert.ok(
        lattice.velocity.every(Number.isFinite) && maxAbs(lattice.velocity) > 0.1,
        'the fields of the state kept',
      );
      await lattice.run({ maxSteps: 1, tolerance: 0 }).catch(() => undefined);
      assert.equal(lattice.stepCount, stops[space], 'nothing is taken from there');
      lattice.release();
    }
    t.diagnostic(`last step taken: host ${stops.host}, webgpu ${stops.webgpu}`);
    assert.ok(stops.host > 0 && Math.abs(stops.webgpu - stops.host) <= 1, JSON.stringify(stops));
  });

  it('permeability() of a 64³ Berea crop (600 steps, not converged on llvmpipe)', async (t) => {
    // Converging takes ~2700 steps (≈ 150 s on llvmpipe at ~1.4 MFLUPS), so both sides stop at
    // 600 steps and the estimates at that step are compared.
    const image = crop(berea(), 64);
    const k = {};
    for (const space of ['host', 'webgpu']) {
      const started = performance.now();
      const result = await permeability(image, { executionSpace: space, precision: 'f32', maxSteps: 600 });
      assert.equal(result.steps, 600);
      assert.equal(result.lattice.executionSpace, space);
      k[space] = result.latticeUnits.permeability;
      t.diagnostic(
        `${space}: k = ${k[space]} voxel² (${result.millidarcy.toFixed(1)} mD) after ${result.steps} steps, ` +
          `${(performance.now() - started) | 0} ms, ${result.lattice.info.fluidNodes} fluid nodes`,
      );
      result.lattice.release();
    }
    const difference = relative(k.webgpu, k.host);
    t.diagnostic(`relative difference ${difference.toExponential(2)}`);
    assert.ok(difference < 1e-3, `webgpu ${k.webgpu} vs host ${k.host}`);
  });
});

// Every row of the exit contract that the device supports, each in a child process with a
// lattice on the device at script scope, most of them while a run computes on it. Not here:
// a worker torn down while its run waits on the device (as for dem, see its README).
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
  stdout: ['finalized', 'run: PECLET_CANCELLED', 'device released: true', 'after: ReleasedError'],
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
        finalizes: { flow: expected.reasons.length },
        reasons: { flow: expected.reasons },
      });
      for (const line of expected.stdout ?? []) assert.match(result.stdout, new RegExp(`^${line}$`, 'm'));
    });
  }
});

// Last: it finalizes the module.
describe('webgpu: release and finalize', { skip }, () => {
  it('release() during a run rejects it with PECLET_CANCELLED; members throw ReleasedError', async () => {
    const lattice = new Lattice({ shape: [16, 16, 16], bodyForce: [1e-5, 0, 0], executionSpace: 'webgpu' });
    const run = lattice.run({ maxSteps: 1e9, tolerance: 0, checkInterval: 10, onProgress: () => lattice.release() });
    await assert.rejects(run, { code: 'PECLET_CANCELLED', message: /release/ });
    assert.ok(lattice.released);
    assert.throws(() => lattice.velocity, ReleasedError);
    assert.throws(() => lattice.info, ReleasedError);
    await assert.rejects(lattice.run({ maxSteps: 1 }), ReleasedError);
  });
  it('release() while a batch computes on the device', async () => {
    const lattice = new Lattice({ shape: [32, 32, 32], bodyForce: [1e-5, 0, 0], executionSpace: 'webgpu' });
    const run = lattice.run({ maxSteps: 1e9, tolerance: 0, checkInterval: 200 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    lattice.release();
    await assert.rejects(run, { code: 'PECLET_CANCELLED' });
  });
  it("finalizeAsync() during a run cancels it and releases the module's device and buffers", async () => {
    const device = await gpuDevice();
    const lattice = new Lattice({ shape: [16, 16, 16], bodyForce: [1e-5, 0, 0], executionSpace: 'webgpu' });
    await lattice.run({ maxSteps: 2, tolerance: 0 });
    assert.equal(await gpuDevice(), device, 'one device per module');
    assert.ok(lattice.info.bytes > 0);
    const run = lattice.run({ maxSteps: 1e9, tolerance: 0, checkInterval: 20 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const finalizing = finalizeAsync({ timeoutMs: 5000 });
    await assert.rejects(run, { code: 'PECLET_CANCELLED', message: /finaliz/ });
    await finalizing;
    assert.ok(device.released, 'device released');
    assert.throws(() => device.device, ReleasedError);
    assert.ok(lattice.released);
    assert.throws(() => lattice.velocity, ReleasedError);
  });
});
