// Geometry shared by the flow tests and benchmarks.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

const here = import.meta.dirname ?? new URL('.', import.meta.url).pathname;

/** Zick & Homsy (1982), K = F/(6πμaU) for simple cubic arrays (see ../../../README's references). */
export const zickHomsy = {
  0.027: 2.008,
  0.064: 2.81,
  0.125: 4.292,
  0.216: 7.442,
  0.343: 15.4,
  0.45: 28.1,
  0.5236: 42.1,
};

/**
 * One sphere of solid fraction `c` centred in a periodic cube of `n` voxels: its signed distance
 * per voxel (voxel centres at i + ½) and its radius in voxels.
 */
export function sphereCell(c, n) {
  const radius = n * Math.cbrt((3 * c) / (4 * Math.PI));
  const sdf = new Float64Array(n * n * n);
  const h = n / 2;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      for (let k = 0; k < n; k++) {
        sdf[(i * n + j) * n + k] = Math.hypot(i + 0.5 - h, j + 0.5 - h, k + 0.5 - h) - radius;
      }
    }
  }
  return { sdf, radius };
}

/** The Berea sandstone 200³ image (1 = solid), from the committed gzip. */
export function berea() {
  const bytes = gunzipSync(readFileSync(join(here, 'fixtures', 'berea-200.raw.gz')));
  return {
    solid: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length),
    shape: [200, 200, 200],
    voxelSize: 5.345e-6,
  };
}

/** The sub-cube [0, n)³ of an image. */
export function crop(image, n) {
  const [, n1, n2] = image.shape;
  const solid = new Uint8Array(n * n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      const from = (i * n1 + j) * n2;
      solid.set(image.solid.subarray(from, from + n), (i * n + j) * n);
    }
  }
  return { solid, shape: [n, n, n], voxelSize: image.voxelSize };
}
