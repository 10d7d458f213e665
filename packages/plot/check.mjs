// What the picture tests of the apps and the CLI check: an SVG page renders (rsvg-convert, from
// Debian's librsvg2-bin, a renderer independent of ours) to a PNG of its stated size that is not
// blank, and it holds the labels a reader needs; the PNG beside it is the same page, zoomed.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decode } from 'fast-png';

/** Every `<text>`'s content, XML entities decoded. */
export function svgTexts(svg) {
  return [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) =>
    m[1]
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&amp;/g, '&'),
  );
}

/** Width, height and the number of distinct colours of PNG bytes. */
export function pngInfo(bytes) {
  const png = decode(bytes);
  const colours = new Set();
  const step = png.channels;
  for (let i = 0; i < png.data.length; i += step * 7) {
    colours.add((png.data[i] << 16) | (png.data[i + 1] << 8) | png.data[i + 2]);
  }
  return { width: png.width, height: png.height, colours: colours.size };
}

/** The SVG file rendered by rsvg-convert, as PNG bytes. */
export function renderWithRsvg(svgPath) {
  const dir = mkdtempSync(join(tmpdir(), 'peclet-picture-'));
  try {
    const out = join(dir, 'page.png');
    try {
      execFileSync('rsvg-convert', ['-o', out, svgPath], { stdio: ['ignore', 'ignore', 'pipe'] });
    } catch (error) {
      if (error.code === 'ENOENT') throw new Error('rsvg-convert is missing: run `bash scripts/system-deps.sh`');
      throw error;
    }
    return readFileSync(out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Checks the page at `svgPath`: its stated size, a non-blank rendering by rsvg-convert of that
 * size, each of `texts` (strings or regular expressions) among its labels, and, when `pngPath`
 * is given, a PNG of `zoom` times its size. Returns the SVG text and its labels.
 */
export function checkPicture(svgPath, { width, height, texts = [], pngPath, zoom = 2 }) {
  const svg = readFileSync(svgPath, 'utf8');
  const size = svg.match(/^<svg [^>]*width="([\d.]+)" height="([\d.]+)"/);
  assert.ok(size, `${svgPath}: no <svg width height>`);
  assert.deepEqual([Number(size[1]), Number(size[2])], [width, height], `${svgPath}: page size`);
  const rendered = pngInfo(renderWithRsvg(svgPath));
  assert.deepEqual([rendered.width, rendered.height], [width, height], `${svgPath}: rendered size`);
  assert.ok(rendered.colours > 8, `${svgPath}: the rendering has ${rendered.colours} colours: blank?`);
  const labels = svgTexts(svg);
  for (const wanted of texts) {
    const found = labels.some((t) => (typeof wanted === 'string' ? t.includes(wanted) : wanted.test(t)));
    assert.ok(found, `${svgPath}: no label ${wanted} among ${JSON.stringify(labels)}`);
  }
  if (pngPath !== undefined) {
    const png = pngInfo(readFileSync(pngPath));
    assert.deepEqual([png.width, png.height], [width * zoom, height * zoom], `${pngPath}: size`);
    assert.ok(png.colours > 8, `${pngPath}: ${png.colours} colours: blank?`);
  }
  return { svg, labels };
}

/** Width and height of the first raster embedded in an SVG page (an image panel's). */
export function embeddedRaster(svg) {
  const match = svg.match(/href="data:image\/png;base64,([^"]+)"/);
  assert.ok(match, 'no embedded PNG');
  const png = decode(Buffer.from(match[1], 'base64'));
  return { width: png.width, height: png.height };
}
