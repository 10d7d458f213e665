// Shared by the child-process tests: run a script in a fresh process and
// read its exit status, signal, stdout and teardown trace.

import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crashSignature, parseCreated, parseTrace, run, transcript } from '@peclet/test-harness';

// The runner, the crash signatures and the trace parsers live in the shared
// test harness (test/harness); these names stay so the tests need no change.
export { crashSignature, parseCreated, parseTrace };

export const here = dirname(fileURLToPath(import.meta.url));
export const fixtures = join(here, 'fixtures');

/**
 * Runs `node <script> ...args` with the trace on; resolves with its result
 * and its parsed trace and `created` lines. A child that outlives `timeoutMs`
 * is killed and reported as a hang; `memoryLimitKiB` caps its address space
 * (`ulimit -v`).
 */
export async function runNode(
  script,
  args = [],
  { env = {}, timeoutMs = 60_000, nodeArgs = [], command = process.execPath, memoryLimitKiB } = {},
) {
  const result = await run(command, [...nodeArgs, script, ...args], { env, timeoutMs, memoryLimitKiB });
  return { ...result, trace: parseTrace(result.stderr), created: parseCreated(result.stdout) };
}

/**
 * The exit contract for one run: the exact status (or signal), no crash
 * signature, and — where the runtime runs anything — every created object
 * released before a finalize of its module, `finalizes[module]` finalize
 * lines per module (one per env), each with an empty ledger.
 */
export function assertCleanExit(result, { status = 0, signal = null, finalizes = {}, reasons } = {}) {
  const context = `\n${transcript(result)}`;
  assert.equal(result.hung, false, `child hung${context}`);
  assert.equal(result.signal, signal, `signal${context}`);
  if (signal === null) assert.equal(result.status, status, `exit status${context}`);
  assert.doesNotMatch(result.stderr, crashSignature, `crash signature${context}`);
  for (const [module, count] of Object.entries(finalizes)) {
    const lines = result.trace.filter((e) => e.kind === 'finalize' && e.module === module);
    assert.equal(lines.length, count, `finalize lines of ${module}${context}`);
    for (const line of lines) assert.equal(line.liveBytes, 0, `live bytes at finalize of ${module}${context}`);
    if (reasons?.[module]) {
      assert.deepEqual(
        lines.map((l) => l.reason).sort(),
        [...reasons[module]].sort(),
        `finalize reasons of ${module}${context}`,
      );
    }
  }
  for (const { module, object } of result.created) {
    if (!(module in finalizes) || finalizes[module] === 0) continue;
    const at = result.trace.findIndex((e) => e.kind === 'release' && e.module === module && e.object === object);
    assert.ok(at >= 0, `${module} ${object} was never released${context}`);
    const after = result.trace.slice(at + 1).some((e) => e.kind === 'finalize' && e.module === module);
    assert.ok(after, `${module} ${object} released after its module finalized${context}`);
  }
}
