import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.base.js';

// `gpu` is its own entry so that importing the kernel never touches WebGPU;
// `webgpu` stays a runtime import (it finds dawn.node beside its own files).
// The declarations name Node's types (NodeJS.Signals, Disposable): each file references
// @types/node, a dependency, so a consumer's `tsc` finds them without hoisting. The bundler
// drops the source's reference directives; scripts/dts-references.mjs adds the gpu entry's.
export default defineConfig(
  packageBuild({
    entry: ['src/index.ts', 'src/gpu/index.ts'],
    shims: false,
    external: ['webgpu'],
    dts: { banner: '/// <reference types="node" />' },
  }),
);
