// The picture of the packing: the spheres cut by a vertical plane, each disc coloured by its
// sphere's local packing fraction (sphere volume / Laguerre cell volume), with axes and a scale
// bar in median sphere diameters and a labelled colour bar.
import { colourBar, css, imagePanel, svgDocument, text, viridisColour } from '@peclet/plot';

/**
 * The slice y = `plane` through spheres in a box `side` wide (periodic along x and y) and `top`
 * high, as an SVG page. Lengths are in the simulation's unit; `diameter` (the median sphere
 * diameter in that unit) is the unit of the axes.
 */
export function packingSliceSvg({ positions, radii, local, side, top, plane, diameter }) {
  const count = radii.length;
  const unit = { name: 'd₅₀', factor: diameter };
  const discs = [];
  for (let i = 0; i < count; i++) {
    for (const shift of [-side, 0, side]) {
      const dy = positions[3 * i + 1] + shift - plane;
      if (Math.abs(dy) >= radii[i]) continue;
      discs.push({ i, x: positions[3 * i], z: positions[3 * i + 2], r: Math.sqrt(radii[i] ** 2 - dy * dy) });
    }
  }
  // The colour range: the shown discs' packing fractions, widened to whole 0.05 steps.
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (const d of discs) {
    lo = Math.min(lo, local[d.i]);
    hi = Math.max(hi, local[d.i]);
  }
  lo = Math.floor(lo * 20) / 20;
  hi = Math.max(lo + 0.05, Math.ceil(hi * 20) / 20);
  const scale = Math.min(560 / side, 620 / top);
  const box = { x: 90, y: 60, width: side * scale, height: top * scale };
  const X = (x) => (box.x + x * scale).toFixed(1);
  const Y = (z) => (box.y + box.height - z * scale).toFixed(1);
  const circles = discs.map(
    (d) =>
      `<circle cx="${X(d.x)}" cy="${Y(d.z)}" r="${(d.r * scale).toFixed(1)}" fill="${css(viridisColour((local[d.i] - lo) / (hi - lo)))}"/>`,
  );
  const title = `Local packing fraction on the slice y = ${plane / diameter} d₅₀ (${count} spheres)`;
  return svgDocument({ width: Math.ceil(box.x + box.width + 150), height: Math.ceil(box.y + box.height + 90), title }, [
    `<defs><clipPath id="box"><rect x="${box.x}" y="${box.y}" width="${box.width}" height="${box.height}"/></clipPath></defs>`,
    `<rect x="${box.x}" y="${box.y}" width="${box.width}" height="${box.height}" fill="#f4f4f4"/>`,
    `<g clip-path="url(#box)" stroke="#222" stroke-width="0.5">${circles.join('')}</g>`,
    imagePanel({ ...box, extent: [side, top], axes: ['x', 'z'], unit }),
    colourBar({
      x: box.x + box.width + 20,
      y: box.y,
      width: 16,
      height: box.height,
      range: [lo, hi],
      title: 'local packing fraction',
    }),
    text(
      box.x,
      box.y + box.height + 66,
      `${discs.length} discs; colour: sphere volume / Laguerre cell volume; d₅₀ = median sphere diameter; z up, gravity down`,
      { size: 12 },
    ),
  ]);
}
