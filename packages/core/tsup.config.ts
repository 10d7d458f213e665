import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.base.js';

// `gpu` is its own entry so that importing the kernel never touches WebGPU.
export default defineConfig(packageBuild({ entry: ['src/index.ts', 'src/gpu/index.ts'], shims: false }));
