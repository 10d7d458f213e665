/**
 * @peclet/core — the teardown kernel's TypeScript runtime.
 *
 * @packageDocumentation
 */
export {
  type ArgumentError,
  type ArgumentErrorKind,
  argumentError,
  type BoxValue,
  closestKey,
  describeValue,
  type Float64ArrayShape,
  fail,
  isDetached,
  type NumberRange,
  type ReadOptionsSettings,
  readBoolean,
  readBox,
  readEnum,
  readFlags,
  readFloat64Array,
  readFunction,
  readInteger,
  readNumber,
  readOptions,
  readSignal,
  readVector3,
} from './args.js';
export {
  type CpuBudget,
  type CpuBudgetOptions,
  type CpuBudgetSource,
  cpuBudget,
  cpuBudgetDetails,
} from './cpu-budget.js';
export {
  type CancelledError,
  cancelledError,
  ReleasedError,
  type ReleasedErrorDetails,
  TeardownError,
  type TeardownFailure,
} from './errors.js';
export type { GpuAdapterInfo, GpuBackend, GpuOptions, SharedGpuDevice } from './gpu-types.js';
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
export { AddonLoadError, type LoadAddonOptions, lazyAddon, loadAddon, platformKey } from './load.js';
export { Registry, Releasable, type ReleaseHook } from './registry.js';
export { type HandleSignalsOptions, handleSignals, type SignalHandling } from './signals.js';
export { type Resource, Teardown } from './teardown.js';
export { type FinalizeReason, traceEnabled } from './trace.js';
