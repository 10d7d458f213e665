// Runs async jobs with at most `limit` in flight; results keep the jobs' order.
export async function inParallel(jobs, limit) {
  const results = new Array(jobs.length);
  let next = 0;
  const lane = async () => {
    while (next < jobs.length) {
      const i = next++;
      results[i] = await jobs[i]();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, jobs.length) }, lane));
  return results;
}

/** Children run at once: PECLET_MATRIX_JOBS, default 3 (the budget is two cores). */
export function parallelism() {
  const n = Number(process.env.PECLET_MATRIX_JOBS ?? 3);
  return Number.isInteger(n) && n > 0 ? n : 3;
}
