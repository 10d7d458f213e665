// Teardown of pnm on every row of the exit contract, each in a child
// process: exact status or signal, no crash signature, the Network released
// before its module finalized, empty ledger; finalize() while an extraction
// computes.
import { join } from 'node:path';
import { describeExitContract } from '../../core/test/exit-paths.mjs';

const fixtures = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, 'fixtures');
const scenario = join(fixtures, 'scenario.mjs');

const stopped = {
  status: 0,
  reasons: ['explicit'],
  stdout: ['extract: PECLET_CANCELLED', 'after: ReleasedError', 'regions detached: true'],
};
describeExitContract({
  module: 'pnm',
  scenario,
  extraPaths: { 'finalize-during-extract': stopped },
  workerLine: /^main pores \d+$/m,
});
