// scripts/lint-packages.mjs, part of `pnpm lint`: it passes on this workspace and fails on a
// publishable package with an install hook or a binding.gyp at its root.
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { run, transcript } from '@peclet/test-harness';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const script = join(repo, 'scripts', 'lint-packages.mjs');
const scratch = mkdtempSync(join(tmpdir(), 'peclet-lint-packages-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** A copy of voro's manifests (main and platform package) in a workspace of its own, changed by `edit`. */
function workspace(name, edit) {
  const root = join(scratch, name);
  const voro = join(root, 'packages', 'voro');
  mkdirSync(join(voro, 'native'), { recursive: true });
  cpSync(join(repo, 'packages', 'voro', 'npm'), join(voro, 'npm'), {
    recursive: true,
    filter: (from) => !from.endsWith('.node'),
  });
  for (const file of ['package.json', 'README.md', 'native/binding.gyp']) {
    cpSync(join(repo, 'packages', 'voro', file), join(voro, file));
  }
  const pkg = JSON.parse(readFileSync(join(voro, 'package.json'), 'utf8'));
  edit?.(pkg, voro);
  writeFileSync(join(voro, 'package.json'), JSON.stringify(pkg, null, 2));
  return root;
}

const lint = (root) => run(process.execPath, [script, ...(root ? [root] : [])], { timeoutMs: 60_000 });

describe('lint-packages', () => {
  it('passes on this workspace', async () => {
    const result = await lint();
    assert.equal(result.status, 0, transcript(result));
    assert.match(result.stdout, /publishable packages: no install hook, no root binding\.gyp/);
  });

  it('passes on a clean copy of a solver', async () => {
    const result = await lint(workspace('clean'));
    assert.equal(result.status, 0, transcript(result));
  });

  for (const hook of ['preinstall', 'install', 'postinstall']) {
    it(`fails on a "${hook}" script`, async () => {
      const root = workspace(hook, (pkg) => {
        pkg.scripts[hook] = 'node-gyp rebuild';
      });
      const result = await lint(root);
      assert.equal(result.status, 1, transcript(result));
      assert.match(result.stderr, new RegExp(`@peclet/voro\\): has a "${hook}" script`));
    });
  }

  it('fails on a binding.gyp at the package root', async () => {
    const root = workspace('root-gyp', (_pkg, dir) => {
      writeFileSync(join(dir, 'binding.gyp'), "{ 'targets': [] }\n");
    });
    const result = await lint(root);
    assert.equal(result.status, 1, transcript(result));
    assert.match(result.stderr, /has binding\.gyp at its root/);
  });

  it('fails when the platform package is not an optional dependency', async () => {
    const root = workspace('no-optional', (pkg) => {
      delete pkg.optionalDependencies;
    });
    const result = await lint(root);
    assert.equal(result.status, 1, transcript(result));
    assert.match(result.stderr, /must list @peclet\/voro-linux-x64-gnu in optionalDependencies/);
  });
});
