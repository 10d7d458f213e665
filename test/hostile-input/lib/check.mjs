// What the child checks as it goes: every call ends with a value or an allowed error, a throw
// leaves the object's observable state as it was, numbers are never NaN.

import { writeSync } from 'node:fs';
import { liveModules } from '@peclet/core';
import { judged, quietly, touched } from '@peclet/test-harness/public-api';

/** The child's result line starts with this. */
export const RESULT_PREFIX = 'hostile-result ';

/** Error codes the APIs document besides TypeError and RangeError. */
export const documentedCodes = new Set(['PECLET_CANCELLED', 'PECLET_OUT_OF_MEMORY']);

/** `{ name, code, message }` of anything thrown. */
export function describeError(error) {
  if (error instanceof Error) {
    return {
      name: error.constructor?.name ?? error.name,
      code: error.code,
      message: String(error.message).slice(0, 300),
    };
  }
  let text;
  try {
    text = String(error);
  } catch {
    text = typeof error;
  }
  return { name: typeof error, message: text.slice(0, 300) };
}

/** FNV-1a over the bytes of a typed array (or its state when detached). */
export function hashArray(a) {
  if (a === undefined || a === null) return 'none';
  if (a.byteLength === 0) return `empty:${a.length}`;
  const bytes = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  let h = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i], 16777619);
  return `${a.length}:${(h >>> 0).toString(16)}`;
}

/** Paths of NaN numbers inside a result (numbers, arrays, typed arrays, plain objects). */
export function nanPaths(value, path = 'result', out = [], depth = 0) {
  if (depth > 4 || out.length > 3) return out;
  if (typeof value === 'number') {
    if (Number.isNaN(value)) out.push(path);
  } else if (ArrayBuffer.isView(value) && !(value instanceof DataView)) {
    if (value.byteLength > 0 && (value instanceof Float64Array || value instanceof Float32Array)) {
      const i = value.findIndex((x) => Number.isNaN(x));
      if (i >= 0) out.push(`${path}[${i}]`);
    }
  } else if (Array.isArray(value)) {
    for (const [i, x] of value.entries()) nanPaths(x, `${path}[${i}]`, out, depth + 1);
  } else if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    let entries;
    try {
      entries = Object.entries(value);
    } catch {
      return out; // a Proxy whose keys cannot be listed (a lazy addon that cannot load): nothing to read
    }
    for (const [k, x] of entries) nanPaths(x, `${path}.${k}`, out, depth + 1);
  }
  return out;
}

/**
 * Bounded memory after repeated getter reads (one view per buffer): 10⁴ reads of a zero-copy
 * getter return one array and leave the module's export records (`stats().exportRecords`)
 * where they were. `read` reads the getter; `module` is the module's name.
 */
export function repeatedReads(h, label, read, module) {
  const first = read();
  if (!ArrayBuffer.isView(first) || first.length === 0) return;
  const records = () =>
    liveModules()
      .find((m) => m.name === module && !m.finalized)
      ?.stats()?.exportRecords;
  const before = records();
  let other = 0;
  for (let i = 0; i < 1e4; i++) if (read() !== first) other++;
  if (other > 0) h.problem(`${label}: ${other} of 10⁴ reads returned another array (one view per buffer)`);
  const after = records();
  if (before !== undefined && after !== undefined && after > before + 1)
    h.problem(`${label}: the module's export records grew from ${before} to ${after} over 10⁴ reads`);
}

/** Index of the first non-finite element, or -1. */
export function firstNonFinite(a) {
  for (let i = 0; i < a.length; i++) if (!Number.isFinite(a[i])) return i;
  return -1;
}

/**
 * The recorder of one case: `call` runs one public call and judges how it ended; `problem`
 * records a broken invariant. `report()` is the child's one JSON line.
 */
export function recorder(seed, plan) {
  const calls = [];
  const problems = [];
  const problem = (message) => {
    if (problems.length < 20) problems.push(message);
  };
  /**
   * Runs `fn` (sync or async). `digest` reads the object's state (before and after: equal
   * after a throw). `bad`: the arguments are documented errors, so a success is a problem.
   * `allow(error)`: more errors this call may end with (an abort's reason, a TeardownError).
   */
  async function call(label, fn, { digest, bad = false, allow, mustThrow } = {}) {
    const before = safeDigest(digest);
    let value;
    try {
      value = await judged(fn);
    } catch (error) {
      const e = describeError(error);
      calls.push({ label, threw: e });
      const allowed =
        error instanceof TypeError ||
        error instanceof RangeError ||
        (error instanceof Error && documentedCodes.has(error.code)) ||
        allow?.(error) === true;
      if (!allowed) problem(`${label}: threw ${e.name}${e.code ? ` (${e.code})` : ''}: ${e.message}`);
      if (error instanceof Error && (error instanceof TypeError || error instanceof RangeError)) {
        if (!/\S/.test(error.message)) problem(`${label}: ${e.name} with an empty message`);
      }
      const after = safeDigest(digest);
      if (digest !== undefined && before !== after) {
        problem(`${label}: state changed although the call threw (${before} → ${after})`);
      }
      return { ok: false, error };
    }
    calls.push({ label, ok: summarize(value) });
    if (bad) problem(`${label}: accepted a documented error (returned ${summarize(value)})`);
    if (mustThrow) problem(`${label}: ${mustThrow}`);
    const nans = nanPaths(value);
    if (nans.length > 0) problem(`${label}: NaN in the result at ${nans.join(', ')}`);
    return { ok: true, value };
  }
  // `api`: the public members the judged calls reached (lib/cases.mjs counts them over a run).
  const report = () => ({ seed, target: plan.target, plan, calls, problems, api: [...touched] });
  let printed = false;
  /** Prints the one result line (once): before a call that may end the process, or at the end. */
  const flush = () => {
    if (printed) return;
    printed = true;
    writeSync(1, `${RESULT_PREFIX}${JSON.stringify(report(), (_, v) => (typeof v === 'bigint' ? `${v}n` : v))}\n`);
  };
  return { call, problem, problems, report, flush };
}

function safeDigest(digest) {
  if (digest === undefined) return undefined;
  try {
    return quietly(digest);
  } catch (error) {
    return `unreadable (${describeError(error).name})`;
  }
}

function summarize(value) {
  try {
    if (value === undefined) return 'undefined';
    if (typeof value === 'number' || typeof value === 'boolean') return String(value);
    if (ArrayBuffer.isView(value)) return `${value.constructor.name}(${value.length ?? value.byteLength})`;
    if (Array.isArray(value)) return `[${value.slice(0, 4).map(summarize).join(', ')}${value.length > 4 ? ', …' : ''}]`;
    if (typeof value === 'object' && value !== null) return `${value.constructor?.name ?? 'Object'}`;
    return typeof value;
  } catch {
    return 'a value';
  }
}
