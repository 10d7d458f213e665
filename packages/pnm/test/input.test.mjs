// Bad input gets a TypeError or RangeError naming the argument, and leaves what it was called
// on as it was; the Network's lifecycle (release, zero-copy arrays, async extraction) as documented.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { extract, extractAsync, ReleasedError } from '../dist/index.js';
import { sphereLattice, tubes } from './helpers.mjs';

const named = (kind, argument) => (error) => {
  assert.ok(error instanceof kind, `${error?.name}: ${error?.message}`);
  assert.equal(error.argument, argument, error.message);
  assert.ok(error.message.startsWith(argument), error.message);
  return true;
};

const image = (shape, fill = 0) => ({
  solid: new Uint8Array(shape[0] * shape[1] * shape[2]).fill(fill),
  shape,
  voxelSize: 1e-6,
});

describe('bad input', () => {
  it('empty pore space, all pore, non-binary values', () => {
    assert.throws(() => extract(image([8, 8, 8], 1)), named(RangeError, 'image.solid'));
    assert.throws(() => extract(image([8, 8, 8], 0)), named(RangeError, 'image.solid'));
    const two = image([8, 8, 8], 1);
    two.solid[5] = 0;
    two.solid[9] = 2;
    assert.throws(() => extract(two), named(RangeError, 'image.solid'));
  });

  it('wrong shape, length, type or voxel size', () => {
    assert.throws(() => extract({ ...image([4, 4, 4]), shape: [4, 4] }), named(TypeError, 'image.shape'));
    assert.throws(() => extract({ ...image([4, 4, 4]), shape: [4, 4, 5] }), named(RangeError, 'image.shape'));
    assert.throws(() => extract({ ...image([4, 4, 4]), shape: [4, 0, 4] }), named(RangeError, 'image.shape[1]'));
    assert.throws(() => extract({ ...image([4, 4, 4]), solid: new Float64Array(64) }), named(TypeError, 'image.solid'));
    assert.throws(() => extract({ ...image([4, 4, 4]), voxelSize: Number.NaN }), named(RangeError, 'image.voxelSize'));
    assert.throws(() => extract({ ...image([4, 4, 4]), voxelSize: -1 }), named(RangeError, 'image.voxelSize'));
    assert.throws(() => extract(image([4, 4, 4]), { sigma: Number.NaN }), named(RangeError, 'sigma'));
    assert.throws(() => extract(image([4, 4, 4]), { rMax: 0 }), named(RangeError, 'rMax'));
    assert.throws(() => extract(image([4, 4, 4]), { boundaries: ['w'] }), named(TypeError, 'boundaries[0]'));
  });

  it('a network without a percolating path, or without boundary pores, is refused by the solvers (no hang, no singular solve)', () => {
    // two blobs that do not join the x faces to each other
    const im = image([20, 12, 12], 1);
    for (let i = 0; i < 20; i++) {
      if (i === 10) continue;
      for (let j = 3; j < 9; j++) for (let k = 3; k < 9; k++) im.solid[(i * 12 + j) * 12 + k] = 0;
    }
    const split = extract(im, { boundaries: ['x'] });
    assert.throws(() => split.stokesFlow({ axis: 'x' }), named(RangeError, 'axis'));
    assert.throws(() => split.diffusion({ axis: 'x' }), named(RangeError, 'axis'));
    assert.throws(() => split.stokesFlow({ axis: 'y' }), named(RangeError, 'axis'));
    split.release();
  });

  it('NaN and out-of-range physical constants', () => {
    const { image: tube } = tubes({ radii: [3], length: 16 });
    const network = extract(tube, { boundaries: ['x'] });
    assert.throws(() => network.stokesFlow({ viscosity: Number.NaN }), named(RangeError, 'viscosity'));
    assert.throws(() => network.stokesFlow({ viscosity: 0 }), named(RangeError, 'viscosity'));
    assert.throws(
      () => network.stokesFlow({ inletPressure: 5, outletPressure: 5 }),
      named(RangeError, 'inletPressure'),
    );
    assert.throws(() => network.stokesFlow({ tolerance: 2 }), named(RangeError, 'tolerance'));
    assert.throws(() => network.stokesFlow({ conductance: 'magic' }), named(TypeError, 'conductance'));
    assert.throws(() => network.drainage({ contactAngle: Number.NaN }), named(RangeError, 'contactAngle'));
    assert.throws(() => network.drainage({ contactAngle: 30 }), named(RangeError, 'contactAngle'));
    assert.throws(() => network.drainage({ surfaceTension: -1 }), named(RangeError, 'surfaceTension'));
    assert.throws(() => network.drainage({ pressures: [3, 2] }), named(RangeError, 'pressures'));
    assert.throws(() => network.drainage({ pressures: [Number.NaN] }), named(RangeError, 'pressures'));
    assert.throws(() => network.drainage({ entry: 'laplace' }), named(TypeError, 'entry'));
    // the failed calls left the network as it was
    assert.ok(network.stokesFlow().permeability > 0);
    network.release();
  });

  it('arrays written to by the user give a RangeError naming the array, never a crash', () => {
    const { image: tube } = tubes({ radii: [3], length: 16 });
    const network = extract(tube, { boundaries: ['x'] });
    const conns = network.throats.conns;
    const saved = conns[0];
    conns[0] = 1e9;
    assert.throws(() => network.stokesFlow(), named(RangeError, 'network.throats.conns'));
    conns[0] = saved;
    network.throats.length[0] = Number.NaN;
    assert.throws(() => network.diffusion(), named(RangeError, 'network.throats.length'));
    network.release();
  });
});

describe('lifecycle', () => {
  it('release detaches the zero-copy arrays and later calls throw ReleasedError', () => {
    const network = extract(sphereLattice({ cells: 2 }), { boundaries: true });
    const { regions } = network;
    const volume = network.pores.volume;
    assert.equal(regions.length, 42 ** 3);
    assert.ok(volume.length > 0);
    network.release();
    network.release();
    assert.equal(regions.length, 0);
    assert.equal(volume.length, 0);
    assert.throws(() => network.poreCount, ReleasedError);
    assert.throws(() => network.stokesFlow(), ReleasedError);
  });

  it('regions label every pore voxel and no solid voxel', () => {
    const im = sphereLattice({ cells: 2 });
    const network = extract(im);
    const { regions } = network;
    for (let v = 0; v < regions.length; v++) assert.equal(regions[v] > 0, im.solid[v] === 0);
    assert.equal(Math.max(...network.pores.label), network.poreCount);
    network.release();
  });

  it('extractAsync gives the same network, reports progress, and aborts', async () => {
    const im = sphereLattice({ cells: 3 });
    const sync = extract(im, { boundaries: ['x'] });
    const stages = new Set();
    const network = await extractAsync(im, {
      boundaries: ['x'],
      onProgress: (p) => stages.add(p.stage),
      progressInterval: 1,
    });
    assert.equal(network.poreCount, sync.poreCount);
    assert.deepEqual([...network.throats.conns], [...sync.throats.conns]);
    assert.ok(stages.size >= 1);
    const controller = new AbortController();
    const reason = new Error('stop');
    const pending = extractAsync(im, { signal: controller.signal });
    controller.abort(reason);
    await assert.rejects(pending, (e) => e === reason);
    await assert.rejects(
      extractAsync(im, {
        onProgress: () => {
          throw new Error('from onProgress');
        },
        progressInterval: 1,
      }),
      /from onProgress/,
    );
    sync.release();
    network.release();
  });

  it('writes a .vtp that is valid XML of VTK PolyData, and JSON with OpenPNM names', async () => {
    const network = extract(sphereLattice({ cells: 2 }), { boundaries: ['x'] });
    const dir = mkdtempSync(join(tmpdir(), 'pnm-'));
    await network.writeVtp(join(dir, 'net.vtp'));
    const text = readFileSync(join(dir, 'net.vtp'), 'latin1');
    assert.match(text, /^<\?xml version="1.0"\?>/);
    assert.match(text, /<VTKFile type="PolyData"/);
    assert.match(text, new RegExp(`NumberOfPoints="${network.poreCount}"`));
    assert.match(text, new RegExp(`NumberOfLines="${network.throatCount}"`));
    const json = JSON.parse(JSON.stringify(network));
    assert.equal(json['pore.coords'].length, network.poreCount);
    assert.equal(json['throat.conns'].length, network.throatCount);
    network.release();
  });
});
