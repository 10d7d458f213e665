import { liveModules } from './lifecycle.js';
import { traceLine } from './trace.js';

/** Options of {@link handleSignals}. */
export interface HandleSignalsOptions {
  /** Signals to handle (default SIGINT, SIGTERM, SIGHUP). */
  readonly signals?: readonly NodeJS.Signals[];
}

/** Removes the handlers installed by {@link handleSignals}. */
export interface SignalHandling extends Disposable {
  uninstall(): void;
}

/**
 * Opt-in signal handling (importing a package never installs any): on
 * SIGINT, SIGTERM or SIGHUP every peclet module of this thread is finalized,
 * then the signal is raised again with its default action, so the process
 * ends with the status the signal would have given it.
 *
 * @example
 * ```ts
 * import { handleSignals } from '@peclet/core';
 * handleSignals(); // Ctrl-C now releases native state before the process dies
 * ```
 */
export function handleSignals(options: HandleSignalsOptions = {}): SignalHandling {
  const signals = options.signals ?? (['SIGINT', 'SIGTERM', 'SIGHUP'] as const);
  const handlers = new Map<NodeJS.Signals, () => void>();
  const uninstall = () => {
    for (const [signal, handler] of handlers) process.removeListener(signal, handler);
    handlers.clear();
  };
  for (const signal of signals) {
    const handler = () => {
      for (const mod of liveModules().reverse()) {
        try {
          mod.finalizeFor('signal');
        } catch (error) {
          traceLine(`peclet:${mod.name} ${error instanceof Error ? error.message : String(error)}`);
        }
      }
      uninstall();
      // With no listener left Node restores the default action; raising the
      // signal again ends the process the way the signal would have.
      process.kill(process.pid, signal);
    };
    handlers.set(signal, handler);
    process.on(signal, handler);
  }
  return { uninstall, [Symbol.dispose]: uninstall };
}
