// The rows of the matrix — every path of the exit contract (shared/DESIGN.md)
// — and what each must show, per runtime.
//
// An expectation:
//   status | signal        how the process ends
//   main, worker           the finalize reason of each env (thread) in every loaded
//                          module's trace, or null where nothing may run in that env
//   listener.main/.worker  the code the scenario's own `exit` listener sees, or null
//                          where that listener must not run
//   stdout                 lines the scenario must print
//   workerMayNotRun        the worker's end races the process's: its finalize
//                          (with `worker` as reason) and listener are optional

import { random } from '@peclet/test-harness';

/** What the scenario's main thread does on each path (scenario/scenario.mjs implements them). */
export const pathDescriptions = {
  natural: 'main ends naturally (short work awaited, long work aborted)',
  'exit-code': '`process.exitCode = 7`, then natural end',
  exit: '`process.exit(5)` right after starting async work',
  'async-exit': '`process.exit(4)` while async work computes',
  uncaught: 'uncaught exception while async work computes',
  rejection: 'unhandled rejection while async work computes',
  'sigint-handler': '`process.exit(130)` from a SIGINT handler',
  'sigterm-no-handler': 'SIGTERM, no handler',
  'sigint-no-handler': 'SIGINT, no handler',
  'handle-signals-sigterm': 'SIGTERM with `handleSignals()`',
  'handle-signals-sigint': 'SIGINT with `handleSignals()`',
  'worker-natural': 'a worker ends naturally',
  'worker-exit': 'a worker calls `process.exit(3)` while computing',
  'worker-terminate': 'a computing worker is `terminate()`d',
  'main-exit-while-worker': 'main calls `process.exit(6)` while a worker computes',
};

const works = (modules) => modules.map((m) => `main works ${m} true`);

/** Node's behaviour (the contract as measured), per path, for the loaded modules. */
export function nodeExpectation(path, modules) {
  switch (path) {
    case 'natural':
      return { status: 0, main: 'exit', listener: { main: 0 } };
    case 'exit-code':
      return { status: 7, main: 'exit', listener: { main: 7 } };
    case 'exit':
      return { status: 5, main: 'exit', listener: { main: 5 } };
    case 'async-exit':
      return { status: 4, main: 'exit', listener: { main: 4 } };
    case 'uncaught':
    case 'rejection':
      return { status: 1, main: 'exit', listener: { main: 1 } };
    case 'sigint-handler':
      return { status: 130, main: 'exit', listener: { main: 130 } };
    case 'sigterm-no-handler':
      return { signal: 'SIGTERM', main: null, listener: {} };
    case 'sigint-no-handler':
      return { signal: 'SIGINT', main: null, listener: {} };
    case 'handle-signals-sigterm':
      return { signal: 'SIGTERM', main: 'signal', listener: {} };
    case 'handle-signals-sigint':
      return { signal: 'SIGINT', main: 'signal', listener: {} };
    case 'worker-natural':
      return {
        status: 0,
        main: 'exit',
        worker: 'exit',
        listener: { main: 0, worker: 0 },
        stdout: ['worker exit 0', ...works(modules)],
      };
    case 'worker-exit':
      return {
        status: 0,
        main: 'exit',
        worker: 'exit',
        listener: { main: 0, worker: 3 },
        stdout: ['worker exit 3', ...works(modules)],
      };
    case 'worker-terminate':
      // terminate() runs no JS in the worker: its cleanup hook releases its native objects.
      return {
        status: 0,
        main: 'exit',
        worker: 'cleanup',
        listener: { main: 0 },
        stdout: ['worker exit 1', ...works(modules)],
      };
    case 'main-exit-while-worker':
      // Node tears the worker env down (cleanup hooks, no JS) before libc exit().
      return { status: 6, main: 'exit', worker: 'cleanup', listener: { main: 6 } };
    default:
      if (path.startsWith('finalize:')) {
        const order = path.slice('finalize:'.length).split(',');
        return {
          status: 0,
          main: 'explicit',
          listener: { main: 0 },
          stdout: order.map((m) => `finalized ${m}: stale ReleasedError, detached true, others work true`),
        };
      }
      throw new Error(`unknown path ${path}`);
  }
}

/**
 * Where a runtime differs from Node by design: runtime → path → the fields
 * that differ, what that looks like (`shows`) and why (one line each, shown
 * in RESULTS.md).
 */
export const deviations = {
  bun: {
    rejection: {
      listener: { main: 0 },
      shows: 'the `exit` listener sees code 0',
      why: 'Bun passes 0 to `exit` listeners on an unhandled rejection, though the process exits 1',
    },
    'main-exit-while-worker': {
      worker: null,
      shows: 'nothing runs in the worker',
      why: 'Bun ends the process without tearing the running worker down: nothing runs in that worker',
    },
  },
  deno: {
    uncaught: {
      main: 'cleanup',
      listener: {},
      shows: 'finalize in the cleanup hook (reason `cleanup`); no `exit` listener',
      why: 'Deno skips `exit` listeners on an uncaught error but runs cleanup hooks (native objects only)',
    },
    rejection: {
      main: 'cleanup',
      listener: {},
      shows: 'finalize in the cleanup hook (reason `cleanup`); no `exit` listener',
      why: 'Deno skips `exit` listeners on an unhandled rejection but runs cleanup hooks (native objects only)',
    },
    'worker-terminate': {
      workerMayNotRun: true,
      shows: "the worker's finalize (reason `cleanup`) may be missing",
      why: "Deno's `terminate()` resolves before the worker's env is torn down and the process does not wait for it: the worker's cleanup hook may be cut short by the end of the process",
    },
    'main-exit-while-worker': {
      worker: 'exit',
      workerMayNotRun: true,
      listener: { main: 6, worker: 0 },
      shows: "the worker's finalize (reason `exit`) may be missing",
      why: 'Deno does not stop a running worker before libc `exit()`: its `exit` listener (code 0) may or may not run first',
    },
  },
};

/** The expectation of one cell: Node's, with the runtime's deviation applied. */
export function expectation(runtimeKind, path, modules) {
  const base = nodeExpectation(path, modules);
  const deviation = deviations[runtimeKind]?.[path];
  if (deviation === undefined) return base;
  const { why, shows, ...fields } = deviation;
  return { ...base, ...fields, why };
}

/** Every order of a list (explicit finalize in every order of the loaded modules). */
export function permutations(list) {
  if (list.length <= 1) return [list];
  return list.flatMap((first, i) =>
    permutations([...list.slice(0, i), ...list.slice(i + 1)]).map((rest) => [first, ...rest]),
  );
}

/**
 * The explicit finalize orders of the main table: every order of the solvers (all but the first
 * module, the kernel's test addon), with the test addon at each place in turn — first, second,
 * ..., last, first, ... — so that every solver is finalized before and after every other module,
 * and the test addon at every place, in (n−1)! rows instead of n!: 120 for five solvers.
 */
export function allFinalizeOrders(modules) {
  const [first, ...rest] = modules;
  return permutations(rest).map((order, i) => {
    const at = i % modules.length;
    return [...order.slice(0, at), first, ...order.slice(at)];
  });
}

/**
 * A stratified sample of finalize orders: one per solver finalized first (the test addon
 * `skip` aside), drawn with `seed` (mulberry32), in the order the strata first appear.
 */
export function stratifiedOrders(orders, seed, skip = 'alpha') {
  const r = random(seed);
  const strata = new Map();
  for (const order of orders) {
    const key = order.find((m) => m !== skip);
    if (!strata.has(key)) strata.set(key, []);
    strata.get(key).push(order);
  }
  return [...strata.values()].map((list) => r.pick(list));
}

/** The module name in the trace for a module of a subset (`dem-webgpu` traces as `dem`). */
export const traceName = (subsetName) => (subsetName === 'dem-webgpu' ? 'dem' : subsetName);
