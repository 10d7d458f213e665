// The consumer addon on a natural end and on process.exit, in child processes.

import assert from 'node:assert/strict';
import { it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { assertCleanExit, runNode } from '../../../packages/core/test/helpers.mjs';

const script = fileURLToPath(new URL('./script.mjs', import.meta.url));

it('natural end with objects and a zero-copy array at script scope', async () => {
  const result = await runNode(script, []);
  assertCleanExit(result, { status: 0, finalizes: { histogram: 1 }, reasons: { histogram: ['exit'] } });
  assert.match(result.stdout, /^counts 1,2,0,0,0,0,0,0,0,1$/m);
});

it('process.exit(9)', async () => {
  const result = await runNode(script, ['exit']);
  assertCleanExit(result, { status: 9, finalizes: { histogram: 1 }, reasons: { histogram: ['exit'] } });
});
