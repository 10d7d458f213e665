import { describeValue, fail } from './args.js';
import { ReleasedError, type TeardownFailure } from './errors.js';
import { traceRelease } from './trace.js';

/**
 * An object that owns releasable state. Subclasses implement
 * {@link Releasable.releaseResources}; `release()` is idempotent, works with
 * `using`, and afterwards {@link Releasable.assertLive} throws a
 * {@link ReleasedError} naming the class and what released it.
 *
 * @example
 * ```ts
 * class Scratch extends Releasable {
 *   #buffer = new Float64Array(1024);
 *   constructor() { super(mod.registry); }
 *   sum() { this.assertLive(); return this.#buffer.reduce((a, b) => a + b, 0); }
 *   protected releaseResources() { this.#buffer = new Float64Array(0); }
 * }
 * { using s = new Scratch(); s.sum(); } // released here
 * ```
 */
export abstract class Releasable implements Disposable {
  readonly #registry: Registry;
  #releasedBy: string | undefined;
  /** Id in its module (`<Class>#<id>` in errors and the trace). */
  readonly id: number;

  constructor(registry: Registry) {
    this.#registry = registry;
    this.id = registry.add(this);
  }

  /** Class name used in errors and the trace; defaults to the constructor's name. */
  get className(): string {
    return this.constructor.name;
  }

  get released(): boolean {
    return this.#releasedBy !== undefined;
  }

  /** Drops the state this object owns. Idempotent. */
  release(): void {
    this.releaseBy('release()');
  }

  [Symbol.dispose](): void {
    this.release();
  }

  /** Throws {@link ReleasedError} if the object was released. */
  protected assertLive(): void {
    if (this.#releasedBy !== undefined) {
      throw new ReleasedError(
        `${this.className}#${this.id} of module ${this.#registry.module} was released by ${this.#releasedBy}`,
        { module: this.#registry.module, className: this.className, releasedBy: this.#releasedBy },
      );
    }
  }

  /** Frees what the object owns. Called once. */
  protected abstract releaseResources(): void;

  /** @internal Used by the registry; `by` is `release()` or `finalize()`. */
  releaseBy(by: string): void {
    if (this.#releasedBy !== undefined) return;
    this.#releasedBy = by;
    this.#registry.delete(this);
    try {
      this.releaseResources();
    } finally {
      traceRelease(this.#registry.module, this.className, this.id);
    }
  }
}

// Rounds of Registry.releaseAll before releases that create objects are given up on.
const MAX_RELEASE_ROUNDS = 100;

/** A function run after a registry's objects are released (for classes with registries of their own). */
export type ReleaseHook = () => void;

/**
 * The live releasable objects of one module in one thread. It holds them
 * weakly — registering never keeps an object alive — and releases them
 * newest first at finalize, then runs the release hooks (newest first too).
 */
export class Registry {
  readonly module: string;
  readonly #live = new Map<number, WeakRef<Releasable>>();
  readonly #hooks: { label: string; hook: ReleaseHook }[] = [];
  readonly #collected = new FinalizationRegistry<number>((id) => {
    if (this.#live.get(id)?.deref() === undefined) this.#live.delete(id);
  });
  readonly #nextId: () => number;
  #releasing = false;

  /**
   * @param module name used in errors and the trace.
   * @param nextId source of object ids; a module with an addon shares the
   *   addon's counter so ids are unique across both halves.
   */
  constructor(module: string, nextId?: () => number) {
    if (typeof module !== 'string' || module === '')
      fail('type', 'module', `must be a non-empty string, got ${describeValue(module)}`);
    if (nextId !== undefined && typeof nextId !== 'function')
      fail('type', 'nextId', `must be a function, got ${describeValue(nextId)}`);
    this.module = module;
    let counter = 0;
    this.#nextId = nextId ?? (() => ++counter);
  }

  /** Number of live objects. */
  get size(): number {
    return this.#live.size;
  }

  /** Registers an object; returns its id. */
  add(object: Releasable): number {
    const id = this.#nextId();
    if (!Number.isSafeInteger(id) || this.#live.has(id)) {
      fail(
        'range',
        'nextId',
        `returned ${describeValue(id)}, which is not a fresh integer id in module ${this.module}`,
      );
    }
    this.#live.set(id, new WeakRef(object));
    this.#collected.register(object, id, object);
    return id;
  }

  /** Forgets an object (it was released). */
  delete(object: Releasable): void {
    if (this.#live.get(object.id)?.deref() === object) this.#live.delete(object.id);
    this.#collected.unregister(object);
  }

  /** Adds a release hook; returns a function that removes it. */
  onRelease(label: string, hook: ReleaseHook): () => void {
    const entry = { label, hook };
    this.#hooks.push(entry);
    return () => {
      const i = this.#hooks.indexOf(entry);
      if (i >= 0) this.#hooks.splice(i, 1);
    };
  }

  /**
   * Releases every live object newest first, then runs the release hooks;
   * every release is attempted. Returns how many were released and what failed.
   */
  releaseAll(by = 'finalize()'): { released: number; failures: TeardownFailure[] } {
    // A release or hook that calls releaseAll() again: the outer call is already doing it.
    if (this.#releasing) return { released: 0, failures: [] };
    this.#releasing = true;
    try {
      return this.#releaseAll(by);
    } finally {
      this.#releasing = false;
    }
  }

  #releaseAll(by: string): { released: number; failures: TeardownFailure[] } {
    const failures: TeardownFailure[] = [];
    let released = 0;
    // A release may create new releasables (a class that rebuilds a scratch
    // object, say): they join the registry and are released in the next
    // round, newest first again. A release that keeps creating objects is
    // stopped after a bounded number of rounds and reported. What it left stays
    // registered: the registry does not lose track of a live object, and the
    // next releaseAll() tries again and reports again (a releaseAll() called
    // from inside a release returns its failures to that release, which may
    // drop them: the caller's own releaseAll() must still hear of it).
    for (let round = 0; this.#live.size > 0; round++) {
      if (round === MAX_RELEASE_ROUNDS) {
        const left = [...this.#live.values()].map((ref) => ref.deref()).filter((o) => o !== undefined && !o.released);
        for (const object of left as Releasable[]) {
          failures.push({
            label: `${object.className}#${object.id}`,
            cause: new Error(`releases kept creating objects for ${MAX_RELEASE_ROUNDS} rounds; this one was left live`),
          });
        }
        break;
      }
      const entries = [...this.#live];
      for (let i = entries.length - 1; i >= 0; i--) {
        const [id, ref] = entries[i] as [number, WeakRef<Releasable>];
        const object = ref.deref();
        if (object === undefined) continue;
        // An object added twice (registry.add of a live one) has two entries: each is forgotten
        // by its own id, not only by the object's — and only while the id still names this entry
        // (a release may have registered a new object under a reused id).
        const forget = () => {
          if (this.#live.get(id) === ref) this.#live.delete(id);
          this.delete(object);
        };
        if (object.released) {
          forget();
          continue;
        }
        try {
          object.releaseBy(by);
        } catch (cause) {
          failures.push({ label: `${object.className}#${object.id}`, cause });
        }
        // releaseBy() forgets it; a failed release must not bring it back next round.
        forget();
        released++;
      }
      // Collected objects left their WeakRefs behind.
      for (const [id, ref] of this.#live) if (ref.deref() === undefined) this.#live.delete(id);
    }
    for (let i = this.#hooks.length - 1; i >= 0; i--) {
      const entry = this.#hooks[i] as { label: string; hook: ReleaseHook };
      try {
        entry.hook();
      } catch (cause) {
        failures.push({ label: entry.label, cause });
      }
    }
    return { released, failures };
  }
}
