/** What a command may do besides computing: print its result, draw progress, note what it does. */
export interface Context {
  /** Writes to stdout (the result: a summary, or one JSON object). */
  readonly print: (text: string) => void;
  /** Whether progress bars are drawn on stderr. */
  readonly progress: boolean;
  /** Under `PECLET_DEBUG=1`, one `peclet: debug: <line>` on stderr; otherwise nothing. */
  readonly debug: (line: string) => void;
}

/** Whether an environment flag such as `PECLET_DEBUG` is on (set, not empty, not `0`). */
export function envFlag(name: string): boolean {
  const v = process.env[name];
  return v !== undefined && v !== '' && v !== '0';
}
