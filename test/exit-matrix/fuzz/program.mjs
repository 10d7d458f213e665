// A random program over the public APIs, as a list of operations drawn from
// a seed. Pure: the same seed gives the same program on every machine, so
// the parent knows how a program must end without trusting the child, and a
// failure replays from its seed alone.
//
// Objects live in numbered slots (creation order); operations name slots.
// Work that could run long is only left in flight when the program (or the
// worker) ends abruptly; otherwise it is aborted, so a program never waits
// for long work to finish.

import { random } from '@peclet/test-harness';

export const allModules = ['alpha', 'voro', 'dem', 'flow', 'pnm', 'coupling'];

/** mulberry32 (test/harness): small, fast, good enough for choosing operations. */
export { random };

/**
 * The program of `seed`: { modules, ops, end }. `end` is how it ends:
 * { how: 'natural' | 'exitCode' | 'exit' | 'uncaught' | 'rejection', code } —
 * and `status` is the exit status that must result.
 */
export function program(seed, { worker = false } = {}) {
  const r = random(seed);
  // coupling in one program of four: with it come dem and flow and their steps, which would
  // otherwise double the time of the 2,000 programs.
  const modules = allModules.filter((m) => r.chance(m === 'coupling' ? 0.25 : 0.6));
  if (modules.length === 0) modules.push(r.pick(allModules));
  // coupling builds on dem and flow: a program with it loads (and finalizes) both.
  if (modules.includes('coupling')) for (const m of ['dem', 'flow']) if (!modules.includes(m)) modules.push(m);
  // Load order varies too.
  modules.sort(() => r.next() - 0.5);

  const endings = worker ? ['natural', 'exit', 'terminated'] : ['natural', 'exitCode', 'exit', 'uncaught', 'rejection'];
  const how = r.pick(endings);
  const code = how === 'exit' || how === 'exitCode' ? r.int(2, 99) : 0;
  const abrupt = how !== 'natural' && how !== 'exitCode';

  const ops = [];
  const slots = []; // module of each slot
  const finalized = new Set();
  const create = (module) => {
    if (module === 'coupling') {
      // Over a dem Simulation of the program: one already made, or a new one.
      const dems = slots.flatMap((m, slot) => (m === 'dem' ? [slot] : []));
      let over;
      if (dems.length === 0 || r.chance(0.3)) {
        create('dem');
        over = slots.length - 1;
      } else over = r.pick(dems);
      ops.push({ op: 'create', module, size: r.int(1, 4), over, substeps: r.int(1, 3) });
    } else if ((module === 'voro' || module === 'pnm') && slots.includes('dem') && r.chance(0.4)) {
      // The pipeline's hand-offs: a tessellation of a dem Simulation's spheres, a pore network of
      // its voxels (both copies: the new object holds nothing of dem's).
      const dems = slots.flatMap((m, slot) => (m === 'dem' ? [slot] : []));
      ops.push({ op: 'create', module, size: r.int(1, 4), from: r.pick(dems) });
    } else ops.push({ op: 'create', module, size: r.int(1, 4) });
    slots.push(module);
  };
  const count = r.int(4, worker ? 10 : 22);
  for (let i = 0; i < count; i++) {
    const live = modules.filter((m) => !finalized.has(m));
    const roll = r.next();
    if (slots.length === 0 || roll < 0.2) {
      create(r.pick(modules));
      continue;
    }
    const slot = r.int(0, slots.length - 1);
    if (roll < 0.35) ops.push({ op: 'use', slot });
    else if (roll < 0.4) ops.push({ op: 'array', slot });
    else if (roll < 0.43) ops.push({ op: 'hot-read', slot, reads: r.pick([1e3, 1e5]) });
    else if (roll < 0.5) ops.push({ op: 'release', slot, twice: r.chance(0.3) });
    else if (roll < 0.57)
      ops.push({ op: 'using', module: r.pick(modules), size: r.int(1, 4), teardown: r.chance(0.5) });
    else if (roll < 0.72) {
      const kinds = abrupt ? ['await', 'abort', 'leave-short', 'leave-long'] : ['await', 'abort', 'leave-short'];
      ops.push({ op: 'async', slot, kind: r.pick(kinds), delay: r.int(0, 30) });
    } else if (roll < 0.78) ops.push({ op: 'drop', slot });
    else if (roll < 0.82) ops.push({ op: 'gc' });
    else if (roll < 0.87) ops.push({ op: 'sleep', ms: r.int(0, 20) });
    else if (roll < 0.92 && live.length > 0) {
      const module = r.pick(live);
      finalized.add(module);
      ops.push({ op: 'finalize', module });
    } else if (!worker && roll < 0.97) {
      const workerEnd = r.pick(abrupt ? ['await', 'terminate', 'detach'] : ['await', 'terminate', 'detach']);
      ops.push({ op: 'worker', seed: (seed * 31 + i + 1) >>> 0, mode: workerEnd, delay: r.int(0, 40) });
    } else ops.push({ op: 'use', slot });
  }
  const status = how === 'uncaught' || how === 'rejection' ? 1 : code;
  return { seed, modules, ops, end: { how, code }, status };
}

/**
 * A worker's program must end by itself when main waits for it (`await`,
 * `detach`); only a worker main terminates may end `terminated` (it then
 * waits, computing, to be stopped).
 */
export function workerProgram(seed, mode) {
  const p = program(seed, { worker: true });
  if (mode !== 'terminate' && p.end.how === 'terminated') {
    p.end = { how: 'natural', code: 0 };
    p.ops = p.ops.map((o) => (o.op === 'async' && o.kind === 'leave-long' ? { ...o, kind: 'abort' } : o));
  }
  p.status = p.end.how === 'exit' ? p.end.code : p.end.how === 'terminated' ? 1 : 0;
  return p;
}
