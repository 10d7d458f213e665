// Runs one case in a child and judges it: the child's status (0, or the signal the plan
// expects), no crash signal or signature, no hang, the result line present, and no problem
// recorded by the child (a disallowed error, a state changed by a failed call, NaN in a
// result, a broken invariant).

import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crashSignals, describeEnd, findCrash, run } from '@peclet/test-harness';
import { parseCaseId, plan as planOf } from './cases.mjs';
import { RESULT_PREFIX } from './check.mjs';

export const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const child = join(packageRoot, 'child.mjs');

/** Seconds a case may take before it is a hang. */
export const caseTimeoutMs = 20_000;

/** Runs the case `id` (`target#n`); resolves with `{ id, plan, result, report, problems }`. */
export async function runCase(id) {
  const { target, n } = parseCaseId(id);
  const plan = planOf(target, n);
  const started = performance.now();
  const result = await run(process.execPath, ['--expose-gc', child, id], {
    cwd: packageRoot,
    timeoutMs: caseTimeoutMs,
    memoryLimitKiB: plan.memoryLimitKiB,
    // MPI's singleton start (mpi's targets, flow over MPI) as root too, as the MPI tests run it.
    env: {
      PECLET_TEARDOWN_TRACE: '',
      PECLET_FINALIZE_TIMEOUT_MS: '5000',
      OMPI_ALLOW_RUN_AS_ROOT: '1',
      OMPI_ALLOW_RUN_AS_ROOT_CONFIRM: '1',
    },
  });
  const line = result.stdout.split('\n').find((l) => l.startsWith(RESULT_PREFIX));
  let report;
  try {
    report = line ? JSON.parse(line.slice(RESULT_PREFIX.length)) : undefined;
  } catch {
    report = undefined;
  }
  const problems = [];
  if (result.hung) problems.push(`hung (killed after ${caseTimeoutMs / 1000} s)`);
  if (result.signal !== null && crashSignals.has(result.signal)) problems.push(`crashed by ${result.signal}`);
  const expect = plan.expect ?? { status: 0 };
  if (!result.hung) {
    if (expect.signal) {
      if (result.signal !== expect.signal)
        problems.push(`expected death by ${expect.signal}, got ${describeEnd(result)}`);
    } else if (result.signal !== null || result.status !== expect.status) {
      const tail = result.stderr.trim().split('\n').slice(-3).join(' | ').slice(0, 400);
      problems.push(`expected exit ${expect.status}, got ${describeEnd(result)}${tail ? `: ${tail}` : ''}`);
    }
  }
  // The result line quotes the packages' error messages and the case's labels: not output of a crash.
  const output = result.stdout
    .split('\n')
    .filter((l) => !l.startsWith(RESULT_PREFIX))
    .join('\n');
  const crash = findCrash({ stdout: output, stderr: result.stderr });
  if (crash) problems.push(`crash signature: ${crash}`);
  if (report === undefined && !result.hung) problems.push('no result line');
  if (report) problems.push(...report.problems);
  if (plan.target === 'core.handleSignals' && expect.signal) {
    const runs = result.stdout.split('\n').filter((l) => l.startsWith('own SIGTERM handler ran')).length;
    if (runs !== 1) problems.push(`the script's own SIGTERM handler ran ${runs} times, expected once`);
  }
  return { id, plan, result, report, problems, ms: performance.now() - started };
}

/** The family of a failure: its target and first problem with numbers and details stripped. */
export function family(outcome) {
  const first = outcome.problems[0] ?? '';
  const gist = first
    .replace(/\(.*?\)/g, '')
    .replace(/-?\d[\d.e+-]*/g, '#')
    .replace(/:.*$/, '')
    .slice(0, 90)
    .trim();
  return `${outcome.plan.target}: ${gist}`;
}

/** The shell command that replays case `id`. */
export function replayCommand(id) {
  return `node test/hostile-input/replay.mjs '${id.replaceAll("'", "'\\''")}'`;
}
