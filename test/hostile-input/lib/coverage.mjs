// How much of the public API a run's judged calls reached: every member of the seven modules (eight with mpi)
// (test/harness/public-api.mjs) against the union of what the cases report.

import { apiCoverage as coverage } from '@peclet/test-harness/public-api';
import { mpiAvailable } from './mpi.mjs';

// mpi counts where its addon was built against a system MPI (bash scripts/system-deps.sh installs Open MPI).
export const modules = ['core', 'voro', 'dem', 'io', 'flow', 'pnm', 'coupling', ...(mpiAvailable() ? ['mpi'] : [])];

/** `{ total, reached, missed, line }` of the members the cases' `api` lists reached. */
export function apiCoverage(perCase) {
  return coverage(perCase, modules, (name) => import(`@peclet/${name}`), 'judged calls');
}
