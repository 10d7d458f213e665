// Runs a child process and judges it: its exit status or signal, crash
// signatures, and the teardown trace against what the scenario says it made.

import { spawn } from 'node:child_process';

/** Output that means a crash or a broken teardown contract, on any runtime. */
export const crashSignature =
  /Segmentation fault|SIGSEGV|SIGABRT|SIGTRAP|SIGBUS|FATAL ERROR|Fatal error|terminate called|after finalize|AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error:|Aborted|core dumped|pure virtual|panicked at|Bun has crashed|oh no: Bun/;

/** Signals that mean a crash whatever a path asked for. */
const crashSignals = new Set(['SIGSEGV', 'SIGABRT', 'SIGTRAP', 'SIGBUS', 'SIGILL', 'SIGFPE']);

/**
 * Runs `command args` with the teardown trace on. A child that outlives
 * `timeoutMs` is killed and reported as hung.
 */
export function run(command, args, { env = {}, timeoutMs = 60_000, cwd } = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd,
      env: { ...process.env, PECLET_TEARDOWN_TRACE: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    let hung = false;
    const timer = setTimeout(() => {
      hung = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', (error) => {
      stderr += `\nspawn failed: ${error.message}`;
    });
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, stdout, stderr, hung });
    });
  });
}

/** `peclet:<module> release <Class>#<id>` and `... finalize reason=.. released=.. live-bytes=..` lines. */
export function parseTrace(stderr) {
  const events = [];
  for (const line of stderr.split('\n')) {
    let m = line.match(/^peclet:(\S+) release (\S+#\d+)$/);
    if (m) {
      events.push({ kind: 'release', module: m[1], object: m[2] });
      continue;
    }
    m = line.match(/^peclet:(\S+) finalize reason=(\S+) released=(\d+) live-bytes=(\d+)$/);
    if (m) events.push({ kind: 'finalize', module: m[1], reason: m[2], liveBytes: Number(m[4]) });
  }
  return events;
}

/** What the scenario made: `created <module> <Class>#<id> <main|worker> <native|js>`. */
export function parseCreated(stdout) {
  return [...stdout.matchAll(/^created (\S+) (\S+#\d+) (main|worker) (native|js)$/gm)].map((m) => ({
    module: m[1],
    object: m[2],
    env: m[3],
    kind: m[4],
  }));
}

/** `status 5`, `SIGTERM`, `hung` — what a results table shows of how a child ended. */
export function describeEnd(result) {
  if (result.hung) return 'hung';
  if (result.signal) return result.signal;
  return `exit ${result.status}`;
}

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
  const crash = result.stderr.match(crashSignature) ?? result.stdout.match(crashSignature);
  if (crash) out.push(`crash signature: ${crash[0]}`);

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

/** The child's output, for a failure message. */
export function transcript(result) {
  return `--- stdout ---\n${result.stdout}\n--- stderr ---\n${result.stderr}`;
}
