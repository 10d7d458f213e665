// Teardown of flow on every row of the exit contract, each in a child
// process: exact status or signal, no crash signature, the Lattice released
// before its module finalized, empty ledger; finalize() while a run or a
// permeability() computes.
import { join } from 'node:path';
import { describeExitContract } from '../../core/test/exit-paths.mjs';

const fixtures = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, 'fixtures');
const scenario = join(fixtures, 'scenario.mjs');

const stopped = {
  status: 0,
  reasons: ['explicit'],
  stdout: ['run: PECLET_CANCELLED', 'after: ReleasedError', 'velocity detached: true'],
};
describeExitContract({
  module: 'flow',
  scenario,
  extraPaths: { 'finalize-during-run': stopped, 'finalize-during-permeability': stopped },
  workerLine: /^main steps \d+$/m,
});
