/**
 * `peclet extract <image>`: the SNOW pore network of a voxel image (@peclet/pnm), its summary and
 * permeability, and the files ParaView (`--out network.vtp`) and pnflow/OpenPNM (`--statoil`) read.
 */
import { basename, dirname, join } from 'node:path';
import { type Context, Warnings } from '../context.js';
import { UsageError, withFlags } from '../errors.js';
import {
  type Axis,
  axisNames,
  checkOutputFolder,
  readAxesFlag,
  readIntegerFlag,
  readNonNegativeFlag,
  readOutputFlag,
} from '../flags.js';
import { formatNumber, formatShape, formatVoxelSize, toJson } from '../format.js';
import { checkImage, type ImageFlags, loadImage, readImageFlags, readReportFlag } from '../image.js';
import { describeNetwork, extractNetwork, flowThrough, type NetworkPermeability } from './network.js';

const command = 'extract';

/** Flags as commander collects them. */
export interface ExtractFlags extends ImageFlags {
  axis: Axis;
  boundaries?: string;
  sigma?: string;
  rMax?: string;
  watershed?: 'basins' | 'priority-flood';
  conductance: NetworkPermeability['conductance'];
  threads?: string;
  out?: string;
  statoil?: string;
  json?: boolean;
  quiet?: boolean;
  /** A prefix, or false for `--no-report`. */
  report?: string | boolean;
}

/** What `--json` prints. */
export interface ExtractReport {
  readonly command: 'extract';
  readonly image: { path: string; shape: number[]; voxelSize: number; porosity: number; convention?: string };
  /** Pores, boundary pores included. */
  readonly pores: number;
  readonly boundaryPores: number;
  readonly throats: number;
  /** Mean coordination number of the interior pores. */
  readonly coordination: number;
  /** Axes whose two faces got boundary pores. */
  readonly boundaries: Axis[];
  /** Along `--axis`; null inside when the faces of the axis have no boundary pores or no path joins them. */
  readonly network: NetworkPermeability;
  /** Seconds per extraction stage. */
  readonly timings: object;
  readonly files: string[];
  /** Likely mistakes in the input or the result (see `peclet --help`); empty when none. */
  readonly warnings: string[];
}

export async function extractCommand(path: string, flags: ExtractFlags, context: Context): Promise<void> {
  const request = readImageFlags(path, flags, command);
  const boundaries =
    flags.boundaries === undefined ? [flags.axis] : axisNames(readAxesFlag(flags.boundaries, '--boundaries', command));
  const settings = {
    boundaries,
    ...(flags.sigma !== undefined ? { sigma: readNonNegativeFlag(flags.sigma, '--sigma', command) } : {}),
    ...(flags.rMax !== undefined ? { rMax: readIntegerFlag(flags.rMax, '--r-max', command, 1, 1000) } : {}),
    ...(flags.watershed !== undefined ? { watershed: flags.watershed } : {}),
    ...(flags.threads !== undefined
      ? { threads: readIntegerFlag(flags.threads, '--threads', command, 1, 65_536) }
      : {}),
  };
  const vtp = flags.out === undefined ? undefined : readOutputFlag(flags.out, '--out', command, ['.vtp']);
  if (vtp !== undefined) await checkOutputFolder(vtp, '--out', command);
  let statoil: { dir: string; prefix: string } | undefined;
  if (flags.statoil !== undefined) {
    const prefix = basename(flags.statoil);
    if (flags.statoil.endsWith('/') || prefix.length === 0) {
      throw new UsageError(
        `--statoil must be a path prefix such as out/berea (files out/berea_node1.dat, …), got ${JSON.stringify(flags.statoil)}`,
        command,
      );
    }
    await checkOutputFolder(flags.statoil, '--statoil', command);
    statoil = { dir: dirname(flags.statoil), prefix };
  }

  const reportFiles = await readReportFlag(flags.report, path, 'network', command);
  const image = await loadImage(request, command);
  const warnings = new Warnings(context, flags.quiet);
  await checkImage(image, path, warnings);
  const { permeabilityWarning } = await import('@peclet/io');
  const network = await extractNetwork(image, settings, context, command);
  let report: ExtractReport;
  try {
    const statistics = network.statistics();
    const files: string[] = [];
    if (vtp !== undefined) {
      await network.writeVtp(vtp);
      files.push(vtp);
    }
    if (statoil !== undefined) {
      const { dir, prefix } = statoil;
      await withFlags({ dir: '--statoil', prefix: '--statoil' }, command, () => network.writeStatoil(dir, prefix));
      for (const kind of ['node1', 'node2', 'link1', 'link2']) files.push(join(dir, `${prefix}_${kind}.dat`));
    }
    const permeability = flowThrough(network, flags.axis, flags.conductance);
    if (permeability.permeability !== null) warnings.add(permeabilityWarning(permeability.permeability, 'network'));
    if (reportFiles !== undefined) {
      const { writeExtractReport } = await import('../report.js');
      files.push(
        ...(await writeExtractReport({
          files: reportFiles,
          source: basename(path),
          shape: image.shape,
          voxelSize: image.voxelSize,
          porosity: network.porosity,
          pores: network.pores,
          throats: network.throats,
          axis: flags.axis,
          boundaryPores: statistics.boundaryPoreCount,
          coordination: statistics.coordination.mean,
          permeability: permeability.permeability,
        })),
      );
    }
    report = {
      command,
      image: {
        path,
        shape: [...image.shape],
        voxelSize: image.voxelSize,
        porosity: network.porosity,
        ...(image.convention !== undefined ? { convention: image.convention } : {}),
      },
      pores: statistics.poreCount,
      boundaryPores: statistics.boundaryPoreCount,
      throats: statistics.throatCount,
      coordination: statistics.coordination.mean,
      boundaries,
      network: permeability,
      timings: { ...network.timings },
      files,
      warnings: warnings.list,
    };
  } finally {
    network.release();
  }
  if (flags.json) {
    context.print(toJson(report));
    return;
  }
  const lines = [
    `${path}: ${formatShape(image.shape)} voxels of ${formatVoxelSize(image.voxelSize)}, porosity ${formatNumber(report.image.porosity)}`,
    `pore network (SNOW): ${report.pores} pores (${report.boundaryPores} boundary pores on the ${report.boundaries.length > 0 ? `${report.boundaries.join(', ')} faces` : 'faces: none asked for'}), ${report.throats} throats, mean coordination ${formatNumber(report.coordination, 3)}`,
    ...describeNetwork(report.network).slice(0, 1),
  ];
  for (const file of report.files) lines.push(`  wrote ${file}`);
  context.print(lines.join('\n'));
}
