// Checks (or with --fix, applies) clang-format on every tracked C++ file of ours (vendored
// libraries under third_party/ keep their authors' format).
import { execFileSync, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const fix = process.argv.includes('--fix');
const files = execFileSync('git', ['ls-files', '*.hpp', '*.cc', '*.cpp', '*.h', ':!:**/third_party/**'], {
  encoding: 'utf8',
})
  .split('\n')
  .filter(Boolean);
const require = createRequire(import.meta.url);
// The package's entry picks the binary it ships for this platform.
const clangFormat = require.resolve('clang-format/index.js');
const args = fix ? ['-i', ...files] : ['--dry-run', '--Werror', ...files];
const result = spawnSync(process.execPath, [clangFormat, ...args], { stdio: 'inherit' });
if (result.status !== 0) {
  console.error(fix ? 'clang-format failed' : 'C++ files are not formatted: run `pnpm format`');
  process.exit(1);
}
console.log(`clang-format: ${files.length} files ${fix ? 'formatted' : 'clean'}`);
