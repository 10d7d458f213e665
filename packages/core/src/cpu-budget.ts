import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { describeValue, fail, readInteger, readOptions } from './args.js';

/** Where a CPU budget came from. */
export type CpuBudgetSource = 'PECLET_NUM_THREADS' | 'OMP_NUM_THREADS' | 'cgroup-v2' | 'cgroup-v1' | 'affinity';

/** A CPU budget and how it was found. */
export interface CpuBudget {
  /** Threads the process may really use (at least 1). */
  readonly threads: number;
  /** What decided it. */
  readonly source: CpuBudgetSource;
  /** CPUs in the affinity mask. */
  readonly affinity: number;
  /** CPUs allowed by the cgroup quota (quota / period, may be fractional), or undefined when unlimited. */
  readonly quota: number | undefined;
}

/** Inputs of {@link cpuBudget}, for tests and unusual hosts. */
export interface CpuBudgetOptions {
  /** Environment to read overrides from (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** File-system root under which `/proc/self/cgroup` and `/sys/fs/cgroup` are read (default `/`). */
  readonly root?: string;
  /** CPUs in the affinity mask (default `os.availableParallelism()`, which honours affinity). */
  readonly affinity?: number;
}

/**
 * The number of threads this process may really use: `PECLET_NUM_THREADS`,
 * else `OMP_NUM_THREADS`, else the smaller of the CPU affinity mask and the
 * cgroup CPU quota (v2 `cpu.max`, or v1 `cpu.cfs_quota_us / cpu.cfs_period_us`,
 * the tightest along the cgroup's ancestors), rounded up.
 *
 * @example
 * ```ts
 * import { cpuBudget } from '@peclet/core';
 * cpuBudget(); // 2 in a container limited to 2 CPUs on a 64-core host
 * ```
 */
export function cpuBudget(options: CpuBudgetOptions = {}): number {
  return cpuBudgetDetails(options).threads;
}

/** {@link cpuBudget} with the reasoning: source, affinity and quota. */
export function cpuBudgetDetails(options: CpuBudgetOptions = {}): CpuBudget {
  const o = readOptions(options, 'options', ['env', 'root', 'affinity'], { optional: true });
  const env = o.env === undefined ? process.env : readEnv(o.env);
  const root = o.root === undefined ? '/' : o.root;
  if (typeof root !== 'string' || root === '')
    fail('type', 'options.root', `must be a directory path, got ${describeValue(root)}`);
  const affinity =
    o.affinity === undefined
      ? Math.max(1, availableParallelism())
      : readInteger(o.affinity, 'options.affinity', { min: 1, max: 1 << 20 });
  const quota = cgroupQuota(root);
  for (const name of ['PECLET_NUM_THREADS', 'OMP_NUM_THREADS'] as const) {
    const n = parseThreads(env[name]);
    if (n !== undefined) return { threads: n, source: name, affinity, quota: quota?.cpus };
  }
  if (quota !== undefined && Math.ceil(quota.cpus) < affinity) {
    return { threads: Math.max(1, Math.ceil(quota.cpus)), source: quota.source, affinity, quota: quota.cpus };
  }
  return { threads: affinity, source: 'affinity', affinity, quota: quota?.cpus };
}

// An environment object read once: only the two variables are looked at.
function readEnv(value: unknown): Record<string, string | undefined> {
  const o = readOptions(value, 'options.env', ['PECLET_NUM_THREADS', 'OMP_NUM_THREADS'], { open: true });
  const out: Record<string, string | undefined> = {};
  for (const name of ['PECLET_NUM_THREADS', 'OMP_NUM_THREADS'] as const) {
    const v = o[name];
    out[name] = typeof v === 'string' ? v : undefined;
  }
  return out;
}

// OMP_NUM_THREADS may be a list ("4,2" for nested levels): the first counts.
function parseThreads(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const first = value.split(',')[0]?.trim() ?? '';
  if (!/^\d+$/.test(first)) return undefined;
  const n = Number.parseInt(first, 10);
  return n >= 1 ? Math.min(n, 4096) : undefined;
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

interface Quota {
  cpus: number;
  source: 'cgroup-v2' | 'cgroup-v1';
}

function cgroupQuota(root: string): Quota | undefined {
  const membership = read(join(root, 'proc/self/cgroup'));
  if (membership === undefined) return undefined;
  let best: number | undefined;
  let source: Quota['source'] = 'cgroup-v2';
  for (const line of membership.split('\n')) {
    const [, controllers, path] = line.match(/^\d+:([^:]*):(.*)$/) ?? [];
    if (controllers === undefined || path === undefined) continue;
    if (controllers === '') {
      const v2 = walk(path, (dir) => v2Quota(join(root, 'sys/fs/cgroup', dir)));
      if (v2 !== undefined && (best === undefined || v2 < best)) {
        best = v2;
        source = 'cgroup-v2';
      }
    } else if (controllers.split(',').includes('cpu')) {
      for (const mount of [controllers, 'cpu', 'cpu,cpuacct']) {
        const base = join(root, 'sys/fs/cgroup', mount);
        if (
          read(join(base, 'cpu.cfs_period_us')) === undefined &&
          read(join(base, path, 'cpu.cfs_period_us')) === undefined
        )
          continue;
        const v1 = walk(path, (dir) => v1Quota(join(base, dir)));
        if (v1 !== undefined && (best === undefined || v1 < best)) {
          best = v1;
          source = 'cgroup-v1';
        }
        break;
      }
    }
  }
  return best === undefined ? undefined : { cpus: best, source };
}

// The tightest quota from the cgroup up to the root; inside a container the
// cgroup's own path is often not mounted, so the mount root is tried too.
function walk(path: string, quotaAt: (dir: string) => number | undefined): number | undefined {
  let best: number | undefined;
  const parts = path.split('/').filter((p) => p !== '' && p !== '..');
  for (let i = parts.length; i >= 0; i--) {
    const q = quotaAt(`/${parts.slice(0, i).join('/')}`);
    if (q !== undefined && (best === undefined || q < best)) best = q;
  }
  return best;
}

function v2Quota(dir: string): number | undefined {
  const text = read(join(dir, 'cpu.max'));
  if (text === undefined) return undefined;
  const [quota, period] = text.trim().split(/\s+/);
  if (quota === undefined || quota === 'max') return undefined;
  const q = Number(quota);
  const p = Number(period ?? '100000');
  return q > 0 && p > 0 ? q / p : undefined;
}

function v1Quota(dir: string): number | undefined {
  const quota = read(join(dir, 'cpu.cfs_quota_us'));
  const period = read(join(dir, 'cpu.cfs_period_us'));
  if (quota === undefined || period === undefined) return undefined;
  const q = Number(quota.trim());
  const p = Number(period.trim());
  return q > 0 && p > 0 ? q / p : undefined;
}
