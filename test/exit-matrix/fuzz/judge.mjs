// The parent's judgement of one random program: it regenerates the program
// from its seed (so it never trusts the child about how it must end) and
// reads the child's output and teardown trace.

import { join } from 'node:path';
import { crashSignature, describeEnd, parseTrace, run } from '../lib/check.mjs';
import { packageRoot } from '../lib/runtimes.mjs';
import { program } from './program.mjs';

export const child = join(packageRoot, 'fuzz', 'fuzz-child.mjs');

/** The command that replays one seed, with the same checks. */
export const replayCommand = (seed) => `node test/exit-matrix/fuzz/replay.mjs ${seed}`;

/** Runs the program of `seed` in a child process; resolves with { seed, plan, result, problems }. */
export async function runProgram(seed, { timeoutMs = 60_000, env = {} } = {}) {
  const plan = program(seed);
  const result = await run(process.execPath, ['--expose-gc', child, String(seed)], {
    cwd: packageRoot,
    timeoutMs,
    env,
  });
  const api = result.stdout.match(/^fuzz-api (.*)$/m);
  return { seed, plan, result, problems: judge(plan, result), api: api ? JSON.parse(api[1]) : [] };
}

/**
 * What went wrong, as messages: the status the program's end asks for, no
 * crash signature or failed in-program check, every finalize with an empty
 * ledger, every loaded module finalized, and every object still referenced
 * at the end (or released by the program) released before a finalize of its
 * module. An object the program let go may have been collected instead.
 */
export function judge(plan, result) {
  const out = [];
  if (result.hung) out.push('hung (killed after the timeout)');
  if (result.signal !== null || result.status !== plan.status) {
    out.push(`expected exit ${plan.status}, got ${describeEnd(result)}`);
  }
  const assertion = result.stdout.match(/^FUZZ-ASSERT .*$/m);
  if (assertion) out.push(assertion[0]);
  const crash = result.stderr.match(crashSignature) ?? result.stdout.match(crashSignature);
  if (crash) out.push(`crash signature: ${crash[0]}`);

  const trace = parseTrace(result.stderr);
  for (const f of trace) {
    if (f.kind === 'finalize' && f.liveBytes !== 0) out.push(`${f.module}: ${f.liveBytes} live bytes at finalize`);
  }
  for (const module of plan.modules) {
    if (!trace.some((e) => e.kind === 'finalize' && e.module === module)) out.push(`${module} never finalized`);
  }
  const dropped = new Set(
    [...result.stdout.matchAll(/^dropped (\S+) (\S+#\d+) (main|worker)$/gm)].map((m) => `${m[1]} ${m[2]}`),
  );
  // When main ends abruptly (process.exit, an uncaught error or rejection) a worker still
  // running may have its teardown cut short by the process's end (the exit contract's "worker's
  // end races the process's"): nothing is asked of its objects then.
  const abrupt = ['exit', 'uncaught', 'rejection'].includes(plan.end.how);
  for (const m of result.stdout.matchAll(/^created (\S+) (\S+#\d+) (main|worker) native$/gm)) {
    const [, module, object, env] = m;
    const at = trace.findIndex((e) => e.kind === 'release' && e.module === module && e.object === object);
    if (at < 0) {
      if (!dropped.has(`${module} ${object}`) && !(abrupt && env === 'worker')) {
        out.push(`${module} ${object} was never released`);
      }
      continue;
    }
    if (!trace.slice(at + 1).some((e) => e.kind === 'finalize' && e.module === module)) {
      out.push(`${module} ${object} released after its module's last finalize`);
    }
  }
  return out;
}
