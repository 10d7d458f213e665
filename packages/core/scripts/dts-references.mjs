// The gpu entry's declarations name WebGPU's types (GPUDevice, GPUBufferUsage, ...): they
// reference @webgpu/types, a dependency, so that a consumer's `tsc` finds them. The bundler
// that writes dist/ drops the source's reference directive; this puts it back on that entry
// only, so that the kernel's own entry adds no WebGPU globals to a consumer's program.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const reference = '/// <reference types="@webgpu/types" />';
const dist = join(import.meta.dirname, '..', 'dist', 'gpu');
for (const file of ['index.d.ts', 'index.d.cts']) {
  const path = join(dist, file);
  const text = readFileSync(path, 'utf8');
  if (!text.includes(reference)) writeFileSync(path, `${reference}\n${text}`);
}
