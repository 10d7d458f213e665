import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.base.js';

// Three entries: the library (`main`, exit statuses), the executable, whose shebang esbuild
// keeps and tsup marks executable, and the report pages (dist/report.js, for their tests).
// Declarations only for the library. @peclet/plot is private: bundled in, its dependencies
// are ours.
export default defineConfig(
  packageBuild({
    entry: ['src/index.ts', 'src/cli.ts', 'src/report.ts'],
    dts: { entry: 'src/index.ts' },
    noExternal: ['@peclet/plot'],
  }),
);
