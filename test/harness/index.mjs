// The one child-process runner of peclet's tests and the one list of what a
// crash looks like. Every test that runs a child (core's exit tests, the exit
// matrix, the hostile-input generator) goes through `run` and judges the
// output against `crashSignature`, so a new runtime's crash banner is added
// in one place. MPI jobs (mpirun and its ranks) go through `mpiJob`.

import { spawn } from 'node:child_process';

/** Output that means a crash or a broken teardown contract, on any runtime (Node, Bun, Deno, sanitizers). */
export const crashSignature =
  /Segmentation fault|SIGSEGV|SIGABRT|SIGTRAP|SIGBUS|FATAL ERROR|Fatal error|terminate called|after finalize|AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error:|Aborted|core dumped|pure virtual|panicked at|Bun has crashed|oh no: Bun/;

/** Signals that mean a crash whatever a test asked for. */
export const crashSignals = new Set(['SIGSEGV', 'SIGABRT', 'SIGTRAP', 'SIGBUS', 'SIGILL', 'SIGFPE']);

/** The first crash signature in a result's stderr or stdout, or undefined. */
export function findCrash(result) {
  return (result.stderr.match(crashSignature) ?? result.stdout.match(crashSignature))?.[0];
}

/**
 * Runs `command args` and resolves with `{ status, signal, stdout, stderr, hung }`; never rejects.
 *
 * - `env` is added to this process's environment, after `PECLET_TEARDOWN_TRACE=1` (pass
 *   `PECLET_TEARDOWN_TRACE: ''` to turn the trace off);
 * - a child that outlives `timeoutMs` is killed with SIGKILL and reported as `hung`; with
 *   `killGraceMs` it gets SIGTERM first and SIGKILL that much later (a launcher such as mpirun
 *   ends its own children on SIGTERM);
 * - `watch(child, stdout)` is called once the child started (`stdout()` is its output so far)
 *   and may return a function called when it ends: to signal it once it printed something.
 * - `memoryLimitKiB` runs it under `ulimit -v` (through `sh -c`), so that an allocation the
 *   child cannot satisfy fails inside it instead of exhausting the machine.
 *
 * @example
 * ```js
 * const result = await run(process.execPath, ['child.mjs', '7'], { timeoutMs: 20_000, memoryLimitKiB: 4 << 20 });
 * if (result.hung || result.signal || findCrash(result)) console.log(transcript(result));
 * ```
 */
export function run(
  command,
  args = [],
  { env = {}, timeoutMs = 60_000, cwd, memoryLimitKiB, killGraceMs, watch } = {},
) {
  let file = command;
  let argv = args;
  if (memoryLimitKiB !== undefined) {
    if (!Number.isInteger(memoryLimitKiB) || memoryLimitKiB <= 0) {
      throw new RangeError(`run: memoryLimitKiB must be a positive integer, got ${memoryLimitKiB}`);
    }
    // `exec` keeps the child's pid, so a timeout's SIGKILL reaches it and its signal is reported.
    file = '/bin/sh';
    argv = ['-c', `ulimit -v ${memoryLimitKiB} && exec "$0" "$@"`, command, ...args];
  }
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let hung = false;
    let child;
    try {
      child = spawn(file, argv, {
        cwd,
        env: { ...process.env, PECLET_TEARDOWN_TRACE: '1', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (error) {
      resolve({ status: null, signal: null, stdout, stderr: `spawn failed: ${error.message}`, hung });
      return;
    }
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    let killer;
    const timer = setTimeout(() => {
      hung = true;
      if (killGraceMs === undefined) child.kill('SIGKILL');
      else {
        child.kill('SIGTERM');
        killer = setTimeout(() => child.kill('SIGKILL'), killGraceMs);
      }
    }, timeoutMs);
    const unwatch = watch?.(child, () => stdout);
    child.on('error', (error) => {
      stderr += `\nspawn failed: ${error.message}`;
    });
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      clearTimeout(killer);
      unwatch?.();
      resolve({ status, signal, stdout, stderr, hung });
    });
  });
}

/**
 * The teardown trace (`PECLET_TEARDOWN_TRACE=1`):
 * `peclet:<module> release <Class>#<id>` → `{ kind: 'release', module, object }` and
 * `peclet:<module> finalize reason=<r> released=<n> live-bytes=<b>` →
 * `{ kind: 'finalize', module, reason, released, liveBytes }`.
 */
export function parseTrace(stderr) {
  const events = [];
  for (const line of stderr.split('\n')) {
    let m = line.match(/^peclet:(\S+) release (\S+#\d+)$/);
    if (m) {
      events.push({ kind: 'release', module: m[1], object: m[2] });
      continue;
    }
    m = line.match(/^peclet:(\S+) finalize reason=(\S+) released=(\d+) live-bytes=(\d+)$/);
    if (m) {
      events.push({ kind: 'finalize', module: m[1], reason: m[2], released: Number(m[3]), liveBytes: Number(m[4]) });
    }
  }
  return events;
}

/**
 * What a child says it made: `created <module> <Class>#<id>`, optionally followed by
 * `<main|worker> <native|js>` → `{ module, object, env, kind }` (`env`, `kind` undefined when absent).
 */
export function parseCreated(stdout) {
  return [...stdout.matchAll(/^created (\S+) (\S+#\d+)(?: (main|worker) (native|js))?$/gm)].map((m) => ({
    module: m[1],
    object: m[2],
    env: m[3],
    kind: m[4],
  }));
}

/** `exit 5`, `SIGTERM`, `hung` — how a child ended, as a results table shows it. */
export function describeEnd(result) {
  if (result.hung) return 'hung';
  if (result.signal) return result.signal;
  return `exit ${result.status}`;
}

/** The child's output, for a failure message. */
export function transcript(result) {
  return `--- stdout ---\n${result.stdout}\n--- stderr ---\n${result.stderr}`;
}

/** Runs async jobs (functions returning promises) with at most `limit` in flight; results keep the jobs' order. */
export async function inParallel(jobs, limit) {
  const results = new Array(jobs.length);
  let next = 0;
  const lane = async () => {
    while (next < jobs.length) {
      const i = next++;
      results[i] = await jobs[i]();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, jobs.length) }, lane));
  return results;
}
export { findMpirun, mpiEnv, mpiJob } from './mpi.mjs';
export { random } from './random.mjs';
