import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineModule, loadAddon, type NativeBinding } from '@peclet/core';

/** The addon's view of a box: what `tessellate` checks and copies. */
export interface NativeBox {
  readonly min: readonly number[];
  readonly max: readonly number[];
}

type NativeArgs = [
  points: Float64Array,
  box: NativeBox,
  periodic: boolean[],
  radii: Float64Array | undefined,
  threads: number | undefined,
];

/** @internal The exports of the voro addon. */
export interface VoroBinding extends NativeBinding {
  readonly Tessellation: { prototype: object };
  tessellate(...args: NativeArgs): unknown;
  tessellateAsync(...args: NativeArgs): { promise: Promise<unknown>; cancel(): void };
}

// dist/ sits beside binding.gyp and build/.
const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** @internal */
export const native = loadAddon<VoroBinding>({ root, name: 'voro', buildCommand: 'pnpm --filter @peclet/voro build' });

/** @internal The voro module in this thread. */
export const voroModule = defineModule({ name: 'voro', native });

// `using tessellation = tessellate(...)` releases it at the end of the block.
Object.defineProperty(native.Tessellation.prototype, Symbol.dispose, {
  value(this: { release(): void }) {
    this.release();
  },
});
