// Shared by the child-process tests: run a script in a fresh process and
// read its exit status, signal, stdout and teardown trace.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const here = dirname(fileURLToPath(import.meta.url));
export const fixtures = join(here, 'fixtures');

/** Output that means the process crashed or broke the teardown contract. */
export const crashSignature =
  /Segmentation fault|FATAL ERROR|terminate called|after finalize|AddressSanitizer|LeakSanitizer|runtime error:|Aborted|core dumped|pure virtual/;

/**
 * Runs `node <script> ...args` with the trace on; resolves with its result.
 * A child that outlives `timeoutMs` is killed and reported as a hang.
 */
export function runNode(
  script,
  args = [],
  { env = {}, timeoutMs = 60_000, nodeArgs = [], command = process.execPath } = {},
) {
  return new Promise((resolve) => {
    const child = spawn(command, [...nodeArgs, script, ...args], {
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
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, stdout, stderr, hung, trace: parseTrace(stderr), created: parseCreated(stdout) });
    });
  });
}

/** Trace lines: `peclet:<module> release <Class>#<id>` and `... finalize reason=.. released=.. live-bytes=..`. */
export function parseTrace(stderr) {
  const events = [];
  for (const line of stderr.split('\n')) {
    let m = line.match(/^peclet:(\S+) release (\S+)#(\d+)$/);
    if (m) {
      events.push({ kind: 'release', module: m[1], object: `${m[2]}#${m[3]}` });
      continue;
    }
    m = line.match(/^peclet:(\S+) finalize reason=(\S+) released=(\d+) live-bytes=(\d+)$/);
    if (m) events.push({ kind: 'finalize', module: m[1], reason: m[2], released: +m[3], liveBytes: +m[4] });
  }
  return events;
}

/** Objects a scenario says it created: `created <module> <Class>#<id>`. */
export function parseCreated(stdout) {
  return [...stdout.matchAll(/^created (\S+) (\S+#\d+)$/gm)].map((m) => ({ module: m[1], object: m[2] }));
}

/**
 * The exit contract for one run: the exact status (or signal), no crash
 * signature, and — where the runtime runs anything — every created object
 * released before a finalize of its module, `finalizes[module]` finalize
 * lines per module (one per env), each with an empty ledger.
 */
export function assertCleanExit(result, { status = 0, signal = null, finalizes = {}, reasons } = {}) {
  const context = `\n--- stdout ---\n${result.stdout}\n--- stderr ---\n${result.stderr}`;
  assert.equal(result.hung, false, `child hung${context}`);
  assert.equal(result.signal, signal, `signal${context}`);
  if (signal === null) assert.equal(result.status, status, `exit status${context}`);
  assert.doesNotMatch(result.stderr, crashSignature, `crash signature${context}`);
  for (const [module, count] of Object.entries(finalizes)) {
    const lines = result.trace.filter((e) => e.kind === 'finalize' && e.module === module);
    assert.equal(lines.length, count, `finalize lines of ${module}${context}`);
    for (const line of lines) assert.equal(line.liveBytes, 0, `live bytes at finalize of ${module}${context}`);
    if (reasons?.[module]) {
      assert.deepEqual(
        lines.map((l) => l.reason).sort(),
        [...reasons[module]].sort(),
        `finalize reasons of ${module}${context}`,
      );
    }
  }
  for (const { module, object } of result.created) {
    if (!(module in finalizes) || finalizes[module] === 0) continue;
    const at = result.trace.findIndex((e) => e.kind === 'release' && e.module === module && e.object === object);
    assert.ok(at >= 0, `${module} ${object} was never released${context}`);
    const after = result.trace.slice(at + 1).some((e) => e.kind === 'finalize' && e.module === module);
    assert.ok(after, `${module} ${object} released after its module finalized${context}`);
  }
}
