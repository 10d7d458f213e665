/**
 * The flow field of a {@link permeability} run in SI units, on the sample alone (its buffer
 * layers cut off), and the `.vti` file ParaView opens on top of the image and its pore network.
 */
import { freemem } from 'node:os';
import { argumentError, describeValue, fail, readNumber, readOptions } from '@peclet/core';
import { writeVti } from '@peclet/io';
import type { Axis, PermeabilityResult } from './types.js';

/** Options of {@link flowFields} and {@link writeFlowVti}. */
export interface FlowFieldOptions {
  /**
   * The pressure gradient (Pa/m) the fields are scaled to: creeping flow is linear in its drive,
   * so the run stands for any gradient (default 1e4 Pa/m, 10 kPa per metre).
   */
  pressureGradient?: number;
  /** Dynamic viscosity of the fluid (Pa·s; default 1.0e-3, water at 20 °C). */
  viscosity?: number;
}

/** The fields of the sample, C order over `shape` (axis 0 = x), as {@link flowFields} gives them. */
export interface FlowFields {
  /** The sample's `[n0, n1, n2]`: the image's, buffers cut off. */
  readonly shape: [number, number, number];
  /** Voxel edge (m). */
  readonly voxelSize: number;
  readonly axis: Axis;
  /** 1 = solid. */
  readonly solid: Uint8Array;
  /** m/s, 3 per voxel (x, y, z); 0 in solid voxels. Its mean along `axis` over every voxel is `darcyVelocity`. */
  readonly velocity: Float64Array;
  /**
   * Pa: the pressure that drives the flow (under a body-force drive, the body force's potential
   * added), 0 on average over the pore voxels of the sample's last plane along `axis`; NaN in
   * solid voxels.
   */
  readonly pressure: Float64Array;
  /** Lattice units, as the lattice holds them (3 per voxel). */
  readonly latticeVelocity: Float64Array | Float32Array;
  /** Lattice units (ρ0 = 1; 0 in solid voxels). */
  readonly latticeDensity: Float64Array | Float32Array;
  /** Pa/m and Pa·s the SI fields are scaled to. */
  readonly pressureGradient: number;
  readonly viscosity: number;
  /** Darcy (superficial) velocity k·G/μ, m/s. */
  readonly darcyVelocity: number;
}

const axisIndex = { x: 0, y: 1, z: 2 } as const;

/** Bytes we always allow, however little memory the OS reports free (small samples always work). */
const floorBytes = 256 * 2 ** 20;

/**
 * The arrays of {@link flowFields} for `count` voxels, checked against free memory first: too
 * large is a RangeError with code PECLET_OUT_OF_MEMORY naming `result`, as every peclet
 * allocation sized by its input (the CLI reports it as a failure, not a usage error).
 */
function allocateFields(count: number, Lattice: Float64ArrayConstructor) {
  const bytes = count * (1 + 3 * 8 + 8 + 4 * Lattice.BYTES_PER_ELEMENT);
  const limit = Math.max(freemem(), floorBytes);
  const refuse = (why: string): never => {
    const error = argumentError('range', 'result', `its flow field (${count} voxels) ${why}`);
    Object.defineProperty(error, 'code', { value: 'PECLET_OUT_OF_MEMORY', enumerable: true });
    throw error;
  };
  if (!(bytes <= limit)) refuse(`needs ${bytes} bytes, more than the ${limit} bytes of memory free`);
  try {
    return {
      solid: new Uint8Array(count),
      velocity: new Float64Array(3 * count),
      potential: new Float64Array(count),
      latticeVelocity: new Lattice(3 * count),
      latticeDensity: new Lattice(count),
    };
  } catch (error) {
    return refuse(`cannot be allocated (${(error as Error).message})`);
  }
}

/**
 * The flow field of a {@link permeability} result in SI units, on the sample alone: velocity in
 * m/s and pressure in Pa for a fluid of `viscosity` under `pressureGradient` along the axis
 * (creeping flow is linear in its drive: u = k·G/μ on average), beside the lattice's own fields.
 * Cell (i, j, k) of the fields is voxel (i, j, k) of the image the run was given. Read it before
 * `result.lattice` is released. Not over MPI ranks (write each rank's slab with
 * `lattice.writeVti`).
 *
 * @example
 * ```ts
 * const result = await permeability(image);
 * const { velocity, darcyVelocity } = flowFields(result, { pressureGradient: 1e4 });
 * result.lattice.release();
 * ```
 */
export function flowFields(result: PermeabilityResult, options?: FlowFieldOptions): FlowFields {
  const o = readOptions(options, 'options', ['pressureGradient', 'viscosity'], { optional: true });
  const pressureGradient = readNumber(o.pressureGradient, 'pressureGradient', {
    above: 0,
    unit: 'Pa/m',
    fallback: 1e4,
  });
  const viscosity = readNumber(o.viscosity, 'viscosity', { above: 0, unit: 'Pa·s', fallback: 1.0e-3 });
  const r = readOptions(result, 'result', ['lattice', 'latticeUnits', 'axis', 'permeability'], { open: true });
  const lattice = r.lattice as PermeabilityResult['lattice'];
  if (typeof lattice !== 'object' || lattice === null || !('slab' in lattice)) {
    fail('type', 'result.lattice', `must be the lattice of a permeability() result, got ${describeValue(lattice)}`);
  }
  if (lattice.slab !== undefined) {
    fail('type', 'result', "ran over MPI ranks: write each rank's slab with result.lattice.writeVti()");
  }
  const units = r.latticeUnits as PermeabilityResult['latticeUnits'];
  const axisName = r.axis as Axis;
  const axis = axisIndex[axisName];
  const k = r.permeability as number;
  if (axis === undefined || typeof units !== 'object' || units === null || !(k > 0)) {
    fail('type', 'result', 'must be what permeability() returned');
  }
  // Reading the fields of a released lattice throws its ReleasedError, naming it.
  const u = lattice.velocity;
  const rho = lattice.density;
  const whole = lattice.shape;
  const { buffer, voxelSize, meanVelocity } = units;
  const shape = [...whole] as [number, number, number];
  shape[axis] -= 2 * buffer;
  const [n0, n1, n2] = shape;
  const count = n0 * n1 * n2;
  // Lattice → SI: the superficial velocity becomes Darcy's k·G/μ, and the drive across a voxel
  // (G_lattice = ν U / k_lattice per voxel) becomes G·voxelSize.
  const darcyVelocity = (k * pressureGradient) / viscosity;
  const velocityScale = darcyVelocity / meanVelocity;
  const latticeGradient = (lattice.viscosity * meanVelocity) / units.permeability;
  const pressureScale = (pressureGradient * voxelSize) / latticeGradient;
  const force = units.bodyForce;
  const { solid, velocity, potential, latticeVelocity, latticeDensity } = allocateFields(
    count,
    u.constructor as Float64ArrayConstructor,
  );
  const [w1, w2] = [whole[1], whole[2]];
  const offset = [0, 0, 0];
  offset[axis] = buffer;
  let outlet = 0;
  let outletCount = 0;
  for (let i = 0; i < n0; i++) {
    for (let j = 0; j < n1; j++) {
      for (let l = 0; l < n2; l++) {
        const c = (i * n1 + j) * n2 + l;
        const at = ((i + (offset[0] as number)) * w1 + j + (offset[1] as number)) * w2 + l + (offset[2] as number);
        const density = rho[at] as number;
        latticeDensity[c] = density;
        for (let d = 0; d < 3; d++) {
          const value = u[3 * at + d] as number;
          latticeVelocity[3 * c + d] = value;
          velocity[3 * c + d] = value * velocityScale;
        }
        if (density === 0) {
          solid[c] = 1;
          potential[c] = Number.NaN;
          continue;
        }
        // The pressure (c_s² = 1/3) plus the body force's potential, from the sample's first plane.
        const along = axis === 0 ? i : axis === 1 ? j : l;
        const phi = (density - 1) / 3 - force * along;
        potential[c] = phi;
        if (along === shape[axis] - 1) {
          outlet += phi;
          outletCount++;
        }
      }
    }
  }
  const zero = outletCount === 0 ? 0 : outlet / outletCount;
  const pressure = potential;
  for (let c = 0; c < count; c++) pressure[c] = ((potential[c] as number) - zero) * pressureScale;
  return {
    shape,
    voxelSize,
    axis: axisName,
    solid,
    velocity,
    pressure,
    latticeVelocity,
    latticeDensity,
    pressureGradient,
    viscosity,
    darcyVelocity,
  };
}

/**
 * Writes the flow field of a {@link permeability} result as a VTK image (`.vti`) for ParaView,
 * atomically: the sample alone (buffers cut off), origin 0 and spacing the voxel size in metres,
 * so that it lies on the image and on pnm's network (`.vtp`, pore centres at voxel centres).
 * Cell arrays: `solid`, `velocity [m/s]`, `pressure [Pa]` (for `options`, see
 * {@link flowFields}), `velocity [lattice units]` and `density [lattice units]`.
 *
 * @example
 * ```ts
 * const result = await permeability(image);
 * await writeFlowVti(result, 'flow.vti');
 * result.lattice.release();
 * ```
 */
export async function writeFlowVti(
  result: PermeabilityResult,
  path: string,
  options?: FlowFieldOptions,
): Promise<void> {
  const f = flowFields(result, options);
  await writeVti(path, {
    shape: f.shape,
    spacing: f.voxelSize,
    cellData: {
      solid: f.solid,
      'velocity [m/s]': { values: f.velocity, components: 3 },
      'pressure [Pa]': f.pressure,
      'velocity [lattice units]': { values: f.latticeVelocity, components: 3 },
      'density [lattice units]': f.latticeDensity,
    },
  });
}
