// The public API of a peclet module as a list of members, and a view of the module that
// records which of them a test calls. The hostile-input generator and the random programs
// report, from this, how much of every package's API their cases reach.
//
// A member is an exported function (`dem.finalize`), an exported class's constructor
// (`new dem.Simulation`), its static functions (`dem.Simulation.from`) and the methods and
// accessors of its prototype (`dem.Simulation#step`), and the same for a class a module hands
// out without exporting it (voro's `Tessellation`, named by `reachable`). Left out: constants,
// error classes (thrown, caught and tested with `instanceof`, not called), `constructor` and
// symbol-named members (`Symbol.dispose` is `release`).

const ignoredStatics = new Set(['length', 'name', 'prototype', 'arguments', 'caller']);

const isClass = (v) => typeof v === 'function' && /^class[\s{]/.test(Function.prototype.toString.call(v));
const isErrorClass = (v) => v === Error || v.prototype instanceof Error;

/** The members of a prototype (methods and accessors, string-named, not `constructor`). */
function prototypeMembers(proto) {
  return Object.getOwnPropertyNames(proto).filter((m) => {
    if (m === 'constructor') return false;
    const d = Object.getOwnPropertyDescriptor(proto, m);
    return typeof d.value === 'function' || d.get !== undefined || d.set !== undefined;
  });
}

function staticMembers(cls) {
  return Object.getOwnPropertyNames(cls).filter((m) => {
    if (ignoredStatics.has(m)) return false;
    const d = Object.getOwnPropertyDescriptor(cls, m);
    return typeof d.value === 'function' || d.get !== undefined;
  });
}

/**
 * Every member of module `name` (its namespace `ns`), sorted. `reachable` maps the names of
 * classes the module hands out without exporting them to their prototypes.
 */
export function publicMembers(name, ns, reachable = {}) {
  const out = [];
  for (const [k, v] of Object.entries(ns)) {
    if (typeof v !== 'function' || isErrorClass(v)) continue;
    if (!isClass(v)) {
      out.push(`${name}.${k}`);
      continue;
    }
    out.push(`new ${name}.${k}`);
    for (const s of staticMembers(v)) out.push(`${name}.${k}.${s}`);
    for (const m of prototypeMembers(v.prototype)) out.push(`${name}.${k}#${m}`);
  }
  for (const [cls, proto] of Object.entries(reachable)) {
    for (const m of prototypeMembers(proto)) out.push(`${name}.${cls}#${m}`);
  }
  return out.sort();
}

/** The members called so far in this process (through `instrument`ed modules). */
export const touched = new Set();

// When `onlyJudged` is set, a call counts only while `judged` runs: the hostile generator counts
// the calls it judges, not the ones that build its valid objects or read their state.
let onlyJudged = false;
let judging = 0;
let quiet = 0;
const touch = (id) => {
  if (quiet === 0 && (!onlyJudged || judging > 0)) touched.add(id);
};

/** Runs `fn` (its synchronous part) with calls counted. */
export function judged(fn) {
  judging++;
  try {
    return fn();
  } finally {
    judging--;
  }
}

/** Runs `fn` with no call counted (reading state to compare it). */
export function quietly(fn) {
  quiet++;
  try {
    return fn();
  } finally {
    quiet--;
  }
}

/** Counts only the calls made inside `judged`, from now on. */
export function countJudgedCallsOnly() {
  onlyJudged = true;
}

const wrapped = new WeakSet();

function wrapFunction(id, fn, adopt) {
  const w = function (...args) {
    touch(id);
    return adopt(new.target ? Reflect.construct(fn, args, new.target) : fn.apply(this, args));
  };
  Object.defineProperty(w, 'name', { value: fn.name });
  wrapped.add(w);
  return w;
}

/** Wraps every member of `proto` in place (its properties must be configurable). */
function wrapPrototype(prefix, proto, adopt, target = proto) {
  for (const m of prototypeMembers(proto)) {
    const d = Object.getOwnPropertyDescriptor(proto, m);
    const id = `${prefix}#${m}`;
    if (typeof d.value === 'function') {
      if (wrapped.has(d.value)) continue;
      Object.defineProperty(target, m, { ...d, value: wrapFunction(id, d.value, adopt), configurable: true });
    } else {
      Object.defineProperty(target, m, {
        enumerable: d.enumerable,
        configurable: true,
        get: d.get
          ? function () {
              touch(id);
              return adopt(d.get.call(this));
            }
          : undefined,
        set: d.set
          ? function (v) {
              touch(id);
              d.set.call(this, v);
            }
          : undefined,
      });
    }
  }
}

/**
 * A view of module `name` whose functions, classes and prototypes record their calls in
 * `touched`. Exported classes' prototypes are wrapped in place (once per process); an object
 * of a class in `reachableClassNames` (a native class, whose prototype cannot be redefined) gets its members
 * as own properties when a function of the module hands it out. A promise handed out is
 * replaced by one that settles the same way.
 */
export function instrument(name, ns) {
  const classes = new Set(reachableClassNames[name] ?? []);
  const adopted = new WeakSet();
  const adopt = (value) => {
    if (classes.size === 0 || value === null || typeof value !== 'object') return value;
    if (value instanceof Promise) return value.then(adopt);
    const proto = Object.getPrototypeOf(value);
    const cls = proto?.constructor?.name;
    if (classes.has(cls) && !adopted.has(value) && Object.isExtensible(value)) {
      adopted.add(value);
      wrapPrototype(`${name}.${cls}`, proto, adopt, value);
    }
    return value;
  };
  const view = {};
  for (const [k, v] of Object.entries(ns)) {
    if (typeof v !== 'function' || isErrorClass(v)) view[k] = v;
    else if (!isClass(v)) view[k] = wrapFunction(`${name}.${k}`, v, adopt);
    else {
      wrapPrototype(`${name}.${k}`, v.prototype, adopt);
      const statics = new Map(staticMembers(v).map((s) => [s, `${name}.${k}.${s}`]));
      const cache = new Map();
      view[k] = new Proxy(v, {
        construct(target, args, newTarget) {
          // `new` of the class itself, or `super()` of a subclass a test declares.
          touch(`new ${name}.${k}`);
          return Reflect.construct(target, args, newTarget === view[k] ? target : newTarget);
        },
        get(target, p, receiver) {
          const value = Reflect.get(target, p, receiver === view[k] ? target : receiver);
          const id = statics.get(p);
          if (id === undefined || typeof value !== 'function') return value;
          if (!cache.has(p)) cache.set(p, wrapFunction(id, value, adopt));
          return cache.get(p);
        },
      });
    }
  }
  return view;
}

/** The classes a module hands out without exporting them. */
export const reachableClassNames = { voro: ['Tessellation'] };

/**
 * Prototypes of the classes a module hands out without exporting them, found by making one
 * object of each (released at once): `{ Tessellation }` for voro, `{}` elsewhere.
 */
export function reachableClasses(name, ns) {
  if (name !== 'voro') return {};
  const t = ns.tessellate(new Float64Array([0.25, 0.5, 0.5, 0.75, 0.5, 0.5]), {
    box: { min: [0, 0, 0], max: [1, 1, 1] },
  });
  const proto = Object.getPrototypeOf(t);
  t.release();
  return { Tessellation: proto };
}

/**
 * Every public member of `modules` (sorted; `load(name)` imports one), and `alias`: a function a
 * module re-exports from another (flow's `fromPoreSpy` is io's) counts once, under the module
 * listed first.
 */
export async function inventory(modules, load) {
  const all = [];
  const alias = new Map();
  const owner = new Map();
  for (const name of modules) {
    const ns = await load(name);
    for (const member of publicMembers(name, ns, reachableClasses(name, ns))) {
      const key = /^[a-z]+\.[A-Za-z0-9_$]+$/.test(member) ? ns[member.slice(name.length + 1)] : undefined;
      if (typeof key === 'function' && owner.has(key)) alias.set(member, owner.get(key));
      else {
        if (typeof key === 'function') owner.set(key, member);
        all.push(member);
      }
    }
  }
  return { all, alias };
}

/**
 * `{ total, reached, missed, line }`: the members of `modules` that the runs reached (`perRun`:
 * one list of member names per run); `line` says it in one sentence, with `what` for the calls
 * ("judged calls", "programs").
 */
export async function apiCoverage(perRun, modules, load, what) {
  const { all, alias } = await inventory(modules, load);
  const reached = new Set(perRun.flat().map((m) => alias.get(m) ?? m));
  const missed = all.filter((m) => !reached.has(m));
  const perModule = modules
    .map((name) => {
      const mine = all.filter((m) => m.replace(/^new /, '').startsWith(`${name}.`));
      return `${name} ${mine.filter((m) => reached.has(m)).length}/${mine.length}`;
    })
    .join(', ');
  const line =
    `public API: ${all.length - missed.length} of ${all.length} members reached by ${what} (${perModule})` +
    (missed.length > 0 ? `; not reached: ${missed.join(', ')}` : '');
  return { total: all.length, reached: all.length - missed.length, missed, line };
}
