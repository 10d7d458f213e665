// A case is the n-th case of a target, named `target#n` for good: its plan depends on the
// target's name and n alone, so adding, removing or reordering other targets (or building
// without @peclet/mpi, which drops its targets) changes no case. Through mulberry32 seeded from
// (target, n) it draws every argument. A target's main choice (which member, which reader) is
// `r.member(list)`: round robin over n, so that k cases of a target reach every member of a
// list of k or fewer — the coverage the run reports and, in a full run, asserts. A run is a
// batch: round robin over the targets, rounds `first`, `first + 1`, …
// Pure: the parent and the replay rebuild the plan from the id alone.

import { coreTargets } from './core.mjs';
import { couplingTargets } from './coupling.mjs';
import { demTargets } from './dem.mjs';
import { fileTargets } from './files.mjs';
import { flowTargets } from './flow.mjs';
import { ioTargets } from './io.mjs';
import { mpiTargets } from './mpi.mjs';
import { pnmTargets } from './pnm.mjs';
import { random } from './random.mjs';
import { slabTargets } from './slab.mjs';
import { voroTargets } from './voro.mjs';

export const targets = {
  ...coreTargets,
  ...voroTargets,
  ...demTargets,
  ...ioTargets,
  ...flowTargets,
  ...slabTargets,
  ...pnmTargets,
  ...couplingTargets,
  ...mpiTargets,
  ...fileTargets,
};
export const targetNames = Object.keys(targets);

/** The id of the n-th case of `target`. */
export const caseId = (target, n) => `${target}#${n}`;

/** `{ target, n }` of an id `target#n`; throws a TypeError naming what is wrong. */
export function parseCaseId(id) {
  const at = typeof id === 'string' ? id.lastIndexOf('#') : -1;
  const target = at > 0 ? id.slice(0, at) : undefined;
  const n = at > 0 && /^\d+$/.test(id.slice(at + 1)) ? Number(id.slice(at + 1)) : Number.NaN;
  if (target === undefined || !Number.isSafeInteger(n))
    throw new TypeError(`a case is named 'target#n' (n a non-negative integer), got ${JSON.stringify(id)}`);
  if (!Object.hasOwn(targets, target)) {
    const why = target.startsWith('mpi.') ? ' (its targets exist where @peclet/mpi was built)' : '';
    throw new TypeError(`no target ${JSON.stringify(target)}${why}; the targets are: ${targetNames.join(', ')}`);
  }
  return { target, n };
}

/** The 32-bit seed of the n-th case of `target` (FNV-1a of the name, mixed with n). */
export function caseSeed(target, n) {
  let h = 0x811c9dc5;
  for (let i = 0; i < target.length; i++) h = Math.imul(h ^ target.charCodeAt(i), 0x01000193);
  h = (h ^ Math.imul(n >>> 0, 0x9e3779b1) ^ Math.floor(n / 2 ** 32)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  return (h ^ (h >>> 13)) >>> 0;
}

/** The plan of the n-th case of `target`: `{ target, ..., memoryLimitKiB?, expect? }` (JSON). */
export function plan(target, n) {
  const r = random(caseSeed(target, n) ^ 0x9e3779b9);
  r.member = (list) => {
    r.next(); // the same stream whether a choice is random or round robin
    return list[n % list.length];
  };
  return { target, ...targets[target].build(r) };
}

/** The i-th case of the batch that starts at round `first`: `{ target, n }`. */
export function batchCase(first, i) {
  return { target: targetNames[i % targetNames.length], n: first + Math.floor(i / targetNames.length) };
}

/** The modules a target's child loads. */
export function modulesOf(target) {
  if (target === 'core.handleSignals') return ['core', 'voro'];
  if (target.startsWith('core.')) return ['core'];
  // coupling builds on dem (the spheres) and flow (the fluid): its cases finalize them underneath it.
  if (target.startsWith('coupling.')) return ['coupling', 'dem', 'flow'];
  // Hostile files read through io; the CLI is run as its own process; the cap also runs flow and pnm.
  if (target === 'io.mutated file' || target === 'io.special file' || target.startsWith('cli.')) return ['io'];
  if (target === 'env.memory cap') return ['io', 'flow', 'pnm'];
  // A damaged addon is loaded in a process of its own, with PECLET_<NAME>_BINARY set there.
  if (target === 'env.damaged addon') return ['core'];
  return [target.slice(0, target.indexOf('.'))];
}
