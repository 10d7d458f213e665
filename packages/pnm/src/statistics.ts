import { readInteger, readOptions } from '@peclet/core';
import type { NetworkArrays } from './arrays.js';
import { readNetwork } from './writers.js';

/**
 * A histogram of some values with its summary. `counts[i]` counts the values in
 * `[edges[i], edges[i + 1])`, the last bin closed on the right, so the counts sum to the number of
 * values. The bins are equal and span `[min, max]`; when every value is the same `v` they span
 * `[v − |v|/2, v + |v|/2]` (`[−0.5, 0.5]` for 0). With no values the edges are all 0, the counts
 * all 0 and `mean`, `median`, `min`, `max` are NaN.
 */
export interface Histogram {
  /** `bins + 1` bin edges, increasing. */
  readonly edges: number[];
  /** `bins` counts. */
  readonly counts: number[];
  readonly mean: number;
  /** The middle value (the mean of the two middle ones for an even count). */
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

/** Coordination numbers of the interior pores. */
export interface CoordinationStatistics {
  /** Mean over interior pores (NaN with none). */
  readonly mean: number;
  /** Smallest (NaN with no interior pores). */
  readonly min: number;
  /** Largest (NaN with no interior pores). */
  readonly max: number;
  /** `histogram[z]`: how many interior pores have coordination number z; length `max + 1` (empty with none). */
  readonly histogram: number[];
}

/** What {@link networkStatistics} returns. */
export interface NetworkStatistics {
  /** Every pore, boundary pores included. */
  readonly poreCount: number;
  /** Every throat, throats to boundary pores included. */
  readonly throatCount: number;
  /** Pores on a face (`face` ≥ 0); the interior pores are `poreCount − boundaryPoreCount`. */
  readonly boundaryPoreCount: number;
  readonly coordination: CoordinationStatistics;
  /** Inscribed diameters of the interior pores (m). */
  readonly poreDiameter: Histogram;
  /** Inscribed diameters of every throat (m), throats to boundary pores included. */
  readonly throatDiameter: Histogram;
  /** Sum of the interior pores' volumes (m³); boundary pores have none. */
  readonly poreVolumeTotal: number;
  /** The image's porosity, as the network carries it. */
  readonly porosity: number;
}

/** Options of {@link networkStatistics}. */
export interface NetworkStatisticsOptions {
  /** Bins of each histogram: an integer in [1, 10000], default 20. */
  bins?: number;
}

/** The histogram and summary of `values` (a fresh array, sorted here). */
function histogramOf(values: Float64Array, bins: number): Histogram {
  const n = values.length;
  if (n === 0) {
    const nan = Number.NaN;
    return {
      edges: new Array(bins + 1).fill(0),
      counts: new Array(bins).fill(0),
      mean: nan,
      median: nan,
      min: nan,
      max: nan,
    };
  }
  values.sort();
  const min = values[0] as number;
  const max = values[n - 1] as number;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += values[i] as number;
  const half = n >> 1;
  const median = n % 2 === 1 ? (values[half] as number) : ((values[half - 1] as number) + (values[half] as number)) / 2;
  let lo = min;
  let hi = max;
  if (!(hi > lo)) {
    const d = min === 0 ? 0.5 : Math.abs(min) / 2;
    lo = min - d;
    hi = min + d;
  }
  const width = hi - lo;
  const edges: number[] = [];
  for (let i = 0; i <= bins; i++) edges.push(i === bins ? hi : lo + (width * i) / bins);
  const counts = new Array<number>(bins).fill(0);
  for (let i = 0; i < n; i++) {
    const x = values[i] as number;
    let b = Math.min(bins - 1, Math.max(0, Math.floor(((x - lo) / width) * bins)));
    // The division may round across an edge: settle on the bin whose edges hold x.
    while (b > 0 && x < (edges[b] as number)) b--;
    while (b < bins - 1 && x >= (edges[b + 1] as number)) b++;
    counts[b] = (counts[b] as number) + 1;
  }
  return { edges, counts, mean: sum / n, median, min, max };
}

/**
 * Summary statistics of a network: counts, the coordination numbers of the interior pores, and
 * histograms of pore and throat inscribed diameters.
 *
 * The coordination number of an interior pore (`face` −1) is the number of throats it ends —
 * throats to boundary pores included — which is OpenPNM's `network.num_neighbors(pores)` for a
 * network without parallel throats (snow2 networks have none); `coordination.mean` is its mean
 * over the interior pores (`num_neighbors(pn.pores('internal')).mean()`), not over every pore.
 * The pore-diameter histogram covers the interior pores, the throat-diameter one every throat;
 * see {@link Histogram} for the bins.
 *
 * `options.bins` (default 20) must be an integer in [1, 10000]: a RangeError naming `bins`
 * otherwise (a TypeError when it is not a number).
 *
 * @example
 * ```ts
 * const s = networkStatistics(network, { bins: 30 });
 * console.log(`${s.poreCount - s.boundaryPoreCount} pores, mean coordination ${s.coordination.mean.toFixed(2)}`);
 * ```
 */
export function networkStatistics(network: NetworkArrays, options?: NetworkStatisticsOptions): NetworkStatistics {
  const net = readNetwork(network, 'network');
  const o = readOptions(options, 'options', ['bins'], { optional: true });
  const bins = readInteger(o.bins, 'bins', { min: 1, max: 10000, fallback: 20 });
  const { pores, throats } = net;
  const n = pores.volume.length;
  const m = throats.length.length;

  const degree = new Int32Array(n);
  for (let k = 0; k < 2 * m; k++) {
    const p = throats.conns[k] as number;
    degree[p] = (degree[p] as number) + 1;
  }
  let interior = 0;
  let poreVolumeTotal = 0;
  let zSum = 0;
  let zMin = Number.POSITIVE_INFINITY;
  let zMax = -1;
  const diameters: number[] = [];
  for (let p = 0; p < n; p++) {
    if (pores.face[p] !== -1) continue;
    interior++;
    poreVolumeTotal += pores.volume[p] as number;
    diameters.push(pores.inscribedDiameter[p] as number);
    const z = degree[p] as number;
    zSum += z;
    if (z < zMin) zMin = z;
    if (z > zMax) zMax = z;
  }
  const histogram = new Array<number>(zMax + 1).fill(0);
  for (let p = 0; p < n; p++) {
    if (pores.face[p] !== -1) continue;
    const z = degree[p] as number;
    histogram[z] = (histogram[z] as number) + 1;
  }
  const coordination: CoordinationStatistics =
    interior === 0
      ? { mean: Number.NaN, min: Number.NaN, max: Number.NaN, histogram }
      : { mean: zSum / interior, min: zMin, max: zMax, histogram };
  return {
    poreCount: n,
    throatCount: m,
    boundaryPoreCount: n - interior,
    coordination,
    poreDiameter: histogramOf(Float64Array.from(diameters), bins),
    throatDiameter: histogramOf(new Float64Array(throats.inscribedDiameter), bins),
    poreVolumeTotal,
    porosity: net.porosity,
  };
}
