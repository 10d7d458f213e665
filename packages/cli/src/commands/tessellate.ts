/**
 * `peclet tessellate <points.npy> --box …`: the Voronoi cells of points, or with `--radii` the
 * Laguerre cells of spheres (@peclet/voro).
 */
import { writeFile } from 'node:fs/promises';
import type { Context } from '../context.js';
import { withFlags } from '../errors.js';
import {
  checkOutputFolder,
  readAxesFlag,
  readBoxFlag,
  readIntegerFlag,
  readOutputFlag,
  requiredFlag,
} from '../flags.js';
import { formatNumber, toJson } from '../format.js';
import { readFloatNpy } from '../npy.js';

const command = 'tessellate';

/** Flags as commander collects them. */
export interface TessellateFlags {
  box?: string;
  radii?: string;
  /** `true` when given without a value. */
  periodic?: string | boolean;
  threads?: string;
  out?: string;
  json?: boolean;
}

/** What `--json` prints. */
export interface TessellateReport {
  readonly command: 'tessellate';
  readonly points: string;
  readonly radii?: string;
  readonly box: { min: number[]; max: number[] };
  readonly periodic: [boolean, boolean, boolean];
  readonly cells: number;
  /** Sum of the cell volumes and the box's volume (units of the coordinates, cubed). */
  readonly totalVolume: number;
  readonly boxVolume: number;
  /** |totalVolume − boxVolume| / boxVolume. */
  readonly volumeError: number;
  /** Mean over cells of the faces shared with other cells (walls not counted). */
  readonly meanNeighbors: number;
  /** Laguerre cells that are empty (a point dominated by larger neighbours). */
  readonly emptyCells: number;
  readonly out?: string;
}

export async function tessellateCommand(path: string, flags: TessellateFlags, context: Context): Promise<void> {
  const boxText = requiredFlag(flags.box, '--box is required: xmin,ymin,zmin,xmax,ymax,zmax', command);
  const box = readBoxFlag(boxText, command);
  const periodic =
    flags.periodic === undefined || flags.periodic === false
      ? ([false, false, false] as [boolean, boolean, boolean])
      : flags.periodic === true
        ? ([true, true, true] as [boolean, boolean, boolean])
        : readAxesFlag(flags.periodic, '--periodic', command);
  const threads =
    flags.threads === undefined ? undefined : readIntegerFlag(flags.threads, '--threads', command, 1, 4096);
  const out = flags.out === undefined ? undefined : readOutputFlag(flags.out, '--out', command, ['.json', '.vtp']);
  if (out !== undefined) await checkOutputFolder(out, '--out', command);

  const points = await readFloatNpy(path, 2);
  const radii = flags.radii === undefined ? undefined : await readFloatNpy(flags.radii, 1);
  if (radii !== undefined && radii.data.length !== points.shape[0]) {
    throw new RangeError(
      `${flags.radii} holds ${radii.data.length} radii for the ${points.shape[0]} points of ${path}`,
    );
  }
  context.debug(`read ${points.shape[0]} points from ${path}`);
  const voro = await import('@peclet/voro');
  const tessellation = await withFlags({ box: '--box', periodic: '--periodic', threads: '--threads' }, command, () =>
    voro.tessellateAsync(points.data, {
      box,
      periodic,
      ...(radii !== undefined ? { radii: radii.data } : {}),
      ...(threads !== undefined ? { threads } : {}),
    }),
  );
  let report: TessellateReport;
  try {
    const volumes = tessellation.volumes;
    const neighbors = tessellation.neighbors;
    let total = 0;
    for (const v of volumes) total += v;
    let shared = 0;
    for (const n of neighbors) if (n >= 0) shared++;
    const boxVolume = (box.max[0] - box.min[0]) * (box.max[1] - box.min[1]) * (box.max[2] - box.min[2]);
    if (out?.toLowerCase().endsWith('.vtp')) await writeCells(tessellation, out);
    else if (out !== undefined) {
      const { writeAtomically } = await import('@peclet/io');
      const offsets = tessellation.neighborOffsets;
      const faces = Array.from(volumes, (_, i) => (offsets[i + 1] as number) - (offsets[i] as number));
      const text = toJson({ volumes, faces, centroids: tessellation.centroids });
      await writeAtomically(out, (temp) => writeFile(temp, `${text}\n`));
    }
    report = {
      command,
      points: path,
      ...(flags.radii !== undefined ? { radii: flags.radii } : {}),
      box,
      periodic,
      cells: tessellation.size,
      totalVolume: total,
      boxVolume,
      volumeError: Math.abs(total - boxVolume) / boxVolume,
      meanNeighbors: shared / tessellation.size,
      emptyCells: tessellation.stats().emptyCells,
      ...(out !== undefined ? { out } : {}),
    };
  } finally {
    tessellation.release();
  }
  if (flags.json) {
    context.print(toJson(report));
    return;
  }
  const kind = radii === undefined ? 'Voronoi' : 'Laguerre';
  const wrap = periodic.some((p) => p)
    ? `, periodic along ${['x', 'y', 'z'].filter((_, a) => periodic[a]).join(', ')}`
    : '';
  const lines = [
    `${path}: ${report.cells} ${kind} cells in the box [${box.min.join(', ')}] – [${box.max.join(', ')}]${wrap}`,
    `  total volume ${formatNumber(report.totalVolume, 12)} of the box's ${formatNumber(report.boxVolume, 12)} (relative difference ${report.volumeError.toExponential(1)})`,
    `  mean neighbours per cell ${formatNumber(report.meanNeighbors, 4)}${report.emptyCells > 0 ? `, ${report.emptyCells} empty cells` : ''}`,
  ];
  if (out !== undefined) lines.push(`  wrote ${out}`);
  context.print(lines.join('\n'));
}

/**
 * The cells as VTK PolyData for ParaView: every face a polygon (each cell with vertices of its
 * own), with per polygon the cell's index and volume and the neighbour across the face (a point
 * index, or a negative wall id).
 */
async function writeCells(tessellation: import('@peclet/voro').Tessellation, path: string): Promise<void> {
  const { writeVtp } = await import('@peclet/io');
  const volumes = tessellation.volumes;
  const coordinates: number[] = [];
  const connectivity: number[] = [];
  const offsets: number[] = [];
  const cellOf: number[] = [];
  const neighbourOf: number[] = [];
  for (let i = 0; i < tessellation.size; i++) {
    const { vertices, faces, neighbors } = tessellation.cell(i);
    const base = coordinates.length / 3;
    for (const x of vertices) coordinates.push(x);
    faces.forEach((loop, f) => {
      for (const v of loop) connectivity.push(base + v);
      offsets.push(connectivity.length);
      cellOf.push(i);
      neighbourOf.push(neighbors[f] as number);
    });
  }
  await writeVtp(path, {
    points: Float64Array.from(coordinates),
    polys: { connectivity: Uint32Array.from(connectivity), offsets: Uint32Array.from(offsets) },
    cellData: {
      cell: Int32Array.from(cellOf),
      volume: Float64Array.from(cellOf, (i) => volumes[i] as number),
      neighbour: Int32Array.from(neighbourOf),
    },
    verts: false,
  });
}
