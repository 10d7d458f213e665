// The notebook column: a session of Deno's Jupyter kernel (`deno jupyter --kernel`), driven
// headless by jupyter_client (notebook/session.py), with objects of every module at global
// scope and work in flight, then shut down, interrupted, restarted, or finalized from a cell
// (notebook/cells.mjs). Each kernel process of a session is judged as a matrix child is
// (lib/check.mjs): how it ended, no crash signature, the teardown trace; and no process of its
// group may outlive it. A full run rewrites the notebook section of RESULTS.md.

import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { problems, run, transcript } from '../lib/check.mjs';
import { renderNotebookSection, withNotebookSection } from '../lib/notebook-results.mjs';
import { traceName } from '../lib/paths.mjs';
import { installRuntime, packageRoot, runtimeEnv, runtimeVersion } from '../lib/runtimes.mjs';
import { notebookCases, notebookModules } from '../notebook/cells.mjs';

const skip = process.env.PECLET_MATRIX_NOTEBOOK === '0' && 'PECLET_MATRIX_NOTEBOOK=0';
// Debian's python3-jupyter-client is installed for the system Python, which a pyenv or venv
// `python3` first on PATH would not see.
const python = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
const driver = join(packageRoot, 'notebook', 'session.py');
// A session is a few seconds; the driver bounds each cell (30 s) and each kernel's start and end.
const sessionTimeoutMs = 150_000;

const results = new Map();
let denoVersion;
let jupyterClient;
const seconds = new Map();

/** Kills the process groups of kernels a driver killed by the timeout left behind. */
function killKernels(stderr) {
  for (const m of stderr.matchAll(/^kernel-pid (\d+)$/gm)) {
    try {
      process.kill(-Number(m[1]), 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

/** Everything wrong with one session, as messages (empty when it passed). */
function judge(session, expectedKernels) {
  const out = [];
  if (session.error) out.push(`driver: ${session.error}`);
  const kernels = session.kernels ?? [];
  if (kernels.length !== expectedKernels.length)
    out.push(`${kernels.length} kernel processes, expected ${expectedKernels.length}`);
  const traced = notebookModules.map(traceName);
  kernels.forEach((kernel, i) => {
    const expected = expectedKernels[i];
    if (expected === undefined) return;
    const tag = `kernel ${i + 1} (pid ${kernel.pid})`;
    for (const cell of kernel.cells) {
      // An interrupted cell ends in an error (its execution terminated); any other must succeed.
      const want = cell.interrupted ? 'error' : 'ok';
      if (cell.status !== want)
        out.push(`${tag}: cell "${cell.cell}" ${cell.status}${cell.error ? `: ${cell.error}` : ''}, expected ${want}`);
    }
    if (kernel.how !== expected.how) out.push(`${tag}: ended by ${kernel.how}, expected ${expected.how}`);
    if (kernel.orphans.length > 0) out.push(`${tag}: processes of its group outlived it: ${kernel.orphans}`);
    // The shutdown_request's exit(0) may end the kernel once its teardown completed (`orStatus`,
    // notebook/cells.mjs): then that status stands for the signal, and the trace is judged alike.
    const ended =
      expected.orStatus !== undefined && kernel.signal === null && kernel.status === expected.orStatus
        ? { ...expected, signal: undefined, status: expected.orStatus }
        : expected;
    for (const p of problems(kernel, ended, traced)) out.push(`${tag}: ${p}`);
  });
  return out;
}

describe('notebook column (Deno Jupyter kernel)', { skip }, () => {
  before(async () => {
    const deno = installRuntime('deno');
    denoVersion = runtimeVersion(deno);
    for (const [name, testCase] of Object.entries(notebookCases)) {
      const scratch = mkdtempSync(join(tmpdir(), 'peclet-notebook-'));
      const steps = join(scratch, 'steps.json');
      writeFileSync(
        steps,
        JSON.stringify({ interrupt_mode: testCase.interruptMode ?? 'signal', steps: testCase.steps }),
      );
      const started = performance.now();
      const result = await run(python, [driver, name, deno, packageRoot, scratch, steps], {
        env: runtimeEnv('deno'),
        timeoutMs: sessionTimeoutMs,
        cwd: packageRoot,
      });
      seconds.set(name, (performance.now() - started) / 1000);
      killKernels(result.stderr);
      let session;
      try {
        session = JSON.parse(result.stdout);
      } catch {
        session = { error: `no record from the driver (${result.hung ? 'hung' : `exit ${result.status}`})` };
      }
      jupyterClient ??= session.jupyter_client;
      const found = judge(session, testCase.kernels);
      results.set(name, { session, driver: result, problems: found });
      rmSync(scratch, { recursive: true, force: true });
    }
    const figures = [...seconds].map(([name, s]) => `${name} ${s.toFixed(1)} s`);
    console.log(`# notebook sessions' wall time: ${figures.join(', ')}`);
  });

  for (const name of Object.keys(notebookCases)) {
    it(name, () => {
      const r = results.get(name);
      assert.ok(r, 'not run');
      const kernels = (r.session.kernels ?? []).map((k, i) => `--- kernel ${i + 1}\n${transcript(k)}`).join('\n');
      assert.deepEqual(r.problems, [], `${name}\n${kernels}\n--- driver\n${transcript(r.driver)}`);
    });
  }

  after(() => {
    if (results.size !== Object.keys(notebookCases).length) return;
    const file = join(packageRoot, 'RESULTS.md');
    const section = renderNotebookSection({ cases: notebookCases, results, denoVersion, jupyterClient });
    writeFileSync(file, withNotebookSection(readFileSync(file, 'utf8'), section));
  });
});
