// The TypeScript runtime in process: Teardown, Registry/Releasable, errors,
// cpuBudget against fixture cgroup files.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { transformSync } from 'esbuild';
import {
  cpuBudget,
  cpuBudgetDetails,
  defineModule,
  Registry,
  Releasable,
  ReleasedError,
  Teardown,
  TeardownError,
} from '../dist/index.js';
import { fixtures, runNode } from './helpers.mjs';

// Node 20 cannot parse `using`; compile the block the way TypeScript users'
// code is compiled (esbuild, as tsup does) and run it.
function runUsing(body, scope = {}) {
  const { code } = transformSync(`module.exports = function () { ${body} };`, { target: 'node20', loader: 'ts' });
  const names = ['module', 'Teardown', ...Object.keys(scope)];
  const module = {};
  new Function(...names, code)(module, Teardown, ...Object.values(scope));
  return module.exports();
}

describe('Teardown', () => {
  it('releases newest first, attempts every release, aggregates failures', () => {
    const order = [];
    const t = new Teardown('cx');
    t.push({ label: 'a', release: (cx) => order.push(`a:${cx}`) });
    t.push({
      label: 'b',
      release: () => {
        order.push('b');
        throw new Error('b failed');
      },
    });
    t.push({ label: 'c', release: () => order.push('c') });
    t.push({
      label: 'd',
      release: () => {
        order.push('d');
        throw new RangeError('d failed');
      },
    });
    let error;
    try {
      t.releaseAll('ctx');
    } catch (e) {
      error = e;
    }
    assert.deepEqual(order, ['d', 'c', 'b', 'a:ctx']);
    assert.ok(error instanceof TeardownError);
    assert.ok(error instanceof AggregateError);
    assert.deepEqual(
      error.failures.map((f) => f.label),
      ['d', 'b'],
    );
    assert.deepEqual(
      error.errors.map((e) => e.message),
      ['d failed', 'b failed'],
    );
    assert.match(error.message, /2 releases failed\n {2}d: RangeError: d failed\n {2}b: Error: b failed/);
  });

  it('is idempotent', () => {
    let n = 0;
    const t = new Teardown();
    t.push({ label: 'x', release: () => n++ });
    t.releaseAll();
    t.releaseAll();
    assert.equal(n, 1);
    assert.equal(t.released, true);
  });

  it('works with using, passing its context', () => {
    const seen = runUsing(`
      const seen = [];
      {
        using t = new Teardown('scope');
        t.push({ label: 'first', release: (cx) => seen.push('first:' + cx) });
        t.push({ label: 'second', release: (cx) => seen.push('second:' + cx) });
      }
      return seen;`);
    assert.deepEqual(seen, ['second:scope', 'first:scope']);
  });

  it('releases at once what is pushed after release', () => {
    const t = new Teardown();
    t.releaseAll();
    let released = false;
    t.push({ label: 'late', release: () => (released = true) });
    assert.equal(released, true);
    assert.throws(() => t.push({ label: 'bad' }), TypeError);
  });
});

describe('Registry and Releasable', () => {
  class Buffer extends Releasable {
    freed = 0;
    constructor(registry, fail = false) {
      super(registry);
      this.fail = fail;
    }
    read() {
      this.assertLive();
      return 1;
    }
    releaseResources() {
      this.freed++;
      if (this.fail) throw new Error(`cannot free #${this.id}`);
    }
  }

  it('release() is idempotent and later use throws ReleasedError', () => {
    const registry = new Registry('unit');
    const b = new Buffer(registry);
    assert.equal(registry.size, 1);
    b.release();
    b.release();
    assert.equal(b.freed, 1);
    assert.equal(registry.size, 0);
    assert.throws(
      () => b.read(),
      (e) =>
        e instanceof ReleasedError &&
        e instanceof TypeError &&
        /Buffer#1 of module unit was released by release\(\)/.test(e.message),
    );
  });

  it('using releases at the end of the block', () => {
    const registry = new Registry('unit');
    const b = runUsing(
      `let b;
      {
        using scoped = new Buffer(registry);
        b = scoped;
      }
      return b;`,
      { Buffer, registry },
    );
    assert.equal(b.released, true);
  });

  it('releaseAll goes newest first, attempts all, runs hooks after, reports failures', () => {
    const registry = new Registry('unit');
    const order = [];
    const a = new Buffer(registry);
    const b = new Buffer(registry, true);
    const c = new Buffer(registry);
    for (const x of [a, b, c]) {
      const inner = x.releaseResources.bind(x);
      x.releaseResources = () => {
        order.push(x.id);
        inner();
      };
    }
    registry.onRelease('hook', () => order.push('hook'));
    const { released, failures } = registry.releaseAll();
    assert.deepEqual(order, [3, 2, 1, 'hook']);
    assert.equal(released, 3);
    assert.deepEqual(
      failures.map((f) => f.label),
      ['Buffer#2'],
    );
    assert.equal(registry.size, 0);
    assert.throws(() => c.read(), /released by finalize\(\)/);
  });

  it('never keeps an object alive', async () => {
    const result = await runNode(join(fixtures, 'gc-registry.mjs'), [], { nodeArgs: ['--expose-gc'] });
    assert.deepEqual(JSON.parse(result.stdout), { before: 1001, after: 1, keptLive: true });
  });

  it('a module without an addon finalizes its registry and reports failures together', () => {
    const mod = defineModule({ name: 'pure' });
    const ok = new Buffer(mod.registry);
    new Buffer(mod.registry, true);
    assert.equal(mod.executionSpace, 'host');
    assert.throws(
      () => mod.finalize(),
      (e) => e instanceof TeardownError && e.failures.length === 1,
    );
    assert.equal(ok.released, true);
    assert.equal(mod.finalized, true);
    mod.finalize(); // idempotent, nothing left to fail
    assert.throws(() => mod.assertLive('Buffer'), ReleasedError);
  });

  it('rejects a module without a name', () => {
    assert.throws(() => defineModule({}), TypeError);
  });
});

describe('cpuBudget', () => {
  const root = (name) => join(fixtures, 'cgroup', name);
  const env = {};

  it('cgroup v2 cpu.max quota, rounded up', () => {
    assert.deepEqual(cpuBudgetDetails({ root: root('v2-quota'), affinity: 8, env }), {
      threads: 2,
      source: 'cgroup-v2',
      affinity: 8,
      quota: 1.5,
    });
  });
  it('cgroup v2: the tightest ancestor wins', () => {
    assert.equal(cpuBudget({ root: root('v2-nested'), affinity: 16, env }), 2);
  });
  it('cgroup v2 unlimited: the affinity mask', () => {
    assert.deepEqual(cpuBudgetDetails({ root: root('v2-unlimited'), affinity: 4, env }), {
      threads: 4,
      source: 'affinity',
      affinity: 4,
      quota: undefined,
    });
  });
  it('cgroup v1 CFS quota', () => {
    assert.deepEqual(cpuBudgetDetails({ root: root('v1-quota'), affinity: 32, env }).threads, 3);
    assert.equal(cpuBudgetDetails({ root: root('v1-quota'), affinity: 32, env }).source, 'cgroup-v1');
  });
  it('cgroup v1 unlimited, path not mounted: the affinity mask', () => {
    assert.equal(cpuBudget({ root: root('v1-unlimited'), affinity: 6, env }), 6);
  });
  it('a quota above the affinity mask does not raise it', () => {
    assert.equal(cpuBudget({ root: root('v1-quota'), affinity: 2, env }), 2);
  });
  it('no cgroup files at all: the affinity mask', () => {
    assert.equal(cpuBudget({ root: root('does-not-exist'), affinity: 5, env }), 5);
  });
  it('PECLET_NUM_THREADS, then OMP_NUM_THREADS, override', () => {
    const r = root('v2-quota');
    assert.equal(cpuBudget({ root: r, affinity: 8, env: { PECLET_NUM_THREADS: '6', OMP_NUM_THREADS: '3' } }), 6);
    assert.equal(cpuBudget({ root: r, affinity: 8, env: { OMP_NUM_THREADS: '3,2' } }), 3);
    assert.equal(cpuBudget({ root: r, affinity: 8, env: { PECLET_NUM_THREADS: 'zero', OMP_NUM_THREADS: '0' } }), 2);
  });
  it('on this machine: at least 1', () => {
    assert.ok(cpuBudget() >= 1);
  });
});

describe('cancelledError', () => {
  it('is an Error with code PECLET_CANCELLED and the message given', async () => {
    const { cancelledError } = await import('../dist/index.js');
    const e = cancelledError('Lattice#3.run(): cancelled by release()');
    assert.ok(e instanceof Error);
    assert.equal(e.code, 'PECLET_CANCELLED');
    assert.equal(e.message, 'Lattice#3.run(): cancelled by release()');
  });
});
