// The kernel's own costs, each beside its reference measured in the same run:
//   1. registering an object: Particle (kernel) vs PlainParticle (same object
//      without the kernel), ratio of time per construction (target <= 1.15x);
//   2. finalize() with 10^6 live native objects (target < 0.3 s);
//   3. added exit latency of a script with 10^5 live objects (target < 50 ms):
//      kernel objects vs plain objects, from the script's last statement to
//      the process's exit as seen by the parent;
//   4. a zero-copy getter (PecletModule.zeroCopyView over a Field's values):
//      repeated reads beside reading the array kept in a variable (target
//      <= 2x), the first read after the view was invalidated, and the native
//      getter alone (a new view per read, as every getter was before).
// Figures only, no asserts: speed is measured here, never in tests.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { load } from '../test/fixtures/addons.mjs';

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const { native, mod } = load('alpha');

// 1. Registration overhead. Objects are kept until the round ends, as a user
// holding them would; a warm-up round takes first-touch and JIT out of it.
function constructRound(Class, n) {
  const keep = new Array(n);
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) keep[i] = new Class(i);
  const t1 = process.hrtime.bigint();
  return Number(t1 - t0) / n;
}
const n = 200_000;
constructRound(native.Particle, n);
constructRound(native.PlainParticle, n);
const kernelNs = [];
const plainNs = [];
for (let round = 0; round < 7; round++) {
  globalThis.gc?.();
  plainNs.push(constructRound(native.PlainParticle, n));
  globalThis.gc?.();
  kernelNs.push(constructRound(native.Particle, n));
}
const kernelPer = median(kernelNs);
const plainPer = median(plainNs);

// 2. finalize() with 10^6 live objects.
const live = new Array(1_000_000);
for (let i = 0; i < live.length; i++) live[i] = new native.Particle(i);
const t0 = process.hrtime.bigint();
mod.finalize();
const finalizeSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
const allReleased = live.every((p) => p.released);

// 3. Exit latency.
function exitLatency(kind, count) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [fileURLToPath(new URL('./exit-child.mjs', import.meta.url)), kind, String(count)],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
        env: { ...process.env, PECLET_TEARDOWN_TRACE: '0' },
      },
    );
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.on('exit', (code) => {
      const end = performance.timeOrigin + performance.now();
      if (code !== 0) reject(new Error(`exit child failed: ${code}`));
      else resolve(end - Number(out.trim()));
    });
  });
}
const kernelExit = [];
const plainExit = [];
for (let i = 0; i < 7; i++) {
  plainExit.push(await exitLatency('plain', 100_000));
  kernelExit.push(await exitLatency('kernel', 100_000));
}
const kernelMs = median(kernelExit);
const plainMs = median(plainExit);

// 4. Zero-copy getters: ns per element read in a loop of 10^7 (median of 7), on the addon's
// other module (alpha was finalized above).
const beta = load('beta');
const field = new beta.native.Field(1000);
const n4 = field.values.length;
const cachedGetter = beta.mod.zeroCopyView(() => field.values);
const reads = 10_000_000;
const perRead = (loop) => {
  loop(reads / 10); // warm-up
  const times = [];
  for (let round = 0; round < 7; round++) {
    const t0 = process.hrtime.bigint();
    loop(reads);
    times.push(Number(process.hrtime.bigint() - t0) / reads);
  }
  return median(times);
};
const kept = field.values;
const variableNs = perRead((count) => {
  let s = 0;
  for (let i = 0; i < count; i++) s += kept[i % n4];
  return s;
});
const repeatedNs = perRead((count) => {
  let s = 0;
  for (let i = 0; i < count; i++) s += cachedGetter()[i % n4];
  return s;
});
// A read after invalidation: the getter holds nothing (a new one each time), so the read goes
// to the native getter and keeps what it made.
const invalidatedNs =
  perRead((count) => {
    let s = 0;
    for (let i = 0; i < count / 100; i++) s += beta.mod.zeroCopyView(() => field.values)()[i % n4];
    return s;
  }) * 100;
const nativeNs =
  perRead((count) => {
    let s = 0;
    for (let i = 0; i < count / 100; i++) s += field.values[i % n4];
    return s;
  }) * 100;
field.release();

const row = (what, ours, reference, ratio, target) =>
  console.log(`${what.padEnd(44)} ${ours.padStart(14)} ${reference.padStart(14)} ${ratio.padStart(10)}   ${target}`);
console.log(`@peclet/core kernel benchmark (node ${process.version}, median of 7 unless noted)`);
row('measure', 'kernel', 'reference', 'ratio', 'target');
row(
  'construct + register one object',
  `${kernelPer.toFixed(0)} ns`,
  `${plainPer.toFixed(0)} ns`,
  `${(kernelPer / plainPer).toFixed(3)}x`,
  '<= 1.15x',
);
row('finalize() with 1e6 live objects (1 run)', `${finalizeSeconds.toFixed(3)} s`, '-', '-', '< 0.3 s');
row(
  'exit latency, 1e5 live objects',
  `${kernelMs.toFixed(1)} ms`,
  `${plainMs.toFixed(1)} ms`,
  `+${(kernelMs - plainMs).toFixed(1)} ms`,
  '< 50 ms added',
);
row(
  'zero-copy getter, repeated read',
  `${repeatedNs.toFixed(1)} ns`,
  `${variableNs.toFixed(1)} ns`,
  `${(repeatedNs / variableNs).toFixed(2)}x`,
  '<= 2x of a kept variable',
);
row('zero-copy getter, first read after invalidation', `${invalidatedNs.toFixed(0)} ns`, '-', '-', '-');
row(
  'native getter alone (a new view per read)',
  `${nativeNs.toFixed(0)} ns`,
  `${variableNs.toFixed(1)} ns`,
  `${(nativeNs / variableNs).toFixed(0)}x`,
  '-',
);
if (!allReleased) console.log('warning: not every object reported released after finalize()');
