// Builds and runs the voro++ reference harness (reference/voropp_cells.cpp).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const source = join(here, 'voropp_cells.cpp');
const binary = join(here, '..', 'build', 'reference', 'voropp_cells');

/** Compiles the harness against Debian's voro++ (scripts/system-deps.sh installs it). */
export function buildReference() {
  if (existsSync(binary) && statSync(binary).mtimeMs > statSync(source).mtimeMs) return binary;
  if (!existsSync('/usr/include/voro++/voro++.hh')) {
    throw new Error('voro++ is not installed: run `bash scripts/system-deps.sh` (Debian package voro++-dev)');
  }
  mkdirSync(dirname(binary), { recursive: true });
  execFileSync('g++', ['-O3', '-std=c++17', '-pthread', source, '-o', binary, '-lvoro++'], { stdio: 'inherit' });
  return binary;
}

/** Runs voro++ on the points; returns volumes, neighbour lists (when wanted) and seconds. */
export function runReference(points, { box, periodic = [false, false, false], radii, threads = 1, results = true }) {
  const exe = buildReference();
  const dir = mkdtempSync(join(tmpdir(), 'voropp-'));
  try {
    const n = points.length / 3;
    const header = Buffer.alloc(12 + 48);
    header.writeBigUInt64LE(BigInt(n), 0);
    for (let a = 0; a < 3; a++) header.writeUInt8(periodic[a] ? 1 : 0, 8 + a);
    header.writeUInt8(radii ? 1 : 0, 11);
    for (let a = 0; a < 3; a++) {
      header.writeDoubleLE(box.min[a], 12 + 8 * a);
      header.writeDoubleLE(box.max[a], 36 + 8 * a);
    }
    const parts = [header, Buffer.from(points.buffer, points.byteOffset, points.byteLength)];
    if (radii) parts.push(Buffer.from(radii.buffer, radii.byteOffset, radii.byteLength));
    writeFileSync(join(dir, 'in'), Buffer.concat(parts));
    const out = results ? join(dir, 'out') : '-';
    const run = spawnSync(exe, [join(dir, 'in'), out, String(threads)], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`voropp_cells failed: ${run.stderr}`);
    const seconds = Number(run.stderr.match(/seconds (\S+)/)[1]);
    if (!results) return { seconds };
    const data = readFileSync(out);
    const volumes = new Float64Array(data.buffer.slice(data.byteOffset, data.byteOffset + 8 * n));
    const neighbors = [];
    let at = 8 * n;
    for (let i = 0; i < n; i++) {
      const count = data.readInt32LE(at);
      at += 4;
      const list = [];
      for (let k = 0; k < count; k++, at += 4) list.push(data.readInt32LE(at));
      neighbors.push(list);
    }
    return { volumes, neighbors, seconds };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
