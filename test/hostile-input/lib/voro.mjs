// voro's targets: tessellate, tessellateAsync, the Tessellation's getters, cell, update,
// stats, release, and the module's finalize.

import { hashArray, repeatedReads } from './check.mjs';
import { boxes, containers, faithfulContainers, numbers, periodics, plainBox, threadCounts } from './domains.mjs';

/** Point sets in a box: `(box, n, r, periodic) → number[]`; `bad` ones are documented errors. */
const pointSets = {
  random: { make: (b, n, r) => inside(b, n, r) },
  'dyadic grid': { make: (b, n, r) => inside(b, n, r, true) },
  'two points at the quarters (x)': {
    make: (b) => {
      const c = b.min.map((lo, a) => lo + (b.max[a] - lo) / 2);
      const w = b.max[0] - b.min[0];
      return [b.min[0] + w / 4, c[1], c[2], b.min[0] + (3 * w) / 4, c[1], c[2]];
    },
    halves: true,
  },
  'one point': { make: (b, _n, r) => inside(b, 1, r) },
  'coincident pair': {
    make: (b, n, r) => {
      const p = inside(b, Math.max(n, 2), r);
      p.splice(3, 3, p[0], p[1], p[2]);
      return p;
    },
    bad: true,
  },
  collinear: {
    make: (b, n) => {
      const out = [];
      for (let i = 0; i < n; i++) out.push(...b.min.map((lo, a) => lo + ((b.max[a] - lo) * (i + 0.5)) / n));
      return out;
    },
  },
  coplanar: {
    make: (b, n, r) => {
      const p = inside(b, n, r);
      const z = b.min[2] + (b.max[2] - b.min[2]) / 2;
      for (let i = 2; i < p.length; i += 3) p[i] = z;
      return p;
    },
  },
  'on corners and faces': {
    make: (b, n, r) => {
      const p = inside(b, n, r);
      const corners = [b.min, b.max, [b.min[0], b.max[1], b.min[2]], [b.max[0], b.min[1], b.max[2]]];
      for (let i = 0; i < Math.min(n, corners.length); i++) p.splice(3 * i, 3, ...corners[i]);
      return p;
    },
    unsure: true, // on the max face: inside or not is the package's call
  },
  'outside the box': {
    make: (b, n, r) => {
      const p = inside(b, n, r);
      p[0] = b.max[0] + (b.max[0] - b.min[0]);
      return p;
    },
    badWalled: true,
  },
  'NaN coordinate': {
    make: (b, n, r) => {
      const p = inside(b, n, r);
      p[p.length - 1] = Number.NaN;
      return p;
    },
    bad: true,
  },
  'Infinity coordinate': {
    make: (b, n, r) => {
      const p = inside(b, n, r);
      p[1] = Number.POSITIVE_INFINITY;
      return p;
    },
    bad: true,
  },
  'denormal coordinates': {
    make: (b, n, r) => {
      const p = inside(b, n, r);
      for (let i = 0; i < 3; i++) p[i] = b.min[i] + 5e-324 * (i + 1);
      return p;
    },
  },
  'length not a multiple of 3': { make: (b, n, r) => inside(b, n, r).slice(0, 3 * n - 1), bad: true },
  empty: { make: () => [], bad: true },
};

function inside(b, n, r, dyadic = false) {
  const out = [];
  for (let i = 0; i < n; i++) {
    for (let a = 0; a < 3; a++) {
      let f = 0.02 + 0.96 * r.next();
      if (dyadic) f = Math.round(f * 1024) / 1024;
      out.push(b.min[a] + f * (b.max[a] - b.min[a]));
    }
  }
  return out;
}

const radiusSets = {
  none: () => undefined,
  'equal 1': (n) => new Float64Array(n).fill(1),
  'equal 1e6': (n) => new Float64Array(n).fill(1e6),
  'equal 1e8': (n) => new Float64Array(n).fill(1e8),
  'equal 0': (n) => new Float64Array(n),
  'random 0.01..0.3': (n, r) => Float64Array.from({ length: n }, () => 0.01 + 0.29 * r.next()),
  'one huge 1e150': (n) => {
    const a = new Float64Array(n).fill(0.1);
    a[0] = 1e150;
    return a;
  },
  'denormal 5e-324': (n) => new Float64Array(n).fill(5e-324),
  negative: (n) => new Float64Array(n).fill(-1),
  NaN: (n) => new Float64Array(n).fill(Number.NaN),
  'wrong length': (n) => new Float64Array(n + 1).fill(0.1),
  'plain array': (n) => new Array(n).fill(0.1),
  Float32Array: (n) => new Float32Array(n).fill(0.1),
  detached: (n) => {
    const a = new Float64Array(n).fill(0.1);
    structuredClone(a.buffer, { transfer: [a.buffer] });
    return a;
  },
  'SharedArrayBuffer-backed': (n) => new Float64Array(new SharedArrayBuffer(8 * n)).fill(0.1),
};
const badRadii = new Set(['negative', 'NaN', 'wrong length', 'plain array', 'Float32Array', 'detached']);

const boxNames = Object.keys(boxes);
const goodBoxNames = boxNames.filter((k) => !boxes[k].bad && !boxes[k].unsure);

/** A tessellate call: its box, periodic flags, points (set and container), radii, threads. */
function drawCall(r, { hostile = true } = {}) {
  const plain = !hostile || r.chance(0.45);
  const boxName = plain ? r.pick(goodBoxNames) : r.pick(boxNames);
  return {
    box: boxName,
    periodic: plain ? r.pick(['false', 'true', '[true, false, false]']) : r.pick(Object.keys(periodics)),
    points: plain
      ? r.pick(['random', 'dyadic grid', 'two points at the quarters (x)'])
      : r.pick(Object.keys(pointSets)),
    container: plain || r.chance(0.6) ? 'Float64Array' : r.pick(Object.keys(containers)),
    count: r.pick([1, 2, 5, 20, 100]),
    radii: plain
      ? r.pick(['none', 'none', 'equal 1e6', 'equal 1e8', 'equal 1', 'random 0.01..0.3'])
      : r.pick(Object.keys(radiusSets)),
    threads: plain || r.chance(0.7) ? 'undefined' : r.pick(Object.keys(threadCounts)),
  };
}

/** Materializes a drawn call: `{ points, options, bad, expect }` for the child. */
function materialize(c, r) {
  const boxEntry = boxes[c.box];
  const geometry = plainBox(c.box) ?? { min: [0, 0, 0], max: [1, 1, 1] };
  const set = pointSets[c.points];
  const values = set.make(geometry, c.count, r);
  const points = containers[c.container](values);
  const n = Math.floor(values.length / 3);
  const radii = radiusSets[c.radii](n, r);
  const periodic = periodics[c.periodic]();
  const flags = typeof periodic === 'boolean' ? [periodic, periodic, periodic] : periodic;
  const walled = !(Array.isArray(flags) && flags[0] === true);
  const options = { box: boxEntry.make(), periodic };
  if (radii !== undefined) options.radii = radii;
  const threads = threadCounts[c.threads]();
  if (threads !== undefined) options.threads = threads;
  const plainPeriodic = ['false', 'true', '[true, false, false]', '[false, true, true]'].includes(c.periodic);
  const faithful =
    !boxEntry.bad &&
    !boxEntry.unsure &&
    faithfulContainers.has(c.container) &&
    plainPeriodic &&
    !set.bad &&
    !set.unsure &&
    !(set.badWalled && walled) &&
    !badRadii.has(c.radii) &&
    ['undefined', '1', '2', '64'].includes(c.threads);
  const bad =
    boxEntry.bad ||
    set.bad ||
    (set.badWalled && walled) ||
    badRadii.has(c.radii) ||
    ['0', '-1', '1.5', 'NaN', 'Infinity', '4097', '2**53', "'2'"].includes(c.threads) ||
    ["'yes'", '[1, 0, 0]', '[true, true]'].includes(c.periodic) ||
    [
      'plain array',
      'Float32Array',
      'Int32Array',
      'DataView',
      'detached Float64Array',
      'array of strings',
      'array with a getter answering NaN on the second read',
    ].includes(c.container) ||
    (c.container === 'Float64Array with one extra element' && c.points !== 'length not a multiple of 3') ||
    c.container === 'empty Float64Array';
  return {
    points,
    values,
    options,
    geometry,
    flags: plainPeriodic ? flags : undefined,
    faithful,
    bad,
    // Equal halves only for a Voronoi tessellation (or equal radii): Laguerre weights move the face.
    halves: set.halves && (radii === undefined || (radii.length > 0 && [...radii].every((x) => x === radii[0]))),
  };
}

function digestTessellation(t) {
  if (t.released) return 'released';
  return `${t.size}|${hashArray(t.volumes)}|${hashArray(t.neighbors)}|${hashArray(t.faceAreas)}|${hashArray(t.centroids)}`;
}

/** The invariants of a tessellation the case knows exactly. */
function checkTessellation(h, t, m, label) {
  const n = m.values.length / 3;
  if (t.size !== n) h.problem(`${label}: size ${t.size}, expected ${n}`);
  const volumes = t.volumes;
  const offsets = t.neighborOffsets;
  const neighbors = t.neighbors;
  const areas = t.faceAreas;
  const lo = m.geometry.min;
  const hi = m.geometry.max;
  const boxVolume = (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
  let sum = 0;
  for (let i = 0; i < volumes.length; i++) {
    if (!(volumes[i] >= 0)) {
      h.problem(`${label}: volume ${i} is ${volumes[i]}`);
      return;
    }
    sum += volumes[i];
  }
  const measurable = Number.isFinite(boxVolume) && boxVolume > 1e-280;
  if (measurable && Math.abs(sum - boxVolume) > 1e-9 * boxVolume) {
    h.problem(
      `${label}: volumes sum to ${sum}, box volume ${boxVolume} (relative error ${Math.abs(sum - boxVolume) / boxVolume})`,
    );
  }
  if (m.halves && measurable) {
    for (let i = 0; i < 2; i++) {
      if (Math.abs(volumes[i] - boxVolume / 2) > 1e-9 * boxVolume) {
        h.problem(
          `${label}: two points at the quarters give volumes [${volumes[0]}, ${volumes[1]}], expected ${boxVolume / 2} each`,
        );
        break;
      }
    }
  }
  if (offsets.length !== n + 1 || offsets[0] !== 0 || offsets[n] !== neighbors.length) {
    h.problem(
      `${label}: neighborOffsets malformed (length ${offsets.length}, last ${offsets[n]}, faces ${neighbors.length})`,
    );
    return;
  }
  const pairs = new Map();
  for (let i = 0; i < n; i++) {
    if (offsets[i + 1] < offsets[i]) {
      h.problem(`${label}: neighborOffsets decrease at ${i}`);
      return;
    }
    for (let f = offsets[i]; f < offsets[i + 1]; f++) {
      const j = neighbors[f];
      if (j < -6 || j >= n) {
        h.problem(`${label}: cell ${i} has neighbour id ${j}`);
        return;
      }
      if (!(areas[f] >= 0)) h.problem(`${label}: face ${f} of cell ${i} has area ${areas[f]}`);
      if (j < 0 || j === i) continue;
      const key = i < j ? `${i},${j}` : `${j},${i}`;
      const e = pairs.get(key) ?? { fromLow: 0, fromHigh: 0, areaLow: 0, areaHigh: 0 };
      if (i < j) {
        e.fromLow++;
        e.areaLow += areas[f];
      } else {
        e.fromHigh++;
        e.areaHigh += areas[f];
      }
      pairs.set(key, e);
    }
  }
  for (const [key, e] of pairs) {
    if (e.fromLow !== e.fromHigh || Math.abs(e.areaLow - e.areaHigh) > 1e-9 * Math.max(e.areaLow, e.areaHigh)) {
      h.problem(
        `${label}: pair ${key} not symmetric (${e.fromLow} vs ${e.fromHigh} faces, area ${e.areaLow} vs ${e.areaHigh})`,
      );
      break;
    }
  }
  return { volumes: Float64Array.from(volumes), boxVolume, measurable };
}

/** Translation by a power of two, and Laguerre with equal radii against Voronoi. */
function checkEquivalents(h, voro, m, facts, label) {
  if (!facts?.measurable || !m.faithful) return;
  const tol = 1e-9 * facts.boxVolume;
  const compare = (other, what) => {
    for (let i = 0; i < other.length; i++) {
      if (Math.abs(other[i] - facts.volumes[i]) > tol) {
        h.problem(`${label}: ${what}: volume ${i} is ${other[i]}, was ${facts.volumes[i]}`);
        return;
      }
    }
  };
  const { radii } = m.options;
  if (radii !== undefined && radii.length > 0 && radii.every((x) => x === radii[0])) {
    const plain = voro.tessellate(Float64Array.from(m.values), { box: m.geometry, periodic: m.flags });
    compare(plain.volumes, `Laguerre with all radii ${radii[0]} differs from Voronoi`);
    plain.release();
  }
  const offset = 2 ** 20;
  const exact = (x) => x + offset - offset === x;
  if (m.values.every(exact) && m.geometry.min.every(exact) && m.geometry.max.every(exact)) {
    const moved = voro.tessellate(
      Float64Array.from(m.values, (x) => x + offset),
      {
        box: { min: m.geometry.min.map((x) => x + offset), max: m.geometry.max.map((x) => x + offset) },
        periodic: m.flags,
        radii: radii === undefined ? undefined : Float64Array.from(radii),
      },
    );
    compare(moved.volumes, 'translated by 2^20');
    moved.release();
  }
}

/** A live, valid tessellation to use members of. */
function validTessellation(voro, r, count = 20) {
  const values = inside({ min: [0, 0, 0], max: [1, 1, 1] }, count, r);
  return voro.tessellate(Float64Array.from(values), {
    box: { min: [0, 0, 0], max: [1, 1, 1] },
    periodic: r.chance(0.5),
  });
}

export const voroTargets = {
  'voro.tessellate': {
    build: (r) => ({ call: drawCall(r) }),
    async exec(plan, h, { voro, r }) {
      const m = materialize(plan.call, r);
      const result = await h.call('tessellate(points, options)', () => voro.tessellate(m.points, m.options), {
        bad: m.bad,
      });
      if (!result.ok) return;
      const facts = checkTessellation(h, result.value, m, 'tessellate');
      checkEquivalents(h, voro, m, facts, 'tessellate');
      result.value.release();
    },
  },

  'voro.tessellateAsync': {
    build: (r) => ({
      call: r.chance(0.15)
        ? {
            box: 'long thin 1e5x1x1',
            periodic: 'true',
            points: 'random',
            container: 'Float64Array',
            count: 100,
            radii: 'none',
            threads: 'undefined',
          }
        : drawCall(r),
      cancel: r.pick([
        'none',
        'none',
        'signal aborted before',
        'abort after 5 ms',
        'abort at once',
        'finalize after 5 ms',
        'signal not an AbortSignal',
      ]),
    }),
    async exec(plan, h, { voro, r }) {
      const m = materialize(plan.call, r);
      const controller = new AbortController();
      const reason = new Error('hostile abort');
      if (plan.cancel === 'signal aborted before') controller.abort(reason);
      m.options.signal = plan.cancel === 'signal not an AbortSignal' ? { aborted: false } : controller.signal;
      const pending = h.call('tessellateAsync(points, options)', () => voro.tessellateAsync(m.points, m.options), {
        bad: m.bad || plan.cancel === 'signal not an AbortSignal' || plan.cancel === 'signal aborted before',
        allow: (e) => e === reason,
      });
      if (plan.cancel === 'abort at once') controller.abort(reason);
      if (plan.cancel === 'abort after 5 ms') setTimeout(() => controller.abort(reason), 5);
      if (plan.cancel === 'finalize after 5 ms') setTimeout(() => voro.finalize(), 5);
      const result = await pending;
      if (!result.ok) return;
      if (plan.cancel === 'finalize after 5 ms' && voro.tessellateAsync !== undefined) {
        // Finished before the finalize, or released by it: either is fine, but never half.
        await new Promise((resolve) => setTimeout(resolve, 10));
        if (result.value.released) return;
      }
      const facts = checkTessellation(h, result.value, m, 'tessellateAsync');
      if (plan.cancel === 'none') checkEquivalents(h, voro, m, facts, 'tessellateAsync');
      result.value.release();
    },
  },

  'voro.Tessellation getters': {
    build: (r) => ({
      getter: r.member(['size', 'volumes', 'centroids', 'neighborOffsets', 'neighbors', 'faceAreas', 'released', 'id']),
      state: r.pick(['live', 'released', 'after update (old view)', 'finalized', 'disposed']),
    }),
    async exec(plan, h, { voro, r }) {
      const t = validTessellation(voro, r);
      const old = t[plan.getter];
      if (plan.state === 'released') t.release();
      if (plan.state === 'disposed') t[Symbol.dispose]();
      if (plan.state === 'finalized') voro.finalize();
      if (plan.state === 'after update (old view)')
        t.update(Float64Array.from(inside({ min: [0, 0, 0], max: [1, 1, 1] }, 20, r)));
      const gone = plan.state === 'released' || plan.state === 'finalized' || plan.state === 'disposed';
      const always = plan.getter === 'released' || plan.getter === 'id';
      const result = await h.call(`t.${plan.getter} (${plan.state})`, () => t[plan.getter], {
        mustThrow: gone && !always ? 'a released tessellation must throw ReleasedError' : undefined,
      });
      if (ArrayBuffer.isView(old) && plan.state !== 'live' && old.length !== 0) {
        h.problem(`an array taken before (${plan.state}) still has length ${old.length}: it must be detached`);
      }
      if (plan.getter === 'released' && result.ok && result.value !== gone) h.problem(`released is ${result.value}`);
      if (plan.state === 'live' && result.ok) repeatedReads(h, `t.${plan.getter}`, () => t[plan.getter], 'voro');
    },
  },

  'voro.Tessellation.cell': {
    build: (r) => ({
      index: r.pick([...Object.keys(numbers), 'size', 'size - 1', '2**31 - 1']),
      released: r.chance(0.1),
    }),
    async exec(plan, h, { voro, r }) {
      const t = validTessellation(voro, r);
      const special = { size: t.size, 'size - 1': t.size - 1, '2**31 - 1': 2 ** 31 - 1 };
      const index = plan.index in special ? special[plan.index] : numbers[plan.index]();
      if (plan.released) t.release();
      const valid = !plan.released && Number.isInteger(index) && index >= 0 && index < t.size;
      const result = await h.call(`t.cell(${plan.index})`, () => t.cell(index), {
        digest: () => digestTessellation(t),
        mustThrow: valid ? undefined : 'an index outside [0, size) or of the wrong type must throw',
      });
      if (result.ok && valid) {
        const c = result.value;
        const faces = c.faces.length;
        if (faces !== c.neighbors.length) h.problem(`cell: ${faces} faces but ${c.neighbors.length} neighbours`);
        const v = c.vertices.length / 3;
        for (const f of c.faces)
          if (f.some((k) => k < 0 || k >= v)) h.problem('cell: a face names a vertex out of range');
      }
    },
  },

  'voro.Tessellation.update': {
    build: (r) => ({
      points: r.pick([
        'moved',
        'coincident with another',
        'NaN',
        'wrong length',
        'own centroids (aliased view)',
        'own volumes (aliased view)',
        'outside the walled box',
        'detached',
        'Float32Array',
        'plain array',
        'SharedArrayBuffer-backed',
        'subarray at offset 1',
        'Proxy',
        'getter NaN on second read',
      ]),
      periodic: r.chance(0.5),
      released: r.chance(0.05),
    }),
    async exec(plan, h, { voro, r }) {
      const n = 20;
      const geometry = { min: [0, 0, 0], max: [1, 1, 1] };
      const t = voro.tessellate(Float64Array.from(inside(geometry, n, r)), { box: geometry, periodic: plan.periodic });
      const moved = inside(geometry, n, r);
      const make = {
        moved: () => Float64Array.from(moved),
        'coincident with another': () => {
          const p = Float64Array.from(moved);
          p.set(p.subarray(0, 3), 3);
          return p;
        },
        NaN: () => Float64Array.from(moved, (x, i) => (i === 4 ? Number.NaN : x)),
        'wrong length': () => Float64Array.from(moved.slice(0, 3 * n - 3)),
        'own centroids (aliased view)': () => t.centroids,
        'own volumes (aliased view)': () => t.volumes,
        'outside the walled box': () => Float64Array.from(moved, (x, i) => (i === 0 ? 2 : x)),
        detached: () => containers['detached Float64Array'](moved),
        Float32Array: () => Float32Array.from(moved),
        'plain array': () => moved,
        'SharedArrayBuffer-backed': () => containers['SharedArrayBuffer-backed'](moved),
        'subarray at offset 1': () => containers['subarray at offset 1'](moved),
        Proxy: () => new Proxy(Float64Array.from(moved), {}),
        'getter NaN on second read': () => containers['array with a getter answering NaN on the second read'](moved),
      };
      const points = make[plan.points]();
      if (plan.released) t.release();
      const bad =
        plan.released ||
        [
          'coincident with another',
          'NaN',
          'wrong length',
          'own volumes (aliased view)',
          'detached',
          'Float32Array',
          'plain array',
        ].includes(plan.points) ||
        (plan.points === 'outside the walled box' && !plan.periodic);
      const result = await h.call(`t.update(${plan.points})`, () => t.update(points), {
        digest: () => digestTessellation(t),
        bad,
      });
      if (result.ok && !t.released) {
        const values = plan.points === 'own centroids (aliased view)' ? undefined : Array.from(make.moved());
        if (values && ['moved', 'SharedArrayBuffer-backed', 'subarray at offset 1'].includes(plan.points)) {
          checkTessellation(h, t, { values, geometry, faithful: true }, 'update');
        } else if (!(t.volumes.every((v) => v >= 0) && t.size === n)) {
          h.problem('update: volumes or size broken after an accepted update');
        }
      }
      if (!t.released) {
        await h.call('t.stats() after update', () => t.stats());
      }
    },
  },

  'voro.Tessellation.stats': {
    build: (r) => ({ state: r.pick(['live', 'released', 'finalized', 'empty Laguerre cells']) }),
    async exec(plan, h, { voro, r }) {
      let t;
      if (plan.state === 'empty Laguerre cells') {
        const pts = Float64Array.from(inside({ min: [0, 0, 0], max: [1, 1, 1] }, 10, r));
        const radii = new Float64Array(10).fill(0.01);
        radii[0] = 10;
        t = voro.tessellate(pts, { box: { min: [0, 0, 0], max: [1, 1, 1] }, radii });
      } else t = validTessellation(voro, r);
      if (plan.state === 'released') t.release();
      if (plan.state === 'finalized') voro.finalize();
      const gone = plan.state === 'released' || plan.state === 'finalized';
      const result = await h.call(`t.stats() (${plan.state})`, () => t.stats(), {
        mustThrow: gone ? 'a released tessellation must throw ReleasedError' : undefined,
      });
      if (result.ok) {
        for (const [k, v] of Object.entries(result.value)) {
          if (!(Number.isFinite(v) && v >= 0)) h.problem(`stats().${k} is ${v}`);
        }
      }
    },
  },

  'voro.Tessellation.release': {
    build: (r) => ({
      how: r.pick([
        'twice',
        'then finalize',
        'dispose then release',
        'during tessellateAsync of another',
        'release then use',
      ]),
    }),
    async exec(plan, h, { voro, r }) {
      const t = validTessellation(voro, r);
      const volumes = t.volumes;
      if (plan.how === 'during tessellateAsync of another') {
        const pending = voro.tessellateAsync(Float64Array.from(inside({ min: [0, 0, 0], max: [1, 1, 1] }, 2000, r)), {
          box: { min: [0, 0, 0], max: [1, 1, 1] },
        });
        await h.call('t.release()', () => t.release());
        const other = await h.call('await tessellateAsync', () => pending);
        if (other.ok) other.value.release();
      } else if (plan.how === 'dispose then release') {
        await h.call('t[Symbol.dispose]()', () => t[Symbol.dispose]());
        await h.call('t.release()', () => t.release());
      } else {
        await h.call('t.release()', () => t.release());
        if (plan.how === 'twice') await h.call('t.release() again', () => t.release());
        if (plan.how === 'then finalize') await h.call('finalize()', () => voro.finalize());
        if (plan.how === 'release then use') {
          await h.call('t.update after release', () => t.update(new Float64Array(60).fill(0.5)), {
            mustThrow: 'a released tessellation must throw ReleasedError',
          });
        }
      }
      if (!t.released) h.problem('released is false after release()');
      if (volumes.length !== 0) h.problem('volumes taken before release are not detached');
    },
  },

  'voro.finalize': {
    build: (r) => ({
      how: r.pick(['idle', 'twice', 'during tessellateAsync', 'then tessellate', 'from an abort listener']),
    }),
    async exec(plan, h, { voro, r }) {
      const t = validTessellation(voro, r);
      const volumes = t.volumes;
      const points = Float64Array.from(inside({ min: [0, 0, 0], max: [1, 1, 1] }, 3000, r));
      const box = { min: [0, 0, 0], max: [1, 1, 1] };
      if (plan.how === 'during tessellateAsync') {
        const pending = h.call('tessellateAsync while finalizing', () => voro.tessellateAsync(points, { box }));
        await h.call('finalize()', () => voro.finalize());
        const other = await pending;
        if (other.ok && !other.value.released) h.problem('a tessellation finished after finalize() is still live');
      } else if (plan.how === 'from an abort listener') {
        const controller = new AbortController();
        controller.signal.addEventListener('abort', () => voro.finalize());
        const pending = h.call(
          'tessellateAsync, aborted',
          () => voro.tessellateAsync(points, { box, signal: controller.signal }),
          {
            allow: (e) => e === controller.signal.reason,
          },
        );
        controller.abort();
        await pending;
      } else {
        await h.call('finalize()', () => voro.finalize());
        if (plan.how === 'twice') await h.call('finalize() again', () => voro.finalize());
        if (plan.how === 'then tessellate') {
          await h.call('tessellate once finalized', () => voro.tessellate(points, { box }), {
            mustThrow: 'a finalized module must refuse new tessellations',
          });
        }
      }
      if (!t.released) h.problem('a tessellation is still live after finalize()');
      if (volumes.length !== 0) h.problem('arrays are not detached after finalize()');
    },
  },
};
