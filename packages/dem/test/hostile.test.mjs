// Hostile input: options objects read once, arrays copied, every number checked for type,
// finiteness and range, a diverged state reported with the kernel's diagnosis.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Simulation } from '../dist/index.js';

import { box, contact, make, throwsNaming } from './fixtures/inputs.mjs';

async function rejectsNaming(promise, type, argument) {
  await assert.rejects(promise, (error) => {
    assert.ok(error instanceof type, `${error.name}: ${error.message}`);
    assert.equal(error.argument, argument, error.message);
    assert.ok(error.message.startsWith(argument), error.message);
    return true;
  });
}

// An object whose every property answers `first` on the first read and `later` afterwards,
// counting the reads.
function fickle(first, later = {}) {
  const reads = new Map();
  const proxy = new Proxy(first, {
    get(target, key) {
      const n = (reads.get(key) ?? 0) + 1;
      reads.set(key, n);
      return n === 1 || !(key in later) ? target[key] : later[key];
    },
  });
  return { proxy, reads };
}

function readOnce(reads) {
  for (const [key, n] of reads) assert.equal(n, 1, `${String(key)} read ${n} times`);
}

function lattice(count, spacing = 0.2) {
  const positions = [];
  for (let i = 0; i < count; i++) positions.push(0.1 + spacing * (i % 5), 0.1 + spacing * Math.floor(i / 5), 0.5);
  return positions;
}

describe('options objects are read once', () => {
  it('SimulationOptions, box and contact: a Proxy that changes its answer cannot split validation from use', () => {
    const b = fickle({ min: [0, 0, 0], max: [1, 1, 1] }, { min: [0, 0], max: [Number.NaN, 0, 0] });
    const c = fickle({ ...contact }, { stiffness: -1, restitution: 7, model: 'spring' });
    const o = fickle(
      { box: b.proxy, contact: c.proxy, timestep: 1e-4, gravity: [0, 0, -1], threads: 1 },
      { timestep: -1, gravity: 'down', threads: 0.5, box: null, contact: null },
    );
    const s = new Simulation(o.proxy);
    readOnce(o.reads);
    readOnce(b.reads);
    readOnce(c.reads);
    s.addSpheres({ positions: [0.5, 0.5, 0.5], radii: [0.01], density: 1000 });
    assert.equal(s.timestep, 1e-4);
    s.step(10);
    assert.ok(s.positions[2] < 0.5, 'gravity as first read');
    s.release();
  });
  it('a getter that answers differently on the second read', () => {
    let reads = 0;
    const options = {
      box,
      contact,
      get timestep() {
        reads++;
        return reads === 1 ? 1e-4 : Number.NaN;
      },
    };
    const s = new Simulation(options);
    assert.equal(reads, 1);
    s.addSpheres({ positions: [0.5, 0.5, 0.5], radii: [0.01], density: 1000 });
    assert.equal(s.timestep, 1e-4);
    s.release();
  });
  it('SphereBatch: the batch and its arrays are read once', () => {
    const s = make();
    const batch = fickle(
      { positions: [0.5, 0.5, 0.5], radii: [0.1], density: 1000 },
      { positions: [0.5, 0.5], radii: 'big', density: -1 },
    );
    s.addSpheres(batch.proxy);
    readOnce(batch.reads);
    assert.equal(s.sphereCount, 1);
    assert.equal(s.radii[0], 0.1);
    s.release();
  });
  it('DepositOptions and the radius distribution', () => {
    const s = make({ periodic: [true, true, false], gravity: [0, 0, -9.81] });
    const radius = fickle({ kind: 'uniform', minRadius: 0.02, maxRadius: 0.03 }, { kind: 'gaussian', minRadius: -1 });
    const deposit = fickle({ count: 5, radius: radius.proxy, density: 1000, maxSteps: 0 }, { count: 0, density: -1 });
    const report = s.deposit(deposit.proxy);
    readOnce(deposit.reads);
    readOnce(radius.reads);
    assert.equal(report.inserted, 5);
    assert.equal(s.sphereCount, 5);
    s.release();
  });
  it('RunOptions and DepositAsyncOptions', async () => {
    const s = make({ periodic: true, gravity: [0, 0, -1] });
    s.addSpheres({ positions: lattice(5), radii: new Float64Array(5).fill(0.05), density: 1000 });
    const run = fickle({ steps: 20, progressInterval: 5 }, { steps: Number.NaN, progressInterval: Number.NaN });
    const report = await s.run(run.proxy);
    readOnce(run.reads);
    assert.equal(report.steps, 20);
    const deposit = new Simulation({ box, contact, periodic: [true, true, false], gravity: [0, 0, -9.81] });
    const options = fickle(
      { count: 3, radius: 0.02, density: 1000, maxSteps: 10, checkInterval: 5, progressInterval: 5 },
      { count: -1, maxSteps: Number.NaN, checkInterval: 0, progressInterval: Number.NaN },
    );
    const settled = await deposit.depositAsync(options.proxy);
    readOnce(options.reads);
    assert.equal(settled.inserted, 3);
    s.release();
    deposit.release();
  });
  it('the packingFraction region', () => {
    const s = make();
    s.addSpheres({ positions: [0.5, 0.5, 0.5], radii: [0.1], density: 1000 });
    const region = fickle({ min: [0, 0, 0], max: [1, 1, 1] }, { min: [2, 2, 2], max: 'x' });
    const fraction = s.packingFraction(region.proxy);
    readOnce(region.reads);
    assert.ok(Math.abs(fraction - (4 / 3) * Math.PI * 0.001) < 1e-12, `fraction ${fraction}`);
    s.release();
  });
});

describe('arrays are copied before use', () => {
  it("the simulation's own zero-copy views passed back add spheres with the right radii", () => {
    const s = make({ gravity: [0, 0, 0] });
    s.addSpheres({ positions: [0.2, 0.2, 0.2, 0.6, 0.6, 0.6], radii: [0.05, 0.08], density: 1 });
    const shifted = Float64Array.from(s.positions).map((x) => x + 0.25);
    s.addSpheres({ positions: shifted, radii: s.radii, density: 1 });
    assert.deepEqual(Array.from(s.radii), [0.05, 0.08, 0.05, 0.08]);
    assert.deepEqual(Array.from(s.positions.subarray(6)), Array.from(shifted));
    // Its own velocities too (zero-copy, detached by the call that reads them).
    s.addSpheres({
      positions: Float64Array.from(s.positions.subarray(0, 3)).map((x) => x + 0.1),
      radii: s.radii.subarray(0, 1),
      density: 1,
      velocities: s.velocities.subarray(0, 3),
    });
    assert.equal(s.sphereCount, 5);
    assert.equal(s.radii[4], 0.05);
    s.release();
  });
  it('a SharedArrayBuffer is copied; a detached array is a TypeError', () => {
    const s = make();
    const shared = new Float64Array(new SharedArrayBuffer(24));
    shared.set([0.5, 0.5, 0.5]);
    s.addSpheres({ positions: shared, radii: [0.1], density: 1000 });
    shared[2] = Number.NaN;
    assert.equal(s.positions[2], 0.5);
    const detached = s.positions;
    s.addSpheres({ positions: [0.2, 0.2, 0.2], radii: [0.05], density: 1000 });
    throwsNaming(() => s.addSpheres({ positions: detached, radii: [0.05], density: 1000 }), TypeError, 'positions');
    s.release();
  });
});

describe('numbers are checked for type, finiteness and range', () => {
  it('SimulationOptions', () => {
    throwsNaming(() => new Simulation(null), TypeError, 'options');
    throwsNaming(() => new Simulation({ contact }), TypeError, 'box');
    throwsNaming(() => new Simulation({ box }), TypeError, 'contact');
    throwsNaming(
      () => new Simulation({ box: { min: [-1e308, 0, 0], max: [1e308, 1, 1] }, contact }),
      RangeError,
      'box',
    );
    throwsNaming(() => make({ timestep: Number.POSITIVE_INFINITY }), RangeError, 'timestep');
    throwsNaming(() => make({ timestep: '1e-4' }), TypeError, 'timestep');
    throwsNaming(() => make({ skin: Number.NaN }), RangeError, 'skin');
    throwsNaming(() => make({ skin: 0 }), RangeError, 'skin');
    throwsNaming(() => make({ impactVelocity: -1 }), RangeError, 'impactVelocity');
    throwsNaming(() => make({ threads: 0 }), RangeError, 'threads');
    throwsNaming(() => make({ threads: 1.5 }), RangeError, 'threads');
    throwsNaming(() => make({ threads: Number.POSITIVE_INFINITY }), RangeError, 'threads');
    throwsNaming(() => make({ rotation: 'yes' }), TypeError, 'rotation');
    throwsNaming(() => make({ escape: 'bounce' }), TypeError, 'escape');
    throwsNaming(() => make({ walls: [true, false] }), TypeError, 'walls');
    throwsNaming(() => make({ walls: [true, true, true, true, true, 1] }), TypeError, 'walls[5]', 5);
    throwsNaming(() => make({ gravity: [0, 0, Number.NEGATIVE_INFINITY] }), RangeError, 'gravity[2]', 2);
    throwsNaming(() => make({ contactCapacity: 2 ** 60 }), RangeError, 'contactCapacity');
    const c = (extra) => new Simulation({ box, contact: { ...contact, ...extra } });
    throwsNaming(() => c({ stiffness: Number.POSITIVE_INFINITY }), RangeError, 'contact.stiffness');
    throwsNaming(() => c({ tangentialStiffnessRatio: 0 }), RangeError, 'contact.tangentialStiffnessRatio');
    throwsNaming(() => c({ restitution: 1.5 }), RangeError, 'contact.restitution');
    throwsNaming(() => c({ friction: Number.NaN }), RangeError, 'contact.friction');
    throwsNaming(
      () => new Simulation({ box, contact: { youngsModulus: 1e7, poissonRatio: 0.5 } }),
      RangeError,
      'contact.poissonRatio',
    );
  });
  it('step, run and packingFraction', async () => {
    const s = make();
    throwsNaming(() => s.step(Number.NaN), RangeError, 'steps');
    throwsNaming(() => s.step(2 ** 60), RangeError, 'steps');
    throwsNaming(() => s.step('3'), TypeError, 'steps');
    await rejectsNaming(s.run(), TypeError, 'options');
    await rejectsNaming(s.run({ steps: -1 }), RangeError, 'steps');
    await rejectsNaming(s.run({ steps: 1, signal: {} }), TypeError, 'signal');
    await rejectsNaming(s.run({ steps: 1, onProgress: 5 }), TypeError, 'onProgress');
    throwsNaming(() => s.packingFraction('all'), TypeError, 'region');
    throwsNaming(() => s.packingFraction({ min: [0, 0, 0], max: [1, 0, 1] }), RangeError, 'region');
    throwsNaming(() => s.packingFraction({ min: [0, 0, Number.NaN], max: [1, 1, 1] }), RangeError, 'region.min[2]');
    s.release();
  });
  it('deposit', () => {
    const s = make({ periodic: [true, true, false], gravity: [0, 0, -9.81] });
    const d = (extra) => () => s.deposit({ count: 3, radius: 0.02, density: 1000, maxSteps: 0, ...extra });
    throwsNaming(d({ count: 1.5 }), RangeError, 'count');
    throwsNaming(d({ count: 2 ** 40 }), RangeError, 'count');
    throwsNaming(d({ radius: Number.NaN }), RangeError, 'radius');
    throwsNaming(d({ radius: '0.02' }), TypeError, 'radius');
    throwsNaming(d({ radius: { kind: 'fixed', radius: 0 } }), RangeError, 'radius.radius');
    throwsNaming(
      d({
        radius: { kind: 'lognormal', medianRadius: 0.02, logStandardDeviation: -1, minRadius: 0.01, maxRadius: 0.03 },
      }),
      RangeError,
      'radius.logStandardDeviation',
    );
    throwsNaming(d({ density: Number.POSITIVE_INFINITY }), RangeError, 'density');
    throwsNaming(d({ seed: -1 }), RangeError, 'seed');
    throwsNaming(d({ regionTop: Number.NaN }), RangeError, 'regionTop');
    throwsNaming(d({ kineticEnergyThreshold: -1 }), RangeError, 'kineticEnergyThreshold');
    throwsNaming(d({ checkInterval: 0 }), RangeError, 'checkInterval');
    throwsNaming(d({ maxSteps: Number.POSITIVE_INFINITY }), RangeError, 'maxSteps');
    throwsNaming(d({ maxAttemptsPerSphere: 0 }), RangeError, 'maxAttemptsPerSphere');
    assert.equal(s.sphereCount, 0);
    s.release();
  });
});

describe('progressInterval', () => {
  // It once let a NaN through: every slice was NaN steps, taken as 0, and the run never settled.
  for (const [value, type] of [
    [Number.NaN, RangeError],
    [0, RangeError],
    [-5, RangeError],
    [Number.POSITIVE_INFINITY, RangeError],
    [1e9, RangeError],
    ['5', TypeError],
  ]) {
    it(`${String(value)}: run and depositAsync reject at once, naming progressInterval`, async () => {
      const s = make({ periodic: [true, true, false], gravity: [0, 0, -1] });
      s.addSpheres({ positions: lattice(5), radii: new Float64Array(5).fill(0.05), density: 1000 });
      await rejectsNaming(s.run({ steps: 10, progressInterval: value }), type, 'progressInterval');
      await rejectsNaming(
        s.depositAsync({ count: 2, radius: 0.02, density: 1000, progressInterval: value }),
        type,
        'progressInterval',
      );
      assert.equal(s.stepCount, 0);
      assert.equal(s.sphereCount, 5, 'nothing inserted');
      assert.equal((await s.run({ steps: 10, progressInterval: 1 })).steps, 10, 'still usable');
      s.release();
    });
  }
});

describe('a diverged state', () => {
  // Two spheres starting deeply overlapped with an absurd stiffness: forces overflow.
  const diverging = () => {
    const s = new Simulation({
      box: { min: [0, 0, 0], max: [10, 10, 10] },
      gravity: [0, 0, 0],
      contact: { model: 'hertz-mindlin', youngsModulus: 1e300 },
    });
    s.addSpheres({ positions: [5, 5, 5, 5, 5, 5.1], radii: [1, 1], density: 1 });
    return s;
  };
  const check = (what) => (error) => {
    assert.ok(error instanceof RangeError, `${error.name}: ${error.message}`);
    assert.equal(error.argument, 'positions', error.message);
    assert.ok(error.message.startsWith(`positions (index ${error.index}): ${what}: the simulation diverged: `));
    assert.ok(error.index === 0 || error.index === 1, `index ${error.index}`);
    assert.match(error.message, /overlapped/);
    return true;
  };
  it('step throws a RangeError with the kernel diagnosis, naming positions and the sphere', () => {
    const s = diverging();
    assert.throws(() => s.step(50), check('step'));
    assert.equal(s.stepCount, 0, 'the state was restored');
    assert.equal(s.positions[5], 5.1);
    s.release();
  });
  it('run rejects with the same', async () => {
    const s = diverging();
    await assert.rejects(s.run({ steps: 50 }), check('run'));
    s.release();
  });
});
