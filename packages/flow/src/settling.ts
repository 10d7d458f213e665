/**
 * When a quantity that settles towards a steady value counts as settled.
 * @internal
 */

/**
 * Follows one quantity from check to check: its relative change (`residual`) and that change
 * summed over the checks to come if it keeps shrinking as it did over the last two (a geometric
 * series, as in Aitken's extrapolation). A slow mode changes the flow a little per check for
 * many checks, so a small change alone does not mean the flow has settled.
 */
export class Settling {
  /** Relative change over the last check (NaN before the second value). */
  residual = Number.NaN;
  #previous: number | undefined;
  #change: number | undefined;
  #remaining = Number.POSITIVE_INFINITY;
  /** The last change over the one before (NaN until two changes are known). */
  #ratio = Number.NaN;

  update(value: number): void {
    const previous = this.#previous;
    this.#previous = value;
    if (previous === undefined) return;
    const change = value - previous;
    this.residual = value === 0 ? (previous === 0 ? 0 : 1) : Math.abs(change) / Math.abs(value);
    const before = this.#change;
    this.#change = change;
    this.#ratio = before === undefined || before === 0 ? Number.NaN : change / before;
    if (before === undefined) this.#remaining = Number.POSITIVE_INFINITY;
    else if (this.residual === 0 || change === 0) this.#remaining = 0;
    else if (before === 0) this.#remaining = Number.POSITIVE_INFINITY;
    else {
      const ratio = change / before;
      this.#remaining = ratio >= 1 ? Number.POSITIVE_INFINITY : ratio > 0 ? this.residual / (1 - ratio) : this.residual;
    }
  }

  /**
   * Checks still needed before {@link settled} holds if the change keeps shrinking by its last
   * ratio: 0 when settled, Infinity when it is not shrinking or not known yet (fewer than three
   * values).
   */
  checksToSettle(tolerance: number): number {
    if (this.settled(tolerance)) return 0;
    const q = Math.abs(this.#ratio);
    if (!(q > 0 && q < 1) || !(tolerance > 0)) return Number.POSITIVE_INFINITY;
    // Both the change and the sum still to come shrink by q per check.
    const worst = Math.max(this.residual, this.#remaining);
    return Math.max(1, Math.ceil(Math.log(tolerance / worst) / Math.log(q)));
  }

  /** Both the last change and the change still to come (relative) are below `tolerance`. */
  settled(tolerance: number): boolean {
    return tolerance > 0 && this.residual < tolerance && this.#remaining < tolerance;
  }
}

/**
 * The step a run is projected to settle at: `checksLeft` more checks of `interval` steps after
 * `steps`, at most `maxSteps`; NaN when no estimate (`checksLeft` infinite).
 * @internal
 */
export function projectSteps(steps: number, checksLeft: number, interval: number, maxSteps: number): number {
  return Number.isFinite(checksLeft) ? Math.min(maxSteps, steps + checksLeft * interval) : Number.NaN;
}
