// The exit contract's rows as the test scenarios run them (fixtures/scenario.mjs).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertCleanExit, runNode } from './helpers.mjs';

// path → what the run must show. `reasons` lists one finalize per env.
export const exitPaths = {
  natural: { status: 0, reasons: ['exit'] },
  'exit-code': { status: 7, reasons: ['exit'] },
  exit: { status: 5, reasons: ['exit'] },
  uncaught: { status: 1, reasons: ['exit'] },
  rejection: { status: 1, reasons: ['exit'] },
  'sigint-handler': { status: 130, reasons: ['exit'] },
  // No handler: the process dies by the signal and nothing can run.
  'sigterm-no-handler': { signal: 'SIGTERM', reasons: [] },
  'handle-signals': { signal: 'SIGTERM', reasons: ['signal'] },
  'async-exit': { status: 4, reasons: ['exit'] },
  'worker-natural': { status: 0, reasons: ['exit', 'exit'], stdout: ['worker exit 0'] },
  'worker-exit': { status: 0, reasons: ['exit', 'exit'], stdout: ['worker exit 3'] },
  // terminate() runs no JS in the worker: its cleanup hook releases its objects.
  'worker-terminate': { status: 0, reasons: ['cleanup', 'exit'], stdout: ['worker exit 1'] },
  'main-exit-while-worker': { status: 6, reasons: ['exit', 'cleanup'] },
};

/**
 * The exit contract of one module as a test suite: every row of `exitPaths` plus the module's
 * own `extraPaths`, each a child process running `scenario` with the path as its argument. The
 * module must finalize once per env with the row's reasons, print the row's `stdout` lines, on
 * the worker paths print a line matching `workerLine` (the main thread kept working), and leave
 * no trace at all where the row has no reasons (an unhandled signal runs nothing).
 */
export function describeExitContract({ module, scenario, extraPaths = {}, workerLine }) {
  const paths = { ...exitPaths, ...extraPaths };
  describe(`${module} exit contract`, { concurrency: 2 }, () => {
    for (const [path, expected] of Object.entries(paths)) {
      it(path, async () => {
        const result = await runNode(scenario, [path]);
        assertCleanExit(result, {
          status: expected.status ?? 0,
          signal: expected.signal ?? null,
          finalizes: { [module]: expected.reasons.length },
          reasons: { [module]: expected.reasons },
        });
        for (const line of expected.stdout ?? []) assert.match(result.stdout, new RegExp(`^${line}$`, 'm'));
        if (path.startsWith('worker-')) assert.match(result.stdout, workerLine);
        if (expected.reasons.length === 0) assert.equal(result.trace.length, 0, 'nothing runs on an unhandled signal');
      });
    }
  });
}
