// A case is (target, seed): the seed picks the target (round robin, so every target is hit in
// every run of a few hundred cases) and then, through mulberry32, every argument. A target's
// main choice (which member, which reader) is `r.member(list)`: round robin too, over the
// target's own cases (seed ÷ target count), so that a run of k cases per target reaches every
// member of a list of k or fewer — the coverage the run reports and, in a full run, asserts.
// Pure: the parent and the replay rebuild the plan from the seed alone.

import { coreTargets } from './core.mjs';
import { couplingTargets } from './coupling.mjs';
import { demTargets } from './dem.mjs';
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
};
export const targetNames = Object.keys(targets);

/** The plan of `seed`: `{ target, ..., memoryLimitKiB?, expect? }` (JSON). */
export function plan(seed) {
  const target = targetNames[seed % targetNames.length];
  const round = Math.floor(seed / targetNames.length);
  const r = random(seed ^ 0x9e3779b9);
  r.member = (list) => {
    r.next(); // the same stream whether a choice is random or round robin
    return list[round % list.length];
  };
  return { target, ...targets[target].build(r) };
}

/** The modules a target's child loads. */
export function modulesOf(target) {
  if (target === 'core.handleSignals') return ['core', 'voro'];
  if (target.startsWith('core.')) return ['core'];
  // coupling builds on dem (the spheres) and flow (the fluid): its cases finalize them underneath it.
  if (target.startsWith('coupling.')) return ['coupling', 'dem', 'flow'];
  return [target.slice(0, target.indexOf('.'))];
}
