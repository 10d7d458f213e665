// Every ```js / ```ts block of the root README and of each package's README is a program a user
// copies: it runs as written, in a project where npm installed the packed packages (with the
// data they ship), and it type-checks with `tsc --strict` as .mts and .cts under module nodenext
// and node16, the packages' own declarations included. A block that cannot run here says why,
// in a marker above it (see README.md: "README examples").
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { describeEnd, findCrash, inParallel, run, transcript } from '@peclet/test-harness';
import { cleanEnv } from '../lib/env.mjs';
import {
  allExamples,
  importedPackages,
  installedByReadme,
  readmeFiles,
  runnableSource,
  typecheckSources,
} from '../lib/examples.mjs';
import { managers } from '../lib/managers.mjs';
import { install, makeBin, writeProject } from '../lib/project.mjs';
import { readTarball } from '../lib/tar.mjs';
import { dependencyDir, packAll, platformKey } from '../lib/workspace.mjs';

const TIMEOUT = 600_000;
// Each example must be quick (the whole file adds at most about 90 s to CI).
const EXAMPLE_TIMEOUT_MS = 60_000;

const only = process.env.PECLET_INSTALL_ONLY?.split(',').map((id) => id.trim());
const glibc = process.report?.getReport?.().header?.glibcVersionRuntime;
const skip =
  only && !only.includes('examples')
    ? `PECLET_INSTALL_ONLY=${only.join(',')}`
    : process.platform === 'linux' && process.arch === 'x64' && glibc
      ? undefined
      : `the prebuilt addons are for ${platformKey}; this is ${process.platform}-${process.arch}`;
const options = skip ? { skip, timeout: TIMEOUT } : { timeout: TIMEOUT };

const keep = process.env.PECLET_KEEP_INSTALL === '1';
let root;
let project;
let examples;

const where = (block) => `${block.readme}:${block.line} (${block.id})`;

before(
  async () => {
    if (skip) return;
    examples = allExamples();
    root = mkdtempSync(join(tmpdir(), 'peclet-examples-'));
    const tarballs = join(root, 'tarballs');
    mkdirSync(tarballs);
    const packed = new Map();
    for (const pkg of await packAll(tarballs)) {
      const files = readTarball(pkg.file);
      packed.set(pkg.name, { ...pkg, files, manifest: JSON.parse(files.get('package/package.json').toString('utf8')) });
    }
    // One project holding every package the examples import (each README's own install line is
    // checked below), installed by the machine's npm with a PATH that has no compiler.
    const dependencies = [...new Set(examples.flatMap((block) => importedPackages(block.code)))].filter((name) =>
      packed.has(name),
    );
    const manager = managers['npm-machine'];
    const bin = makeBin(join(root, 'bin'), {
      node: await manager.node(),
      launcher: await manager.launcher(),
      command: manager.command,
    });
    const dir = writeProject(join(root, 'project'), { manager, dependencies, packed });
    const result = await install(dir, bin, manager.command);
    project = { dir, bin, result };
  },
  { timeout: TIMEOUT },
);

after(() => {
  if (root === undefined) return;
  if (keep) console.log(`PECLET_KEEP_INSTALL=1: the project is in ${root}`);
  else rmSync(root, { recursive: true, force: true });
});

describe('README examples run as written against the packed packages', () => {
  it('npm installs every package the examples import', options, () => {
    assert.equal(
      project.result.status,
      0,
      `npm install: ${describeEnd(project.result)}\n${transcript(project.result)}`,
    );
    assert.ok(examples.length > 0, 'no ```js or ```ts block found in any README');
  });

  it("each README's install line names every package its examples import", options, () => {
    const missing = [];
    for (const readme of readmeFiles()) {
      const blocks = examples.filter((block) => block.readme === readme);
      const installed = installedByReadme(readme);
      for (const block of blocks) {
        for (const name of importedPackages(block.code)) {
          if (!installed.has(name)) missing.push(`${where(block)} imports ${name}`);
        }
      }
      if (missing.some((line) => line.startsWith(readme))) {
        missing.push(`  ${readme} installs: npm install ${[...installed].join(' ') || '(no npm install line)'}`);
      }
    }
    assert.deepEqual(missing, [], `an example imports a package its README does not install:\n${missing.join('\n')}`);
  });

  it('every example not marked no-run or skip runs with exit status 0', options, async (t) => {
    const runnable = examples.filter((block) => block.mark === undefined);
    for (const block of examples.filter((b) => b.mark)) {
      t.diagnostic(`${where(block)}: ${block.mark.kind} — ${block.mark.reason}`);
    }
    const results = await inParallel(
      runnable.map((block) => async () => {
        // Each in its own folder, as a user's script: the files it writes stay apart.
        const cwd = join(project.dir, 'run', block.id);
        mkdirSync(cwd, { recursive: true });
        writeFileSync(join(cwd, 'example.mjs'), runnableSource(block));
        const started = performance.now();
        const result = await run(process.execPath, ['example.mjs'], {
          cwd,
          env: cleanEnv({ PATH: project.bin }),
          timeoutMs: EXAMPLE_TIMEOUT_MS,
        });
        return { block, result, seconds: (performance.now() - started) / 1000 };
      }),
      2,
    );
    const failures = [];
    for (const { block, result, seconds } of results) {
      t.diagnostic(`${where(block)}: ${describeEnd(result)} in ${seconds.toFixed(1)} s`);
      const crash = findCrash(result);
      if (result.status !== 0 || result.signal !== null || crash !== undefined) {
        failures.push(
          `${where(block)} ended by ${describeEnd(result)}${crash ? ` (${crash})` : ''} on Node ${process.version}\n` +
            `${transcript(result)}\n` +
            'Fix the example so that it runs as written, or mark it <!-- example: no-run — why --> if it cannot run here.',
        );
      }
    }
    assert.equal(failures.length, 0, `${failures.length} README example(s) failed:\n\n${failures.join('\n\n')}`);
  });

  for (const module of ['nodenext', 'node16']) {
    it(`tsc --strict --noEmit passes on every example as .mts and .cts, module ${module}`, options, async () => {
      const checked = examples.filter((block) => block.mark?.kind !== 'skip');
      const dir = join(project.dir, `typecheck-${module}`);
      mkdirSync(dir, { recursive: true });
      const files = [];
      for (const block of checked) {
        const { mts, cts } = typecheckSources(block);
        writeFileSync(join(dir, `${block.id}.mts`), mts);
        writeFileSync(join(dir, `${block.id}.cts`), cts);
        files.push(`${block.id}.mts`, `${block.id}.cts`);
      }
      // A consumer's defaults: no `types`, no `skipLibCheck`, no @types/node of its own; so the
      // packages' declarations are checked, and must bring what they name.
      const tsconfig = { compilerOptions: { strict: true, noEmit: true, module, moduleResolution: module }, files };
      writeFileSync(join(dir, 'tsconfig.json'), `${JSON.stringify(tsconfig, null, 2)}\n`);
      const tsc = join(dependencyDir('typescript'), 'bin', 'tsc');
      const result = await run(process.execPath, [tsc, '-p', 'tsconfig.json', '--pretty', 'false'], {
        cwd: dir,
        env: cleanEnv(),
        timeoutMs: 300_000,
      });
      // name.mts(line,col) → README:line; the .cts lines follow the block's less closely.
      const byId = new Map(checked.map((block) => [block.id, block]));
      const output = `${result.stdout}${result.stderr}`.replace(
        /^([\w-]+)\.(mts|cts)\((\d+),(\d+)\)/gm,
        (whole, id, ext, line) => {
          const block = byId.get(id);
          if (!block) return whole;
          return ext === 'mts'
            ? `${block.readme}:${block.line + Number(line)} (${whole})`
            : `${where(block)} as .cts (${whole})`;
        },
      );
      assert.equal(
        result.status,
        0,
        `tsc --strict, module ${module}, ${files.length} files in ${dir}:\n${output}\n` +
          "A package's .d.ts must bring every type it names (a dependency it references, or no such name).",
      );
    });
  }
});
