// An MPI job of Node ranks under Open MPI's mpirun, for the tests of the packages that run over
// MPI (@peclet/mpi and the solvers that take its module). mpirun interleaves the ranks' output
// on its own streams, so each rank's stdout and stderr are read back from the files that
// `--output-filename` writes, one pair per rank: a rank's teardown trace stays in order and
// whole even when another rank ends it with MPI_Abort.

import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from './index.mjs';

/**
 * The environment of every MPI test job: root may run mpirun (CI containers run as root), ranks
 * get 2 s between the SIGTERM that ends a job and the SIGKILL, so that `handleSignals` can
 * finalize them, and each rank prints its teardown trace.
 */
export const mpiEnv = Object.freeze({
  OMPI_ALLOW_RUN_AS_ROOT: '1',
  OMPI_ALLOW_RUN_AS_ROOT_CONFIRM: '1',
  OMPI_MCA_odls_base_sigkill_timeout: '2',
  PECLET_TEARDOWN_TRACE: '1',
});

/** Where Debian's openmpi-bin and a source build put mpirun. */
const mpirunPaths = ['/usr/bin/mpirun', '/usr/local/bin/mpirun'];

/**
 * The first of `candidates` that exists (default `/usr/bin/mpirun`, `/usr/local/bin/mpirun`),
 * or undefined: a test skips its MPI jobs then. A fixed list, not PATH, because the options
 * {@link mpiJob} passes are Open MPI's, and the system's Open MPI is the one the addon is
 * built against.
 */
export function findMpirun(candidates = mpirunPaths) {
  return candidates.find((p) => existsSync(p));
}

/** Grace between the SIGTERM of a timed-out job and the SIGKILL: mpirun ends its ranks meanwhile. */
const killGraceMs = 5_000;

/**
 * Runs `mpirun --oversubscribe --output-filename <dir> -n <ranks> node <script> <args>` and
 * resolves with `{ result, perRank, outputDir }`; never rejects once started.
 *
 * - `result` is mpirun's `{ status, signal, stdout, stderr, hung }`, as {@link run} gives it;
 * - `perRank[r]` is `{ stdout, stderr }` of rank `r`, read from `<dir>/1/rank.<r>/stdout` and
 *   `stderr` (empty when the rank wrote nothing);
 * - `env` is added to this process's environment after {@link mpiEnv};
 * - `outputDir` is the `--output-filename` directory; without it a temporary one is made and
 *   removed once read;
 * - `signalAfterMs`: SIGINT to mpirun that long after every rank printed a line matching
 *   `waiting` (default: a JSON line with a `"waiting"` key), as a user's Ctrl-C reaches it;
 * - a job that outlives `timeoutMs` is reported as `hung`: mpirun gets SIGTERM, which it
 *   forwards to the ranks, and SIGKILL 5 s later, so that no rank outlives the test.
 *
 * @example
 * ```js
 * const mpirun = findMpirun();
 * const { result, perRank } = await mpiJob('ranks.mjs', ['natural'], { ranks: 4, mpirun, cwd: fixtures });
 * assert.equal(result.status, 0, transcript(result));
 * perRank.forEach(({ stderr }) => assert.match(stderr, /^peclet:mpi MPI_Finalize$/m));
 * ```
 */
export async function mpiJob(
  script,
  args = [],
  {
    ranks,
    mpirun = findMpirun(),
    node = process.execPath,
    cwd,
    env = {},
    outputDir,
    timeoutMs = 120_000,
    signalAfterMs,
    waiting = /"waiting"/g,
  } = {},
) {
  if (!Number.isInteger(ranks) || ranks < 1)
    throw new RangeError(`mpiJob: ranks must be a positive integer, got ${ranks}`);
  if (typeof mpirun !== 'string') throw new TypeError('mpiJob: no mpirun (install openmpi-bin, or pass its path)');
  const temporary = outputDir === undefined;
  const out = outputDir ?? mkdtempSync(join(tmpdir(), 'peclet-mpi-job-'));
  const argv = ['--oversubscribe', '--output-filename', out, '-n', String(ranks), node, script, ...args];
  const counter = new RegExp(waiting.source, waiting.flags.includes('g') ? waiting.flags : `${waiting.flags}g`);
  // SIGINT once every rank said it is waiting: polled, not matched per chunk, since a rank's
  // line may arrive split across chunks.
  const watch =
    signalAfterMs === undefined
      ? undefined
      : (child, stdout) => {
          let interrupt;
          const poll = setInterval(() => {
            if ((stdout().match(counter) ?? []).length >= ranks) {
              clearInterval(poll);
              interrupt = setTimeout(() => child.kill('SIGINT'), signalAfterMs);
            }
          }, 50);
          return () => {
            clearInterval(poll);
            clearTimeout(interrupt);
          };
        };
  const result = await run(mpirun, argv, { cwd, env: { ...mpiEnv, ...env }, timeoutMs, killGraceMs, watch });
  const read = (rank, stream) => {
    const file = join(out, '1', `rank.${rank}`, stream);
    return existsSync(file) ? readFileSync(file, 'utf8') : '';
  };
  const perRank = Array.from({ length: ranks }, (_, rank) => ({
    stdout: read(rank, 'stdout'),
    stderr: read(rank, 'stderr'),
  }));
  if (temporary) rmSync(out, { recursive: true, force: true });
  return { result, perRank, outputDir: temporary ? undefined : out };
}
