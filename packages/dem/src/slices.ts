/**
 * An asynchronous run on the host: the steps go in slices on the module's thread pool, each a
 * tracked native work item, with progress reported on the JS thread between slices.
 * @internal
 */
import type { NativeAdvance, NativeSimulation } from './native.js';
import { cancelledError } from './outcome.js';
import type { Progress } from './types.js';

/** One asynchronous run or settling, as `run()` and `depositAsync()` ask for it. */
export interface SliceRequest {
  /** The public method, for messages. */
  readonly what: string;
  /** Steps to take at most. */
  readonly total: number;
  /** Settled below this mean kinetic energy per sphere (J); -1: never. */
  readonly threshold: number;
  /** Steps between kinetic-energy checks; 0: none. */
  readonly checkInterval: number;
  readonly signal: AbortSignal | undefined;
  readonly onProgress: ((progress: Progress) => void) | undefined;
  /** Target wall time of one slice (ms), finite and positive. */
  readonly intervalMs: number;
  /** The cancellation error once `release()`, `finalize()` or `finalizeAsync()` stopped the simulation. */
  readonly stopped: () => Error | undefined;
  /** Whether the simulation itself was released (by `release()` or `finalize()`). */
  readonly released: () => boolean;
}

/**
 * Runs `request` on the host. Slices are sized to take about `intervalMs` each, measured as they
 * go; a deposit's are whole multiples of its check interval so settling is judged exactly as in
 * `deposit()`. Between slices the state is a whole step: the cancellation is checked there, and
 * `onProgress` is called there (an error it throws rejects the run as it is). Rejects with the
 * cancellation error when the simulation was released or its module finalized (even when the
 * kernel reported the slice as complete), else with `signal.reason` once the signal aborted; a
 * slice the kernel reports as cancelled never resolves.
 */
export async function hostSlices(native: NativeSimulation, request: SliceRequest): Promise<NativeAdvance> {
  const { what, total, threshold, checkInterval, signal, onProgress, intervalMs, stopped } = request;
  const interruption = (): unknown => stopped() ?? (signal?.aborted ? signal.reason : undefined);
  let cancel: (() => void) | undefined;
  const onAbort = () => cancel?.();
  signal?.addEventListener('abort', onAbort, { once: true });
  let done = 0;
  let clampedSpheres = 0;
  let firstClampedSphere = -1;
  let last: NativeAdvance | undefined;
  let slice = Math.max(1, Math.min(total, checkInterval > 0 ? checkInterval : 10));
  try {
    const before = interruption();
    if (before !== undefined) throw before;
    for (;;) {
      const n = Math.min(slice, total - done);
      const started = performance.now();
      let outcome: NativeAdvance;
      try {
        const work = native.advanceAsync(n, threshold, checkInterval);
        cancel = work.cancel;
        outcome = await work.promise;
      } catch (error) {
        throw interruption() ?? error;
      } finally {
        cancel = undefined;
      }
      // release() and finalize() stop the kernel at a whole step; the slice may still report
      // 'done' (it ended first) or 'cancelled': either way the run did not complete.
      const after = interruption();
      if (after !== undefined) throw after;
      if (outcome.status === 'cancelled') throw cancelledError(what, 'kernel');
      done += outcome.steps;
      clampedSpheres += outcome.clampedSpheres;
      if (firstClampedSphere < 0) firstClampedSphere = outcome.firstClampedSphere;
      last = outcome;
      // A diverged slice was rolled back; a refused one ('invalid') changed nothing.
      if (outcome.status === 'diverged' || outcome.status === 'invalid') break;
      onProgress?.({
        steps: done,
        totalSteps: total,
        time: native.time,
        kineticEnergyPerSphere: outcome.kineticEnergyPerSphere,
      });
      // release(), finalize() or an abort from inside onProgress, even after the last slice.
      const during = interruption();
      if (during !== undefined) throw during;
      if (outcome.settled || done >= total) break;
      // Guard against spinning on slices that make no progress.
      if (outcome.steps < n)
        throw new Error(`${what}: the kernel took ${outcome.steps} of ${n} steps without a reason`);
      const perStep = (performance.now() - started) / Math.max(1, outcome.steps);
      let next = Math.max(1, Math.round(intervalMs / Math.max(perStep, 1e-6)));
      if (checkInterval > 0) next = Math.max(1, Math.round(next / checkInterval)) * checkInterval;
      slice = Math.min(next, 4 * slice);
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  return { ...(last as NativeAdvance), steps: done, clampedSpheres, firstClampedSphere };
}
