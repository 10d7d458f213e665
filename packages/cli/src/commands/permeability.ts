/**
 * `peclet permeability <image>`: the direct permeability of a voxel image by lattice Boltzmann
 * (@peclet/flow), and with `--network` its pore network's (@peclet/pnm).
 */
import { basename } from 'node:path';
import type { ConductanceModel } from '@peclet/pnm';
import { type Context, Warnings } from '../context.js';
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
import { checkImage, type ImageFlags, loadImage, readImageFlags, readReportFlag } from '../image.js';
import { formatDuration, startBar } from '../progress.js';
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
  quiet?: boolean;
  /** A prefix, or false for `--no-report`. */
  report?: string | boolean;
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
  readonly image: { path: string; shape: number[]; voxelSize: number; porosity: number; convention?: string };
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
  /** The one-page report written (SVG and PNG), unless `--no-report`. */
  readonly report?: string[];
  readonly network?: NetworkPermeability;
  /** Likely mistakes in the input or the result (see `peclet --help`); empty when none. */
  readonly warnings: string[];
}

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
  const reportFiles = await readReportFlag(flags.report, path, 'permeability', command);
  if (!flags.network && flags.conductance !== 'pyramids-and-cuboids') {
    throw new UsageError('--conductance only applies with --network', command);
  }

  const image = await loadImage(request, command);
  context.debug(`read ${path}: ${formatShape(image.shape)} voxels`);
  const warnings = new Warnings(context, flags.quiet);
  await checkImage(image, path, warnings);
  const flow = await import('@peclet/flow');
  const bar = startBar(context.progress, 'flow', 1);
  const started = performance.now();
  let result: Awaited<ReturnType<typeof flow.permeability>>;
  try {
    result = await withFlags(flowFlags, command, () =>
      flow.permeability(image, {
        ...options,
        onProgress: ({ steps, residual, projectedSteps }) => {
          context.debug(`flow: ${steps} steps, residual ${residual.toExponential(2)}, projected ${projectedSteps}`);
          // The bar measures steps against the step the run is projected to settle at (from how
          // fast its change shrinks); until that is known, it says it is estimating.
          const detail = `${steps} steps, residual ${residual.toExponential(2)}`;
          if (!(projectedSteps > steps)) {
            bar.update(0, `${detail}, estimating the steps left`);
            return;
          }
          const seconds = ((performance.now() - started) / 1e3 / steps) * (projectedSteps - steps);
          bar.update(steps / projectedSteps, `${detail}, ~${projectedSteps} steps, ETA ${formatDuration(seconds)}`);
        },
      }),
    );
    bar.update(1, `${result.steps} steps, ${result.converged ? 'converged' : 'not converged'}`);
  } finally {
    bar.stop();
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
  let report: string[] | undefined;
  try {
    if (out !== undefined) await flow.writeFlowVti(result, out);
    if (reportFiles !== undefined) {
      const { writePermeabilityReport } = await import('../report.js');
      report = await writePermeabilityReport({
        files: reportFiles,
        source: basename(path),
        image,
        velocity: result.lattice.velocity,
        buffer: result.latticeUnits.buffer,
        axis: result.axis,
        permeability: result.permeability,
        porosity: result.porosity,
        steps: result.steps,
        converged: result.converged,
        tortuosity: result.tortuosity,
        ...(network !== undefined ? { networkPermeability: network.permeability } : {}),
      });
    }
  } finally {
    result.lattice.release();
  }
  const { permeabilityWarning } = await import('@peclet/io');
  warnings.add(permeabilityWarning(result.permeability, 'direct'));

  if (network?.permeability != null) warnings.add(permeabilityWarning(network.permeability, 'network'));

  const summary: PermeabilityReport = {
    command,
    image: {
      path,
      shape: [...image.shape],
      voxelSize: image.voxelSize,
      porosity: result.porosity,
      ...(image.convention !== undefined ? { convention: image.convention } : {}),
    },
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
    ...(report !== undefined ? { report } : {}),
    warnings: warnings.list,
  };
  if (flags.json) {
    context.print(toJson(summary));
    return;
  }
  const lines = [
    `${path}: ${formatShape(image.shape)} voxels of ${formatVoxelSize(image.voxelSize)}, porosity ${formatNumber(result.porosity)}`,
    `direct permeability along ${result.axis} (lattice Boltzmann): ${formatPermeability(result.permeability)}`,
    `  ${result.steps} steps, ${result.converged ? 'converged' : 'NOT converged (raise --max-steps or --tolerance)'}, residual ${result.residual.toExponential(2)}, tortuosity ${formatNumber(result.tortuosity, 3)}`,
  ];
  if (out !== undefined) lines.push(`  flow field written to ${out}`);
  if (report !== undefined) lines.push(`  report written to ${report.join(' and ')}`);
  if (network !== undefined) lines.push(...describeNetwork(network));
  context.print(lines.join('\n'));
}
