import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineModule, lazyAddon, type NativeBinding } from '@peclet/core';

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

// dist/ sits beside package.json and native/.
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { version } = require('../package.json') as { version: string };

/**
 * @internal The addon, loaded at first use (an import never opens it):
 * PECLET_VORO_BINARY, else the local build (native/build), else the
 * platform package of this machine, named literally here.
 */
export const native = lazyAddon<VoroBinding>(
  {
    name: 'voro',
    root,
    packageName: '@peclet/voro',
    version,
    platforms: {
      'linux-x64-gnu': () => require.resolve('@peclet/voro-linux-x64-gnu/package.json'),
    },
  },
  // `using tessellation = tessellate(...)` releases it at the end of the block.
  (binding) => {
    const proto = binding.Tessellation.prototype;
    Object.defineProperty(proto, Symbol.dispose, {
      value(this: { release(): void }) {
        this.release();
      },
    });
    // One view per buffer (PecletModule.zeroCopyView): each array getter returns the same typed
    // array until an update or release detaches it, held weakly.
    for (const name of viewNames) {
      const read = Object.getOwnPropertyDescriptor(proto, name)?.get;
      if (read === undefined) throw new Error(`the voro addon has no getter ${name}`);
      Object.defineProperty(proto, name, {
        configurable: true,
        enumerable: true,
        get(this: { [views]?: Record<string, () => ArrayBufferView> }) {
          const own = this[views] ?? defineViews(this);
          let getter = own[name];
          if (getter === undefined) {
            getter = voroModule.zeroCopyView(() => read.call(this));
            own[name] = getter;
          }
          return getter();
        },
      });
    }
  },
);

const viewNames = ['volumes', 'centroids', 'neighborOffsets', 'neighbors', 'faceAreas'];
const views = Symbol('views');
function defineViews(object: {
  [views]?: Record<string, () => ArrayBufferView>;
}): Record<string, () => ArrayBufferView> {
  const own: Record<string, () => ArrayBufferView> = {};
  Object.defineProperty(object, views, { value: own });
  return own;
}

/** @internal The voro module in this thread. */
export const voroModule = defineModule({ name: 'voro', native, executionSpace: 'host' });
