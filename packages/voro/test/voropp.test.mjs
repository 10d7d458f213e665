// Side by side with voro++ (Debian's voro++-dev, through reference/voropp_cells.cpp):
// the same random points give the same per-cell volumes (1e-9 relative) and the
// same neighbour sets — walled, periodic, and Laguerre with radii.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { tessellate } from '../dist/index.js';
import { runReference } from '../reference/voropp.mjs';
import { random, randomPoints } from './random.mjs';

const box = { min: [0, 0, 0], max: [1, 1, 1] };
const n = 20_000;
const points = randomPoints(n, 42);
const next = random(43);
const radii = new Float64Array(n).map(() => 0.004 + 0.008 * next());

const cases = {
  walled: { periodic: [false, false, false] },
  periodic: { periodic: [true, true, true] },
  'periodic x and z': { periodic: [true, false, true] },
  'Laguerre, walled': { periodic: [false, false, false], radii },
  'Laguerre, periodic': { periodic: [true, true, true], radii },
};

describe('agreement with voro++', () => {
  for (const [name, { periodic, radii: r }] of Object.entries(cases)) {
    it(name, () => {
      const ours = tessellate(points, { box, periodic, ...(r ? { radii: r } : {}) });
      const ref = runReference(points, { box, periodic, radii: r });
      let worst = 0;
      let differentSets = 0;
      for (let i = 0; i < n; i++) {
        // A Laguerre cell can be empty (a point dominated by larger neighbours): 0 on both sides.
        const scale = Math.max(ours.volumes[i], ref.volumes[i]);
        if (scale > 0) worst = Math.max(worst, Math.abs(ours.volumes[i] - ref.volumes[i]) / scale);
        const mine = [...ours.neighbors.subarray(ours.neighborOffsets[i], ours.neighborOffsets[i + 1])].sort(
          (a, b) => a - b,
        );
        const theirs = [...ref.neighbors[i]].sort((a, b) => a - b);
        if (mine.join() !== theirs.join()) differentSets++;
      }
      assert.ok(worst < 1e-9, `largest relative volume difference ${worst}`);
      assert.equal(differentSets, 0, `${differentSets} cells with different neighbour sets`);
      ours.release();
    });
  }
});
