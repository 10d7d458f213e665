import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/** Options of {@link loadAddon}. */
export interface LoadAddonOptions {
  /** The package's root directory (the one holding binding.gyp). */
  readonly root: string;
  /** The addon's target name (`build/Release/<name>.node`). */
  readonly name: string;
  /** The command that builds it, quoted in the error when it is missing. */
  readonly buildCommand: string;
}

/**
 * Loads a package's native addon: `build/Release/<name>.node`, else
 * `build/Debug/<name>.node`; when neither loads, one error says what was
 * tried, why it failed and what to run.
 *
 * When `PECLET_ADDON_DIR` is set, `<dir>/<name>.node` is loaded instead and
 * nothing else is tried: a sanitizer or debug build of every addon, put in
 * one folder, is then used by every package or the load fails loudly.
 *
 * @example
 * ```ts
 * const native = loadAddon({ root: packageRoot, name: 'voro', buildCommand: 'pnpm --filter @peclet/voro build' });
 * ```
 */
export function loadAddon<T>(options: LoadAddonOptions): T {
  const require = createRequire(join(options.root, 'package.json'));
  const tried: string[] = [];
  const override = process.env.PECLET_ADDON_DIR;
  const candidates =
    override !== undefined && override !== ''
      ? [join(override, `${options.name}.node`)]
      : ['Release', 'Debug'].map((kind) => join(options.root, 'build', kind, `${options.name}.node`));
  for (const file of candidates) {
    if (!existsSync(file)) {
      tried.push(`${file} (missing)`);
      continue;
    }
    try {
      return require(file) as T;
    } catch (error) {
      tried.push(`${file} (${error instanceof Error ? error.message : String(error)})`);
    }
  }
  throw new Error(
    `peclet: the native addon '${options.name}' could not be loaded. Tried:\n  ${tried.join('\n  ')}\n` +
      (override
        ? `PECLET_ADDON_DIR is set to ${override}: put ${options.name}.node there or unset it.`
        : `Build it with: ${options.buildCommand}`),
  );
}
