/** Pore-network steps shared by `permeability --network` and `extract`. */
import type { VoxelImage } from '@peclet/io';
import type { ConductanceModel, Network } from '@peclet/pnm';
import type { Context } from '../context.js';
import { withFlags } from '../errors.js';
import type { Axis } from '../flags.js';
import { formatPermeability, permeabilityValue } from '../format.js';
import { startBar } from '../progress.js';

/** A network's permeability along an axis, or why it has none. */
export interface NetworkPermeability {
  readonly axis: Axis;
  readonly conductance: ConductanceModel;
  /** Pores, boundary pores included. */
  readonly pores: number;
  readonly boundaryPores: number;
  readonly throats: number;
  /** m²; null when no path of throats joins the two faces of the axis (see `reason`). */
  readonly permeability: number | null;
  readonly millidarcy: number | null;
  readonly darcy: number | null;
  readonly reason?: string;
  /** The linear solve: iterations, residual, pores excluded as not joining both faces. */
  readonly solve?: { iterations: number; converged: boolean; excludedPores: number };
}

export interface ExtractSettings {
  boundaries: boolean | Axis[];
  sigma?: number;
  rMax?: number;
  watershed?: 'basins' | 'priority-flood';
  threads?: number;
}

/** pnm's argument names → flags, for extraction. */
const extractFlags = {
  sigma: '--sigma',
  rMax: '--r-max',
  watershed: '--watershed',
  boundaries: '--boundaries',
  threads: '--threads',
  voxelSize: '--voxel-size',
} as const;

const stageNames = ['distance transform', 'smoothing', 'peaks', 'watershed', 'network'];

/** SNOW extraction off the main thread (so Ctrl-C is handled at once), with a bar over its five stages. */
export async function extractNetwork(
  image: VoxelImage,
  settings: ExtractSettings,
  context: Context,
  command: string,
): Promise<Network> {
  const pnm = await import('@peclet/pnm');
  const bar = startBar(context.progress, 'pnm', 5);
  let last = -1;
  try {
    const network = await withFlags(extractFlags, command, () =>
      pnm.extractAsync(image, {
        ...settings,
        onProgress: ({ stageIndex }) => {
          if (stageIndex === last) return;
          last = stageIndex;
          context.debug(`pnm: ${stageNames[stageIndex]}`);
          bar.update(stageIndex, stageNames[stageIndex] ?? '');
        },
      }),
    );
    bar.update(5, `${network.poreCount} pores, ${network.throatCount} throats`);
    return network;
  } finally {
    bar.stop();
  }
}

/** Stokes flow along `axis`; a network with no path between the faces has no permeability, and says why. */
export function flowThrough(
  network: Network,
  axis: Axis,
  conductance: NetworkPermeability['conductance'],
): NetworkPermeability {
  let boundaryPores = 0;
  for (const face of network.pores.face) if (face >= 0) boundaryPores++;
  const counts = { axis, conductance, pores: network.poreCount, boundaryPores, throats: network.throatCount };
  try {
    const flow = network.stokesFlow({ axis, conductance });
    const { iterations, converged, excludedPores } = flow.solve;
    return { ...counts, ...permeabilityValue(flow.permeability), solve: { iterations, converged, excludedPores } };
  } catch (error) {
    // pnm refuses (naming `axis`) a network with no boundary pores on the axis's faces or no
    // path between them: its permeability is zero or undefined, a result rather than a failure.
    if (error instanceof RangeError && (error as { argument?: unknown }).argument === 'axis') {
      return {
        ...counts,
        permeability: null,
        millidarcy: null,
        darcy: null,
        reason: error.message.replace(/^axis: /, ''),
      };
    }
    throw error;
  }
}

/** Extracts the network with boundary pores on the axis's faces, solves Stokes flow, releases it. */
export async function networkPermeability(
  image: VoxelImage,
  options: {
    axis: Axis;
    conductance: NetworkPermeability['conductance'];
    threads?: number;
    context: Context;
    command: string;
  },
): Promise<NetworkPermeability> {
  const { axis, conductance, threads, context, command } = options;
  const network = await extractNetwork(
    image,
    { boundaries: [axis], ...(threads !== undefined ? { threads } : {}) },
    context,
    command,
  );
  try {
    return flowThrough(network, axis, conductance);
  } finally {
    network.release();
  }
}

/** The summary lines of a network's permeability. */
export function describeNetwork(network: NetworkPermeability): string[] {
  const head = `network permeability along ${network.axis} (pore network, ${network.conductance} conductances)`;
  const size = `  ${network.pores} pores (${network.boundaryPores} on the faces), ${network.throats} throats`;
  if (network.permeability === null) return [`${head}: none — ${network.reason}`, size];
  return [`${head}: ${formatPermeability(network.permeability)}`, size];
}
