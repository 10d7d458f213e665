// The consumer's JS entry: load the addon, define the module, re-export.
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineModule, loadAddon } from '@peclet/core';

const native = loadAddon({
  root: dirname(fileURLToPath(import.meta.url)),
  name: 'histogram',
  buildCommand: 'pnpm --filter @peclet/test-consumer-addon build',
});
const mod = defineModule({ name: 'histogram', native });

export const Histogram = native.Histogram;
export const finalize = () => mod.finalize();
export const executionSpace = mod.executionSpace;
