// A case is (target, seed): the seed picks the target (round robin, so every public member is
// hit in every run of a few hundred cases) and then, through mulberry32, every argument. Pure:
// the parent and the replay rebuild the plan from the seed alone.

import { coreTargets } from './core.mjs';
import { couplingTargets } from './coupling.mjs';
import { demTargets } from './dem.mjs';
import { flowTargets } from './flow.mjs';
import { ioTargets } from './io.mjs';
import { pnmTargets } from './pnm.mjs';
import { random } from './random.mjs';
import { voroTargets } from './voro.mjs';

export const targets = {
  ...coreTargets,
  ...voroTargets,
  ...demTargets,
  ...ioTargets,
  ...flowTargets,
  ...pnmTargets,
  ...couplingTargets,
};
export const targetNames = Object.keys(targets);

/** The plan of `seed`: `{ target, ..., memoryLimitKiB?, expect? }` (JSON). */
export function plan(seed) {
  const target = targetNames[seed % targetNames.length];
  const r = random(seed ^ 0x9e3779b9);
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
