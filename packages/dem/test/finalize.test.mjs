// finalize() from inside onProgress, with a run and a deposit in flight: both reject with code
// PECLET_CANCELLED. In a file of its own: finalize() ends the dem module for this process.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { finalize, ReleasedError, Simulation } from '../dist/index.js';

const box = { min: [0, 0, 0], max: [1, 1, 1] };
const contact = { model: 'linear', stiffness: 1e4, restitution: 0.5, friction: 0.5 };

describe('finalize() during run() and depositAsync()', () => {
  it('both reject with code PECLET_CANCELLED, naming finalize()', async () => {
    const runner = new Simulation({ box, contact, periodic: true, gravity: [0, 0, -1] });
    runner.addSpheres({ positions: [0.5, 0.5, 0.5, 0.2, 0.2, 0.2], radii: [0.05, 0.05], density: 1000 });
    const depositor = new Simulation({ box, contact, periodic: [true, true, false], gravity: [0, 0, -9.81] });
    const deposit = depositor.depositAsync({ count: 100, radius: 0.02, density: 1000, kineticEnergyThreshold: 0 });
    let calls = 0;
    const run = runner.run({
      steps: 1e9,
      progressInterval: 5,
      onProgress: () => {
        calls++;
        if (calls === 3) finalize();
      },
    });
    const cancelled = (error) => {
      assert.equal(error.code, 'PECLET_CANCELLED', `${error.name}: ${error.message}`);
      assert.match(error.message, /finalize\(\)/);
      return true;
    };
    await assert.rejects(run, cancelled);
    await assert.rejects(deposit, cancelled);
    assert.equal(calls, 3);
    assert.throws(() => runner.step(), ReleasedError);
    assert.throws(() => depositor.positions, ReleasedError);
  });
});
