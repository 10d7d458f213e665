// Flow over MPI ranks (mpirun --oversubscribe -n 2 and -n 4 on this 2-core machine, as root
// with the documented environment): the distributed lattice equals the whole lattice plane by
// plane, permeability() equals the run without MPI on 1, 2 and 4 ranks (the sphere array to
// convergence, the Berea 200³ sample for 50 steps), the parallel .pvti holds the whole image,
// and the arguments a decomposition cannot take are refused on every rank at once, never a
// hang. Exit paths with flow on the ranks are in mpi-exit.test.mjs.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import * as mpi from '@peclet/mpi';
import { Lattice, permeability, slabOf, slabPlanes } from '../dist/index.js';
import { geometry } from './fixtures/mpi-geometry.mjs';
import { zickHomsy } from './helpers.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const fixtures = join(here, 'fixtures');
const built = existsSync(join(here, '..', '..', 'mpi', 'native', 'build', 'Release', 'mpi.node'));
const mpirun = ['/usr/bin/mpirun', '/usr/local/bin/mpirun'].find((p) => existsSync(p));
const skip = !mpirun
  ? 'no mpirun: install Open MPI (bash scripts/system-deps.sh installs openmpi-bin and libopenmpi-dev)'
  : !built
    ? '@peclet/mpi was not built (no system MPI at build time)'
    : false;
const mpiEnv = { OMPI_ALLOW_RUN_AS_ROOT: '1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM: '1' };
const scratch = mkdtempSync(join(tmpdir(), 'peclet-flow-mpi-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * `script args` on `ranks` ranks (0: one process without mpirun, MPI's singleton start); the
 * RESULT lines of every rank, parsed. Bounded: a hang fails the test instead of stalling it.
 */
function ranksRun(ranks, script, args = [], timeoutMs = 180_000) {
  const [file, argv] =
    ranks === 0
      ? [process.execPath, [script, ...args]]
      : [mpirun, ['--oversubscribe', '-n', String(ranks), process.execPath, script, ...args]];
  return new Promise((resolve, reject) => {
    execFile(
      file,
      argv,
      { cwd: fixtures, env: { ...process.env, ...mpiEnv }, timeout: timeoutMs, maxBuffer: 64 << 20 },
      (error, stdout, stderr) => {
        if (error) {
          reject(new Error(`${script} on ${ranks} ranks: ${error.message}\n${stdout}\n${stderr}`));
          return;
        }
        resolve(
          stdout
            .split('\n')
            .filter((l) => l.startsWith('RESULT '))
            .map((l) => JSON.parse(l.slice(7))),
        );
      },
    );
  });
}

const relative = (a, b) => (a === b ? 0 : Math.abs(a - b) / Math.max(Math.abs(a), Math.abs(b)));
// The bound asserted for a result over ranks against the same without MPI: the halo carries
// exactly the populations a whole lattice would pull, so the fields are the same to the bit
// (measured), and every sum is taken plane by plane in the same order whatever the number of
// ranks; only the sums of the run without MPI (its native chunked moments) are in another order.
const ROUND_OFF = 1e-12;

describe('a lattice over MPI ranks equals the whole lattice', { skip }, () => {
  for (const ranks of [2, 4]) {
    it(`-n ${ranks}: six set-ups, fields plane by plane and every sum; divergence; refusals on every rank`, async (t) => {
      const out = mkdtempSync(join(scratch, 'lattice-'));
      const results = await ranksRun(ranks, 'mpi-lattice.mjs', [out]);
      const cases = results.filter((r) => r.case);
      assert.equal(cases.length, 6 * ranks);
      let worst = 0;
      for (const r of cases) {
        const what = `${r.case}, rank ${r.rank}`;
        assert.deepEqual(r.shape, [16, 7, 6], what);
        assert.deepEqual(r.steps, [270, 270, 120], what);
        assert.ok(r.velocity <= 1e-15 && r.density <= 1e-15, `${what}: fields differ by ${r.velocity}, ${r.density}`);
        const tolerance = r.case.startsWith('f32') ? 1e-6 : ROUND_OFF;
        for (const key of ['mean', 'run', 'mass', 'flux']) {
          assert.ok(r[key] <= tolerance, `${what}: ${key} differs by ${r[key]}`);
          if (!r.case.startsWith('f32')) worst = Math.max(worst, r[key]);
        }
      }
      t.diagnostic(`fields: equal to the bit; sums (f64): at most ${worst.toExponential(1)} relative`);

      // A step that would diverge on the last rank is taken on none; step(5) goes back to step 10.
      for (const r of results.filter((x) => x.diverged)) {
        assert.deepEqual(r.diverged, ['PECLET_DIVERGED', 'PECLET_DIVERGED'], `rank ${r.rank}`);
        assert.equal(r.stepCount, 10);
        assert.ok(r.unchanged, `rank ${r.rank}: the state changed`);
        assert.ok(r.fieldsKept, `rank ${r.rank}: the refused steps changed the fields`);
      }

      const refusals = {};
      for (const r of results.filter((x) => x.refused)) {
        refusals[r.refused] ??= [];
        refusals[r.refused].push(r);
      }
      const every = (name, check) => {
        assert.equal(refusals[name]?.length, ranks, `${name}: not every rank answered`);
        for (const r of refusals[name]) check(r);
      };
      every('extents differ', (r) => {
        assert.deepEqual([r.error, r.argument], ['RangeError', 'shape']);
        assert.match(r.message, /on rank 1 but .* on rank 0/);
      });
      every('options differ', (r) => assert.deepEqual([r.error, r.argument], ['RangeError', 'options']));
      every('one rank refuses its options', (r) => {
        if (r.rank === ranks - 1) assert.deepEqual([r.error, r.argument], ['RangeError', 'bodyForce[0]']);
        else assert.match(r.message, new RegExp(`refused on rank ${ranks - 1}`));
      });
      every('too few planes', (r) => assert.match(r.message, /has 1 plane along axis 0 on rank 0: each of the/));
      every('slabPlanes of too small an image', (r) => {
        assert.deepEqual([r.error, r.argument], ['RangeError', 'n0']);
        assert.match(r.message, new RegExp(`too few for ${ranks} ranks`));
      });
      every('steps differ', (r) => assert.match(r.message, /different arguments on different ranks/));
      every('bad steps on one rank', (r) => assert.equal(r.error, 'RangeError'));
      every('released on one rank', (r) =>
        assert.equal(
          r.rank === ranks - 1 ? r.error : r.code,
          r.rank === ranks - 1 ? 'ReleasedError' : 'PECLET_CANCELLED',
        ),
      );
      assert.deepEqual(
        results.filter((r) => r.alive !== undefined).map((r) => r.alive),
        new Array(ranks).fill(ranks),
      );

      // The parallel image: one piece per rank, which together are the whole lattice's image.
      const pvti = readFileSync(join(out, 'flow.pvti'), 'utf8');
      const pieces = [...pvti.matchAll(/<Piece Extent="(\d+) (\d+) 0 7 0 6" Source="([^"]+)"\/>/g)];
      assert.equal(pieces.length, ranks);
      assert.match(pvti, /<PImageData WholeExtent="0 16 0 7 0 6" GhostLevel="0"/);
      const whole = readVti(join(out, 'whole.vti'));
      const assembled = { solid: [], density: [], velocity: [] };
      for (const [, from, to, source] of pieces) {
        const piece = readVti(join(out, source));
        assert.equal(piece.extent, `${from} ${to} 0 7 0 6`);
        for (const name of Object.keys(assembled)) assembled[name].push(piece.arrays[name]);
      }
      for (const name of Object.keys(assembled)) {
        // x (axis 0) is fastest in VTK's order: the pieces interleave row by row.
        const parts = assembled[name];
        const components = name === 'velocity' ? 3 : 1;
        const rebuilt = [];
        const widths = pieces.map(([, from, to]) => Number(to) - Number(from));
        for (let row = 0; row < 7 * 6; row++) {
          parts.forEach((p, i) => {
            const w = widths[i] * components;
            rebuilt.push(...p.slice(row * w, (row + 1) * w));
          });
        }
        assert.deepEqual(rebuilt, Array.from(whole.arrays[name]), `${name}: the pieces are not the whole image`);
      }
    });
  }
});

/** A .vti written by writeVti: its piece extent and its appended arrays. */
function readVti(path) {
  const bytes = readFileSync(path);
  const text = bytes.toString('latin1');
  const start = text.indexOf('<AppendedData encoding="raw">');
  const xml = text.slice(0, start);
  const extent = /<Piece Extent="([^"]+)">/.exec(xml)[1];
  const arrays = {};
  const base = text.indexOf('_', start) + 1;
  for (const [, type, name, , offset] of xml.matchAll(
    /<DataArray type="(\w+)" Name="([^"]*)" NumberOfComponents="(\d+)" format="appended" offset="(\d+)"\/>/g,
  )) {
    const at = base + Number(offset);
    const size = Number(bytes.readBigUInt64LE(at));
    const Ctor = { UInt8: Uint8Array, Float32: Float32Array, Float64: Float64Array }[type];
    const copy = bytes.subarray(at + 8, at + 8 + size);
    arrays[name] = Array.from(new Ctor(copy.buffer.slice(copy.byteOffset, copy.byteOffset + size)));
  }
  return { extent, arrays };
}

describe('permeability() over MPI ranks equals the run without MPI', { skip }, () => {
  const reference = {};
  before(async () => {
    for (const name of ['spheres', 'spheres-y', 'berea']) {
      const { image, options } = geometry(name);
      const result = await permeability(image, options);
      result.lattice.release();
      reference[name] = result;
    }
  });

  function assertSame(name, results, ranks, t) {
    const ref = reference[name];
    assert.equal(results.length, Math.max(ranks, 1));
    let worst = 0;
    for (const r of results) {
      assert.equal(r.steps, ref.steps, `rank ${r.rank}: steps`);
      assert.equal(r.porosity, ref.porosity, `rank ${r.rank}: porosity`);
      for (const key of ['permeability', 'tortuosity']) {
        const d = relative(r[key], ref[key]);
        worst = Math.max(worst, d);
        assert.ok(d <= ROUND_OFF, `rank ${r.rank}: ${key} ${r[key]} vs ${ref[key]} without MPI`);
      }
      const d = relative(r.latticeUnits.densityDrop, ref.latticeUnits.densityDrop);
      assert.ok(d <= ROUND_OFF, `rank ${r.rank}: density drop`);
    }
    t.diagnostic(
      `${name} on ${ranks || 1} rank${ranks > 1 ? 's' : ''}: k = ${results[0].permeability} (without MPI ${ref.permeability}), ` +
        `largest relative difference ${worst.toExponential(1)}`,
    );
  }

  for (const ranks of [0, 2, 4]) {
    it(`the sphere array to convergence on ${ranks || 1} rank${ranks > 1 ? 's' : ''}`, async (t) => {
      const results = await ranksRun(ranks, 'mpi-permeability.mjs', ['spheres']);
      assertSame('spheres', results, ranks, t);
      assert.ok(results[0].converged);
      // Zick & Homsy's K = F/(6πμaU) at c = 0.216, from k = νU/F of the voxelized array.
      const { radius } = geometry('spheres').image;
      const n = 12;
      const K = n ** 3 / (6 * Math.PI * radius * results[0].latticeUnits.permeability);
      t.diagnostic(
        `K = ${K.toFixed(3)} (Zick & Homsy 1982: ${zickHomsy[0.216]}, voxel spheres of radius ${radius.toFixed(2)})`,
      );
      assert.ok(Math.abs(K / zickHomsy[0.216] - 1) < 0.1, `K ${K}`);
    });
  }

  it('the sphere array along y (across the slabs), pressure drive, on 3 ranks', async (t) => {
    const results = await ranksRun(3, 'mpi-permeability.mjs', ['spheres-y']);
    assertSame('spheres-y', results, 3, t);
    assert.equal(results[0].axis, 'y');
  });

  for (const ranks of [0, 2, 4]) {
    it(`the Berea 200³ sample, 50 steps, on ${ranks || 1} rank${ranks > 1 ? 's' : ''}, each rank reading its planes of a .raw file`, async (t) => {
      const raw = join(scratch, 'berea-200.raw');
      if (!existsSync(raw)) writeFileSync(raw, geometry('berea').image.solid);
      const results = await ranksRun(ranks, 'mpi-permeability.mjs', ['berea', raw], 300_000);
      assertSame('berea', results, ranks, t);
      // Each rank held its planes of the sample, the buffer layers at the ends.
      assert.equal(
        results.reduce((sum, r) => sum + r.slab.count, 0),
        208,
      );
    });
  }
});

describe('percolation over MPI ranks', { skip }, () => {
  it('a channel through every slab percolates; cut in one voxel it does not, on every rank (2 and 3 ranks)', async () => {
    const { percolates } = await import('../dist/index.js');
    for (const name of ['channel', 'channel-cut']) {
      const whole = percolates(geometry(name).image, 'y');
      assert.equal(whole, name === 'channel');
      for (const ranks of [2, 3]) {
        const results = await ranksRun(ranks, 'mpi-permeability.mjs', [name]);
        assert.equal(results.length, ranks);
        for (const r of results) {
          if (whole) assert.ok(r.permeability > 0, `${name} on ${ranks} ranks, rank ${r.rank}: ${JSON.stringify(r)}`);
          else {
            assert.deepEqual([r.error, r.argument], ['RangeError', 'image'], `${name}, rank ${r.rank}`);
            assert.match(r.message, /no pore path joins the inlet and outlet faces along y/);
          }
        }
      }
    }
  });
});

describe('the mpi option without MPI', () => {
  it('refuses what is not @peclet/mpi, and MPI not initialized, naming the option', () => {
    assert.throws(() => new Lattice({ shape: [4, 4, 4], mpi: {} }), {
      name: 'TypeError',
      argument: 'mpi',
      message: /has no initialized, rank, size, allreduce, send, recv, sendrecv, barrier/,
    });
    assert.throws(() => new Lattice({ shape: [4, 4, 4], mpi }), {
      name: 'TypeError',
      argument: 'mpi',
      message: /MPI is not initialized: call mpi.init\(\) first/,
    });
    assert.throws(() => slabPlanes(10, mpi), { name: 'TypeError', argument: 'mpi' });
    assert.throws(() => slabOf({ solid: new Uint8Array(8), shape: [2, 2, 2], voxelSize: 1 }, null), {
      name: 'TypeError',
      argument: 'mpi',
    });
    return assert.rejects(permeability({ solid: new Uint8Array(8), shape: [2, 2, 2], voxelSize: 1 }, { mpi: 7 }), {
      name: 'TypeError',
      argument: 'mpi',
    });
  });

  it('reads a communicator once and checks what it says; a getter for mpi is refused, not ignored', async () => {
    const alone = {
      initialized: () => true,
      rank: () => 0,
      size: () => 1,
      allreduce: (v) => v,
      send() {},
      recv() {},
      sendrecv() {},
      barrier() {},
    };
    for (const liar of [{ size: () => 0 }, { size: () => Number.NaN }, { rank: () => 5 }, { rank: () => -1 }]) {
      assert.throws(() => slabPlanes(30, { ...alone, ...liar }), {
        name: 'TypeError',
        argument: 'mpi',
        message: /not an MPI communicator/,
      });
    }
    // Functions that answer once: read once, so the call still works.
    let reads = 0;
    const once = Object.defineProperty({ ...alone }, 'size', {
      get: () => (reads++ === 0 ? () => 1 : undefined),
    });
    assert.deepEqual(slabPlanes(30, once), { start: 0, count: 30 });
    assert.throws(() => slabOf({ solid: new Uint8Array(4), shape: [1, 2, 2], voxelSize: 1 }, alone), {
      name: 'RangeError',
      argument: 'image',
    });
    await assert.rejects(
      permeability(
        { solid: new Uint8Array(64), shape: [4, 4, 4], voxelSize: 1 },
        {
          maxSteps: 10,
          get mpi() {
            return alone;
          },
        },
      ),
      { name: 'TypeError', argument: 'mpi', message: /data property/ },
    );
  });
});
