import { readNumber, readOptions } from './args.js';
import { cpuBudget } from './cpu-budget.js';
import { ReleasedError, TeardownError, type TeardownFailure } from './errors.js';
import { lazyState } from './load.js';
import { Registry } from './registry.js';
import { type FinalizeReason, traceFinalize, traceLine } from './trace.js';
import { viewGetter } from './views.js';

/** What the C++ kernel's `install()` exports under `__peclet`. */
export interface NativeLifecycle {
  readonly name: string;
  /** The version of the package the binary was built from (its package.json). */
  readonly version: string;
  configure(options: { threads: number; releasedError: typeof ReleasedError }): void;
  nextId(): number;
  stats(): NativeStats;
  /** False once this env's addon handed out a copy where it meant a view (external buffers refused). */
  zeroCopy?(): boolean;
  /**
   * Marks this env's teardown as under way: until its finalize completes, libc `exit()` called
   * on another thread (Deno's Jupyter kernel answering `shutdown_request`) waits for it, bounded.
   */
  teardownPending?(): void;
  /**
   * handleSignals() listens for these signal numbers in this thread (empty: no longer): once
   * one arrives, libc `exit()` on another thread waits, bounded, for this env's finalize.
   */
  armSignals?(signals: readonly number[]): void;
}

/** Counters of a native module in this thread, from its ledger and registry. */
export interface NativeStats {
  /** Live wrapped objects in this env. */
  readonly liveObjects: number;
  /** Records the kernel keeps of zero-copy arrays it handed out, and how many of those arrays are alive. */
  readonly exportRecords?: number;
  readonly liveExports?: number;
  /** Live ledger allocations and bytes of this env. */
  readonly liveAllocations: number;
  readonly liveBytes: number;
  /** Live bytes of the whole module (every env). */
  readonly moduleLiveBytes: number;
  /** Size of the host thread pool and whether it has started. */
  readonly threads: number;
  readonly poolStarted: boolean;
  /** Envs (threads) using the module. */
  readonly envs: number;
  readonly workInFlight: number;
  readonly finalized: boolean;
  readonly runtimeFinalized: boolean;
}

/** The exports of an addon built on the kernel (`peclet::install`). */
export interface NativeBinding {
  finalize(reason?: FinalizeReason, alsoReleased?: number): number | undefined;
  readonly executionSpace: string;
  readonly __peclet: NativeLifecycle;
}

/** An async drain hook of {@link PecletModule.onDrain}: settles once the work it waits for ended or `timeoutMs` passed. */
export type DrainHook = (timeoutMs: number) => Promise<unknown>;

/** `PECLET_FINALIZE_TIMEOUT_MS` (a positive integer), else 10000, as the C++ kernel reads it. */
export function finalizeTimeoutMs(): number {
  const n = Number.parseInt(process.env.PECLET_FINALIZE_TIMEOUT_MS ?? '', 10);
  return n > 0 ? n : 10_000;
}

// The longest delay setTimeout honours.
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Options of {@link defineModule}. */
export interface ModuleOptions {
  /** Module name in errors and the trace (`peclet:<name> ...`). */
  readonly name: string;
  /**
   * The module's addon, when it has one: a loaded binding, or a
   * {@link lazyAddon} that loads at first use (the module configures it then,
   * and never loads it to finalize).
   */
  readonly native?: NativeBinding;
  /** Where it computes (default: the addon's, else `host`); given, it spares a lazy addon a load. */
  readonly executionSpace?: string;
  /** Host threads (default {@link cpuBudget}). */
  readonly threads?: number;
  /**
   * A module the others run on (MPI): its finalize, on every path (explicit,
   * exit, signal), first finalizes every other live module of the thread,
   * newest first, so that nothing still uses it when it goes.
   */
  readonly hostsOthers?: boolean;
  /**
   * Runs once at the end of the module's finalize, after its objects and
   * addon were released, with the reason and, at exit, the exit code (MPI
   * finalizes or aborts here). What it throws is reported with the other
   * failures of the finalize.
   */
  readonly onFinalized?: (reason: FinalizeReason, exitCode: number | undefined) => void;
}

interface ModuleSet {
  readonly modules: Set<PecletModule>;
  /** The signal numbers handleSignals() listens for in this thread (empty when it does not). */
  armedSignals: readonly number[];
  /** The addons armed for them, oldest first (finalized ones too: their watch must come out). */
  armed: NativeLifecycle[];
}

// Shared through the global object so that every copy of this package in a
// thread (its ESM and CJS builds) sees every module: handleSignals() must
// finalize them all.
const globalKey = Symbol.for('peclet.modules');
function moduleSet(): ModuleSet {
  const g = globalThis as unknown as Record<symbol, ModuleSet | undefined>;
  let set = g[globalKey];
  if (set === undefined) {
    set = { modules: new Set(), armedSignals: [], armed: [] };
    g[globalKey] = set;
  }
  // A set made by an older copy of this package in the thread has no armedSignals yet.
  set.armedSignals ??= [];
  set.armed ??= [];
  return set;
}

/** Every module defined in this thread that is not yet finalized, oldest first. */
export function liveModules(): PecletModule[] {
  return [...moduleSet().modules];
}

/**
 * handleSignals() now listens for `signals` (numbers; empty: no longer): every loaded addon of a
 * live module is told, and so is every addon loaded later, so that libc `exit()` on another
 * thread after such a signal waits (bounded) for the finalize its listener runs.
 */
export function armSignals(signals: readonly number[]): void {
  const set = moduleSet();
  set.armedSignals = [...signals];
  if (signals.length === 0) {
    // Newest first: each addon's watch sits in front of the one armed before it.
    const armed = set.armed.reverse();
    set.armed = [];
    for (const lifecycle of armed) {
      try {
        lifecycle.armSignals?.([]);
      } catch (error) {
        traceLine(`peclet:${lifecycle.name} ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    return;
  }
  for (const mod of liveModules()) {
    try {
      mod.armSignals(signals);
    } catch (error) {
      traceLine(`peclet:${mod.name} ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

function armNative(native: NativeBinding, signals: readonly number[]): void {
  const lifecycle = native.__peclet;
  if (lifecycle.armSignals === undefined) return;
  lifecycle.armSignals(signals);
  moduleSet().armed.push(lifecycle);
}

/**
 * Marks every module of a sequence about to finalize them all (see
 * {@link PecletModule.markTeardownPending}); a failure to mark one is traced,
 * never stops the teardown.
 */
export function markTeardownPending(modules: readonly PecletModule[]): void {
  for (const mod of modules) {
    try {
      mod.markTeardownPending();
    } catch (error) {
      traceLine(`peclet:${mod.name} ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

/**
 * The lifecycle of one module in the current thread (main or worker): its
 * registry, its addon, and its finalize. Get one with {@link defineModule}.
 */
export class PecletModule {
  readonly name: string;
  /** Live TypeScript-side releasables of this module in this thread. */
  readonly registry: Registry;
  readonly #native: NativeBinding | undefined;
  readonly #executionSpace: string | undefined;
  #finalized = false;
  // Set while a hosting module finalizes the others first (two hosts must not recurse).
  #finalizing = false;
  #exiting = false;
  readonly #drains = new Set<{ label: string; drain: DrainHook }>();
  readonly #onExit: (code: number) => void;
  readonly #hostsOthers: boolean;
  readonly #onFinalized: ((reason: FinalizeReason, exitCode: number | undefined) => void) | undefined;

  constructor(options: ModuleOptions) {
    readOptions(options, 'options', ['name', 'native', 'executionSpace', 'threads', 'hostsOthers', 'onFinalized']);
    if (typeof options?.name !== 'string' || options.name === '') {
      throw new TypeError('defineModule(options): options.name must be a non-empty string');
    }
    this.name = options.name;
    this.#native = options.native;
    const native = this.#native;
    this.registry = new Registry(options.name, native ? () => native.__peclet.nextId() : undefined);
    this.#executionSpace = options.executionSpace;
    const threads = options.threads ?? cpuBudget();
    const configure = (binding: NativeBinding) => {
      binding.__peclet.configure({ threads, releasedError: ReleasedError });
      const armed = moduleSet().armedSignals;
      if (armed.length > 0 && !this.#finalized) armNative(binding, armed);
      // Loaded after finalize(): the addon starts finalized, so nothing new starts.
      if (this.#finalized) binding.finalize('explicit');
    };
    const lazy = native === undefined ? undefined : lazyState(native);
    if (lazy !== undefined) lazy.whenLoaded(configure);
    else if (native !== undefined) configure(native);
    this.#hostsOthers = options.hostsOthers === true;
    if (options.onFinalized !== undefined && typeof options.onFinalized !== 'function') {
      throw new TypeError('defineModule(options): options.onFinalized must be a function');
    }
    this.#onFinalized = options.onFinalized;
    this.#onExit = (code) => this.#finalizeAtExit('exit', code);
    process.on('exit', this.#onExit);
    moduleSet().modules.add(this);
  }

  // The addon when it is loaded: finalizing never loads a lazy one.
  #loadedNative(): NativeBinding | undefined {
    const lazy = lazyState(this.#native);
    return lazy === undefined ? this.#native : lazy.binding;
  }

  /** Where the module computes (`host` for the CPU thread pool). */
  get executionSpace(): string {
    return this.#executionSpace ?? this.#native?.executionSpace ?? 'host';
  }

  /** True once {@link finalize} ran (explicitly or at exit). */
  get finalized(): boolean {
    return this.#finalized;
  }

  /**
   * True once {@link finalizeAsync} or {@link finalize} started: the exiting
   * latch. Objects check it to refuse new work (a GPU submission) while the
   * module drains.
   */
  get exiting(): boolean {
    return this.#exiting || this.#finalized;
  }

  /**
   * Adds an async drain hook (a GPU device waiting for its submitted work),
   * awaited by {@link finalizeAsync} before it finalizes; the synchronous
   * paths never call it. `drain(timeoutMs)` should settle within the time it
   * is given. Returns a function that removes the hook.
   */
  onDrain(label: string, drain: DrainHook): () => void {
    if (typeof label !== 'string') throw new TypeError('onDrain(label, drain): label must be a string');
    if (typeof drain !== 'function') throw new TypeError('onDrain(label, drain): drain must be a function');
    const entry = { label, drain };
    this.#drains.add(entry);
    return () => {
      this.#drains.delete(entry);
    };
  }

  /**
   * {@link finalize} after letting asynchronous work end: latches the module
   * as exiting (new GPU submissions throw), waits for every drain hook — each
   * GPU device's submitted work — for at most `timeoutMs` in all (default
   * `PECLET_FINALIZE_TIMEOUT_MS`, else 10000), then finalizes. What has not
   * drained by then is destroyed by the finalize. Idempotent; a drain that
   * fails does not stop the finalize.
   *
   * @example
   * ```ts
   * await mod.finalizeAsync({ timeoutMs: 2000 }); // GPU work ends, then everything is released
   * ```
   */
  async finalizeAsync(options: { timeoutMs?: number } = {}): Promise<void> {
    const o = readOptions(options, 'options', ['timeoutMs'], { optional: true });
    // Infinity waits as long as the drains take; a timer cannot (Node turns
    // delays above 2^31 − 1 ms into 1 ms).
    const timeoutMs = readNumber(o.timeoutMs, 'options.timeoutMs', {
      min: 0,
      infinite: true,
      fallback: finalizeTimeoutMs(),
      unit: 'ms',
    });
    if (this.#finalized) return;
    this.#exiting = true;
    const drains = [...this.#drains];
    if (drains.length > 0) {
      let timer: NodeJS.Timeout | undefined;
      const waits: Promise<unknown>[] = [Promise.allSettled(drains.map(async (entry) => entry.drain(timeoutMs)))];
      if (timeoutMs <= MAX_TIMER_MS) {
        waits.push(
          new Promise<void>((resolve) => {
            timer = setTimeout(resolve, timeoutMs);
          }),
        );
      }
      await Promise.race(waits);
      clearTimeout(timer);
    }
    this.finalizeFor('explicit');
  }

  /**
   * A getter of a zero-copy array of this module: one view per buffer. It returns the same typed
   * array on every call until the native buffer behind it changes (the kernel detaches the old
   * array before it reallocates or frees that memory), then reads a new one with `read`. The
   * array is held weakly — a view the program no longer references is collected with
   * everything the kernel keeps for it — and strongly only within the current job, so a hot
   * loop costs a field read. Where the addon hands out copies (external buffers refused, or
   * `PECLET_NO_EXTERNAL_BUFFERS=1`) nothing is kept: each call reads a fresh copy. An empty
   * array is never kept.
   *
   * @param read reads the array from the native object, with that object's own checks (a
   *   `ReleasedError` once it is released, a refusal while it runs).
   *
   * @example
   * ```ts
   * class Field extends Releasable {
   *   readonly #values = fieldModule.zeroCopyView(() => this.#native.values);
   *   get values(): Float64Array {
   *     return this.#values();
   *   }
   * }
   * ```
   */
  zeroCopyView<T extends ArrayBufferView>(read: () => T): () => T;
  /**
   * The same for an object holding zero-copy arrays (a container of a network's arrays, say):
   * `isCurrent(value)` says whether a value kept still shows the native memory (typically: one
   * of its arrays is not detached).
   */
  zeroCopyView<T extends object>(read: () => T, isCurrent: (value: T) => boolean): () => T;
  zeroCopyView<T extends object>(read: () => T, isCurrent?: (value: T) => boolean): () => T {
    return viewGetter(read, () => this.#loadedNative()?.__peclet.zeroCopy?.() ?? true, isCurrent);
  }

  /**
   * @internal Called on every module first when a sequence finalizes them all (handleSignals(), a
   * hosting module): from here until this module's native finalize completes, a libc `exit()` on
   * another thread waits for it (bounded) instead of cutting the teardown short. Never loads a
   * lazy addon; a no-op once finalized.
   */
  markTeardownPending(): void {
    if (this.#finalized) return;
    this.#loadedNative()?.__peclet.teardownPending?.();
  }

  /** @internal See {@link armSignals}; never loads a lazy addon. */
  armSignals(signals: readonly number[]): void {
    const native = this.#loadedNative();
    if (!this.#finalized && native !== undefined) armNative(native, signals);
  }

  /** Native counters (live objects, ledger bytes, pool), or undefined without an addon. */
  stats(): NativeStats | undefined {
    return this.#native?.__peclet.stats();
  }

  /**
   * Releases every object of this module in this thread (TypeScript ones,
   * then native ones newest first), stops in-flight work, joins threads and
   * finalizes the runtime with the last thread using it. Idempotent.
   * Throws a {@link TeardownError} if a release failed; every release is
   * attempted first.
   */
  finalize(): void {
    this.finalizeFor('explicit');
  }

  /** @internal Finalize with a reason (`signal` from handleSignals) and, at exit, the exit code. */
  finalizeFor(reason: FinalizeReason, exitCode?: number): void {
    if (this.#finalized || this.#finalizing) return;
    this.#finalizing = true;
    const failures: TeardownFailure[] = [];
    if (this.#hostsOthers) {
      const others = liveModules().reverse();
      markTeardownPending(others);
      for (const other of others) {
        if (other === this) continue;
        try {
          other.finalizeFor(reason, exitCode);
        } catch (cause) {
          failures.push({ label: `finalize of module ${other.name} before ${this.name}`, cause });
        }
      }
    }
    this.#finalized = true;
    moduleSet().modules.delete(this);
    process.removeListener('exit', this.#onExit);
    const { released, failures: releaseFailures } = this.registry.releaseAll('finalize()');
    failures.push(...releaseFailures);
    const native = this.#loadedNative();
    if (native !== undefined) {
      try {
        native.finalize(reason, released);
      } catch (cause) {
        failures.push({ label: `native finalize of module ${this.name}`, cause });
      }
    } else {
      traceFinalize(this.name, reason, released, 0);
    }
    if (this.#onFinalized !== undefined) {
      try {
        this.#onFinalized(reason, exitCode);
      } catch (cause) {
        failures.push({ label: `onFinalized of module ${this.name}`, cause });
      }
    }
    if (failures.length > 0) throw new TeardownError(failures, `finalize() of module ${this.name}`);
  }

  /** Throws {@link ReleasedError} when the module was finalized: call before creating an object. */
  assertLive(what: string): void {
    if (this.#finalized) {
      throw new ReleasedError(
        `cannot create ${what}: module ${this.name} was finalized by finalize() and no new work may start`,
        { module: this.name, className: what, releasedBy: 'finalize()' },
      );
    }
  }

  // An exit listener must not throw: report and go on, so the process keeps
  // the exit status it was ending with.
  #finalizeAtExit(reason: FinalizeReason, exitCode?: number): void {
    try {
      this.finalizeFor(reason, exitCode);
    } catch (error) {
      traceLine(`peclet:${this.name} ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

/**
 * What a package calls once at load to get its module object. It wires the
 * `exit` listener of the current thread and passes the CPU budget to the
 * addon; it installs no signal handler and starts no thread.
 *
 * @example
 * ```ts
 * const native = loadAddon();               // exports of peclet::install()
 * const mod = defineModule({ name: 'voro', native });
 * export const finalize = () => mod.finalize();
 * export const executionSpace = mod.executionSpace;
 * ```
 */
export function defineModule(options: ModuleOptions): PecletModule {
  return new PecletModule(options);
}
