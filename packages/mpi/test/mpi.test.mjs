// @peclet/mpi under `mpirun --oversubscribe -n 2` and `-n 4` on every exit path, each run
// bounded by a timeout: the job's status, each rank's results, and each rank's teardown trace
// (voro's objects released and voro finalized before the mpi module, then MPI_Finalize, or
// MPI_Abort(code) when the rank ends with a non-zero status). Then one rank without mpirun
// for the argument checks and errors.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { findCrash, findMpirun, mpiEnv, mpiJob, run, transcript } from '@peclet/test-harness';

const here = dirname(fileURLToPath(import.meta.url));
const fixtures = join(here, 'fixtures');
const built = existsSync(join(here, '..', 'native', 'build', 'Release', 'mpi.node'));
const mpirun = findMpirun();
const skip = !mpirun
  ? 'no mpirun: install Open MPI (bash scripts/system-deps.sh installs openmpi-bin and libopenmpi-dev)'
  : !built
    ? 'the addon was not built (no system MPI at build time)'
    : false;

const scratch = mkdtempSync(join(tmpdir(), 'peclet-mpi-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

let runs = 0;
/**
 * mpirun -n `ranks` node ranks.mjs `how`; the job's result and each rank's stdout and stderr.
 * With `signalAfterMs`, SIGINT to mpirun once every rank said it is waiting.
 */
async function job(ranks, how, { env = {}, signalAfterMs } = {}) {
  const out = join(scratch, `run-${++runs}`);
  const timeoutMs = signalAfterMs === undefined ? 120_000 : 60_000;
  const { result, perRank } = await mpiJob('ranks.mjs', [how], {
    ranks,
    mpirun,
    cwd: fixtures,
    env,
    outputDir: out,
    timeoutMs,
    signalAfterMs,
  });
  return { result, perRank, out };
}

const lines = (text) =>
  text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));
const traceOf = (stderr) => stderr.split('\n').filter((l) => l.startsWith('peclet:'));

/** voro finalized before the mpi module, and `last` (MPI_Finalize or MPI_Abort(n)) after both. */
function assertOrder(stderr, { reason, last }, what) {
  const trace = traceOf(stderr);
  const voro = trace.findIndex((l) => l.startsWith(`peclet:voro finalize reason=${reason}`));
  const mpi = trace.findIndex((l) => l.startsWith(`peclet:mpi finalize reason=${reason}`));
  assert.ok(voro >= 0, `${what}: no voro finalize (${reason})\n${stderr}`);
  assert.ok(mpi > voro, `${what}: mpi finalized before voro\n${stderr}`);
  if (last !== undefined) {
    const end = trace.indexOf(`peclet:mpi ${last}`);
    assert.ok(end > mpi, `${what}: no ${last} after the mpi finalize\n${stderr}`);
  }
  const release = trace.findIndex((l) => l.startsWith('peclet:voro release Tessellation'));
  if (release >= 0) assert.ok(release < voro, `${what}: a release after voro's finalize\n${stderr}`);
}

function assertResults(perRank, size) {
  perRank.forEach(({ stdout }, rank) => {
    const r = lines(stdout).find((l) => l.result);
    assert.ok(r, `rank ${rank} printed no result:\n${stdout}`);
    assert.deepEqual(r.sum, [(size * (size - 1)) / 2, size], `rank ${rank}: allreduce sum`);
    assert.equal(r.max, size - 1, `rank ${rank}: allreduce max`);
    const left = (rank + size - 1) % size;
    assert.deepEqual(r.got.slice(0, 3), [left, left * 2, left * 3], `rank ${rank}: sendrecv from the left`);
    assert.ok(Math.abs(r.got[3] - 1) < 1e-12, `rank ${rank}: the left rank's cells fill its box (${r.got[3]})`);
    assert.deepEqual(r.status, { source: left, tag: 7, count: 4 });
  });
}

describe('@peclet/mpi under mpirun', { skip }, () => {
  for (const ranks of [2, 4]) {
    it(`-n ${ranks}: every rank ends naturally; voro, then mpi, then MPI_Finalize on each`, async () => {
      const { result, perRank } = await job(ranks, 'natural');
      assert.equal(result.status, 0, transcript(result));
      assert.equal(findCrash(result), undefined);
      assertResults(perRank, ranks);
      perRank.forEach(({ stderr }, rank) => {
        assertOrder(stderr, { reason: 'exit', last: 'MPI_Finalize' }, `rank ${rank}`);
      });
    });

    it(`-n ${ranks}: the last rank calls process.exit(3) while the others wait: the job ends with 3`, async () => {
      const { result, perRank } = await job(ranks, 'exit3');
      assert.equal(result.status, 3, transcript(result));
      assertOrder(perRank[ranks - 1].stderr, { reason: 'exit', last: 'MPI_Abort(3)' }, 'the exiting rank');
    });

    it(`-n ${ranks}: an uncaught error on the last rank ends the job with 1`, async () => {
      const { result, perRank } = await job(ranks, 'throw');
      assert.equal(result.status, 1, transcript(result));
      const { stderr } = perRank[ranks - 1];
      assert.match(stderr, new RegExp(`Error: rank ${ranks - 1} failed`));
      assertOrder(stderr, { reason: 'exit', last: 'MPI_Abort(1)' }, 'the failing rank');
    });
  }

  it('-n 2: process.exitCode = 4 on rank 0 ends the job with 4 (MPI_Abort, not a wait)', async () => {
    const { result, perRank } = await job(2, 'exitCode');
    assert.equal(result.status, 4, transcript(result));
    assertOrder(perRank[0].stderr, { reason: 'exit', last: 'MPI_Abort(4)' }, 'rank 0');
  });

  it('-n 4: abort(5) on rank 0 finalizes its modules, then ends every rank with 5', async () => {
    const { result, perRank } = await job(4, 'abort');
    assert.equal(result.status, 5, transcript(result));
    assertOrder(perRank[0].stderr, { reason: 'exit', last: 'MPI_Abort(5)' }, 'rank 0');
  });

  it('-n 2: SIGINT to mpirun with handleSignals: every rank finalizes voro, then mpi, and the job ends', async () => {
    const { result, perRank } = await job(2, 'idle', { env: { PECLET_TEST_HANDLE_SIGNALS: '1' }, signalAfterMs: 200 });
    assert.notEqual(result.status, 0, 'the job reported success after SIGINT');
    perRank.forEach(({ stderr }, rank) => {
      assertOrder(stderr, { reason: 'signal' }, `rank ${rank}`);
      assert.doesNotMatch(stderr, /MPI_Finalize/, `rank ${rank}: MPI_Finalize on a signal`);
    });
  });

  it('-n 2: SIGINT to mpirun while every rank blocks in MPI_Recv: the job still ends', async () => {
    const { result } = await job(2, 'hang', { signalAfterMs: 500 });
    assert.notEqual(result.status, 0);
  });

  it('-n 4: finalize() of voro then of mpi: both once, in that order, and the job ends 0', async () => {
    const { result, perRank } = await job(4, 'finalize');
    assert.equal(result.status, 0, transcript(result));
    perRank.forEach(({ stdout, stderr }, rank) => {
      assert.ok(
        lines(stdout).some((l) => l.finalized === rank),
        `rank ${rank} did not finish`,
      );
      assertOrder(stderr, { reason: 'explicit', last: 'MPI_Finalize' }, `rank ${rank}`);
      assert.equal(traceOf(stderr).filter((l) => l === 'peclet:mpi MPI_Finalize').length, 1);
    });
  });

  it('-n 2: finalize() of mpi first takes voro with it; voro then throws ReleasedError, not a crash', async () => {
    const { result, perRank } = await job(2, 'finalize-reverse');
    assert.equal(result.status, 0, transcript(result));
    perRank.forEach(({ stdout, stderr }, rank) => {
      const printed = lines(stdout);
      assert.ok(
        printed.some((l) => l.stale === 'ReleasedError'),
        `rank ${rank}: a voro object after mpi's finalize\n${stdout}`,
      );
      assert.ok(
        printed.some((l) => l.after === 'ReleasedError'),
        `rank ${rank}: barrier() after finalize`,
      );
      assertOrder(stderr, { reason: 'explicit', last: 'MPI_Finalize' }, `rank ${rank}`);
    });
  });
});

/** single.mjs `how` in one process (MPI's singleton start); its one JSON line. */
async function single(how, env = {}) {
  const result = await run(process.execPath, ['single.mjs', how], { cwd: fixtures, env: { ...mpiEnv, ...env } });
  assert.equal(result.status, 0, transcript(result));
  assert.equal(findCrash(result), undefined);
  return lines(result.stdout)[0];
}

describe('@peclet/mpi arguments and errors (one rank)', { skip }, () => {
  it('nothing works before init(), and init() reads its options', async () => {
    const before = await single('before-init');
    assert.equal(before.initialized, false);
    assert.match(before.rank.message, /rank\(\): MPI is not initialized; call init\(\) first/);
    const bad = await single('bad-init');
    assert.deepEqual([bad.level.name, bad.level.argument], ['TypeError', 'options.threadLevel']);
    assert.deepEqual([bad.options.name, bad.options.argument], ['TypeError', 'options']);
    assert.equal(bad.initialized, false);
  });

  it('names the argument at fault and goes on', async () => {
    const r = await single('arguments');
    assert.deepEqual(r.first, { rank: 0, size: 1, threadLevel: 'funneled' });
    assert.match(r.again.message, /already initialized/);
    for (const [key, name, argument] of [
      ['dest', 'RangeError', 'dest'],
      ['destNegative', 'RangeError', 'dest'],
      ['destFraction', 'RangeError', 'dest'],
      ['dataView', 'TypeError', 'values'],
      ['array', 'TypeError', 'values'],
      ['detached', 'TypeError', 'values'],
      ['op', 'TypeError', 'op'],
      ['tag', 'RangeError', 'options.tag'],
      ['tagHigh', 'RangeError', 'options.tag'],
      ['overlap', 'RangeError', 'into'],
      ['source', 'RangeError', 'source'],
    ]) {
      assert.deepEqual([r[key].ok, r[key].name, r[key].argument], [false, name, argument], key);
    }
    assert.match(r.truncated.message, /MPI_Recv failed: MPI_ERR_TRUNCATE/);
    assert.deepEqual(r.self.value, { status: { source: 0, tag: 6, count: 2 }, into: [7, 8, 0, 0] });
    assert.deepEqual(r.sum.value, ['3', '4']);
    assert.equal(r.alive.value, 0);
  });

  it('after finalize(): ReleasedError, and MPI cannot start again', async () => {
    const r = await single('after-finalize');
    assert.equal(r.rank.name, 'ReleasedError');
    assert.equal(r.init.name, 'ReleasedError');
    assert.equal(r.initialized, false);
  });

  it('init() in a worker thread is refused', async () => {
    const r = await single('worker');
    assert.match(r.worker, /initialize it on the main thread/);
  });

  it('without the addon: the loader error names the Debian packages to install', async () => {
    const r = await single('missing', { PECLET_MPI_BINARY: join(scratch, 'missing.node') });
    assert.equal(r.init.code, 'PECLET_ADDON_NOT_LOADED');
    assert.match(r.init.message, /apt-get install openmpi-bin libopenmpi-dev/);
  });
});
