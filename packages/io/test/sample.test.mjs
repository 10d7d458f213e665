// The shipped Berea sample: where it is, that it stays small, and what it holds.
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAbsolute } from 'node:path';
import { describe, it } from 'node:test';
import { bereaSamplePath, porosity, readBereaSample, readImage } from '../dist/index.js';

describe('the Berea sandstone sample', () => {
  it('is an absolute path to a file of at most 150 KB, the same from the CommonJS build', () => {
    assert.ok(isAbsolute(bereaSamplePath), bereaSamplePath);
    assert.match(bereaSamplePath, /data\/berea-100\.npz$/);
    const bytes = statSync(bereaSamplePath).size;
    assert.ok(bytes <= 150_000, `${bereaSamplePath} is ${bytes} bytes`);
    assert.equal(createRequire(import.meta.url)('../dist/index.cjs').bereaSamplePath, bereaSamplePath);
  });

  it('reads as 100³ voxels of 5.345 µm, porosity 0.215303, as readImage reads it', async () => {
    const image = await readBereaSample();
    assert.deepEqual(image.shape, [100, 100, 100]);
    assert.equal(image.voxelSize, 5.345e-6);
    assert.equal(porosity(image), 0.215303);
    const again = await readImage(bereaSamplePath, { voxelSize: 5.345e-6 });
    assert.deepEqual(again.solid, image.solid);
  });
});
