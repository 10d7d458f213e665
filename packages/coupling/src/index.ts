/**
 * @peclet/coupling — unresolved CFD-DEM: the spheres of a `@peclet/dem` Simulation in a
 * volume-averaged fluid on a `@peclet/flow` lattice, pushing on each other through drag
 * closures.
 *
 * @example
 * ```ts
 * import { Simulation } from '@peclet/dem';
 * import { CoupledSimulation } from '@peclet/coupling';
 * const bed = new CoupledSimulation({ particles, fluid: { cellSize: 2e-3, viscosity: 1e-3, density: 1000 } });
 * bed.step(100);
 * bed.release();
 * ```
 *
 * @packageDocumentation
 */
import { couplingModule } from './native.js';

export { ReleasedError } from '@peclet/core';
export {
  type CoupledRunOptions,
  CoupledSimulation,
  type CoupledSimulationOptions,
  type CoupledStepReport,
  type DragModel,
  type Drive,
  dragCoefficient,
  type FluidOptions,
  type TimestepReport,
  terminalVelocity,
} from './simulation.js';

/**
 * Releases every coupled simulation of this thread (their lattices too; the dem simulations they
 * hold stay) and finalizes the module. Idempotent; runs by itself at exit.
 */
export function finalize(): void {
  couplingModule.finalize();
}

/** Where coupling computes: `host`. */
export const executionSpace: string = couplingModule.executionSpace;
