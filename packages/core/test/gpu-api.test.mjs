// @peclet/core/gpu, each case in a child process: the API on a real device
// (fixtures/gpu-api.mjs), and the errors where `webgpu` or an adapter is
// missing. The GPU cases skip, with the reason, only where this machine has
// no `webgpu` package or no adapter (without a GPU: Mesa, see
// scripts/system-deps.sh); PECLET_REQUIRE_GPU=1 makes that a failure.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { gpuSkip } from './fixtures/gpu-skip.mjs';
import { crashSignature, fixtures, runNode } from './helpers.mjs';

const skip = gpuSkip();
const timeoutMs = 60_000;

function assertRan(result, status = 0) {
  const context = `\n--- stdout ---\n${result.stdout}\n--- stderr ---\n${result.stderr}`;
  assert.equal(result.hung, false, `child hung${context}`);
  assert.equal(result.signal, null, `signal${context}`);
  assert.equal(result.status, status, `exit status${context}`);
  assert.doesNotMatch(result.stderr, crashSignature, `crash signature${context}`);
}

describe('@peclet/core/gpu', { concurrency: 2 }, () => {
  it('API on a real device: compute, read, mapping, argument checks, release, finalizeAsync', { skip }, async () => {
    // A node:test file of its own: without this it would talk to this runner's protocol.
    const result = await runNode(join(fixtures, 'gpu-api.mjs'), [], {
      timeoutMs,
      env: { NODE_TEST_CONTEXT: undefined },
    });
    assertRan(result);
    assert.match(result.stdout, /^# pass 8$/m);
    assert.match(result.stdout, /^# fail 0$/m);
  });

  it('without the webgpu package: both entries load, calls say `pnpm add webgpu`', async () => {
    const result = await runNode(join(fixtures, 'gpu-no-webgpu.mjs'), [], {
      timeoutMs,
      nodeArgs: ['--import', join(fixtures, 'gpu-no-webgpu-hook.mjs')],
    });
    assertRan(result);
    const available = JSON.parse(result.stdout.match(/^available (.*)$/m)?.[1] ?? 'null');
    assert.equal(available.available, false);
    assert.match(available.reason, /pnpm add webgpu/);
    for (const name of ['requestGpu', 'gpuConstants']) {
      assert.match(result.stdout, new RegExp(`^${name} rejected PECLET_NO_WEBGPU: .*pnpm add webgpu`, 'm'));
    }
  });

  it('no adapter for the backend asked: PECLET_NO_GPU lists it and how to enable one', { skip }, async () => {
    const result = await runNode(join(fixtures, 'gpu-no-adapter.mjs'), [], {
      timeoutMs,
      env: { PECLET_GPU_BACKEND: process.platform === 'darwin' ? 'd3d12' : 'metal' },
    });
    assertRan(result);
    assert.match(
      result.stdout,
      /^rejected Error PECLET_NO_GPU: .*found no GPU adapter \(backend \w+, from PECLET_GPU_BACKEND\)/m,
    );
    assert.match(result.stdout, /^ {2}(metal|d3d12): no adapter$/m);
    assert.match(result.stdout, /libegl1 libegl-mesa0 libgles2 libgl1-mesa-dri/);
    assert.match(result.stdout, /PECLET_GPU_BACKEND=<auto\|vulkan\|opengles\|opengl\|d3d12\|metal\|null>/);
  });

  it('auto with every backend failing lists each one tried', {
    skip: skip || process.platform !== 'linux',
  }, async () => {
    // EGL on X11 with no display: Mesa's GL backends fail like a machine without them.
    const result = await runNode(join(fixtures, 'gpu-no-adapter.mjs'), [], {
      timeoutMs,
      env: { PECLET_GPU_BACKEND: 'auto', EGL_PLATFORM: 'x11', DISPLAY: '', WAYLAND_DISPLAY: '' },
    });
    assertRan(result);
    assert.match(result.stdout, /PECLET_NO_GPU: .*\(backend auto\b/);
    for (const backend of ['vulkan', 'opengles', 'opengl']) {
      assert.match(result.stdout, new RegExp(`^ {2}${backend}: `, 'm'));
    }
  });

  it('a worker cannot set EGL_PLATFORM for Mesa: the error says where to set it', { skip }, async () => {
    const env = { PECLET_GPU_BACKEND: 'opengles' };
    const result = await runNode(join(fixtures, 'gpu-no-adapter.mjs'), ['worker'], {
      timeoutMs,
      env: { ...env, EGL_PLATFORM: undefined },
    });
    assertRan(result);
    // Where the process environment already has it, the worker gets a device.
    if (process.env.EGL_PLATFORM === undefined) {
      assert.match(result.stdout, /this is a worker thread, whose process\.env never reaches native code/);
    } else {
      assert.match(result.stdout, /^acquired opengles$/m);
    }
  });

  it('PECLET_GPU_BACKEND must name a backend', async () => {
    const result = await runNode(join(fixtures, 'gpu-no-adapter.mjs'), [], {
      timeoutMs,
      env: { PECLET_GPU_BACKEND: 'vulkan2' },
    });
    assertRan(result);
    assert.match(result.stdout, /^rejected RangeError undefined: PECLET_GPU_BACKEND must be one of auto, vulkan/m);
  });
});
