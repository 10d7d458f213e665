// Installing one solver from its packed tarballs just works, with no compiler, for npm 11 and 12
// and pnpm 10 and 12: the prebuilt addon comes in the platform package, an optional dependency.
// And when it cannot (left out, another version, the wrong binary), the first use says why and
// what to do, and a script ends with status 1, not a crash.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { describeEnd, findCrash, run, transcript } from '@peclet/test-harness';
import { firstUseSource, headline, missingPlatformPackageMessage } from '../lib/addon-error.mjs';
import { cleanEnv } from '../lib/env.mjs';
import { managers } from '../lib/managers.mjs';
import { printed, programSource, programs } from '../lib/programs.mjs';
import {
  compilerTools,
  findOnPath,
  install,
  installScriptWarning,
  makeBin,
  managerVersion,
  probeSource,
  runScript,
  writeProject,
} from '../lib/project.mjs';
import { readmeHeading, readmeSection } from '../lib/readme.mjs';
import { assertRegistryReady } from '../lib/registry-ready.mjs';
import { readTarball } from '../lib/tar.mjs';
import { packAll, platformKey } from '../lib/workspace.mjs';

const TIMEOUT = 600_000;

// PECLET_INSTALL_ONLY=npm-machine,readme runs those cases only (packing always runs).
const cases = [
  'tarballs',
  'npm-machine',
  'npm-11',
  'npm-12',
  'pnpm-10',
  'pnpm-12',
  'omit-optional',
  'wrong-version',
  'wrong-binary',
  'readme',
  'cli',
  // test/readme-examples.test.mjs
  'examples',
];
const only = process.env.PECLET_INSTALL_ONLY?.split(',').map((id) => id.trim());
for (const id of only ?? []) {
  if (!cases.includes(id)) throw new Error(`PECLET_INSTALL_ONLY: unknown case ${id} (${cases.join(', ')})`);
}

const glibc = process.report?.getReport?.().header?.glibcVersionRuntime;
const hostMismatch =
  process.platform === 'linux' && process.arch === 'x64' && glibc
    ? undefined
    : `the prebuilt addons are for ${platformKey}; this is ${process.platform}-${process.arch}${glibc ? '' : ' without glibc'}`;

/** `{ skip }` for a case left out by PECLET_INSTALL_ONLY, by the host or by its manager. */
function options(id, manager) {
  if (only && !only.includes(id)) return { skip: `PECLET_INSTALL_ONLY=${only.join(',')}`, timeout: TIMEOUT };
  if (id !== 'tarballs' && hostMismatch) return { skip: hostMismatch, timeout: TIMEOUT };
  const unavailable = manager?.unavailable?.();
  return unavailable ? { skip: unavailable, timeout: TIMEOUT } : { timeout: TIMEOUT };
}

// Which solver each package manager installs, on its own.
const assignments = {
  'npm-machine': { packageName: '@peclet/voro', dependencies: ['@peclet/voro'] },
  'npm-11': { packageName: '@peclet/dem', dependencies: ['@peclet/dem'] },
  'npm-12': { packageName: '@peclet/flow', dependencies: ['@peclet/flow'] },
  'pnpm-10': { packageName: '@peclet/pnm', dependencies: ['@peclet/pnm'] },
  // A CoupledSimulation takes a dem Simulation: a user of coupling imports @peclet/dem too.
  'pnpm-12': { packageName: '@peclet/coupling', dependencies: ['@peclet/coupling', '@peclet/dem'] },
};

const keep = process.env.PECLET_KEEP_INSTALL === '1';
let root;
let tarballs;
/** name → { name, version, kind, dir, relativeDir, file, files (the tarball), manifest (packed) }. */
const packed = new Map();

before(
  async () => {
    root = mkdtempSync(join(tmpdir(), 'peclet-install-'));
    tarballs = join(root, 'tarballs');
    mkdirSync(tarballs);
    for (const pkg of await packAll(tarballs)) {
      const files = readTarball(pkg.file);
      packed.set(pkg.name, { ...pkg, files, manifest: JSON.parse(files.get('package/package.json').toString('utf8')) });
    }
  },
  { timeout: TIMEOUT },
);

after(() => {
  if (root === undefined) return;
  if (keep) console.log(`PECLET_KEEP_INSTALL=1: the projects are in ${root}`);
  else rmSync(root, { recursive: true, force: true });
});

// One bin folder per manager, one install per case, each made once and shared by the tests.
const memo = new Map();
function once(key, make) {
  if (!memo.has(key)) memo.set(key, make());
  return memo.get(key);
}

/** `{ manager, bin, node }`: a PATH (`bin`) with the manager's Node and its launcher only. */
function toolchain(id) {
  return once(`bin:${id}`, async () => {
    const manager = managers[id];
    const [node, launcher] = [await manager.node(), await manager.launcher()];
    const bin = makeBin(join(root, `bin-${id}`), { node, launcher, command: manager.command });
    return { manager, bin, node };
  });
}

/** Installs `dependencies` with manager `id` in a fresh project; `{ dir, bin, node, result, output }`. */
function installed(key, id, { dependencies, args = [], replace }) {
  return once(`install:${key}`, async () => {
    const { manager, bin, node } = await toolchain(id);
    const dir = writeProject(join(root, key), { manager, dependencies, packed, replace });
    const result = await install(dir, bin, manager.command, args);
    return { dir, bin, node, manager, result, output: `${result.stdout}\n${result.stderr}` };
  });
}

/** What a project installed of `name` and its platform package, by the machine's Node. */
async function probe(project, name) {
  const result = await runScript(
    project.dir,
    project.bin,
    process.execPath,
    'probe.cjs',
    probeSource(name, `${name}-${platformKey}`),
  );
  assert.equal(result.status, 0, `probe of ${name} failed\n${transcript(result)}`);
  return JSON.parse(result.stdout);
}

function assertCleanEnd(result, what) {
  assert.equal(findCrash(result), undefined, `${what}: crash output\n${transcript(result)}`);
  assert.equal(result.signal, null, `${what}: ended by ${describeEnd(result)}\n${transcript(result)}`);
}

describe('packed tarballs are ready for the registry', () => {
  it('every publishable package was packed, each solver with its platform package', options('tarballs'), () => {
    const solvers = [...packed.values()].filter((pkg) => pkg.kind === 'solver').map((pkg) => pkg.name);
    for (const name of [
      '@peclet/core',
      '@peclet/io',
      '@peclet/voro',
      '@peclet/dem',
      '@peclet/flow',
      '@peclet/pnm',
      '@peclet/coupling',
    ]) {
      assert.ok(packed.has(name), `${name} was not packed`);
    }
    assert.deepEqual(solvers.sort(), [
      '@peclet/coupling',
      '@peclet/dem',
      '@peclet/flow',
      '@peclet/pnm',
      '@peclet/voro',
    ]);
    for (const name of solvers) {
      assert.ok(packed.has(`${name}-${platformKey}`), `${name}-${platformKey} was not packed`);
    }
  });

  it(
    'each tarball: no workspace: left, metadata, entry points present, no build outputs or install hooks',
    options('tarballs'),
    (t) => {
      for (const pkg of packed.values()) {
        assertRegistryReady(pkg, packed, platformKey);
        t.diagnostic(`${pkg.name}@${pkg.version} (${pkg.kind}): ${pkg.files.size} files`);
      }
    },
  );
});

for (const [id, { packageName, dependencies }] of Object.entries(assignments)) {
  const manager = managers[id];
  const program = programs[packageName];
  const project = () => installed(id, id, { dependencies });

  describe(`${manager.label} installs ${packageName} alone from its tarballs`, () => {
    it(
      'installs with default settings and no compiler on PATH, no install script, the platform package in place',
      options(id, manager),
      async (t) => {
        const { bin } = await toolchain(id);
        for (const tool of compilerTools) {
          assert.equal(findOnPath(tool, bin), undefined, `${tool} is on the install's PATH`);
        }
        const version = await managerVersion(bin, manager.command);
        assert.equal(version.stdout.trim(), manager.version(), `${manager.command} --version\n${transcript(version)}`);

        const { dir, result, output } = await project();
        t.diagnostic(`${manager.command} ${version.stdout.trim()} in ${dir}`);
        assert.equal(result.status, 0, `install ended by ${describeEnd(result)}\n${transcript(result)}`);
        assert.doesNotMatch(
          output,
          installScriptWarning,
          `the install ran or asked about an install script:\n${output}`,
        );

        const found = await probe(await project(), packageName);
        const platform = packed.get(`${packageName}-${platformKey}`);
        assert.ok(found.platform, `${platform.name} is not installed\n${output}`);
        assert.ok(found.platform.startsWith(join(dir, 'node_modules')), `${found.platform} is outside the project`);
        assert.equal(JSON.parse(readFileSync(found.platform, 'utf8')).version, platform.version);
        assert.ok(
          existsSync(join(dirname(found.platform), platform.manifest.main)),
          `${platform.manifest.main} missing`,
        );
        // Nothing was compiled at install.
        assert.ok(!existsSync(join(found.root, 'native', 'build')), `${found.root}/native/build exists after install`);
      },
    );

    it('computes in ESM and in CommonJS on each Node', options(id, manager), async (t) => {
      const { dir, bin, node } = await project();
      for (const runtime of [...new Set([process.execPath, node])]) {
        for (const module of ['esm', 'cjs']) {
          const file = `compute-${runtime === process.execPath ? 'machine' : 'manager'}.${module === 'esm' ? 'mjs' : 'cjs'}`;
          const result = await runScript(dir, bin, runtime, file, programSource(program, program.compute, module));
          const what = `${file} on ${runtime}`;
          assertCleanEnd(result, what);
          assert.equal(result.status, 0, `${what}: ${describeEnd(result)}\n${transcript(result)}`);
          const output = printed(result.stdout);
          assert.match(
            output.entry,
            module === 'esm' ? /dist\/index\.js$/ : /dist\/index\.cjs$/,
            `${what} loaded ${output.entry}`,
          );
          program.check(output);
          t.diagnostic(`${output.node} ${module}: ${JSON.stringify({ ...output, entry: undefined, node: undefined })}`);
        }
      }
    });

    it(
      'a script that calls process.exit(0) with objects alive exits 0 with nothing on stderr',
      options(id, manager),
      async () => {
        const { dir, bin, node } = await project();
        for (const runtime of [...new Set([process.execPath, node])]) {
          const result = await runScript(dir, bin, runtime, 'alive.mjs', programSource(program, program.alive, 'esm'));
          const what = `alive.mjs on ${runtime}`;
          assertCleanEnd(result, what);
          assert.equal(result.status, 0, `${what}: ${describeEnd(result)}\n${transcript(result)}`);
          assert.match(result.stdout, /^alive /m, `${what} did not reach process.exit\n${transcript(result)}`);
          assert.equal(result.stderr, '', `${what}: stderr`);
        }
      },
    );
  });
}

// The failures a user can meet, with the machine's npm and @peclet/voro.
const voro = { name: 'voro', packageName: '@peclet/voro', platformKey };
const points = 'const points = new Float64Array(3 * 100).map(() => Math.random());';
const tessellate = `${points} solver.tessellate(points, { box: { min: [0, 0, 0], max: [1, 1, 1] } });`;

describe('without its addon, @peclet/voro imports and says at first use what is wrong', () => {
  const omitted = () =>
    installed('omit-optional', 'npm-machine', { dependencies: ['@peclet/voro'], args: ['--omit=optional'] });

  it('npm --omit=optional installs it without the platform package', options('omit-optional'), async () => {
    const project = await omitted();
    assert.equal(project.result.status, 0, transcript(project.result));
    assert.doesNotMatch(project.output, installScriptWarning);
    const found = await probe(project, '@peclet/voro');
    assert.equal(found.platform, null, `the platform package was installed at ${found.platform}`);
    assert.ok(!existsSync(join(project.dir, 'node_modules', '@peclet', `voro-${platformKey}`)));
  });

  it(
    'import succeeds; the first tessellate() throws AddonLoadError with the whole message',
    options('omit-optional'),
    async () => {
      const project = await omitted();
      const found = await probe(project, '@peclet/voro');
      // npm hoists @peclet/core: the class voro's error comes from.
      const source = firstUseSource({ packageName: '@peclet/voro', call: tessellate, core: '@peclet/core' });
      const result = await runScript(project.dir, project.bin, process.execPath, 'first-use.mjs', source);
      assertCleanEnd(result, 'first-use.mjs');
      assert.equal(result.status, 0, transcript(result));
      const seen = JSON.parse(result.stdout);
      assert.equal(seen.imported, true, `import('@peclet/voro') threw: ${seen.message}`);
      assert.equal(seen.threw, true, 'tessellate() did not throw');
      assert.equal(seen.name, 'AddonLoadError');
      assert.equal(seen.code, 'PECLET_ADDON_NOT_LOADED');
      assert.equal(seen.isAddonLoadError, true);
      assert.equal(
        seen.message,
        missingPlatformPackageMessage({ ...voro, version: packed.get('@peclet/voro').version, probe: found }),
      );
      assert.equal(seen.againSameMessage, true, 'a second call threw something else');
    },
  );

  it(
    'an uncaught AddonLoadError ends the script with status 1 and the message on stderr, no crash',
    options('omit-optional'),
    async () => {
      const project = await omitted();
      const found = await probe(project, '@peclet/voro');
      const source = `import * as solver from '@peclet/voro';\n${tessellate}\nconsole.log('not reached');\n`;
      const result = await runScript(project.dir, project.bin, process.execPath, 'uncaught.mjs', source);
      assertCleanEnd(result, 'uncaught.mjs');
      assert.doesNotMatch(result.stderr, /Segmentation fault|Aborted|core dumped/);
      assert.equal(result.status, 1, `${describeEnd(result)}\n${transcript(result)}`);
      assert.ok(
        result.stderr.includes(
          missingPlatformPackageMessage({ ...voro, version: packed.get('@peclet/voro').version, probe: found }),
        ),
        `stderr lacks the message\n${result.stderr}`,
      );
      assert.doesNotMatch(result.stdout, /not reached/);
    },
  );

  it('a platform package of another version is refused by version', options('wrong-version'), async () => {
    // The voro platform tarball repacked as 0.0.9, and the project pointed at it.
    const platform = packed.get(`@peclet/voro-${platformKey}`);
    const unpacked = join(root, 'wrong-version-tarball');
    mkdirSync(unpacked, { recursive: true });
    execFileSync('tar', ['xzf', platform.file, '-C', unpacked]);
    const manifestFile = join(unpacked, 'package', 'package.json');
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
    writeFileSync(manifestFile, `${JSON.stringify({ ...manifest, version: '0.0.9' }, null, 2)}\n`);
    const repacked = join(root, `peclet-voro-${platformKey}-0.0.9.tgz`);
    execFileSync('tar', ['czf', repacked, '-C', unpacked, 'package']);

    const project = await installed('wrong-version', 'npm-machine', {
      dependencies: ['@peclet/voro'],
      replace: { [platform.name]: repacked },
    });
    assert.equal(project.result.status, 0, transcript(project.result));
    const found = await probe(project, '@peclet/voro');
    assert.equal(JSON.parse(readFileSync(found.platform, 'utf8')).version, '0.0.9');

    const source = firstUseSource({ packageName: '@peclet/voro', call: tessellate });
    const result = await runScript(project.dir, project.bin, process.execPath, 'first-use.mjs', source);
    assertCleanEnd(result, 'first-use.mjs');
    const seen = JSON.parse(result.stdout);
    assert.equal(seen.imported, true);
    assert.equal(seen.code, 'PECLET_ADDON_NOT_LOADED');
    const version = packed.get('@peclet/voro').version;
    const lines = seen.message.split('\n');
    assert.equal(lines[0], headline({ ...voro, probe: found }));
    assert.ok(
      lines.includes(
        `  3. platform package ${platform.name}@0.0.9: refused: @peclet/voro ${version} needs ${platform.name}@${version}`,
      ),
      seen.message,
    );
    assert.ok(
      lines.includes(
        `  - a binary of another version was found: install the ${platform.name} and @peclet/voro of one version, or rebuild the local build.`,
      ),
      seen.message,
    );
  });

  it(
    'PECLET_VORO_BINARY at another addon is refused by name; at a missing file, said so',
    options('wrong-binary'),
    async () => {
      const project = await installed('npm-machine', 'npm-machine', { dependencies: ['@peclet/voro'] });
      assert.equal(project.result.status, 0, transcript(project.result));
      const found = await probe(project, '@peclet/voro');
      // dem.node of an installed dem platform package (npm 11's project).
      const demProject = await installed('npm-11', 'npm-11', { dependencies: ['@peclet/dem'] });
      assert.equal(demProject.result.status, 0, transcript(demProject.result));
      const dem = await probe(demProject, '@peclet/dem');
      const demBinary = join(dirname(dem.platform), 'dem.node');
      assert.ok(existsSync(demBinary));

      const source = firstUseSource({ packageName: '@peclet/voro', call: tessellate });
      const version = packed.get('@peclet/voro').version;
      const cases = [
        [demBinary, `  1. PECLET_VORO_BINARY=${demBinary}: refused: it is the addon 'dem', not 'voro'`],
        ['/nonexistent', '  1. PECLET_VORO_BINARY=/nonexistent: not found'],
      ];
      for (const [binary, attempt] of cases) {
        const result = await runScript(project.dir, project.bin, process.execPath, 'first-use.mjs', source, {
          PECLET_VORO_BINARY: binary,
        });
        assertCleanEnd(result, `PECLET_VORO_BINARY=${binary}`);
        assert.equal(result.status, 0, transcript(result));
        const seen = JSON.parse(result.stdout);
        assert.equal(seen.code, 'PECLET_ADDON_NOT_LOADED', transcript(result));
        // Nothing else is tried when the variable is set.
        assert.deepEqual(seen.message.split('\n'), [
          headline({ ...voro, probe: found }),
          attempt,
          'To fix it:',
          `  - build from source (needs a C++17 compiler, make and python3): cd ${found.root} && npx node-gyp rebuild --directory native`,
          `  - or set PECLET_VORO_BINARY to the path of a voro.node built for @peclet/voro ${version}.`,
        ]);

        const uncaught = await runScript(
          project.dir,
          project.bin,
          process.execPath,
          'uncaught.mjs',
          `import * as solver from '@peclet/voro';\n${tessellate}\n`,
          {
            PECLET_VORO_BINARY: binary,
          },
        );
        assertCleanEnd(uncaught, `uncaught, PECLET_VORO_BINARY=${binary}`);
        assert.equal(uncaught.status, 1, transcript(uncaught));
        assert.ok(uncaught.stderr.includes(attempt), uncaught.stderr);
      }
    },
  );
});

describe(`the root README's "${readmeHeading}"`, () => {
  it('has a js example that runs in a project where npm installed @peclet/voro', options('readme'), async (t) => {
    const found = readmeSection();
    assert.ok(
      found,
      `README.md has no heading "${readmeHeading}": add it with the one-line install (npm install @peclet/voro) and a short ESM example in a \`\`\`js block right under it`,
    );
    assert.match(
      found.section,
      /npm install @peclet\/voro/,
      `"${readmeHeading}" does not show npm install @peclet/voro`,
    );
    assert.ok(found.code, `"${readmeHeading}" has no \`\`\`js block`);
    const project = await installed('npm-machine', 'npm-machine', { dependencies: ['@peclet/voro'] });
    assert.equal(project.result.status, 0, transcript(project.result));
    const result = await runScript(project.dir, project.bin, process.execPath, 'readme-example.mjs', `${found.code}\n`);
    assertCleanEnd(result, 'readme-example.mjs');
    assert.equal(result.status, 0, `the README example: ${describeEnd(result)}\n${transcript(result)}`);
    assert.notEqual(result.stdout.trim(), '', 'the README example printed nothing');
    t.diagnostic(`README example printed: ${result.stdout.trim()}`);
  });
});

// `npx @peclet/cli`: the command line installed on its own, run through its bin as a shell would.
describe('npm installs @peclet/cli alone and its `peclet` command runs', () => {
  const project = () => installed('cli', 'npm-machine', { dependencies: ['@peclet/cli'] });
  const peclet = async (args) => {
    const { dir, bin } = await project();
    return run(join(dir, 'node_modules', '.bin', 'peclet'), args, {
      cwd: dir,
      env: cleanEnv({ PATH: bin }),
      timeoutMs: 120_000,
    });
  };

  it('installs with no install script', options('cli'), async () => {
    const { result, output } = await project();
    assert.equal(result.status, 0, `install ended by ${describeEnd(result)}\n${transcript(result)}`);
    assert.doesNotMatch(output, installScriptWarning, `the install ran or asked about an install script:\n${output}`);
  });

  it('--help lists the commands with examples and exits 0', options('cli'), async () => {
    const result = await peclet(['--help']);
    assert.equal(result.status, 0, transcript(result));
    for (const command of ['permeability', 'extract', 'tessellate']) assert.match(result.stdout, new RegExp(command));
    assert.match(result.stdout, /Examples:/);
  });

  it('tessellates points from a .npy file: the cells fill the box', options('cli'), async () => {
    const { dir } = await project();
    // 200 points in the unit cube, float64 C order, shape (200, 3).
    const values = new Float64Array(600).map((_, i) => ((i * 0.618033988749895) % 1) * 0.98 + 0.01);
    writeFileSync(join(dir, 'points.npy'), npy(values, [200, 3]));
    const result = await peclet(['tessellate', 'points.npy', '--box', '0,0,0,1,1,1', '--json']);
    assertCleanEnd(result, 'peclet tessellate');
    assert.equal(result.status, 0, transcript(result));
    const summary = JSON.parse(result.stdout);
    assert.equal(summary.cells, 200, result.stdout);
    assert.ok(Math.abs(summary.totalVolume - 1) < 1e-9, `cells fill ${summary.totalVolume} of a unit box`);
  });

  it(
    'extracts the Berea sample io ships and draws its report (resvg and the fonts from npm)',
    options('cli'),
    async () => {
      const { dir } = await project();
      const sample = join('node_modules', '@peclet', 'io', 'data', 'berea-100.npz');
      const result = await peclet(['extract', sample, '--voxel-size', '5.345e-6', '--json']);
      assertCleanEnd(result, 'peclet extract');
      assert.equal(result.status, 0, transcript(result));
      const { pores, files } = JSON.parse(result.stdout);
      assert.ok(pores > 100, result.stdout);
      assert.deepEqual(files, ['berea-100-network.svg', 'berea-100-network.png']);
      const png = readFileSync(join(dir, 'berea-100-network.png'));
      assert.deepEqual([...png.subarray(1, 4)].map((c) => String.fromCharCode(c)).join(''), 'PNG');
      assert.ok(png.length > 50_000, `a report of ${png.length} bytes: text and circles missing?`);
    },
  );

  it('a usage error exits 2 and names the flag', options('cli'), async () => {
    const result = await peclet(['tessellate', 'points.npy', '--box', '0,0,0,1,1']);
    assert.equal(result.status, 2, transcript(result));
    assert.match(result.stderr, /--box/);
  });
});

/** A version 1.0 .npy file of float64 `values` with `shape`. */
function npy(values, shape) {
  let header = `{'descr': '<f8', 'fortran_order': False, 'shape': (${shape.join(', ')}), }`;
  header += ' '.repeat(64 - ((10 + header.length + 1) % 64));
  header += '\n';
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1');
  head[6] = 1;
  head.writeUInt16LE(header.length, 8);
  return Buffer.concat([head, Buffer.from(header, 'latin1'), Buffer.from(values.buffer)]);
}
