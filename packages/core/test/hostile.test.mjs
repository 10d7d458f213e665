// Hostile input at the kernel's level: allocation failure reaches JS as a
// RangeError, native memory is visible to V8, and the TypeScript runtime
// holds up under reentrant releases, odd timeouts and signal handlers it
// does not own. Each case runs in a child process.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { defineModule, handleSignals, readBox, readFloat64Array, readOptions } from '../dist/index.js';
import { crashSignature, fixtures, runNode } from './helpers.mjs';

const script = join(fixtures, 'hostile-core.mjs');

describe('hostile input, kernel', () => {
  it('allocation failure in a method is a RangeError with code PECLET_OUT_OF_MEMORY; refused up front it names the argument', async () => {
    // Under an address-space cap, so that the unchecked 8 TB allocation fails
    // in malloc whatever the kernel's overcommit policy (with
    // vm.overcommit_memory=1 it would succeed and the fill be OOM-killed).
    const r = await runNode(script, ['out-of-memory'], { memoryLimitKiB: 4_000_000 });
    assert.equal(r.status, 0, r.stderr);
    assert.doesNotMatch(r.stderr, crashSignature);
    assert.match(
      r.stdout,
      /^scratch RangeError PECLET_OUT_OF_MEMORY - Field#\d+\.scratch: out of memory \(module alpha holds/m,
    );
    assert.match(
      r.stdout,
      /^planned RangeError PECLET_OUT_OF_MEMORY n n: .* doubles would need about 9\.01 PB|^planned RangeError PECLET_OUT_OF_MEMORY n n: .*would need about/m,
    );
    assert.match(r.stdout, /^still works /m);
  });

  it('native memory is reported to V8: 2 GB of dropped objects never pile up', async () => {
    const r = await runNode(script, ['external-memory'], { timeoutMs: 120_000 });
    assert.equal(r.status, 0, r.stderr);
    const peak = Number(r.stdout.match(/peak rss (\d+) MB/)?.[1]);
    assert.ok(peak < 600, `peak RSS ${peak} MB (2 GB without the reporting)`);
  });

  it('handleSignals() beside the script’s own handler: it runs once and the process dies by the signal', async () => {
    const r = await runNode(script, ['signal-beside-own-handler']);
    assert.equal(r.signal, 'SIGTERM', `${r.stdout}\n${r.stderr}`);
    assert.equal(r.stdout.match(/^own handler/gm)?.length, 1, r.stdout);
    assert.ok(r.trace.some((e) => e.kind === 'finalize' && e.module === 'alpha' && e.reason === 'signal'));
  });

  it('handleSignals() refuses what it cannot handle, installing nothing', () => {
    const before = process.listenerCount('SIGTERM');
    for (const [signals, type] of [
      [['SIGKILL'], RangeError],
      [['SIGSTOP'], RangeError],
      [['SIGSEGV'], RangeError],
      [['SIGTERM', 'SIGNOPE'], TypeError],
      ['SIGTERM', TypeError],
      [[42], TypeError],
    ]) {
      assert.throws(
        () => handleSignals({ signals }),
        (e) => e instanceof type && e.argument === 'options.signals',
      );
      assert.equal(process.listenerCount('SIGTERM'), before);
    }
  });

  it('a releasable created during Registry.releaseAll() is released too; endless creation is bounded and reported', async () => {
    const r = await runNode(script, ['registry-reentrant']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^released 5 failures 0 live 0$/m);
    assert.match(r.stdout, /^all released true made 5$/m);
    // What the bound left stays registered, and the next releaseAll() reports it again.
    assert.match(r.stdout, /^forever failures 1 live 1$/m);
    assert.match(r.stdout, /^again failures 1 live 1$/m);
  });

  it('an object added twice is released once and leaves no entry (hostile-input core.Registry#1261501278)', async () => {
    const r = await runNode(script, ['registry-added-twice']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^added twice: released 2 failures 0 live 0$/m);
  });

  it('endless creation is reported by releaseAll() after a release that called releaseAll() itself (hostile-input core.Registry)', async () => {
    const r = await runNode(script, ['registry-reentrant-release']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^after a reentrant release: failures 1 live 1$/m);
    assert.match(r.stdout, /^cause: releases kept creating objects for 100 rounds; this one was left live$/m);
  });

  it('finalizeAsync({ timeoutMs: Infinity }) waits for its drains; bad timeouts are RangeErrors', async () => {
    const mod = defineModule({ name: 'drain-test' });
    let settled = false;
    mod.onDrain(
      'slow',
      () =>
        new Promise((resolve) =>
          setTimeout(() => {
            settled = true;
            resolve(true);
          }, 50),
        ),
    );
    await assert.rejects(mod.finalizeAsync({ timeoutMs: Number.NaN }), RangeError);
    await assert.rejects(mod.finalizeAsync({ timeoutMs: -1 }), RangeError);
    await assert.rejects(mod.finalizeAsync(7), TypeError);
    await mod.finalizeAsync({ timeoutMs: Number.POSITIVE_INFINITY });
    assert.equal(settled, true, 'the drain finished before finalize');
    assert.equal(mod.finalized, true);
  });

  it('readers: options read once, arrays copied before they are checked', () => {
    let reads = 0;
    const sneaky = {
      get min() {
        reads++;
        return reads === 1 ? [0, 0, 0] : [Number.NaN, 0, 0];
      },
      max: [1, 1, 1],
    };
    const box = readBox(sneaky, 'box');
    assert.deepEqual(box.min, [0, 0, 0]);
    assert.equal(reads, 1);
    const proxy = new Proxy({}, { get: (_, key) => (key === 'a' ? Math.random() : undefined) });
    const o = readOptions(proxy, 'o', ['a', 'b']);
    assert.equal(o.a, o.a);
    assert.throws(
      () => readBox({ min: [-1e308, 0, 0], max: [1e308, 1, 1] }, 'box'),
      (e) => e instanceof RangeError && e.argument === 'box' && e.index === 0,
    );
    const shared = new Float64Array(new SharedArrayBuffer(24));
    const copy = readFloat64Array(shared, 'points', { finite: true });
    assert.ok(!(copy.buffer instanceof SharedArrayBuffer));
    const detached = new Float64Array(8);
    structuredClone(detached.buffer, { transfer: [detached.buffer] });
    assert.throws(
      () => readFloat64Array(detached, 'points'),
      (e) => e instanceof TypeError && /detached/.test(e.message),
    );
    assert.throws(
      () => readFloat64Array(new Float32Array(3), 'points'),
      (e) => e instanceof TypeError && e.argument === 'points',
    );
    assert.throws(
      () => readFloat64Array([1, Number.NaN], 'points', { finite: true }),
      (e) => e instanceof RangeError && e.index === 1,
    );
  });
});
