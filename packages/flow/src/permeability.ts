/**
 * permeability(): the two standard set-ups on a voxel image, and the Darcy permeability of the
 * sample from the steady flow.
 * @internal
 */
import { fail, readEnum, readFunction, readInteger, readNumber, readOptions, readSignal } from '@peclet/core';
import { checkVoxelImage, imageWarnings, permeabilityWarning, type VoxelImage } from '@peclet/io';
import { cancelled, distributedOf, Lattice } from './lattice.js';
import { native } from './native.js';
import { AXES, DEFAULT_MAX_STEPS, DEFAULT_TOLERANCE, readAxis } from './options.js';
import { projectSteps, Settling } from './settling.js';
import { type Distributed, type Mpi, mpiOption, percolatesOver, readMpi, refuseTogether, Slab } from './slab.js';
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
 * the first and last planes. Either way the permeability is the sample's own: the drive is
 * measured across the sample itself, between its first and last planes, so that the buffers'
 * resistance (a walled duct's, with sealed sides) is not charged to it:
 *
 *   k = ν · U · (L − 1) / (F·(L − 1) + (ρ_first − ρ_last)/3)
 *
 * in lattice units, with U the superficial velocity (the flux over the cross-section), L the
 * sample length (at least 2 voxels with buffers), F the body force, ρ_first and ρ_last the
 * flux-weighted mean densities over the pore voxels of the sample's first and last planes
 * (L − 1 apart); without buffers (`buffer: 0`, body force only) it is k = ν U / F. Then
 * k (m²) = k · voxelSize². A uniform channel gives the same k whatever the buffers (tested on
 * ducts, tubes and slits).
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
  const mpiValue = mpiOption(options);
  if (mpiValue === undefined) return solve(image, options, undefined);
  const mpi = readMpi(mpiValue, 'mpi');
  return solve(image, options, mpi);
}

async function solve(
  image: VoxelImage,
  options: PermeabilityOptions,
  mpi: Mpi | undefined,
): Promise<PermeabilityResult> {
  let setup: ReturnType<typeof prepare> | undefined;
  let error: unknown;
  try {
    setup = prepare(image, options, mpi);
  } catch (e) {
    if (mpi === undefined) throw e;
    error = e;
  }
  // Over MPI a rank whose arguments were refused makes every rank throw, in the collective
  // construction of the lattice, which it joins with its error instead.
  if (error !== undefined) throw refuseTogether(mpi as Mpi, error);
  const s = setup as ReturnType<typeof prepare>;
  if (mpi !== undefined) {
    // Percolation over the ranks, before the lattice is allocated.
    const slab = new Slab(mpi, s.shape, false, '', 'image');
    if (!percolatesOver(slab, s.solid, s.shape, s.axis, (solid, shape) => native.labelPores(solid, shape))) {
      const [pores, voxels] = slab.total([s.pores, s.voxels]) as [number, number];
      fail(
        'range',
        'image',
        `no pore path joins the inlet and outlet faces along ${AXES[s.axis]} (18-connected, as the lattice moves fluid): ` +
          `the permeability is 0 (porosity ${(pores / voxels).toPrecision(4)})`,
      );
    }
  }
  const { axis, buffer, extended, voxelSize, force, drive, tolerance, maxSteps, signal, onProgress } = s;
  // Over MPI a rank holds a slab: its voxel size, porosity and neighbours say little of the whole.
  const warnings = mpi === undefined ? imageWarnings({ solid: s.solid, shape: s.shape, voxelSize }) : [];
  const lattice = new Lattice({
    shape: extended,
    solid: s.padded,
    periodic: s.periodic,
    viscosity: s.viscosity,
    bodyForce: force,
    inertia: false,
    precision: s.precision,
    executionSpace: s.executionSpace,
    threads: s.threads,
    ...(drive === 'pressure'
      ? {
          // Set below, once the sample's length is known on every rank.
          pressure: { axis, inletDensity: 1, outletDensity: 1 },
        }
      : {}),
    ...(mpi === undefined ? {} : { mpi }),
  });
  try {
    const distributed = distributedOf.get(lattice);
    let porosity = s.pores / s.voxels;
    if (distributed !== undefined) {
      const agreed = [voxelSize, tolerance, maxSteps, buffer, axis, drive === 'pressure' ? 1 : 0];
      const { agreed: same } = distributed.ready(false, agreed);
      if (!same) {
        fail(
          'range',
          'options',
          'differ between ranks (voxelSize, tolerance, maxSteps, buffer, axis or drive): every rank must pass the same',
        );
      }
      const [pores, voxels] = distributed.slab.total([s.pores, s.voxels]) as [number, number];
      porosity = pores / voxels;
      if (
        !percolatesOver(distributed.slab, s.solid, s.shape, axis, (solid, shape) => native.labelPores(solid, shape))
      ) {
        fail(
          'range',
          'image',
          `no pore path joins the inlet and outlet faces along ${AXES[axis]} (18-connected, as the lattice moves fluid): ` +
            `the permeability is 0 (porosity ${porosity.toPrecision(4)})`,
        );
      }
    }
    const whole = lattice.shape;
    const L = whole[axis] - 2 * buffer;
    if (drive === 'pressure') {
      const densityDifference = DRIVE_FORCE * 3 * whole[axis];
      lattice.setPressure(1 + densityDifference / 2, 1 - densityDifference / 2);
    }
    const sums = planeSums(lattice, distributed, axis);
    // The estimate of k from the flow now: the superficial velocity (the flux is the same
    // through every plane, so the mean over the whole lattice is the flux over the
    // cross-section) over the drive, body force and pressure drop across the sample itself,
    // between its first and last planes: the buffers (walled ducts with sealed sides) have a
    // resistance of their own, which the planes around the sample (L + 1 apart) would charge
    // to it (an open duct 8 × 8, L = 4: 20% low). Every sum is taken plane by plane along
    // axis 0, in the same order on one rank or many.
    const span = buffer > 0 ? L - 1 : L;
    const estimate = () => {
      const inlet = buffer;
      const outlet = buffer + L - 1;
      const [along, rhoIn, fluxIn, rhoOut, fluxOut] = sums(5, (u, rho, offset, count, index) => {
        let a = 0;
        let ri = 0;
        let fi = 0;
        let ro = 0;
        let fo = 0;
        for (let v = offset; v < offset + count; v++) {
          const ua = u[3 * v + axis] as number;
          a += ua;
          const at = index(v);
          if (at === inlet) {
            ri += (rho[v] as number) * ua;
            fi += ua;
          } else if (at === outlet) {
            ro += (rho[v] as number) * ua;
            fo += ua;
          }
        }
        return [a, ri, fi, ro, fo];
      }) as [number, number, number, number, number];
      const meanVelocity = along / (whole[0] * whole[1] * whole[2]);
      let densityDrop = 0;
      if (buffer > 0) densityDrop = (fluxIn === 0 ? 1 : rhoIn / fluxIn) - (fluxOut === 0 ? 1 : rhoOut / fluxOut);
      const effectiveDrive = force[axis] * span + densityDrop / 3;
      return { meanVelocity, densityDrop, kLattice: (lattice.viscosity * meanVelocity * span) / effectiveDrive };
    };
    // Steady once both the mean velocity and the estimate of k have settled: under a pressure
    // drive the pressure field inside can settle more slowly than the flux.
    const velocitySettling = new Settling();
    const permeabilitySettling = new Settling();
    let steps = 0;
    let converged = false;
    let residual = Number.NaN;
    let now = { meanVelocity: 0, densityDrop: 0, kLattice: Number.NaN };
    while (steps < maxSteps) {
      const batch = await lattice.run({ maxSteps: Math.min(CHECK_INTERVAL, maxSteps - steps), tolerance: 0, signal });
      steps += batch.steps;
      now = estimate();
      velocitySettling.update(Math.abs(now.meanVelocity));
      permeabilitySettling.update(now.kLattice);
      residual = Math.max(velocitySettling.residual, permeabilitySettling.residual);
      const checksLeft = Math.max(
        velocitySettling.checksToSettle(tolerance),
        permeabilitySettling.checksToSettle(tolerance),
      );
      onProgress?.({
        steps,
        maxSteps,
        residual,
        meanVelocity: batch.meanVelocity,
        projectedSteps: projectSteps(steps, checksLeft, CHECK_INTERVAL, maxSteps),
      });
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
    // Flow tortuosity ⟨|u|⟩ / ⟨u·axis⟩ over the sample's voxels (buffers excluded).
    const [speed, along] = sums(2, (u, _rho, offset, count, index) => {
      let sp = 0;
      let al = 0;
      for (let v = offset; v < offset + count; v++) {
        const at = index(v);
        if (at < buffer || at >= buffer + L) continue;
        const x = u[3 * v] as number;
        const y = u[3 * v + 1] as number;
        const z = u[3 * v + 2] as number;
        sp += Math.sqrt(x * x + y * y + z * z);
        al += u[3 * v + axis] as number;
      }
      return [sp, al];
    }) as [number, number];
    const tortuosity = along === 0 ? Number.NaN : speed / along;
    const k = kLattice * voxelSize * voxelSize;
    const info = lattice.info;
    const implausible = permeabilityWarning(k, 'direct');
    if (implausible !== undefined) warnings.push(implausible);
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
      warnings,
      lattice,
    };
  } catch (error) {
    lattice.release();
    throw error;
  }
}

/** The checked arguments of permeability() and this rank's part of the lattice. */
function prepare(image: VoxelImage, options: PermeabilityOptions, mpi: Mpi | undefined) {
  const checked = checkVoxelImage(image, 'image');
  // h² and h³ scale the answer: beyond this range they leave the doubles, and a permeability of
  // 0 or Infinity would come back converged (pnm refuses the same range).
  if (!(checked.voxelSize >= 1e-12 && checked.voxelSize <= 1e3)) {
    fail(
      'range',
      'image.voxelSize',
      `must lie in [1e-12, 1e3] m (the permeability scales with its square and would leave the range of doubles), got ${checked.voxelSize}`,
    );
  }
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
      'mpi',
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
  // `mpi` is read as a data property before anything else (to join the ranks even when another
  // option is refused); a getter for it would leave each rank alone with its own planes.
  if (mpi === undefined && o.mpi !== undefined) {
    fail('type', 'mpi', 'must be a data property of the options (not a getter)');
  }
  if (mpi !== undefined && executionSpace === 'webgpu') {
    fail('range', 'executionSpace', "'webgpu' does not run over MPI ranks; use 'host'");
  }

  const { shape, voxelSize } = checked;
  // With buffers the pressure drop is measured between the sample's first and last planes
  // (over MPI along axis 0 every rank holds at least 2 planes, checked with the slabs).
  if (buffer > 0 && (mpi === undefined || axis !== 0) && (shape[axis] as number) < 2) {
    fail(
      'range',
      'image',
      `is 1 voxel long along ${AXES[axis]}: with buffers its pressure drop is measured between its first and last planes, so it needs 2; use buffer 0 (body force, periodic)`,
    );
  }
  const solid = checked.solid.slice(); // the caller may change the image while we run
  let pores = 0;
  for (let i = 0; i < solid.length; i++) if (solid[i] === 0) pores++;
  // Over MPI this rank holds planes of the image along axis 0: the ranks check the percolation
  // together once the lattice is built.
  // The path may cross the side faces where the flow does (periodic sides), never the flow axis.
  const sidesWrap = [sides === 'periodic', sides === 'periodic', sides === 'periodic'];
  if (mpi === undefined && !native.percolates(solid, [...shape] as [number, number, number], axis, sidesWrap)) {
    fail(
      'range',
      'image',
      `no pore path joins the inlet and outlet faces along ${AXES[axis]} (18-connected, as the lattice moves fluid): ` +
        `the permeability is 0 (porosity ${(pores / solid.length).toPrecision(4)})`,
    );
  }

  // The sample with its buffer layers along the axis: over MPI along axis 0, before the first
  // rank's planes and after the last rank's.
  const rank = mpi?.rank() ?? 0;
  const size = mpi?.size() ?? 1;
  const before = axis !== 0 || rank === 0 ? buffer : 0;
  const after = axis !== 0 || rank === size - 1 ? buffer : 0;
  const extended = [...shape] as [number, number, number];
  extended[axis] += before + after;
  const padded = new Uint8Array(extended[0] * extended[1] * extended[2]);
  const [, e1, e2] = extended;
  for (let i = 0; i < shape[0]; i++) {
    for (let j = 0; j < shape[1]; j++) {
      const source = (i * shape[1] + j) * shape[2];
      const ti = i + (axis === 0 ? before : 0);
      const tj = j + (axis === 1 ? before : 0);
      padded.set(solid.subarray(source, source + shape[2]), (ti * e1 + tj) * e2 + (axis === 2 ? before : 0));
    }
  }
  const periodic: [boolean, boolean, boolean] = [sides === 'periodic', sides === 'periodic', sides === 'periodic'];
  periodic[axis] = drive === 'body-force';
  const force: [number, number, number] = [0, 0, 0];
  if (drive === 'body-force') force[axis] = DRIVE_FORCE;
  return {
    axis,
    drive,
    tolerance,
    maxSteps,
    buffer,
    viscosity,
    executionSpace,
    precision,
    threads,
    signal,
    onProgress,
    shape,
    solid,
    voxelSize,
    pores,
    voxels: solid.length,
    extended,
    padded,
    periodic,
    force,
  };
}

/**
 * Per-plane sums over the lattice's fields: `fill(u, rho, offset, count, index)` sums the
 * `count` voxels from `offset` (one plane along axis 0) and returns its `k` sums; `index(v)`
 * is voxel v's index along the axis of interest in the whole lattice. The planes are added in
 * order, on one rank as over many (there each plane's sums come from the rank that holds it).
 */
function planeSums(lattice: Lattice, distributed: Distributed | undefined, axis: number) {
  const [, n1, n2] = lattice.shape;
  const n12 = n1 * n2;
  const start = distributed?.slab.start ?? 0;
  const index =
    axis === 0
      ? (v: number) => start + Math.floor(v / n12)
      : axis === 1
        ? (v: number) => Math.floor(v / n2) % n1
        : (v: number) => v % n2;
  return (
    k: number,
    fill: (
      u: ArrayLike<number>,
      rho: ArrayLike<number>,
      offset: number,
      count: number,
      index: (v: number) => number,
    ) => number[],
  ): number[] => {
    const u = lattice.velocity;
    const rho = lattice.density;
    if (distributed === undefined) {
      const total = new Array<number>(k).fill(0);
      for (let p = 0; p < lattice.shape[0]; p++) {
        const part = fill(u, rho, p * n12, n12, index);
        for (let i = 0; i < k; i++) total[i] = (total[i] as number) + (part[i] as number);
      }
      return total;
    }
    return Array.from(
      distributed.slab.sums(k, (p, _local, out) => {
        out.set(fill(u, rho, (p - start) * n12, n12, index));
      }),
    );
  };
}
