/**
 * The figures the apps and the CLI write, as SVG drawn by hand (no browser, no canvas) and PNG
 * rendered from the same SVG: image panels with physical axes and a scale bar, viridis colour
 * bars with a title, units and ticks, line and staircase plots with axis titles and units.
 *
 * @example
 * ```ts
 * import { colourBar, colourImage, imagePanel, svgDocument, writeFigure } from '@peclet/plot';
 * const png = await colourImage(slice, { range: [0, max], scale: 4, origin: 'lower' });
 * const svg = svgDocument({ width: 640, height: 540, title: 'Speed' }, [
 *   imagePanel({ x: 80, y: 50, width: 400, height: 400, png, extent: [1e-3, 1e-3], axes: ['x', 'y'] }),
 *   colourBar({ x: 510, y: 50, width: 16, height: 400, range: [0, max], title: '|u|', unit: speedUnit(max) }),
 * ]);
 * await writeFigure(svg, { svgPath: 'speed.svg', pngPath: 'speed.png' });
 * ```
 *
 * @packageDocumentation
 */
export { type ColourImageOptions, colourImage, css, type Rgb, type ScalarImage, viridisColour } from './colour.js';
export {
  type AxisName,
  type NetworkView,
  networkPanel,
  type SpeedSlice,
  type SpeedSliceInput,
  speedPanel,
  speedSlice,
} from './fields.js';
export { svgToPng, writeFigure } from './render.js';
export {
  formatNumber,
  formatTick,
  lengthUnit,
  logTicks,
  niceStep,
  niceTicks,
  pressureUnit,
  speedUnit,
  superscript,
  type Unit,
} from './scale.js';
export {
  type Axis,
  axisTitle,
  type Box,
  type ColourBarOptions,
  colourBar,
  type DocumentOptions,
  escapeXml,
  fontFamily,
  type ImagePanelOptions,
  imagePanel,
  type LinePlotOptions,
  linePlot,
  type Series,
  svgDocument,
  type TableOptions,
  type TextStyle,
  table,
  text,
} from './svg.js';
