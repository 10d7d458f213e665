/**
 * Checks that catch the common mistakes of a first run — a voxel size in micrometres instead of
 * metres, pore and solid swapped, a raw file read with the wrong shape — as sentences, so that a
 * program can print them or put them in its results. They never throw on a valid image: an odd
 * sample may be right.
 */
import { describeValue, fail } from '@peclet/core';
import { checkVoxelImage, type VoxelImage } from './voxel.js';

/** 1 darcy in m². */
const DARCY = 9.869233e-13;

/** The range of voxel sizes (m) of micro-CT and FIB-SEM images of porous media. */
export const plausibleVoxelSize = { min: 1e-9, max: 1e-3 } as const;
/** The porosities of rocks and packings: outside, pore and solid are most likely swapped. */
export const plausiblePorosity = { min: 0.01, max: 0.9 } as const;
/** Above this permeability (m², 1000 D) a sample is not a rock: a unit or a convention is wrong. */
export const plausiblePermeability = 1e3 * DARCY;

/** Pairs sampled per axis by the neighbour correlation (about 8 M voxels in all). */
const sampledVoxels = 8e6;

const axes = ['x', 'y', 'z'] as const;

/**
 * The correlation coefficient of the solid flags of neighbouring voxels along each axis,
 * `[rx, ry, rz]` (null where an axis is 1 voxel long or the image is all pore or all solid).
 * Grains and pores of a real image span several voxels, so each is well above 0 (Berea: 0.8–0.9);
 * along an axis whose rows do not line up — a raw file read with the wrong `shape` — it is near 0.
 * Large images are sampled plane by plane along x (about 8 M voxels).
 *
 * @example
 * ```ts
 * const [rx, ry, rz] = neighbourCorrelation(image);
 * ```
 */
export function neighbourCorrelation(image: VoxelImage): [number | null, number | null, number | null] {
  const { solid, shape } = checkVoxelImage(image);
  const [n0, n1, n2] = shape;
  const plane = n1 * n2;
  const stride = Math.max(1, Math.ceil((n0 * plane) / sampledVoxels));
  let count = 0;
  let solids = 0;
  let both0 = 0;
  let both1 = 0;
  let both2 = 0;
  let pairs0 = 0;
  let pairs1 = 0;
  let pairs2 = 0;
  for (let i = 0; i < n0; i += stride) {
    const base = i * plane;
    const next = i + 1 < n0 ? base + plane : -1;
    for (let j = 0; j < n1; j++) {
      const row = base + j * n2;
      for (let k = 0; k < n2; k++) {
        const v = row + k;
        const s = solid[v] !== 0 ? 1 : 0;
        count++;
        solids += s;
        if (next >= 0) {
          pairs0++;
          if (s && solid[v + plane] !== 0) both0++;
        }
        if (j + 1 < n1) {
          pairs1++;
          if (s && solid[v + n2] !== 0) both1++;
        }
        if (k + 1 < n2) {
          pairs2++;
          if (s && solid[v + 1] !== 0) both2++;
        }
      }
    }
  }
  const f = solids / count;
  const variance = f * (1 - f);
  const r = (both: number, pairs: number) => (pairs === 0 || variance === 0 ? null : (both / pairs - f * f) / variance);
  return [r(both0, pairs0), r(both1, pairs1), r(both2, pairs2)];
}

/**
 * Warnings about an image that is valid but unlikely to be what was meant: a voxel size outside
 * 1 nm – 1 mm (a unit slip), a porosity outside 0.01 – 0.9 (pore and solid swapped, or the wrong
 * rule for the file's values), and an axis along which neighbouring voxels are unrelated while
 * they are related along another (|r| < 0.1 against r ≥ 0.5, see {@link neighbourCorrelation}:
 * the wrong shape for a raw file, or its axes in another order; images at least 16 voxels along
 * every axis).
 * An empty array when nothing looks wrong.
 *
 * @example
 * ```ts
 * const image = await readImage('berea.raw', { shape: [400, 200, 100], voxelSize: 5.345e-6 });
 * imageWarnings(image); // ['neighbouring voxels along x are unrelated (correlation 0.01, …): …']
 * ```
 */
export function imageWarnings(image: VoxelImage): string[] {
  const { solid, voxelSize, shape } = checkVoxelImage(image);
  const warnings: string[] = [];
  if (voxelSize > plausibleVoxelSize.max) {
    warnings.push(
      `the voxel size ${voxelSize} m is above 1 mm: voxel sizes are in metres (5.345 µm is 5.345e-6); was it given in micrometres or millimetres?`,
    );
  } else if (voxelSize < plausibleVoxelSize.min) {
    warnings.push(
      `the voxel size ${voxelSize} m is below 1 nm: voxel sizes are in metres (5.345 µm is 5.345e-6); was it converted twice?`,
    );
  }
  let pores = 0;
  for (let i = 0; i < solid.length; i++) if (solid[i] === 0) pores++;
  const porosity = pores / solid.length;
  if (porosity > plausiblePorosity.max || porosity < plausiblePorosity.min) {
    warnings.push(
      `the porosity ${Number(porosity.toPrecision(3))} is ${porosity > plausiblePorosity.max ? 'above 0.9' : 'below 0.01'}, unusual for a rock: are pore and solid swapped? (${image.convention ?? 'non-zero voxels are solid'}; PoreSpy's images are True = pore)`,
    );
  }
  // Small images (a duct, a slit, a test geometry) are too regular for the neighbour test.
  if (Math.min(...shape) < 16) return warnings;
  const r = neighbourCorrelation(image);
  const known = r.filter((x): x is number => x !== null);
  const best = Math.max(...known);
  const unrelated = [0, 1, 2].filter((a) => r[a] !== null && Math.abs(r[a] as number) < 0.1);
  if (best >= 0.5 && unrelated.length > 0) {
    const along = axes[r.indexOf(best)];
    warnings.push(
      `neighbouring voxels along ${unrelated.map((a) => axes[a]).join(' and ')} are unrelated (correlation ${unrelated.map((a) => (r[a] as number).toFixed(2)).join(', ')}, against ${best.toFixed(2)} along ${along}): the shape may not match the data (for a raw file, check the shape and that its last axis varies fastest)`,
    );
  }
  return warnings;
}

/**
 * A warning when a permeability (m²) is above 1000 D, which no rock or packing reaches: most
 * likely the voxel size is not in metres, or pore and solid are swapped. `what` names the
 * estimate ("direct", "network"). Undefined when it is plausible.
 *
 * @example
 * ```ts
 * permeabilityWarning(1e-3, 'direct'); // 'the direct permeability 1e-3 m² (1.0e12 D) is above 1000 D: …'
 * ```
 */
export function permeabilityWarning(k: number, what: string): string | undefined {
  if (typeof k !== 'number') fail('type', 'k', `must be a number (m²), got ${describeValue(k)}`);
  if (typeof what !== 'string') fail('type', 'what', `must be a string, got ${describeValue(what)}`);
  if (!(k > plausiblePermeability)) return undefined;
  return `the ${what} permeability ${k.toExponential(3)} m² (${(k / DARCY).toExponential(2)} D) is above 1000 D, which no rock reaches: is the voxel size in metres, and are pore and solid the right way round?`;
}
