import { writeSync } from 'node:fs';

/**
 * The teardown trace, shared with the C++ half. Enabled by
 * `PECLET_TEARDOWN_TRACE=1`; one line per event on stderr:
 *
 * - `peclet:<module> release <Class>#<id>`
 * - `peclet:<module> finalize reason=<explicit|exit|cleanup|signal> released=<n> live-bytes=<b>`
 */
export function traceEnabled(): boolean {
  const v = process.env.PECLET_TEARDOWN_TRACE;
  return v !== undefined && v !== '' && v !== '0';
}

/** Writes one trace line synchronously (it must survive `process.exit`). */
export function traceLine(line: string): void {
  try {
    writeSync(2, `${line}\n`);
  } catch {
    // stderr closed: the trace is best effort, teardown must go on.
  }
}

export function traceRelease(module: string, className: string, id: number): void {
  if (traceEnabled()) traceLine(`peclet:${module} release ${className}#${id}`);
}

export type FinalizeReason = 'explicit' | 'exit' | 'cleanup' | 'signal';

export function traceFinalize(module: string, reason: FinalizeReason, released: number, liveBytes: number): void {
  if (traceEnabled())
    traceLine(`peclet:${module} finalize reason=${reason} released=${released} live-bytes=${liveBytes}`);
}
