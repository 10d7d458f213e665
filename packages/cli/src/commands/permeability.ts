/**
 * `peclet permeability <image>`: the direct permeability of a voxel image by lattice Boltzmann
 * (@peclet/flow), and with `--network` its pore network's (@peclet/pnm).
 */
import type { ConductanceModel } from '@peclet/pnm';
import type { Context } from '../context.js';
import { UsageError, withFlags } from '../errors.js';
import { type Axis, checkOutputFolder, readIntegerFlag, readOutputFlag, readPositiveFlag } from '../flags.js';
import {
  formatNumber,
  formatPermeability,
  formatShape,
  formatVoxelSize,
  type PermeabilityValue,
  permeabilityValue,
  toJson,
} from '../format.js';
import { type ImageFlags, loadImage, readImageFlags } from '../image.js';
import { startBar } from '../progress.js';
import { describeNetwork, type NetworkPermeability, networkPermeability } from './network.js';

const command = 'permeability';

/** Flags as commander collects them. */
export interface PermeabilityFlags extends ImageFlags {
  axis: Axis;
  drive?: 'body-force' | 'pressure';
  sides?: 'sealed' | 'periodic';
  buffer?: string;
  tolerance?: string;
  maxSteps?: string;
  precision?: 'f64' | 'f32';
  threads?: string;
  out?: string;
  network?: boolean;
  conductance: ConductanceModel;
  json?: boolean;
}

/** flow's argument names → our flags. */
const flowFlags = {
  axis: '--axis',
  drive: '--drive',
  sides: '--sides',
  buffer: '--buffer',
  tolerance: '--tolerance',
  maxSteps: '--max-steps',
  precision: '--precision',
  threads: '--threads',
  voxelSize: '--voxel-size',
} as const;

/** What `--json` prints. */
export interface PermeabilityReport {
  readonly command: 'permeability';
  readonly image: { path: string; shape: number[]; voxelSize: number; porosity: number };
  readonly axis: Axis;
  readonly direct: PermeabilityValue & {
    steps: number;
    converged: boolean;
    residual: number;
    tortuosity: number;
    drive: string;
    sides: string;
    layout: string;
    latticeUnits: object;
    vti?: string;
  };
  readonly network?: NetworkPermeability;
}

/** flow's default `tolerance`, for the progress bar's scale. */
const defaultTolerance = 1e-6;

export async function permeabilityCommand(path: string, flags: PermeabilityFlags, context: Context): Promise<void> {
  const request = readImageFlags(path, flags, command);
  const options = {
    axis: flags.axis,
    ...(flags.drive ? { drive: flags.drive } : {}),
    ...(flags.sides ? { sides: flags.sides } : {}),
    ...(flags.precision ? { precision: flags.precision } : {}),
    ...(flags.buffer !== undefined ? { buffer: readIntegerFlag(flags.buffer, '--buffer', command, 0, 1000) } : {}),
    ...(flags.tolerance !== undefined
      ? { tolerance: readPositiveFlag(flags.tolerance, '--tolerance', command, 'a number in (0, 1)') }
      : {}),
    ...(flags.maxSteps !== undefined
      ? { maxSteps: readIntegerFlag(flags.maxSteps, '--max-steps', command, 1, 2 ** 40) }
      : {}),
    ...(flags.threads !== undefined
      ? { threads: readIntegerFlag(flags.threads, '--threads', command, 1, 65_536) }
      : {}),
  };
  if (options.tolerance !== undefined && options.tolerance >= 1) {
    throw new UsageError(`--tolerance must be a number in (0, 1), got ${JSON.stringify(flags.tolerance)}`, command);
  }
  const out = flags.out === undefined ? undefined : readOutputFlag(flags.out, '--out', command, ['.vti']);
  if (out !== undefined) await checkOutputFolder(out, '--out', command);
  if (!flags.network && flags.conductance !== 'pyramids-and-cuboids') {
    throw new UsageError('--conductance only applies with --network', command);
  }

  const image = await loadImage(request, command);
  context.debug(`read ${path}: ${formatShape(image.shape)} voxels`);
  const flow = await import('@peclet/flow');
  const tolerance = options.tolerance ?? defaultTolerance;
  const bar = startBar(context.progress, 'flow', 100);
  let result: Awaited<ReturnType<typeof flow.permeability>>;
  try {
    result = await withFlags(flowFlags, command, () =>
      flow.permeability(image, {
        ...options,
        onProgress: ({ steps, residual }) => {
          context.debug(`flow: ${steps} steps, residual ${residual.toExponential(2)}`);
          if (!(residual > 0)) return;
          // Digits gained towards the tolerance, as a percentage.
          const done = Math.round((100 * Math.log10(residual)) / Math.log10(tolerance));
          bar.update(Math.min(99, done), `${steps} steps, residual ${residual.toExponential(2)}`);
        },
      }),
    );
    bar.update(100, `${result.steps} steps, ${result.converged ? 'converged' : 'not converged'}`);
  } finally {
    bar.stop();
  }
  try {
    if (out !== undefined) await result.lattice.writeVti(out, { voxelSize: image.voxelSize });
  } finally {
    result.lattice.release();
  }

  const network = flags.network
    ? await networkPermeability(image, {
        axis: flags.axis,
        conductance: flags.conductance,
        ...(options.threads !== undefined ? { threads: options.threads } : {}),
        context,
        command,
      })
    : undefined;

  const report: PermeabilityReport = {
    command,
    image: { path, shape: [...image.shape], voxelSize: image.voxelSize, porosity: result.porosity },
    axis: result.axis,
    direct: {
      ...permeabilityValue(result.permeability),
      steps: result.steps,
      converged: result.converged,
      residual: result.residual,
      tortuosity: result.tortuosity,
      drive: options.drive ?? 'body-force',
      sides: options.sides ?? 'sealed',
      layout: result.layout,
      latticeUnits: { ...result.latticeUnits },
      ...(out !== undefined ? { vti: out } : {}),
    },
    ...(network !== undefined ? { network } : {}),
  };
  if (flags.json) {
    context.print(toJson(report));
    return;
  }
  const lines = [
    `${path}: ${formatShape(image.shape)} voxels of ${formatVoxelSize(image.voxelSize)}, porosity ${formatNumber(result.porosity)}`,
    `direct permeability along ${result.axis} (lattice Boltzmann): ${formatPermeability(result.permeability)}`,
    `  ${result.steps} steps, ${result.converged ? 'converged' : 'NOT converged (raise --max-steps or --tolerance)'}, residual ${result.residual.toExponential(2)}, tortuosity ${formatNumber(result.tortuosity, 3)}`,
  ];
  if (out !== undefined) lines.push(`  flow field written to ${out}`);
  if (network !== undefined) lines.push(...describeNetwork(network));
  context.print(lines.join('\n'));
}
