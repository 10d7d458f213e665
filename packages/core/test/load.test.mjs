// The addon loader: the order of its candidates, the name and version checks,
// the platform package's manifest check before its binary is opened, the one
// error listing every attempt, and lazy loading (an import or a finalize never
// opens a binary).

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { AddonLoadError, defineModule, lazyAddon, loadAddon, platformKey } from '../dist/index.js';
import { here, runNode } from './helpers.mjs';

const scratch = mkdtempSync(join(tmpdir(), 'peclet-load-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

// A stand-in for an addon: require() loads a .js path as a module, so the
// loader's checks run on what it says it is without a compiler.
function fakeAddon(file, { name, version, marker }) {
  const mark = marker ? `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'loaded');` : '';
  writeFileSync(
    file,
    `${mark}\nmodule.exports = { __peclet: { name: ${JSON.stringify(name)}, version: ${JSON.stringify(version)} } };\n`,
  );
  return file;
}

function withEnv(vars, fn) {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  for (const [k, v] of Object.entries(vars)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  try {
    return fn();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

const noEnv = { PECLET_ADDON_DIR: undefined, PECLET_DEMO_BINARY: undefined };
const loadError = (fn) => {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof AddonLoadError, String(error));
    assert.equal(error.code, 'PECLET_ADDON_NOT_LOADED');
    return error;
  }
  assert.fail('no error');
};

describe('loadAddon', () => {
  it('takes PECLET_<NAME>_BINARY first, and only it', () => {
    const file = fakeAddon(join(scratch, 'env-demo.js'), { name: 'demo', version: '1.2.3' });
    const b = withEnv({ ...noEnv, PECLET_DEMO_BINARY: file }, () =>
      loadAddon({ name: 'demo', root: scratch, version: '1.2.3' }),
    );
    assert.equal(b.__peclet.version, '1.2.3');
    const e = withEnv({ ...noEnv, PECLET_DEMO_BINARY: join(scratch, 'missing.node') }, () =>
      loadError(() => loadAddon({ name: 'demo', root: scratch })),
    );
    assert.deepEqual(
      e.attempts.map((a) => a.outcome),
      ['not found'],
    );
  });

  it('refuses a binary of another version, and another addon, by name', () => {
    const older = fakeAddon(join(scratch, 'older.js'), { name: 'demo', version: '0.0.9' });
    let e = withEnv({ ...noEnv, PECLET_DEMO_BINARY: older }, () =>
      loadError(() => loadAddon({ name: 'demo', root: scratch, packageName: '@x/demo', version: '1.2.3' })),
    );
    assert.match(e.message, /refused: it is version 0\.0\.9 of the addon, and @x\/demo is 1\.2\.3/);
    assert.match(e.message, /a binary of another version was found/);
    const other = fakeAddon(join(scratch, 'other.js'), { name: 'voro', version: '1.2.3' });
    e = withEnv({ ...noEnv, PECLET_DEMO_BINARY: other }, () =>
      loadError(() => loadAddon({ name: 'demo', root: scratch, version: '1.2.3' })),
    );
    assert.match(e.message, /refused: it is the addon 'voro', not 'demo'/);
  });

  it('loads a real local build from native/build/Release', () => {
    const root = join(scratch, 'local');
    mkdirSync(join(root, 'native', 'build', 'Release'), { recursive: true });
    copyFileSync(
      join(here, '..', 'test-addon', 'build', 'Release', 'alpha.node'),
      join(root, 'native', 'build', 'Release', 'alpha.node'),
    );
    const b = withEnv(noEnv, () => loadAddon({ name: 'alpha', root }));
    assert.equal(b.__peclet.name, 'alpha');
    assert.equal(typeof b.Field, 'function');
  });

  it('refuses a truncated binary before the loader maps it (no SIGBUS), in a child process per cut', async () => {
    const real = join(here, '..', 'test-addon', 'build', 'Release', 'beta.node');
    const bytes = readFileSync(real);
    const script = join(scratch, 'load-cut.mjs');
    writeFileSync(
      script,
      `import { loadAddon } from ${JSON.stringify(pathToFileURL(join(here, '..', 'dist', 'index.js')).href)};
try {
  loadAddon({ name: 'beta', root: ${JSON.stringify(scratch)} });
  console.log('loaded');
} catch (e) {
  console.log(e.name, e.attempts.map((a) => a.outcome).join(' | '));
}
`,
    );
    for (const cut of [600, 4096, Math.floor(bytes.length / 4), Math.floor(bytes.length / 2), bytes.length - 1]) {
      const file = join(scratch, `beta-cut-${cut}.node`);
      writeFileSync(file, bytes.subarray(0, cut));
      const r = await runNode(script, [], { env: { PECLET_BETA_BINARY: file, PECLET_ADDON_DIR: '' } });
      assert.equal(r.signal, null, `cut at ${cut}: killed by ${r.signal}`);
      assert.equal(r.status, 0, `cut at ${cut}: ${r.stderr}`);
      // A cut inside a loadable segment is refused by name; a cut in the trailing section
      // headers (not mapped) may load.
      if (cut <= bytes.length / 2) assert.match(r.stdout, /AddonLoadError refused before opening: truncated/, r.stdout);
      else assert.match(r.stdout, /loaded|AddonLoadError/, r.stdout);
    }
  });

  it('refuses a FIFO or a directory given as the binary at once, naming it (it once hung, or threw a bare EISDIR)', async () => {
    const script = join(scratch, 'load-special.mjs');
    writeFileSync(
      script,
      `import { loadAddon } from ${JSON.stringify(pathToFileURL(join(here, '..', 'dist', 'index.js')).href)};
try {
  loadAddon({ name: 'beta', root: ${JSON.stringify(scratch)} });
  console.log('loaded');
} catch (e) {
  console.log(e.name, e.attempts.map((a) => a.outcome).join(' | '));
}
`,
    );
    const fifo = join(scratch, 'beta-fifo.node');
    execFileSync('mkfifo', [fifo]);
    const folder = join(scratch, 'beta-folder.node');
    mkdirSync(folder);
    for (const [file, kind] of [
      [fifo, 'a FIFO'],
      [folder, 'a directory'],
    ]) {
      const r = await runNode(script, [], {
        env: { PECLET_BETA_BINARY: file, PECLET_ADDON_DIR: '' },
        timeoutMs: 20_000,
      });
      assert.equal(r.signal, null, `${kind}: killed by ${r.signal} (hung?)`);
      assert.match(
        r.stdout,
        new RegExp(`AddonLoadError refused before opening: not a regular file: ${kind}`),
        r.stdout,
      );
    }
  });

  it('checks a platform package version before opening its binary', () => {
    const pkgDir = join(scratch, 'node_modules', '@x', `demo-${platformKey()}`);
    mkdirSync(pkgDir, { recursive: true });
    const marker = join(scratch, 'opened');
    fakeAddon(join(pkgDir, 'demo.js'), { name: 'demo', version: '0.0.9', marker });
    writeFileSync(
      join(pkgDir, 'package.json'),
      JSON.stringify({ name: `@x/demo-${platformKey()}`, version: '0.0.9', main: 'demo.js' }),
    );
    const platforms = { [platformKey()]: () => join(pkgDir, 'package.json') };
    const e = withEnv(noEnv, () =>
      loadError(() => loadAddon({ name: 'demo', root: scratch, packageName: '@x/demo', version: '1.2.3', platforms })),
    );
    assert.match(
      e.message,
      new RegExp(`platform package @x/demo-${platformKey()}@0\\.0\\.9: refused: @x/demo 1\\.2\\.3 needs`),
    );
    assert.equal(existsSync(marker), false, 'the refused binary was opened');
  });

  it('says which fix applies when the platform package is not installed', () => {
    const platforms = {
      [platformKey()]: () => {
        throw Object.assign(new Error('Cannot find module'), { code: 'MODULE_NOT_FOUND' });
      },
    };
    const e = withEnv(noEnv, () =>
      loadError(() => loadAddon({ name: 'demo', root: scratch, packageName: '@x/demo', version: '1.2.3', platforms })),
    );
    const lines = e.message.split('\n');
    assert.match(lines[0], /^@x\/demo could not load its native addon demo\.node on \S+ \(Node [\d.]+, Node-API \d+/);
    assert.deepEqual(lines.slice(1, 5), [
      '  1. PECLET_DEMO_BINARY: not set',
      `  2. local build ${join(scratch, 'native', 'build', 'Release', 'demo.node')}: not found`,
      `  3. platform package @x/demo-${platformKey()}: not installed`,
      'To fix it:',
    ]);
    assert.match(lines[5], /optional dependencies were left out .* @x\/demo-\S+@1\.2\.3 is its optional dependency/);
    assert.match(lines[6], /build from source/);
    assert.match(lines[7], /set PECLET_DEMO_BINARY/);
  });

  it('names a platform without prebuilt binaries', () => {
    const e = withEnv(noEnv, () =>
      loadError(() => loadAddon({ name: 'demo', root: scratch, platforms: { 'plan9-mips-none': () => '' } })),
    );
    assert.match(e.message, /none is published for \S+ \(prebuilt: plan9-mips-none\)/);
    assert.match(e.message, /no prebuilt addon exists for/);
  });

  it('rejects bad options naming the option', () => {
    assert.throws(() => loadAddon({ name: 'Bad Name', root: scratch }), {
      name: 'TypeError',
      argument: 'options.name',
    });
    assert.throws(() => lazyAddon({ name: 'demo', root: '' }), { name: 'TypeError', argument: 'options.root' });
    assert.throws(() => lazyAddon({ name: 'demo', root: scratch, platforms: { x: 1 } }), {
      argument: 'options.platforms.x',
    });
    assert.throws(() => loadAddon(null), { name: 'TypeError', argument: 'options' });
  });
});

describe('lazyAddon', () => {
  it('loads at first use, runs onLoad once, then configures the module', () => {
    const file = fakeAddon(join(scratch, 'lazy.js'), { name: 'demo', version: '1.0.0' });
    const calls = [];
    const native = withEnv({ ...noEnv, PECLET_DEMO_BINARY: file }, () => {
      const proxy = lazyAddon({ name: 'demo', root: scratch }, () => calls.push('onLoad'));
      assert.deepEqual(calls, []);
      assert.equal(proxy.__peclet.name, 'demo');
      assert.equal(proxy.__peclet.version, '1.0.0');
      return proxy;
    });
    assert.deepEqual(calls, ['onLoad']);
    assert.ok('__peclet' in native);
  });

  it('throws its error at every use, never at import or finalize', () => {
    const native = withEnv(noEnv, () => lazyAddon({ name: 'demo', root: scratch }));
    const mod = defineModule({ name: 'lazy-test', native, executionSpace: 'host' });
    assert.equal(mod.executionSpace, 'host');
    withEnv(noEnv, () => {
      loadError(() => native.anything);
      loadError(() => mod.stats());
    });
    mod.finalize();
    assert.equal(mod.finalized, true);
  });

  it('a process whose lazy addon never loads ends cleanly on every exit path without opening it', async () => {
    const marker = join(scratch, 'exit-marker');
    const file = fakeAddon(join(scratch, 'never.js'), { name: 'demo', version: '1.0.0', marker });
    const script = join(scratch, 'never.mjs');
    writeFileSync(
      script,
      `import { defineModule, lazyAddon } from ${JSON.stringify(pathToFileURL(join(here, '..', 'dist', 'index.js')).href)};
const native = lazyAddon({ name: 'demo', root: ${JSON.stringify(scratch)} });
defineModule({ name: 'demo', native, executionSpace: 'host' });
const how = process.argv[2];
if (how === 'exit') process.exit(3);
if (how === 'throw') throw new Error('uncaught');
`,
    );
    for (const [how, status] of [
      ['natural', 0],
      ['exit', 3],
      ['throw', 1],
    ]) {
      const result = await runNode(script, [how], { env: { PECLET_DEMO_BINARY: file } });
      assert.equal(result.status, status, `${how}: ${result.stderr}`);
      assert.equal(result.signal, null);
      assert.equal(existsSync(marker), false, `${how}: the addon was opened`);
    }
  });
});

describe('a hosting module (hostsOthers, onFinalized)', () => {
  it('finalizes every other live module first, newest first, then itself, then onFinalized', () => {
    const calls = [];
    const host = defineModule({
      name: 'host',
      hostsOthers: true,
      onFinalized: (reason, code) => calls.push(`host onFinalized ${reason} ${code}`),
    });
    const a = defineModule({ name: 'a', onFinalized: () => calls.push('a') });
    const b = defineModule({ name: 'b', onFinalized: () => calls.push('b') });
    host.finalize();
    assert.deepEqual(calls, ['b', 'a', 'host onFinalized explicit undefined']);
    assert.ok(a.finalized && b.finalized && host.finalized);
  });

  it('two hosts do not recurse, and a failing module is reported after every other ran', () => {
    const calls = [];
    const one = defineModule({ name: 'one', hostsOthers: true, onFinalized: () => calls.push('one') });
    const two = defineModule({ name: 'two', hostsOthers: true, onFinalized: () => calls.push('two') });
    const bad = defineModule({
      name: 'bad',
      onFinalized: () => {
        throw new Error('cannot');
      },
    });
    assert.throws(
      () => one.finalize(),
      (e) => e.name === 'TeardownError' && /bad/.test(e.failures[0].label),
    );
    assert.deepEqual(calls, ['two', 'one']);
    assert.ok(one.finalized && two.finalized && bad.finalized);
    assert.throws(() => defineModule({ name: 'x', onFinalized: 1 }), TypeError);
  });

  it('at exit it gets the exit code, and runs after modules defined later', async () => {
    const script = join(scratch, 'host-exit.mjs');
    writeFileSync(
      script,
      `import { defineModule } from ${JSON.stringify(pathToFileURL(join(here, '..', 'dist', 'index.js')).href)};
defineModule({ name: 'host', hostsOthers: true, onFinalized: (reason, code) => console.log('host', reason, code) });
defineModule({ name: 'solver', onFinalized: (reason, code) => console.log('solver', reason, code) });
process.exit(3);
`,
    );
    const result = await runNode(script, []);
    assert.equal(result.status, 3, result.stderr);
    assert.equal(result.stdout, 'solver exit 3\nhost exit 3\n');
  });
});

describe('paths in the environment', () => {
  it('a relative PECLET_<NAME>_BINARY is read from the working directory', () => {
    fakeAddon(join(scratch, 'relative-demo.js'), { name: 'demo', version: '1.0.0' });
    const cwd = process.cwd();
    process.chdir(scratch);
    try {
      const b = withEnv({ ...noEnv, PECLET_DEMO_BINARY: 'relative-demo.js' }, () =>
        loadAddon({ name: 'demo', root: join(scratch, 'elsewhere'), version: '1.0.0' }),
      );
      assert.equal(b.__peclet.name, 'demo');
    } finally {
      process.chdir(cwd);
    }
  });
});
