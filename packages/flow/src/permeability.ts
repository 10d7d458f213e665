/**
 * permeability(): the two standard set-ups on a voxel image, and the Darcy permeability of the
 * sample from the steady flow.
 * @internal
 */
import { fail, readEnum, readFunction, readInteger, readNumber, readOptions, readSignal } from '@peclet/core';
import { checkVoxelImage, type VoxelImage } from '@peclet/io';
import { cancelled, Lattice } from './lattice.js';
import { native } from './native.js';
import { AXES, DEFAULT_MAX_STEPS, DEFAULT_TOLERANCE, readAxis } from './options.js';
import { Settling } from './settling.js';
import type { PermeabilityOptions, PermeabilityResult, Progress } from './types.js';

/** 1 millidarcy in m². */
export const MILLIDARCY = 9.869233e-16;
/**
 * Lattice viscosity of permeability(): with TRT and Λ = 3/16 the steady creeping flow does not
 * depend on it, so it is chosen for speed — low enough that the pressure field settles fast
 * across the sample (its diffusivity is k/(3νφ)), high enough that each pore does.
 */
const PERMEABILITY_VISCOSITY = 0.05;
/** Body force of the body-force drive (lattice units): the creeping-flow lattice is linear, so its size only has to stay far from round-off and from compressibility. */
const DRIVE_FORCE = 1e-5;
/** Steps between convergence checks. */
const CHECK_INTERVAL = 100;

/**
 * Permeability of a voxel image along an axis by lattice-Boltzmann simulation of creeping flow
 * (TRT, Λ = 3/16, halfway bounce-back, the equilibrium without inertial terms so Darcy's law
 * holds exactly).
 *
 * Set-up: the sample, with `buffer` open layers added before and after it along the axis, and
 * walls on the faces parallel to the flow (`sides: 'sealed'`). `drive: 'body-force'` wraps the
 * axis periodically and pushes with a uniform force; `drive: 'pressure'` fixes the density on
 * the first and last planes. Either way the permeability of the sample is
 *
 *   k = ν · U · L / (F·(L + 1) + (ρ_in − ρ_out)/3)
 *
 * in lattice units, with U the superficial velocity (the flux over the cross-section), L the
 * sample length, F the body force, ρ_in and ρ_out the mean densities over the pore voxels of the
 * buffer planes touching the sample (L + 1 apart); without buffers (`buffer: 0`, body force
 * only) it is k = ν U / F. Then k (m²) = k · voxelSize².
 *
 * @example
 * ```ts
 * import { permeability } from '@peclet/flow';
 * const result = await permeability({ solid, shape: [200, 200, 200], voxelSize: 5.345e-6 });
 * console.log(`${result.millidarcy.toFixed(0)} mD, porosity ${result.porosity}`);
 * result.lattice.release();
 * ```
 */
export async function permeability(image: VoxelImage, options: PermeabilityOptions = {}): Promise<PermeabilityResult> {
  const checked = checkVoxelImage(image, 'image');
  const o = readOptions(
    options,
    'options',
    [
      'axis',
      'drive',
      'tolerance',
      'maxSteps',
      'buffer',
      'sides',
      'viscosity',
      'precision',
      'executionSpace',
      'threads',
      'signal',
      'onProgress',
    ],
    { optional: true },
  );
  const axis = readAxis(o.axis, 'axis', 'x');
  const drive = readEnum(o.drive, 'drive', ['body-force', 'pressure'] as const, 'body-force');
  const tolerance = readNumber(o.tolerance, 'tolerance', { above: 0, below: 1, fallback: DEFAULT_TOLERANCE });
  const maxSteps = readInteger(o.maxSteps, 'maxSteps', { min: 1, max: 2 ** 40, fallback: DEFAULT_MAX_STEPS });
  const buffer = readInteger(o.buffer, 'buffer', { min: 0, max: 1000, fallback: 4 });
  const sides = readEnum(o.sides, 'sides', ['sealed', 'periodic'] as const, 'sealed');
  const viscosity = readNumber(o.viscosity, 'viscosity', { above: 0, max: 100, fallback: PERMEABILITY_VISCOSITY });
  const executionSpace = readEnum(o.executionSpace, 'executionSpace', ['host', 'webgpu'] as const, 'host');
  const precision = readEnum(
    o.precision,
    'precision',
    ['f64', 'f32'] as const,
    executionSpace === 'webgpu' ? 'f32' : 'f64',
  );
  const threads = o.threads === undefined ? undefined : readInteger(o.threads, 'threads', { min: 1, max: 65_536 });
  const signal = readSignal(o.signal, 'signal');
  const onProgress = readFunction<(progress: Progress) => void>(o.onProgress, 'onProgress');
  if (drive === 'pressure' && buffer < 1) {
    fail('range', 'buffer', 'a pressure drive needs at least 1 open layer at each end to hold the inlet and outlet');
  }

  const { shape, voxelSize } = checked;
  const solid = checked.solid.slice(); // the caller may change the image while we run
  let pores = 0;
  for (let i = 0; i < solid.length; i++) if (solid[i] === 0) pores++;
  const porosity = pores / solid.length;
  if (!native.percolates(solid, [...shape] as [number, number, number], axis)) {
    fail(
      'range',
      'image',
      `no pore path joins the inlet and outlet faces along ${AXES[axis]} (18-connected, as the lattice moves fluid): ` +
        `the permeability is 0 (porosity ${porosity.toPrecision(4)})`,
    );
  }

  // The sample with its buffer layers along the axis.
  const extended = [...shape] as [number, number, number];
  extended[axis] += 2 * buffer;
  const padded = new Uint8Array(extended[0] * extended[1] * extended[2]);
  const [, e1, e2] = extended;
  for (let i = 0; i < shape[0]; i++) {
    for (let j = 0; j < shape[1]; j++) {
      const source = (i * shape[1] + j) * shape[2];
      const ti = i + (axis === 0 ? buffer : 0);
      const tj = j + (axis === 1 ? buffer : 0);
      padded.set(solid.subarray(source, source + shape[2]), (ti * e1 + tj) * e2 + (axis === 2 ? buffer : 0));
    }
  }
  const periodic: [boolean, boolean, boolean] = [sides === 'periodic', sides === 'periodic', sides === 'periodic'];
  periodic[axis] = drive === 'body-force';
  const force: [number, number, number] = [0, 0, 0];
  if (drive === 'body-force') force[axis] = DRIVE_FORCE;
  const densityDifference = DRIVE_FORCE * 3 * (shape[axis] + 2 * buffer);
  const lattice = new Lattice({
    shape: extended,
    solid: padded,
    periodic,
    viscosity,
    bodyForce: force,
    inertia: false,
    precision,
    executionSpace,
    threads,
    ...(drive === 'pressure'
      ? {
          pressure: {
            axis,
            inletDensity: 1 + densityDifference / 2,
            outletDensity: 1 - densityDifference / 2,
          },
        }
      : {}),
  });
  try {
    const L = shape[axis];
    // The estimate of k from the flow now: the superficial velocity (the flux is the same
    // through every plane, so the mean over the whole lattice is the flux over the
    // cross-section) over the drive, body force and pressure drop between the buffer planes.
    const estimate = (mean: readonly number[]) => {
      const meanVelocity = mean[axis] as number;
      let densityDrop = 0;
      if (buffer > 0) {
        const velocity = lattice.velocity;
        const density = lattice.density;
        densityDrop =
          planeMean(density, velocity, extended, axis, buffer - 1) -
          planeMean(density, velocity, extended, axis, buffer + L);
      }
      const effectiveDrive = buffer > 0 ? force[axis] * (L + 1) + densityDrop / 3 : force[axis] * L;
      return { meanVelocity, densityDrop, kLattice: (lattice.viscosity * meanVelocity * L) / effectiveDrive };
    };
    // Steady once both the mean velocity and the estimate of k have settled: under a pressure
    // drive the pressure field inside can settle more slowly than the flux.
    const velocitySettling = new Settling();
    const permeabilitySettling = new Settling();
    let steps = 0;
    let converged = false;
    let residual = Number.NaN;
    let now = estimate([0, 0, 0]);
    while (steps < maxSteps) {
      const batch = await lattice.run({ maxSteps: Math.min(CHECK_INTERVAL, maxSteps - steps), tolerance: 0, signal });
      steps += batch.steps;
      now = estimate(batch.meanVelocity);
      velocitySettling.update(Math.hypot(...batch.meanVelocity));
      permeabilitySettling.update(now.kLattice);
      residual = Math.max(velocitySettling.residual, permeabilitySettling.residual);
      onProgress?.({ steps, maxSteps, residual, meanVelocity: batch.meanVelocity });
      // onProgress may have aborted, or finalized the module.
      if (signal?.aborted) throw signal.reason;
      if (lattice.released) throw cancelled('permeability', 'finalize()');
      converged = velocitySettling.settled(tolerance) && permeabilitySettling.settled(tolerance);
      if (converged) break;
    }
    const { meanVelocity, densityDrop, kLattice } = now;
    if (!(kLattice > 0 && Number.isFinite(kLattice))) {
      throw Object.assign(
        new Error(
          `permeability: after ${steps} step${steps === 1 ? '' : 's'} (maxSteps ${maxSteps}) the flow has not settled and the estimate ` +
            `(${kLattice} in lattice units) is not a permeability; raise maxSteps`,
        ),
        { code: 'PECLET_NOT_CONVERGED', steps },
      );
    }
    const velocity = lattice.velocity;
    const tortuosity = sampleTortuosity(velocity, extended, axis, buffer, L);
    const k = kLattice * voxelSize * voxelSize;
    const info = lattice.info;
    return {
      permeability: k,
      millidarcy: k / MILLIDARCY,
      porosity,
      axis: AXES[axis] as 'x' | 'y' | 'z',
      steps,
      converged,
      residual,
      tortuosity,
      layout: info.layout,
      latticeUnits: {
        voxelSize,
        viscosity: lattice.viscosity,
        tauPlus: info.tauPlus,
        tauMinus: info.tauMinus,
        permeability: kLattice,
        bodyForce: force[axis],
        densityDrop,
        meanVelocity,
        buffer,
      },
      lattice,
    };
  } catch (error) {
    lattice.release();
    throw error;
  }
}

/**
 * Mean density over plane `index` along `axis`, weighted by the flux through each voxel: the
 * pressure whose difference times the flow rate is the power spent between two planes, so that
 * how the flow spreads over a plane does not bias the pressure drop.
 */
function planeMean(
  density: ArrayLike<number>,
  velocity: ArrayLike<number>,
  shape: readonly number[],
  axis: number,
  index: number,
): number {
  let sum = 0;
  let flux = 0;
  forPlane(shape, axis, index, (v) => {
    const u = velocity[3 * v + axis] as number;
    sum += (density[v] as number) * u;
    flux += u;
  });
  return flux === 0 ? 1 : sum / flux;
}

function forPlane(shape: readonly number[], axis: number, index: number, visit: (voxel: number) => void): void {
  const [n0, n1, n2] = shape as [number, number, number];
  for (let i = axis === 0 ? index : 0; i < (axis === 0 ? index + 1 : n0); i++) {
    for (let j = axis === 1 ? index : 0; j < (axis === 1 ? index + 1 : n1); j++) {
      for (let k = axis === 2 ? index : 0; k < (axis === 2 ? index + 1 : n2); k++) visit((i * n1 + j) * n2 + k);
    }
  }
}

/** ⟨|u|⟩ / ⟨u·axis⟩ over the sample's voxels (buffers excluded). */
function sampleTortuosity(
  velocity: ArrayLike<number>,
  shape: readonly number[],
  axis: number,
  buffer: number,
  length: number,
): number {
  let speed = 0;
  let along = 0;
  for (let plane = buffer; plane < buffer + length; plane++) {
    forPlane(shape, axis, plane, (v) => {
      const x = velocity[3 * v] as number;
      const y = velocity[3 * v + 1] as number;
      const z = velocity[3 * v + 2] as number;
      speed += Math.sqrt(x * x + y * y + z * z);
      along += velocity[3 * v + axis] as number;
    });
  }
  return along === 0 ? Number.NaN : speed / along;
}
