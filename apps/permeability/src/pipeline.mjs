// The permeability pipeline: a sphere packing (dem) or a micro-CT image, and its permeability
// three independent ways — Kozeny–Carman from the Laguerre cells (voro), the pore network
// (pnm) and lattice Boltzmann on the voxels (flow) — with the porosity each one sees.
import { Simulation } from '@peclet/dem';
import { permeability } from '@peclet/flow';
import { extractAsync } from '@peclet/pnm';
import { tessellate } from '@peclet/voro';

const DARCY = 9.869233e-13; // m²

/**
 * Deposits a polydisperse packing of `spheres` glass beads (radii uniform in [0.4, 0.5] mm) in a
 * column periodic along x and y, walled below. Returns the dem simulation and the cube of the
 * bed's middle to sample: as wide as the column, away from the floor and the loose top.
 */
export function depositPacking({ spheres = 240, seed = 1, width = 4e-3, threads } = {}) {
  const radius = { kind: 'uniform', minRadius: 0.4e-3, maxRadius: 0.5e-3 };
  // Solid volume over the column's section at a packing fraction of about 0.6, twice for the
  // insertion room.
  const meanVolume = (4 / 3) * Math.PI * 0.46e-3 ** 3;
  const height = Math.max(3 * width, (2 * spheres * meanVolume) / (0.6 * width * width));
  const packing = new Simulation({
    box: { min: [0, 0, 0], max: [width, width, height] },
    periodic: [true, true, false],
    gravity: [0, 0, -9.81],
    contact: { model: 'hertz-mindlin', youngsModulus: 5e7, poissonRatio: 0.3, restitution: 0.3, friction: 0.3 },
    ...(threads ? { threads } : {}),
  });
  const report = packing.deposit({ count: spheres, radius, density: 2500, seed });
  let top = 0;
  const p = packing.positions;
  const r = packing.radii;
  for (let i = 0; i < r.length; i++) top = Math.max(top, p[3 * i + 2] + r[i]);
  const middle = top / 2;
  if (top < width + 4 * 1e-3)
    throw new RangeError(
      `spheres: ${spheres} make a bed ${(top * 1e3).toFixed(1)} mm high, too low to sample a cube of ${width * 1e3} mm away from its ends`,
    );
  const region = { min: [0, 0, middle - width / 2], max: [width, width, middle + width / 2] };
  return { packing, region, report, top };
}

/**
 * Kozeny–Carman from the Laguerre cells of the spheres whose centres lie in `region`: each
 * cell's porosity 1 − V_sphere/V_cell and specific surface 4πr²/V_cell; over the region,
 * ε = 1 − ΣV_sphere/ΣV_cell and S = Σ4πr²/ΣV_cell, and k = ε³/(5 S²) (Carman's constant 5:
 * k = ε³ d²/(180 (1 − ε)²) for spheres of diameter d).
 */
export function kozenyCarman(packing, region) {
  const positions = packing.positions;
  const radii = packing.radii;
  const box = packing.box;
  const t = tessellate(Float64Array.from(positions), {
    box,
    periodic: packing.periodic,
    radii: Float64Array.from(radii),
  });
  try {
    const volumes = t.volumes;
    let cells = 0;
    let solid = 0;
    let surface = 0;
    let count = 0;
    const local = [];
    for (let i = 0; i < radii.length; i++) {
      const z = positions[3 * i + 2];
      if (z < region.min[2] || z > region.max[2]) continue;
      const r = radii[i];
      const v = (4 / 3) * Math.PI * r ** 3;
      cells += volumes[i];
      solid += v;
      surface += 4 * Math.PI * r * r;
      local.push(1 - v / volumes[i]);
      count++;
    }
    const porosity = 1 - solid / cells;
    const specificSurface = surface / cells;
    const k = porosity ** 3 / (5 * specificSurface ** 2);
    local.sort((a, b) => a - b);
    return {
      permeability: k,
      millidarcy: (k / DARCY) * 1e3,
      porosity,
      specificSurface,
      cells: count,
      localPorosity: { min: local[0], median: local[local.length >> 1], max: local[local.length - 1] },
    };
  } finally {
    t.release();
  }
}

/**
 * Pore-network permeability along `axis` (pnm: SNOW extraction, Stokes flow with pnm's default
 * conductances, and for comparison the shape-factor and Hagen–Poiseuille models).
 */
export async function networkPermeability(image, { axis = 'x', onStage, threads } = {}) {
  let last;
  const network = await extractAsync(image, {
    boundaries: [axis],
    ...(threads ? { threads } : {}),
    onProgress: (p) => {
      if (p.stage !== last) onStage?.(`pnm: ${p.stage}`);
      last = p.stage;
    },
  });
  try {
    const flow = network.stokesFlow({ axis, viscosity: 1e-3 });
    const shape = network.stokesFlow({ axis, viscosity: 1e-3, conductance: 'shape-factor' });
    const poiseuille = network.stokesFlow({ axis, viscosity: 1e-3, conductance: 'hagen-poiseuille' });
    let pores = 0;
    for (const v of network.pores.volume) pores += v;
    const bulk = image.shape[0] * image.shape[1] * image.shape[2] * image.voxelSize ** 3;
    return {
      network,
      permeability: flow.permeability,
      millidarcy: flow.millidarcy,
      shapeFactor: { permeability: shape.permeability, millidarcy: shape.millidarcy },
      hagenPoiseuille: { permeability: poiseuille.permeability, millidarcy: poiseuille.millidarcy },
      porosity: pores / bulk,
      pores: network.poreCount,
      throats: network.throatCount,
    };
  } catch (error) {
    network.release();
    throw error;
  }
}

/**
 * Direct permeability along `axis`: lattice Boltzmann on the voxels (flow). `sides: 'periodic'`
 * only for a sample whose opposite sides are neighbours (a periodic packing); a rock image's are
 * not, and gets walls (`'sealed'`, the default).
 */
export async function directPermeability(
  image,
  { axis = 'x', sides = 'sealed', onProgress, tolerance = 1e-4, threads } = {},
) {
  return permeability(image, {
    axis,
    sides,
    precision: 'f32',
    tolerance,
    ...(threads ? { threads } : {}),
    onProgress,
  });
}

/** Solid fraction of a voxel image. */
export function voxelPorosity(image) {
  let solid = 0;
  for (const x of image.solid) solid += x;
  return 1 - solid / image.solid.length;
}

/**
 * Kozeny–Carman from a voxel image alone: its porosity and specific surface, the solid–pore
 * voxel faces × 2/3 per bulk volume (a staircase surface is 3/2 of the smooth one it samples,
 * averaged over orientations: Cauchy–Crofton), k = ε³/(5 S²).
 */
export function imageKozenyCarman(image) {
  const [n0, n1, n2] = image.shape;
  const s = image.solid;
  let faces = 0;
  let solid = 0;
  for (let i = 0; i < n0; i++)
    for (let j = 0; j < n1; j++)
      for (let k = 0; k < n2; k++) {
        const c = (i * n1 + j) * n2 + k;
        const here = s[c] !== 0;
        if (here) solid++;
        if (i + 1 < n0 && here !== (s[c + n1 * n2] !== 0)) faces++;
        if (j + 1 < n1 && here !== (s[c + n2] !== 0)) faces++;
        if (k + 1 < n2 && here !== (s[c + 1] !== 0)) faces++;
      }
  const h = image.voxelSize;
  const volume = n0 * n1 * n2 * h ** 3;
  const porosity = 1 - solid / (n0 * n1 * n2);
  const specificSurface = ((2 / 3) * faces * h * h) / volume;
  const k = porosity ** 3 / (5 * specificSurface ** 2);
  return { permeability: k, millidarcy: (k / DARCY) * 1e3, porosity, specificSurface };
}
