// core's targets: Teardown, Registry, Releasable, defineModule + finalize/finalizeAsync,
// cpuBudget, handleSignals and the argument readers.

import { writeSync } from 'node:fs';
import { boxes, containers, numbers, timeouts } from './domains.mjs';

const isTeardownError = (e) => e instanceof Error && e.constructor?.name === 'TeardownError';

const values = {
  ...Object.fromEntries(Object.entries(numbers).map(([k, f]) => [`number ${k}`, f])),
  "'a string'": () => 'a string',
  "''": () => '',
  'a long string': () => 'x'.repeat(10_000),
  'an array of 3 numbers': () => [1, 2, 3],
  'an array with a hole': () => {
    const a = [1, 2, 3];
    delete a[1];
    return a;
  },
  'a Float64Array of 3': () => new Float64Array([1, 2, 3]),
  'a detached Float64Array': () => containers['detached Float64Array']([1, 2, 3]),
  'a SharedArrayBuffer-backed Float64Array': () => containers['SharedArrayBuffer-backed']([1, 2, 3]),
  'a subarray at offset 1': () => containers['subarray at offset 1']([1, 2, 3]),
  'an Int32Array of 3': () => new Int32Array([1, 2, 3]),
  'a DataView': () => new DataView(new ArrayBuffer(24)),
  'an AbortSignal': () => new AbortController().signal,
  'a function': () => () => 1,
  'a class': () => class {},
  'an object': () => ({ a: 1 }),
  'a null-prototype object': () => Object.create(null),
  'a Proxy that throws on get': () =>
    new Proxy(
      {},
      {
        get() {
          throw new RangeError('hostile proxy');
        },
      },
    ),
  'a revoked Proxy': () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    return proxy;
  },
  'a getter answering differently': () => {
    let reads = 0;
    return {
      get min() {
        return reads++ === 0 ? [0, 0, 0] : [Number.NaN, 0, 0];
      },
      max: [1, 1, 1],
      get steps() {
        return reads++ === 0 ? 1 : -1;
      },
    };
  },
  'an array whose element changes on each read': () => {
    const a = [1, 2, 3];
    let reads = 0;
    Object.defineProperty(a, 1, { get: () => (reads++ === 0 ? 2 : Number.NaN), enumerable: true });
    return a;
  },
  'a box': () => boxes.unit.make(),
  'a ±1e308 box': () => boxes['±1e308'].make(),
  'a 1e14 box': () => boxes['corner at 1e14'].make(),
};

/** The readers and how each is called: `(reader, value) → result`. */
const readers = {
  readNumber: (a, v) => a.readNumber(v, 'x'),
  'readNumber { min: 0, infinite }': (a, v) => a.readNumber(v, 'x', { min: 0, infinite: true }),
  'readNumber { above: 0, below: 1 }': (a, v) => a.readNumber(v, 'x', { above: 0, below: 1 }),
  readInteger: (a, v) => a.readInteger(v, 'n'),
  'readInteger { min: 1, max: 10 }': (a, v) => a.readInteger(v, 'n', { min: 1, max: 10 }),
  readBoolean: (a, v) => a.readBoolean(v, 'flag'),
  readEnum: (a, v) => a.readEnum(v, 'kind', ['a', 'b']),
  readVector3: (a, v) => a.readVector3(v, 'v'),
  'readVector3 { maxMagnitude: 1e300 }': (a, v) => a.readVector3(v, 'v', { maxMagnitude: 1e300 }),
  readFlags: (a, v) => a.readFlags(v, 3, 'flags', false),
  readFloat64Array: (a, v) => a.readFloat64Array(v, 'points'),
  'readFloat64Array { finite, multipleOf: 3, maxLength: 6 }': (a, v) =>
    a.readFloat64Array(v, 'points', { finite: true, multipleOf: 3, maxLength: 6 }),
  readSignal: (a, v) => a.readSignal(v, 'signal'),
  readFunction: (a, v) => a.readFunction(v, 'callback'),
  readBox: (a, v) => a.readBox(v, 'box'),
  'readBox { maxExtent: 10 }': (a, v) => a.readBox(v, 'box', { maxExtent: 10 }),
  readOptions: (a, v) => a.readOptions(v, 'options', ['min', 'steps']),
  describeValue: (a, v) => a.describeValue(v),
  isDetached: (a, v) => a.isDetached(v),
  argumentError: (a, v) => a.argumentError('range', 'x', String(a.describeValue(v)), 2),
};

/** What a reader's success promises about its result. */
function checkReader(h, name, value, input) {
  const finite = (x) => typeof x === 'number' && Number.isFinite(x);
  if (name.startsWith('readNumber') || name.startsWith('readInteger')) {
    if (typeof value !== 'number' || Number.isNaN(value)) h.problem(`${name} returned ${String(value)}`);
    if (name.startsWith('readInteger') && !Number.isInteger(value)) h.problem(`${name} returned ${value}`);
    if (name === 'readNumber' && !Number.isFinite(value)) h.problem(`readNumber returned ${value}`);
  }
  if (name.startsWith('readVector3') && !(Array.isArray(value) && value.length === 3 && value.every(finite))) {
    h.problem(`${name} returned ${value}`);
  }
  if (name.startsWith('readFloat64Array')) {
    if (!(value instanceof Float64Array)) h.problem(`${name} returned ${value?.constructor?.name}`);
    else if (ArrayBuffer.isView(input) && value.buffer === input.buffer)
      h.problem(`${name} returned the caller's memory, not a copy`);
    else if (value.buffer instanceof SharedArrayBuffer) h.problem(`${name} returned shared memory`);
    if (name.includes('finite') && value instanceof Float64Array && value.some((x) => !Number.isFinite(x))) {
      h.problem(`${name} returned a non-finite element`);
    }
  }
  if (name.startsWith('readBox')) {
    for (let a = 0; a < 3; a++) {
      const w = value.max[a] - value.min[a];
      if (!(Number.isFinite(w) && w > 0)) h.problem(`${name} returned a box of width ${w} on axis ${a}`);
    }
  }
  if (name === 'describeValue' && typeof value !== 'string') h.problem('describeValue did not return a string');
  if (name === 'argumentError' && !(value instanceof RangeError && value.argument === 'x' && value.index === 2)) {
    h.problem('argumentError did not make a RangeError with argument and index');
  }
}

export const coreTargets = {
  'core.args readers': {
    build: (r) => ({ reader: r.pick(Object.keys(readers)), value: r.pick(Object.keys(values)) }),
    async exec(plan, h, { core }) {
      const input = values[plan.value]();
      const result = await h.call(`${plan.reader}(${plan.value})`, () => readers[plan.reader](core, input));
      if (result.ok) checkReader(h, plan.reader, result.value, input);
      else if (plan.reader === 'describeValue' || plan.reader === 'isDetached' || plan.reader === 'argumentError') {
        if (plan.reader !== 'isDetached') h.problem(`${plan.reader} threw (it must never throw)`);
      }
      if (
        !result.ok &&
        result.error instanceof Error &&
        (result.error instanceof TypeError || result.error instanceof RangeError)
      ) {
        const e = result.error;
        if (e.message !== 'hostile proxy' && !/^Cannot perform/.test(e.message) && typeof e.argument !== 'string') {
          h.problem(`${plan.reader}: ${e.constructor.name} without an argument property: ${e.message}`);
        }
      }
    },
  },

  'core.Teardown': {
    build: (r) => ({
      resources: Array.from({ length: r.int(0, 4) }, () =>
        r.pick([
          'ok',
          'ok',
          'throws',
          'throws a non-Error',
          'pushes another',
          'calls releaseAll again',
          'no release function',
          'not an object',
          'a Proxy',
          'release is a getter that throws',
        ]),
      ),
      after: r.pick(['releaseAll', 'releaseAll twice', 'dispose', 'push after releaseAll']),
    }),
    async exec(plan, h, { core }) {
      const t = new core.Teardown();
      const order = [];
      let pushed = 0;
      const make = (kind, i) =>
        ({
          ok: () => ({ label: `r${i}`, release: () => order.push(i) }),
          throws: () => ({
            label: `r${i}`,
            release: () => {
              order.push(i);
              throw new Error(`release ${i} failed`);
            },
          }),
          'throws a non-Error': () => ({
            label: `r${i}`,
            release: () => {
              order.push(i);
              throw 42;
            },
          }),
          'pushes another': () => ({
            label: `r${i}`,
            release: () => {
              order.push(i);
              t.push({ label: 'late', release: () => order.push('late') });
            },
          }),
          'calls releaseAll again': () => ({
            label: `r${i}`,
            release: () => {
              order.push(i);
              t.releaseAll();
            },
          }),
          'no release function': () => ({ label: `r${i}` }),
          'not an object': () => 7,
          'a Proxy': () => new Proxy({ label: `r${i}`, release: () => order.push(i) }, {}),
          'release is a getter that throws': () => ({
            label: `r${i}`,
            get release() {
              throw new TypeError('hostile getter');
            },
          }),
        })[kind]();
      for (const [i, kind] of plan.resources.entries()) {
        const pushedOk = await h.call(`push(${kind})`, () => t.push(make(kind, i)), {
          digest: () => `${t.size}|${t.released}`,
          bad: ['no release function', 'not an object'].includes(kind),
        });
        if (pushedOk.ok) pushed++;
      }
      if (t.size !== pushed) h.problem(`size ${t.size} after ${pushed} accepted pushes`);
      const releaseAll = () => h.call('releaseAll()', () => t.releaseAll(), { allow: isTeardownError });
      if (plan.after === 'dispose')
        await h.call('[Symbol.dispose]()', () => t[Symbol.dispose](), { allow: isTeardownError });
      else await releaseAll();
      if (plan.after === 'releaseAll twice') await releaseAll();
      if (plan.after === 'push after releaseAll') {
        await h.call('push after releaseAll', () => t.push({ label: 'after', release: () => order.push('after') }), {
          allow: isTeardownError,
        });
        if (!order.includes('after')) h.problem('a resource pushed after releaseAll was not released at once');
      }
      if (!t.released) h.problem('released is false after releaseAll');
      if (t.size !== 0) h.problem(`size ${t.size} after releaseAll`);
      const numbered = order.filter((x) => typeof x === 'number');
      if (new Set(numbered).size !== numbered.length) h.problem(`a resource was released twice: ${order}`);
      for (let k = 1; k < numbered.length; k++)
        if (numbered[k] > numbered[k - 1]) h.problem(`not newest first: ${order}`);
    },
  },

  'core.Registry': {
    build: (r) => ({
      objects: Array.from({ length: r.int(0, 4) }, () =>
        r.pick([
          'ok',
          'ok',
          'release throws',
          'creates a Releasable in its release',
          'creates one forever',
          'releases another',
          'calls releaseAll again',
        ]),
      ),
      hooks: Array.from({ length: r.int(0, 2) }, () =>
        r.pick(['ok', 'throws', 'label not a string', 'not a function', 'calls releaseAll']),
      ),
      add: r.pick(['none', 'a plain object', 'null', 'a released Releasable']),
      nextId: r.pick(['default', 'returns NaN', 'returns the same id', 'throws']),
      by: r.pick(['default', "'finalize()'", '42']),
    }),
    async exec(plan, h, { core }) {
      const nextId = {
        default: undefined,
        'returns NaN': () => Number.NaN,
        'returns the same id': () => 1,
        throws: () => {
          throw new RangeError('hostile nextId');
        },
      }[plan.nextId];
      const made = await h.call(`new Registry('hostile', ${plan.nextId})`, () => new core.Registry('hostile', nextId));
      if (!made.ok) return;
      const registry = made.value;
      const created = [];
      class Thing extends core.Releasable {
        constructor(kind) {
          super(registry);
          this.kind = kind;
          created.push(this);
        }
        releaseResources() {
          if (this.kind === 'release throws') throw new Error('hostile release');
          if (this.kind === 'creates a Releasable in its release') new Thing('ok');
          if (this.kind === 'creates one forever') new Thing('creates one forever');
          if (this.kind === 'releases another') created[0]?.release();
          if (this.kind === 'calls releaseAll again') registry.releaseAll();
        }
      }
      for (const kind of plan.objects) await h.call(`new Releasable(${kind})`, () => new Thing(kind));
      if (plan.nextId === 'default' && registry.size !== created.length)
        h.problem(`size ${registry.size} with ${created.length} live objects`);
      for (const kind of plan.hooks) {
        const hook = {
          ok: () => {},
          throws: () => {
            throw new Error('hostile hook');
          },
          'label not a string': () => {},
          'not a function': 5,
          'calls releaseAll': () => registry.releaseAll(),
        }[kind];
        await h.call(`onRelease(${kind})`, () => registry.onRelease(kind === 'label not a string' ? 5 : kind, hook));
      }
      if (plan.add !== 'none') {
        const value = { 'a plain object': {}, null: null, 'a released Releasable': created[0] }[plan.add];
        if (value !== undefined)
          await h.call(`registry.add(${plan.add})`, () => registry.add(value), { bad: plan.add === 'null' });
      }
      const by = { default: undefined, "'finalize()'": 'finalize()', 42: 42 }[plan.by];
      const result = await h.call('releaseAll()', () => registry.releaseAll(by));
      if (result.ok) {
        const v = result.value;
        if (!(Number.isInteger(v.released) && v.released >= 0 && Array.isArray(v.failures)))
          h.problem(`releaseAll returned ${JSON.stringify(v)}`);
        const forever = created.some((o) => o.kind === 'creates one forever');
        const live = created.filter((o) => !o.released);
        // Ids from a nextId that repeats or is NaN are the caller's error: liveness is not judged then.
        const judged = !forever && plan.nextId === 'default';
        if (live.length > 0 && judged)
          h.problem(`${live.length} Releasable(s) still live after releaseAll (e.g. one created inside a release)`);
        if (registry.size !== 0 && judged) h.problem(`registry size ${registry.size} after releaseAll`);
        // With a broken nextId the new object cannot even register: that failure is the report.
        if (forever && !v.failures.length) h.problem('a release that keeps creating objects was not reported');
      }
    },
  },

  'core.defineModule + finalize': {
    build: (r) => ({
      name: r.pick(["'hostile'", "''", '5', 'undefined', 'a Proxy']),
      threads: r.pick(['undefined', '1', '0', '-1', 'NaN', '1e9', "'2'"]),
      native: r.pick(['none', 'none', 'a bogus object', 'a native whose finalize throws']),
      options: r.pick(['object', 'object', 'null', 'undefined']),
      next: r.pick([
        'finalize',
        'finalize twice',
        'finalize with a live Releasable',
        'finalize from a release',
        'finalizeAsync',
      ]),
      timeoutMs: r.pick(Object.keys(timeouts)),
      drain: r.pick(['none', 'settles after 20 ms', 'rejects', 'throws', 'never settles']),
    }),
    async exec(plan, h, { core }) {
      const name = { "'hostile'": 'hostile', "''": '', 5: 5, undefined: undefined, 'a Proxy': new Proxy({}, {}) }[
        plan.name
      ];
      const threads = { undefined: undefined, 1: 1, 0: 0, '-1': -1, NaN: Number.NaN, '1e9': 1e9, "'2'": '2' }[
        plan.threads
      ];
      const native = {
        none: undefined,
        'a bogus object': { executionSpace: 'host' },
        'a native whose finalize throws': {
          executionSpace: 'host',
          finalize() {
            throw new Error('hostile native finalize');
          },
          __peclet: {
            name: 'x',
            configure() {},
            nextId: (() => {
              let i = 0;
              return () => ++i;
            })(),
            stats: () => ({}),
          },
        },
      }[plan.native];
      const options =
        plan.options === 'object' ? { name, threads, native } : plan.options === 'null' ? null : undefined;
      const made = await h.call(
        `defineModule({ name: ${plan.name}, threads: ${plan.threads}, native: ${plan.native} })`,
        () => core.defineModule(options),
        {
          bad: plan.options !== 'object' || typeof name !== 'string' || name === '',
        },
      );
      if (!made.ok) return;
      const mod = made.value;
      class Thing extends core.Releasable {
        constructor() {
          super(mod.registry);
        }
        releaseResources() {
          if (plan.next === 'finalize from a release') mod.finalize();
        }
      }
      const thing =
        plan.next.includes('Releasable') || plan.next === 'finalize from a release' ? new Thing() : undefined;
      if (plan.drain !== 'none' && plan.drain !== 'never settles') {
        mod.onDrain(
          'hostile',
          {
            'settles after 20 ms': () => new Promise((resolve) => setTimeout(resolve, 20)),
            rejects: () => Promise.reject(new Error('hostile drain')),
            throws: () => {
              throw new Error('hostile drain');
            },
          }[plan.drain],
        );
      }
      const allow = isTeardownError;
      if (plan.next === 'finalizeAsync') {
        const timeoutMs = timeouts[plan.timeoutMs]();
        // A drain that never settles with an infinite time out waits for ever by design; give it 50 ms.
        if (plan.drain === 'never settles') mod.onDrain('never', () => new Promise(() => {}));
        const t =
          plan.drain === 'never settles' && (timeoutMs === undefined || timeoutMs > 50 || Number.isNaN(timeoutMs))
            ? 50
            : timeoutMs;
        const valid = t === undefined || (typeof t === 'number' && t >= 0);
        await h.call(
          `finalizeAsync({ timeoutMs: ${t === 50 && plan.timeoutMs !== '50' ? 50 : plan.timeoutMs} })`,
          () => mod.finalizeAsync({ timeoutMs: t }),
          { allow, bad: !valid },
        );
        if (valid && !mod.finalized && plan.native !== 'a native whose finalize throws')
          h.problem('finalizeAsync resolved but the module is not finalized');
      } else {
        await h.call('finalize()', () => mod.finalize(), { allow });
        if (plan.next === 'finalize twice') await h.call('finalize() again', () => mod.finalize(), { allow });
        if (!mod.finalized && plan.native !== 'a native whose finalize throws')
          h.problem('finalized is false after finalize()');
      }
      if (thing && !thing.released) h.problem('a Releasable is live after its module finalized');
    },
  },

  'core.cpuBudget': {
    build: (r) => ({
      env: r.pick([
        'none',
        "PECLET_NUM_THREADS '0'",
        "PECLET_NUM_THREADS '-1'",
        "PECLET_NUM_THREADS '1e9'",
        "PECLET_NUM_THREADS 'NaN'",
        "PECLET_NUM_THREADS ' 2'",
        "PECLET_NUM_THREADS '2.5'",
        "OMP_NUM_THREADS '4,2'",
        "OMP_NUM_THREADS ''",
        'a Proxy env',
        'null env',
      ]),
      root: r.pick(['default', "'/nonexistent'", "'/proc'", '5']),
      affinity: r.pick(['undefined', '1', '0', '-1', 'NaN', 'Infinity', '1e308', '0.5', "'2'"]),
    }),
    async exec(plan, h, { core }) {
      const envs = {
        none: undefined,
        'a Proxy env': new Proxy({}, { get: (_, k) => (k === 'PECLET_NUM_THREADS' ? '3' : undefined) }),
        'null env': null,
      };
      let env = envs[plan.env];
      if (!(plan.env in envs)) {
        const [, key, value] = plan.env.match(/^(\S+) '(.*)'$/);
        env = { [key]: value };
      }
      const root = { default: undefined, "'/nonexistent'": '/nonexistent', "'/proc'": '/proc', 5: 5 }[plan.root];
      const affinity = {
        undefined: undefined,
        1: 1,
        0: 0,
        '-1': -1,
        NaN: Number.NaN,
        Infinity: Number.POSITIVE_INFINITY,
        '1e308': 1e308,
        0.5: 0.5,
        "'2'": '2',
      }[plan.affinity];
      const options = {};
      if (env !== undefined) options.env = env;
      if (root !== undefined) options.root = root;
      if (affinity !== undefined) options.affinity = affinity;
      for (const fn of ['cpuBudget', 'cpuBudgetDetails']) {
        const result = await h.call(`${fn}(${JSON.stringify(plan)})`, () => core[fn](options));
        if (!result.ok) continue;
        const threads = fn === 'cpuBudget' ? result.value : result.value.threads;
        if (!(Number.isSafeInteger(threads) && threads >= 1))
          h.problem(`${fn}: ${threads} threads (must be an integer ≥ 1)`);
        if (threads > 1_000_000) h.problem(`${fn}: ${threads} threads`);
      }
    },
  },

  'core.handleSignals': {
    build: (r) => {
      const mode = r.pick(['options', 'options', 'beside the script’s own SIGTERM handler']);
      return {
        mode,
        signals: r.pick([
          "['SIGKILL']",
          "['SIGSTOP']",
          "['SIGSEGV']",
          "['SIGCHLD']",
          "['SIGTERM']",
          "['SIGINT', 'SIGHUP']",
          '[]',
          "'SIGTERM'",
          "['NOPE']",
          '[15]',
          'a Proxy array',
          'undefined',
          'null',
        ]),
        expect: mode === 'options' ? undefined : { signal: 'SIGTERM' },
      };
    },
    async exec(plan, h, { core, voro, r }) {
      if (plan.mode !== 'options') {
        const t = voro.tessellate(new Float64Array(Array.from({ length: 30 }, () => r.next())), {
          box: { min: [0, 0, 0], max: [1, 1, 1] },
        });
        let runs = 0;
        process.on('SIGTERM', () => {
          runs++;
          writeSync(1, `own SIGTERM handler ran ${runs}\n`);
        });
        await h.call('handleSignals()', () => core.handleSignals());
        h.flush();
        process.kill(process.pid, 'SIGTERM');
        await new Promise((resolve) => setTimeout(resolve, 3000));
        writeSync(1, `still alive after SIGTERM (tessellation released: ${t.released})\n`);
        return;
      }
      const signals = {
        "['SIGKILL']": ['SIGKILL'],
        "['SIGSTOP']": ['SIGSTOP'],
        "['SIGSEGV']": ['SIGSEGV'],
        "['SIGCHLD']": ['SIGCHLD'],
        "['SIGTERM']": ['SIGTERM'],
        "['SIGINT', 'SIGHUP']": ['SIGINT', 'SIGHUP'],
        '[]': [],
        "'SIGTERM'": 'SIGTERM',
        "['NOPE']": ['NOPE'],
        '[15]': [15],
        'a Proxy array': new Proxy(['SIGTERM'], {
          get: (t, k) => (k === '0' ? (Math.random() < 2 ? 'SIGKILL' : 'SIGTERM') : Reflect.get(t, k)),
        }),
        undefined: undefined,
        null: null,
      }[plan.signals];
      const options = plan.signals === 'undefined' ? undefined : { signals };
      const before =
        process.listenerCount('SIGTERM') + process.listenerCount('SIGINT') + process.listenerCount('SIGKILL');
      const bad = [
        "['SIGKILL']",
        "['SIGSTOP']",
        "['SIGSEGV']",
        "['SIGCHLD']",
        "'SIGTERM'",
        "['NOPE']",
        '[15]',
        'a Proxy array',
        'null',
      ].includes(plan.signals);
      const result = await h.call(
        `handleSignals(${plan.signals === 'undefined' ? '' : `{ signals: ${plan.signals} }`})`,
        () => core.handleSignals(options),
        {
          bad,
          digest: () =>
            `${process.listenerCount('SIGTERM')}|${process.listenerCount('SIGINT')}|${process.listenerCount('SIGHUP')}`,
        },
      );
      if (result.ok) {
        await h.call('uninstall()', () => result.value.uninstall());
        const after =
          process.listenerCount('SIGTERM') + process.listenerCount('SIGINT') + process.listenerCount('SIGKILL');
        if (after !== before) h.problem(`uninstall() left ${after - before} listener(s)`);
      }
    },
  },
};
