/**
 * @peclet/mpi — MPI for peclet's solvers, built against the system MPI, with MPI as a resource
 * of the teardown kernel: every other module is finalized before `MPI_Finalize`, which runs once
 * per process on every exit path (or `MPI_Abort(code)` when the process ends with a non-zero
 * status, so that the other ranks end instead of hanging).
 *
 * @example
 * ```ts
 * import { init, allreduce } from '@peclet/mpi';
 * const { rank, size } = init();
 * const total = allreduce(new Float64Array([rank]), 'sum'); // 0 + 1 + … + size − 1 on every rank
 * ```
 *
 * @packageDocumentation
 */
import { writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inspect } from 'node:util';
import { isMainThread } from 'node:worker_threads';
import {
  defineModule,
  describeValue,
  type FinalizeReason,
  fail,
  isDetached,
  lazyAddon,
  type NativeBinding,
  ReleasedError,
  readEnum,
  readInteger,
  readOptions,
} from '@peclet/core';

export { ReleasedError } from '@peclet/core';

/** The thread support asked of MPI (`MPI_THREAD_*`). */
export type ThreadLevel = 'single' | 'funneled' | 'serialized' | 'multiple';
/** A reduction of {@link allreduce}. */
export type ReduceOp = 'sum' | 'min' | 'max' | 'prod';
/** The typed arrays MPI carries (by their element type). */
export type MpiArray =
  | Float64Array
  | Float32Array
  | Int32Array
  | Uint32Array
  | Int16Array
  | Uint16Array
  | Int8Array
  | Uint8Array
  | Uint8ClampedArray
  | BigInt64Array
  | BigUint64Array;
/** What a receive got: the sender, the tag and the number of elements. */
export interface Received {
  readonly source: number;
  readonly tag: number;
  readonly count: number;
}

interface MpiBinding extends NativeBinding {
  init(level: number): number;
  state(): { initialized: boolean; finalized: boolean; threadLevel: number };
  rank(): number;
  size(): number;
  barrier(): void;
  allreduce(values: MpiArray, op: number): void;
  send(values: MpiArray, dest: number, tag: number): void;
  recv(into: MpiArray, source: number, tag: number): Received;
  sendrecv(values: MpiArray, dest: number, sendTag: number, into: MpiArray, source: number, recvTag: number): Received;
  abort(code: number): void;
  finalizeMpi(): boolean;
  readonly threadLevels: Readonly<Record<ThreadLevel, number>>;
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { version } = require('../package.json') as { version: string };

const native = lazyAddon<MpiBinding>({
  name: 'mpi',
  root,
  packageName: '@peclet/mpi',
  version,
  // No platform packages: MPI builds are not binary-compatible across implementations.
  buildCommand: `install Open MPI (Debian: apt-get install openmpi-bin libopenmpi-dev), then cd ${root} && npx node-gyp rebuild --directory native`,
});

const levels: readonly ThreadLevel[] = ['single', 'funneled', 'serialized', 'multiple'];
const ops: readonly ReduceOp[] = ['sum', 'min', 'max', 'prod'];

// What a finalize does to MPI: after every other module (hostsOthers), MPI_Finalize when the
// process ends well or on an explicit finalize(); MPI_Abort(code) when it ends with a non-zero
// status, so that mpirun ends the job instead of waiting for this rank; nothing on a signal,
// which is re-raised and ends the rank (mpirun then ends the job).
function onFinalized(reason: FinalizeReason, exitCode: number | undefined): void {
  if (!started) return;
  const state = native.state();
  if (!state.initialized || state.finalized) return;
  if (reason === 'signal' || reason === 'cleanup') return;
  const code = reason === 'exit' ? (exitCode ?? 0) : 0;
  if (code === 0) {
    native.finalizeMpi();
    return;
  }
  // Node prints an uncaught error after the exit listeners, and MPI_Abort ends the process
  // before that: print it here, as Node would, so the job's log says why this rank failed.
  if (fatal !== undefined)
    writeSync(2, `${inspect(fatal.error)}\n(uncaught ${fatal.origin}, MPI_Abort(${code}) follows)\n`);
  native.abort(code);
}

let fatal: { error: unknown; origin: string } | undefined;

/** @internal The mpi module of this thread. */
const mpiModule = defineModule({ name: 'mpi', native, executionSpace: 'host', hostsOthers: true, onFinalized });

// Set by init(): a process that never initialized MPI never opens the addon, even to finalize.
let started = false;
let worldRank = -1;
let worldSize = 0;

function live(what: string): MpiBinding {
  if (mpiModule.finalized) {
    throw new ReleasedError(`${what}: module mpi was finalized by finalize() and MPI with it`, {
      module: 'mpi',
      className: 'MPI',
      releasedBy: 'finalize()',
    });
  }
  if (worldSize === 0) throw new Error(`${what}: MPI is not initialized; call init() first`);
  return native;
}

/**
 * Initializes MPI for this process (`MPI_Init_thread`, `threadLevel` default `'serialized'`)
 * and returns this rank, the number of ranks and the thread level MPI gave. Once per process,
 * on the main thread; nothing is initialized at import.
 */
export function init(options: { threadLevel?: ThreadLevel } = {}): {
  rank: number;
  size: number;
  threadLevel: ThreadLevel;
} {
  const o = readOptions(options, 'options', ['threadLevel'], { optional: true });
  const level = readEnum(o.threadLevel, 'options.threadLevel', levels, 'serialized');
  if (!isMainThread) throw new Error('init(): MPI belongs to the process: initialize it on the main thread');
  mpiModule.assertLive('MPI');
  if (worldSize !== 0) throw new Error('init(): MPI is already initialized in this process');
  const provided = native.init(native.threadLevels[level]);
  started = true;
  process.on('uncaughtExceptionMonitor', (error, origin) => {
    fatal = { error, origin };
  });
  worldRank = native.rank();
  worldSize = native.size();
  const threadLevel = levels.find((l) => native.threadLevels[l] === provided) ?? 'single';
  return { rank: worldRank, size: worldSize, threadLevel };
}

/** True once {@link init} ran in this process (and until {@link finalize}). */
export function initialized(): boolean {
  return worldSize !== 0 && !mpiModule.finalized;
}

/** This process's rank in `MPI_COMM_WORLD`. */
export function rank(): number {
  live('rank()');
  return worldRank;
}

/** The number of ranks in `MPI_COMM_WORLD`. */
export function size(): number {
  live('size()');
  return worldSize;
}

/** Waits until every rank called it (`MPI_Barrier`). */
export function barrier(): void {
  live('barrier()').barrier();
}

function readArray(value: unknown, argument: string): MpiArray {
  if (!ArrayBuffer.isView(value) || value instanceof DataView) {
    fail('type', argument, `must be a typed array, got ${describeValue(value)}`);
  }
  if (isDetached(value)) fail('type', argument, 'is detached');
  return value as MpiArray;
}

function readRank(value: unknown, argument: string, { any = false } = {}): number {
  if (any && value === undefined) return -1;
  return readInteger(value, argument, { min: 0, max: worldSize - 1 });
}

// MPI guarantees tags up to 32767 (MPI_TAG_UB is at least that).
const readTag = (value: unknown, argument: string, fallback?: number) =>
  readInteger(value, argument, { min: 0, max: 32767, ...(fallback === undefined ? {} : { fallback }) });

/**
 * Reduces `values` element by element over every rank (`MPI_Allreduce`, in place) and returns
 * it: every rank gets the same result. Every rank must pass the same length and type.
 */
export function allreduce<T extends MpiArray>(values: T, op: ReduceOp = 'sum'): T {
  const mpi = live('allreduce()');
  const array = readArray(values, 'values');
  const which = readEnum(op, 'op', ops);
  mpi.allreduce(array, ops.indexOf(which));
  return values;
}

/** Sends `values` to rank `dest` (`MPI_Send`, blocking until the buffer may be reused). */
export function send(values: MpiArray, dest: number, options: { tag?: number } = {}): void {
  const mpi = live('send()');
  const array = readArray(values, 'values');
  const to = readRank(dest, 'dest');
  const o = readOptions(options, 'options', ['tag'], { optional: true });
  mpi.send(array, to, readTag(o.tag, 'options.tag', 0));
}

/**
 * Receives into `into` from rank `source` (any rank when undefined) with `options.tag` (any
 * when undefined), blocking until the message came (`MPI_Recv`). A message longer than `into`
 * is an error; a shorter one fills its start (`count` says how much).
 */
export function recv(into: MpiArray, source?: number, options: { tag?: number } = {}): Received {
  const mpi = live('recv()');
  const array = readArray(into, 'into');
  const from = readRank(source, 'source', { any: true });
  const o = readOptions(options, 'options', ['tag'], { optional: true });
  return mpi.recv(array, from, o.tag === undefined ? -1 : readTag(o.tag, 'options.tag'));
}

function overlaps(a: ArrayBufferView, b: ArrayBufferView): boolean {
  return (
    a.buffer === b.buffer && a.byteOffset < b.byteOffset + b.byteLength && b.byteOffset < a.byteOffset + a.byteLength
  );
}

/**
 * Sends `values` to `dest` and receives into `into` from `source` in one call
 * (`MPI_Sendrecv`): the halo exchange between neighbouring ranks, free of the deadlock that a
 * send then a receive on both sides can cause. `values` and `into` must not overlap.
 */
export function sendrecv(
  values: MpiArray,
  dest: number,
  into: MpiArray,
  source: number,
  options: { sendTag?: number; recvTag?: number } = {},
): Received {
  const mpi = live('sendrecv()');
  const out = readArray(values, 'values');
  const to = readRank(dest, 'dest');
  const inArray = readArray(into, 'into');
  const from = readRank(source, 'source');
  const o = readOptions(options, 'options', ['sendTag', 'recvTag'], { optional: true });
  if (overlaps(out, inArray)) fail('range', 'into', 'overlaps values: MPI needs separate send and receive buffers');
  return mpi.sendrecv(
    out,
    to,
    readTag(o.sendTag, 'options.sendTag', 0),
    inArray,
    from,
    readTag(o.recvTag, 'options.recvTag', 0),
  );
}

/**
 * Ends every rank of the job with `code` (`MPI_Abort`) after finalizing every module of this
 * process: what to call when one rank cannot go on and the others would wait for it forever.
 */
export function abort(code = 1): never {
  const status = readInteger(code, 'code', { min: 1, max: 255 });
  if (worldSize === 0 || mpiModule.finalized) process.exit(status);
  // Releases every other module, then MPI_Abort(status) (onFinalized with a non-zero status).
  mpiModule.finalizeFor('exit', status);
  process.exit(status);
}

/**
 * Finalizes every other peclet module of this thread (newest first), then MPI
 * (`MPI_Finalize`), once. Afterwards every call of this package throws `ReleasedError`, and so
 * does any use of the modules finalized with it. Idempotent. At the end of the process it runs
 * by itself: `MPI_Finalize` when the status is 0, `MPI_Abort(status)` otherwise.
 */
export function finalize(): void {
  mpiModule.finalize();
}

/** Where MPI calls run: `host`. */
export const executionSpace: string = mpiModule.executionSpace;
