const releasedBrand = Symbol.for('peclet.ReleasedError');

/** Details of a {@link ReleasedError}. */
export interface ReleasedErrorDetails {
  /** The module the object belongs to (`voro`, `dem`, ...). */
  readonly module: string;
  /** The class of the released object. */
  readonly className: string;
  /** What released it: `release()` or `finalize()`. */
  readonly releasedBy: string;
}

/**
 * Thrown by every method of an object whose native state was released, and
 * by constructors once their module was finalized. It is a `TypeError`: the
 * object is no longer of a usable kind.
 *
 * @example
 * ```ts
 * mesh.release();
 * try { mesh.volume(); } catch (e) { e instanceof ReleasedError; // true }
 * ```
 */
export class ReleasedError extends TypeError {
  readonly module: string;
  readonly className: string;
  readonly releasedBy: string;

  constructor(message: string, details: ReleasedErrorDetails) {
    super(message);
    this.name = 'ReleasedError';
    this.module = details.module;
    this.className = details.className;
    this.releasedBy = details.releasedBy;
    Object.defineProperty(this, releasedBrand, { value: true });
  }

  // Branded so that errors made by another copy of this package (its CJS
  // and ESM builds, or a native addon given either class) still match.
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && releasedBrand in value;
  }
}

/** One failed release inside a {@link TeardownError}. */
export interface TeardownFailure {
  readonly label: string;
  readonly cause: unknown;
}

/**
 * Every release of a teardown was attempted; these failed. `errors` holds
 * the causes in release order and `failures` pairs each with its label.
 */
export class TeardownError extends AggregateError {
  readonly failures: readonly TeardownFailure[];

  constructor(failures: readonly TeardownFailure[], context = 'teardown') {
    const lines = failures.map((f) => `  ${f.label}: ${describe(f.cause)}`);
    super(
      failures.map((f) => f.cause),
      `${context}: ${failures.length} release${failures.length === 1 ? '' : 's'} failed\n${lines.join('\n')}`,
    );
    this.name = 'TeardownError';
    this.failures = failures;
  }
}

function describe(cause: unknown): string {
  if (cause instanceof Error) return `${cause.name}: ${cause.message}`;
  return String(cause);
}

/** An `Error` whose code says work was stopped by a release or a finalize. */
export type CancelledError = Error & { readonly code: 'PECLET_CANCELLED' };

/**
 * The error a run, a deposit or an extraction rejects with when `release()`, `finalize()` or
 * `finalizeAsync()` stopped it: an `Error` with code `PECLET_CANCELLED` and `message`.
 *
 * @example
 * ```ts
 * throw cancelledError('Lattice#3.run(): cancelled by release()');
 * ```
 */
export function cancelledError(message: string): CancelledError {
  return Object.assign(new Error(message), { code: 'PECLET_CANCELLED' as const });
}
