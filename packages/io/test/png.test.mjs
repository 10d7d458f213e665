// Slices and PNG: write, decode with fast-png, check size and colours (viridis ends, gray, mask).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { decode } from 'fast-png';
import { sliceOf, writePng } from '../dist/index.js';
import { tempDir, throwsNaming } from './fixtures/helpers.mjs';

const dir = tempDir();
const pixel = (png, x, y) => [...png.data.slice(3 * (y * png.width + x), 3 * (y * png.width + x) + 3)];

describe('sliceOf', () => {
  const shape = [3, 4, 5];
  const field = Float64Array.from({ length: 60 }, (_, e) => e);
  it('each axis: columns the lower remaining axis, rows the higher', () => {
    const x = sliceOf(field, shape, { axis: 'x', index: 2 });
    assert.deepEqual([x.width, x.height], [4, 5]);
    assert.equal(x.data[3 * 4 + 1], (2 * 4 + 1) * 5 + 3); // (i=2, j=1, k=3)
    const y = sliceOf(field, shape, { axis: 1, index: 3 });
    assert.deepEqual([y.width, y.height], [3, 5]);
    assert.equal(y.data[4 * 3 + 2], (2 * 4 + 3) * 5 + 4);
    const z = sliceOf(field, shape, { axis: 'z', index: 0 });
    assert.deepEqual([z.width, z.height], [3, 4]);
    assert.equal(z.data[3 * 3 + 1], (1 * 4 + 3) * 5);
  });
  it('a 3-component field gives the magnitude, or one component', () => {
    const v = new Float32Array(3 * 8);
    v.set([3, 4, 0], 3 * 5); // voxel (1, 0, 1) of a 2×2×2 grid
    const m = sliceOf(v, [2, 2, 2], { axis: 0, index: 1, components: 3 });
    assert.deepEqual([...m.data], [0, 0, 5, 0]); // column j = 0, row k = 1
    const c = sliceOf(v, [2, 2, 2], { axis: 0, index: 1, components: 3, component: 1 });
    assert.deepEqual([...c.data], [0, 0, 4, 0]);
  });
  it('bad input', () => {
    throwsNaming(() => sliceOf([1, 2], [1, 1, 2], { axis: 0, index: 0 }), TypeError, 'field');
    throwsNaming(() => sliceOf(field, shape, { axis: 'w', index: 0 }), TypeError, 'axis');
    throwsNaming(() => sliceOf(field, shape, { axis: 0, index: 3 }), RangeError, 'index');
    throwsNaming(() => sliceOf(field, shape, { axis: 0, index: Number.NaN }), RangeError, 'index');
    throwsNaming(() => sliceOf(field, [3, 4, 4], { axis: 0, index: 0 }), RangeError, 'field');
    throwsNaming(() => sliceOf(field, shape, { axis: 0, index: 0, components: 0 }), RangeError, 'components');
    throwsNaming(
      () => sliceOf(field, [1, 4, 5], { axis: 0, index: 0, components: 3, magnitude: false }),
      TypeError,
      'component',
    );
  });
});

describe('writePng', () => {
  it('viridis ends, size, the mask and NaN in gray', async () => {
    const file = join(dir, 'v.png');
    await writePng(
      file,
      { data: [0, 0.5, 1, Number.NaN, 2, 7], width: 3, height: 2 },
      { mask: Uint8Array.of(0, 0, 0, 0, 1, 0), range: [0, 1] },
    );
    const png = decode(readFileSync(file));
    assert.deepEqual([png.width, png.height, png.channels, png.depth], [3, 2, 3, 8]);
    assert.deepEqual(pixel(png, 0, 0), [68, 1, 84], 'viridis(0)');
    assert.deepEqual(pixel(png, 2, 0), [253, 231, 37], 'viridis(1)');
    assert.deepEqual(pixel(png, 0, 1), [128, 128, 128], 'NaN');
    assert.deepEqual(pixel(png, 1, 1), [128, 128, 128], 'masked');
    assert.deepEqual(pixel(png, 2, 1), [253, 231, 37], 'clamped to the range');
  });
  it('gray with the default range; a slice straight in', async () => {
    const file = join(dir, 'g.png');
    const slice = sliceOf(Uint8Array.of(0, 1, 2, 3), [1, 2, 2], { axis: 0, index: 0 });
    await writePng(file, slice, { colormap: 'gray' });
    const png = decode(readFileSync(file));
    assert.deepEqual([png.width, png.height], [2, 2]);
    assert.deepEqual(pixel(png, 0, 0), [0, 0, 0]);
    assert.deepEqual(pixel(png, 1, 1), [255, 255, 255]);
    assert.deepEqual(pixel(png, 1, 0), [170, 170, 170]); // column j = 1, row k = 0: value 2 of [0, 3]
    assert.deepEqual(pixel(png, 0, 1), [85, 85, 85]);
  });
  it('bad input', async () => {
    const file = join(dir, 'bad.png');
    const image = { data: [1, 2], width: 2, height: 1 };
    await throwsNaming(() => writePng(file, { ...image, width: 0 }), RangeError, 'image.width');
    await throwsNaming(() => writePng(file, { ...image, height: Number.NaN }), RangeError, 'image.height');
    await throwsNaming(() => writePng(file, { ...image, data: [1] }), RangeError, 'image.data');
    await throwsNaming(() => writePng(file, { ...image, data: ['a', 1] }), TypeError, 'image.data');
    await throwsNaming(() => writePng(file, image, { colormap: 'jet' }), TypeError, 'colormap');
    await throwsNaming(() => writePng(file, image, { range: [1, 0] }), RangeError, 'range');
    await throwsNaming(() => writePng(file, image, { mask: new Uint8Array(3) }), RangeError, 'mask');
    await throwsNaming(
      () => writePng(file, { data: new Float64Array(2e6), width: 1e6, height: 1e6 }),
      RangeError,
      'image',
    );
  });
});
