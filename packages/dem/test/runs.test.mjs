// The asynchronous run contract under hostile use: release() during a run or a deposit,
// reentrant calls from onProgress, concurrent runs, an onProgress that throws. Every case ends
// in a clean TypeError, the documented cancellation or the callback's own error — never a hang
// or a run reported as complete.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ReleasedError, Simulation } from '../dist/index.js';

const box = { min: [0, 0, 0], max: [1, 1, 1] };
const contact = { model: 'linear', stiffness: 1e4, restitution: 0.5, friction: 0.5 };

function gas() {
  const s = new Simulation({ box, contact, periodic: true, gravity: [0, 0, -1] });
  const positions = [];
  for (let i = 0; i < 5; i++)
    for (let j = 0; j < 5; j++) for (let k = 0; k < 5; k++) positions.push(0.1 + 0.2 * i, 0.1 + 0.2 * j, 0.1 + 0.2 * k);
  s.addSpheres({ positions, radii: new Float64Array(125).fill(0.05), density: 1000 });
  return s;
}

const cancelled = (error) => {
  assert.equal(error.code, 'PECLET_CANCELLED', `${error.name}: ${error.message}`);
  assert.ok(error instanceof Error);
  return true;
};

const busy = (what) => (error) => {
  assert.ok(error instanceof TypeError, `${error.name}: ${error.message}`);
  assert.equal(error.argument, what);
  assert.match(error.message, /is running/);
  return true;
};

describe('release() during a run', () => {
  it('run rejects with code PECLET_CANCELLED (it used to resolve as if complete)', async () => {
    const s = gas();
    const running = s.run({ steps: 1e9 });
    setTimeout(() => s.release(), 30);
    await assert.rejects(running, cancelled);
    assert.throws(() => s.step(), ReleasedError);
  });
  it('depositAsync rejects with code PECLET_CANCELLED', async () => {
    const s = new Simulation({ box, contact, periodic: [true, true, false], gravity: [0, 0, -9.81] });
    const running = s.depositAsync({ count: 200, radius: 0.02, density: 1000, kineticEnergyThreshold: 0 });
    setTimeout(() => s.release(), 30);
    await assert.rejects(running, cancelled);
  });
  it('an aborted signal still rejects with signal.reason', async () => {
    const s = gas();
    const controller = new AbortController();
    const reason = new Error('stop');
    const running = s.run({ steps: 1e9, signal: controller.signal });
    setTimeout(() => controller.abort(reason), 30);
    await assert.rejects(running, (error) => error === reason);
    assert.equal(s.step(1).steps, 1);
    s.release();
  });
});

describe('reentrant calls from onProgress', () => {
  it('release() cancels the run', async () => {
    const s = gas();
    await assert.rejects(s.run({ steps: 1e9, progressInterval: 5, onProgress: () => s.release() }), cancelled);
    assert.ok(s.released);
  });
  it('release() in the last onProgress still cancels (the run did not settle)', async () => {
    const s = gas();
    await assert.rejects(s.run({ steps: 5, onProgress: ({ steps }) => steps === 5 && s.release() }), cancelled);
  });
  it('release() from depositAsync progress cancels it', async () => {
    const s = new Simulation({ box, contact, periodic: [true, true, false], gravity: [0, 0, -9.81] });
    await assert.rejects(
      s.depositAsync({
        count: 50,
        radius: 0.02,
        density: 1000,
        kineticEnergyThreshold: 0,
        checkInterval: 10,
        onProgress: () => s.release(),
      }),
      cancelled,
    );
  });
  it('step(), run(), addSpheres(), deposit() and sync() throw a TypeError; reading works', async () => {
    const s = gas();
    const seen = [];
    const report = await s.run({
      steps: 200,
      progressInterval: 1,
      onProgress: (progress) => {
        if (seen.length > 0) return;
        assert.throws(() => s.step(), busy('step'));
        assert.throws(
          () => s.addSpheres({ positions: [0.5, 0.5, 0.5], radii: [0.01], density: 1 }),
          busy('addSpheres'),
        );
        assert.throws(() => s.deposit({ count: 1, radius: 0.01, density: 1 }), busy('deposit'));
        // Handled at once: an unhandled rejection would fail the test on its own.
        seen.push(
          assert.rejects(s.run({ steps: 1 }), busy('run')),
          assert.rejects(s.depositAsync({ count: 1, radius: 0.01, density: 1 }), busy('depositAsync')),
          assert.rejects(s.sync(), busy('sync')),
        );
        assert.equal(s.positions.length, 375);
        assert.ok(s.kineticEnergy() >= 0);
        assert.equal(s.stepCount, progress.steps);
      },
    });
    assert.equal(report.steps, 200);
    assert.equal(seen.length, 3);
    await Promise.all(seen);
    assert.equal(s.stepCount, 200);
    assert.equal(s.sphereCount, 125);
    s.release();
  });
  it('an onProgress that throws rejects the run with its error and leaves the simulation usable', async () => {
    const s = gas();
    const oops = new Error('oops');
    await assert.rejects(
      s.run({
        steps: 1e9,
        progressInterval: 5,
        onProgress: () => {
          throw oops;
        },
      }),
      (error) => error === oops,
    );
    const after = s.stepCount;
    assert.ok(after > 0 && after < 1e9);
    assert.equal(s.step(2).steps, 2);
    assert.equal((await s.run({ steps: 10 })).steps, 10);
    assert.equal(s.stepCount, after + 12);
    s.release();
  });
});

describe('concurrent calls', () => {
  it('a second run() rejects with a TypeError; the first completes', async () => {
    const s = gas();
    const first = s.run({ steps: 300 });
    const second = s.run({ steps: 300 });
    await assert.rejects(second, busy('run'));
    assert.equal((await first).steps, 300);
    assert.equal(s.stepCount, 300);
    s.release();
  });
  it('run() and depositAsync() at once: the second rejects with a TypeError, nothing is inserted', async () => {
    const s = new Simulation({ box, contact, periodic: [true, true, false], gravity: [0, 0, -9.81] });
    s.addSpheres({ positions: [0.5, 0.5, 0.1], radii: [0.05], density: 1000 });
    const first = s.run({ steps: 200 });
    await assert.rejects(s.depositAsync({ count: 5, radius: 0.02, density: 1000 }), busy('depositAsync'));
    assert.equal((await first).steps, 200);
    assert.equal(s.sphereCount, 1);
    s.release();
  });
  it('a getter of the options that starts a run cannot slip a second one in', async () => {
    const s = gas();
    let inner;
    const options = {
      get steps() {
        inner = s.run({ steps: 50 });
        return 50;
      },
    };
    await assert.rejects(s.run(options), busy('run'));
    assert.equal((await inner).steps, 50);
    s.release();
  });
});
