// The exit contract with a live WebGPU device: a device, buffers and a mapped
// range at script scope (fixtures/gpu-scenario.mjs) on every row of
// exit-paths.mjs, each in its own child process, plus mapAsync/read/drain in
// flight at process.exit (main and worker) and use after finalize. Skipped
// only where `webgpu` or a GPU adapter (Mesa on a machine without a GPU) is
// missing; gpu-api.test.mjs says why.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { exitPaths } from './exit-paths.mjs';
import { gpuSkip } from './fixtures/gpu-skip.mjs';
import { assertCleanExit, fixtures, runNode } from './helpers.mjs';

const scenario = join(fixtures, 'gpu-scenario.mjs');
const skip = gpuSkip();
// Every child is bounded: a hang is a failure (assertCleanExit checks it).
const timeoutMs = 30_000;

/** What the GPU run must show besides the shared contract. */
function assertGpu(result, { exitListeners }) {
  const context = `\n--- stdout ---\n${result.stdout}\n--- stderr ---\n${result.stderr}`;
  // Dawn aborts with this when one of its promises is finalized pending.
  assert.doesNotMatch(result.stderr, /Promise not resolved or rejected/, `pending Dawn promise${context}`);
  // Each exit listener that ran found the mapped range already detached.
  const ranges = [...result.stdout.matchAll(/^mapped range at exit (\d+)$/gm)].map((m) => Number(m[1]));
  assert.equal(ranges.length, exitListeners, `exit listeners that reported the mapped range${context}`);
  for (const bytes of ranges) assert.equal(bytes, 0, `mapped range still attached at exit${context}`);
  // Every GPU object a thread printed was released before that module's finalize line.
  const gpuCreated = result.created.filter((c) => /^Gpu(Device|Buffer)#/.test(c.object));
  for (const { object } of gpuCreated) {
    if (exitListeners === 0) continue;
    const at = result.trace.findIndex((e) => e.kind === 'release' && e.object === object);
    assert.ok(at >= 0, `${object} was never released${context}`);
  }
}

describe('GPU device on every exit path', { concurrency: 2, skip }, () => {
  for (const [path, expected] of Object.entries(exitPaths)) {
    it(path, async () => {
      const result = await runNode(scenario, [path], { timeoutMs });
      assertCleanExit(result, {
        status: expected.status ?? 0,
        signal: expected.signal ?? null,
        finalizes: { alpha: expected.reasons.length },
        reasons: { alpha: expected.reasons },
      });
      for (const line of expected.stdout ?? []) assert.match(result.stdout, new RegExp(`^${line}$`, 'm'));
      // Threads whose exit listener ran: one per 'exit' finalize.
      const exitListeners = expected.reasons.filter((r) => r === 'exit').length;
      assertGpu(result, { exitListeners });
      const releasedDevices = result.trace.filter((e) => e.kind === 'release' && e.object.startsWith('GpuDevice#'));
      assert.equal(
        releasedDevices.length,
        expected.reasons.filter((r) => r !== 'cleanup').length,
        'one GpuDevice release per thread that ran JS at its end',
      );
      // After a worker ended, however it ended, the main thread's device still computes.
      if (path.startsWith('worker-')) assert.match(result.stdout, /^main read 1$/m);
      if (expected.reasons.length === 0) assert.equal(result.trace.length, 0, 'nothing runs on an unhandled signal');
    });
  }

  it('mapAsync, read() and drain() in flight at process.exit', async () => {
    const result = await runNode(scenario, ['map-exit'], { timeoutMs });
    assertCleanExit(result, { status: 4, finalizes: { alpha: 1 }, reasons: { alpha: ['exit'] } });
    assertGpu(result, { exitListeners: 1 });
  });

  it('a worker calls process.exit with mapAsync, read() and drain() in flight', async () => {
    const result = await runNode(scenario, ['worker-map-exit'], { timeoutMs });
    assertCleanExit(result, { status: 0, finalizes: { alpha: 2 }, reasons: { alpha: ['exit', 'exit'] } });
    assertGpu(result, { exitListeners: 2 });
    assert.match(result.stdout, /^worker exit 3$/m);
    assert.match(result.stdout, /^main read 1$/m);
  });

  it('use after finalize: ReleasedError everywhere, in-flight work rejected, ranges detached', async () => {
    const result = await runNode(scenario, ['use-after'], { timeoutMs });
    assertCleanExit(result, { status: 0, finalizes: { alpha: 1 }, reasons: { alpha: ['explicit'] } });
    const out = result.stdout;
    for (const what of ['mapAsync', 'read', 'drain'])
      assert.match(out, new RegExp(`^${what} rejected ReleasedError$`, 'm'));
    assert.match(out, /^mapped range after finalize 0$/m);
    for (const what of [
      'device',
      'createBuffer',
      'writeBuffer',
      'submit',
      'buffer.buffer',
      'getMappedRange',
      'unmap',
    ]) {
      assert.match(
        out,
        new RegExp(
          `^${what.replace('.', '\\.')} threw ReleasedError: Gpu(Device|Buffer)#\\d+ of module alpha was released by finalize\\(\\)$`,
          'm',
        ),
      );
    }
    for (const what of ['read', 'drain', 'mapAsync']) {
      assert.match(
        out,
        new RegExp(
          `^${what} rejected ReleasedError: Gpu(Device|Buffer)#\\d+ of module alpha was released by finalize\\(\\)$`,
          'm',
        ),
      );
    }
    assert.match(out, /^requestGpu rejected ReleasedError: cannot create GpuDevice: module alpha was finalized/m);
  });
});
