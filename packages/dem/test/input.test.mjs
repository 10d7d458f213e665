// Bad input: a TypeError or RangeError naming the argument (and index);
// nothing aborts. Also the run/abort/release contract of the object.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { executionSpace, ReleasedError, Simulation } from '../dist/index.js';

import { box, contact, make, throwsNaming } from './fixtures/inputs.mjs';

describe('bad input', () => {
  it('radii: zero, negative, NaN', () => {
    const s = make();
    const positions = [0.2, 0.5, 0.5, 0.5, 0.5, 0.5, 0.8, 0.5, 0.5];
    throwsNaming(() => s.addSpheres({ positions, radii: [0.1, 0, 0.1], density: 1 }), RangeError, 'radii', 1);
    throwsNaming(() => s.addSpheres({ positions, radii: [0.1, 0.1, -0.1], density: 1 }), RangeError, 'radii', 2);
    throwsNaming(() => s.addSpheres({ positions, radii: [Number.NaN, 0.1, 0.1], density: 1 }), RangeError, 'radii', 0);
    throwsNaming(() => s.addSpheres({ positions, radii: [0.1, 0.1], density: 1 }), TypeError, 'positions');
    throwsNaming(() => s.addSpheres({ positions, radii: 'big', density: 1 }), TypeError, 'radii');
    assert.equal(s.sphereCount, 0, 'nothing added');
  });
  it('density: zero, negative, NaN, missing', () => {
    const s = make();
    const batch = { positions: [0.5, 0.5, 0.5], radii: [0.1] };
    throwsNaming(() => s.addSpheres({ ...batch, density: 0 }), RangeError, 'density');
    throwsNaming(() => s.addSpheres({ ...batch, density: -2 }), RangeError, 'density');
    throwsNaming(() => s.addSpheres({ ...batch, density: Number.NaN }), RangeError, 'density');
    throwsNaming(() => s.addSpheres({ ...batch }), TypeError, 'density');
  });
  it('positions and velocities: NaN, outside a walled box, wrong length', () => {
    const s = make({ periodic: [true, false, false] });
    throwsNaming(
      () => s.addSpheres({ positions: [0.5, Number.NaN, 0.5], radii: [0.1], density: 1 }),
      RangeError,
      'positions',
      1,
    );
    throwsNaming(
      () => s.addSpheres({ positions: [0.5, 0.5, 1.5], radii: [0.1], density: 1 }),
      RangeError,
      'positions',
      2,
    );
    throwsNaming(() => s.addSpheres({ positions: [0.5, 0.5], radii: [0.1], density: 1 }), TypeError, 'positions');
    throwsNaming(
      () =>
        s.addSpheres({
          positions: [0.5, 0.5, 0.5],
          radii: [0.1],
          density: 1,
          velocities: [0, Number.POSITIVE_INFINITY, 0],
        }),
      RangeError,
      'velocities',
      1,
    );
    // Outside on a periodic axis is fine: it is wrapped.
    s.addSpheres({ positions: [1.5, 0.5, 0.5], radii: [0.1], density: 1 });
    assert.ok(Math.abs(s.positions[0] - 0.5) < 1e-15);
    // ... unless so far that the wrap would keep no precision (1e308 wraps to 0 exactly).
    for (const far of [1e308, -1e308, 2e6]) {
      throwsNaming(
        () => s.addSpheres({ positions: [far, 0.5, 0.25], radii: [0.1], density: 1 }),
        RangeError,
        'positions',
        0,
      );
    }
    assert.equal(s.sphereCount, 1);
  });
  it('options: NaN, unknown model, bad restitution, bad box', () => {
    throwsNaming(() => make({ gravity: [0, 0, Number.NaN] }), RangeError, 'gravity[2]');
    throwsNaming(() => new Simulation({ box, contact: { ...contact, model: 'spring' } }), TypeError, 'contact.model');
    throwsNaming(
      () => new Simulation({ box, contact: { ...contact, restitution: 0 } }),
      RangeError,
      'contact.restitution',
    );
    throwsNaming(
      () => new Simulation({ box, contact: { ...contact, restitution: Number.NaN } }),
      RangeError,
      'contact.restitution',
    );
    throwsNaming(() => new Simulation({ box, contact: { ...contact, friction: -1 } }), RangeError, 'contact.friction');
    throwsNaming(() => new Simulation({ box, contact: { model: 'linear' } }), TypeError, 'contact.stiffness');
    throwsNaming(
      () => new Simulation({ box, contact: { model: 'hertz-mindlin' } }),
      TypeError,
      'contact.youngsModulus',
    );
    throwsNaming(() => new Simulation({ box: { min: [0, 0, 0], max: [1, 0, 1] }, contact }), RangeError, 'box');
    throwsNaming(() => new Simulation({ box: { min: [0, 0], max: [1, 1, 1] }, contact }), TypeError, 'box.min');
    throwsNaming(() => make({ timestep: -1 }), RangeError, 'timestep');
    throwsNaming(() => make({ periodic: 'yes' }), TypeError, 'periodic');
  });
  it('a time step above the stability limit states the limit', () => {
    const s = make({ timestep: 1e-2 });
    assert.throws(
      () => s.addSpheres({ positions: [0.5, 0.5, 0.5], radii: [0.01], density: 1000 }),
      (error) => {
        assert.ok(error instanceof RangeError);
        assert.equal(error.argument, 'timestep');
        assert.match(error.message, /exceeds the stability limit [0-9.e-]+ s/);
        return true;
      },
    );
    // The default is contact time / 50, reported.
    const auto = make();
    auto.addSpheres({ positions: [0.5, 0.5, 0.5], radii: [0.01], density: 1000 });
    const report = auto.timestepReport;
    assert.equal(report.automatic, true);
    assert.ok(Math.abs(report.timestep - report.contactTime / 50) < 1e-15);
    assert.ok(Math.abs(report.stabilityLimit - report.contactTime / 5) < 1e-15);
    assert.equal(auto.timestep, report.timestep);
  });
  it('deposit: spheres that cannot fit, bad radius distribution', () => {
    const s = make({ periodic: [true, true, false], gravity: [0, 0, -9.81] });
    throwsNaming(
      () => s.deposit({ count: 2000, radius: 0.1, density: 1000, maxAttemptsPerSphere: 200 }),
      RangeError,
      'count',
    );
    assert.equal(s.sphereCount, 0, 'all or nothing');
    throwsNaming(() => s.deposit({ count: 10, radius: -0.1, density: 1000 }), RangeError, 'radius');
    throwsNaming(
      () => s.deposit({ count: 10, radius: { kind: 'uniform', minRadius: 0.2, maxRadius: 0.1 }, density: 1000 }),
      RangeError,
      'radius.minRadius',
    );
    throwsNaming(() => s.deposit({ count: 10, radius: { kind: 'gaussian' }, density: 1000 }), TypeError, 'radius.kind');
    throwsNaming(() => s.deposit({ count: 0, radius: 0.01, density: 1000 }), RangeError, 'count');
    throwsNaming(() => s.deposit({ count: 10, radius: 0.01, density: 0 }), RangeError, 'density');
    const sideways = make({ gravity: [9.81, 0, 0] });
    throwsNaming(() => sideways.deposit({ count: 10, radius: 0.01, density: 1000 }), RangeError, 'gravity');
  });
  it('a sphere leaving through an open face: clamped and counted, or a RangeError with escape: throw', () => {
    const walls = [true, true, true, true, true, false]; // no lid
    const batch = { positions: [0.5, 0.5, 0.9], radii: [0.01], density: 1000, velocities: [0, 0, 5] };
    const clamp = make({ walls, gravity: [0, 0, 0] });
    clamp.addSpheres(batch);
    const report = clamp.step(2000);
    assert.ok(report.clampedSpheres > 0);
    assert.equal(report.firstClampedSphere, 0);
    assert.equal(clamp.positions[2], 1);
    const strict = make({ walls, gravity: [0, 0, 0], escape: 'throw' });
    strict.addSpheres(batch);
    throwsNaming(() => strict.step(2000), RangeError, 'positions', 0);
  });
  it('steps: negative or fractional', () => {
    const s = make();
    throwsNaming(() => s.step(-1), RangeError, 'steps');
    throwsNaming(() => s.step(1.5), RangeError, 'steps');
  });
});

describe('object contract', () => {
  it('arrays are zero-copy views, detached when spheres are added and at release', () => {
    const s = make({ gravity: [0, 0, -1] });
    assert.equal(executionSpace, 'host');
    s.addSpheres({ positions: [0.5, 0.5, 0.5], radii: [0.01], density: 1000 });
    const positions = s.positions;
    s.step(10);
    assert.ok(positions[2] < 0.5, 'refreshed in place after each step');
    s.addSpheres({ positions: [0.2, 0.2, 0.2], radii: [0.01], density: 1000 });
    assert.equal(positions.length, 0, 'detached by addSpheres');
    const again = s.positions;
    assert.equal(again.length, 6);
    const { pairs, overlaps } = s.contacts();
    assert.ok(pairs instanceof Uint32Array && overlaps instanceof Float64Array);
    s.release();
    assert.equal(again.length, 0, 'detached by release');
    assert.throws(() => s.positions, ReleasedError);
    assert.throws(() => s.step(), ReleasedError);
    s.release(); // idempotent
  });
  it('run: progress on the JS thread, abort rejects with signal.reason, busy while a slice computes', async () => {
    const s = make({ gravity: [0, 0, -1], periodic: true });
    const positions = [];
    for (let i = 0; i < 5; i++)
      for (let j = 0; j < 5; j++)
        for (let k = 0; k < 5; k++) positions.push(0.1 + 0.2 * i, 0.1 + 0.2 * j, 0.1 + 0.2 * k);
    s.addSpheres({ positions, radii: new Float64Array(125).fill(0.05), density: 1000 });
    const seen = [];
    const report = await s.run({ steps: 3000, progressInterval: 5, onProgress: (p) => seen.push(p.steps) });
    assert.equal(report.steps, 3000);
    assert.ok(seen.length > 1 && seen.at(-1) === 3000, `progress ${seen}`);
    const controller = new AbortController();
    const reason = new Error('enough');
    const running = s.run({ steps: 1e9, signal: controller.signal });
    assert.throws(() => s.step(), TypeError, 'busy while running');
    setTimeout(() => controller.abort(reason), 50);
    await assert.rejects(running, (e) => e === reason);
    const before = s.stepCount;
    assert.ok(before > 3000 && before < 1e9);
    s.step(1); // usable again
    const aborted = AbortSignal.abort(reason);
    await assert.rejects(s.run({ steps: 10, signal: aborted }), (e) => e === reason);
    s.release();
  });
});
