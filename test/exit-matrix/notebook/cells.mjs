// The notebook sessions of the notebook column: each case is a list of steps for session.py —
// cells (TypeScript run by Deno's Jupyter kernel, which keeps their declarations at global scope
// until the kernel restarts, as a notebook does), an interrupt, a restart, a shutdown — and what
// each kernel process of the session must show (lib/check.mjs judges it, as in every column).
//
// The cells load the modules the way the Deno column does: the kernel runs in this package's
// folder, so `@peclet/*` resolve through its package.json and node_modules, and
// scenario/modules.mjs makes the objects, prints them (`created ...`) and starts their work.

/** Every module of the matrix's main table. */
export const notebookModules = ['alpha', 'voro', 'dem', 'flow', 'pnm', 'coupling'];

/**
 * Loads every module and puts its objects and zero-copy arrays at global scope. TypeScript-side
 * objects are left out: the kernel sends what JS writes to stderr (the TS half of the trace) into
 * its test-output pipe, which only `Deno.test` reads, so their release lines never reach the
 * process's stderr; the native half writes to the real stderr.
 * With `signals`, the notebook opts in to `handleSignals()` (see README.md, "The notebook column").
 */
const setup = ({ signals }) => ({
  do: 'cell',
  name: 'setup',
  code: `
const { loadModule } = await import('./scenario/modules.mjs');
const { handleSignals } = await import('@peclet/core');
const names = ${JSON.stringify(notebookModules)};
const modules = [];
for (const name of names) modules.push(await loadModule(name));
const states = modules.map((m) => m.populate({ env: 'main', jsObjects: false }));
const settle = (m, promise) =>
  promise.then(
    (made) => {
      states.push({ made });
      console.log(\`main work \${m.name} done\`);
    },
    (error) => console.log(\`main work \${m.name} \${typeof error.code === 'string' ? error.code : error.name}\`),
  );
${signals ? 'handleSignals();' : ''}
console.log('setup done');
`,
});

/** Short work awaited, long work aborted by an AbortSignal: the cell ends with nothing in flight. */
const workToTheEnd = {
  do: 'cell',
  name: 'work',
  code: `
await Promise.all(modules.map((m, i) => settle(m, m.work(states[i], { long: false, env: 'main' }))));
{
  const controller = new AbortController();
  const long = modules.map((m, i) => settle(m, m.work(states[i], { long: true, env: 'main', signal: controller.signal })));
  setTimeout(() => controller.abort(), 50);
  await Promise.all(long);
}
console.log('work done');
`,
};

/** Long work of every module, left in flight when the cell ends (a notebook's background job). */
const workInFlight = {
  do: 'cell',
  name: 'work in flight',
  code: `
const start = (i) => {
  const controller = new AbortController();
  const running = settle(modules[i], modules[i].work(states[i], { long: true, env: 'main', signal: controller.signal }));
  return { controller, running };
};
const inFlight = modules.map((_, i) => start(i));
await new Promise((resolve) => setTimeout(resolve, 300));
console.log('work in flight');
`,
};

/**
 * Explicit finalize of each module in \`order\` from a cell, each with its long work in flight:
 * the finalized module's objects throw a ReleasedError and its arrays are detached, the others
 * still compute (as the matrix's finalize rows check: a module's sync calls wait for its own
 * work, so the others' work is aborted before they prove it, then started again).
 */
const finalizeCell = (order) => ({
  do: 'cell',
  name: `finalize ${order.join(',')}`,
  code: `
const order = ${JSON.stringify(order)};
const left = new Set(order);
for (const name of order) {
  const i = names.indexOf(name);
  modules[i].finalize();
  modules[i].finalize();
  await inFlight[i].running;
  left.delete(name);
  const { detached, error } = modules[i].stale(states[i]);
  let others = true;
  for (const other of left) {
    const j = names.indexOf(other);
    inFlight[j].controller.abort();
    await inFlight[j].running;
    others &&= await modules[j].works();
    inFlight[j] = start(j);
  }
  console.log(\`finalized \${name}: stale \${error}, detached \${detached}, others work \${others}\`);
}
`,
});

const works = (modules) => modules.map((m) => `main works ${m} true`);
const worksCell = {
  do: 'cell',
  name: 'works',
  code: `for (const m of modules) console.log(\`main works \${m.name} \${await m.works()}\`);`,
};

/** One finalize order per session: every module with work in flight, coupling after dem and flow. */
export const finalizeOrder = ['voro', 'alpha', 'pnm', 'dem', 'flow', 'coupling'];

/**
 * The cases. `kernels` is what each kernel process of the session must show, in order: the
 * expectation lib/check.mjs's problems() takes, plus `how` (how the driver saw it end) and
 * `orStatus`: jupyter_client's `shutdown_kernel()` and `restart_kernel()` send `shutdown_request`
 * right behind the interrupt, and Deno's kernel answers it with exit() on its main thread while
 * the interrupt's teardown runs on the JS thread. The kernel's exit gate makes that exit() wait
 * for the teardown (README.md, "The notebook column"), so the teardown is always complete, but
 * which ends the process, the re-raised signal or the exit(0) once the gate opens, is a race:
 * either end is accepted there; a teardown cut short never is.
 */
export const notebookCases = {
  shutdown: {
    describe: 'work completes, then shutdown: the interrupt, then `shutdown_request` were the kernel still alive',
    steps: [setup({ signals: true }), workToTheEnd, { do: 'shutdown' }],
    kernels: [{ how: 'shutdown', signal: 'SIGINT', main: 'signal', listener: {}, stdout: ['work done'] }],
  },
  'shutdown-kernel': {
    describe: 'work completes, then `shutdown_kernel()` (interrupt and `shutdown_request` at once, as frontends do)',
    steps: [setup({ signals: true }), workToTheEnd, { do: 'shutdown-kernel' }],
    kernels: [
      { how: 'shutdown_kernel', signal: 'SIGINT', orStatus: 0, main: 'signal', listener: {}, stdout: ['work done'] },
    ],
  },
  interrupt: {
    describe: 'interrupt while work is in flight, then the session goes on and is shut down',
    steps: [
      setup({ signals: true }),
      workInFlight,
      { do: 'interrupt' },
      setup({ signals: true }),
      workToTheEnd,
      worksCell,
      { do: 'shutdown' },
    ],
    kernels: [
      { how: 'interrupt', signal: 'SIGINT', main: 'signal', listener: {}, stdout: ['work in flight'] },
      {
        how: 'shutdown',
        signal: 'SIGINT',
        main: 'signal',
        listener: {},
        stdout: ['work done', ...works(notebookModules)],
      },
    ],
  },
  restart: {
    describe:
      'restart while work is in flight: the interrupt, then `restart_kernel()`; the new kernel computes, then shutdown',
    steps: [
      setup({ signals: true }),
      workInFlight,
      { do: 'restart' },
      setup({ signals: true }),
      workToTheEnd,
      worksCell,
      { do: 'shutdown' },
    ],
    kernels: [
      { how: 'restart', signal: 'SIGINT', main: 'signal', listener: {}, stdout: ['work in flight'] },
      {
        how: 'shutdown',
        signal: 'SIGINT',
        main: 'signal',
        listener: {},
        stdout: ['work done', ...works(notebookModules)],
      },
    ],
  },
  'restart-kernel': {
    describe: 'as `restart`, with `restart_kernel()` alone (interrupt and `shutdown_request` at once, as frontends do)',
    steps: [
      setup({ signals: true }),
      workInFlight,
      { do: 'restart-kernel' },
      setup({ signals: true }),
      workToTheEnd,
      worksCell,
      { do: 'shutdown' },
    ],
    kernels: [
      {
        how: 'restart_kernel',
        signal: 'SIGINT',
        orStatus: 0,
        main: 'signal',
        listener: {},
        stdout: ['work in flight'],
      },
      {
        how: 'shutdown',
        signal: 'SIGINT',
        main: 'signal',
        listener: {},
        stdout: ['work done', ...works(notebookModules)],
      },
    ],
  },
  finalize: {
    describe: `explicit \`finalize()\` of every module from a cell (${finalizeOrder.join(' → ')}), work in flight, then shutdown`,
    steps: [setup({ signals: true }), workInFlight, finalizeCell(finalizeOrder), { do: 'shutdown' }],
    kernels: [
      {
        how: 'shutdown',
        signal: 'SIGINT',
        main: 'explicit',
        listener: {},
        stdout: finalizeOrder.map((m) => `finalized ${m}: stale ReleasedError, detached true, others work true`),
      },
    ],
  },
  'interrupt-message': {
    describe:
      'kernelspec with `interrupt_mode: message`: a busy cell is interrupted while work is in flight, the session goes on (every module computes), `finalize()` from a cell, then `shutdown_kernel()`',
    interruptMode: 'message',
    steps: [
      setup({ signals: false }),
      workInFlight,
      {
        // JS that never yields, over the objects' zero-copy arrays, while the native work goes on:
        // the interrupt terminates it (a cell that awaits a promise is not running JS, and an
        // interrupt_request does not stop it: README.md).
        do: 'cell',
        name: 'busy',
        interruptAfter: 0.5,
        code: `
let reads = 0;
for (;;) for (const state of states) for (const view of Object.values(state)) if (ArrayBuffer.isView(view)) reads += view.length > 0 ? 1 : 0;
`,
      },
      {
        do: 'cell',
        name: 'go on',
        code: `
for (const w of inFlight) w.controller.abort();
await Promise.all(inFlight.map((w) => w.running));
for (const m of modules) console.log(\`main works \${m.name} \${await m.works()}\`);
for (let i = 0; i < modules.length; i++) inFlight[i] = start(i);
await new Promise((resolve) => setTimeout(resolve, 200));
`,
      },
      finalizeCell(finalizeOrder),
      { do: 'shutdown-kernel' },
    ],
    // The interrupt is a message, so shutdown_kernel() is exit(0) with nothing left to release.
    kernels: [
      {
        how: 'shutdown_kernel',
        status: 0,
        main: 'explicit',
        listener: {},
        stdout: [
          ...works(notebookModules),
          ...finalizeOrder.map((m) => `finalized ${m}: stale ReleasedError, detached true, others work true`),
        ],
      },
    ],
  },
  'shutdown-request': {
    describe: 'work completes, then `shutdown_request` alone (no interrupt before it)',
    steps: [setup({ signals: true }), workToTheEnd, { do: 'shutdown-request' }],
    // Deno's kernel ends its server loop and calls exit(): no `exit` event, no cleanup hook.
    kernels: [{ how: 'shutdown_request', status: 0, main: null, listener: {}, stdout: ['work done'] }],
  },
  'shutdown-no-handler': {
    describe: 'as `shutdown`, without `handleSignals()` in the notebook',
    steps: [setup({ signals: false }), workToTheEnd, { do: 'shutdown' }],
    kernels: [{ how: 'shutdown', signal: 'SIGINT', main: null, listener: {}, stdout: ['work done'] }],
  },
};
