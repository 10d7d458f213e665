// Gravity deposition of 4096 monodisperse spheres through the JS API:
// bulk packing fraction with and without friction.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Simulation } from '../dist/index.js';

// Diameter 1, density 1, g = 1, soft linear contacts: settles in ~10^4 steps.
async function bed(friction) {
  const simulation = new Simulation({
    box: { min: [0, 0, 0], max: [16, 16, 40] },
    periodic: [true, true, false],
    gravity: [0, 0, -1],
    timestep: 9e-4,
    contact: { model: 'linear', stiffness: 1e4, restitution: 0.2, friction },
  });
  const started = performance.now();
  // Frictionless spheres creep into denser arrangements for a long time: a looser threshold.
  const report = await simulation.depositAsync({
    count: 4096,
    radius: 0.5,
    density: 1,
    seed: 2024,
    kineticEnergyThreshold: (friction > 0 ? 1e-6 : 1e-4) * (Math.PI / 6),
  });
  const seconds = (performance.now() - started) / 1000;
  let top = 0;
  const z = simulation.positions;
  for (let i = 0; i < simulation.sphereCount; i++) top = Math.max(top, z[3 * i + 2] + 0.5);
  // Bulk: 3 diameters clear of the floor and of the free surface.
  const fraction = simulation.packingFraction({ min: [0, 0, 3], max: [16, 16, top - 3] });
  const coordination = simulation.coordinationNumber();
  simulation.release();
  return { report, fraction, coordination, seconds };
}

describe('gravity deposition of 4096 spheres', () => {
  it('friction 0.5: bulk packing fraction in [0.58, 0.64]', async (t) => {
    const { report, fraction, coordination, seconds } = await bed(0.5);
    t.diagnostic(
      `phi ${fraction.toFixed(4)}, Z ${coordination.toFixed(2)}, ${report.steps} steps, ${seconds.toFixed(1)} s`,
    );
    assert.equal(report.inserted, 4096);
    assert.ok(report.settled);
    assert.ok(fraction >= 0.58 && fraction <= 0.64, `packing fraction ${fraction}`);
  });
  it('frictionless: bulk packing fraction ≥ 0.62', async (t) => {
    const { report, fraction, coordination, seconds } = await bed(0);
    t.diagnostic(
      `phi ${fraction.toFixed(4)}, Z ${coordination.toFixed(2)}, ${report.steps} steps, ${seconds.toFixed(1)} s`,
    );
    assert.ok(report.settled);
    assert.ok(fraction >= 0.62, `packing fraction ${fraction}`);
  });
});
