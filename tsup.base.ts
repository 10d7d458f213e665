import type { Options } from 'tsup';

/**
 * The build every package shares: ESM and CJS with declarations for Node 20.
 * A package passes its entries and anything it needs on top.
 */
export function packageBuild(overrides: Options = {}): Options {
  return {
    entry: ['src/index.ts'],
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    clean: true,
    target: 'node20',
    platform: 'node',
    // import.meta.url in the CJS build, to find an addon beside the package.
    shims: true,
    ...overrides,
  };
}
