/**
 * The one-page reports `peclet permeability` and `peclet extract` write beside their results:
 * SVG and the same page as PNG. They take plain data (typed arrays and numbers), so they can be
 * called, and tested, without running a solver.
 */
import { networkPanel, speedPanel, speedSlice, svgDocument, table, writeFigure } from '@peclet/plot';
import type { Axis } from './flags.js';
import { formatNumber, formatPermeability, formatShape, formatVoxelSize } from './format.js';

/** Where a report goes: the page as SVG and as PNG (twice the SVG's pixels). */
export interface ReportFiles {
  readonly svg: string;
  readonly png: string;
}

/** What {@link writePermeabilityReport} draws. */
export interface PermeabilityReportInput {
  readonly files: ReportFiles;
  /** The image's path or name, for the title. */
  readonly source: string;
  /** The sample: C order, non-zero = solid, `voxelSize` in metres. */
  readonly image: {
    readonly solid: Uint8Array;
    readonly shape: readonly [number, number, number];
    readonly voxelSize: number;
  };
  /**
   * The velocity, 3 values per node in lattice units (`result.lattice.velocity`), over the
   * sample with `buffer` open layers before and after it along `axis` (`result.lattice.shape`);
   * only the sample is drawn.
   */
  readonly velocity: ArrayLike<number>;
  /** `result.latticeUnits.buffer`; 0 when `velocity` covers the sample alone. */
  readonly buffer: number;
  readonly axis: Axis;
  /** m². */
  readonly permeability: number;
  readonly porosity: number;
  readonly steps: number;
  readonly converged: boolean;
  readonly tortuosity: number;
  /** The pore network's permeability along the same axis, m², when it was computed (null: no path). */
  readonly networkPermeability?: number | null;
}

/** The permeability page as SVG: the mid-plane speed map of the sample and the key numbers. */
export async function permeabilityReportSvg(input: PermeabilityReportInput): Promise<string> {
  const { image } = input;
  const slice = speedSlice({
    solid: image.solid,
    shape: image.shape,
    voxelSize: image.voxelSize,
    velocity: input.velocity,
    buffer: input.buffer,
    axis: input.axis,
    permeability: input.permeability,
  });
  const box = fitted(slice.width, slice.height, 440);
  const rows: [string, string][] = [
    ['sample', `${formatShape(image.shape)} voxels`],
    ['voxel size', formatVoxelSize(image.voxelSize)],
    ['porosity', formatNumber(input.porosity)],
    ['permeability', formatPermeability(input.permeability)],
    ['flow axis', `${input.axis} (lattice Boltzmann)`],
    ['steps', `${input.steps}, ${input.converged ? 'converged' : 'NOT converged'}`],
    ['tortuosity', formatNumber(input.tortuosity, 3)],
  ];
  if (input.networkPermeability !== undefined) {
    rows.push([
      'pore network',
      input.networkPermeability === null ? 'no path joins the faces' : formatPermeability(input.networkPermeability),
    ]);
  }
  const right = box.x + box.width + 150;
  return svgDocument(page(box, right, `Permeability of ${input.source}`), [
    await speedPanel(slice, box, input.axis),
    table({ x: right, y: 80, labelWidth: 100, rows, heading: 'Result' }),
  ]);
}

/**
 * Writes the permeability page (SVG and PNG) and returns the paths written.
 *
 * @example
 * ```ts
 * const result = await permeability(image, { axis: 'x' });
 * await writePermeabilityReport({
 *   files: { svg: 'report.svg', png: 'report.png' }, source: 'berea.raw', image,
 *   velocity: result.lattice.velocity, buffer: result.latticeUnits.buffer, axis: 'x',
 *   permeability: result.permeability, porosity: result.porosity, steps: result.steps,
 *   converged: result.converged, tortuosity: result.tortuosity,
 * });
 * result.lattice.release();
 * ```
 */
export async function writePermeabilityReport(input: PermeabilityReportInput): Promise<string[]> {
  return writeFigure(await permeabilityReportSvg(input), { svgPath: input.files.svg, pngPath: input.files.png });
}

/** What {@link writeExtractReport} draws: the network in pnm's arrays and the key numbers. */
export interface ExtractReportInput {
  readonly files: ReportFiles;
  readonly source: string;
  readonly shape: readonly [number, number, number];
  /** Metres. */
  readonly voxelSize: number;
  readonly porosity: number;
  readonly pores: {
    /** x, y, z per pore, metres (`network.pores.coordinates`). */
    readonly coordinates: ArrayLike<number>;
    /** Metres. */
    readonly inscribedDiameter: ArrayLike<number>;
    /** The face a boundary pore sits on, −1 for interior pores (`network.pores.face`). */
    readonly face: ArrayLike<number>;
  };
  readonly throats: {
    /** Two pore indices per throat (`network.throats.conns`). */
    readonly conns: ArrayLike<number>;
    readonly inscribedDiameter: ArrayLike<number>;
  };
  /** The axis of the permeability; drawn across the page. */
  readonly axis: Axis;
  readonly boundaryPores: number;
  /** Mean coordination number of the interior pores. */
  readonly coordination: number;
  /** m² along `axis`; null when no path joins its faces. */
  readonly permeability: number | null;
}

/** The extract page as SVG: the network seen along one axis and the key numbers. */
export function extractReportSvg(input: ExtractReportInput): string {
  const across = input.axis === 'z' ? 'x' : input.axis;
  const normal = input.axis === 'z' ? 1 : 2;
  const [u, v] = [0, 1, 2].filter((i) => i !== normal) as [number, number];
  const box = fitted(input.shape[u] as number, input.shape[v] as number, 440);
  const pores = input.pores.inscribedDiameter.length;
  const throats = input.throats.inscribedDiameter.length;
  const rows: [string, string][] = [
    ['image', `${formatShape(input.shape)} voxels`],
    ['voxel size', formatVoxelSize(input.voxelSize)],
    ['porosity', formatNumber(input.porosity)],
    ['pores', `${pores} (${input.boundaryPores} boundary)`],
    ['throats', String(throats)],
    ['coordination', formatNumber(input.coordination, 3)],
    ['permeability', input.permeability === null ? 'no path joins the faces' : formatPermeability(input.permeability)],
    ['flow axis', `${input.axis} (Stokes flow)`],
  ];
  const right = box.x + box.width + 150;
  return svgDocument(page(box, right, `Pore network of ${input.source}`), [
    networkPanel(input, box, across),
    table({ x: right, y: 80, labelWidth: 100, rows, heading: 'Network (SNOW)' }),
  ]);
}

/** Writes the extract page (SVG and PNG) and returns the paths written. */
export async function writeExtractReport(input: ExtractReportInput): Promise<string[]> {
  return writeFigure(extractReportSvg(input), { svgPath: input.files.svg, pngPath: input.files.png });
}

/** The page: the panel, its colour bar, and a table of 330 px at `right`; whole pixels. */
function page(box: { y: number; width: number; height: number }, right: number, title: string) {
  return { width: Math.ceil(right + 330), height: Math.ceil(box.y + box.height + 100), title };
}

/** The panel's box: `size` px along the longer side, the sample's aspect ratio kept. */
function fitted(width: number, height: number, size: number) {
  const s = size / Math.max(width, height);
  return { x: 90, y: 60, width: width * s, height: height * s };
}
