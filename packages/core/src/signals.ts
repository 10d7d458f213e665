import { constants } from 'node:os';
import { describeValue, fail, readOptions } from './args.js';
import { armSignals, liveModules, markTeardownPending } from './lifecycle.js';
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
 * ends with the status the signal would have given it. The script's own
 * listeners of that signal still run, once, for that delivery; then they are
 * removed so that the re-raised signal ends the process. Signals that cannot
 * be caught, fault signals and signals whose default action does not end the
 * process are a RangeError naming `options.signals`.
 *
 * @example
 * ```ts
 * import { handleSignals } from '@peclet/core';
 * handleSignals(); // Ctrl-C now releases native state before the process dies
 * ```
 */
export function handleSignals(options: HandleSignalsOptions = {}): SignalHandling {
  const o = readOptions(options, 'options', ['signals'], { optional: true });
  const signals = readSignals(o.signals);
  const handlers = new Map<NodeJS.Signals, () => void>();
  const uninstall = () => {
    if (handlers.size > 0) armSignals([]);
    for (const [signal, handler] of handlers) process.removeListener(signal, handler);
    handlers.clear();
  };
  let raised = false;
  for (const signal of signals) {
    const handler = () => {
      if (raised) return;
      raised = true;
      const modules = liveModules().reverse();
      // First, before any finalize: a libc exit() on another thread (Deno's Jupyter kernel
      // answering the shutdown_request sent right behind the interrupt) now waits, bounded,
      // for each module's finalize instead of cutting the teardown short.
      markTeardownPending(modules);
      for (const mod of modules) {
        try {
          mod.finalizeFor('signal');
        } catch (error) {
          traceLine(`peclet:${mod.name} ${error instanceof Error ? error.message : String(error)}`);
        }
      }
      uninstall();
      // Every listener of this delivery runs once (the emit has its own copy
      // of the list); then, with no listener left, Node restores the default
      // action and raising the signal again ends the process the way the
      // signal would have. A listener left installed (the script's own)
      // would catch the second delivery and keep the process alive.
      process.removeAllListeners(signal);
      queueMicrotask(() => process.kill(process.pid, signal));
    };
    handlers.set(signal, handler);
  }
  try {
    for (const [signal, handler] of handlers) process.on(signal, handler);
  } catch (error) {
    uninstall();
    throw error;
  }
  // After process.on(): the runtime's handlers are installed, and each addon chains a watch in
  // front of them (a signal that reaches the process before this thread runs its listener).
  const known = constants.signals as Record<string, number>;
  armSignals(signals.map((s) => known[s] as number));
  return { uninstall, [Symbol.dispose]: uninstall };
}

// Signals a process can catch and then die of by default: not SIGKILL/SIGSTOP
// (they cannot be caught), not the fault signals (their handlers cannot run
// JS safely), not SIGUSR1 (Node's inspector) or SIGCHLD/SIGCONT/SIGWINCH/SIGURG
// (their default action does not end the process).
const refused: Record<string, string> = {
  SIGKILL: 'cannot be caught',
  SIGSTOP: 'cannot be caught',
  SIGSEGV: 'is a fault signal, whose handler cannot run JavaScript safely',
  SIGBUS: 'is a fault signal, whose handler cannot run JavaScript safely',
  SIGFPE: 'is a fault signal, whose handler cannot run JavaScript safely',
  SIGILL: 'is a fault signal, whose handler cannot run JavaScript safely',
  SIGUSR1: 'is reserved by Node.js for its inspector',
  SIGCHLD: 'does not end the process by default',
  SIGCONT: 'does not end the process by default',
  SIGWINCH: 'does not end the process by default',
  SIGURG: 'does not end the process by default',
  SIGTSTP: 'stops rather than ends the process',
  SIGTTIN: 'stops rather than ends the process',
  SIGTTOU: 'stops rather than ends the process',
};

function readSignals(value: unknown): NodeJS.Signals[] {
  if (value === undefined) return ['SIGINT', 'SIGTERM', 'SIGHUP'];
  if (!Array.isArray(value))
    fail('type', 'options.signals', `must be an array of signal names, got ${describeValue(value)}`);
  const known = constants.signals as Record<string, number>;
  const out: NodeJS.Signals[] = [];
  const list = [...value];
  list.forEach((name, i) => {
    if (typeof name !== 'string' || !(name in known)) {
      fail(
        'type',
        'options.signals',
        `element ${i} must be a signal name such as 'SIGTERM', got ${describeValue(name)}`,
        i,
      );
    }
    const why = refused[name];
    if (why !== undefined) fail('range', 'options.signals', `${name} ${why}`, i);
    if (!out.includes(name as NodeJS.Signals)) out.push(name as NodeJS.Signals);
  });
  return out;
}
