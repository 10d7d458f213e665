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
    // array until an update or release detaches it, held weakly. The getters of a tessellation
    // are made together on first use, each under a symbol of its own (one property load per read).
    const reads = new Map<string, () => unknown>();
    for (const name of viewNames) {
      const read = Object.getOwnPropertyDescriptor(proto, name)?.get;
      if (read === undefined) throw new Error(`the voro addon has no getter ${name}`);
      reads.set(name, read);
      const key = viewKeys[name] as symbol;
      Object.defineProperty(proto, name, {
        configurable: true,
        enumerable: true,
        get(this: Record<symbol, () => ArrayBufferView>) {
          const getter = this[key] ?? defineViews(this, reads)[key];
          return (getter as () => ArrayBufferView)();
        },
      });
    }
  },
);

const viewNames = ['volumes', 'centroids', 'neighborOffsets', 'neighbors', 'faceAreas'];
const viewKeys: Record<string, symbol> = Object.fromEntries(viewNames.map((name) => [name, Symbol(name)]));
function defineViews(
  object: Record<symbol, () => ArrayBufferView>,
  reads: Map<string, () => unknown>,
): Record<symbol, () => ArrayBufferView> {
  for (const name of viewNames) {
    const read = reads.get(name) as () => ArrayBufferView;
    Object.defineProperty(object, viewKeys[name] as symbol, {
      value: voroModule.zeroCopyView(() => read.call(object)),
    });
  }
  return object;
}

/** @internal The voro module in this thread. */
export const voroModule = defineModule({ name: 'voro', native, executionSpace: 'host' });
