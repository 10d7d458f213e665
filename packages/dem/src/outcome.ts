/**
 * What a step outcome means for the caller: the report, or the error it turns into (a diverged
 * state, a sphere escaping with `escape: 'throw'`, a cancellation).
 * @internal
 */
import { cancelledError as cancelled, fail } from '@peclet/core';
import type { NativeAdvance } from './native.js';
import type { StepReport } from './types.js';

/** Why a run stopped before its end without an abort signal. */
export type CancelCause = 'release' | 'finalize' | 'finalizing' | 'kernel';

/**
 * The error a run, a deposit or a sync rejects with when `release()`, `finalize()` or
 * `finalizeAsync()` stopped it: an `Error` with code `PECLET_CANCELLED`.
 */
export function cancelledError(what: string, cause: CancelCause): Error {
  const why =
    cause === 'finalize'
      ? 'cancelled: module dem was finalized by finalize()'
      : cause === 'finalizing'
        ? 'cancelled: module dem is finalizing (finalizeAsync())'
        : cause === 'release'
          ? 'cancelled: the simulation was released by release()'
          : 'cancelled';
  return cancelled(`${what} ${why}`);
}

/** The time step figures a divergence message quotes. */
export interface TimestepFigures {
  readonly timestep: number;
  readonly stabilityLimit: number;
}

/**
 * The report of an outcome, or its error: `cancelled` is a `PECLET_CANCELLED` error (never a
 * success), `diverged` a RangeError (argument `timestep` when the kernel's diagnosis blames the
 * time step, else `positions` with the sphere), a clamped sphere with `escape: 'throw'` a
 * RangeError naming `positions` and the sphere.
 */
export function checkOutcome(
  outcome: NativeAdvance,
  what: string,
  escapePolicy: 'clamp' | 'throw',
  timestep: () => TimestepFigures,
): StepReport {
  if (outcome.status === 'cancelled') throw cancelledError(what, 'kernel');
  if (outcome.status === 'invalid') {
    fail('range', outcome.argument ?? 'externalForces', `${what}: ${outcome.message}`, outcome.index ?? -1);
  }
  if (outcome.status === 'diverged') {
    const diagnosis = outcome.diagnosis;
    if (typeof diagnosis === 'string' && diagnosis.length > 0) {
      // The kernel blames the time step as "the time step <dt> s ..."; a deep overlap or a
      // speed too high for the time step blames the state (the sphere's positions).
      const blamesTimestep = /\bthe time step \d/i.test(diagnosis);
      const sphere = outcome.divergedSphere ?? -1;
      fail(
        'range',
        blamesTimestep ? 'timestep' : 'positions',
        `${what}: the simulation diverged: ${diagnosis}`,
        blamesTimestep ? -1 : sphere,
      );
    }
    const { timestep: dt, stabilityLimit } = timestep();
    fail(
      'range',
      'timestep',
      `${what}: the simulation diverged (a position or velocity became NaN or infinite) after ${outcome.steps} steps; ` +
        `the time step ${dt} s is too large for these contacts (stability limit ${stabilityLimit} s)`,
    );
  }
  if (escapePolicy === 'throw' && outcome.clampedSpheres > 0) {
    fail(
      'range',
      'positions',
      `${what}: sphere ${outcome.firstClampedSphere} left the box through a face without a wall`,
      outcome.firstClampedSphere,
    );
  }
  return {
    steps: outcome.steps,
    clampedSpheres: outcome.clampedSpheres,
    firstClampedSphere: outcome.firstClampedSphere,
    meanOverlap: outcome.meanOverlap ?? 0,
    maxOverlap: outcome.maxOverlap ?? 0,
  };
}
