// Bad input gets a TypeError or RangeError naming the argument, and leaves nothing half made;
// the lifecycle (release, runs, aborts) as documented.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Simulation } from '@peclet/dem';
import { CoupledSimulation, dragCoefficient, ReleasedError } from '../dist/index.js';
import { suspension } from './helpers.mjs';

const named = (kind, argument) => (error) => {
  assert.ok(error instanceof kind, `${error?.name}: ${error?.message}`);
  assert.equal(error.argument, argument, error.message);
  assert.ok(error.message.startsWith(argument), error.message);
  return true;
};

function particles(options = {}) {
  const L = 1.8e-3;
  const p = new Simulation({
    box: { min: [0, 0, 0], max: [L, L, L] },
    periodic: true,
    gravity: [0, 0, 0],
    contact: { model: 'linear', stiffness: 1e-2 },
    ...options,
  });
  p.addSpheres({ positions: [L / 2, L / 2, L / 2], radii: [5e-5], density: 2500 });
  return p;
}
const fluid = { cellSize: 3e-4, viscosity: 1e-2, density: 1000 };

describe('bad input', () => {
  it('particles that are not a live dem Simulation with spheres', () => {
    assert.throws(() => new CoupledSimulation({ particles: {}, fluid }), named(TypeError, 'particles'));
    assert.throws(() => new CoupledSimulation({ fluid }), named(TypeError, 'particles'));
    assert.throws(
      () => new CoupledSimulation({ particles: Object.create(Simulation.prototype), fluid }),
      named(TypeError, 'particles'),
    );
    const gone = particles();
    gone.release();
    assert.throws(
      () => new CoupledSimulation({ particles: gone, fluid }),
      (e) => e instanceof ReleasedError && e.module === 'dem' && /^particles/.test(e.message),
    );
    const L = 1e-3;
    const empty = new Simulation({
      box: { min: [0, 0, 0], max: [L, L, L] },
      periodic: true,
      contact: { model: 'linear', stiffness: 1 },
    });
    assert.throws(() => new CoupledSimulation({ particles: empty, fluid }), named(RangeError, 'particles'));
    empty.release();
  });

  it('cells smaller than a sphere or not dividing the box name fluid.cellSize', () => {
    const p = particles();
    assert.throws(
      () => new CoupledSimulation({ particles: p, fluid: { ...fluid, cellSize: 9e-5 } }),
      (e) => named(RangeError, 'fluid.cellSize')(e) && /at least a diameter/.test(e.message),
    );
    assert.throws(
      () => new CoupledSimulation({ particles: p, fluid: { ...fluid, cellSize: 4e-4 } }),
      named(RangeError, 'fluid.cellSize'),
    );
    assert.throws(
      () => new CoupledSimulation({ particles: p, fluid: { ...fluid, cellSize: -1 } }),
      named(RangeError, 'fluid.cellSize'),
    );
    p.release();
  });

  it('fluid properties, drag, drive and periodicity', () => {
    const p = particles();
    const make = (options) => () => new CoupledSimulation({ particles: p, fluid, ...options });
    assert.throws(make({ fluid: { ...fluid, viscosity: Number.NaN } }), named(RangeError, 'fluid.viscosity'));
    assert.throws(make({ fluid: { ...fluid, density: 0 } }), named(RangeError, 'fluid.density'));
    assert.throws(make({ fluid: { ...fluid, minVoidFraction: 1 } }), named(RangeError, 'fluid.minVoidFraction'));
    assert.throws(make({ drag: 'stokes' }), named(TypeError, 'drag'));
    assert.throws(make({ selfCorrection: 'false' }), named(TypeError, 'selfCorrection'));
    assert.throws(make({ fluid: { ...fluid, drive: {} } }), named(TypeError, 'fluid.drive'));
    assert.throws(
      make({ fluid: { ...fluid, drive: { superficialVelocity: [0, 0, 1], pressureGradient: [0, 0, 1] } } }),
      named(TypeError, 'fluid.drive'),
    );
    assert.throws(
      make({ fluid: { ...fluid, drive: { superficialVelocity: [0, Number.NaN, 1] } } }),
      (e) => e instanceof RangeError && e.argument.startsWith('fluid.drive.superficialVelocity'),
    );
    // Beyond the closures' range: named, not the closure's own 'slip' (hostile seed 783036298).
    assert.throws(
      make({ fluid: { ...fluid, drive: { superficialVelocity: [0, 0, 1e300] } } }),
      named(RangeError, 'fluid.drive.superficialVelocity'),
    );
    assert.throws(make({ fluid: { ...fluid, periodic: [true, false, true] } }), named(RangeError, 'fluid.periodic'));
    assert.throws(make({ fluid: { ...fluid, periodic: 'yes' } }), named(TypeError, 'fluid.periodic'));
    p.release();
  });

  it('unstable time steps: too many substeps, or a dem step above the limits', () => {
    const p = particles();
    assert.throws(
      () => new CoupledSimulation({ particles: p, fluid, dem: { substeps: 1e6 } }),
      named(RangeError, 'dem.substeps'),
    );
    assert.throws(
      () => new CoupledSimulation({ particles: p, fluid, dem: { substeps: 0 } }),
      named(RangeError, 'dem.substeps'),
    );
    p.release();
    const slow = particles({ timestep: 1e-3, contact: { model: 'linear', stiffness: 1e-4 } });
    assert.throws(
      () => new CoupledSimulation({ particles: slow, fluid }),
      (e) => named(RangeError, 'particles')(e) && /smaller timestep/.test(e.message),
    );
    slow.release();
  });

  it('a coupled step whose dem step throws leaves the fluid, the drive and the drag as they were', async () => {
    const { particles: p, sim } = suspension({ fluid: { drive: { superficialVelocity: [0, 0, 1e-3] } } });
    sim.step(5);
    const before = { fluid: sim.momentum().fluid, drive: sim.drive, drag: [...sim.dragForces] };
    // The spheres are busy in a run of their own: dem refuses the step, after the exchange.
    const controller = new AbortController();
    const busy = p.run({ steps: 1e9, signal: controller.signal });
    assert.throws(() => sim.step(1));
    controller.abort();
    await assert.rejects(busy);
    // momentum() reads the lattice's force array: the exchange's was taken back.
    assert.deepEqual(sim.momentum().fluid, before.fluid);
    assert.deepEqual(sim.drive, before.drive);
    assert.deepEqual([...sim.dragForces], before.drag);
    sim.step(5);
    assert.ok(Math.abs(sim.step(0).superficialVelocity[2] / 1e-3 - 1) < 0.05);
    sim.release();
    p.release();
  });

  it('setDrive: a bad drive or one faster than the fluid step was chosen for changes nothing', () => {
    const { particles: p, sim } = suspension({ fluid: { drive: { superficialVelocity: [0, 0, 1e-3] } } });
    assert.throws(() => sim.setDrive({}), named(TypeError, 'drive'));
    assert.throws(
      () => sim.setDrive({ pressureGradient: [0, Number.NaN, 0] }),
      (e) => e.argument === 'drive.pressureGradient[1]',
    );
    assert.throws(
      () => sim.setDrive({ superficialVelocity: [0, 0, 1e6] }),
      named(RangeError, 'drive.superficialVelocity'),
    );
    sim.step(20);
    assert.ok(Math.abs(sim.step(0).superficialVelocity[2] - 1e-3) < 1e-3 * 0.05, `${sim.step(0).superficialVelocity}`);
    sim.setDrive({ superficialVelocity: [0, 0, 5e-4] });
    sim.step(20);
    const u = sim.step(0).superficialVelocity[2];
    assert.ok(Math.abs(u - 5e-4) < 5e-4 * 0.05, `${u}`);
    sim.release();
    p.release();
  });

  it('dragCoefficient refuses arguments outside physical ranges instead of returning Infinity', () => {
    assert.throws(() => dragCoefficient('di-felice', 5e-324, 1e-3, 1, 1e-3, 1000), named(RangeError, 'voidFraction'));
    assert.throws(() => dragCoefficient('beetstra', 0.5, 1e308, 1, 1e-3, 1000), named(RangeError, 'diameter'));
    assert.throws(() => dragCoefficient('gidaspow', 0.5, 1e-3, 1e308, 1e-3, 1000), named(RangeError, 'slip'));
    assert.throws(() => dragCoefficient('gidaspow', 0.5, 1e-3, 1, 1e308, 1000), named(RangeError, 'viscosity'));
    assert.throws(() => dragCoefficient('gidaspow', 0.5, 1e-3, 1, 1e-3, 5e-324), named(RangeError, 'density'));
    assert.throws(() => dragCoefficient('stokes', 0.5, 1e-3, 1, 1e-3, 1000), named(TypeError, 'drag'));
    for (const drag of ['di-felice', 'beetstra', 'gidaspow'])
      for (const args of [
        [1e-3, 1e-12, 1e6, 1e-12, 1e9],
        [1, 1e3, 1e6, 1e-12, 1e9],
        [1e-3, 1e3, 0, 1e12, 1e-9],
      ])
        assert.ok(Number.isFinite(dragCoefficient(drag, ...args)), `${drag} ${args}`);
  });

  it('step and run arguments', async () => {
    const { particles: p, sim } = suspension();
    assert.throws(() => sim.step(-1), named(RangeError, 'n'));
    assert.throws(() => sim.step(1.5), named(RangeError, 'n'));
    await assert.rejects(sim.run({}), named(TypeError, 'options'));
    await assert.rejects(sim.run({ time: Number.NaN }), named(RangeError, 'time'));
    await assert.rejects(sim.run({ steps: 1, progressInterval: 0 }), named(RangeError, 'progressInterval'));
    assert.throws(() => sim.pressureDrop('w'), named(TypeError, 'axis'));
    assert.equal(sim.stepCount, 0);
    sim.release();
    p.release();
  });
});

describe('lifecycle', () => {
  it('release() keeps the dem simulation, detaches the arrays and makes every member throw', () => {
    const { particles: p, sim } = suspension();
    sim.step(2);
    const eps = sim.voidFraction;
    const drag = sim.dragForces;
    assert.equal(eps.length, 216);
    sim.release();
    sim.release();
    assert.equal(sim.released, true);
    assert.equal(eps.length, 0);
    assert.equal(drag.length, 0);
    for (const call of [
      () => sim.step(),
      () => sim.voidFraction,
      () => sim.momentum(),
      () => sim.pressureDrop('x'),
      () => sim.shape,
      () => sim.stepCount,
      () => sim.timestepReport,
      () => sim.setDrive({ pressureGradient: [0, 0, 0] }),
    ])
      assert.throws(
        call,
        (e) => e instanceof ReleasedError && e.module === 'coupling' && /release\(\)/.test(e.message),
      );
    assert.equal(p.sphereCount, 8);
    p.step(1);
    p.release();
  });

  it('run() reports progress, stops on abort with the reason and on release() with PECLET_CANCELLED', async () => {
    const { particles: p, sim } = suspension();
    const seen = [];
    const report = await sim.run({ steps: 30, progressInterval: 1, onProgress: (x) => seen.push(x.steps) });
    assert.equal(report.steps, 30);
    assert.equal(sim.stepCount, 30);
    assert.ok(seen.length >= 1 && seen.at(-1) === 30);
    // A slice shorter than the clock's resolution still makes one step: the run ends.
    assert.equal((await sim.run({ steps: 3, progressInterval: 5e-324 })).steps, 3);
    const controller = new AbortController();
    const aborted = sim.run({ steps: 1e9, signal: controller.signal, progressInterval: 5 });
    assert.throws(() => sim.step(), named(TypeError, 'step'));
    setTimeout(() => controller.abort(new Error('enough')), 30);
    await assert.rejects(aborted, /enough/);
    const running = sim.run({ steps: 1e9, progressInterval: 5 });
    setTimeout(() => sim.release(), 30);
    await assert.rejects(running, (e) => e.code === 'PECLET_CANCELLED');
    p.release();
  });
});

describe('found by the hostile-input generator', () => {
  it('a drive the lattice cannot take is refused by name, before anything changes', () => {
    const { particles: p, sim } = suspension();
    assert.throws(() => sim.setDrive({ pressureGradient: [1e300, 0, 0] }), named(RangeError, 'drive.pressureGradient'));
    assert.deepEqual(sim.drive, [0, 0, 0]);
    sim.step(1);
    sim.release();
    p.release();
    assert.throws(
      () => suspension({ fluid: { drive: { pressureGradient: [0, 0, 1e300] } } }),
      named(RangeError, 'fluid.drive.pressureGradient'),
    );
  });

  it('terminalVelocity names a bad argument; dragForces has 3 per sphere before the first step', async () => {
    const { terminalVelocity } = await import('../dist/index.js');
    assert.throws(
      () => terminalVelocity('di-felice', 1e-4, new Proxy({}, {}), 1e-3, 1000),
      named(TypeError, 'buoyantWeight'),
    );
    assert.throws(
      () => terminalVelocity('di-felice', 1e-4, Symbol('w'), 1e-3, 1000),
      named(TypeError, 'buoyantWeight'),
    );
    assert.throws(() => terminalVelocity('di-felice', -1, 1e-9, 1e-3, 1000), named(RangeError, 'diameter'));
    assert.equal(terminalVelocity('gidaspow', 1e-4, 0, 1e-3, 1000), 0);
    const { particles: p, sim } = suspension();
    assert.equal(sim.dragForces.length, 3 * p.sphereCount);
    assert.ok(sim.dragForces.every((x) => x === 0));
    sim.release();
    p.release();
  });
});
