// The capillary pressure curve as a staircase: the pressure rises at constant saturation, then
// the saturation drops at constant pressure, on a log axis with its title and unit.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { writeFigure } from '@peclet/plot';
import { checkPicture } from '@peclet/plot/check';
import { capillaryPressureSvg } from '../capillary.mjs';

const dir = mkdtempSync(join(tmpdir(), 'peclet-network-'));
after(() => rmSync(dir, { recursive: true, force: true }));

it('a drainage curve of five entry pressures: a staircase in kPa against wetting saturation', async () => {
  const pressure = [30e3, 45e3, 80e3, 200e3, 900e3];
  const saturation = [0.05, 0.4, 0.7, 0.8, 0.85];
  const svg = capillaryPressureSvg({ pressure, saturation, title: 'Drainage test', label: 'drainage' });
  const files = { svgPath: join(dir, 'pc.svg'), pngPath: join(dir, 'pc.png') };
  await writeFigure(svg, files);
  const { labels } = checkPicture(files.svgPath, {
    width: 720,
    height: 500,
    pngPath: files.pngPath,
    texts: ['Drainage test', 'capillary pressure (kPa)', 'wetting saturation', 'drainage'],
  });
  // 20 kPa to 1.35 MPa: the decades and their threes, labelled in kPa.
  for (const tick of ['30', '100', '300', '1000'])
    assert.ok(labels.includes(tick), `tick ${tick} in ${labels.join('|')}`);
  // One path of vertical and horizontal moves only: up to each pressure, across to its saturation.
  const d = svg.match(/<path d="([^"]+)" fill="none" stroke="#1f5fbf"/)[1];
  assert.match(d, /^M[\d.]+ [\d.]+(V[\d.]+H[\d.]+){5}$/);
  // Each level is a pressure: the vertical moves climb, the horizontal ones move left (Sw falls).
  const v = [...d.matchAll(/V([\d.]+)/g)].map((m) => Number(m[1]));
  const h = [...d.matchAll(/H([\d.]+)/g)].map((m) => Number(m[1]));
  for (let i = 1; i < 5; i++) {
    assert.ok(v[i] < v[i - 1], `pressure rises: ${v}`);
    assert.ok(h[i] < h[i - 1], `wetting saturation falls: ${h}`);
  }
});
