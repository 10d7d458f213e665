import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.base.js';

// `gpu` is its own entry so that importing the kernel never touches WebGPU;
// `webgpu` stays a runtime import (it finds dawn.node beside its own files).
export default defineConfig(
  packageBuild({ entry: ['src/index.ts', 'src/gpu/index.ts'], shims: false, external: ['webgpu'] }),
);
