// One run of the matrix: `<runtime> scenario.mjs <path> <modules>`, e.g.
// `node scenario.mjs uncaught alpha,voro,dem`. Loads the modules, puts their
// objects and zero-copy arrays at script scope, starts async native work,
// then ends by the path (lib/paths.mjs lists them). Worker paths run this
// same file again in a worker thread.
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { handleSignals } from '@peclet/core';
import { loadModule } from './modules.mjs';

const path = isMainThread ? process.argv[2] : workerData.path;
const names = (isMainThread ? process.argv[3] : workerData.modules).split(',');
const env = isMainThread ? 'main' : 'worker';

const modules = [];
for (const name of names) modules.push(await loadModule(name));
// Registered after every module's own listener, so it runs after they finalized.
process.on('exit', (code) => console.log(`exit listener ${env} ${code}`));

// A terminated worker runs no JS at its end: it holds native objects only.
const jsObjects = isMainThread || path !== 'compute';
const states = modules.map((m) => m.populate({ env, jsObjects }));
globalThis.keep = states;
hotRead(states);

/**
 * Reads every zero-copy getter of the scenario's objects in a hot loop, as a simulation script
 * reads its arrays every step: one view per buffer, so every read returns the array the state
 * already holds. Prints `hot-read <object>.<getter> <same>/<reads>` (lib/check.mjs judges it).
 */
function hotRead(all) {
  // Where arrays are copies, every read is a new one by design.
  if (process.env.PECLET_NO_EXTERNAL_BUFFERS === '1') return;
  for (const state of all) {
    for (const [key, view] of Object.entries(state)) {
      if (!ArrayBuffer.isView(view) || view.length === 0) continue;
      for (const [ownerKey, owner] of Object.entries(state)) {
        if (owner === null || typeof owner !== 'object' || ArrayBuffer.isView(owner)) continue;
        // The getter that made the array: on the object, or on its pores/throats (a network).
        // The kernel's test addon (alpha) has no JS half: its getter makes a view per read.
        if (owner.constructor?.name === 'Field') continue;
        // On webgpu the arrays are copies read back from the device, by design (documented).
        if (owner.executionSpace === 'webgpu') continue;
        const holder = [owner, owner.pores, owner.throats].find(
          (h) => h !== null && typeof h === 'object' && !Array.isArray(h) && key in h && ArrayBuffer.isView(h[key]),
        );
        if (holder === undefined) continue;
        const reads = 10_000;
        let same = 0;
        for (let i = 0; i < reads; i++) if (holder[key] === view) same++;
        console.log(`hot-read ${ownerKey}.${key} ${same}/${reads}`);
      }
    }
  }
}

// What finished work made stays at script scope too (a collected object leaves no trace).
const settle = (m, promise) =>
  promise.then(
    (made) => {
      states.push({ made });
      console.log(`${env} work ${m.name} done`);
    },
    (error) => console.log(`${env} work ${m.name} ${typeof error.code === 'string' ? error.code : error.name}`),
  );

/** Long async work on every module; it runs until something stops it. */
const startLong = () => modules.map((m, i) => settle(m, m.work(states[i], { long: true, env })));

/** Short work, awaited; long work, aborted by an AbortSignal. */
async function workThenAbort() {
  await Promise.all(modules.map((m, i) => settle(m, m.work(states[i], { long: false, env }))));
  const controller = new AbortController();
  const long = modules.map((m, i) => settle(m, m.work(states[i], { long: true, env, signal: controller.signal })));
  setTimeout(() => controller.abort(), 50);
  await Promise.all(long);
}

const later = (ms, fn) => setTimeout(fn, ms);
const keepAlive = () => setInterval(() => {}, 10_000);

function startWorker(workerPath) {
  return new Promise((resolve) => {
    const worker = new Worker(new URL(import.meta.url), { workerData: { path: workerPath, modules: names.join(',') } });
    worker.on('message', () => resolve(worker));
    worker.on('error', (error) => console.log(`worker error ${error.message}`));
    worker.on('exit', (code) => {
      console.log(`worker exit ${code}`);
      resolve(worker);
    });
  });
}

async function reportWorks() {
  for (const m of modules) console.log(`main works ${m.name} ${await m.works()}`);
}

// Each module is finalized with its long work in flight. A module's sync
// calls wait for its own work on its pool, so before the remaining modules
// prove they still work, their work is aborted; then it starts again.
async function finalizeInOrder(order) {
  const startOne = (i) => {
    const controller = new AbortController();
    const running = settle(modules[i], modules[i].work(states[i], { long: true, env, signal: controller.signal }));
    return { controller, running };
  };
  const work = modules.map((_, i) => startOne(i));
  await new Promise((resolve) => setTimeout(resolve, 50));
  const left = new Set(order);
  for (const name of order) {
    const i = names.indexOf(name);
    modules[i].finalize();
    modules[i].finalize(); // idempotent
    await work[i].running;
    left.delete(name);
    const { detached, error } = modules[i].stale(states[i]);
    let others = true;
    for (const other of left) {
      const j = names.indexOf(other);
      work[j].controller.abort();
      await work[j].running;
      others &&= await modules[j].works();
      work[j] = startOne(j);
    }
    console.log(`finalized ${name}: stale ${error}, detached ${detached}, others work ${others}`);
  }
}

if (!isMainThread) {
  switch (path) {
    case 'natural':
      await workThenAbort();
      break;
    case 'exit':
      startLong();
      later(50, () => process.exit(3));
      break;
    case 'compute':
      startLong();
      later(100, () => parentPort.postMessage('computing'));
      break;
    default:
      throw new Error(`unknown worker path ${path}`);
  }
} else if (path.startsWith('finalize:')) {
  await finalizeInOrder(path.slice('finalize:'.length).split(','));
} else {
  switch (path) {
    case 'natural':
      await workThenAbort();
      break;
    case 'exit-code':
      await workThenAbort();
      process.exitCode = 7;
      break;
    case 'exit':
      startLong();
      process.exit(5);
      break;
    case 'async-exit':
      startLong();
      later(100, () => process.exit(4));
      break;
    case 'uncaught':
      startLong();
      later(50, () => {
        throw new Error('uncaught on purpose');
      });
      break;
    case 'rejection':
      startLong();
      later(50, () => Promise.reject(new Error('rejected on purpose')));
      break;
    case 'sigint-handler':
      startLong();
      process.on('SIGINT', () => process.exit(130));
      later(50, () => process.kill(process.pid, 'SIGINT'));
      keepAlive();
      break;
    case 'sigterm-no-handler':
    case 'sigint-no-handler':
      startLong();
      later(50, () => process.kill(process.pid, path === 'sigint-no-handler' ? 'SIGINT' : 'SIGTERM'));
      keepAlive();
      break;
    case 'handle-signals-sigterm':
    case 'handle-signals-sigint':
      handleSignals();
      startLong();
      later(50, () => process.kill(process.pid, path === 'handle-signals-sigint' ? 'SIGINT' : 'SIGTERM'));
      keepAlive();
      break;
    case 'worker-natural':
      await startWorker('natural');
      await reportWorks();
      break;
    case 'worker-exit':
      await startWorker('exit');
      await reportWorks();
      break;
    case 'worker-terminate': {
      const worker = await startWorker('compute');
      await worker.terminate();
      await reportWorks();
      break;
    }
    case 'main-exit-while-worker':
      await startWorker('compute');
      process.exit(6);
      break;
    default:
      throw new Error(`unknown path ${path}`);
  }
}
