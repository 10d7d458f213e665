/**
 * Progress bars on stderr, drawn only when stderr is a terminal (`process.stderr.isTTY`) and not
 * turned off by `--no-progress`: a script that pipes or redirects stderr sees nothing there but
 * errors.
 */
import cliProgress from 'cli-progress';

/** A bar, or nothing when progress is off. */
export interface Bar {
  /** `value` of the bar's total, and a short text after it. */
  update(value: number, detail: string): void;
  /** Draws the final state and ends the line. Idempotent. */
  stop(): void;
}

const live = new Set<cliProgress.SingleBar>();
const none: Bar = { update: () => {}, stop: () => {} };

/**
 * Starts a bar of `total` steps labelled `label` on stderr, or a bar that draws nothing when
 * `enabled` is false.
 *
 * @example
 * ```ts
 * const bar = startBar(true, 'pnm', 5);
 * bar.update(2, 'watershed');
 * bar.stop();
 * ```
 */
export function startBar(enabled: boolean, label: string, total: number): Bar {
  if (!enabled) return none;
  const bar = new cliProgress.SingleBar(
    {
      format: `${label.padEnd(5)} {bar} {percentage}% | {detail}`,
      stream: process.stderr,
      // The cursor stays visible: a process that dies by a signal cannot give it back.
      hideCursor: false,
      barsize: 30,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0, { detail: '' });
  live.add(bar);
  return {
    update: (value, detail) => bar.update(Math.min(total, Math.max(0, value)), { detail }),
    stop: () => {
      if (!live.delete(bar)) return;
      bar.stop();
    },
  };
}

/**
 * Seconds as a person reads them: `42 s`, `3 min 05 s`, `1 h 20 min`.
 *
 * @example
 * ```ts
 * formatDuration(185); // '3 min 05 s'
 * ```
 */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '?';
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}

/** Stops every bar (on Ctrl-C, so the shell's prompt starts on a line of its own). */
export function stopBars(): void {
  for (const bar of live) bar.stop();
  live.clear();
}
