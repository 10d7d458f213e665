// Speed of @peclet/flow beside plain references measured in the same run, on the same threads
// (native-test/reference.c, gcc -O3 -march=native -fopenmp, built by `make -C native-test reference`):
//   - a STREAM triad a = b + s·c (OpenMP, 1.6 GB of arrays, first touch in parallel, best of 10):
//     the memory roofline, on 1 and 2 threads;
//   - a plain D3Q19 kernel: BGK, structure of arrays, two lattices, pull streaming, one
//     `omp parallel for` over rows with the inner loop contiguous (no AA, no blocking, no
//     non-temporal stores), timed over --steps steps after one warm-up step;
//   - peclet/flow on a dense periodic n³ box (f64, f32; 1 and 2 threads) and on the Berea
//     sandstone 200³ (sparse layout, chosen automatically; 2 threads), each timed over
//     --peclet-steps steps in one run() call after a first step(1) (the call ends with one pass
//     over the state to measure its moments, as run()'s convergence checks do every 100 steps).
// Bytes per update are counted two ways: the minimum (each population read and written once:
// 2·19·sizeof(real) for the plain kernel, peclet's own `info.bytesPerUpdate`) and with the
// write-allocate a cached store pays in a two-lattice kernel (+19·sizeof(real): the destination
// line is read before it is written; an in-place kernel writes the lines it has just read, so its
// two figures are equal). The triad moves 24 bytes per element by STREAM's count and 32 with its
// own write-allocate: a bandwidth counted at the minimum is compared with the first, one counted
// with write-allocate with the second. peclet's scheme is `info.streaming` ('in-place' or
// 'two-lattice'; 'two-lattice' when the field is missing). When the addon honours
// PECLET_FLOW_STREAMING (read at Lattice construction), both schemes are measured, each in a child
// process with the variable set; otherwise the default scheme alone.
// Each peclet/flow figure comes from a child process started right after the plain kernel's run
// of the same configuration, and the same plain kernel on transparent huge pages (what the page
// size alone is worth: peclet/flow's populations use them). Ends with the speed targets as
// PASS/FAIL lines, judged against the plain kernel as written. Usage:
//   pnpm --filter @peclet/flow bench [-- --n 256 --steps 5 --peclet-steps 20 --triad-mb 1600]
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const here = import.meta.dirname ?? new URL('.', import.meta.url).pathname;
const script = join(here, 'flow.mjs');
const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '256' },
    steps: { type: 'string', default: '5' },
    'peclet-steps': { type: 'string', default: '20' },
    'triad-mb': { type: 'string', default: '1600' },
    child: { type: 'string' }, // internal: one peclet/flow measurement, as JSON
  },
});
const n = Number(values.n);
const steps = Number(values.steps);
const pecletSteps = Number(values['peclet-steps']);
const threadCounts = [1, 2];
const precisions = ['f64', 'f32'];
const sizeOf = { f64: 8, f32: 4 };
const schemes = ['in-place', 'two-lattice'];

// ---- child: one peclet/flow measurement, printed as one JSON line ----

if (values.child) {
  const { Lattice } = await import('../dist/index.js');
  const spec = JSON.parse(values.child);
  const describe = (lattice) => ({
    streaming: lattice.info.streaming ?? null,
    layout: lattice.info.layout,
    fluidNodes: lattice.info.fluidNodes,
    bytes: lattice.info.bytesPerUpdate,
  });
  let lattice;
  if (spec.what === 'probe') {
    lattice = new Lattice({ shape: [8, 8, 8], precision: 'f64', threads: 1 });
  } else if (spec.what === 'dense') {
    lattice = new Lattice({
      shape: [n, n, n],
      bodyForce: [1e-6, 0, 0],
      precision: spec.precision,
      threads: spec.threads,
      inertia: true,
    });
  } else {
    const { berea } = await import('../test/helpers.mjs');
    lattice = new Lattice({
      ...berea(),
      bodyForce: [1e-6, 0, 0],
      periodic: [true, false, false],
      precision: spec.precision,
      threads: spec.threads,
      inertia: false,
    });
  }
  try {
    const result = describe(lattice);
    if (spec.what !== 'probe') {
      lattice.step(1); // first touch
      const start = performance.now();
      await lattice.run({ maxSteps: pecletSteps, tolerance: 0, checkInterval: pecletSteps });
      result.seconds = (performance.now() - start) / 1e3;
      result.mlups = (lattice.info.fluidNodes * pecletSteps) / result.seconds / 1e6;
    }
    console.log(JSON.stringify(result));
  } finally {
    lattice.release();
  }
  process.exit(0);
}

// ---- the plain references ----

const nativeTest = join(here, '..', 'native-test');
try {
  execFileSync('make', ['-C', nativeTest, 'reference'], { encoding: 'utf8', stdio: 'pipe' });
} catch (error) {
  console.error(`bench: make -C native-test reference failed\n${error.stdout ?? ''}${error.stderr ?? ''}`);
  process.exit(1);
}
const lastLine = (text) => JSON.parse(text.trim().split('\n').at(-1));
const plain = (precision, ...args) =>
  lastLine(execFileSync(join(nativeTest, 'build', `reference-${precision}`), args.map(String), { encoding: 'utf8' }));
// The same plain kernel on transparent huge pages (as peclet/flow's populations are): what the
// page size alone is worth. The targets are judged against the plain kernel as written.
const plainHuge = (precision, ...args) =>
  lastLine(
    execFileSync(join(nativeTest, 'build', `reference-${precision}`), args.map(String), {
      encoding: 'utf8',
      env: { ...process.env, REFERENCE_HUGE_PAGES: '1' },
    }),
  );

// One peclet/flow measurement in a child process; `scheme` null: the addon's default (the
// variable removed from the child's environment).
function peclet(scheme, spec) {
  const env = { ...process.env };
  if (scheme) env.PECLET_FLOW_STREAMING = scheme;
  else delete env.PECLET_FLOW_STREAMING;
  const args = [script, '--n', String(n), '--peclet-steps', String(pecletSteps), '--child', JSON.stringify(spec)];
  return lastLine(
    execFileSync(process.execPath, args, { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }),
  );
}

// Minimum and with-write-allocate bytes per update of a peclet/flow figure.
const pecletBytes = (m, precision) => {
  const streaming = m.streaming ?? 'two-lattice';
  return { min: m.bytes, wa: streaming === 'in-place' ? m.bytes : m.bytes + 19 * sizeOf[precision] };
};

const fixed = (x, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : '–');
const percent = (x) => `${fixed(100 * x)}%`;
const widths = [38, 8, 11, 13, 15, 16, 7];
const row = (cells) =>
  console.log(
    cells
      .map((c, i) => String(c).padEnd(widths[i] ?? 10))
      .join('')
      .trimEnd(),
  );

console.log(
  `@peclet/flow benchmark — D3Q19; plain kernel ${steps} steps per figure, peclet/flow ${pecletSteps} ` +
    `(one run() call); ${new Date().toISOString()}; load average ${fixed(loadavg()[0], 2)} ` +
    '(this machine is shared: anything else running skews the 2-thread figures)\n',
);

for (const precision of precisions) {
  const check = plain(precision, 'check');
  if (!check.ok) {
    console.error(`bench: the plain kernel's correctness check failed: ${JSON.stringify(check)}`);
    process.exit(1);
  }
}
console.log('plain kernel check (shear-wave decay along x, y, z; mass; body-force rate), f64 and f32: ok');

const triad = {};
for (const t of threadCounts) {
  triad[t] = plain('f64', 'triad', values['triad-mb'], t);
  console.log(
    `triad, ${t} thread(s): ${fixed(triad[t].bandwidth / 1e9)} GB/s at 24 B/element ` +
      `(${fixed(triad[t].bandwidthWriteAllocate / 1e9)} GB/s counting its write-allocate, 32 B)`,
  );
}
// Fraction of the triad at each byte count: minimum bytes against the triad's 24-B figure,
// bytes with write-allocate against its 32-B figure.
const ofTriad = (mlups, bytes, t) => ({
  min: (mlups * 1e6 * bytes.min) / triad[t].bandwidth,
  wa: (mlups * 1e6 * bytes.wa) / triad[t].bandwidthWriteAllocate,
});

// Which schemes: both when the addon honours PECLET_FLOW_STREAMING, else the default alone.
const defaultScheme = peclet(null, { what: 'probe' }).streaming;
const honoured = schemes.every((s) => peclet(s, { what: 'probe' }).streaming === s);
const measured = honoured ? schemes : [null];
const label = (scheme) => (scheme ? `peclet ${scheme}${scheme === defaultScheme ? '*' : ''}` : 'peclet/flow');
console.log(
  honoured
    ? `PECLET_FLOW_STREAMING honoured: both schemes measured (* the default, ${defaultScheme})`
    : `peclet/flow: its default scheme alone (${defaultScheme ?? "no info.streaming: 'two-lattice' assumed"}; ` +
        'PECLET_FLOW_STREAMING not honoured by this addon)',
);

// ---- dense periodic box ----

console.log('');
row([`dense periodic box ${n}³`, 'MLUPS', 'B/update', 'GB/s', 'of triad', '× plain kernel', '1 → 2', '']);
row(['', '', 'min / w-a', 'min / w-a', 'min / w-a', '', '', '']);
const dense = {}; // dense[label][precision][threads]
const put = (table, key, precision, t, value) => {
  table[key] ??= {};
  table[key][precision] ??= {};
  table[key][precision][t] = value;
};
for (const precision of precisions) {
  for (const t of threadCounts) {
    const p = plain(precision, 'lbm', n, t, steps);
    const bytes = { min: p.bytesPerUpdate, wa: p.bytesPerUpdateWriteAllocate };
    put(dense, 'plain', precision, t, { mlups: p.mlups, bytes });
    const rows = [['plain kernel', { mlups: p.mlups, bytes }]];
    const h = plainHuge(precision, 'lbm', n, t, steps);
    put(dense, 'plain, huge pages', precision, t, { mlups: h.mlups, bytes });
    rows.push(['plain, huge pages', { mlups: h.mlups, bytes }]);
    for (const scheme of measured) {
      const m = peclet(scheme, { what: 'dense', precision, threads: t });
      const entry = { mlups: m.mlups, bytes: pecletBytes(m, precision), streaming: m.streaming };
      put(dense, label(scheme), precision, t, entry);
      rows.push([label(scheme), entry]);
    }
    for (const [name, { mlups, bytes }] of rows) {
      const fraction = ofTriad(mlups, bytes, t);
      const scaling = t === 2 ? mlups / dense[name === 'plain kernel' ? 'plain' : name][precision][1].mlups : NaN;
      row([
        `${name}, ${precision}, ${t} thr`,
        fixed(mlups),
        `${bytes.min} / ${bytes.wa}`,
        `${fixed((mlups * bytes.min) / 1e3)} / ${fixed((mlups * bytes.wa) / 1e3)}`,
        `${percent(fraction.min)} / ${percent(fraction.wa)}`,
        fixed(mlups / p.mlups, 2),
        t === 2 ? `${fixed(scaling, 2)}×` : '',
        '',
      ]);
    }
  }
}

// ---- Berea sandstone ----
// The sparse layout updates the pore nodes (about a fifth of the voxels); the plain dense kernel
// updates all 8,000,000. Same physics, same number of steps to converge: the ratio of the times
// per step is the ratio of the times to solution.

console.log('');
const tb = threadCounts.at(-1);
row([`Berea sandstone 200³, ${tb} threads`, 'MFLUPS', 's/step', 'B/update', 'of triad', '× plain (time)', '', '']);
row(['', '', '', 'min / w-a', 'at min', '', '', '']);
const bereaResults = {}; // bereaResults[label][precision]
for (const precision of precisions) {
  const p = plain(precision, 'lbm', 200, tb, steps);
  const plainStep = p.seconds / steps;
  row([
    `plain kernel, all voxels, ${precision}`,
    fixed(p.mlups),
    fixed(plainStep, 3),
    `${p.bytesPerUpdate} / ${p.bytesPerUpdateWriteAllocate}`,
    percent((p.mlups * 1e6 * p.bytesPerUpdate) / triad[tb].bandwidth),
    '1.00',
    '',
    '',
  ]);
  const h = plainHuge(precision, 'lbm', 200, tb, steps);
  row([
    `plain, huge pages, all voxels, ${precision}`,
    fixed(h.mlups),
    fixed(h.seconds / steps, 3),
    `${h.bytesPerUpdate} / ${h.bytesPerUpdateWriteAllocate}`,
    percent((h.mlups * 1e6 * h.bytesPerUpdate) / triad[tb].bandwidth),
    fixed(plainStep / (h.seconds / steps), 2),
    '',
    '',
  ]);
  for (const scheme of measured) {
    const m = peclet(scheme, { what: 'berea', precision, threads: tb });
    const bytes = pecletBytes(m, precision);
    const perStep = m.seconds / pecletSteps;
    const entry = { mlups: m.mlups, perStep, bytes, ratio: plainStep / perStep, layout: m.layout };
    entry.fraction = ofTriad(m.mlups, bytes, tb).min;
    bereaResults[label(scheme)] ??= {};
    bereaResults[label(scheme)][precision] = entry;
    row([
      `${label(scheme)} ${m.layout}, ${precision}`,
      fixed(m.mlups),
      fixed(perStep, 3),
      `${bytes.min} / ${bytes.wa}`,
      percent(entry.fraction),
      fixed(entry.ratio, 2),
      '',
      '',
    ]);
  }
}

// ---- the speed targets ----

console.log('');
console.log(
  `targets (dense on ${tb} threads${n === 256 ? '' : `; set for 256³, measured here on ${n}³`}; ` +
    `triad fractions against its 24-B figure):`,
);
const verdict = (ok, text) => console.log(`  ${ok ? 'PASS' : 'FAIL'}  ${text}`);
const targetBytes = { f64: 304, f32: 152 };
for (const scheme of measured) {
  const name = label(scheme);
  for (const precision of precisions) {
    const d = dense[name][precision];
    const ratio = d[tb].mlups / dense.plain[precision][tb].mlups;
    verdict(ratio >= 1.5, `${name}, dense ${precision}: ${fixed(ratio, 2)}× the plain kernel (≥ 1.5×)`);
    const fraction = (d[tb].mlups * 1e6 * targetBytes[precision]) / triad[tb].bandwidth;
    verdict(
      fraction >= 0.8,
      `${name}, dense ${precision}: ${percent(fraction)} of the triad at ${targetBytes[precision]} B (≥ 80%)`,
    );
  }
  for (const precision of precisions) {
    const b = bereaResults[name][precision];
    verdict(
      b.fraction >= 0.7,
      `${name}, Berea ${b.layout} ${precision}: ${percent(b.fraction)} of the triad at ${b.bytes.min} B (≥ 70%)`,
    );
    verdict(
      b.ratio >= 3,
      `${name}, Berea ${b.layout} ${precision}: ${fixed(b.ratio, 2)}× the plain dense kernel's time per step (≥ 3×)`,
    );
  }
  for (const precision of precisions) {
    const d = dense[name][precision];
    const scaling = d[2].mlups / d[1].mlups;
    verdict(scaling >= 1.8, `${name}, dense ${precision}: ${fixed(scaling, 2)}× from 1 to 2 threads (≥ 1.8×)`);
  }
}
