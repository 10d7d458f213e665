// The packing slice on a few spheres placed by hand: one disc per sphere the plane cuts (and
// their periodic images), coloured within a labelled colour bar, axes and scale bar in median
// diameters, SVG and PNG alike.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { writeFigure } from '@peclet/plot';
import { checkPicture, svgTexts } from '@peclet/plot/check';
import { packingSliceSvg } from '../src/slice.mjs';

const dir = mkdtempSync(join(tmpdir(), 'peclet-packing-'));
after(() => rmSync(dir, { recursive: true, force: true }));

it('the slice y = 2: discs of the cut spheres, a colour bar of local packing fraction', async () => {
  // Box 4 wide (periodic along y), 3 high. The plane y = 2 cuts spheres 0 and 1, and sphere 3
  // through its periodic image (y = 5.8 − 4 = 1.8); sphere 2 (y = 0.5, r = 0.45) lies beyond it.
  const positions = [1, 2, 1, 3, 2.2, 1.5, 2, 0.5, 2, 0.5, 5.8, 2.5];
  const radii = [0.5, 0.4, 0.45, 0.4];
  const local = [0.52, 0.71, 0.6, 0.64];
  const svg = packingSliceSvg({ positions, radii, local, side: 4, top: 3, plane: 2, diameter: 0.8 });
  const files = { svgPath: join(dir, 'slice.svg'), pngPath: join(dir, 'slice.png') };
  await writeFigure(svg, files);
  // 560 px across the 4 wide box (the height, 3 × 140 px, is below 620).
  const { labels } = checkPicture(files.svgPath, {
    width: 90 + 560 + 150,
    height: 60 + 420 + 90,
    pngPath: files.pngPath,
    texts: [
      'Local packing fraction on the slice y = 2.5 d₅₀ (4 spheres)',
      'local packing fraction',
      'x (d₅₀)',
      'z (d₅₀)',
      /^\d+(\.\d+)? d₅₀$/,
      '3 discs; colour: sphere volume / Laguerre cell volume',
    ],
  });
  assert.equal(svg.match(/<circle /g).length, 3);
  // The colour bar spans the discs' fractions widened to 0.05 steps: 0.5 … 0.75.
  const bar = svg.match(/<g class="colour-bar">[\s\S]*?<\/g>/)[0];
  const ticks = svgTexts(bar)
    .filter((t) => /^[\d.]+$/.test(t))
    .map(Number);
  assert.ok(Math.min(...ticks) >= 0.5 && Math.max(...ticks) <= 0.75 && ticks.length >= 3, `ticks ${ticks}`);
  assert.ok(labels.includes('0.70'), labels.join('|'));
});
