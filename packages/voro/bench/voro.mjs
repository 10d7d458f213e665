// Tessellation speed beside voro++ on the same points, in the same run.
//
//   pnpm --filter @peclet/voro bench            # 1e5 and 1e6 points
//   node bench/voro.mjs 100000                  # one size
//
// First, the cost of one small call (200 points, walled): ours is the median of many
// `tessellate()` + `release()` through the public API (argument reading, copies, the object,
// its arrays); voro++'s is the median of its own timer over as many runs of the harness
// (container setup and every cell, without process start and file I/O).
//
// Ours is timed through the public API as `update()` of a tessellation that
// was computed once before: its buffers are sized and touched, so first touch
// of fresh memory (slow on these machines) stays out of the timed region.
// voro++ (Debian's voro++-dev) runs in a child process on the same points
// and reports its own time for container setup plus every cell (volume and
// neighbours); with 2 threads each thread owns a container and every other cell.
import { cpus } from 'node:os';
import { tessellate } from '../dist/index.js';
import { runReference } from '../reference/voropp.mjs';
import { randomPoints } from '../test/random.mjs';

const sizes = process.argv.length > 2 ? process.argv.slice(2).map(Number) : [100_000, 1_000_000];
const box = { min: [0, 0, 0], max: [1, 1, 1] };
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

console.log(`@peclet/voro benchmark: random points in a unit cube, volume + neighbours (${cpus()[0]?.model ?? 'cpu'})`);
console.log('first touch is outside the timed region (ours: update() of a warm tessellation; voro++: its own timer)');
const smallPoints = randomPoints(200, 777);
{
  const calls = 400;
  for (let i = 0; i < 50; i++) tessellate(smallPoints, { box }).release();
  const ours = [];
  for (let i = 0; i < calls; i++) {
    const t0 = process.hrtime.bigint();
    tessellate(smallPoints, { box }).release();
    ours.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  const theirs = [];
  for (let i = 0; i < 41; i++) theirs.push(runReference(smallPoints, { box, results: false }).seconds * 1e3);
  const a = median(ours);
  const b = median(theirs);
  console.log(
    `small call, 200 points walled: ours ${a.toFixed(3)} ms (median of ${calls}), voro++ ${b.toFixed(3)} ms (median of ${theirs.length}), ratio ${(a / b).toFixed(2)}x`,
  );
}
console.log(
  `${'points'.padStart(9)} ${'box'.padEnd(9)} ${'threads'.padStart(7)} ${'ours cells/s'.padStart(13)} ${'voro++ cells/s'.padStart(15)} ${'ratio'.padStart(7)} ${'bytes/cell'.padStart(11)}`,
);
const oursPerThreads = {};
for (const n of sizes) {
  const repeats = n >= 1_000_000 ? 1 : 3;
  const points = randomPoints(n, 12345);
  for (const periodic of [false, true]) {
    for (const threads of [1, 2]) {
      const t = tessellate(points, { box, periodic: [periodic, periodic, periodic], threads });
      const ours = [];
      for (let r = 0; r < repeats; r++) {
        const t0 = process.hrtime.bigint();
        t.update(points);
        ours.push(Number(process.hrtime.bigint() - t0) / 1e9);
      }
      const bytesPerCell = t.stats().memoryBytes / n;
      t.release();
      const theirs = [];
      for (let r = 0; r < repeats; r++) {
        theirs.push(
          runReference(points, { box, periodic: [periodic, periodic, periodic], threads, results: false }).seconds,
        );
      }
      const oursRate = n / median(ours);
      const theirRate = n / median(theirs);
      oursPerThreads[`${n}-${periodic}-${threads}`] = oursRate;
      console.log(
        `${String(n).padStart(9)} ${(periodic ? 'periodic' : 'walled').padEnd(9)} ${String(threads).padStart(7)} ${oursRate.toExponential(3).padStart(13)} ${theirRate.toExponential(3).padStart(15)} ${(oursRate / theirRate).toFixed(2).padStart(6)}x ${bytesPerCell.toFixed(0).padStart(11)}`,
      );
    }
  }
}
for (const n of sizes) {
  for (const periodic of [false, true]) {
    const s = oursPerThreads[`${n}-${periodic}-2`] / oursPerThreads[`${n}-${periodic}-1`];
    console.log(`speed-up 1 -> 2 threads, ${n} points, ${periodic ? 'periodic' : 'walled'}: ${s.toFixed(2)}x`);
  }
}
console.log(
  `median of ${sizes.some((n) => n < 1_000_000) ? '3 (1e5) / 1 (1e6)' : '1'} runs; load average ${(await import('node:os')).loadavg()[0].toFixed(2)}`,
);
