// The exit contract's rows as the test scenarios run them (fixtures/scenario.mjs).
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
