// Speed and memory of @peclet/pnm's extract() + stokesFlow() beside a Python SNOW reference run in
// the same bench (snow_reference.py: SciPy's distance transform and Gaussian filter, a ball maximum
// filter for the peaks, PoreSpy-style saddle and nearby-peak trimming, scikit-image's marker
// watershed, regions to network, a SciPy sparse Stokes solve), on
//   (1) the Berea sandstone 200³ (packages/flow/test/fixtures/berea-200.raw.gz) and
//   (2) a 400³ image of overlapping spherical grains (spheres.mjs, seeded, porosity ≈ 0.35),
// per stage (distance transform, smoothing, peaks, watershed, network, solve), native on 1 and 2
// threads: the end-to-end ratio (Python seconds / native seconds on 2 threads, target ≥ 20×), the
// scaling from 1 to 2 threads (target ≥ 1.7×) and the pore and throat counts of both pipelines.
// Then (3) native only, a 1000³ image of overlapping spheres extracted in a child process (the
// image is generated there), whose peak resident set (VmHWM) gives the bytes per voxel (target
// ≤ 16); Python would take hours on it. It is skipped, with a note, when MemAvailable is short of
// 16 bytes per voxel. Usage:
//   pnpm --filter @peclet/pnm bench [-- --skip-1000 --size 600 --runs 3 --peak-mask smoothed]
// Flags:
//   --skip-1000     skip case (3)
//   --size N        the edge of case (3) (default 1000)
//   --runs N        native runs per thread count on Berea, the best kept (default 3; 1 on 400³)
//   --peak-mask M   the Python peaks' mask: 'pore' (default: maxima in the pore, solid raised by 2)
//                   or 'smoothed' (smoothed dt > 0 taken as the pore, as PoreSpy's find_peaks does
//                   with the smoothed map)
//   --child-1000    (internal) the child process of case (3): prints one JSON line
// Python is /usr/bin/python3 with Debian's python3-scipy, python3-skimage and python3-numpy,
// installed when missing by scripts/system-deps.sh. Without a built addon (pnpm --filter
// @peclet/pnm build) only the Python side runs.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { overlappingSpheres } from './spheres.mjs';

const here = import.meta.dirname ?? new URL('.', import.meta.url).pathname;
const thisScript = join(here, 'pnm.mjs');
const { values } = parseArgs({
  options: {
    'skip-1000': { type: 'boolean', default: false },
    size: { type: 'string', default: '1000' },
    runs: { type: 'string', default: '3' },
    'peak-mask': { type: 'string', default: 'pore' },
    'child-1000': { type: 'boolean', default: false },
  },
});
const bigSize = Number(values.size);
const runs = Math.max(1, Number(values.runs));
const threadCounts = [1, 2];
const options = { sigma: 0.4, rMax: 4, boundaries: ['x'] };
const stages = ['distanceTransform', 'smoothing', 'peaks', 'watershed', 'network', 'solve'];
const stageNames = {
  distanceTransform: 'distance transform',
  smoothing: 'smoothing (σ 0.4)',
  peaks: 'peaks (find, trim)',
  watershed: 'watershed',
  network: 'network',
  solve: 'solve (Stokes, x)',
};

/** Peak resident set of this process so far (bytes), from /proc/self/status. */
function vmHWM() {
  const match = /VmHWM:\s+(\d+)\s+kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return match ? Number(match[1]) * 1024 : Number.NaN;
}

async function loadNative() {
  try {
    return await import('../dist/index.js');
  } catch (error) {
    return { error };
  }
}

// ---------------------------------------------------------------------------------------------
// (3) in a child: only this extraction raises the high-water mark.
if (values['child-1000']) {
  const pnm = await loadNative();
  if (pnm.error) throw pnm.error;
  let start = performance.now();
  const image = overlappingSpheres(bigSize);
  const generate = (performance.now() - start) / 1e3;
  const before = vmHWM();
  start = performance.now();
  const network = pnm.extract(image, { ...options, threads: 2 });
  const seconds = (performance.now() - start) / 1e3;
  const after = vmHWM();
  const result = {
    generate,
    porosity: image.porosity,
    seconds,
    before,
    after,
    timings: network.timings,
    pores: network.poreCount,
    throats: network.throatCount,
  };
  network.release();
  pnm.finalize?.();
  console.log(JSON.stringify(result));
  process.exit(0);
}

// ---------------------------------------------------------------------------------------------
const row = (cells) => console.log(cells.map((c, i) => String(c).padEnd(i === 0 ? 26 : 16)).join(''));
const fixed = (x, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : '—');
const ratio = (a, b) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${(a / b).toFixed(1)}×` : '—');
const verdict = (value, target) => (value >= target ? 'met' : 'NOT met');

console.log(
  `@peclet/pnm benchmark — SNOW extraction (σ ${options.sigma}, r_max ${options.rMax}) + Stokes flow along x, ` +
    `native on ${threadCounts.join(' and ')} thread(s) vs. a Python reference (SciPy/scikit-image), ` +
    `${new Date().toISOString()}\n`,
);

const deps = spawnSync(
  'bash',
  [join(here, '..', '..', '..', 'scripts', 'system-deps.sh'), 'python3-scipy', 'python3-skimage', 'python3-numpy'],
  { stdio: 'inherit' },
);
if (deps.status !== 0) throw new Error('scripts/system-deps.sh could not install the Python reference packages');

const pnm = await loadNative();
if (pnm.error) {
  console.log(`native @peclet/pnm not loaded (${pnm.error.message.split('\n')[0]}): build it with`);
  console.log('pnpm --filter @peclet/pnm build. Python only.\n');
}

function berea() {
  const bytes = gunzipSync(readFileSync(join(here, '..', '..', 'flow', 'test', 'fixtures', 'berea-200.raw.gz')));
  return {
    solid: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length),
    shape: [200, 200, 200],
    voxelSize: 5.345e-6,
  };
}

/** The Python reference on `image`, once: its JSON line. */
function python(image) {
  const dir = mkdtempSync(join(tmpdir(), 'pnm-bench-'));
  try {
    const file = join(dir, 'image.raw');
    writeFileSync(file, image.solid);
    const result = spawnSync(
      '/usr/bin/python3',
      [
        join(here, 'snow_reference.py'),
        file,
        '--shape',
        ...image.shape.map(String),
        '--voxel-size',
        String(image.voxelSize),
        '--sigma',
        String(options.sigma),
        '--r-max',
        String(options.rMax),
        '--axis',
        '0',
        '--peak-mask',
        values['peak-mask'],
      ],
      { encoding: 'utf8', maxBuffer: 1 << 26 },
    );
    if (result.status !== 0) {
      process.stderr.write(result.stderr ?? '');
      throw new Error(`snow_reference.py failed (status ${result.status}, signal ${result.signal})`);
    }
    return JSON.parse(result.stdout.trim().split('\n').at(-1));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** extract() + stokesFlow() on `threads` threads, `repeat` times: the fastest end to end. */
function native(image, threads, repeat) {
  let best;
  for (let r = 0; r < repeat; r++) {
    let start = performance.now();
    const network = pnm.extract(image, { ...options, threads });
    const extractSeconds = (performance.now() - start) / 1e3;
    try {
      start = performance.now();
      const flow = network.stokesFlow({ axis: 'x', viscosity: 1e-3 });
      const solve = (performance.now() - start) / 1e3;
      const face = network.pores?.face;
      const boundaryPores = face ? face.reduce((n, f) => n + (f >= 0 ? 1 : 0), 0) : undefined;
      const run = {
        times: { ...network.timings, solve },
        total: extractSeconds + solve,
        pores: network.poreCount,
        throats: network.throatCount,
        boundaryPores,
        millidarcy: flow.millidarcy,
        iterations: flow.solve?.iterations,
        peaks: network.peaks,
      };
      if (!best || run.total < best.total) best = run;
    } finally {
      network.release();
    }
  }
  return best;
}

const summary = [];
function bench(title, image, repeat) {
  const voxels = image.solid.length;
  let solid = 0;
  for (let v = 0; v < voxels; v++) solid += image.solid[v];
  console.log(`${title}: ${(voxels / 1e6).toFixed(1)} M voxels, porosity ${fixed(1 - solid / voxels, 3)}`);
  const py = python(image);
  const nat = pnm.error ? {} : Object.fromEntries(threadCounts.map((t) => [t, native(image, t, repeat)]));
  const [one, two] = threadCounts.map((t) => nat[t]);
  row(['stage (s)', 'Python', 'native 1T', 'native 2T', 'Python/2T', '1T/2T']);
  for (const stage of stages) {
    const p = py.times[stage];
    const a = one?.times[stage];
    const b = two?.times[stage];
    row([stageNames[stage], fixed(p, 3), fixed(a, 3), fixed(b, 3), ratio(p, b), ratio(a, b)]);
  }
  row([
    'end to end',
    fixed(py.total, 3),
    fixed(one?.total, 3),
    fixed(two?.total, 3),
    ratio(py.total, two?.total),
    ratio(one?.total, two?.total),
  ]);
  const pores = (r) => (r ? `${r.pores}${r.boundaryPores !== undefined ? ` (${r.boundaryPores} bd)` : ''}` : '—');
  row(['pores', `${py.pores + py.boundaryPores} (${py.boundaryPores} bd)`, pores(one), pores(two)]);
  row(['throats', String(py.throats + py.boundaryThroats), one?.throats ?? '—', two?.throats ?? '—']);
  row(['permeability (mD)', fixed(py.millidarcy, 1), fixed(one?.millidarcy, 1), fixed(two?.millidarcy, 1)]);
  console.log(
    `Python peaks: ${py.peaksFound} found, ${py.peaksAfterSaddle} after saddle trimming, ${py.peaks} after ` +
      `nearby-peak trimming; ${py.pores} interior pores; 'bd': boundary pores on the two x faces`,
  );
  const peaks = two?.peaks;
  if (peaks) {
    console.log(
      `native peaks: ${peaks.found} found, ${peaks.saddles} saddle points and ${peaks.nearby} nearby peaks ` +
        `trimmed; ${two.iterations} conjugate-gradient iterations`,
    );
  }
  console.log('');
  summary.push({ title, speedup: py.total / two?.total, scaling: one?.total / two?.total });
}

bench('(1) Berea sandstone 200³', berea(), runs);
let image = overlappingSpheres(400);
bench('(2) overlapping spheres 400³ (radii 8–12 voxels, seed 1)', image, 1);
image = undefined;

if (!pnm.error) {
  for (const { title, speedup, scaling } of summary) {
    console.log(
      `${title}: Python / native (2 threads) ${fixed(speedup, 1)}× (target ≥ 20×: ${verdict(speedup, 20)}); ` +
        `1 → 2 threads ${fixed(scaling)}× (target ≥ 1.7×: ${verdict(scaling, 1.7)})`,
    );
  }
  console.log('');
}

const bigVoxels = bigSize ** 3;
const available = Number(/MemAvailable:\s+(\d+)\s+kB/.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1] ?? 0) * 1024;
const needed = 16 * bigVoxels + 2 ** 29; // the target, and Node
const bigTitle = `(3) overlapping spheres ${bigSize}³`;
if (values['skip-1000']) {
  console.log(`${bigTitle}: skipped (--skip-1000)`);
} else if (pnm.error) {
  console.log(`${bigTitle}: skipped (no native addon)`);
} else if (available < needed) {
  const fits = Math.floor(Math.cbrt((available - 2 ** 29) / 16));
  console.log(
    `${bigTitle}: skipped — ${fixed(needed / 2 ** 30, 1)} GiB wanted (16 bytes/voxel and Node), ` +
      `${fixed(available / 2 ** 30, 1)} GiB available; try --size ${fits}`,
  );
} else {
  console.log(`${bigTitle}, native extract() on 2 threads in a child process (Python not run: hours at this size)`);
  const child = spawnSync(process.execPath, [thisScript, '--child-1000', '--size', String(bigSize)], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 1 << 24,
  });
  if (child.signal === 'SIGKILL') {
    console.log(
      `killed (SIGKILL): out of memory, most likely — more than the ${fixed(available / 2 ** 30, 1)} GiB ` +
        `available, ${fixed(available / bigVoxels)} bytes/voxel (target ≤ 16: NOT met)`,
    );
  } else if (child.status !== 0) {
    throw new Error(`the ${bigSize}³ child failed (status ${child.status}, signal ${child.signal})`);
  } else {
    reportBig(JSON.parse(child.stdout.trim().split('\n').at(-1)));
  }
}
pnm.finalize?.();

function reportBig(big) {
  const perVoxel = big.after / bigVoxels;
  console.log(
    `generated in ${fixed(big.generate, 1)} s (porosity ${fixed(big.porosity, 3)}); extracted in ` +
      `${fixed(big.seconds, 1)} s: ${big.pores} pores, ${big.throats} throats`,
  );
  const times = stages.slice(0, 5).map((s) => `${stageNames[s]} ${fixed(big.timings?.[s])}`);
  console.log(`stages (s): ${times.join(', ')}`);
  console.log(
    `peak resident set ${fixed(big.after / 2 ** 30)} GiB = ${fixed(perVoxel)} bytes/voxel, image (1 byte/voxel) ` +
      `and Node included (target ≤ 16: ${verdict(-perVoxel, -16)}); the extraction's own rise over the ` +
      `${fixed(big.before / 2 ** 30)} GiB before it: ${fixed((big.after - big.before) / bigVoxels)} bytes/voxel`,
  );
}
