// core's targets: Teardown, Registry, Releasable, defineModule + finalize/finalizeAsync,
// cpuBudget, handleSignals and the argument readers.

import { writeSync } from 'node:fs';
import { boxes, containers, numbers, timeouts } from './domains.mjs';

const isTeardownError = (e) => e instanceof Error && e.constructor?.name === 'TeardownError';
const isAddonLoadError = (e) =>
  e instanceof Error && e.name === 'AddonLoadError' && /could not load its native addon/.test(e.message);

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
  'readOptions { open }': (a, v) => a.readOptions(v, 'record', ['min'], { open: true }),
  closestKey: (a, v) => a.closestKey(v, ['min', 'steps']),
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

const isString = (v) => typeof v === 'string';

/** The members of the `core.PecletModule members` target: how each is called and checked. */
const moduleMembers = {
  'new PecletModule(value)': {
    call: (core, _mod, v) => {
      const made = new core.PecletModule({ name: v });
      made.finalize();
      return made;
    },
    check: (h, made) => {
      if (!(typeof made.name === 'string' && made.name !== '')) h.problem(`a module named ${String(made.name)}`);
    },
  },
  executionSpace: { call: (_c, mod) => mod.executionSpace, check: (h, v) => isString(v) || h.problem(`${v}`) },
  finalized: {
    call: (_c, mod) => mod.finalized,
    check: (h, v, state) => v === (state === 'finalized') || h.problem(`finalized is ${v} (${state})`),
  },
  exiting: {
    call: (_c, mod) => mod.exiting,
    check: (h, v, state) => v === (state !== 'live') || h.problem(`exiting is ${v} (${state})`),
  },
  // With the steps a whole-process teardown takes first (handleSignals()): no-ops on a module
  // without a loaded addon or once finalized, whatever its state here. (One entry: the fixed
  // batch's 25 rounds reach every member of a list of 25.)
  'markTeardownPending(), armSignals([2]), stats()': {
    call: (_c, mod) => {
      mod.markTeardownPending();
      mod.armSignals([2]);
      return mod.stats();
    },
  },
  // One view per buffer: a getter over a read that answers the value (a typed array is kept and
  // answered again; anything else is a TypeError naming read).
  'zeroCopyView(() => value), read twice': {
    call: (_c, mod, v) => {
      const get = mod.zeroCopyView(() => v);
      return [get(), get()];
    },
    check: (h, [a, b]) => {
      if (!ArrayBuffer.isView(a)) h.problem(`a read answering ${typeof a} was not refused`);
      else if (a.byteLength > 0 && a !== b) h.problem('two reads of one buffer gave two arrays');
    },
  },
  'zeroCopyView(value)': {
    call: (_c, mod, v) => mod.zeroCopyView(v),
    check: (h, get) => typeof get === 'function' || h.problem('zeroCopyView did not return a getter'),
  },
  'zeroCopyView(read, value)': {
    call: (_c, mod, v) => mod.zeroCopyView(() => new Float64Array(3), v)(),
  },
  'assertLive(value)': {
    call: (_c, mod, v) => mod.assertLive(v),
    mustThrow: (state) => (state === 'finalized' ? 'a finalized module must refuse new objects' : undefined),
  },
  'onDrain(value, value)': {
    call: (_c, mod, v) => mod.onDrain(v, v),
    check: (h, v) => typeof v === 'function' || h.problem('onDrain did not return its remover'),
  },
  "onDrain('x', fn) then remove": {
    call: (_c, mod) => mod.onDrain('x', () => {})(),
  },
  'finalizeAsync({ timeoutMs: value })': {
    call: (_c, mod, v) => mod.finalizeAsync({ timeoutMs: v }),
    allow: (e) => e?.name === 'TeardownError',
    check: (h, _v, _state, mod) => mod.finalized || h.problem('finalizeAsync resolved, the module is not finalized'),
  },
  'finalize()': {
    call: (_c, mod) => mod.finalize(),
    check: (h, _v, _state, mod) => mod.finalized || h.problem('finalize returned, the module is not finalized'),
  },
  'finalizeFor(value)': {
    call: (_c, mod, v) => mod.finalizeFor(v),
    check: (h, _v, _state, mod) => mod.finalized || h.problem('finalizeFor returned, the module is not finalized'),
  },
  'liveModules()': {
    call: (core) => core.liveModules(),
    check: (h, v, state, mod) => {
      if (!Array.isArray(v)) h.problem('liveModules() is not an array');
      else if (v.includes(mod) !== (state !== 'finalized'))
        h.problem(`liveModules() ${v.includes(mod) ? 'lists' : 'misses'} a ${state} module`);
    },
  },
  'loadAddon({ root: value, name: value })': {
    call: (core, _mod, v) => core.loadAddon({ root: v, name: v, buildCommand: 'none' }),
    // A root that is a path but holds no addon: the loader's one error saying what it tried.
    allow: isAddonLoadError,
  },
  "loadAddon({ root: '/nonexistent', name: 'x' })": {
    call: (core) => core.loadAddon({ root: '/nonexistent', name: 'x', buildCommand: 'none' }),
    allow: isAddonLoadError,
    mustThrow: () => 'loaded an addon from a missing folder',
  },
  "loadAddon({ root: '/nonexistent', name: 'x', platforms: value })": {
    call: (core, _mod, v) => core.loadAddon({ root: '/nonexistent', name: 'x', version: '1.0.0', platforms: v }),
    allow: isAddonLoadError,
    mustThrow: () => 'loaded an addon from a missing folder',
  },
  // Options are checked when the proxy is made; the addon is opened at its first use only.
  'lazyAddon({ root: value, name: value })': {
    call: (core, _mod, v) => core.lazyAddon({ root: v, name: v }),
    check: (h, proxy) => {
      try {
        void proxy.anything;
        h.problem('a lazy addon from a folder without one loaded');
      } catch (e) {
        if (!isAddonLoadError(e)) h.problem(`first use threw ${e?.constructor?.name}: ${e?.message}`);
      }
    },
  },
  "lazyAddon({ root: '/nonexistent', name: 'x' }, value)": {
    call: (core, _mod, v) => core.lazyAddon({ root: '/nonexistent', name: 'x' }, v),
    check: (h, proxy) => {
      for (let i = 0; i < 2; i++) {
        try {
          void Object.keys(proxy);
          h.problem('a lazy addon from a missing folder loaded');
        } catch (e) {
          if (!isAddonLoadError(e)) h.problem(`use ${i + 1} threw ${e?.constructor?.name}: ${e?.message}`);
        }
      }
    },
  },
  // A module whose addon cannot load: defined, used for its executionSpace and finalized
  // without ever opening it; stats() (a use) gives the loader's error.
  'defineModule({ native: a lazy addon that cannot load }), finalize()': {
    call: (core, _mod, v) => {
      const made = core.defineModule({
        name: 'lazy',
        native: core.lazyAddon({ root: '/nonexistent', name: 'x' }),
        executionSpace: typeof v === 'string' && v !== '' ? v : 'host',
      });
      const space = made.executionSpace;
      let statsError;
      try {
        made.stats();
      } catch (e) {
        statsError = e;
      }
      made.finalize();
      return { made, space, statsError };
    },
    check: (h, { made, space, statsError }) => {
      if (!made.finalized) h.problem('finalize() returned and the module is not finalized');
      if (typeof space !== 'string') h.problem(`executionSpace is ${space}`);
      if (!isAddonLoadError(statsError))
        h.problem('stats() of a module whose addon cannot load did not throw its error');
    },
  },
  'platformKey()': {
    call: (core) => core.platformKey(),
    check: (h, v) =>
      (typeof v === 'string' && /^[a-z0-9]+-[a-z0-9]+(-(gnu|musl|msvc))?$/.test(v)) ||
      h.problem(`platformKey() is ${v}`),
  },
  'traceEnabled()': {
    call: (core) => core.traceEnabled(),
    check: (h, v) => typeof v === 'boolean' || h.problem(`traceEnabled() is ${v}`),
  },
  "fail('range', 'x', value)": {
    call: (core, _mod, v) => core.fail('range', 'x', core.describeValue(v)),
    mustThrow: () => 'fail() returned',
  },
  'cancelledError(value)': {
    call: (core, _mod, v) => core.cancelledError(core.describeValue(v)),
    check: (h, e) => e?.code === 'PECLET_CANCELLED' || h.problem('cancelledError without its code'),
  },
};

export const coreTargets = {
  'core.args readers': {
    build: (r) => ({ reader: r.member(Object.keys(readers)), value: r.pick(Object.keys(values)) }),
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
      const made = await h.call('new Teardown()', () => new core.Teardown());
      if (!made.ok) return;
      const t = made.value;
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
      const size = await h.call('size', () => t.size);
      if (size.value !== pushed) h.problem(`size ${size.value} after ${pushed} accepted pushes`);
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
      if ((await h.call('released', () => t.released)).value !== true) h.problem('released is false after releaseAll');
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
      // Round robin, so that Releasable#release is reached in every run (not only when an object's
      // own release happens to release another).
      first: r.member(['releaseAll', 'release() of the first, then releaseAll']),
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
      const size = await h.call('registry.size', () => registry.size);
      if (plan.nextId === 'default' && size.value !== created.length)
        h.problem(`size ${size.value} with ${created.length} live objects`);
      for (const thing of created.slice(0, 1)) {
        await h.call(`${thing.kind}: className, assertLive('use')`, () => [thing.className, thing.assertLive('use')]);
      }
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
      if (plan.first !== 'releaseAll') {
        // The first object, or (none made: a hostile nextId refuses them) one of a registry of its own.
        const thing =
          created[0] ??
          new (class extends core.Releasable {
            kind = 'ok, in a registry of its own';
            releaseResources() {}
          })(new core.Registry('hostile-own'));
        await h.call(`release() of ${thing.kind}`, () => thing.release(), {
          allow: (e) => e instanceof Error && e.message === 'hostile release',
        });
        if (!thing.released) h.problem('released is false after release()');
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
      if (thing) {
        await h.call("a finalized module's object: assertLive('use')", () => thing.assertLive('use'), {
          mustThrow: 'a released Releasable must throw ReleasedError',
        });
      }
    },
  },

  // The rest of a module's surface, hostile arguments on a live or finalized module of the
  // test's own (no native part): the members, the module list, the addon loader, the error
  // helpers.
  'core.PecletModule members': {
    build: (r) => ({
      member: r.member(Object.keys(moduleMembers)),
      state: r.pick(['live', 'live', 'finalized', 'exiting (finalizeAsync pending)']),
      value: r.pick(Object.keys(values)),
    }),
    async exec(plan, h, { core }) {
      const mod = core.defineModule({ name: 'hostile' });
      let pending;
      if (plan.state === 'finalized') mod.finalize();
      if (plan.state.startsWith('exiting')) {
        mod.onDrain('slow', () => new Promise((resolve) => setTimeout(resolve, 30)));
        pending = mod.finalizeAsync({ timeoutMs: 1000 });
      }
      const entry = moduleMembers[plan.member];
      const value = values[plan.value]();
      const result = await h.call(`${plan.member} (${plan.state}, ${plan.value})`, () => entry.call(core, mod, value), {
        allow: entry.allow,
        mustThrow: entry.mustThrow?.(plan.state),
      });
      if (result.ok) entry.check?.(h, result.value, plan.state, mod);
      await pending;
      if (!mod.finalized) mod.finalize();
      if (core.liveModules().includes(mod)) h.problem('a finalized module is still in liveModules()');
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
