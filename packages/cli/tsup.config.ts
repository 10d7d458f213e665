import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.base.js';

// Two entries: the library (`main`, exit statuses) and the executable, whose shebang esbuild
// keeps and tsup marks executable. Declarations only for the library.
export default defineConfig(
  packageBuild({
    entry: ['src/index.ts', 'src/cli.ts'],
    dts: { entry: 'src/index.ts' },
  }),
);
