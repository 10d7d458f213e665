/**
 * @peclet/core — the teardown kernel's TypeScript runtime.
 *
 * @packageDocumentation
 */
export { cpuBudget, cpuBudgetDetails, type CpuBudget, type CpuBudgetOptions, type CpuBudgetSource } from './cpu-budget.js';
export { ReleasedError, TeardownError, type ReleasedErrorDetails, type TeardownFailure } from './errors.js';
export {
  defineModule,
  liveModules,
  PecletModule,
  type ModuleOptions,
  type NativeBinding,
  type NativeLifecycle,
  type NativeStats,
} from './lifecycle.js';
export { Registry, Releasable, type ReleaseHook } from './registry.js';
export { handleSignals, type HandleSignalsOptions, type SignalHandling } from './signals.js';
export { Teardown, type Resource } from './teardown.js';
export { traceEnabled, type FinalizeReason } from './trace.js';
export { loadAddon, type LoadAddonOptions } from './load.js';
