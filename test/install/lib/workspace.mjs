// The workspace's publishable packages and their tarballs, packed as `pnpm publish` would.
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inParallel, run, transcript } from '@peclet/test-harness';
import { cleanEnv } from './env.mjs';

export const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
export const workspaceRoot = join(packageRoot, '..', '..');

/** The one platform this repository publishes prebuilt addons for. */
export const platformKey = 'linux-x64-gnu';

/**
 * The folder of one of this package's own dependencies (by its alias), read from
 * node_modules: npm and pnpm export none of their files.
 */
export function dependencyDir(alias) {
  const dir = join(packageRoot, 'node_modules', alias);
  if (!existsSync(join(dir, 'package.json'))) throw new Error(`${alias} is not installed in ${packageRoot}`);
  return realpathSync(dir);
}

/** The workspace's own pnpm (the devDependency `pnpm-10`), as `[node, pnpm.cjs]`. */
export function workspacePnpm() {
  return [process.execPath, join(dependencyDir('pnpm-10'), 'bin', 'pnpm.cjs')];
}

// The `packages:` globs of pnpm-workspace.yaml (a plain list), each segment a name or `*`.
function workspaceGlobs() {
  const text = readFileSync(join(workspaceRoot, 'pnpm-workspace.yaml'), 'utf8');
  const globs = [];
  let inPackages = false;
  for (const line of text.split('\n')) {
    if (/^\S/.test(line)) inPackages = /^packages:\s*$/.test(line);
    const item = inPackages && /^\s+-\s+['"]?([^'"#\s]+)['"]?/.exec(line);
    if (item) globs.push(item[1]);
  }
  return globs;
}

function expand(glob) {
  let dirs = [workspaceRoot];
  for (const segment of glob.split('/')) {
    dirs = dirs.flatMap((dir) => {
      if (segment !== '*') return existsSync(join(dir, segment)) ? [join(dir, segment)] : [];
      return readdirSync(dir, { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && entry.name !== 'node_modules' && !entry.name.startsWith('.'))
        .map((entry) => join(dir, entry.name));
    });
  }
  return dirs.filter((dir) => existsSync(join(dir, 'package.json')));
}

/**
 * Every workspace package that is not private, with its kind:
 * `platform` (a solver's `npm/<platform>` package holding the compiled addon),
 * `solver` (a package with platform packages under `npm/`), or `library`.
 */
export function publishablePackages() {
  const packages = [];
  for (const dir of workspaceGlobs().flatMap(expand)) {
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    if (manifest.private) continue;
    const platformDirs = existsSync(join(dir, 'npm'))
      ? readdirSync(join(dir, 'npm')).filter((name) => existsSync(join(dir, 'npm', name, 'package.json')))
      : [];
    const kind = basenameOfParent(dir) === 'npm' ? 'platform' : platformDirs.length > 0 ? 'solver' : 'library';
    packages.push({
      name: manifest.name,
      version: manifest.version,
      dir,
      relativeDir: relative(workspaceRoot, dir),
      kind,
      manifest,
    });
  }
  return packages.sort((a, b) => a.name.localeCompare(b.name));
}

function basenameOfParent(dir) {
  return dirname(dir).split('/').pop();
}

/**
 * Packs every publishable package with `pnpm pack --pack-destination <destination>` in its
 * directory (two at a time) and returns them with `file`, the tarball's path.
 */
export async function packAll(destination) {
  const [node, pnpm] = workspacePnpm();
  const packages = publishablePackages();
  const results = await inParallel(
    packages.map(
      (pkg) => () =>
        run(node, [pnpm, 'pack', '--pack-destination', destination, '--json'], {
          cwd: pkg.dir,
          env: cleanEnv(),
          timeoutMs: 180_000,
        }),
    ),
    2,
  );
  return packages.map((pkg, i) => {
    const result = results[i];
    if (result.status !== 0)
      throw new Error(`pnpm pack in ${pkg.relativeDir} failed (${result.status})\n${transcript(result)}`);
    const { filename } = JSON.parse(result.stdout.slice(result.stdout.indexOf('{')));
    return { ...pkg, file: filename };
  });
}
