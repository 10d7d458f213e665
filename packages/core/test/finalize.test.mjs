// Explicit finalize() and module independence, in child processes.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { assertCleanExit, fixtures, runNode } from './helpers.mjs';

const script = join(fixtures, 'explicit-finalize.mjs');
const report = (result) => JSON.parse(result.stdout.trim().split('\n').at(-1));

describe('explicit finalize()', () => {
  it('releases everything, detaches arrays, refuses new objects, cancels work', async () => {
    const result = await runNode(script, ['alpha']);
    assertCleanExit(result, { status: 0, finalizes: { alpha: 1 }, reasons: { alpha: ['explicit'] } });
    const r = report(result);
    assert.equal(r.before.length, 50_000);
    assert.equal(r.before.stats.liveObjects, 2);
    assert.ok(r.before.stats.liveBytes > 400_000);
    assert.equal(r.finalized, true);
    assert.equal(r.valuesLength, 0, 'zero-copy array detached');
    assert.equal(r.valuesByteLength, 0);
    for (const key of ['fieldSum', 'fieldValues', 'particleMass', 'scratch']) {
      assert.equal(r[key].name, 'ReleasedError', key);
      assert.equal(r[key].typeError, true, key);
      assert.equal(r[key].released, true, key);
      assert.match(r[key].message, /of module alpha was released by finalize\(\)/, key);
    }
    assert.equal(r.releaseAgain, 'no error', 'release() stays idempotent');
    assert.equal(r.newField.released, true);
    assert.match(r.newField.message, /cannot create Field: module alpha was finalized/);
    assert.match(r.async, /^rejected PECLET_CANCELLED: Field.relaxAsync cancelled: module alpha was finalized/);
    assert.equal(r.stats.liveObjects, 0);
    assert.equal(r.stats.liveBytes, 0);
    assert.equal(r.stats.runtimeFinalized, true);
    assert.equal(r.stats.poolStarted, false, 'threads joined');
  });

  for (const order of [
    ['alpha', 'beta'],
    ['beta', 'alpha'],
  ]) {
    it(`finalizing ${order[0]} leaves ${order[1]} fully working`, async () => {
      const result = await runNode(script, [order.join(',')]);
      assertCleanExit(result, {
        status: 0,
        finalizes: { alpha: 1, beta: 1 },
        reasons: { [order[0]]: ['explicit'], [order[1]]: ['exit'] },
      });
      const r = report(result);
      assert.deepEqual(r.others[order[1]], { sum: 499500, length: 1000, finalized: false });
    });
  }
});

describe('importing', () => {
  it('adds one exit listener and nothing else: no signal handler, no thread until first use', async () => {
    const result = await runNode(join(fixtures, 'import-side-effects.mjs'), [], { env: { PECLET_NUM_THREADS: '2' } });
    const r = report(result);
    assert.equal(r.afterLoad.exit, r.before.exit + 1);
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) assert.equal(r.afterLoad[signal], 0, signal);
    assert.equal(r.afterLoad.threads, r.before.threads, 'loading starts no thread');
    assert.equal(r.afterObject.threads, r.before.threads, 'creating an object starts no thread');
    assert.equal(r.afterWork.threads, r.before.threads + 1, 'the first parallel loop starts the pool (caller + 1)');
  });
});
