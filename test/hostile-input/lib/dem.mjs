// dem's targets: new Simulation, addSpheres, step, run, deposit, depositAsync, the getters,
// the measurements, packingFraction, voxelize, release, finalize, finalizeAsync (host only).

import { Worker } from 'node:worker_threads';
import { hashArray, repeatedReads } from './check.mjs';

// A value for a label; a Proxy or odd object must not break the case itself.
const describe = (v) => {
  try {
    return typeof v === 'object' && v !== null ? Object.prototype.toString.call(v) : String(v);
  } catch {
    return 'a value';
  }
};

import { boxes, containers, faithfulContainers, numbers, plainBox, smallCounts, timeouts } from './domains.mjs';
import { gpuDeviceTarget } from './gpu.mjs';
import { hostileProgress, progressKinds } from './progress.mjs';

const CAP_KIB = 2_000_000;

const base = () => ({
  box: { min: [0, 0, 0], max: [4, 4, 4] },
  periodic: true,
  gravity: [0, 0, 0],
  contact: { model: 'linear', stiffness: 1e4, restitution: 0.5, friction: 0.5 },
});

/** Simulation options: one field set to a hostile value on a valid base. */
const optionFields = {
  box: () => Object.keys(boxes),
  periodic: () => ['true', 'false', '[true, true]', "'yes'", '[true, false, false]'],
  walls: () => ['true', 'false', '6 flags', '5 flags', "'all'"],
  gravity: () => ['[0, 0, -1]', '[NaN, 0, 0]', '[1e308, 0, 0]', '[0, 0]', 'Float32Array', '[5e-324, 0, 0]'],
  timestep: () => Object.keys(numbers),
  'contact.model': () => ["'linear'", "'hertz-mindlin'", "'hooke'", 'undefined', '1'],
  'contact.stiffness': () => Object.keys(numbers),
  'contact.youngsModulus': () => Object.keys(numbers),
  'contact.poissonRatio': () => ['0.3', '0.5', '-1', '1', 'NaN'],
  'contact.restitution': () => ['0.5', '1', '0', '-0', '1.5', 'NaN', '5e-324'],
  'contact.friction': () => ['0', '0.5', '-1', 'Infinity', '1e308'],
  skin: () => Object.keys(numbers),
  rotation: () => ['true', 'false', "'no'"],
  impactVelocity: () => Object.keys(numbers),
  threads: () => ['1', '2', '0', '-1', '1.5', 'NaN', '2**53', "'2'"],
  escape: () => ["'clamp'", "'throw'", "'drop'"],
  executionSpace: () => ["'host'", "'cuda'", '1'],
  contactCapacity: () => ['1', '16', '0', '-1', 'NaN', '1e9'],
};
const literal = {
  true: true,
  false: false,
  undefined: undefined,
  '[true, true]': [true, true],
  "'yes'": 'yes',
  '[true, false, false]': [true, false, false],
  '6 flags': [true, false, true, false, true, false],
  '5 flags': [true, true, true, true, true],
  "'all'": 'all',
  '[0, 0, -1]': [0, 0, -1],
  '[NaN, 0, 0]': [Number.NaN, 0, 0],
  '[1e308, 0, 0]': [1e308, 0, 0],
  '[0, 0]': [0, 0],
  Float32Array: new Float32Array([0, 0, -1]),
  '[5e-324, 0, 0]': [5e-324, 0, 0],
  "'linear'": 'linear',
  "'hertz-mindlin'": 'hertz-mindlin',
  "'hooke'": 'hooke',
  1: 1,
  0.3: 0.3,
  0.5: 0.5,
  '-1': -1,
  '-0': -0,
  0: 0,
  1.5: 1.5,
  NaN: Number.NaN,
  Infinity: Number.POSITIVE_INFINITY,
  '1e308': 1e308,
  '5e-324': 5e-324,
  "'no'": 'no',
  2: 2,
  '2**53': 2 ** 53,
  "'2'": '2',
  "'clamp'": 'clamp',
  "'throw'": 'throw',
  "'drop'": 'drop',
  "'host'": 'host',
  "'cuda'": 'cuda',
  16: 16,
  '1e9': 1e9,
};
const valueNamed = (name) => (name in literal ? literal[name] : numbers[name]?.());

function withField(path, name) {
  const o = base();
  const value = path === 'box' ? boxes[name].make() : valueNamed(name);
  if (path.startsWith('contact.')) o.contact[path.slice(8)] = value;
  else o[path] = value;
  return o;
}

function digestSimulation(s) {
  if (s.released) return 'released';
  return [
    s.sphereCount,
    s.stepCount,
    s.time,
    hashArray(s.positions),
    hashArray(s.velocities),
    hashArray(s.radii),
    hashArray(s.angularVelocities),
  ].join('|');
}

/** Random spheres in [lo, hi)³ of radius `radius`, not overlapping when `gap`. */
function spheres(r, n, { lo = 0, hi = 4, radius = 0.1, gap = true, velocity = 1 } = {}) {
  const positions = [];
  const velocities = [];
  const width = hi - lo;
  for (let i = 0; positions.length < 3 * n && i < 100 * n; i++) {
    const p = [lo + r.next() * width, lo + r.next() * width, lo + r.next() * width];
    if (gap) {
      let ok = true;
      for (let j = 0; j < positions.length && ok; j += 3) {
        const d = Math.hypot(p[0] - positions[j], p[1] - positions[j + 1], p[2] - positions[j + 2]);
        ok = d > 2.2 * radius;
      }
      if (!ok) continue;
    }
    positions.push(...p);
    velocities.push(velocity * (r.next() - 0.5), velocity * (r.next() - 0.5), velocity * (r.next() - 0.5));
  }
  const count = positions.length / 3;
  return { positions, velocities, radii: new Array(count).fill(radius) };
}

/** A simulation in one of a few states, for the members that act on one. */
function state(dem, r, name) {
  const s = new dem.Simulation(base());
  if (name === 'empty') return s;
  if (name === 'coincident spheres') {
    // Coincident centres in one batch are a documented RangeError; in two batches they may be
    // accepted: then stepping must stay finite (or throw).
    s.addSpheres({ positions: [1, 1, 1, 2, 2, 2], radii: [0.2, 0.2], density: 1 });
    try {
      s.addSpheres({ positions: [1, 1, 1], radii: [0.2], density: 1 });
    } catch (error) {
      if (!(error instanceof RangeError || error instanceof TypeError)) throw error;
    }
    return s;
  }
  const heavy = name === 'overlapping';
  const g = spheres(r, heavy ? 30 : 20, { radius: heavy ? 0.4 : 0.1, gap: !heavy });
  s.addSpheres({ positions: g.positions, radii: g.radii, density: 1, velocities: g.velocities });
  return s;
}
const states = ['empty', 'gas', 'overlapping', 'coincident spheres'];

// voxelize()'s options (the state's box is [0, 4]³, its spheres of radius 0.1 or 0.4).
const voxelOptions = {
  'default (20 per diameter)': { make: () => ({}), fromSpheres: true },
  'resolution 4': { make: () => ({ resolution: 4 }), fromSpheres: true },
  'resolution 1e4': { make: () => ({ resolution: 1e4 }), fromSpheres: true, bad: true, boxOnly: true },
  'resolution 0.5': { make: () => ({ resolution: 0.5 }), bad: true },
  'resolution NaN': { make: () => ({ resolution: Number.NaN }), bad: true },
  "resolution '20'": { make: () => ({ resolution: '20' }), bad: true },
  'voxelSize 0.1': { make: () => ({ voxelSize: 0.1 }) },
  'voxelSize 0.5': { make: () => ({ voxelSize: 0.5 }) },
  'voxelSize 1e3': { make: () => ({ voxelSize: 1e3 }) },
  'voxelSize 1e-4 (6.4e13 voxels)': { make: () => ({ voxelSize: 1e-4 }), bad: true, boxOnly: true },
  'voxelSize 5e-324': { make: () => ({ voxelSize: 5e-324 }), bad: true },
  'voxelSize 0': { make: () => ({ voxelSize: 0 }), bad: true },
  'voxelSize -0.1': { make: () => ({ voxelSize: -0.1 }), bad: true },
  'voxelSize Infinity': { make: () => ({ voxelSize: Number.POSITIVE_INFINITY }), bad: true },
  both: { make: () => ({ voxelSize: 0.1, resolution: 4 }), bad: true },
  'a number': { make: () => 0.1, bad: true },
};

function checkFinite(h, s, label) {
  if (s.released) return;
  for (const k of ['positions', 'velocities', 'angularVelocities', 'forces', 'radii']) {
    const a = s[k];
    const i = a.findIndex((x) => !Number.isFinite(x));
    if (i >= 0) {
      h.problem(`${label}: ${k}[${i}] is ${a[i]}`);
      return;
    }
  }
  for (const k of ['time', 'timestep']) if (!Number.isFinite(s[k])) h.problem(`${label}: ${k} is ${s[k]}`);
  if (s.sphereCount > 0 && !(s.timestep > 0)) h.problem(`${label}: timestep is ${s.timestep}`);
}

/** Momentum conservation: no gravity, periodic on every axis (no walls act). */
function momentumCheck(s) {
  const before = s.momentum();
  let scale = 0;
  const v = s.velocities;
  const radii = s.radii;
  for (let i = 0; i < radii.length; i++) {
    const m = (4 / 3) * Math.PI * radii[i] ** 3;
    scale += m * Math.hypot(v[3 * i], v[3 * i + 1], v[3 * i + 2]);
  }
  return (h, label) => {
    if (s.released) return;
    const after = s.momentum();
    for (let a = 0; a < 3; a++) {
      if (!(Math.abs(after[a] - before[a]) <= 1e-9 * scale + 1e-300)) {
        h.problem(`${label}: momentum not conserved on axis ${a}: ${before[a]} → ${after[a]} (Σm|v| = ${scale})`);
        return;
      }
    }
  };
}

async function workerWriting(shared) {
  const worker = new Worker(
    `const { workerData, parentPort } = require('node:worker_threads');
     const a = new Float64Array(workerData);
     parentPort.postMessage('started');
     for (let k = 0; ; k++) for (let i = 0; i < a.length; i++) a[i] = k % 2 ? NaN : 1e308 * (i % 2 ? -1 : 1);`,
    { eval: true, workerData: shared },
  );
  await new Promise((resolve) => worker.once('message', resolve));
  return worker;
}

const onProgressKinds = [...progressKinds, 'reads positions'];

function progress(kind, s, dem, seen) {
  return hostileProgress(kind, s, dem, seen, {
    again: { steps: 10 },
    extra: {
      'reads positions': () => {
        seen.sum = s.positions.reduce((a, b) => a + b, 0);
      },
    },
  });
}

const cancelled = (e) => e instanceof Error && e.code === 'PECLET_CANCELLED';

export const demTargets = {
  'dem.new Simulation': {
    build: (r) => {
      const field = r.pick(Object.keys(optionFields));
      return {
        field,
        value: r.pick(optionFields[field]()),
        options: r.pick(['object', 'object', 'null', 'a Proxy', 'no contact']),
      };
    },
    async exec(plan, h, { dem }) {
      let options = withField(plan.field, plan.value);
      if (plan.options === 'null') options = null;
      if (plan.options === 'no contact') delete options.contact;
      if (plan.options === 'a Proxy') {
        let reads = 0;
        const target = options;
        options = new Proxy(target, { get: (t, k) => (k === 'gravity' && reads++ > 0 ? [Number.NaN, 0, 0] : t[k]) });
      }
      const boxBad = plan.field === 'box' && boxes[plan.value].bad;
      const result = await h.call(
        `new Simulation({ ${plan.field}: ${plan.value} })`,
        () => new dem.Simulation(options),
        {
          bad: boxBad || plan.options === 'null' || plan.options === 'no contact',
        },
      );
      if (!result.ok) return;
      const s = result.value;
      // A simulation that was accepted must take a sphere in its box and step.
      const geometry = plan.field === 'box' ? plainBox(plan.value) : { min: [0, 0, 0], max: [4, 4, 4] };
      if (geometry) {
        const c = geometry.min.map((lo, a) => lo + (geometry.max[a] - lo) / 2);
        const w = Math.min(...geometry.max.map((hi, a) => hi - geometry.min[a]));
        const added = await h.call('addSpheres(one sphere at the centre)', () =>
          s.addSpheres({ positions: c, radii: [Number.isFinite(w) && w > 0 ? w / 10 : 1], density: 1 }),
        );
        if (added.ok) {
          const stepped = await h.call('step(2)', () => s.step(2), { digest: () => digestSimulation(s) });
          if (stepped.ok) checkFinite(h, s, 'after step');
        }
      }
      s.release();
    },
  },

  'dem.addSpheres': {
    build: (r) => {
      const special = r.chance(0.2)
        ? r.pick([
            'own arrays passed back',
            'SharedArrayBuffer written by a worker',
            '30,000 overlapping spheres (memory cap)',
            'radius 1e-120',
            'box ±1e308',
            'box at 1e14',
          ])
        : undefined;
      return {
        special,
        start: r.pick(states),
        positions: r.pick(['valid', 'valid', 'NaN', 'outside', 'wrong length', '1e308', 'denormal', 'coincident']),
        container: r.chance(0.6) ? 'Float64Array' : r.pick(Object.keys(containers)),
        radii: r.pick([
          '0.1',
          '0.1',
          '0',
          '-1',
          'NaN',
          'Infinity',
          '1e-120',
          '1e-314',
          '5e-324',
          '1e308',
          'wrong length',
        ]),
        density: r.pick(['1', '1', '0', '-1', 'NaN', 'Infinity', '1e308', '5e-324', "'1'", 'undefined']),
        velocities: r.pick(['undefined', 'valid', 'NaN', 'wrong length', '1e308']),
        fixed: r.pick([
          'undefined',
          'undefined',
          'true',
          'flags',
          'Uint8Array',
          'wrong length',
          "'yes'",
          'Float64Array',
        ]),
        memoryLimitKiB: special === '30,000 overlapping spheres (memory cap)' ? CAP_KIB : undefined,
      };
    },
    async exec(plan, h, { dem, r }) {
      if (plan.special) return addSpheresSpecial(plan, h, dem, r);
      const s = state(dem, r, plan.start);
      const n = 5;
      const g = spheres(r, n, { radius: 0.1 });
      const positions = g.positions.slice();
      if (plan.positions === 'NaN') positions[4] = Number.NaN;
      if (plan.positions === 'outside') {
        s.release();
        return addOutside(h, dem, r);
      }
      if (plan.positions === 'wrong length') positions.pop();
      if (plan.positions === '1e308') positions[0] = 1e308;
      if (plan.positions === 'denormal') positions[0] = 5e-324;
      if (plan.positions === 'coincident') positions.splice(3, 3, positions[0], positions[1], positions[2]);
      const radiusValue = valueNamed(plan.radii) ?? 0.1;
      const radii = plan.radii === 'wrong length' ? [0.1, 0.1] : new Array(n).fill(radiusValue);
      const velocities =
        plan.velocities === 'undefined'
          ? undefined
          : plan.velocities === 'wrong length'
            ? [0, 0]
            : g.velocities.map((v, i) =>
                i === 2 ? valueNamed(plan.velocities === 'valid' ? '0.5' : plan.velocities) : v,
              );
      const density = valueNamed(plan.density);
      const sent = containers[plan.container](positions);
      const batch = { positions: sent, radii, density };
      if (velocities !== undefined) batch.velocities = velocities;
      const fixedFlags = [true, false, true, false, false];
      const fixedValue = {
        undefined,
        true: true,
        flags: fixedFlags,
        Uint8Array: Uint8Array.from(fixedFlags, (f) => (f ? 255 : 0)),
        'wrong length': [true],
        "'yes'": 'yes',
        Float64Array: new Float64Array(n),
      }[plan.fixed];
      if (fixedValue !== undefined) batch.fixed = fixedValue;
      // A fixed sphere given a velocity is refused.
      const fixedOf = { true: [true, true, true, true, true], flags: fixedFlags, Uint8Array: fixedFlags }[plan.fixed];
      const fixedMoving = fixedOf !== undefined && velocities?.some((v, k) => fixedOf[Math.floor(k / 3)] && v !== 0);
      const containerBad = [
        'Float32Array',
        'Int32Array',
        'DataView',
        'detached Float64Array',
        'array of strings',
        'empty Float64Array',
      ].includes(plan.container);
      // A missing element and an extra one cancel out: judge the length that is sent.
      let sentLength = positions.length; // a Proxy of a typed array cannot be asked its length
      if (plan.container !== 'Proxy of a Float64Array') sentLength = sent?.length;
      const lengthBad = plan.container !== 'array of strings' && sentLength !== 3 * n;
      const bad =
        containerBad ||
        lengthBad ||
        ['NaN', '1e308'].includes(plan.positions) ||
        ['0', '-1', 'NaN', 'Infinity', 'wrong length'].includes(plan.radii) ||
        ['0', '-1', 'NaN', 'Infinity', "'1'", 'undefined'].includes(plan.density) ||
        ['NaN', 'wrong length'].includes(plan.velocities) ||
        ['wrong length', "'yes'", 'Float64Array'].includes(plan.fixed) ||
        fixedMoving;
      const before = s.sphereCount;
      const oldPositions = s.positions;
      const result = await h.call(
        `addSpheres(${plan.positions} ${plan.container}, radii ${plan.radii}, density ${plan.density}, velocities ${plan.velocities}, fixed ${plan.fixed}) on ${plan.start}`,
        () => s.addSpheres(batch),
        {
          digest: () => digestSimulation(s),
          bad,
        },
      );
      if (result.ok) {
        if (s.sphereCount !== before + n) h.problem(`sphereCount ${s.sphereCount}, expected ${before + n}`);
        if (before > 0 && oldPositions.length !== 0) h.problem('positions taken before addSpheres are not detached');
        const got = s.radii.subarray(before);
        if (faithfulContainers.has(plan.container) && got.some((x) => x !== radiusValue)) {
          h.problem(`radii stored as ${got[0]}, given ${radiusValue}`);
        }
        checkFinite(h, s, 'after addSpheres');
      }
      const stepped = await h.call('step(3) after addSpheres', () => s.step(3), { digest: () => digestSimulation(s) });
      if (stepped.ok) checkFinite(h, s, 'after step');
    },
  },

  'dem.step': {
    build: (r) => ({ n: r.pick(Object.keys(smallCounts)), start: r.pick(states), released: r.chance(0.05) }),
    async exec(plan, h, { dem, r }) {
      const s = state(dem, r, plan.start);
      if (plan.released) s.release();
      const n = smallCounts[plan.n]();
      const valid = !plan.released && (n === undefined || (Number.isInteger(n) && n >= 0));
      const conserve = valid && plan.start !== 'coincident spheres' ? momentumCheck(s) : undefined;
      const result = await h.call(`step(${plan.n}) on ${plan.start}`, () => s.step(n), {
        digest: () => digestSimulation(s),
        mustThrow: valid ? undefined : 'an invalid step count or a released simulation must throw',
      });
      if (result.ok) {
        checkFinite(h, s, 'after step');
        conserve?.(h, 'step');
      }
    },
  },

  'dem.run': {
    build: (r) => ({
      steps: r.pick(['0', '1', '200', '2000', ...Object.keys(smallCounts)]),
      progressInterval: r.pick([
        'undefined',
        '100',
        '0',
        '-1',
        'NaN',
        'Infinity',
        '1e308',
        '5e-324',
        "'1' (string)",
        '-0',
      ]),
      onProgress: r.pick(onProgressKinds),
      cancel: r.pick([
        'none',
        'none',
        'signal aborted before',
        'abort after 10 ms',
        'release() after 10 ms',
        'finalize() after 10 ms',
        'a second run() at once',
        'finalizeAsync({ timeoutMs: Infinity }) after 10 ms',
      ]),
      start: r.pick(['gas', 'gas', 'empty', 'overlapping', 'coincident spheres']),
    }),
    async exec(plan, h, { dem, r }) {
      const s = state(dem, r, plan.start);
      const controller = new AbortController();
      const reason = new Error('hostile abort');
      if (plan.cancel === 'signal aborted before') controller.abort(reason);
      const seen = { count: 0, errors: [] };
      const stopper = [
        'abort after 10 ms',
        'release() after 10 ms',
        'finalize() after 10 ms',
        'finalizeAsync({ timeoutMs: Infinity }) after 10 ms',
      ].includes(plan.cancel);
      const steps = stopper && plan.steps === '2000' ? 1e9 : (valueNamed(plan.steps) ?? numbers[plan.steps]?.());
      const options = { steps, signal: controller.signal, onProgress: progress(plan.onProgress, s, dem, seen) };
      if (plan.progressInterval !== 'undefined') {
        options.progressInterval = plan.progressInterval === '100' ? 100 : numbers[plan.progressInterval]();
      }
      const conserve = plan.start === 'gas' ? momentumCheck(s) : undefined;
      const ending = (e) =>
        e === reason || (plan.onProgress === 'throws' && e instanceof Error && e.message === 'hostile onProgress');
      const first = h.call(
        `run({ steps: ${describe(steps)}, progressInterval: ${plan.progressInterval}, onProgress: ${plan.onProgress} }) (${plan.cancel})`,
        () => s.run(options),
        { allow: ending },
      );
      let second;
      if (plan.cancel === 'a second run() at once')
        second = h.call('a second run() at once', () => s.run({ steps: 10 }));
      if (plan.cancel === 'abort after 10 ms') setTimeout(() => controller.abort(reason), 10);
      if (plan.cancel === 'release() after 10 ms') setTimeout(() => s.release(), 10);
      if (plan.cancel === 'finalize() after 10 ms') setTimeout(() => dem.finalize(), 10);
      let finalizing;
      if (plan.cancel === 'finalizeAsync({ timeoutMs: Infinity }) after 10 ms') {
        finalizing = new Promise((resolve) => setTimeout(resolve, 10)).then(() =>
          h.call('finalizeAsync({ timeoutMs: Infinity })', () =>
            dem.finalizeAsync({ timeoutMs: Number.POSITIVE_INFINITY }),
          ),
        );
      }
      const result = await first;
      const killed =
        [
          'release() after 10 ms',
          'finalize() after 10 ms',
          'finalizeAsync({ timeoutMs: Infinity }) after 10 ms',
        ].includes(plan.cancel) || ['calls release()', 'calls finalize()'].includes(plan.onProgress);
      if (killed && s.released && !(result.ok || cancelled(result.error) || result.error instanceof TypeError)) {
        h.problem('a run stopped by release()/finalize() must reject with code PECLET_CANCELLED');
      }
      // With no sphere a step moves nothing: an empty simulation takes its 1e9 steps in a few
      // milliseconds (3 ms here), before a stop 10 ms later can reach it.
      if (steps === 1e9 && result.ok && plan.start !== 'empty')
        h.problem('a run of 1e9 steps resolved although it was stopped');
      // A run refused for its own arguments (a RangeError/TypeError naming one) never started.
      const refused =
        !result.ok &&
        (result.error?.argument !== undefined ||
          // an onProgress that throws before the release or finalize came ends the run with its error
          (plan.onProgress === 'throws' && result.error?.message === 'hostile onProgress'));
      if (killed && steps === 1e9 && !result.ok && !refused && !cancelled(result.error) && result.error !== reason) {
        h.problem(
          `a run stopped by release()/finalize() rejected with ${result.error?.constructor?.name}: ${result.error?.message} instead of code PECLET_CANCELLED`,
        );
      }
      if (second) {
        const other = await second;
        if (other.ok && result.ok && plan.steps !== '0')
          h.problem('two run() at once on one simulation were both accepted');
      }
      await finalizing;
      if (seen.nested) {
        const nested = await seen.nested;
        if (!(nested instanceof TypeError || cancelled(nested) || nested?.steps !== undefined)) {
          h.problem(`run() from onProgress ended with ${nested?.constructor?.name}: ${nested?.message}`);
        }
      }
      for (const e of seen.errors)
        if (!(e instanceof TypeError)) h.problem(`step() from onProgress threw ${e.constructor.name}: ${e.message}`);
      if (result.ok) {
        checkFinite(h, s, 'after run');
        if (plan.onProgress === 'none' && plan.cancel === 'none') conserve?.(h, 'run');
      }
      if (!s.released) await h.call('step(1) after run', () => s.step(1), { digest: () => digestSimulation(s) });
    },
  },

  'dem.externalForces': {
    build: (r) => ({
      start: r.pick(states),
      value: r.pick(['0.5', '1e308', '-1e308', 'NaN', 'Infinity', '-Infinity', '5e-324']),
      call: r.pick(['step(3)', 'run({ steps: 3 })', 'deposit']),
      fixed: r.chance(0.3),
    }),
    async exec(plan, h, { dem, r }) {
      const s = state(dem, r, plan.start);
      if (plan.fixed)
        await h.call('addSpheres(a fixed sphere)', () =>
          s.addSpheres({ positions: [3.5, 3.5, 3.5], radii: [0.1], density: 1, fixed: true }),
        );
      const forces = s.externalForces;
      const k = Math.floor(r.next() * forces.length);
      if (forces.length > 0) forces[k] = valueNamed(plan.value);
      const nonFinite = forces.length > 0 && !Number.isFinite(forces[k]);
      const digest = () => digestSimulation(s);
      const run = {
        'step(3)': () => s.step(3),
        'run({ steps: 3 })': () => s.run({ steps: 3 }),
        deposit: () => s.deposit({ count: 2, radius: 0.1, density: 1, maxSteps: 10 }),
      }[plan.call];
      // Gravity is off: deposit is refused for that whatever the forces.
      const result = await h.call(`externalForces[${k}] = ${plan.value}, then ${plan.call} on ${plan.start}`, run, {
        digest,
        bad: nonFinite || plan.call === 'deposit',
      });
      if (!result.ok && nonFinite && plan.call !== 'deposit' && result.error?.argument !== 'externalForces')
        h.problem(`a non-finite external force was refused naming ${result.error?.argument}, not externalForces`);
      if (result.ok) checkFinite(h, s, 'after external forces');
      s.release();
      if (forces.length !== 0) h.problem('externalForces taken before release() is not detached');
    },
  },

  'dem.deposit': {
    build: (r) => depositPlan(r),
    async exec(plan, h, { dem }) {
      return depositExec(plan, h, dem, false);
    },
  },

  'dem.depositAsync': {
    build: (r) => ({
      ...depositPlan(r),
      onProgress: r.pick(onProgressKinds),
      cancel: r.pick([
        'none',
        'none',
        'abort after 10 ms',
        'release() after 10 ms',
        'finalize() after 10 ms',
        'signal aborted before',
      ]),
    }),
    async exec(plan, h, { dem }) {
      return depositExec(plan, h, dem, true);
    },
  },

  'dem.Simulation getters': {
    build: (r) => ({
      getter: r.member([
        'positions',
        'velocities',
        'angularVelocities',
        'forces',
        'radii',
        'externalForces',
        'fixed',
        'sphereCount',
        'time',
        'stepCount',
        'timestep',
        'timestepReport',
        'released',
        'id',
        'executionSpace',
        'box',
        'periodic',
        'gravity',
        'masses',
      ]),
      start: r.pick(states),
      when: r.pick(['idle', 'idle', 'released', 'finalized', 'during run()', 'after addSpheres (old view)']),
    }),
    async exec(plan, h, { dem, r }) {
      const s = state(dem, r, plan.start);
      const old = s[plan.getter];
      let running;
      if (plan.when === 'released') s.release();
      if (plan.when === 'finalized') dem.finalize();
      if (plan.when === 'during run()') running = s.run({ steps: 1e9 }).catch((e) => e);
      if (plan.when === 'after addSpheres (old view)')
        s.addSpheres({ positions: [3.5, 0.5, 3.5], radii: [0.05], density: 1 });
      const gone = plan.when === 'released' || plan.when === 'finalized';
      // The configuration (copies kept on the JavaScript side) stays readable, released or not.
      const always = ['released', 'id', 'box', 'periodic', 'gravity'].includes(plan.getter);
      // What a run cannot change may be read during it (the README's list); the rest must throw.
      const readWhileRunning = ['sphereCount', 'timestep', 'timestepReport', 'executionSpace'].includes(plan.getter);
      const result = await h.call(`${plan.getter} (${plan.start}, ${plan.when})`, () => s[plan.getter], {
        mustThrow:
          !always && (gone || (plan.when === 'during run()' && plan.start !== 'empty' && !readWhileRunning))
            ? 'a released or running simulation must throw'
            : undefined,
      });
      // `fixed` and `masses` are copies: a new array per read, by design.
      if (plan.when === 'idle' && result.ok && plan.getter !== 'fixed' && plan.getter !== 'masses')
        repeatedReads(h, `${plan.getter} (${plan.start})`, () => s[plan.getter], 'dem');
      if (running) {
        s.release();
        const end = await running;
        if (!cancelled(end))
          h.problem(`run() stopped by release() ended with ${end?.constructor?.name}: ${end?.message}`);
      }
      // `fixed` and `masses` are copies, never detached.
      if (
        plan.getter !== 'fixed' &&
        plan.getter !== 'masses' &&
        ArrayBuffer.isView(old) &&
        (gone || (plan.when.startsWith('after addSpheres') && old.length > 0)) &&
        old.length !== 0
      ) {
        h.problem(`an array taken before (${plan.when}) still has length ${old.length}: it must be detached`);
      }
      if (result.ok && plan.getter === 'timestepReport') {
        // An automatic time step is 0 until spheres are present (documented).
        const empty = plan.start === 'empty';
        for (const [k, v] of Object.entries(result.value))
          if (typeof v === 'number' && !(v > 0) && !(empty && v === 0)) h.problem(`timestepReport.${k} is ${v}`);
      }
    },
  },

  'dem.measurements': {
    build: (r) => ({
      method: r.member([
        'kineticEnergy',
        'translationalKineticEnergy',
        'elasticEnergy',
        'momentum',
        'contacts',
        'coordinationNumber',
        'sync',
      ]),
      start: r.pick(states),
      when: r.pick(['idle', 'idle', 'released', 'finalized', 'after step']),
    }),
    async exec(plan, h, { dem, r }) {
      const s = state(dem, r, plan.start);
      if (plan.when === 'released') s.release();
      if (plan.when === 'finalized') dem.finalize();
      if (plan.when === 'after step') {
        try {
          s.step(5);
        } catch {}
      }
      const gone = plan.when === 'released' || plan.when === 'finalized';
      const result = await h.call(`${plan.method}() (${plan.start}, ${plan.when})`, () => s[plan.method](), {
        digest: () => digestSimulation(s),
        mustThrow: gone ? 'a released simulation must throw ReleasedError' : undefined,
      });
      if (!result.ok) return;
      const v = result.value;
      if (typeof v === 'number' && !(Number.isFinite(v) && v >= 0)) h.problem(`${plan.method}() is ${v}`);
      if (plan.method === 'contacts') {
        const n = s.sphereCount;
        if (v.pairs.some((i) => i >= n)) h.problem('contacts(): a pair names a sphere out of range');
        if (v.overlaps.some((x) => !(x > 0 && Number.isFinite(x))))
          h.problem('contacts(): an overlap is not positive and finite');
      }
      if (plan.method === 'momentum' && v.some((x) => !Number.isFinite(x))) h.problem(`momentum() is [${v}]`);
    },
  },

  'dem.packingFraction': {
    build: (r) => ({ region: r.pick(Object.keys(boxes)), start: r.pick(['gas', 'empty', 'overlapping']) }),
    async exec(plan, h, { dem, r }) {
      const s = state(dem, r, plan.start);
      const entry = boxes[plan.region];
      const result = await h.call(
        `packingFraction(${plan.region}) (${plan.start})`,
        () => s.packingFraction(entry.make()),
        {
          digest: () => digestSimulation(s),
          bad: entry.bad,
        },
      );
      if (result.ok) {
        const v = result.value;
        if (!(Number.isFinite(v) && v >= 0)) h.problem(`packingFraction is ${v}`);
        if (plan.start !== 'overlapping' && v > 1 + 1e-9) h.problem(`packingFraction ${v} > 1 without overlaps`);
      }
      if (plan.start === 'gas' && plan.region === 'unit') {
        // The whole box of a gas of non-overlapping spheres: Σ sphere volume / box volume.
        const expected = s.radii.reduce((a, x) => a + (4 / 3) * Math.PI * x ** 3, 0) / 64;
        const whole = await h.call('packingFraction(whole box)', () =>
          s.packingFraction({ min: [0, 0, 0], max: [4, 4, 4] }),
        );
        if (whole.ok && Math.abs(whole.value - expected) > 1e-9 * expected)
          h.problem(`packingFraction of the whole box ${whole.value}, expected ${expected}`);
      }
    },
  },

  'dem.voxelize': {
    build: (r) => ({
      option: r.pick(Object.keys(voxelOptions)),
      // Not the 1e5-long region: at 20 voxels per diameter it is a legitimate image of 1.6e9
      // voxels, seconds to fill, past a case's time (seed 1823619814).
      region: r.pick(['none', 'none', ...Object.keys(boxes).filter((k) => k !== 'long thin 1e5x1x1')]),
      start: r.pick(['gas', 'empty', 'overlapping']),
    }),
    async exec(plan, h, { dem, r }) {
      const s = state(dem, r, plan.start);
      const entry = voxelOptions[plan.option];
      // An option refused for its size on the state's box alone may be fine in a small region.
      const region = plan.region === 'none' || entry.boxOnly ? undefined : boxes[plan.region];
      const result = await h.call(
        `voxelize(${plan.option}, region ${plan.region}) (${plan.start})`,
        () => {
          const options = entry.make();
          return s.voxelize(region && typeof options === 'object' ? { ...options, region: region.make() } : options);
        },
        {
          digest: () => digestSimulation(s),
          bad:
            entry.bad ||
            (region?.bad && typeof entry.make() === 'object') ||
            (plan.start === 'empty' && entry.fromSpheres),
        },
      );
      if (!result.ok) return;
      const { solid, shape, voxelSize } = result.value;
      if (!(solid instanceof Uint8Array)) return h.problem('voxelize: solid is not a Uint8Array');
      if (shape.length !== 3 || shape.some((n) => !(Number.isSafeInteger(n) && n >= 1)))
        return h.problem(`voxelize: shape ${shape}`);
      if (solid.length !== shape[0] * shape[1] * shape[2])
        h.problem(`voxelize: ${solid.length} voxels for shape ${shape}`);
      if (!(voxelSize > 0 && Number.isFinite(voxelSize))) h.problem(`voxelize: voxelSize ${voxelSize}`);
      if (solid.some((x) => x > 1)) h.problem('voxelize: a voxel is neither 0 nor 1');
      if (plan.start === 'empty' && solid.some((x) => x !== 0)) h.problem('voxelize: solid voxels without spheres');
    },
  },

  'dem.release': {
    build: (r) => ({ how: r.pick(['twice', 'dispose', 'during run()', 'during depositAsync()', 'then every member']) }),
    async exec(plan, h, { dem, r }) {
      const s = plan.how === 'during depositAsync()' ? depositSimulation(dem) : state(dem, r, 'gas');
      const positions = s.positions;
      if (plan.how === 'during run()' || plan.how === 'during depositAsync()') {
        const pending =
          plan.how === 'during run()'
            ? h.call('run({ steps: 1e9 })', () => s.run({ steps: 1e9 }))
            : h.call('depositAsync({ count: 20 })', () =>
                s.depositAsync({ count: 20, radius: 0.3, density: 1, maxSteps: 1e7, kineticEnergyThreshold: 1e-300 }),
              );
        await new Promise((resolve) => setTimeout(resolve, 10));
        await h.call('release()', () => s.release());
        const end = await pending;
        if (end.ok || !cancelled(end.error))
          h.problem(
            `${plan.how}: release() must make it reject with code PECLET_CANCELLED, got ${end.ok ? 'a result' : `${end.error?.constructor?.name} ${end.error?.code ?? ''}`}`,
          );
      } else if (plan.how === 'dispose') await h.call('[Symbol.dispose]()', () => s[Symbol.dispose]());
      else {
        await h.call('release()', () => s.release());
        await h.call('release() again', () => s.release());
      }
      if (plan.how === 'then every member') {
        for (const m of ['step', 'kineticEnergy', 'momentum', 'contacts', 'coordinationNumber', 'elasticEnergy']) {
          await h.call(`${m}() after release`, () => s[m](), { mustThrow: 'must throw ReleasedError' });
        }
        await h.call(
          'addSpheres after release',
          () => s.addSpheres({ positions: [1, 1, 1], radii: [0.1], density: 1 }),
          { mustThrow: 'must throw ReleasedError' },
        );
      }
      if (!s.released) h.problem('released is false after release()');
      if (positions.length !== 0) h.problem('positions taken before release() are not detached');
    },
  },

  'dem.finalize': {
    build: (r) => ({ how: r.pick(['idle', 'twice', 'during run()', 'then new Simulation', 'from onProgress']) }),
    async exec(plan, h, { dem, r }) {
      const s = state(dem, r, 'gas');
      if (plan.how === 'during run()' || plan.how === 'from onProgress') {
        const pending = h.call('run', () =>
          s.run({ steps: 1e9, onProgress: plan.how === 'from onProgress' ? () => dem.finalize() : undefined }),
        );
        if (plan.how === 'during run()') {
          await new Promise((resolve) => setTimeout(resolve, 10));
          await h.call('finalize()', () => dem.finalize());
        }
        const end = await pending;
        // From onProgress the run may also end with the ReleasedError of its next member read.
        const fromCallback = plan.how === 'from onProgress' && !end.ok && end.error instanceof TypeError;
        if (end.ok || !(cancelled(end.error) || fromCallback)) {
          h.problem('finalize() during run() must make it reject with code PECLET_CANCELLED');
        }
      } else {
        await h.call('finalize()', () => dem.finalize());
        if (plan.how === 'twice') await h.call('finalize() again', () => dem.finalize());
        if (plan.how === 'then new Simulation') {
          await h.call('new Simulation once finalized', () => new dem.Simulation(base()), {
            mustThrow: 'a finalized module must refuse new simulations',
          });
        }
      }
      if (!s.released) h.problem('a simulation is still live after finalize()');
    },
  },

  'dem.gpuDevice': gpuDeviceTarget('dem'),

  'dem.finalizeAsync': {
    build: (r) => ({
      timeoutMs: r.pick(Object.keys(timeouts)),
      options: r.pick(['object', 'object', 'undefined', 'null', 'a number', 'getter throwing']),
      during: r.pick(['idle', 'run()']),
    }),
    async exec(plan, h, { dem, r }) {
      const s = state(dem, r, 'gas');
      const timeoutMs = timeouts[plan.timeoutMs]();
      const options = {
        object: { timeoutMs },
        undefined: undefined,
        null: null,
        'a number': 5,
        'getter throwing': {
          get timeoutMs() {
            throw new RangeError('hostile getter');
          },
        },
      }[plan.options];
      const pending = plan.during === 'run()' ? s.run({ steps: 1e9 }).catch((e) => e) : undefined;
      const validTimeout = timeoutMs === undefined || (typeof timeoutMs === 'number' && timeoutMs >= 0);
      const bad =
        plan.options === 'null' || plan.options === 'a number' || (plan.options === 'object' && !validTimeout);
      const result = await h.call(
        `finalizeAsync(${plan.options === 'object' ? `{ timeoutMs: ${plan.timeoutMs} }` : plan.options})`,
        () => dem.finalizeAsync(options),
        { bad },
      );
      if (result.ok && !s.released) h.problem('finalizeAsync() resolved with a simulation still live');
      if (pending) {
        if (!result.ok) s.release();
        const end = await pending;
        if (!cancelled(end))
          h.problem(`run() during finalizeAsync ended with ${end?.constructor?.name}: ${end?.message}`);
      }
    },
  },
};

async function addOutside(h, dem, r) {
  const s = new dem.Simulation({ ...base(), periodic: false });
  await h.call(
    'addSpheres(outside a walled box)',
    () => s.addSpheres({ positions: [5, 1, 1], radii: [0.1], density: 1 }),
    {
      digest: () => digestSimulation(s),
      bad: true,
    },
  );
  void r;
}

async function addSpheresSpecial(plan, h, dem, r) {
  if (plan.special === 'own arrays passed back') {
    const s = state(dem, r, 'gas');
    const radii = Float64Array.from(s.radii);
    const result = await h.call(
      'addSpheres({ positions: Float64Array.from(sim.positions), radii: sim.radii, density: 1 })',
      () => s.addSpheres({ positions: Float64Array.from(s.positions), radii: s.radii, density: 1 }),
      { digest: () => digestSimulation(s) },
    );
    if (result.ok) {
      const got = s.radii.subarray(radii.length);
      const i = got.findIndex((x, k) => x !== radii[k]);
      if (i >= 0) h.problem(`the radii added from sim.radii arrived as ${got[i]} (given ${radii[i]})`);
      checkFinite(h, s, 'after addSpheres');
    }
    return;
  }
  if (plan.special === 'SharedArrayBuffer written by a worker') {
    const s = state(dem, r, 'empty');
    const g = spheres(r, 200, { radius: 0.05 });
    const shared = new SharedArrayBuffer(8 * g.positions.length);
    const positions = new Float64Array(shared);
    positions.set(g.positions);
    const worker = await workerWriting(shared);
    const result = await h.call(
      'addSpheres(positions in a SharedArrayBuffer a worker writes)',
      () => s.addSpheres({ positions, radii: g.radii, density: 1 }),
      { digest: () => digestSimulation(s) },
    );
    await worker.terminate();
    if (result.ok) checkFinite(h, s, 'after addSpheres');
    return;
  }
  if (plan.special === '30,000 overlapping spheres (memory cap)') {
    const s = state(dem, r, 'empty');
    const n = 30_000;
    const positions = Float64Array.from({ length: 3 * n }, () => 1.9 + 0.2 * r.next());
    const radii = new Float64Array(n).fill(0.5);
    const result = await h.call(
      'addSpheres(30,000 spheres in a 0.2 cube, radius 0.5)',
      () => s.addSpheres({ positions, radii, density: 1 }),
      {
        digest: () => digestSimulation(s),
      },
    );
    if (result.ok) checkFinite(h, s, 'after addSpheres');
    return;
  }
  if (plan.special === 'radius 1e-120') {
    const s = state(dem, r, plan.start);
    const result = await h.call(
      'addSpheres(radius 1e-120)',
      () => s.addSpheres({ positions: [2, 2, 2], radii: [1e-120], density: 1 }),
      {
        digest: () => digestSimulation(s),
      },
    );
    if (result.ok) {
      checkFinite(h, s, 'after addSpheres');
      const stepped = await h.call('step(2)', () => s.step(2), { digest: () => digestSimulation(s) });
      if (stepped.ok) checkFinite(h, s, 'after step');
    }
    return;
  }
  const boxName = plan.special === 'box ±1e308' ? '±1e308' : 'corner at 1e14';
  const made = await h.call(
    `new Simulation({ box: ${boxName} })`,
    () => new dem.Simulation({ ...base(), box: boxes[boxName].make() }),
    {
      bad: boxes[boxName].bad,
    },
  );
  if (!made.ok) return;
  const s = made.value;
  const b = boxes[boxName].make();
  const c = b.min.map((lo, a) => lo / 2 + b.max[a] / 2);
  const result = await h.call(
    'addSpheres(one sphere at the centre)',
    () => s.addSpheres({ positions: c, radii: [0.1], density: 1 }),
    {
      digest: () => digestSimulation(s),
    },
  );
  if (result.ok) {
    const stepped = await h.call('step(2)', () => s.step(2), { digest: () => digestSimulation(s) });
    if (stepped.ok) checkFinite(h, s, 'after step');
  }
}

function depositPlan(r) {
  const plan = {
    count: r.pick(['5', '5', '20', '0', '-1', 'NaN', '1.5', '1e9 (memory cap)', "'5'", 'undefined']),
    radius: r.pick([
      '0.3',
      '0.3',
      '0',
      '-1',
      'NaN',
      '1e-120',
      '1e308',
      'uniform 0.2..0.3',
      'uniform max < min',
      'lognormal NaN σ',
      'kind bogus',
      'Proxy',
      '{ kind: fixed, radius: 0.3 }',
    ]),
    density: r.pick(['1', '1', '0', '-1', 'NaN', 'undefined', '1e308']),
    seed: r.pick(['undefined', '1', '-1', '2**53', 'NaN']),
    region: r.pick(['none', 'none', '[1, 3]', '[3, 1]', '[NaN, 3]', '[-1e308, 1e308]']),
    checkInterval: r.pick(['undefined', '1', '0', '1e9']),
    maxSteps: r.pick(['300', '300', '0', '-1', 'NaN']),
    threshold: r.pick(['undefined', '1e-3', '-1', 'NaN', '0']),
  };
  if (plan.count === '1e9 (memory cap)') plan.memoryLimitKiB = CAP_KIB;
  return plan;
}

function depositSimulation(dem) {
  return new dem.Simulation({
    box: { min: [0, 0, 0], max: [4, 4, 8] },
    periodic: [true, true, false],
    gravity: [0, 0, -10],
    timestep: 1e-3,
    contact: { model: 'linear', stiffness: 1e4, restitution: 0.5, friction: 0.5 },
  });
}

async function depositExec(plan, h, dem, asynchronous) {
  const s = depositSimulation(dem);
  const radius =
    {
      '{ kind: fixed, radius: 0.3 }': { kind: 'fixed', radius: 0.3 },
      'uniform 0.2..0.3': { kind: 'uniform', minRadius: 0.2, maxRadius: 0.3 },
      'uniform max < min': { kind: 'uniform', minRadius: 0.3, maxRadius: 0.2 },
      'lognormal NaN σ': {
        kind: 'lognormal',
        medianRadius: 0.25,
        logStandardDeviation: Number.NaN,
        minRadius: 0.2,
        maxRadius: 0.3,
      },
      'kind bogus': { kind: 'bogus', radius: 0.3 },
      Proxy: new Proxy({}, { get: (_, k) => (k === 'kind' ? 'fixed' : k === 'radius' ? 0.3 : undefined) }),
    }[plan.radius] ?? valueNamed(plan.radius);
  const count = plan.count === '1e9 (memory cap)' ? 1e9 : valueNamed(plan.count);
  const options = { count, radius, density: valueNamed(plan.density), maxSteps: valueNamed(plan.maxSteps) };
  if (plan.seed !== 'undefined') options.seed = valueNamed(plan.seed);
  if (plan.region !== 'none') {
    const [lo, hi] = {
      '[1, 3]': [1, 3],
      '[3, 1]': [3, 1],
      '[NaN, 3]': [Number.NaN, 3],
      '[-1e308, 1e308]': [-1e308, 1e308],
    }[plan.region];
    options.regionBottom = lo;
    options.regionTop = hi;
  }
  if (plan.checkInterval !== 'undefined') options.checkInterval = valueNamed(plan.checkInterval);
  if (plan.threshold !== 'undefined') options.kineticEnergyThreshold = valueNamed(plan.threshold);
  const bad =
    ['0', '-1', 'NaN', '1.5', "'5'", 'undefined'].includes(plan.count) ||
    ['0', '-1', 'NaN', 'uniform max < min', 'lognormal NaN σ', 'kind bogus'].includes(plan.radius) ||
    ['0', '-1', 'NaN', 'undefined'].includes(plan.density) ||
    ['-1', 'NaN'].includes(plan.seed) ||
    ['[3, 1]', '[NaN, 3]'].includes(plan.region) ||
    plan.checkInterval === '0' ||
    ['-1', 'NaN'].includes(plan.maxSteps) ||
    plan.threshold === 'NaN';
  const label = `deposit${asynchronous ? 'Async' : ''}(${JSON.stringify({ ...plan, onProgress: undefined, cancel: undefined })})`;
  if (!asynchronous) {
    const result = await h.call(label, () => s.deposit(options), { digest: () => digestSimulation(s), bad });
    if (result.ok) checkFinite(h, s, 'after deposit');
    return;
  }
  const controller = new AbortController();
  const reason = new Error('hostile abort');
  if (plan.cancel === 'signal aborted before') controller.abort(reason);
  const seen = { count: 0, errors: [] };
  options.signal = controller.signal;
  options.onProgress = progress(plan.onProgress, s, dem, seen);
  const pending = h.call(label, () => s.depositAsync(options), {
    allow: (e) =>
      e === reason || (plan.onProgress === 'throws' && e instanceof Error && e.message === 'hostile onProgress'),
  });
  if (plan.cancel === 'abort after 10 ms') setTimeout(() => controller.abort(reason), 10);
  if (plan.cancel === 'release() after 10 ms') setTimeout(() => s.release(), 10);
  if (plan.cancel === 'finalize() after 10 ms') setTimeout(() => dem.finalize(), 10);
  const result = await pending;
  if (result.ok) checkFinite(h, s, 'after depositAsync');
}

export { CAP_KIB };
