// A distributed Lattice under `mpirun --oversubscribe -n 2` and `-n 4` on every exit path, each
// job bounded by a timeout: the job's status, no crash, and each rank's teardown trace — the
// lattice released before flow finalizes, flow finalized before the mpi module, then
// MPI_Finalize once (the job ends well) or MPI_Abort(code) (a rank ends with a non-zero status
// while the others wait for it inside run()), or nothing more on a signal.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { findCrash, findMpirun, mpiJob, transcript } from '@peclet/test-harness';

const here = import.meta.dirname ?? new URL('.', import.meta.url).pathname;
const fixtures = join(here, 'fixtures');
const built = existsSync(join(here, '..', '..', 'mpi', 'native', 'build', 'Release', 'mpi.node'));
const mpirun = findMpirun();
const skip = !mpirun
  ? 'no mpirun: install Open MPI (bash scripts/system-deps.sh installs openmpi-bin and libopenmpi-dev)'
  : !built
    ? "@peclet/mpi's addon was not built (no system MPI at build time)"
    : false;

// Each job takes a few seconds at most (an MPI_Abort or a signal ends the others within
// odls_base_sigkill_timeout, 2 s): far less than this unless a rank hangs.
const timeoutMs = 30_000;

/** mpirun -n `ranks` node mpi-ranks.mjs `how`: the job's result and each rank's output. */
async function job(ranks, how, options = {}) {
  const { result, perRank } = await mpiJob('mpi-ranks.mjs', [how], {
    ranks,
    mpirun,
    cwd: fixtures,
    timeoutMs,
    ...options,
  });
  assert.equal(result.hung, false, `the job outlived ${timeoutMs} ms\n${transcript(result)}`);
  assert.equal(findCrash(result), undefined, transcript(result));
  perRank.forEach((output, rank) => {
    assert.equal(findCrash(output), undefined, `rank ${rank}\n${transcript(output)}`);
  });
  return { result, perRank };
}

const lines = (text) =>
  text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));
const traceOf = (stderr) => stderr.split('\n').filter((l) => l.startsWith('peclet:'));

/**
 * What holds of every rank's trace, however the rank ended (a rank MPI_Abort killed may have
 * printed nothing): when mpi finalized, flow finalized before it, and every lattice was
 * released before flow finalized.
 */
function assertTrace(stderr, what) {
  const trace = traceOf(stderr);
  const mpi = trace.findIndex((l) => l.startsWith('peclet:mpi finalize '));
  const flow = trace.findIndex((l) => l.startsWith('peclet:flow finalize '));
  if (mpi >= 0) assert.ok(flow >= 0 && flow < mpi, `${what}: mpi finalized without flow before it\n${stderr}`);
  trace.forEach((line, i) => {
    if (line.startsWith('peclet:flow release Lattice')) {
      assert.ok(flow >= 0 && i < flow, `${what}: "${line}" not before flow's finalize\n${stderr}`);
    }
  });
}

/**
 * A rank that finalized: flow (`reason`), then mpi, the lattice released before, and `last`
 * (`MPI_Finalize`, `MPI_Abort(n)`) once, after both; or, without `last`, neither of those.
 */
function assertFinalized(stderr, { reason, last }, what) {
  assertTrace(stderr, what);
  const trace = traceOf(stderr);
  const flow = trace.findIndex((l) => l.startsWith(`peclet:flow finalize reason=${reason} `));
  const mpi = trace.findIndex((l) => l.startsWith(`peclet:mpi finalize reason=${reason} `));
  assert.ok(flow >= 0, `${what}: no flow finalize (${reason})\n${stderr}`);
  assert.ok(mpi > flow, `${what}: no mpi finalize (${reason}) after flow's\n${stderr}`);
  assert.ok(
    trace.some((l) => l.startsWith('peclet:flow release Lattice#')),
    `${what}: the lattice was not released\n${stderr}`,
  );
  const ends = trace.filter((l) => /^peclet:mpi (MPI_Finalize|MPI_Abort\(\d+\))$/.test(l));
  if (last === undefined) {
    assert.deepEqual(ends, [], `${what}: MPI ended on a signal\n${stderr}`);
    return;
  }
  assert.deepEqual(ends, [`peclet:mpi ${last}`], `${what}: not one ${last}\n${stderr}`);
  assert.ok(trace.indexOf(`peclet:mpi ${last}`) > mpi, `${what}: ${last} before the mpi finalize\n${stderr}`);
}

/** Every rank built its slab of the one lattice and took the same collective steps. */
function assertBuilt(perRank, ranks) {
  const results = perRank.map(({ stdout }, rank) => {
    const r = lines(stdout).find((l) => l.result);
    assert.ok(r, `rank ${rank} printed no result:\n${stdout}`);
    assert.deepEqual([r.rank, r.size], [rank, ranks]);
    assert.deepEqual(r.shape, [16, 12, 12], `rank ${rank}: the whole lattice's shape`);
    const { start, count } = r.slab;
    assert.deepEqual([start, count], [(rank * 16) / ranks, 16 / ranks], `rank ${rank}: its planes`);
    return r;
  });
  for (const r of results) {
    // Periodic: the fluid's mass (its 2292 nodes at density 1) is kept, and the sums reduced
    // across ranks are the same on every rank.
    assert.ok(Math.abs(r.mass - 2292) < 1e-9, `rank ${r.rank}: mass ${r.mass}`);
    assert.equal(r.steps, 20);
    assert.deepEqual(r.meanVelocity, results[0].meanVelocity, `rank ${r.rank}: mean velocity`);
  }
  assert.ok(results[0].meanVelocity[0] > 0, 'the body force drives the flow along axis 0');
}

describe('@peclet/flow: a distributed Lattice under mpirun on every exit path', { skip }, () => {
  for (const ranks of [2, 4]) {
    it(`-n ${ranks}: every rank ends naturally after run(): flow, then mpi, then one MPI_Finalize`, async () => {
      const { result, perRank } = await job(ranks, 'natural');
      assert.equal(result.status, 0, transcript(result));
      assertBuilt(perRank, ranks);
      const runs = perRank.map(({ stdout }) => lines(stdout).find((l) => l.ran !== undefined));
      runs.forEach((r, rank) => {
        assert.deepEqual([r?.ran, r?.steps], [rank, 100], `rank ${rank}: run()`);
      });
      assert.ok(
        runs.every((r) => r.flux === runs[0].flux),
        `flux(0) differs between ranks: ${runs.map((r) => r.flux)}`,
      );
      perRank.forEach(({ stderr }, rank) => {
        assertFinalized(stderr, { reason: 'exit', last: 'MPI_Finalize' }, `rank ${rank}`);
      });
    });

    it(`-n ${ranks}: process.exit(3) on the last rank while every rank is in run(): the job ends with 3`, async () => {
      const { result, perRank } = await job(ranks, 'exit3');
      assert.equal(result.status, 3, transcript(result));
      assertBuilt(perRank, ranks);
      assertFinalized(perRank[ranks - 1].stderr, { reason: 'exit', last: 'MPI_Abort(3)' }, 'the exiting rank');
      perRank.forEach(({ stdout, stderr }, rank) => {
        assertTrace(stderr, `rank ${rank}`);
        assert.ok(!lines(stdout).some((l) => l.returned !== undefined), `rank ${rank}: run() returned`);
      });
    });

    it(`-n ${ranks}: an error thrown on the last rank while every rank is in run(): the job ends with 1`, async () => {
      const { result, perRank } = await job(ranks, 'throw');
      assert.equal(result.status, 1, transcript(result));
      const { stderr } = perRank[ranks - 1];
      assert.match(stderr, new RegExp(`Error: rank ${ranks - 1} failed`));
      assertFinalized(stderr, { reason: 'exit', last: 'MPI_Abort(1)' }, 'the failing rank');
      perRank.forEach(({ stderr }, rank) => {
        assertTrace(stderr, `rank ${rank}`);
      });
    });

    it(`-n ${ranks}: SIGINT to mpirun with handleSignals while every rank is in run(): flow, then mpi, no MPI_Finalize`, async () => {
      const { result, perRank } = await job(ranks, 'sigint', { signalAfterMs: 200 });
      assert.notEqual(result.status, 0, `the job reported success after SIGINT\n${transcript(result)}`);
      perRank.forEach(({ stderr }, rank) => {
        assertFinalized(stderr, { reason: 'signal' }, `rank ${rank}`);
      });
    });

    it(`-n ${ranks}: finalize() of flow then of mpi: each once, in that order, and the job ends 0`, async () => {
      const { result, perRank } = await job(ranks, 'finalize');
      assert.equal(result.status, 0, transcript(result));
      assertBuilt(perRank, ranks);
      perRank.forEach(({ stdout, stderr }, rank) => {
        assert.ok(
          lines(stdout).some((l) => l.finalized === rank),
          `rank ${rank} did not finish\n${stdout}`,
        );
        assertFinalized(stderr, { reason: 'explicit', last: 'MPI_Finalize' }, `rank ${rank}`);
        assert.equal(traceOf(stderr).filter((l) => l.startsWith('peclet:flow finalize')).length, 1);
      });
    });

    it(`-n ${ranks}: finalize() of mpi first takes flow with it; the lattice then throws ReleasedError`, async () => {
      const { result, perRank } = await job(ranks, 'finalize-reverse');
      assert.equal(result.status, 0, transcript(result));
      perRank.forEach(({ stdout, stderr }, rank) => {
        const printed = lines(stdout);
        const velocity = printed.find((l) => l.velocity !== undefined);
        const step = printed.find((l) => l.step !== undefined);
        assert.equal(
          velocity?.velocity,
          'ReleasedError',
          `rank ${rank}: lattice.velocity after mpi's finalize\n${stdout}`,
        );
        assert.match(velocity.message, /Lattice#\d+ of module flow was released by finalize\(\)/);
        assert.equal(step?.step, 'ReleasedError', `rank ${rank}: lattice.step(1) after mpi's finalize\n${stdout}`);
        assert.ok(
          printed.some((l) => l.finalized === rank),
          `rank ${rank} did not finish\n${stdout}`,
        );
        assertFinalized(stderr, { reason: 'explicit', last: 'MPI_Finalize' }, `rank ${rank}`);
      });
    });
  }
});
