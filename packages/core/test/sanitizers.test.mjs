// The test addon's exit tests under AddressSanitizer + UBSan: the addon is
// built again with PECLET_SANITIZE=1 into .sanitize/ and the sanitizer
// runtimes are preloaded into node. Any report fails the run.

import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { exitPaths } from './exit-paths.mjs';
import { assertCleanExit, fixtures, here, runNode } from './helpers.mjs';

const core = join(here, '..');
const addonRoot = join(core, '.sanitize', 'test-addon');
const runtimeLib = (name) => execFileSync('g++', [`-print-file-name=${name}`], { encoding: 'utf8' }).trim();

describe('exit contract under ASan + UBSan', { concurrency: 2 }, () => {
  let env;
  before(() => {
    rmSync(addonRoot, { recursive: true, force: true });
    mkdirSync(addonRoot, { recursive: true });
    for (const entry of ['binding.gyp', 'src'])
      cpSync(join(core, 'test-addon', entry), join(addonRoot, entry), { recursive: true });
    const build = spawnSync(process.execPath, [join(core, 'gyp', 'build.js'), 'rebuild', '-j', '2'], {
      cwd: addonRoot,
      env: { ...process.env, PECLET_SANITIZE: '1' },
      encoding: 'utf8',
    });
    assert.equal(build.status, 0, `sanitizer build failed\n${build.stdout}\n${build.stderr}`);
    env = {
      LD_PRELOAD: `${runtimeLib('libasan.so')} ${runtimeLib('libubsan.so')}`,
      // Node itself keeps memory to the end by design; leaks are not errors here.
      ASAN_OPTIONS: 'detect_leaks=0:abort_on_error=1',
      UBSAN_OPTIONS: 'print_stacktrace=1:halt_on_error=1',
      PECLET_TEST_ADDON_ROOT: addonRoot,
    };
  });

  for (const [path, expected] of Object.entries(exitPaths)) {
    it(path, async () => {
      const result = await runNode(join(fixtures, 'scenario.mjs'), [path, 'alpha,beta'], { env, timeoutMs: 120_000 });
      assertCleanExit(result, {
        status: expected.status ?? 0,
        signal: expected.signal ?? null,
        finalizes: { alpha: expected.reasons.length, beta: expected.reasons.length },
        reasons: { alpha: expected.reasons, beta: expected.reasons },
      });
    });
  }

  it('explicit finalize in both orders', async () => {
    for (const order of ['alpha,beta', 'beta,alpha']) {
      const result = await runNode(join(fixtures, 'explicit-finalize.mjs'), [order], { env, timeoutMs: 120_000 });
      assertCleanExit(result, { status: 0, finalizes: { alpha: 1, beta: 1 } });
    }
  });
});
