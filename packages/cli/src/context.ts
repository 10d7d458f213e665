/** What a command may do besides computing: print its result, draw progress, note what it does. */
export interface Context {
  /** Writes to stdout (the result: a summary, or one JSON object). */
  readonly print: (text: string) => void;
  /** Whether progress bars are drawn on stderr. */
  readonly progress: boolean;
  /** Under `PECLET_DEBUG=1`, one `peclet: debug: <line>` on stderr; otherwise nothing. */
  readonly debug: (line: string) => void;
  /**
   * Writes a `peclet: warning: <line>` or `peclet: note: <line>` on stderr (default: to
   * process.stderr). Commands call it unless `--quiet`.
   */
  readonly warn?: (line: string, kind: 'warning' | 'note') => void;
}

/**
 * What a command found suspicious in its input or its result: collected for `--json`'s
 * `warnings`, and printed on stderr as they come unless `quiet`.
 */
export class Warnings {
  readonly list: string[] = [];
  readonly #context: Context;
  readonly #quiet: boolean;

  constructor(context: Context, quiet: boolean | undefined) {
    this.#context = context;
    this.#quiet = quiet === true;
  }

  /** A likely mistake: printed as a warning, and listed. */
  add(text: string | undefined): void {
    if (text === undefined) return;
    this.list.push(text);
    this.#say(text, 'warning');
  }

  /** Something the user should know about how the input was read (not listed in `warnings`). */
  note(text: string): void {
    this.#say(text, 'note');
  }

  #say(text: string, kind: 'warning' | 'note'): void {
    if (this.#quiet) return;
    const warn = this.#context.warn ?? ((line, k) => process.stderr.write(`peclet: ${k}: ${line}\n`));
    warn(text, kind);
  }
}

/** Whether an environment flag such as `PECLET_DEBUG` is on (set, not empty, not `0`). */
export function envFlag(name: string): boolean {
  const v = process.env[name];
  return v !== undefined && v !== '' && v !== '0';
}
