// Shared by the cli tests: running the built `peclet` in a child process, temp folders, and the
// small images and arrays the tests write.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '@peclet/test-harness';

const here = import.meta.dirname ?? new URL('.', import.meta.url).pathname;
export const cliPath = join(here, '..', 'dist', 'cli.js');

/**
 * Runs `peclet ...args` in `cwd` with stdin closed and stdout/stderr piped (so stderr is not a
 * terminal). The teardown trace is off unless `env` turns it on.
 */
export function peclet(args, { cwd, env = {}, timeoutMs = 60_000 } = {}) {
  return run(process.execPath, [cliPath, ...args], {
    cwd,
    env: { PECLET_TEARDOWN_TRACE: '', PECLET_DEBUG: '', ...env },
    timeoutMs,
  });
}

/**
 * Starts `peclet ...args` and hands back the child, its output so far, a promise of the first
 * stderr line matching `pattern`, and a promise of how it ended.
 */
export function start(args, { cwd, env = {} } = {}) {
  const child = spawn(process.execPath, [cliPath, ...args], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  let notify;
  let wanted;
  const line = new Promise((resolve) => {
    notify = resolve;
  });
  child.stdout.on('data', (d) => {
    output.stdout += d;
  });
  child.stderr.on('data', (d) => {
    output.stderr += d;
    if (wanted?.test(output.stderr)) {
      wanted = undefined;
      notify();
    }
  });
  const ended = new Promise((resolve) => {
    child.on('close', (status, signal) => resolve({ status, signal, ...output }));
  });
  return {
    child,
    output,
    /** Resolves once stderr matches `pattern` (or the child ended). */
    waitFor(pattern) {
      wanted = pattern;
      if (pattern.test(output.stderr)) notify();
      return Promise.race([line, ended]);
    },
    ended,
  };
}

/** A fresh temp folder, removed by `cleanup()`. */
export function tempFolder() {
  const dir = mkdtempSync(join(tmpdir(), 'peclet-cli-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A slit of aperture `h` voxels between two walls normal to y, open along x and z: shape
 * [n0, h + 2, n2], uint8, 1 = solid, C order.
 */
export function slit(h, n0, n2) {
  const n1 = h + 2;
  const solid = new Uint8Array(n0 * n1 * n2);
  for (let i = 0; i < n0; i++) {
    for (let k = 0; k < n2; k++) {
      solid[(i * n1 + 0) * n2 + k] = 1;
      solid[(i * n1 + h + 1) * n2 + k] = 1;
    }
  }
  return { solid, shape: [n0, n1, n2] };
}

/** A small deterministic generator (mulberry32), so every run sees the same geometry. */
export function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * An n³ image of solid spheres of radius `radius` voxels centred on a jittered simple cubic
 * lattice of spacing `spacing`: grains in open pore space, a packing with pores and throats.
 */
export function grains(n, { spacing = 10, radius = 5.5, seed = 1 } = {}) {
  const next = random(seed);
  const centres = [];
  for (let x = spacing / 2; x < n; x += spacing) {
    for (let y = spacing / 2; y < n; y += spacing) {
      for (let z = spacing / 2; z < n; z += spacing) {
        centres.push([x + next() * 2 - 1, y + next() * 2 - 1, z + next() * 2 - 1]);
      }
    }
  }
  const solid = new Uint8Array(n * n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      for (let k = 0; k < n; k++) {
        for (const [x, y, z] of centres) {
          if ((i + 0.5 - x) ** 2 + (j + 0.5 - y) ** 2 + (k + 0.5 - z) ** 2 < radius * radius) {
            solid[(i * n + j) * n + k] = 1;
            break;
          }
        }
      }
    }
  }
  return { solid, shape: [n, n, n] };
}

/** Writes a little-endian float64 `.npy` (format 1.0, C order) by hand. */
export function writeNpy(path, data, shape) {
  const dims = shape.length === 1 ? `${shape[0]},` : shape.join(', ');
  let header = `{'descr': '<f8', 'fortran_order': False, 'shape': (${dims}), }`;
  // Magic (6) + version (2) + length (2) + header + '\n', padded to a multiple of 64.
  const total = Math.ceil((10 + header.length + 1) / 64) * 64;
  header = `${header.padEnd(total - 10 - 1, ' ')}\n`;
  const prefix = Buffer.alloc(10);
  prefix.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]);
  prefix.writeUInt16LE(header.length, 8);
  const body = Buffer.from(Float64Array.from(data).buffer);
  writeFileSync(path, Buffer.concat([prefix, Buffer.from(header, 'latin1'), body]));
}

/** The appended arrays of a VTK XML file written by @peclet/io, by name, and its ImageData attributes. */
export function readVtk(path) {
  const bytes = readFileSync(path);
  const text = bytes.toString('latin1');
  const start = text.indexOf('<AppendedData encoding="raw">');
  const xml = text.slice(0, start);
  const base = text.indexOf('_', start) + 1;
  const arrays = {};
  for (const [, type, name, , offset] of xml.matchAll(
    /<DataArray type="(\w+)" Name="([^"]*)" NumberOfComponents="(\d+)" format="appended" offset="(\d+)"\/>/g,
  )) {
    const at = base + Number(offset);
    const size = Number(bytes.readBigUInt64LE(at));
    const Ctor = {
      UInt8: Uint8Array,
      Int8: Int8Array,
      Int32: Int32Array,
      Float32: Float32Array,
      Float64: Float64Array,
    }[type];
    const copy = bytes.subarray(at + 8, at + 8 + size);
    arrays[name] ??= Array.from(new Ctor(copy.buffer.slice(copy.byteOffset, copy.byteOffset + size)));
  }
  const image = /<ImageData WholeExtent="([^"]+)" Origin="([^"]+)" Spacing="([^"]+)"/.exec(xml);
  return { xml, arrays, image: image && { extent: image[1], origin: image[2], spacing: image[3] } };
}
