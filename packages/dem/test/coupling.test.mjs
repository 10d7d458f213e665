// What a fluid coupling needs, through the JS API: external per-sphere forces, fixed spheres,
// and the overlap report with its soft-contact warning.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Simulation } from '../dist/index.js';

const fixture = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'soft-contact.mjs');
const linear = (stiffness, restitution, friction) => ({ model: 'linear', stiffness, restitution, friction });
// The kernel's mass, in its rounding order.
const sphereMass = (r, density) => ((density * 4) / 3) * Math.PI * r * r * r;
const snapshot = (s) => ({
  stepCount: s.stepCount,
  time: s.time,
  positions: Array.from(s.positions),
  velocities: Array.from(s.velocities),
  angularVelocities: Array.from(s.angularVelocities),
  forces: Array.from(s.forces),
});

function pair(options = {}) {
  const simulation = new Simulation({
    box: { min: [0, 0, 0], max: [1, 1, 1] },
    gravity: [0, 0, 0],
    contact: linear(1e4, 0.5, 0.3),
    ...options,
  });
  simulation.addSpheres({
    positions: [0.4, 0.5, 0.5, 0.6, 0.52, 0.5],
    radii: [0.05, 0.05],
    density: 1000,
    velocities: [0.5, 0, 0, -0.5, 0, 0],
  });
  return simulation;
}

describe('external forces', () => {
  it('a constant force F gives x = x0 + F t²/(2m) over step(n) and run()', async () => {
    for (const mode of ['step', 'run']) {
      const simulation = new Simulation({
        box: { min: [0, 0, 0], max: [10, 10, 10] },
        gravity: [0, 0, 0],
        timestep: 1e-3,
        contact: linear(1e4, 0.5, 0),
      });
      const x0 = [5, 5, 5];
      const r = 0.1;
      const density = 1000;
      simulation.addSpheres({ positions: x0, radii: [r], density });
      const force = [0.3, -0.2, 0.5];
      simulation.externalForces.set(force);
      if (mode === 'step') for (const n of [1, 9, 990]) simulation.step(n);
      else await simulation.run({ steps: 1000 });
      const t = simulation.stepCount * simulation.timestep;
      const m = sphereMass(r, density);
      for (let d = 0; d < 3; d++) {
        const expected = x0[d] + (force[d] * t * t) / (2 * m);
        assert.ok(Math.abs(simulation.positions[d] - expected) < 1e-12, `${mode} x[${d}]`);
        assert.ok(Math.abs(simulation.velocities[d] - (force[d] * t) / m) < 1e-12, `${mode} v[${d}]`);
        assert.equal(simulation.forces[d], force[d], 'forces report the external force');
      }
      simulation.release();
    }
  });

  it('F = −m·g holds a sphere exactly still under gravity', () => {
    const g = [0.5, -2, -9.81];
    const simulation = new Simulation({
      box: { min: [0, 0, 0], max: [1, 1, 1] },
      gravity: g,
      timestep: 1e-4,
      contact: linear(1e4, 0.5, 0.5),
    });
    simulation.addSpheres({ positions: [0.5, 0.5, 0.5], radii: [0.02], density: 2500 });
    const m = sphereMass(0.02, 2500);
    simulation.externalForces.set(g.map((x) => -(m * x)));
    const before = Array.from(simulation.positions);
    simulation.step(1000);
    assert.deepEqual(Array.from(simulation.positions), before);
    assert.deepEqual(Array.from(simulation.velocities), [0, 0, 0]);
    assert.deepEqual(Array.from(simulation.forces), [0, 0, 0]);
  });

  it('momentum changes by the external impulse through a collision', () => {
    const simulation = pair();
    const masses = [sphereMass(0.05, 1000), sphereMass(0.05, 1000)];
    const momentum0 = simulation.momentum();
    const forces = [0.2, 0.05, -0.1, -0.05, 0.1, 0.3];
    simulation.externalForces.set(forces);
    simulation.step(2000);
    assert.ok(simulation.contacts().pairs.length === 0 || simulation.stepCount > 0);
    const t = simulation.time;
    const momentum = simulation.momentum();
    const scale = masses[0] * 0.5 + t * 0.5;
    for (let d = 0; d < 3; d++) {
      const expected = momentum0[d] + (forces[d] + forces[3 + d]) * t;
      assert.ok(Math.abs(momentum[d] - expected) < 1e-12 * scale, `p[${d}] ${momentum[d]} vs ${expected}`);
    }
  });

  it('a force written between calls acts for the whole of the next call (its impulse exactly F·n·dt)', () => {
    // Velocity Verlet applies half of a step's force at its end and half at the start of the next:
    // the first half kick of a call uses the force written before the call, not the one of the
    // last step, so what a coupling gives the fluid for a call the spheres get whole.
    const simulation = pair({ gravity: [0, 0, -1] });
    const dt = simulation.timestep;
    const weight = sphereMass(0.05, 1000);
    let momentum = simulation.momentum();
    for (const [n, f] of [
      [3, [0.3, -0.2, 0.1, 0.05, 0.4, -0.3]],
      [1, [-0.6, 0.1, 0.2, 0.25, -0.1, 0.05]],
      [5, [0, 0, 0, 0, 0, 0]],
      [2, [0.1, 0.1, 0.1, -0.3, 0.2, 0.9]],
    ]) {
      simulation.externalForces.set(f);
      simulation.step(n);
      const now = simulation.momentum();
      for (let d = 0; d < 3; d++) {
        const gravity = d === 2 ? -2 * weight : 0;
        const expected = momentum[d] + (f[d] + f[3 + d] + gravity) * n * dt;
        assert.ok(Math.abs(now[d] - expected) < 1e-12, `after ${n} steps, p[${d}] ${now[d]} vs ${expected}`);
      }
      momentum = now;
    }
  });

  it('a non-finite value is refused, naming externalForces and the element, the state unchanged', async () => {
    const simulation = pair();
    simulation.step(10);
    const before = snapshot(simulation);
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      simulation.externalForces[4] = bad;
      assert.throws(
        () => simulation.step(5),
        (error) =>
          error instanceof RangeError &&
          error.argument === 'externalForces' &&
          error.index === 4 &&
          /^externalForces \(index 4\): step: /.test(error.message),
      );
      assert.deepEqual(snapshot(simulation), before);
      await assert.rejects(
        simulation.run({ steps: 5 }),
        (error) => error instanceof RangeError && error.argument === 'externalForces' && error.index === 4,
      );
      assert.deepEqual(snapshot(simulation), before);
    }
    simulation.externalForces[4] = 0;
    simulation.step(5);
    assert.equal(simulation.stepCount, before.stepCount + 5);
  });

  it('deposit refuses a non-finite external force before inserting anything', () => {
    const simulation = new Simulation({
      box: { min: [0, 0, 0], max: [4, 4, 8] },
      periodic: [true, true, false],
      gravity: [0, 0, -10],
      contact: linear(1e4, 0.5, 0.5),
    });
    simulation.addSpheres({ positions: [2, 2, 0.5], radii: [0.5], density: 1 });
    simulation.externalForces[2] = Number.NaN;
    assert.throws(
      () => simulation.deposit({ count: 4, radius: 0.5, density: 1, maxSteps: 100 }),
      (error) => error instanceof RangeError && error.argument === 'externalForces' && error.index === 2,
    );
    assert.equal(simulation.sphereCount, 1);
    assert.equal(simulation.stepCount, 0);
  });

  it('is zero by default, detached when spheres are added (values kept) and at release', () => {
    const simulation = pair();
    const forces = simulation.externalForces;
    assert.deepEqual(Array.from(forces), [0, 0, 0, 0, 0, 0]);
    forces.set([1, 2, 3, 4, 5, 6]);
    simulation.addSpheres({ positions: [0.5, 0.8, 0.5], radii: [0.05], density: 1000 });
    assert.equal(forces.length, 0, 'detached by addSpheres');
    const again = simulation.externalForces;
    assert.deepEqual(Array.from(again), [1, 2, 3, 4, 5, 6, 0, 0, 0]);
    simulation.release();
    assert.equal(again.length, 0, 'detached by release');
    assert.throws(() => simulation.externalForces, TypeError);
  });
});

// A sphere flying at `speed` onto a fixed sphere of the same size, gravity off.
function bounceOffFixed(contact) {
  const simulation = new Simulation({ box: { min: [0, 0, 0], max: [1, 1, 1] }, gravity: [0, 0, 0], contact });
  simulation.addSpheres({ positions: [0.5, 0.5, 0.5], radii: [0.05], density: 1000, fixed: true });
  simulation.addSpheres({ positions: [0.3, 0.5, 0.5], radii: [0.05], density: 1000, velocities: [0.5, 0, 0] });
  const fixedAt = Array.from(simulation.positions.subarray(0, 3));
  simulation.step(Math.ceil((0.2 / 0.5 + 4 * simulation.timestepReport.contactTime) / simulation.timestep));
  assert.equal(simulation.contacts().pairs.length, 0, 'separated');
  assert.deepEqual(Array.from(simulation.positions.subarray(0, 3)), fixedAt, 'the fixed sphere did not move');
  assert.deepEqual(Array.from(simulation.velocities.subarray(0, 3)), [0, 0, 0]);
  assert.deepEqual(Array.from(simulation.angularVelocities.subarray(0, 3)), [0, 0, 0]);
  return -simulation.velocities[3] / 0.5;
}

describe('fixed spheres', () => {
  for (const e of [0.3, 0.5, 0.9]) {
    it(`a sphere bounces off a fixed one as off an infinite mass: linear, e = ${e}, within 1%`, () => {
      const measured = bounceOffFixed(linear(1e4, e, 0.3));
      assert.ok(Math.abs(measured - e) < 0.01 * e, `measured ${measured}`);
    });
    it(`a sphere bounces off a fixed one as off an infinite mass: hertz-mindlin, e = ${e}, within 1%`, () => {
      const measured = bounceOffFixed({ model: 'hertz-mindlin', youngsModulus: 1e7, restitution: e, friction: 0.3 });
      assert.ok(Math.abs(measured - e) < 0.01 * e, `measured ${measured}`);
    });
  }

  it('a fixed bed under gravity stays exactly still over many steps', () => {
    const simulation = new Simulation({
      box: { min: [0, 0, 0], max: [4, 4, 3] },
      periodic: [true, true, false],
      gravity: [0, 0, -10],
      contact: linear(1e4, 0.5, 0.5),
    });
    // Overlapping each other and the floor.
    const positions = [];
    for (let i = 0; i < 4; i++) for (let j = 0; j < 4; j++) positions.push(0.5 + 0.98 * i, 0.5 + 0.98 * j, 0.49);
    simulation.addSpheres({ positions, radii: new Array(16).fill(0.5), density: 1, fixed: true });
    assert.ok(simulation.coordinationNumber() > 2);
    const before = Array.from(simulation.positions);
    simulation.step(3000);
    assert.deepEqual(Array.from(simulation.positions), before);
    assert.ok(simulation.velocities.every((v) => v === 0));
    assert.ok(simulation.angularVelocities.every((w) => w === 0));
    assert.equal(simulation.kineticEnergy(), 0);
    assert.deepEqual(Array.from(simulation.fixed), new Array(16).fill(1));
  });

  it('the force on a fixed sphere carries the weight of a sphere resting on it', () => {
    const g = 10;
    const simulation = new Simulation({
      box: { min: [0, 0, 0], max: [1, 1, 1] },
      gravity: [0, 0, -g],
      contact: linear(1e5, 0.2, 0.5),
    });
    const [bottom, top] = [0.06, 0.04];
    simulation.addSpheres({ positions: [0.5, 0.5, 0.2], radii: [bottom], density: 1000, fixed: [true] });
    simulation.addSpheres({ positions: [0.5, 0.5, 0.2 + bottom + top], radii: [top], density: 1000 });
    simulation.step(20_000);
    const mBottom = sphereMass(bottom, 1000);
    const mTop = sphereMass(top, 1000);
    assert.ok(Math.abs(simulation.velocities[5]) < 1e-9, `at rest: v ${simulation.velocities[5]}`);
    const f = simulation.forces;
    // Its own weight plus the contact force, which carries the top sphere's weight.
    assert.ok(Math.abs(f[2] + mBottom * g + mTop * g) < 1e-9 * mTop * g, `force ${f[2]}`);
    assert.ok(Math.abs(f[5]) < 1e-9 * mTop * g, `top sphere in balance: ${f[5]}`);
    assert.deepEqual(Array.from(simulation.fixed), [1, 0]);
  });

  it('deposit settles on a fixed bed, judging the kinetic energy of the free spheres only', () => {
    const simulation = new Simulation({
      box: { min: [0, 0, 0], max: [4, 4, 10] },
      periodic: [true, true, false],
      gravity: [0, 0, -10],
      contact: linear(1e4, 0.3, 0.5),
    });
    const positions = [];
    for (let i = 0; i < 4; i++) for (let j = 0; j < 4; j++) positions.push(0.5 + i, 0.5 + j, 0.5);
    simulation.addSpheres({ positions, radii: new Array(16).fill(0.5), density: 1, fixed: true });
    const bed = Array.from(simulation.positions);
    const report = simulation.deposit({ count: 20, radius: 0.5, density: 1, seed: 3 });
    assert.ok(report.settled);
    assert.equal(report.kineticEnergyPerSphere, simulation.translationalKineticEnergy() / 20);
    assert.deepEqual(Array.from(simulation.positions.subarray(0, 48)), bed);
    for (let i = 16; i < 36; i++) assert.ok(simulation.positions[3 * i + 2] > 1.2, `sphere ${i} lies on the bed`);
  });

  it('bad fixed flags are refused by name, nothing added', () => {
    const simulation = pair();
    const add = (fixed, velocities) =>
      simulation.addSpheres({
        positions: [0.5, 0.8, 0.5, 0.5, 0.2, 0.5],
        radii: [0.05, 0.05],
        density: 1,
        fixed,
        velocities,
      });
    assert.throws(() => add([true]), { name: 'TypeError', argument: 'fixed' });
    assert.throws(() => add(new Uint8Array(3)), { name: 'TypeError', argument: 'fixed' });
    assert.throws(() => add([1, 0]), { name: 'TypeError', argument: 'fixed[0]' });
    assert.throws(() => add('yes'), { name: 'TypeError', argument: 'fixed' });
    assert.throws(() => add(new Float64Array(2)), { name: 'TypeError', argument: 'fixed' });
    assert.throws(() => add([false, true], [0, 0, 0, 0, 0.1, 0]), {
      name: 'RangeError',
      argument: 'velocities',
      index: 4,
    });
    assert.equal(simulation.sphereCount, 2);
    add(Uint8Array.of(0, 7), [1, 0, 0, 0, 0, 0]);
    assert.deepEqual(Array.from(simulation.fixed), [0, 0, 0, 1]);
  });
});

describe('overlap report', () => {
  it('meanOverlap and maxOverlap are δ / min(ri, rj) over the contacts at the end of the call', () => {
    const simulation = new Simulation({
      box: { min: [0, 0, 0], max: [1, 1, 1] },
      gravity: [0, 0, 0],
      contact: linear(1e4, 0.5, 0.5),
    });
    simulation.addSpheres({
      positions: [0.3, 0.5, 0.5, 0.39, 0.5, 0.5, 0.7, 0.5, 0.5, 0.77, 0.5, 0.5],
      radii: [0.05, 0.05, 0.04, 0.04],
      density: 1000,
    });
    const check = (report) => {
      const { pairs, overlaps } = simulation.contacts();
      const radii = simulation.radii;
      const shares = Array.from(overlaps, (o, c) => o / Math.min(radii[pairs[2 * c]], radii[pairs[2 * c + 1]]));
      const mean = shares.length > 0 ? shares.reduce((a, b) => a + b, 0) / shares.length : 0;
      assert.ok(Math.abs(report.meanOverlap - mean) < 1e-12, `mean ${report.meanOverlap} vs ${mean}`);
      assert.ok(Math.abs(report.maxOverlap - Math.max(0, ...shares)) < 1e-12, 'max');
      return shares.length;
    };
    const first = simulation.step(1);
    assert.equal(check(first), 2);
    assert.ok(first.maxOverlap > 0.2 && first.maxOverlap < 0.3, `max ${first.maxOverlap}`);
    assert.equal(check(simulation.step(200)), 0, 'the pairs flew apart');
    assert.equal(simulation.step(1).meanOverlap, 0);
  });

  it('a soft Hertz bed warns once (PECLET_SOFT_CONTACT) with the modulus to use; a stiff one does not', () => {
    // In a child process: the warning is captured there and does not reach this runner's output.
    const result = JSON.parse(execFileSync(process.execPath, ['--no-warnings', fixture], { encoding: 'utf8' }));
    const { soft, stiff } = result;
    assert.ok(soft.report.meanOverlap > 0.01, `soft mean overlap ${soft.report.meanOverlap}`);
    assert.ok(soft.report.maxOverlap >= soft.report.meanOverlap);
    assert.equal(soft.warnings.length, 1, 'warned once, also after further calls');
    const [warning] = soft.warnings;
    assert.equal(warning.code, 'PECLET_SOFT_CONTACT');
    const percent = (100 * soft.report.meanOverlap).toPrecision(2);
    assert.ok(warning.message.includes(`${percent}%`), warning.message);
    const needed = (1e7 * (soft.report.meanOverlap / 0.01) ** 1.5).toPrecision(2);
    assert.ok(warning.message.includes(`contact.youngsModulus of about ${needed} Pa`), warning.message);
    assert.ok(warning.message.includes('estimate'), warning.message);
    assert.ok(stiff.report.meanOverlap > 0 && stiff.report.meanOverlap < 0.01, `stiff ${stiff.report.meanOverlap}`);
    assert.equal(stiff.warnings.length, 0);
    assert.ok(result.linear.warnings[0].message.includes('contact.stiffness of about'), 'linear advice');
  });
});
