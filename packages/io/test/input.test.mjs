// VoxelImage helpers, and bad input for every function: a TypeError or RangeError whose message
// starts with the argument it names (`.argument`), never a crash or a silent success.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  checkVoxelImage,
  fromPoreSpy,
  porosity,
  readImage,
  readNpy,
  readRaw,
  readTiff,
  sliceOf,
  writePng,
  writeVti,
  writeVtp,
} from '../dist/index.js';
import { detached, tempDir, throwsNaming } from './fixtures/helpers.mjs';

const dir = tempDir();
const good = () => ({ solid: new Uint8Array(60), shape: [3, 4, 5], voxelSize: 1e-6 });

describe('VoxelImage', () => {
  it('checkVoxelImage normalizes without copying', () => {
    const image = { ...good(), shape: Int32Array.of(3, 4, 5), extra: 1 };
    const out = checkVoxelImage(image);
    assert.equal(out.solid, image.solid);
    assert.deepEqual(out.shape, [3, 4, 5]);
    assert.ok(Array.isArray(out.shape));
    assert.deepEqual(Object.keys(out), ['solid', 'shape', 'voxelSize']);
  });
  it('checkVoxelImage names the sub-argument', () => {
    throwsNaming(() => checkVoxelImage(null), TypeError, 'image');
    throwsNaming(() => checkVoxelImage({ ...good(), voxelSize: 0 }, 'rock'), RangeError, 'rock.voxelSize');
    throwsNaming(() => checkVoxelImage({ ...good(), solid: 1 }, 'rock'), TypeError, 'rock.solid');
  });
  it('fromPoreSpy: True = pore becomes solid = 0', () => {
    const im = fromPoreSpy([true, false, 1, 0, 0.5, -0, true, true], [2, 2, 2], 1e-6);
    assert.deepEqual([...im.solid], [0, 1, 0, 1, 0, 1, 0, 0]);
    assert.deepEqual(im.shape, [2, 2, 2]);
    const source = Uint8Array.of(1, 0, 1, 1, 1, 1, 1, 1);
    const fromTyped = fromPoreSpy(source, [2, 2, 2], 1);
    assert.notEqual(fromTyped.solid, source, 'a new array');
    assert.deepEqual([...fromTyped.solid], [0, 1, 0, 0, 0, 0, 0, 0]);
  });
  it('porosity is the fraction of zero voxels', () => {
    assert.equal(porosity({ solid: Uint8Array.of(1, 0, 0, 1, 0, 0, 0, 0), shape: [2, 2, 2], voxelSize: 1 }), 0.75);
    assert.equal(porosity({ solid: new Uint8Array(8).fill(2), shape: [2, 2, 2], voxelSize: 1 }), 0);
  });
});

describe('bad input', () => {
  it('checkVoxelImage and porosity', () => {
    for (const f of [checkVoxelImage, porosity]) {
      throwsNaming(() => f(undefined), TypeError, 'image');
      throwsNaming(() => f([1]), TypeError, 'image');
      throwsNaming(() => f({ ...good(), solid: [0, 1] }), TypeError, 'image.solid');
      throwsNaming(() => f({ ...good(), solid: new Float64Array(60) }), TypeError, 'image.solid');
      throwsNaming(() => f({ ...good(), solid: detached(Uint8Array, 60) }), TypeError, 'image.solid');
      throwsNaming(() => f({ ...good(), shape: [3, 4] }), TypeError, 'image.shape');
      throwsNaming(() => f({ ...good(), shape: [3, 4, '5'] }), TypeError, 'image.shape');
      throwsNaming(() => f({ ...good(), shape: [3, 4, 0] }), RangeError, 'image.shape');
      throwsNaming(() => f({ ...good(), shape: [3, -4, 5] }), RangeError, 'image.shape');
      throwsNaming(() => f({ ...good(), shape: [3, 4, Number.NaN] }), RangeError, 'image.shape');
      throwsNaming(() => f({ ...good(), shape: [3, 4.5, 5] }), RangeError, 'image.shape');
      throwsNaming(() => f({ ...good(), shape: [2 ** 30, 2 ** 30, 2 ** 30] }), RangeError, 'image.shape', /overflow/);
      throwsNaming(() => f({ ...good(), shape: [3, 4, 6] }), RangeError, 'image.shape', /72.*60/);
      throwsNaming(() => f({ ...good(), voxelSize: 0 }), RangeError, 'image.voxelSize');
      throwsNaming(() => f({ ...good(), voxelSize: -1 }), RangeError, 'image.voxelSize');
      throwsNaming(() => f({ ...good(), voxelSize: Number.NaN }), RangeError, 'image.voxelSize');
      throwsNaming(() => f({ ...good(), voxelSize: Number.POSITIVE_INFINITY }), RangeError, 'image.voxelSize');
      throwsNaming(() => f({ ...good(), voxelSize: '1' }), TypeError, 'image.voxelSize');
    }
  });
  it('fromPoreSpy', () => {
    throwsNaming(() => fromPoreSpy('abc', [1, 1, 3], 1), TypeError, 'im');
    throwsNaming(() => fromPoreSpy(detached(Uint8Array, 8), [2, 2, 2], 1), TypeError, 'im');
    throwsNaming(() => fromPoreSpy(new BigInt64Array(8), [2, 2, 2], 1), TypeError, 'im');
    throwsNaming(() => fromPoreSpy([1, 0], [2, 2, 2], 1), RangeError, 'shape', /8.*2/);
    throwsNaming(() => fromPoreSpy([1, 'x'], [1, 1, 2], 1), TypeError, 'im');
    throwsNaming(() => fromPoreSpy([1, Number.NaN], [1, 1, 2], 1), RangeError, 'im');
    throwsNaming(() => fromPoreSpy([1, 0], [1, 1, 2], -1), RangeError, 'voxelSize');
    throwsNaming(() => fromPoreSpy([1, 0], [1, 2], 1), TypeError, 'shape');
  });
  it('readers', async () => {
    const raw = join(dir, 'x.raw');
    writeFileSync(raw, new Uint8Array(8));
    const ok = { shape: [2, 2, 2], voxelSize: 1 };
    await throwsNaming(() => readRaw(1, ok), TypeError, 'path');
    await throwsNaming(() => readRaw(raw), TypeError, 'options');
    await throwsNaming(() => readRaw(raw, { ...ok, shape: [2, 2, -2] }), RangeError, 'shape');
    await throwsNaming(() => readRaw(raw, { ...ok, shape: [1e12, 1e12, 1e12] }), RangeError, 'shape');
    await throwsNaming(() => readRaw(raw, { ...ok, dtype: 'uint64' }), TypeError, 'dtype');
    await throwsNaming(() => readRaw(raw, { ...ok, voxelSize: Number.NaN }), RangeError, 'voxelSize');
    await throwsNaming(() => readRaw(raw, { ...ok, voxelSize: undefined }), TypeError, 'voxelSize');
    await throwsNaming(() => readRaw(raw, { ...ok, littleEndian: 1 }), TypeError, 'littleEndian');
    await throwsNaming(() => readRaw(raw, { ...ok, solid: 'pore' }), TypeError, 'solid');
    await throwsNaming(() => readRaw(raw, { ...ok, planes: 1 }), TypeError, 'planes');
    await throwsNaming(() => readRaw(raw, { ...ok, planes: { start: 2, count: 1 } }), RangeError, 'planes.start');
    await throwsNaming(() => readRaw(raw, { ...ok, planes: { start: 1, count: 2 } }), RangeError, 'planes.count');
    await throwsNaming(() => readRaw(raw, { ...ok, planes: { start: 0, count: 0 } }), RangeError, 'planes.count');
    await throwsNaming(() => readRaw(raw, { ...ok, planes: { start: -1, count: 1 } }), RangeError, 'planes.start');
    await throwsNaming(() => readRaw(raw, { ...ok, planes: { start: 0.5, count: 1 } }), RangeError, 'planes.start');
    for (const read of [readNpy, readTiff]) {
      await throwsNaming(() => read(null, { voxelSize: 1 }), TypeError, 'path');
      await throwsNaming(() => read(raw, { voxelSize: -1 }), RangeError, 'voxelSize');
      await throwsNaming(() => read(raw, 5), TypeError, 'options');
      await throwsNaming(() => read(raw, { voxelSize: 1, solid: true }), TypeError, 'solid');
    }
    await throwsNaming(() => readNpy(join(dir, 'a.npz'), { voxelSize: 1, key: 3 }), TypeError, 'key');
    await throwsNaming(() => readNpy(join(dir, 'a.npy'), { voxelSize: 1, key: 'im' }), TypeError, 'key');
    await throwsNaming(() => readImage(join(dir, 'a.png'), ok), RangeError, 'path');
    await throwsNaming(() => readImage({}, ok), TypeError, 'path');
  });
  it('writers', async () => {
    const file = join(dir, 'w.vti');
    const cellData = { p: new Float64Array(8) };
    await throwsNaming(() => writeVti(file, { shape: [2, 2], cellData }), TypeError, 'shape');
    await throwsNaming(() => writeVti(file, { shape: [2, 2, 2], cellData, spacing: 0 }), RangeError, 'spacing');
    await throwsNaming(
      () => writeVti(file, { shape: [2, 2, 2], cellData, spacing: [1, Number.NaN, 1] }),
      RangeError,
      'spacing[1]',
    );
    await throwsNaming(
      () => writeVti(file, { shape: [2, 2, 2], cellData, spacing: [1, -1, 1] }),
      RangeError,
      'spacing[1]',
    );
    await throwsNaming(() => writeVti(file, { shape: [2, 2, 2], cellData, origin: [0, 0] }), TypeError, 'origin');
    await throwsNaming(() => writeVti(file, { shape: [2, 2, 2] }), TypeError, 'cellData');
    await throwsNaming(() => writeVti(file, { shape: [2, 2, 2], cellData: { p: [1, 2] } }), TypeError, 'cellData.p');
    await throwsNaming(
      () => writeVti(file, { shape: [2, 2, 2], cellData: { p: new BigInt64Array(8) } }),
      TypeError,
      'cellData.p',
    );
    await throwsNaming(
      () => writeVti(file, { shape: [2, 2, 2], cellData: { p: detached(Float64Array, 8) } }),
      TypeError,
      'cellData.p',
    );
    await throwsNaming(
      () => writeVti(file, { shape: [2, 2, 2], cellData: { u: { values: new Float64Array(8), components: 0 } } }),
      RangeError,
      'cellData.u.components',
    );
    await throwsNaming(
      () => writeVti(file, { shape: [2, 2, 2], cellData: { u: { values: 'x', components: 1 } } }),
      TypeError,
      'cellData.u.values',
    );
    await throwsNaming(() => writeVtp(file, { points: detached(Float64Array, 3) }), TypeError, 'points');
    await throwsNaming(() => writeVtp(file, { points: new Float64Array(3), verts: 'yes' }), TypeError, 'verts');
    await throwsNaming(() => sliceOf(detached(Float64Array, 8), [2, 2, 2], { axis: 0, index: 0 }), TypeError, 'field');
    await throwsNaming(
      () => writePng(file, { data: detached(Float64Array, 1), width: 1, height: 1 }),
      TypeError,
      'image.data',
    );
  });
});

describe('memory', () => {
  it('a refusal for want of memory has code PECLET_OUT_OF_MEMORY, as in every module', async () => {
    const error = await throwsNaming(
      () => writePng(join(dir, 'huge.png'), { data: [], width: 100_000, height: 100_000 }),
      RangeError,
      'image',
    );
    assert.equal(error.code, 'PECLET_OUT_OF_MEMORY');
  });
});

describe('special files', () => {
  // A FIFO's plain open() waits for a writer for ever: every reader must refuse it at once, as it
  // refuses a directory or a character device, naming `path`.
  const fifo = join(dir, 'pipe.raw');
  execFileSync('mkfifo', [fifo]);
  const cases = {
    'readRaw of a FIFO': () => readRaw(fifo, { shape: [2, 2, 2], voxelSize: 1e-6 }),
    'readNpy of a FIFO': () => readNpy(fifo, { voxelSize: 1e-6 }),
    'readNpy of a FIFO named .npz': () => readNpy(join(dir, 'pipe.npz'), { voxelSize: 1e-6 }),
    'readTiff of a FIFO': () => readTiff(join(dir, 'pipe.tif'), { voxelSize: 1e-6 }),
    'readImage of a FIFO': () => readImage(fifo, { shape: [2, 2, 2], voxelSize: 1e-6 }),
    'readRaw of /dev/zero': () => readRaw('/dev/zero', { shape: [2, 2, 2], voxelSize: 1e-6 }),
    'readRaw of a directory': () => readRaw(dir, { shape: [2, 2, 2], voxelSize: 1e-6 }),
  };
  execFileSync('mkfifo', [join(dir, 'pipe.npz'), join(dir, 'pipe.tif')]);
  for (const [name, read] of Object.entries(cases)) {
    it(`${name} is a TypeError naming path, at once`, async () => {
      let timer;
      const hang = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${name}: still waiting after 5 s`)), 5000);
      });
      try {
        await Promise.race([throwsNaming(read, TypeError, 'path', /regular file/), hang]);
      } finally {
        clearTimeout(timer);
      }
    });
  }
});
