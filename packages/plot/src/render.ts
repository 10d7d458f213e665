/** PNG from the same SVG, and both files written atomically. */
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { writeAtomically } from '@peclet/io';

/** The fonts shipped to the renderer: the PNG then looks the same on a machine with no fonts installed. */
function fontFiles(): string[] {
  const require = createRequire(import.meta.url);
  return ['DejaVuSans.ttf', 'DejaVuSans-Bold.ttf'].map((f) => require.resolve(`dejavu-fonts-ttf/ttf/${f}`));
}

/**
 * The PNG of an SVG page (resvg, with DejaVu Sans from npm: no system library or font is
 * needed), `zoom` pixels per SVG pixel.
 *
 * @example
 * ```ts
 * const png = await svgToPng(svg, { zoom: 2 });
 * ```
 */
export async function svgToPng(svg: string, { zoom = 2 }: { zoom?: number } = {}): Promise<Uint8Array> {
  const { Resvg } = await import('@resvg/resvg-js');
  const renderer = new Resvg(svg, {
    font: { fontFiles: fontFiles(), loadSystemFonts: false, defaultFontFamily: 'DejaVu Sans' },
    fitTo: { mode: 'zoom', value: zoom },
    background: 'white',
  });
  return renderer.render().asPng();
}

/**
 * Writes a figure as `svgPath` and, when `pngPath` is given, as a PNG rendered from the same SVG
 * at `zoom` (default 2), each atomically. Returns the paths written.
 */
export async function writeFigure(
  svg: string,
  { svgPath, pngPath, zoom = 2 }: { svgPath?: string; pngPath?: string; zoom?: number },
): Promise<string[]> {
  const written: string[] = [];
  if (svgPath !== undefined) {
    await writeAtomically(svgPath, (temp) => writeFile(temp, svg));
    written.push(svgPath);
  }
  if (pngPath !== undefined) {
    const png = await svgToPng(svg, { zoom });
    await writeAtomically(pngPath, (temp) => writeFile(temp, png));
    written.push(pngPath);
  }
  return written;
}
