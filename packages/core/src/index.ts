/**
 * @peclet/core — the teardown kernel's TypeScript runtime.
 *
 * @packageDocumentation
 */
export {
  type CpuBudget,
  type CpuBudgetOptions,
  type CpuBudgetSource,
  cpuBudget,
  cpuBudgetDetails,
} from './cpu-budget.js';
export { ReleasedError, type ReleasedErrorDetails, TeardownError, type TeardownFailure } from './errors.js';
export {
  type DrainHook,
  defineModule,
  liveModules,
  type ModuleOptions,
  type NativeBinding,
  type NativeLifecycle,
  type NativeStats,
  PecletModule,
} from './lifecycle.js';
export { type LoadAddonOptions, loadAddon } from './load.js';
export { Registry, Releasable, type ReleaseHook } from './registry.js';
export { type HandleSignalsOptions, handleSignals, type SignalHandling } from './signals.js';
export { type Resource, Teardown } from './teardown.js';
export { type FinalizeReason, traceEnabled } from './trace.js';
