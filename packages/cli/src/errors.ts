/** Exit statuses of the `peclet` command, documented in the README and in `peclet --help`. */
export const ExitStatus = {
  /** The command did what it was asked. */
  success: 0,
  /** A computation or a file failed: an unreadable or corrupt file, a sample no fluid crosses, out of memory. */
  failure: 1,
  /** A bad command line: unknown command or flag, a missing or malformed value, a value the computation refuses. */
  usage: 2,
  /**
   * Ctrl-C: the process finalizes every peclet module, then dies by SIGINT itself, which a shell
   * reports as 128 + 2. (SIGTERM gives 143, SIGHUP 129.) This number is never passed to `exit()`.
   */
  interrupted: 130,
} as const;

/**
 * A bad command line found by the command itself: a malformed flag value, a flag that does not
 * apply, a missing required flag. Its message names the flag.
 *
 * @example
 * ```ts
 * throw new UsageError('--shape must be three positive integers, got "2,x"', 'permeability');
 * ```
 */
export class UsageError extends Error {
  /** The command whose `--help` the message points to, or undefined for the program. */
  readonly command: string | undefined;
  constructor(message: string, command?: string) {
    super(message);
    this.name = 'UsageError';
    this.command = command;
  }
}

/** Package argument names → the flag that set them, for one call. */
export type FlagMap = Readonly<Record<string, string>>;

/**
 * Runs `call`; a TypeError or RangeError from a peclet package whose `argument` one of `flags`
 * set becomes a {@link UsageError} naming the flag (a bad flag value is a usage error, exit 2,
 * even when only the package can tell). Other errors pass through.
 *
 * @example
 * ```ts
 * await withFlags({ tolerance: '--tolerance' }, 'permeability', () => permeability(image, { tolerance }));
 * ```
 */
export async function withFlags<T>(flags: FlagMap, command: string, call: () => Promise<T> | T): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw asUsageError(error, flags, command) ?? error;
  }
}

function asUsageError(error: unknown, flags: FlagMap, command: string): UsageError | undefined {
  if (!(error instanceof TypeError || error instanceof RangeError)) return undefined;
  // Out of memory is the machine's limit, not a malformed flag.
  if ((error as { code?: unknown }).code === 'PECLET_OUT_OF_MEMORY') return undefined;
  const argument = (error as { argument?: unknown }).argument;
  if (typeof argument !== 'string') return undefined;
  // `image.voxelSize` and `voxelSize` are both the --voxel-size flag.
  const flag = flags[argument] ?? flags[argument.replace(/^(image|options)\./, '')];
  if (flag === undefined) return undefined;
  // The package's message starts with the argument's name: say the flag instead.
  const message = error.message.startsWith(argument)
    ? `${flag}${error.message.slice(argument.length)}`
    : `${flag}: ${error.message}`;
  const usage = new UsageError(message, command);
  usage.cause = error;
  return usage;
}

/** File system error codes worth a plain sentence. */
const systemErrors: Readonly<Record<string, string>> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'is a directory',
  ENOTDIR: 'a component of the path is not a directory',
  ENOSPC: 'no space left on device',
  EROFS: 'read-only file system',
};

/** The one line printed after `peclet: ` for an error. */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const { code, path } = error as { code?: unknown; path?: unknown };
    if (typeof code === 'string' && typeof path === 'string' && code in systemErrors) {
      return `${path}: ${systemErrors[code]}`;
    }
    return error.message;
  }
  return String(error);
}
