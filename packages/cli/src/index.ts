/**
 * @peclet/cli — the `peclet` command line: permeability of voxel images (lattice Boltzmann and
 * pore networks), pore-network extraction, Voronoi/Laguerre tessellation. The executable is
 * `peclet`; this entry lets a script run the same command line in its own process.
 *
 * @example
 * ```ts
 * import { handleSignals } from '@peclet/core';
 * import { main } from '@peclet/cli';
 * handleSignals();
 * process.exitCode = await main(['tessellate', 'points.npy', '--box', '0,0,0,1,1,1', '--json']);
 * ```
 *
 * @packageDocumentation
 */
export { ExitStatus, UsageError } from './errors.js';
export { createProgram, main } from './program.js';
