// Ends a scenario script by one path of the exit contract. Each package's
// scenario puts its objects at script scope, then calls endBy(); worker
// paths run the same script again in a worker thread.
//
//   const path = scenarioPath();
//   ...create objects...
//   await endBy(path, { script: import.meta.url, compute, report });
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { handleSignals } from '../dist/index.js';

/** The path this run ends by: argv[2] on the main thread, workerData in a worker. */
export function scenarioPath() {
  return isMainThread ? process.argv[2] : workerData.path;
}

/** Extra arguments of the run (argv[3..] on main, passed on to workers). */
export function scenarioArgs() {
  return isMainThread ? process.argv.slice(3) : workerData.args;
}

/**
 * @param {string} path one of exit-paths.mjs
 * @param {object} hooks
 * @param {string | URL} hooks.script the scenario's own URL (import.meta.url), run again in workers
 * @param {() => void} hooks.compute starts long async native work (it must not finish on its own soon)
 * @param {() => void} [hooks.report] prints what the main thread can still do after a worker ended
 */
export async function endBy(path, { script, compute, report = () => {} }) {
  const startWorker = (workerPath) =>
    new Promise((resolve) => {
      const worker = new Worker(new URL(script), { workerData: { path: workerPath, args: scenarioArgs() } });
      worker.on('message', () => resolve(worker));
      worker.on('exit', (code) => {
        console.log(`worker exit ${code}`);
        resolve(worker);
      });
    });

  if (!isMainThread) {
    if (path === 'worker-exit') process.exit(3);
    if (path === 'worker-compute') {
      compute();
      setTimeout(() => parentPort.postMessage('computing'), 100);
    }
    return;
  }
  switch (path) {
    case 'natural':
      return;
    case 'exit-code':
      process.exitCode = 7;
      return;
    case 'exit':
      process.exit(5);
      return;
    case 'uncaught':
      setTimeout(() => {
        throw new Error('uncaught on purpose');
      }, 1);
      return;
    case 'rejection':
      Promise.reject(new Error('rejected on purpose'));
      return;
    case 'sigint-handler':
      process.on('SIGINT', () => process.exit(130));
      process.kill(process.pid, 'SIGINT');
      setTimeout(() => {}, 10_000);
      return;
    case 'sigterm-no-handler':
      process.kill(process.pid, 'SIGTERM');
      setTimeout(() => {}, 10_000);
      return;
    case 'handle-signals':
      handleSignals();
      process.kill(process.pid, 'SIGTERM');
      setTimeout(() => {}, 10_000);
      return;
    case 'async-exit':
      compute();
      setTimeout(() => process.exit(4), 100);
      return;
    case 'worker-natural':
    case 'worker-exit':
      await startWorker(path);
      report();
      return;
    case 'worker-terminate': {
      const worker = await startWorker('worker-compute');
      await worker.terminate();
      report();
      return;
    }
    case 'main-exit-while-worker':
      await startWorker('worker-compute');
      process.exit(6);
      return;
    default:
      throw new Error(`unknown exit path ${path}`);
  }
}
