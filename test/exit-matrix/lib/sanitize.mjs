// Every addon (the kernel's test addon, voro, dem, flow, pnm, coupling) built with AddressSanitizer
// + UBSan into one folder, for PECLET_ADDON_DIR. Each package's native/
// folder (binding.gyp and sources) and package.json are copied to
// .sanitize/<package>/ and built there with
// PECLET_SANITIZE=1, so the packages' own builds are never touched. A build
// is reused while its inputs (sources, kernel headers, gyp config) are unchanged.

import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { packageRoot } from './runtimes.mjs';

const repo = join(packageRoot, '..', '..');
const core = join(repo, 'packages', 'core');
export const sanitizeRoot = join(packageRoot, '.sanitize');
export const addonDir = join(sanitizeRoot, 'addons');

// `gyp`: the folder holding binding.gyp; package.json gives the version compiled in.
const solver = (name) => ({
  name,
  root: join(repo, 'packages', name),
  copy: ['package.json', 'native'],
  gyp: 'native',
  addons: [name],
});
const packages = [
  {
    name: 'test-addon',
    root: join(core, 'test-addon'),
    copy: ['binding.gyp', 'src'],
    gyp: '.',
    addons: ['alpha', 'beta'],
  },
  ...['voro', 'dem', 'flow', 'pnm', 'coupling'].map(solver),
];

// The local build under native/ is an output, not an input.
const isInput = (path) => !path.split(/[\\/]/).includes('build');

function filesUnder(path) {
  if (!existsSync(path)) return [];
  return readdirSync(path, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath ?? e.path, e.name))
    .filter((file) => isInput(relative(path, file)))
    .sort();
}

/** A hash of everything the sanitizer build reads. */
function inputsHash() {
  const hash = createHash('sha256');
  const inputs = [
    ...filesUnder(join(core, 'include')),
    ...filesUnder(join(core, 'gyp')),
    ...packages.flatMap((p) =>
      p.copy.flatMap((c) => (c.includes('.') ? [join(p.root, c)] : filesUnder(join(p.root, c)))),
    ),
  ];
  for (const file of inputs) {
    hash.update(relative(repo, file));
    hash.update(readFileSync(file));
  }
  hash.update(process.version);
  return hash.digest('hex');
}

function build(cwd) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(core, 'gyp', 'build.js'), 'rebuild', '-j', '2'], {
      cwd,
      env: { ...process.env, PECLET_SANITIZE: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => {
      output += d;
    });
    child.stderr.on('data', (d) => {
      output += d;
    });
    child.on('close', (status) =>
      status === 0 ? resolve() : reject(new Error(`sanitizer build in ${cwd} failed:\n${output.slice(-4000)}`)),
    );
  });
}

/** Builds (or reuses) the sanitized addons; returns the folder holding `<name>.node` for each. */
export async function buildSanitizedAddons() {
  const stamp = join(addonDir, '.inputs');
  const hash = inputsHash();
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === hash) return addonDir;
  rmSync(addonDir, { recursive: true, force: true });
  for (const p of packages) {
    const scratch = join(sanitizeRoot, p.name);
    rmSync(scratch, { recursive: true, force: true });
    mkdirSync(scratch, { recursive: true });
    for (const entry of p.copy) {
      cpSync(join(p.root, entry), join(scratch, entry), {
        recursive: true,
        filter: (from) => isInput(relative(p.root, from)),
      });
    }
    await build(join(scratch, p.gyp));
  }
  mkdirSync(addonDir, { recursive: true });
  for (const p of packages) {
    for (const addon of p.addons) {
      copyFileSync(
        join(sanitizeRoot, p.name, p.gyp, 'build', 'Release', `${addon}.node`),
        join(addonDir, `${addon}.node`),
      );
    }
  }
  writeFileSync(stamp, hash);
  return addonDir;
}

const runtimeLib = (name) => execFileSync('g++', [`-print-file-name=${name}`], { encoding: 'utf8' }).trim();

/** The environment that runs Node with the sanitized addons. */
export function sanitizerEnv(dir) {
  return {
    LD_PRELOAD: `${runtimeLib('libasan.so')} ${runtimeLib('libubsan.so')}`,
    // Node keeps memory to the end by design: leaks are not findings here.
    ASAN_OPTIONS: 'detect_leaks=0:abort_on_error=1',
    UBSAN_OPTIONS: 'print_stacktrace=1:halt_on_error=1',
    PECLET_ADDON_DIR: dir,
  };
}
