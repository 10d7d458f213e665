// Teardown of pnm on every row of the exit contract, each in a child
// process: exact status or signal, no crash signature, the Network released
// before its module finalized, empty ledger; finalize() while an extraction
// computes.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { exitPaths } from '../../core/test/exit-paths.mjs';
import { assertCleanExit, runNode } from '../../core/test/helpers.mjs';

const fixtures = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, 'fixtures');
const scenario = join(fixtures, 'scenario.mjs');

const stopped = {
  status: 0,
  reasons: ['explicit'],
  stdout: ['extract: PECLET_CANCELLED', 'after: ReleasedError', 'regions detached: true'],
};
const paths = { ...exitPaths, 'finalize-during-extract': stopped };

describe('pnm exit contract', { concurrency: 2 }, () => {
  for (const [path, expected] of Object.entries(paths)) {
    it(path, async () => {
      const result = await runNode(scenario, [path]);
      assertCleanExit(result, {
        status: expected.status ?? 0,
        signal: expected.signal ?? null,
        finalizes: { pnm: expected.reasons.length },
        reasons: { pnm: expected.reasons },
      });
      for (const line of expected.stdout ?? []) assert.match(result.stdout, new RegExp(`^${line}$`, 'm'));
      if (path.startsWith('worker-')) assert.match(result.stdout, /^main pores \d+$/m);
    });
  }
});
