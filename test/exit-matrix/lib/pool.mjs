// The pool itself is shared (test/harness); the matrix's parallelism is its own.
export { inParallel } from '@peclet/test-harness';

/** Children run at once: PECLET_MATRIX_JOBS, default 3 (the budget is two cores). */
export function parallelism() {
  const n = Number(process.env.PECLET_MATRIX_JOBS ?? 3);
  return Number.isInteger(n) && n > 0 ? n : 3;
}
