// Deterministic images of overlapping spherical grains for the pnm benchmark: a Boolean model of
// spheres (the grains, solid) with centres uniform over the box and radii uniform in
// [rMin, rMax] voxels; the pore space is what lies between them. Voxel (i, j, k) is centred at
// (i + ½, j + ½, k + ½); the image is C order, 1 = solid.

/** mulberry32: a small seeded PRNG, uniform in [0, 1). */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * An n³ image of overlapping spheres whose porosity is close to `porosity`. For a Boolean model the
 * expected porosity is exp(−λ E[V]) (λ: centres per voxel, E[V]: mean sphere volume), so the
 * number of spheres is fixed up front; centres are drawn over the box grown by rMax on each side so
 * that the faces see the same density as the inside. Each sphere fills its rows in its bounding box
 * (a fill per row), so 1000³ takes seconds. Returns { solid, shape, voxelSize, porosity, spheres }.
 */
export function overlappingSpheres(n, { porosity = 0.35, rMin = 8, rMax = 12, seed = 1, voxelSize = 1e-6 } = {}) {
  const solid = new Uint8Array(n * n * n);
  const random = mulberry32(seed);
  const meanCube = rMax === rMin ? rMin ** 3 : (rMax ** 4 - rMin ** 4) / (4 * (rMax - rMin));
  const span = n + 2 * rMax;
  const spheres = Math.round((-Math.log(porosity) * span ** 3) / ((4 / 3) * Math.PI * meanCube));
  for (let s = 0; s < spheres; s++) {
    const cx = random() * span - rMax;
    const cy = random() * span - rMax;
    const cz = random() * span - rMax;
    const r = rMin + random() * (rMax - rMin);
    const r2 = r * r;
    const i0 = Math.max(0, Math.ceil(cx - r - 0.5));
    const i1 = Math.min(n - 1, Math.floor(cx + r - 0.5));
    for (let i = i0; i <= i1; i++) {
      const di = i + 0.5 - cx;
      const ri2 = r2 - di * di;
      if (ri2 < 0) continue;
      const ri = Math.sqrt(ri2);
      const j0 = Math.max(0, Math.ceil(cy - ri - 0.5));
      const j1 = Math.min(n - 1, Math.floor(cy + ri - 0.5));
      for (let j = j0; j <= j1; j++) {
        const dj = j + 0.5 - cy;
        const rj2 = ri2 - dj * dj;
        if (rj2 < 0) continue;
        const w = Math.sqrt(rj2);
        const k0 = Math.max(0, Math.ceil(cz - w - 0.5));
        const k1 = Math.min(n - 1, Math.floor(cz + w - 0.5));
        if (k0 > k1) continue;
        const row = (i * n + j) * n;
        for (let v = row + k0, end = row + k1; v <= end; v++) solid[v] = 1;
      }
    }
  }
  return { solid, shape: [n, n, n], voxelSize, porosity: 1 - countSolid(solid) / solid.length, spheres };
}

/** The number of ones in a 0/1 image, four bytes at a time. */
export function countSolid(solid) {
  const words = solid.byteOffset % 4 === 0 ? Math.floor(solid.length / 4) : 0;
  const packed = new Uint32Array(solid.buffer, solid.byteOffset, words);
  let count = 0;
  for (let w = 0; w < words; w++) count += Math.imul(packed[w], 0x01010101) >>> 24;
  for (let v = 4 * words; v < solid.length; v++) count += solid[v];
  return count;
}
