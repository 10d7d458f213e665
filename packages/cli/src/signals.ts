/** Ctrl-C for the `peclet` executable. */
import { handleSignals } from '@peclet/core';
import { stopBars } from './progress.js';

let interrupted = false;

/**
 * Installs @peclet/core's `handleSignals()`: on SIGINT, SIGTERM or SIGHUP every peclet module is
 * finalized (runs in flight stop, native memory is freed), then the process dies by that signal,
 * so a shell sees 128 + the signal's number (130 for Ctrl-C). Beside it, a listener that stops
 * the progress bars and marks the process as interrupted: the error with which a cancelled
 * computation rejects is then not reported, the signal is.
 */
export function installSignalHandling(): void {
  handleSignals();
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      interrupted = true;
      stopBars();
    });
  }
}

/** Whether a signal arrived: the process is about to die by it. */
export function wasInterrupted(): boolean {
  return interrupted;
}
