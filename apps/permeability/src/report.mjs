// The pictures of the pipeline: the speed on the sample's mid-plane in m/s (buffers left out) with
// its colour bar, axes in µm and a scale bar; the pore network seen along z; a bar chart of the
// three permeabilities and the key numbers. One page (report.svg, report.png), and the speed map
// alone as a picture (velocity.png).
import { join } from 'node:path';
import { networkPanel, speedPanel, speedSlice, svgDocument, table, text, writeFigure } from '@peclet/plot';

const DARCY = 9.869233e-13; // m²

/** The mid-plane speed of the sample, from the lattice of @peclet/flow's permeability(). */
export function sampleSpeed(image, direct) {
  return speedSlice({
    solid: image.solid,
    shape: image.shape,
    voxelSize: image.voxelSize,
    velocity: direct.lattice.velocity,
    buffer: direct.latticeUnits.buffer,
    axis: direct.axis,
    permeability: direct.permeability,
  });
}

/** A box of `size` px along the sample's longer side at (x, y). */
const fit = (x, y, width, height, size) => {
  const s = size / Math.max(width, height);
  return { x, y, width: width * s, height: height * s };
};

/** The speed map alone: velocity.svg / velocity.png. */
export async function velocityFigure(slice, { source, axis }) {
  const box = fit(90, 60, slice.width, slice.height, 480);
  return svgDocument(
    {
      width: Math.ceil(box.x + box.width + 160),
      height: Math.ceil(box.y + box.height + 110),
      title: '|u| on the mid-plane of the sample',
    },
    [await speedPanel(slice, box, axis), text(box.x, box.y + box.height + 98, source, { size: 12 })],
  );
}

/** The one-page report. */
export async function reportSvg({ summary, slice, network, image }) {
  const speedBox = fit(90, 60, slice.width, slice.height, 400);
  const netBox = fit(speedBox.x + speedBox.width + 170, 60, image.shape[0], image.shape[1], 400);
  const width = Math.ceil(netBox.x + netBox.width + 130);
  const top = Math.max(speedBox.y + speedBox.height, netBox.y + netBox.height) + 130;
  const parts = [
    await speedPanel(slice, speedBox, summary.flow.axis),
    networkPanel(
      { pores: network.pores, throats: network.throats, shape: image.shape, voxelSize: image.voxelSize },
      netBox,
      'x',
    ),
    ...permeabilityBars(summary.permeability, { x: 90, y: top + 30, width: 380, height: 220 }),
    table({
      x: 600,
      y: top + 20,
      labelWidth: 170,
      heading: 'Result',
      rows: [
        ['sample', `${summary.voxels.join('×')} voxels of ${(summary.voxelSize * 1e6).toPrecision(4)} µm`],
        ['direct / network', summary.ratios.directOverNetwork.toFixed(2)],
        ['direct / Kozeny–Carman', summary.ratios.directOverKozenyCarman.toFixed(2)],
        [
          'porosity',
          `voxels ${summary.porosity.voxels.toFixed(4)}, network ${summary.porosity.network.toFixed(4)}` +
            (summary.porosity.spheres === undefined ? '' : `, spheres ${summary.porosity.spheres.toFixed(4)}`),
        ],
        ['network', `${summary.network.pores} pores, ${summary.network.throats} throats`],
        [
          'lattice Boltzmann',
          `${summary.flow.steps} steps (${summary.flow.converged ? 'converged' : 'NOT converged'}), ${summary.flow.sides} sides`,
        ],
        ['tortuosity', summary.flow.tortuosity.toFixed(3)],
      ],
    }),
  ];
  return svgDocument({ width, height: Math.ceil(top + 300), title: `Permeability of ${summary.source}` }, parts);
}

/** A bar chart of the three permeabilities in darcy, each bar labelled with its value. */
function permeabilityBars(k, box) {
  const bars = [
    ['Kozeny–Carman', k.kozenyCarman, '#4c72b0'],
    ['pore network', k.network, '#dd8452'],
    ['direct (LBM)', k.direct, '#55a868'],
  ];
  const top = Math.max(...bars.map((b) => b[1] / DARCY)) * 1.15;
  const bottom = box.y + box.height;
  const parts = [
    text(box.x, box.y - 10, 'permeability (D)', { weight: 'bold' }),
    `<line x1="${box.x}" y1="${bottom}" x2="${box.x + box.width}" y2="${bottom}" stroke="black"/>`,
  ];
  bars.forEach(([label, value, colour], i) => {
    const h = (value / DARCY / top) * box.height;
    const x = box.x + 10 + i * (box.width / 3);
    const w = box.width / 3 - 20;
    parts.push(
      `<rect x="${x.toFixed(1)}" y="${(bottom - h).toFixed(1)}" width="${w.toFixed(1)}" height="${h.toFixed(1)}" fill="${colour}"/>`,
      text(x + w / 2, bottom - h - 6, `${(value / DARCY).toPrecision(3)} D`, { anchor: 'middle' }),
      text(x + w / 2, bottom + 18, label, { anchor: 'middle' }),
    );
  });
  return parts;
}

/** Writes velocity.svg/.png and report.svg/.png into `out`; returns the files written. */
export async function writePictures(out, { summary, slice, network, image }) {
  const velocity = await velocityFigure(slice, { source: summary.source, axis: summary.flow.axis });
  const report = await reportSvg({ summary, slice, network, image });
  return [
    ...(await writeFigure(velocity, { svgPath: join(out, 'velocity.svg'), pngPath: join(out, 'velocity.png') })),
    ...(await writeFigure(report, { svgPath: join(out, 'report.svg'), pngPath: join(out, 'report.png') })),
  ];
}
