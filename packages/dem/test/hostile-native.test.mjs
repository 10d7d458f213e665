// Hostile input through the public API: each test is the minimal input of a
// defect once seen (a signal, an abort, aliased or shared memory read after
// it moved, a NaN state blamed on the time step). Anything that could crash
// runs in a child process, so a crash fails the test instead of the runner.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Simulation } from '../dist/index.js';

const entry = pathToFileURL(fileURLToPath(new URL('../dist/index.js', import.meta.url))).href;
const linear = { model: 'linear', stiffness: 1e4, restitution: 0.5, friction: 0.5 };

// Runs `body` (an ES module's text, with `Simulation` imported) in a child
// process, optionally under `ulimit -v kilobytes`; returns status, signal, output.
function child(body, kilobytes) {
  const dir = mkdtempSync(join(tmpdir(), 'dem-hostile-'));
  try {
    const script = join(dir, 'script.mjs');
    writeFileSync(script, `import { Simulation } from ${JSON.stringify(entry)};\n${body}\n`);
    const command = kilobytes ? `ulimit -v ${kilobytes}; exec "${process.execPath}" "${script}"` : null;
    const result = command
      ? spawnSync('sh', ['-c', command], { encoding: 'utf8', timeout: 120_000 })
      : spawnSync(process.execPath, [script], { encoding: 'utf8', timeout: 120_000 });
    return { status: result.status, signal: result.signal, output: `${result.stdout}${result.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function expectRange(action, argument) {
  let caught;
  try {
    action();
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof RangeError, `expected a RangeError, got ${caught}`);
  assert.equal(caught.argument, argument, caught.message);
  return caught;
}

describe('hostile input', () => {
  it('a box of ±1e308 is a RangeError naming box, not a signal', () => {
    const result = child(`
      try {
        const s = new Simulation({ box: { min: [-1e308, -1e308, -1e308], max: [1e308, 1e308, 1e308] }, contact: ${JSON.stringify(linear)} });
        s.addSpheres({ positions: [0, 0, 0], radii: [1], density: 1 });
        s.step(1);
        console.log('accepted');
      } catch (error) {
        console.log(error.constructor.name, error.argument, error.message);
      }`);
    assert.equal(result.signal, null, result.output);
    assert.equal(result.status, 0, result.output);
    assert.match(result.output, /^RangeError box /m);
  });

  it('30,000 overlapping spheres under ulimit -v: a RangeError, nothing added, stepping still works', () => {
    // 4 GB of address space: Node starts (it needs well under 2 GB), while
    // the neighbour lists of 30,000 spheres within one cutoff of each other
    // (4.5e8 pairs, ~13 GB) cannot be allocated.
    const result = child(
      `
      const n = 30000;
      const positions = new Float64Array(3 * n), radii = new Float64Array(n).fill(0.2);
      let seed = 1;
      for (let i = 0; i < 3 * n; i++) positions[i] = 0.45 + 0.1 * ((seed = (seed * 16807) % 2147483647) / 2147483647);
      const s = new Simulation({ box: { min: [0, 0, 0], max: [1, 1, 1] }, contact: ${JSON.stringify(linear)}, gravity: [0, 0, 0] });
      s.addSpheres({ positions: [0.1, 0.1, 0.1], radii: [0.01], density: 1000 });
      try {
        s.addSpheres({ positions, radii, density: 1000 });
        console.log('added');
      } catch (error) {
        console.log('refused', error.constructor.name, error.code);
      }
      s.step(5);
      console.log('count', s.sphereCount, 'steps', s.stepCount);`,
      4_000_000,
    );
    assert.equal(result.signal, null, result.output);
    assert.equal(result.status, 0, result.output);
    assert.match(result.output, /^refused RangeError PECLET_OUT_OF_MEMORY$/m);
    assert.match(result.output, /^count 1 steps 5$/m);
  });

  it('deposit({ count: 1e9 }) is refused with the bytes it would need', () => {
    const s = new Simulation({ box: { min: [0, 0, 0], max: [1, 1, 1] }, contact: linear });
    const error = expectRange(() => s.deposit({ count: 1e9, radius: 0.001, density: 1000 }), 'count');
    assert.equal(error.code, 'PECLET_OUT_OF_MEMORY');
    assert.match(error.message, /would need about/);
    assert.equal(s.sphereCount, 0);
  });

  it("the simulation's own arrays as input are copied before they move", () => {
    const s = new Simulation({ box: { min: [0, 0, 0], max: [1, 1, 1] }, contact: linear, gravity: [0, 0, 0] });
    s.addSpheres({ positions: [0.2, 0.2, 0.2, 0.5, 0.5, 0.5], radii: [0.05, 0.04], density: 1 });
    // The same centres: refused as coincident, by name.
    expectRange(
      () => s.addSpheres({ positions: Float64Array.from(s.positions), radii: s.radii, density: 1 }),
      'positions',
    );
    assert.equal(s.sphereCount, 2);
    // Shifted centres with the live radii view: the radii read are the ones passed.
    s.addSpheres({ positions: Float64Array.from(s.positions, (x) => x + 0.1), radii: s.radii, density: 1 });
    assert.deepEqual(Array.from(s.radii), [0.05, 0.04, 0.05, 0.04]);
  });

  it('a SharedArrayBuffer written by a worker: no accepted batch holds NaN', () => {
    const result = child(`
      import { Worker } from 'node:worker_threads';
      const n = 64;
      const shared = new Float64Array(new SharedArrayBuffer(24 * n));
      const base = Float64Array.from({ length: 3 * n }, (_, k) => 0.1 + 0.8 * ((k * 7919) % (3 * n)) / (3 * n) + 1e-6 * k);
      shared.set(base);
      const worker = new Worker(\`
        const { workerData } = require('node:worker_threads');
        const view = new Float64Array(workerData.buffer), base = workerData.base;
        const stop = new Int32Array(workerData.stop);
        // Every element in turn is NaN for a moment, then valid again.
        while (Atomics.load(stop, 0) === 0)
          for (let k = 0; k < view.length; k++) {
            view[k] = NaN;
            view[k] = NaN;
            view[k] = base[k];
          }
      \`, { eval: true, workerData: { buffer: shared.buffer, base, stop: (globalThis.stop = new SharedArrayBuffer(4)) } });
      await new Promise((resolve) => setTimeout(resolve, 100));
      let accepted = 0, refused = 0, bad = 0;
      for (let i = 0; i < 400; i++) {
        const s = new Simulation({ box: { min: [0, 0, 0], max: [1, 1, 1] }, contact: { model: 'linear', stiffness: 1e4, restitution: 0.5, friction: 0.5 } });
        try {
          s.addSpheres({ positions: shared, radii: new Float64Array(n).fill(0.001), density: 1000 });
          accepted++;
          if (!s.positions.every(Number.isFinite)) bad++;
        } catch (error) {
          if (!(error instanceof RangeError || error instanceof TypeError)) throw error;
          refused++;
        }
        s.release();
      }
      Atomics.store(new Int32Array(globalThis.stop), 0, 1);
      await worker.terminate();
      console.log('accepted', accepted, 'refused', refused, 'bad', bad);`);
    assert.equal(result.status, 0, result.output);
    assert.match(result.output, /bad 0$/m);
    assert.doesNotMatch(result.output, /accepted 0 /); // the race was run, not only refused
  });

  it('coincident spheres are refused, naming positions and both spheres', () => {
    const s = new Simulation({ box: { min: [0, 0, 0], max: [1, 1, 1] }, contact: linear });
    const error = expectRange(
      () => s.addSpheres({ positions: [0.5, 0.5, 0.5, 0.5, 0.5, 0.5], radii: [0.05, 0.05], density: 1000 }),
      'positions',
    );
    assert.match(error.message, /spheres 0 and 1/);
    assert.equal(s.sphereCount, 0);
  });

  it('a radius of 1e-120 is refused naming radii and the underflow', () => {
    const s = new Simulation({ box: { min: [0, 0, 0], max: [1, 1, 1] }, contact: linear });
    const error = expectRange(
      () => s.addSpheres({ positions: [0.5, 0.5, 0.5], radii: [1e-120], density: 1000 }),
      'radii',
    );
    assert.match(error.message, /underflows/);
    assert.equal(s.sphereCount, 0);
  });

  it('a collision translated by 2^40 has the same relative trajectory', () => {
    const run = (offset) => {
      const s = new Simulation({
        box: { min: [offset, offset, offset], max: [offset + 4, offset + 4, offset + 4] },
        contact: { model: 'hertz-mindlin', youngsModulus: 1e6, restitution: 0.6, friction: 0.4 },
      });
      s.addSpheres({
        positions: [1.5, 2, 0.75, 2.75, 2.125, 0.75].map((x) => offset + x),
        radii: [0.5, 0.5],
        density: 1000,
        velocities: [1, 0.25, 0, -1, 0, 0.5],
      });
      s.step(3000);
      return { positions: Array.from(s.positions, (x) => x - offset), velocities: Array.from(s.velocities) };
    };
    const near = run(0);
    const far = run(2 ** 40);
    assert.deepEqual(far.velocities, near.velocities);
    const ulp = 2 ** (40 - 52);
    for (let k = 0; k < 6; k++) assert.ok(Math.abs(far.positions[k] - near.positions[k]) <= ulp, `${k}`);
    assert.notEqual(near.velocities[0], 1); // they collided
  });

  it('a divergence leaves the state as before the call and names its cause', () => {
    // Forces overflow from a deep overlap of very stiff spheres.
    const s = new Simulation({
      box: { min: [0, 0, 0], max: [10, 10, 10] },
      gravity: [0, 0, 0],
      contact: { model: 'hertz-mindlin', youngsModulus: 1e300, restitution: 0.5, friction: 0.5 },
    });
    s.addSpheres({ positions: [5, 5, 5, 5, 5, 5.1], radii: [1, 1], density: 1 });
    const positions = Array.from(s.positions);
    const velocities = Array.from(s.velocities);
    let caught;
    try {
      s.step(50);
    } catch (error) {
      caught = error;
    }
    assert.ok(caught instanceof RangeError, String(caught));
    assert.match(caught.message, /overlapped/);
    assert.notEqual(caught.argument, 'timestep', caught.message);
    assert.deepEqual(Array.from(s.positions), positions);
    assert.deepEqual(Array.from(s.velocities), velocities);
    assert.equal(s.stepCount, 0);
  });

  it('a box that cannot resolve the spheres is refused naming box', () => {
    const offset = 2 ** 60;
    const s = new Simulation({
      box: { min: [offset, offset, offset], max: [offset + 1e6, offset + 1e6, offset + 1e6] },
      contact: linear,
    });
    expectRange(
      () => s.addSpheres({ positions: [offset, offset, offset + 1024], radii: [0.05], density: 1000 }),
      'box',
    );
  });
});
