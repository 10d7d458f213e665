// Runs a child process and judges it: its exit status or signal, crash
// signatures, and the teardown trace against what the scenario says it made.

import { crashSignals, describeEnd, findCrash, parseCreated, parseTrace } from '@peclet/test-harness';

// The runner, the crash signatures and the trace parsers are shared with every
// other child-process test (test/harness); the judgement of a matrix cell is here.
export {
  crashSignals,
  crashSignature,
  describeEnd,
  findCrash,
  parseCreated,
  parseTrace,
  run,
  transcript,
} from '@peclet/test-harness';

/**
 * Everything wrong with one run, as messages (empty when it passed).
 *
 * `expected`: { status | signal, main, worker, listener, stdout } (lib/paths.mjs);
 * `modules`: the trace names of the loaded modules. An env whose reason is
 * null must show nothing of its objects; otherwise every object it made is
 * released before a finalize of its module — except TypeScript-side objects
 * where the env ends in a cleanup hook, which runs no JS by design.
 */
export function problems(result, expected, modules) {
  const out = [];
  if (result.hung) out.push('hung (killed after the timeout)');
  if (result.signal !== null && crashSignals.has(result.signal)) out.push(`crashed by ${result.signal}`);
  if (expected.signal) {
    if (result.signal !== expected.signal) out.push(`expected signal ${expected.signal}, got ${describeEnd(result)}`);
  } else if (result.signal !== null || result.status !== expected.status) {
    out.push(`expected exit ${expected.status}, got ${describeEnd(result)}`);
  }
  const crash = findCrash(result);
  if (crash) out.push(`crash signature: ${crash}`);

  const trace = parseTrace(result.stderr);
  const created = parseCreated(result.stdout);
  const reasons = [expected.main, expected.worker].filter((r) => r !== null && r !== undefined).sort();
  // Where the worker's end races the process's, its finalize may be missing
  // (its teardown cut short or never started): then nothing is asked of its objects.
  const withoutWorker = [expected.main].filter((r) => r !== null && r !== undefined);
  const workerFinalized = {};
  for (const module of modules) {
    const finals = trace.filter((e) => e.kind === 'finalize' && e.module === module);
    const got = finals.map((f) => f.reason).sort();
    workerFinalized[module] = got.join(',') === reasons.join(',');
    const ok = workerFinalized[module] || (expected.workerMayNotRun && got.join(',') === withoutWorker.join(','));
    if (!ok) out.push(`${module}: finalize reasons [${got}], expected [${reasons}]`);
    for (const f of finals) if (f.liveBytes !== 0) out.push(`${module}: ${f.liveBytes} live bytes at finalize`);
  }
  for (const { module, object, env, kind } of created) {
    if (!modules.includes(module)) continue;
    const reason = expected[env];
    const at = trace.findIndex((e) => e.kind === 'release' && e.module === module && e.object === object);
    if (reason === null || reason === undefined) {
      if (at >= 0) out.push(`${module} ${object} (${env}) released where nothing may run`);
      continue;
    }
    if (kind === 'js' && reason === 'cleanup') continue;
    if (env === 'worker' && expected.workerMayNotRun && !workerFinalized[module]) continue;
    if (at < 0) {
      out.push(`${module} ${object} (${env}) was never released`);
      continue;
    }
    const after = trace.slice(at + 1).some((e) => e.kind === 'finalize' && e.module === module);
    if (!after) out.push(`${module} ${object} (${env}) released after its module's last finalize`);
  }
  // One view per buffer on every runtime: a getter read in a hot loop returns the same array.
  for (const m of result.stdout.matchAll(/^hot-read (\S+) (\d+)\/(\d+)$/gm))
    if (m[2] !== m[3]) out.push(`${m[1]}: ${Number(m[3]) - Number(m[2])} of ${m[3]} reads returned another array`);
  if (expected.main === null && trace.some((e) => e.kind === 'finalize'))
    out.push('a finalize on a path where nothing may run');

  const listeners = [...result.stdout.matchAll(/^exit listener (main|worker) (-?\d+)$/gm)];
  for (const env of ['main', 'worker']) {
    const seen = listeners.filter((m) => m[1] === env).map((m) => Number(m[2]));
    const want = expected.listener?.[env];
    if (env === 'worker' && expected.workerMayNotRun && seen.length === 0) continue;
    if (want === undefined || want === null) {
      if (seen.length > 0) out.push(`the ${env} exit listener ran (code ${seen}) where it must not`);
    } else if (seen.length !== 1 || seen[0] !== want) {
      out.push(`the ${env} exit listener saw [${seen}], expected ${want}`);
    }
  }
  for (const line of expected.stdout ?? []) {
    if (!result.stdout.split('\n').includes(line)) out.push(`missing output line "${line}"`);
  }
  return out;
}
