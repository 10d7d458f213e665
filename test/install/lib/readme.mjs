// The root README's example for users of one package, found by its heading.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { workspaceRoot } from './workspace.mjs';

export const readmeHeading = 'Use one package in your own project';

/**
 * The section under `heading` in README.md (to the next heading of the same or a higher level)
 * and its first ```js block: `{ section, code }`; `code` is undefined when the section has no
 * such block, and the whole is undefined when there is no such heading.
 */
export function readmeSection(heading = readmeHeading, file = join(workspaceRoot, 'README.md')) {
  const lines = readFileSync(file, 'utf8').split('\n');
  let start = -1;
  let level = 0;
  let inFence = false;
  for (let i = 0; i < lines.length; i++) {
    if (/^\s*(```|~~~)/.test(lines[i])) inFence = !inFence;
    const match = !inFence && /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(lines[i]);
    if (!match) continue;
    if (start === -1 && match[2] === heading) {
      start = i + 1;
      level = match[1].length;
    } else if (start !== -1 && match[1].length <= level) {
      return parse(lines.slice(start, i));
    }
  }
  return start === -1 ? undefined : parse(lines.slice(start));
}

function parse(lines) {
  const section = lines.join('\n');
  const open = lines.findIndex((line) => /^\s*```(js|javascript|mjs)\s*$/.test(line));
  if (open === -1) return { section, code: undefined };
  const close = lines.findIndex((line, i) => i > open && /^\s*```\s*$/.test(line));
  return { section, code: lines.slice(open + 1, close === -1 ? undefined : close).join('\n') };
}
