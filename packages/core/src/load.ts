import { closeSync, constants, existsSync, fstatSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { describeValue, fail, readOptions } from './args.js';

/**
 * Where a package's addon may come from and what it must be. One spec per
 * addon; {@link loadAddon} tries, in order:
 *
 * 1. `PECLET_<NAME>_BINARY` — an explicit path (nothing else is tried);
 * 2. `PECLET_ADDON_DIR` — `<dir>/<name>.node` (nothing else is tried): a
 *    sanitizer or debug build of every addon in one folder;
 * 3. a local build: `<root>/native/build/{Release,Debug}/<name>.node`, then
 *    `<root>/build/{Release,Debug}/<name>.node` (the monorepo, or a build
 *    from source after install);
 * 4. the platform package of this machine (`platforms[platformKey()]`).
 *
 * The binary's version (compiled in by the kernel from the package's
 * package.json) must equal `version`; a platform package's own version is
 * checked before its binary is opened.
 */
export interface LoadAddonOptions {
  /** The addon's target name: `<name>.node`, `PECLET_<NAME>_BINARY`. */
  readonly name: string;
  /** The package's root directory (the one holding package.json and native/). */
  readonly root: string;
  /** The package's name (`@peclet/voro`), for the error; default `the package at <root>`. */
  readonly packageName?: string;
  /** The package's version: the binary's must equal it. Unchecked when absent. */
  readonly version?: string;
  /**
   * The platform packages by {@link platformKey}, each a function that
   * resolves its manifest by literal name, so that bundlers and tracers see it:
   * `{ 'linux-x64-gnu': () => require.resolve('@peclet/voro-linux-x64-gnu/package.json') }`.
   */
  readonly platforms?: Readonly<Record<string, () => string>>;
  /** The command that builds the addon from source, quoted in the error. */
  readonly buildCommand?: string;
}

/** The C library of this process: `gnu` (with its version), `musl`, or undefined off Linux. */
/** @internal */
export function detectLibc(): { family: 'gnu' | 'musl'; version?: string } | undefined {
  if (process.platform !== 'linux') return undefined;
  // Read at run time, never from the install: a binary installed on one
  // machine may run on another (a container image built elsewhere).
  try {
    const report = process.report?.getReport?.() as { header?: { glibcVersionRuntime?: string } } | undefined;
    const glibc = report?.header?.glibcVersionRuntime;
    if (typeof glibc === 'string' && glibc !== '') return { family: 'gnu', version: glibc };
  } catch {
    // A runtime without process reports (Deno, Bun): look at the system.
  }
  try {
    const ldd = readFileSync('/usr/bin/ldd', 'latin1');
    if (ldd.includes('musl')) return { family: 'musl' };
    if (ldd.includes('GNU C Library') || ldd.includes('GLIBC')) return { family: 'gnu' };
  } catch {
    // No ldd script: fall through to the loader's name.
  }
  try {
    if (readdirSync('/lib').some((f) => f.startsWith('ld-musl-'))) return { family: 'musl' };
  } catch {
    // No /lib to read.
  }
  return { family: 'gnu' };
}

/**
 * The platform packages' suffix for this process: `linux-x64-gnu`,
 * `linux-arm64-musl`, `darwin-arm64`, `win32-x64-msvc`.
 */
export function platformKey(): string {
  const base = `${process.platform}-${process.arch}`;
  if (process.platform === 'linux') return `${base}-${detectLibc()?.family ?? 'gnu'}`;
  if (process.platform === 'win32') return `${base}-msvc`;
  return base;
}

interface Attempt {
  readonly where: string;
  readonly outcome: string;
}

function message(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
}

// What a binary says it is (the kernel's `__peclet.name` and `.version`).
function identity(binding: unknown): { name: string | undefined; version: string | undefined } {
  const lifecycle = (binding as { __peclet?: { name?: unknown; version?: unknown } } | null)?.__peclet;
  return {
    name: typeof lifecycle?.name === 'string' ? lifecycle.name : undefined,
    version: typeof lifecycle?.version === 'string' ? lifecycle.version : undefined,
  };
}

// Options are checked when given, so that a lazy addon's mistakes surface at import.
function checkOptions(options: LoadAddonOptions): void {
  const o = readOptions(options, 'options', ['name', 'root', 'packageName', 'version', 'platforms', 'buildCommand']);
  if (typeof o.name !== 'string' || !/^[a-z][a-z0-9_]*$/.test(o.name)) {
    fail('type', 'options.name', `must be an addon name like 'voro', got ${describeValue(o.name)}`);
  }
  if (typeof o.root !== 'string' || o.root === '') {
    fail('type', 'options.root', `must be the package directory, got ${describeValue(o.root)}`);
  }
  for (const key of ['packageName', 'version', 'buildCommand'] as const) {
    if (o[key] !== undefined && typeof o[key] !== 'string') {
      fail('type', `options.${key}`, `must be a string, got ${describeValue(o[key])}`);
    }
  }
  const platforms = o.platforms;
  if (platforms === undefined) return;
  if (typeof platforms !== 'object' || platforms === null) {
    fail('type', 'options.platforms', `must be an object of resolvers, got ${describeValue(platforms)}`);
  }
  for (const [key, resolver] of Object.entries(platforms)) {
    if (typeof resolver !== 'function') {
      fail('type', `options.platforms.${key}`, `must be a function, got ${describeValue(resolver)}`);
    }
  }
}

/** Thrown when no candidate gives a usable addon; `attempts` lists each one and why it failed. */
/**
 * What is wrong with an ELF file that the dynamic loader would map past its end, or undefined
 * (not ELF, or whole). dlopen() maps each loadable segment from the file: a segment that runs past
 * the end of a truncated file (a half-written download, a cut copy) is a SIGBUS when the loader
 * touches it, which no JS can catch. Checked here: the header, the program headers' table and
 * every PT_LOAD segment lie inside the file. A directory, FIFO or device is refused (require()
 * of one would hang or throw a bare system error). Unreadable or short files are left to require().
 */
export function elfDamage(file: string): string | undefined {
  let fd: number;
  try {
    // Non-blocking: opening a FIFO for reading would wait for a writer for ever.
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) {
      const kind = stats.isDirectory() ? 'a directory' : stats.isFIFO() ? 'a FIFO' : 'a device or socket';
      return `not a regular file: ${kind}`;
    }
    const size = stats.size;
    const head = Buffer.alloc(64);
    const got = readSync(fd, head, 0, 64, 0);
    if (got < 4 || head.readUInt32BE(0) !== 0x7f454c46) return undefined; // not ELF
    const wide = head[4] === 2;
    const little = head[5] === 1;
    const headerSize = wide ? 64 : 52;
    if (got < headerSize || size < headerSize) return `an ELF file of ${size} bytes, shorter than its header`;
    const u16 = (b: Buffer, at: number) => (little ? b.readUInt16LE(at) : b.readUInt16BE(at));
    const u32 = (b: Buffer, at: number) => (little ? b.readUInt32LE(at) : b.readUInt32BE(at));
    const word = (b: Buffer, at: number) =>
      wide ? Number(little ? b.readBigUInt64LE(at) : b.readBigUInt64BE(at)) : u32(b, at);
    const phoff = word(head, wide ? 32 : 28);
    const phentsize = u16(head, wide ? 54 : 42);
    const phnum = u16(head, wide ? 56 : 44);
    const table = phnum * phentsize;
    if (phoff + table > size)
      return `truncated: its program headers end at byte ${phoff + table}, the file has ${size}`;
    const headers = Buffer.alloc(table);
    if (readSync(fd, headers, 0, table, phoff) < table) return 'truncated: its program headers cannot be read';
    for (let i = 0; i < phnum; i++) {
      const at = i * phentsize;
      if (u32(headers, at) !== 1) continue; // PT_LOAD only
      const offset = word(headers, at + (wide ? 8 : 4));
      const filesz = word(headers, at + (wide ? 32 : 16));
      if (offset + filesz > size) {
        return `truncated: a loadable segment ends at byte ${offset + filesz}, the file has ${size} (a cut copy or an unfinished download)`;
      }
    }
    return undefined;
  } finally {
    closeSync(fd);
  }
}

export class AddonLoadError extends Error {
  readonly code = 'PECLET_ADDON_NOT_LOADED';
  readonly attempts: readonly Attempt[];
  constructor(text: string, attempts: readonly Attempt[]) {
    super(text);
    this.name = 'AddonLoadError';
    this.attempts = attempts;
  }
}

/**
 * Loads a package's native addon (see {@link LoadAddonOptions} for the order)
 * or throws one {@link AddonLoadError} that lists each candidate, why it was
 * refused, and how to fix it.
 *
 * @example
 * ```ts
 * const native = loadAddon<VoroBinding>({
 *   name: 'voro', root, packageName: '@peclet/voro', version: '0.1.0',
 *   platforms: { 'linux-x64-gnu': () => require.resolve('@peclet/voro-linux-x64-gnu/package.json') },
 * });
 * ```
 */
export function loadAddon<T>(options: LoadAddonOptions): T {
  checkOptions(options);
  const { name, root } = options;
  const pkg = options.packageName ?? `the package at ${root}`;
  const envName = `PECLET_${name.toUpperCase()}_BINARY`;
  const require = createRequire(join(root, 'package.json'));
  const attempts: Attempt[] = [];
  let versionMismatch = false;
  let glibcTooOld: string | undefined;

  const open = (file: string, where: string): T | undefined => {
    const damage = elfDamage(file);
    if (damage !== undefined) {
      attempts.push({ where, outcome: `refused before opening: ${damage}` });
      return undefined;
    }
    let binding: T;
    try {
      binding = require(file) as T;
    } catch (error) {
      const text = message(error);
      const glibc = /(GLIBC(?:XX)?_[0-9.]+)' not found/.exec(text);
      if (glibc) glibcTooOld = glibc[1];
      attempts.push({ where, outcome: `could not be opened: ${text}` });
      return undefined;
    }
    const found = identity(binding);
    if (found.name !== name) {
      attempts.push({ where, outcome: `refused: it is the addon '${found.name ?? '(unknown)'}', not '${name}'` });
      return undefined;
    }
    if (options.version !== undefined && found.version !== options.version) {
      versionMismatch = true;
      attempts.push({
        where,
        outcome: `refused: it is version ${found.version || '(none)'} of the addon, and ${pkg} is ${options.version}`,
      });
      return undefined;
    }
    return binding;
  };

  const explicit = process.env[envName];
  const dir = process.env.PECLET_ADDON_DIR;
  if (explicit !== undefined && explicit !== '') {
    // Relative to the working directory, as a user typing it means it (require would read a bare name as a package).
    const file = resolve(explicit);
    if (!existsSync(file)) attempts.push({ where: `${envName}=${file}`, outcome: 'not found' });
    else {
      const binding = open(file, `${envName}=${file}`);
      if (binding !== undefined) return binding;
    }
  } else if (dir !== undefined && dir !== '') {
    const file = resolve(dir, `${name}.node`);
    if (!existsSync(file)) attempts.push({ where: `PECLET_ADDON_DIR: ${file}`, outcome: 'not found' });
    else {
      const binding = open(file, `PECLET_ADDON_DIR: ${file}`);
      if (binding !== undefined) return binding;
    }
  } else {
    attempts.push({ where: envName, outcome: 'not set' });
    const local = ['native/build/Release', 'native/build/Debug', 'build/Release', 'build/Debug'].map((d) =>
      join(root, d, `${name}.node`),
    );
    const built = local.filter((file) => existsSync(file));
    if (built.length === 0) {
      attempts.push({
        where: `local build ${join(root, 'native', 'build', 'Release', `${name}.node`)}`,
        outcome: 'not found',
      });
    }
    for (const file of built) {
      const binding = open(file, `local build ${file}`);
      if (binding !== undefined) return binding;
    }
    const key = platformKey();
    const resolver = options.platforms?.[key];
    const platformPackage = `${options.packageName ?? name}-${key}`;
    if (options.platforms === undefined) {
      // An addon without platform packages (built from source only).
    } else if (resolver === undefined) {
      attempts.push({
        where: `platform package ${platformPackage}`,
        outcome: `none is published for ${key} (prebuilt: ${Object.keys(options.platforms ?? {}).join(', ') || 'none'})`,
      });
    } else {
      let manifest: string | undefined;
      try {
        manifest = resolver();
      } catch {
        attempts.push({ where: `platform package ${platformPackage}`, outcome: 'not installed' });
      }
      if (manifest !== undefined) {
        const binding = openPlatformPackage(manifest, platformPackage);
        if (binding !== undefined) return binding;
      }
    }
  }

  function openPlatformPackage(manifest: string, label: string): T | undefined {
    let meta: { version?: unknown; main?: unknown };
    try {
      meta = JSON.parse(readFileSync(manifest, 'utf8')) as typeof meta;
    } catch (error) {
      attempts.push({ where: `platform package ${label}`, outcome: `unreadable manifest: ${message(error)}` });
      return undefined;
    }
    if (options.version !== undefined && meta.version !== options.version) {
      versionMismatch = true;
      attempts.push({
        where: `platform package ${label}@${String(meta.version)}`,
        outcome: `refused: ${pkg} ${options.version} needs ${label}@${options.version}`,
      });
      return undefined;
    }
    const file = join(dirname(manifest), typeof meta.main === 'string' ? meta.main : `${name}.node`);
    if (!existsSync(file)) {
      attempts.push({ where: `platform package ${label}`, outcome: `its binary ${file} is missing` });
      return undefined;
    }
    return open(file, `platform package ${label} (${file})`);
  }

  throw new AddonLoadError(describeFailure(options, attempts, { envName, versionMismatch, glibcTooOld }), attempts);
}

function describeFailure(
  options: LoadAddonOptions,
  attempts: readonly Attempt[],
  why: { envName: string; versionMismatch: boolean; glibcTooOld: string | undefined },
): string {
  const { name, root } = options;
  const pkg = options.packageName ?? `the package at ${root}`;
  const key = platformKey();
  const libc = detectLibc();
  const platformPackage = `${options.packageName ?? name}-${key}`;
  const runtime = `Node ${process.versions.node}, Node-API ${process.versions.napi}${libc?.version ? `, glibc ${libc.version}` : libc ? ', musl' : ''}`;
  const lines = [`${pkg} could not load its native addon ${name}.node on ${key} (${runtime}). Tried, in order:`];
  attempts.forEach((a, i) => {
    lines.push(`  ${i + 1}. ${a.where}: ${a.outcome}`);
  });
  lines.push('To fix it:');
  const supported = options.platforms?.[key] !== undefined;
  if (supported && attempts.some((a) => a.outcome === 'not installed')) {
    lines.push(
      `  - optional dependencies were left out (npm --omit=optional, pnpm --no-optional, or optional=false): install ${pkg} again without that; ${platformPackage}${options.version ? `@${options.version}` : ''} is its optional dependency holding the compiled addon.`,
    );
  }
  if (!supported && options.platforms !== undefined) {
    const family = libc?.family;
    const other = Object.keys(options.platforms).find(
      (k) => family && k.replace(/-(gnu|musl)$/, '') === key.replace(/-(gnu|musl)$/, ''),
    );
    lines.push(
      other !== undefined
        ? `  - this system's C library is ${family === 'musl' ? 'musl' : 'glibc'} and the prebuilt addon is for ${other}: build from source (below) or use a ${other.endsWith('gnu') ? 'glibc' : 'musl'} system.`
        : `  - no prebuilt addon exists for ${key}: build from source (below).`,
    );
  }
  if (why.glibcTooOld !== undefined) {
    lines.push(
      `  - this system's C or C++ runtime is older than the prebuilt addon's baseline (it needs ${why.glibcTooOld}; glibc 2.34 and the libstdc++ of GCC 12): build from source (below).`,
    );
  }
  if (why.versionMismatch) {
    lines.push(
      `  - a binary of another version was found: install the ${platformPackage} and ${pkg} of one version, or rebuild the local build.`,
    );
  }
  lines.push(
    `  - build from source (needs a C++17 compiler, make and python3): ${options.buildCommand ?? `cd ${root} && npx node-gyp rebuild --directory native`}`,
    `  - or set ${why.envName} to the path of a ${name}.node built for ${pkg}${options.version ? ` ${options.version}` : ''}.`,
  );
  return lines.join('\n');
}

interface LazyState<T> {
  readonly loaded: boolean;
  readonly binding: T | undefined;
  whenLoaded(callback: (binding: T) => void): void;
}

const lazyStates = new WeakMap<object, LazyState<unknown>>();

/**
 * The addon of {@link loadAddon}, loaded at first use instead of now: a
 * proxy whose first property access loads it (and throws the
 * {@link AddonLoadError} when it cannot, at that access and every later
 * one). Importing a package that uses it never opens a binary, so a missing
 * addon cannot crash or fail an import. `onLoad` runs once, when it
 * loads (before the module's own configuration); `defineModule` recognizes
 * the proxy and configures the addon then.
 *
 * @example
 * ```ts
 * export const native = lazyAddon<VoroBinding>({ name: 'voro', root, packageName: '@peclet/voro', version, platforms });
 * const mod = defineModule({ name: 'voro', native, executionSpace: 'host' });
 * ```
 */
export function lazyAddon<T extends object>(options: LoadAddonOptions, onLoad?: (binding: T) => void): T {
  if (onLoad !== undefined && typeof onLoad !== 'function') {
    throw new TypeError('lazyAddon(options, onLoad): onLoad must be a function');
  }
  checkOptions(options);
  let binding: T | undefined;
  const callbacks: ((b: T) => void)[] = onLoad ? [onLoad] : [];
  const load = (): T => {
    if (binding === undefined) {
      binding = loadAddon<T>(options);
      for (const callback of callbacks.splice(0)) callback(binding);
    }
    return binding;
  };
  const proxy = new Proxy({} as T, {
    // `then` is asked by every await and Promise resolution of the proxy: a binding is never a
    // thenable, and asking must not open the addon.
    get: (_t, key) => (key === 'then' ? undefined : Reflect.get(load(), key)),
    has: (_t, key) => Reflect.has(load(), key),
    set: (_t, key, value) => Reflect.set(load(), key, value),
    ownKeys: () => Reflect.ownKeys(load()),
    getOwnPropertyDescriptor: (_t, key) => {
      const d = Reflect.getOwnPropertyDescriptor(load(), key);
      return d === undefined ? undefined : { ...d, configurable: true };
    },
    defineProperty: (_t, key, d) => Reflect.defineProperty(load(), key, d),
    deleteProperty: (_t, key) => Reflect.deleteProperty(load(), key),
  });
  lazyStates.set(proxy, {
    get loaded() {
      return binding !== undefined;
    },
    get binding() {
      return binding;
    },
    whenLoaded(callback) {
      if (binding !== undefined) callback(binding);
      else callbacks.push(callback as (b: T) => void);
    },
  });
  return proxy;
}

/** @internal The lazy state of a {@link lazyAddon} proxy, or undefined for a loaded binding. */
export function lazyState<T>(binding: T): LazyState<T> | undefined {
  return typeof binding === 'object' && binding !== null
    ? (lazyStates.get(binding) as LazyState<T> | undefined)
    : undefined;
}
