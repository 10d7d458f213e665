// Hostile input, each with its minimal case: far-off boxes, huge radii, limits, a periodic box
// that defeats the neighbour search, cancellation of a long computation, failed calls that
// must leave the tessellation as it was, options read once, inputs copied before checks.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { tessellate, tessellateAsync } from '../dist/index.js';
import { randomPoints } from './random.mjs';

const unit = { min: [0, 0, 0], max: [1, 1, 1] };
const f64 = (...xs) => new Float64Array(xs);
const sum = (xs) => xs.reduce((a, b) => a + b, 0);

function maxRelativeDifference(a, b) {
  assert.equal(a.length, b.length);
  let worst = 0;
  for (let i = 0; i < a.length; i++) {
    const scale = Math.max(Math.abs(a[i]), Math.abs(b[i]));
    if (scale > 0) worst = Math.max(worst, Math.abs(a[i] - b[i]) / scale);
  }
  return worst;
}

function rejectsWith(error, type, argument, pattern) {
  return (
    error instanceof type &&
    error.argument === argument &&
    error.message.startsWith(argument) &&
    (pattern === undefined || pattern.test(error.message))
  );
}

// Random points on a grid of 2^-22, so that adding 2^30 is exact.
function gridPoints(n, seed) {
  return randomPoints(n, seed).map((x) => Math.floor(x * 2 ** 22) / 2 ** 22);
}

describe('geometry relative to the box', () => {
  it('a unit box far from the origin gives the same cells', () => {
    const far = 1e14;
    const box = { min: [far, far, far], max: [far + 1, far + 1, far + 1] };
    const t = tessellate(f64(far + 0.25, far + 0.5, far + 0.5, far + 0.75, far + 0.5, far + 0.5), { box });
    assert.deepEqual([...t.volumes], [0.5, 0.5]);
    assert.deepEqual([...t.faceAreas].sort(), [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 1, 1, 1, 1]);
  });

  it('translation by 2^30 changes nothing, walled and periodic', () => {
    const offset = 2 ** 30;
    for (const periodic of [false, true]) {
      const points = gridPoints(3000, 2);
      const a = tessellate(points, { box: unit, periodic });
      const moved = points.map((x) => x + offset);
      const box = { min: [offset, offset, offset], max: [offset + 1, offset + 1, offset + 1] };
      const b = tessellate(moved, { box, periodic });
      assert.ok(maxRelativeDifference(a.volumes, b.volumes) < 1e-12);
      assert.ok(maxRelativeDifference(a.faceAreas, b.faceAreas) < 1e-12);
      assert.deepEqual([...a.neighbors], [...b.neighbors]);
      // Centroids stay in the frame of the points as given.
      assert.ok(
        maxRelativeDifference(
          a.centroids.map((x) => x + offset),
          b.centroids,
        ) < 1e-15,
      );
    }
  });

  it('scaling scales volumes by s^3 and areas by s^2', () => {
    const points = randomPoints(3000, 3);
    const a = tessellate(points, { box: unit, periodic: [true, false, true] });
    for (const s of [2 ** 100, 2 ** -100, 3, 1e-60, 1e60]) {
      const b = tessellate(
        points.map((x) => x * s),
        { box: { min: [0, 0, 0], max: [s, s, s] }, periodic: [true, false, true] },
      );
      assert.ok(
        maxRelativeDifference(
          a.volumes,
          b.volumes.map((v) => v / s ** 3),
        ) < 1e-12,
        `volumes at ${s}`,
      );
      assert.ok(Math.abs(sum(b.volumes) / s ** 3 - 1) < 1e-12);
      assert.deepEqual([...a.neighbors], [...b.neighbors]);
    }
  });
});

describe('Laguerre weights relative to each other', () => {
  it('equal radii of 1e6 and 1e8 give the Voronoi cells', () => {
    for (const periodic of [false, true]) {
      const points = randomPoints(1000, 4);
      const voronoi = tessellate(points, { box: unit, periodic });
      for (const r of [1e6, 1e8]) {
        const t = tessellate(points, { box: unit, periodic, radii: new Float64Array(1000).fill(r) });
        assert.equal(t.stats().emptyCells, 0);
        assert.ok(Math.abs(sum(t.volumes) - 1) < 1e-12);
        assert.ok(maxRelativeDifference(t.volumes, voronoi.volumes) < 1e-12);
      }
    }
  });
});

describe('limits are refused up front', () => {
  const one = f64(0, 0, 0);
  it('a box whose width overflows', () => {
    const box = { min: [-1e308, 0, 0], max: [1e308, 1, 1] };
    assert.throws(
      () => tessellate(one, { box }),
      (e) => rejectsWith(e, RangeError, 'box', /overflows/),
    );
  });
  it('a box whose volume overflows or underflows', () => {
    for (const w of [1e110, 1e-110]) {
      const box = { min: [0, 0, 0], max: [w, w, w] };
      assert.throws(
        () => tessellate(one, { box }),
        (e) => rejectsWith(e, RangeError, 'box', /1e-90, 1e90/),
      );
    }
    const thin = { min: [0, 0, 0], max: [1, 1, 1e-10] };
    assert.throws(
      () => tessellate(one, { box: thin }),
      (e) => rejectsWith(e, RangeError, 'box', /1e-9/),
    );
  });
  it('radii too large for the box', () => {
    assert.throws(
      () => tessellate(one, { box: unit, radii: f64(1e80) }),
      (e) => rejectsWith(e, RangeError, 'radii', /1e75/) && e.index === 0,
    );
  });
  it('more points than memory allows, before allocating (child process under ulimit -v)', async () => {
    const script = `
      import { tessellate } from ${JSON.stringify(new URL('../dist/index.js', import.meta.url).href)};
      const points = new Float64Array(3 * 2_000_000).map((_, i) => (i * 0.6180339887) % 1);
      try { tessellate(points, { box: { min: [0, 0, 0], max: [1, 1, 1] } }); console.log('computed'); }
      catch (e) { console.log(JSON.stringify({ name: e.name, code: e.code, argument: e.argument, message: e.message })); }`;
    const result = await run('bash', ['-c', `ulimit -v 1500000; exec node --input-type=module -e "$0"`, script]);
    const report = JSON.parse(result.stdout.trim().split('\n').at(-1));
    assert.equal(report.name, 'RangeError');
    assert.equal(report.code, 'PECLET_OUT_OF_MEMORY');
    assert.equal(report.argument, 'points');
    assert.match(report.message, /^points: a tessellation of 2000000 points would need about 2 GB/);
  });
});

describe('a periodic box much narrower than the cells', () => {
  // The case: 100 random points in a periodic box 1e5 x 1 x 1.
  const box = { min: [0, 0, 0], max: [1e5, 1, 1] };
  const points = randomPoints(100, 5).map((x, i) => (i % 3 === 0 ? x * 1e5 : x));
  it('is refused fast with a RangeError naming the box', async () => {
    const t0 = performance.now();
    assert.throws(
      () => tessellate(points, { box, periodic: true }),
      (e) => rejectsWith(e, RangeError, 'box', /periodic axis [yz].*walled/) && e.index >= 1,
    );
    const t1 = performance.now();
    await assert.rejects(tessellateAsync(points, { box, periodic: true }), (e) => rejectsWith(e, RangeError, 'box'));
    const t2 = performance.now();
    assert.ok(t1 - t0 < 1000 && t2 - t1 < 1000, `${t1 - t0} ms, ${t2 - t1} ms`);
  });
  it('works with those axes walled', () => {
    const t = tessellate(points, { box, periodic: [true, false, false] });
    assert.ok(Math.abs(sum(t.volumes) / 1e5 - 1) < 1e-12);
  });
});

function run(command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('close', (status) =>
      resolve({ status, stdout, stderr, closed: performance.timeOrigin + performance.now() }),
    );
  });
}

describe('a long legal computation ends within 1 s', { concurrency: false }, () => {
  const fixture = fileURLToPath(new URL('./fixtures/long-computation.mjs', import.meta.url));
  const at = (stdout, word) => Number(stdout.match(new RegExp(`^${word} (\\S+)`, 'm'))?.[1]);
  for (const [how, status, ended] of [
    ['abort', 0, /^ended \S+ AbortError/m],
    ['finalize', 0, /^ended \S+ Error PECLET_CANCELLED/m],
    ['exit', 3, null],
  ]) {
    it(`by ${how === 'exit' ? 'process.exit()' : how === 'abort' ? 'an AbortSignal' : 'finalize()'}`, async () => {
      const result = await run(process.execPath, [fixture, how]);
      assert.equal(result.status, status, result.stderr);
      const stop = at(result.stdout, 'stop');
      assert.ok(stop > 0, result.stdout);
      if (ended) {
        assert.match(result.stdout, ended);
        assert.ok(at(result.stdout, 'ended') - stop < 1000, result.stdout);
      }
      assert.ok(result.closed - stop < 1500, `exited ${result.closed - stop} ms after the stop`);
    });
  }
});

describe('atomic calls', () => {
  it('a failed update() leaves the tessellation as it was', () => {
    const points = randomPoints(300, 6);
    const t = tessellate(points, { box: unit });
    const volumes = t.volumes;
    const before = [...volumes];
    const neighbors = [...t.neighbors];
    const coincident = points.slice();
    coincident.set(points.subarray(0, 3), 9);
    assert.throws(
      () => t.update(coincident),
      (e) => rejectsWith(e, RangeError, 'points', /coincides/) && e.index === 3,
    );
    const nan = points.slice();
    nan[4] = Number.NaN;
    assert.throws(
      () => t.update(nan),
      (e) => rejectsWith(e, TypeError, 'points') && e.index === 1,
    );
    assert.equal(t.size, 300);
    assert.deepEqual([...volumes], before, 'arrays read before a failed update stay valid');
    assert.deepEqual([...t.volumes], before);
    assert.deepEqual([...t.neighbors], neighbors);
    t.update(points);
    assert.deepEqual([...t.volumes], before);
  });
});

describe('arguments read once, inputs copied', () => {
  it('a getter cannot change the options between check and use', () => {
    let reads = 0;
    const options = {
      get box() {
        reads++;
        return reads === 1 ? unit : { min: [0, 0, 0], max: [-1, 1, 1] };
      },
    };
    const t = tessellate(randomPoints(10, 7), options);
    assert.equal(reads, 1);
    assert.ok(Math.abs(sum(t.volumes) - 1) < 1e-12);
    const proxy = new Proxy(
      { box: unit, periodic: false },
      {
        get(target, key) {
          reads++;
          return target[key];
        },
      },
    );
    reads = 0;
    tessellate(randomPoints(10, 7), proxy);
    assert.equal(reads, 4, 'box, periodic, radii, threads: once each');
  });

  it('points in a SharedArrayBuffer are copied before they are checked', () => {
    const shared = new Float64Array(new SharedArrayBuffer(8 * 30));
    shared.set(randomPoints(10, 8));
    const t = tessellate(shared, { box: unit });
    shared.fill(Number.NaN);
    t.update(randomPoints(10, 8));
    assert.ok(Math.abs(sum(t.volumes) - 1) < 1e-12);
  });

  it('errors carry argument and index', () => {
    assert.throws(
      () => tessellate(f64(0.1, 0.1, 0.1, 0.5, 2, 0.5), { box: unit }),
      (e) => rejectsWith(e, RangeError, 'points', /outside/) && e.index === 1,
    );
    assert.throws(
      () => tessellate(f64(0.1, 0.1, 0.1), { box: unit, radii: f64(-1) }),
      (e) => rejectsWith(e, RangeError, 'radii') && e.index === 0,
    );
    assert.throws(
      () => tessellate(f64(0.1, 0.1, 0.1), { box: unit, threads: 0 }),
      (e) => rejectsWith(e, RangeError, 'threads'),
    );
  });
});
