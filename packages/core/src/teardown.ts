import { TeardownError, type TeardownFailure } from './errors.js';

/** Something a {@link Teardown} can release: a label for errors, and the release itself. */
export interface Resource<Cx = void> {
  readonly label: string;
  release(cx: Cx): void;
}

/**
 * Ordered, fallible release. Resources are released newest first; every
 * release is attempted even when an earlier one throws; failures are then
 * thrown together as one {@link TeardownError}. Releasing twice does nothing.
 *
 * @example
 * ```ts
 * using teardown = new Teardown();
 * const file = teardown.push({ label: 'output file', release: () => fd.close() });
 * teardown.push({ label: 'worker', release: () => worker.terminate() });
 * // leaving the block releases the worker, then the file
 * ```
 */
export class Teardown<Cx = void> implements Disposable {
  #resources: Resource<Cx>[] = [];
  #released = false;
  readonly #context: Cx | undefined;

  /** @param context passed to each release when the teardown is disposed by `using`. */
  constructor(context?: Cx) {
    this.#context = context;
  }

  /** True once {@link releaseAll} ran. */
  get released(): boolean {
    return this.#released;
  }

  /** Number of resources waiting to be released. */
  get size(): number {
    return this.#resources.length;
  }

  /**
   * Adds a resource and returns it. After release, pushing releases the
   * resource at once (there is no later teardown to do it) and rethrows its failure.
   */
  push<R extends Resource<Cx>>(resource: R): R {
    if (typeof resource?.release !== 'function') {
      throw new TypeError('Teardown.push(resource): resource must have a release(cx) method');
    }
    if (this.#released) {
      this.#releaseOne(resource, this.#context as Cx);
      return resource;
    }
    this.#resources.push(resource);
    return resource;
  }

  /**
   * Releases every resource, newest first, each attempted once; then throws
   * a {@link TeardownError} listing every failure. Idempotent.
   */
  releaseAll(cx: Cx): void {
    if (this.#released) return;
    this.#released = true;
    const failures: TeardownFailure[] = [];
    const resources = this.#resources;
    this.#resources = [];
    for (let i = resources.length - 1; i >= 0; i--) {
      const resource = resources[i] as Resource<Cx>;
      try {
        resource.release(cx);
      } catch (cause) {
        failures.push({ label: resource.label, cause });
      }
    }
    if (failures.length > 0) throw new TeardownError(failures);
  }

  [Symbol.dispose](): void {
    this.releaseAll(this.#context as Cx);
  }

  #releaseOne(resource: Resource<Cx>, cx: Cx): void {
    try {
      resource.release(cx);
    } catch (cause) {
      throw new TeardownError([{ label: resource.label, cause }]);
    }
  }
}
