// `gpuDevice(options)` of dem and flow: the module's shared WebGPU device. Its options are read
// on every call (they apply to the first acquisition only); a machine without WebGPU rejects
// with the documented codes.

const noGpu = (e) => e?.code === 'PECLET_NO_WEBGPU' || e?.code === 'PECLET_NO_GPU';

/** Hostile options and whether each is a documented error. */
const options = {
  undefined: { make: () => undefined },
  '{}': { make: () => ({}) },
  "{ powerPreference: 'low-power' }": { make: () => ({ powerPreference: 'low-power' }) },
  null: { make: () => null, bad: true },
  5: { make: () => 5, bad: true },
  "'x'": { make: () => 'x', bad: true },
  "{ backend: 'nope' }": { make: () => ({ backend: 'nope' }), bad: true },
  '{ powerPreference: 7 }': { make: () => ({ powerPreference: 7 }), bad: true },
  '{ requiredLimits: 5 }': { make: () => ({ requiredLimits: 5 }), bad: true },
  '{ requiredLimits: { maxBufferSize: NaN } }': {
    make: () => ({ requiredLimits: { maxBufferSize: Number.NaN } }),
    bad: true,
  },
  // Limits the adapter does not support or know: refused where a device is acquired, not once
  // the shared one exists (its options go unused then).
  '{ requiredLimits: { maxBufferSize: 1e300 } }': {
    make: () => ({ requiredLimits: { maxBufferSize: 1e300 } }),
    badFirst: true,
  },
  '{ requiredLimits: { maxWarpSpeed: 1 } }': { make: () => ({ requiredLimits: { maxWarpSpeed: 1 } }), badFirst: true },
  '{ label: 3 }': { make: () => ({ label: 3 }), bad: true },
  'a Proxy that throws on get': {
    make: () =>
      new Proxy(
        {},
        {
          get() {
            throw new TypeError('hostile proxy');
          },
        },
      ),
    bad: true,
  },
};

/** The `<module>.gpuDevice` target: hostile options, before or after the device exists, or once finalized. */
export function gpuDeviceTarget(module) {
  return {
    build: (r) => ({
      options: r.member(Object.keys(options)),
      when: r.pick(['first', 'first', 'after a device', 'finalized']),
    }),
    async exec(plan, h, api) {
      const mod = api[module];
      const entry = options[plan.options];
      if (plan.when === 'after a device') await mod.gpuDevice().catch(() => undefined);
      if (plan.when === 'finalized') mod.finalize();
      const result = await h.call(`gpuDevice(${plan.options}) (${plan.when})`, () => mod.gpuDevice(entry.make()), {
        bad: entry.bad === true || (entry.badFirst === true && plan.when === 'first'),
        allow: noGpu,
        mustThrow:
          plan.when === 'finalized' && !entry.bad && !entry.badFirst
            ? 'a finalized module must refuse a new device'
            : undefined,
      });
      if (result.ok && typeof result.value?.backend !== 'string') h.problem('gpuDevice() resolved without a backend');
      // The module's finalize releases the device with it.
      await h.call('finalizeAsync({ timeoutMs: 2000 })', () => mod.finalizeAsync({ timeoutMs: 2000 }));
      if (result.ok && result.value.released !== true) h.problem('the device outlived finalizeAsync()');
    },
  };
}
