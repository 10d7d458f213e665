// The drainage capillary pressure curve as a staircase: percolation fills the network at a
// discrete set of entry pressures, so the wetting saturation holds while the pressure rises to
// the next one and then drops at once. Joining the points by straight lines would draw states
// that never occur. Pressure on a log axis in kPa (or Pa, MPa: whichever reads best).
import { linePlot, pressureUnit, svgDocument } from '@peclet/plot';

/**
 * The page of a drainage curve: `pressure` (Pa, ascending) and the non-wetting saturation after
 * each, as @peclet/pnm's `network.drainage()` returns them.
 */
export function capillaryPressureSvg({ pressure, saturation, title, label }) {
  const first = pressure[0];
  const last = pressure[pressure.length - 1];
  // A margin of a factor 1.5 either side of the curve, the lower end below the first entry
  // pressure, where the staircase starts.
  const range = [first / 1.5, last * 1.5];
  const unit = pressureUnit(Math.sqrt(range[0] * range[1]));
  // From Sw = 1 at the bottom of the axis: up to each entry pressure, then across to the
  // saturation it leaves.
  const x = [1, ...Array.from(saturation, (s) => 1 - s)];
  const y = [range[0], ...pressure];
  const [width, height] = [720, 500];
  return svgDocument({ width, height, title }, [
    linePlot({
      x: 90,
      y: 60,
      width: width - 120,
      height: height - 140,
      xAxis: { title: 'wetting saturation', range: [0, 1] },
      yAxis: { title: 'capillary pressure', unit, range, log: true },
      series: [{ x, y, colour: '#1f5fbf', step: 'vertical-first', label }],
    }),
  ]);
}
