// The one-page report: the velocity on the mid-plane with the pore network drawn over it, a bar
// chart of the three permeabilities and the porosities, as one SVG (the PNG embedded).

const xml = (text) => String(text).replace(/&/g, '&amp;').replace(/</g, '&lt;');
const darcy = (k) => k / 9.869233e-13;

export function reportSvg({ summary, png, slice, pores, throats, voxelSize, index, buffer }) {
  const W = 900;
  const H = 520;
  const side = 440;
  const scale = side / Math.max(slice.width, slice.height);
  const parts = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="13">`,
  );
  parts.push(`<title>Permeability of ${xml(summary.source)}</title>`);
  parts.push(`<rect width="${W}" height="${H}" fill="white"/>`);
  parts.push(`<text x="20" y="28" font-size="16" font-weight="bold">Permeability of ${xml(summary.source)}</text>`);
  // The slice (x across, y down), scaled; pores within two voxels of the plane and their throats.
  const x0 = 20;
  const y0 = 50;
  parts.push(
    `<image x="${x0}" y="${y0}" width="${slice.width * scale}" height="${slice.height * scale}" image-rendering="pixelated" href="data:image/png;base64,${png.toString('base64')}"/>`,
  );
  const c = pores.coordinates;
  const near = (p) => Math.abs(c[3 * p + 2] / voxelSize - (index + 0.5)) < 2;
  const px = (p) => x0 + (c[3 * p] / voxelSize + buffer) * scale;
  const py = (p) => y0 + (c[3 * p + 1] / voxelSize) * scale;
  const conns = throats.conns;
  for (let t = 0; t < conns.length / 2; t++) {
    const a = conns[2 * t];
    const b = conns[2 * t + 1];
    if (!near(a) || !near(b)) continue;
    parts.push(
      `<line x1="${px(a).toFixed(1)}" y1="${py(a).toFixed(1)}" x2="${px(b).toFixed(1)}" y2="${py(b).toFixed(1)}" stroke="white" stroke-width="1.2"/>`,
    );
  }
  for (let p = 0; p < c.length / 3; p++) {
    if (!near(p)) continue;
    const r = Math.max(1.5, (pores.inscribedDiameter[p] / voxelSize / 2) * scale);
    parts.push(
      `<circle cx="${px(p).toFixed(1)}" cy="${py(p).toFixed(1)}" r="${r.toFixed(1)}" fill="none" stroke="#ff5050" stroke-width="1.2"/>`,
    );
  }
  parts.push(
    `<text x="${x0}" y="${y0 + slice.height * scale + 18}">|u| on the mid-plane z (viridis; solid gray), flow along x; pores within 2 voxels of it (red) and their throats (white)</text>`,
  );
  // Bars: the three permeabilities in darcy.
  const k = summary.permeability;
  const bars = [
    ['Kozeny–Carman', k.kozenyCarman, '#4c72b0'],
    ['pore network', k.network, '#dd8452'],
    ['direct (LBM)', k.direct, '#55a868'],
  ];
  const bx = 520;
  const by = 70;
  const bh = 250;
  const top = Math.max(...bars.map((b) => darcy(b[1]))) * 1.15;
  parts.push(`<text x="${bx}" y="${by - 8}" font-weight="bold">permeability (D)</text>`);
  parts.push(`<line x1="${bx}" y1="${by + bh}" x2="${bx + 340}" y2="${by + bh}" stroke="black"/>`);
  bars.forEach(([label, value, colour], i) => {
    const h = (darcy(value) / top) * bh;
    const x = bx + 20 + i * 110;
    parts.push(`<rect x="${x}" y="${(by + bh - h).toFixed(1)}" width="80" height="${h.toFixed(1)}" fill="${colour}"/>`);
    parts.push(
      `<text x="${x + 40}" y="${(by + bh - h - 6).toFixed(1)}" text-anchor="middle">${darcy(value).toPrecision(3)}</text>`,
    );
    parts.push(`<text x="${x + 40}" y="${by + bh + 18}" text-anchor="middle">${label}</text>`);
  });
  const lines = [
    `direct / network ${summary.ratios.directOverNetwork.toFixed(2)}, direct / Kozeny–Carman ${summary.ratios.directOverKozenyCarman.toFixed(2)}`,
    `porosity: voxels ${summary.porosity.voxels.toFixed(4)}, network ${summary.porosity.network.toFixed(4)}` +
      (summary.porosity.spheres === undefined ? '' : `, spheres ${summary.porosity.spheres.toFixed(4)}`),
    `${summary.network.pores} pores, ${summary.network.throats} throats; LBM ${summary.flow.steps} steps` +
      `, tortuosity ${summary.flow.tortuosity.toFixed(3)}`,
  ];
  lines.forEach((text, i) => {
    parts.push(`<text x="${bx}" y="${by + bh + 60 + 20 * i}">${xml(text)}</text>`);
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
