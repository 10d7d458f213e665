// Images with known networks, shared by the pnm tests and the demo.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

const here = import.meta.dirname ?? new URL('.', import.meta.url).pathname;

/**
 * A simple cubic lattice of spherical pores (radius `R` voxels) joined along the three axes by
 * cylinders (radius `r`), spacing `a` (odd, so that centres fall on voxel centres), `cells` per
 * axis, in solid. Cylinders run on through the faces.
 */
export function sphereLattice({ cells = 3, a = 21, R = 7, r = 3, voxelSize = 1e-6 } = {}) {
  const n = cells * a;
  const solid = new Uint8Array(n * n * n).fill(1);
  const rel = (x) => {
    const p = x + 0.5 - a / 2;
    return p - Math.round(p / a) * a;
  };
  for (let i = 0; i < n; i++) {
    const x = rel(i);
    for (let j = 0; j < n; j++) {
      const y = rel(j);
      for (let k = 0; k < n; k++) {
        const z = rel(k);
        const sphere = x * x + y * y + z * z <= R * R;
        const cylinder = y * y + z * z <= r * r || x * x + z * z <= r * r || x * x + y * y <= r * r;
        if (sphere || cylinder) solid[(i * n + j) * n + k] = 0;
      }
    }
  }
  return { solid, shape: [n, n, n], voxelSize };
}

/**
 * Straight tubes along x through solid: `radii` (voxels) side by side along y, in a box of
 * `length` × ... voxels; returns the image and, per tube, its voxel count per slice.
 */
export function tubes({ radii, length = 24, voxelSize = 1e-6 }) {
  const width = 2 * Math.ceil(Math.max(...radii)) + 5;
  const n1 = width * radii.length;
  const n2 = width;
  const solid = new Uint8Array(length * n1 * n2).fill(1);
  const section = radii.map(() => 0);
  radii.forEach((r, t) => {
    const cy = t * width + width / 2;
    const cz = width / 2;
    for (let j = t * width; j < (t + 1) * width; j++) {
      for (let k = 0; k < n2; k++) {
        const y = j + 0.5 - cy;
        const z = k + 0.5 - cz;
        if (y * y + z * z > r * r) continue;
        section[t]++;
        for (let i = 0; i < length; i++) solid[(i * n1 + j) * n2 + k] = 0;
      }
    }
  });
  return { image: { solid, shape: [length, n1, n2], voxelSize }, section };
}

/** The Berea sandstone 200³ image (1 = solid): the fixture committed with @peclet/flow. */
export function berea() {
  const bytes = gunzipSync(readFileSync(join(here, '..', '..', 'flow', 'test', 'fixtures', 'berea-200.raw.gz')));
  return {
    solid: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length),
    shape: [200, 200, 200],
    voxelSize: 5.345e-6,
  };
}
