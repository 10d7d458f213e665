// Bad input gets a clear TypeError/RangeError naming the argument and the first
// offending index; async runs, cancellation and options.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { executionSpace, tessellate, tessellateAsync } from '../dist/index.js';
import { randomPoints } from './random.mjs';

const box = { min: [0, 0, 0], max: [1, 1, 1] };
const f64 = (...xs) => new Float64Array(xs);

function throwsWith(fn, type, pattern) {
  assert.throws(fn, (e) => e instanceof type && pattern.test(e.message), `expected ${type.name} ${pattern}`);
}

describe('bad input', () => {
  it('points', () => {
    throwsWith(() => tessellate([0.1, 0.2, 0.3], { box }), TypeError, /^points: must be a Float64Array/);
    throwsWith(() => tessellate(f64(0.1, 0.2), { box }), TypeError, /^points: length 2 is not a multiple of 3/);
    throwsWith(() => tessellate(f64(), { box }), RangeError, /points must not be empty/);
    throwsWith(() => tessellate(f64(0.1, 0.1, 0.1, 0.5, NaN, 0.5), { box }), TypeError, /^points \(index 1\)/);
    throwsWith(() => tessellate(f64(0.1, 0.1, 0.1, 0.5, 0.5, Infinity), { box }), TypeError, /^points \(index 1\)/);
    throwsWith(
      () => tessellate(f64(0.1, 0.1, 0.1, 0.5, 1.5, 0.5), { box }),
      RangeError,
      /^points \(index 1\).*outside/,
    );
    throwsWith(
      () => tessellate(f64(0.1, 0.1, 0.1, 0.2, 0.2, 0.2, 0.1, 0.1, 0.1), { box }),
      RangeError,
      /^points \(index 2\).*coincides with point 0/,
    );
    // Periodic axes wrap: outside the box is fine there, but wrapped duplicates are not.
    assert.equal(tessellate(f64(0.1, 0.1, 0.1, 1.5, 0.5, 0.5), { box, periodic: true }).size, 2);
    throwsWith(() => tessellate(f64(0.25, 0.1, 0.1, 1.25, 0.1, 0.1), { box, periodic: true }), RangeError, /coincides/);
  });

  it('radii', () => {
    const points = f64(0.1, 0.1, 0.1, 0.5, 0.5, 0.5);
    throwsWith(() => tessellate(points, { box, radii: [1, 2] }), TypeError, /^radii: must be a Float64Array/);
    throwsWith(() => tessellate(points, { box, radii: f64(0.1) }), TypeError, /radii length 1 differs/);
    throwsWith(() => tessellate(points, { box, radii: f64(0.1, -0.1) }), RangeError, /^radii \(index 1\).*negative/);
    throwsWith(() => tessellate(points, { box, radii: f64(0.1, NaN) }), TypeError, /^radii \(index 1\)/);
  });

  it('box, periodic, threads, options', () => {
    const points = f64(0.1, 0.1, 0.1);
    throwsWith(() => tessellate(points), TypeError, /^options: must be an options object/);
    throwsWith(() => tessellate(points, {}), TypeError, /^box: must be an options object/);
    throwsWith(
      () => tessellate(points, { box: { min: [0, 0], max: [1, 1, 1] } }),
      TypeError,
      /^box.min: must be \[x, y, z\]/,
    );
    throwsWith(
      () => tessellate(points, { box: { min: [0, 0, 0], max: [1, 1, NaN] } }),
      RangeError,
      /^box.max\[2\] \(index 2\): must be finite/,
    );
    throwsWith(
      () => tessellate(points, { box: { min: [0, 0, 0], max: [1, 1, '1'] } }),
      TypeError,
      /^box.max\[2\] \(index 2\): must be a number/,
    );
    throwsWith(() => tessellate(points, { box: { min: [0, 0, 0], max: [1, 0, 1] } }), RangeError, /^box \(index 1\)/);
    throwsWith(() => tessellate(points, { box: { min: [0, 0, 0], max: [-1, 1, 1] } }), RangeError, /^box \(index 0\)/);
    throwsWith(() => tessellate(points, { box, periodic: [true, false] }), TypeError, /^periodic: /);
    throwsWith(() => tessellate(points, { box, threads: 0 }), RangeError, /^threads: /);
    throwsWith(() => tessellate(points, { box, threads: 1.5 }), RangeError, /^threads: /);
    throwsWith(() => tessellate(points, { box, threads: '2' }), TypeError, /^threads: /);
  });

  it('rejects asynchronously with the same errors', async () => {
    await assert.rejects(tessellateAsync(f64(0.1, 0.1, NaN), { box }), TypeError);
    await assert.rejects(tessellateAsync(f64(0.1, 0.1, 2), { box }), /outside/);
    await assert.rejects(tessellateAsync(f64(0.1, 0.1, 0.1), { box, signal: 'no' }), TypeError);
  });
});

describe('async', () => {
  it('tessellateAsync gives the same result as tessellate', async () => {
    const points = randomPoints(20_000, 8);
    const sync = tessellate(points, { box, periodic: true });
    const async = await tessellateAsync(points, { box, periodic: true });
    assert.deepEqual([...async.volumes], [...sync.volumes]);
    assert.deepEqual([...async.neighbors], [...sync.neighbors]);
    assert.equal(executionSpace, 'host');
  });

  it('an AbortSignal cancels it, with the signal reason', async () => {
    const points = randomPoints(300_000, 9);
    const controller = new AbortController();
    const running = tessellateAsync(points, { box, signal: controller.signal });
    setTimeout(() => controller.abort(), 30);
    await assert.rejects(running, (e) => e.name === 'AbortError');
    const already = AbortSignal.abort(new Error('stop'));
    await assert.rejects(tessellateAsync(points, { box, signal: already }), /stop/);
  });

  it('using releases a tessellation, and a released one throws ReleasedError', async () => {
    const { ReleasedError } = await import('../dist/index.js');
    const t = tessellate(randomPoints(100, 1), { box });
    const volumes = t.volumes;
    t[Symbol.dispose]();
    assert.equal(t.released, true);
    assert.equal(volumes.length, 0);
    assert.throws(
      () => t.volumes,
      (e) =>
        e instanceof ReleasedError && /Tessellation#\d+ of module voro was released by release\(\)/.test(e.message),
    );
    assert.throws(() => t.cell(0), ReleasedError);
  });
});
