// The exit matrix: every path of the exit contract (rows) on every runtime
// (columns) — Node 20 (the machine's), Node 22/24/26, Bun and Deno from the
// npm registry, and Node 20 with every addon built under ASan + UBSan — each
// run a real child process loading the kernel's test addon, voro, dem, flow, pnm and coupling
// with objects, zero-copy arrays and async native work at script scope.
// Then module subsets on Node 20, and valgrind memcheck on a few paths.
// A full run rewrites RESULTS.md.

import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { describeEnd, problems, run, transcript } from '../lib/check.mjs';
import { notebookSection, withNotebookSection } from '../lib/notebook-results.mjs';
import {
  allFinalizeOrders,
  expectation,
  pathDescriptions,
  permutations,
  stratifiedOrders,
  traceName,
} from '../lib/paths.mjs';
import { inParallel, parallelism } from '../lib/pool.mjs';
import { renderResults } from '../lib/results.mjs';
import {
  commandLine,
  installRuntime,
  packageRoot,
  runtimeEnv,
  runtimes,
  runtimeVersion,
  selectedRuntimes,
} from '../lib/runtimes.mjs';
import { buildSanitizedAddons, sanitizerEnv } from '../lib/sanitize.mjs';
import { valgrindArgs, valgrindFindings } from '../lib/valgrind.mjs';

const scenario = join(packageRoot, 'scenario', 'scenario.mjs');
const modules = ['alpha', 'voro', 'dem', 'flow', 'pnm', 'coupling'];
const off = (name) => process.env[name] === '0';
const runtimeIds = selectedRuntimes();
const sanitize = !off('PECLET_MATRIX_SANITIZE');
const valgrind = !off('PECLET_MATRIX_VALGRIND');
const full = !process.env.PECLET_MATRIX_RUNTIMES && sanitize && valgrind;

// Explicit finalize: every order of the five solvers (120) on Node 20, the test addon at each
// place in turn (see allFinalizeOrders); elsewhere a stratified sample, one order per solver
// finalized first, drawn with a fixed seed (printed). coupling's own six orders with flow and
// dem run in packages/coupling's tests.
const finalizeRows = allFinalizeOrders(modules).map((o) => `finalize:${o}`);
const orderSeed = Number(process.env.PECLET_MATRIX_ORDER_SEED ?? 1205);
const sampledRows = stratifiedOrders(allFinalizeOrders(modules), orderSeed).map((o) => `finalize:${o}`);
console.log(
  `# finalize orders: all ${finalizeRows.length} on Node 20; on the other runtimes ${sampledRows.length} (one per solver finalized first, seed ${orderSeed}; PECLET_MATRIX_ORDER_SEED changes it), under the sanitizers the first 2: ${sampledRows.map((r) => r.slice(9)).join(' | ')}`,
);
const rows = [...Object.keys(pathDescriptions), ...finalizeRows];
const columns = [...runtimeIds, ...(sanitize ? ['node20-asan'] : [])];

// coupling runs in the main table on Node 20, Bun, Deno and under the sanitizers; on Node 22, 24
// and 26 the same rows run without it (its finalize orders less coupling). Its run() is JS-driven
// slices of sync steps, so it keeps a core busy for as long as a scenario computes: in every
// column it would add about 15% to the matrix's CPU time, and those three Node columns load the
// same addons through the same Node-API as Node 20 (see README.md, "The matrix").
const couplingColumns = new Set(['node20', 'bun', 'deno', 'node20-asan']);
const withoutCoupling = (list) => list.filter((m) => m !== 'coupling');
const modulesOf = (column) => (couplingColumns.has(column) ? modules : withoutCoupling(modules));
/** The scenario's path for a row in a column: a finalize order names only the modules loaded. */
const pathOf = (column, row) =>
  row.startsWith('finalize:') && !couplingColumns.has(column)
    ? `finalize:${withoutCoupling(row.slice('finalize:'.length).split(','))}`
    : row;

// Module subsets on Node 20: each package alone and in pairs, on the paths
// where modules interact most (both builds of the test addon are independent modules).
const subsetPaths = ['exit', 'uncaught', 'handle-signals-sigterm', 'worker-terminate', 'main-exit-while-worker'];
const subsets = ['alpha', 'voro', 'dem', 'flow', 'pnm', 'coupling', 'alpha,beta', 'voro,dem', 'voro,dem,flow'];
const subsetFinalize = ['alpha,beta', 'voro,dem', 'voro,dem,flow'];

// valgrind is slow (about 100 s a run with every module): a few paths that cover every kind of
// end. The finalize row finalizes coupling after both modules it builds on, with those three
// loaded (35 s; with all six, every module's work restarted after each finalize, it ran past
// 5 minutes).
const valgrindPaths = ['natural', 'exit', 'worker-terminate', 'finalize:flow,dem,coupling'];
const valgrindModules = (row) => (row.startsWith('finalize:') ? row.slice('finalize:'.length).split(',') : modules);

const timeoutMs = { plain: 20_000, asan: 90_000, valgrind: 300_000 };

/** Cells to run: { key, column, row, modules, variants (module subsets, all must pass), table } */
const cells = [];
// Where a worker races the process's end, each module alone too: one module
// tears down faster than three, which changes who wins the race.
const racy = new Set(['worker-terminate', 'main-exit-while-worker']);
// The other columns run the sampled orders only: explicit finalize is the same JS and Node-API
// on every runtime, and the orders cost the most of any row (about 2 s each, 19 s under the
// sanitizers, which run the first two of the sample).
const runsHere = (column, row) =>
  column === 'node20' ||
  !row.startsWith('finalize:') ||
  (column === 'node20-asan' ? sampledRows.slice(0, 2) : sampledRows).includes(row);
for (const column of columns) {
  const loaded = modulesOf(column);
  for (const row of rows.filter((r) => runsHere(column, r))) {
    const variants = racy.has(row) ? [loaded, ...loaded.map((m) => [m])] : [loaded];
    const path = pathOf(column, row);
    cells.push({ key: `${column} | ${row}`, column, row, path, modules: loaded, variants, table: 'main' });
  }
}
if (runtimeIds.includes('node20')) {
  for (const subset of subsets) {
    for (const row of subsetPaths) {
      cells.push({
        key: `node20 | ${subset} | ${row}`,
        column: 'node20',
        row,
        modules: subset.split(','),
        table: 'subsets',
      });
    }
  }
  for (const subset of subsetFinalize) {
    for (const order of permutations(subset.split(','))) {
      const row = `finalize:${order}`;
      cells.push({
        key: `node20 | ${subset} | ${row}`,
        column: 'node20',
        row,
        modules: subset.split(','),
        table: 'subsets',
      });
    }
  }
}
// dem on WebGPU joins the subsets once @peclet/core/gpu and dem's
// executionSpace 'webgpu' exist (scenario/modules.mjs, demWebgpuUnavailable).
const probe = await run(process.execPath, [join(packageRoot, 'scenario', 'webgpu-probe.mjs')], { cwd: packageRoot });
const webgpu = probe.stdout.trim() || `probe failed: ${describeEnd(probe)}\n${probe.stderr}`;
// Main-thread paths only: in a worker thread no WebGPU adapter is found on
// the test machine (dem rejects with PECLET_NO_GPU there).
const webgpuPaths = ['natural', 'exit-code', 'exit', 'async-exit', 'uncaught', 'rejection', 'sigint-handler'];
if (webgpu === 'available' && runtimeIds.includes('node20')) {
  for (const row of [...webgpuPaths, 'handle-signals-sigterm', 'sigterm-no-handler']) {
    cells.push({
      key: `node20 | dem-webgpu | ${row}`,
      column: 'node20',
      row,
      modules: ['dem-webgpu'],
      table: 'subsets',
    });
  }
}
if (valgrind) {
  for (const row of valgrindPaths)
    cells.push({ key: `valgrind | ${row}`, column: 'valgrind', row, modules: valgrindModules(row), table: 'valgrind' });
}

const results = new Map();
const versions = {};
/** Wall seconds of the children by column (several run at once): where the matrix's time goes. */
const seconds = new Map();

/** A cell passes when every variant (module subset) of it passes; the first failing one is kept. */
async function runCell(cell, bins, addonDir) {
  let last;
  for (const variant of cell.variants ?? [cell.modules]) {
    last = await runVariant({ ...cell, modules: variant }, bins, addonDir);
    last.cell = cell;
    if (last.problems.length > 0) {
      last.problems.unshift(`with modules ${variant.join(',')}:`);
      return last;
    }
  }
  return last;
}

async function runVariant(cell, bins, addonDir) {
  const runtimeId = cell.column === 'node20-asan' || cell.column === 'valgrind' ? 'node20' : cell.column;
  const kind = runtimes[runtimeId].kind;
  const subset = cell.modules.join(',');
  let [command, args] = commandLine(runtimeId, bins[runtimeId], scenario);
  const path = cell.path ?? cell.row;
  args = [...args, path, subset];
  let env = runtimeEnv(runtimeId);
  let limit = timeoutMs.plain;
  if (cell.column === 'node20-asan') {
    env = { ...env, ...sanitizerEnv(addonDir) };
    limit = timeoutMs.asan;
  }
  if (cell.column === 'valgrind') {
    args = [...valgrindArgs, command, ...args];
    command = 'valgrind';
    limit = timeoutMs.valgrind;
  }
  const traced = cell.modules.map(traceName);
  const expected = expectation(kind, path, traced);
  const started = performance.now();
  const result = await run(command, args, { env, timeoutMs: limit, cwd: packageRoot });
  const group = cell.table === 'subsets' ? 'subsets' : cell.column;
  seconds.set(group, (seconds.get(group) ?? 0) + (performance.now() - started) / 1000);
  const found = problems(result, expected, traced);
  if (cell.column === 'valgrind') {
    const { errors, ours } = valgrindFindings(result.stderr);
    if (errors !== 0) found.push(`valgrind: ${errors ?? 'no'} error summary`);
    for (const block of ours) found.push(`valgrind error in our addons:\n${block}`);
  }
  return { cell, expected, result, problems: found, end: describeEnd(result) };
}

describe('exit matrix', () => {
  before(async () => {
    const bins = {};
    for (const id of new Set([...runtimeIds, ...(sanitize || valgrind ? ['node20'] : [])])) {
      bins[id] = installRuntime(id);
      versions[id] = runtimeVersion(bins[id]);
    }
    // The sanitizer build (about two minutes) runs beside the first cells: valgrind's, which are
    // long and hold one core each, then the unsanitized ones; the sanitized cells come last and
    // wait for it.
    const building = performance.now();
    const addons = sanitize
      ? buildSanitizedAddons().then((dir) => {
          seconds.set('sanitizer build', (performance.now() - building) / 1000);
          return dir;
        })
      : Promise.resolve(undefined);
    addons.catch(() => {}); // reported by each sanitized cell
    const rank = (cell) => (cell.column === 'valgrind' ? 0 : cell.column === 'node20-asan' ? 2 : 1);
    const ordered = [...cells].sort((a, b) => rank(a) - rank(b));
    const done = await inParallel(
      ordered.map((cell) => async () => {
        if (cell.column !== 'node20-asan') return runCell(cell, bins, undefined);
        try {
          return await runCell(cell, bins, await addons);
        } catch (error) {
          const result = { status: null, signal: null, stdout: '', stderr: String(error?.message ?? error) };
          return { cell, result, problems: ['the sanitizer build failed'], end: 'not run' };
        }
      }),
      parallelism(),
    );
    for (const r of done) results.set(r.cell.key, r);
    const figures = [...seconds].map(([column, s]) => `${column} ${s.toFixed(0)} s`);
    console.log(`# child wall time by column (${parallelism()} at once): ${figures.join(', ')}`);
  });

  for (const cell of cells) {
    it(cell.key, () => {
      const r = results.get(cell.key);
      assert.ok(r, 'not run');
      assert.deepEqual(r.problems, [], `${cell.key}\n${transcript(r.result)}`);
    });
  }

  it('dem on WebGPU (subset dem-webgpu) when it exists', () => {
    assert.match(webgpu, /^(available|unavailable: .+)$/);
    if (webgpu === 'available' && runtimeIds.includes('node20')) {
      assert.ok(cells.some((c) => c.modules.includes('dem-webgpu')));
    }
  });

  after(() => {
    if (!full || results.size !== cells.length) return;
    const text = renderResults({
      rows,
      columns,
      cells,
      results,
      versions,
      labels: Object.fromEntries(Object.entries(runtimes).map(([id, rt]) => [id, rt.label])),
      webgpu,
      subsetPaths,
      orderSeed,
      sampledRows,
    });
    // The notebook column's section is test/notebook.test.mjs's: kept as it is.
    const file = join(packageRoot, 'RESULTS.md');
    const kept = existsSync(file) ? notebookSection(readFileSync(file, 'utf8')) : '';
    writeFileSync(file, kept ? withNotebookSection(text, kept) : text);
  });
});
