/**
 * An asynchronous run on the device: each slice is one submission followed by a read-back of
 * the state. A deposit's slices are one check interval each, so settling is judged at the same
 * steps as on the host.
 * @internal
 */
import { fail } from '@peclet/core';
import type { NativeAdvance } from '../native.js';
import type { SliceRequest } from '../slices.js';
import type { GpuPath } from './path.js';

/**
 * Runs `request` on `gpu` at time step `timestep` (s). Rejects with `signal.reason` once the
 * signal aborted (unless the simulation was released), with the cancellation error once the
 * simulation was released or its module is finalizing, and with a RangeError naming
 * `contactCapacity` when a sphere had more contacts than its history slots.
 */
export async function gpuSlices(gpu: GpuPath, timestep: number, request: SliceRequest): Promise<NativeAdvance> {
  const { what, total, threshold, checkInterval, signal, onProgress, intervalMs, stopped, released } = request;
  let done = 0;
  let clampedSpheres = 0;
  let firstClampedSphere = -1;
  let status: NativeAdvance['status'] = 'done';
  let settled = false;
  let kineticEnergyPerSphere = 0;
  let slice = Math.max(1, Math.min(total, checkInterval > 0 ? checkInterval : 20));
  try {
    await gpu.prepare(timestep);
    let first = true;
    while (done < total || first) {
      first = false;
      const n = Math.min(slice, total - done);
      const started = performance.now();
      const report = await gpu.advance(n);
      const stop = stopped();
      if (stop !== undefined) throw stop;
      if (signal?.aborted) throw signal.reason;
      done += n;
      clampedSpheres += report.clampedSpheres;
      if (firstClampedSphere < 0) firstClampedSphere = report.firstClampedSphere;
      if (report.overflowSphere >= 0) {
        fail(
          'range',
          'contactCapacity',
          `${what}: sphere ${report.overflowSphere} had ${report.overflowContacts} contacts at once, more than its ` +
            `${gpu.contactCapacity} tangential-history slots (the springs of the extra contacts restarted from zero ` +
            'in those steps); create the simulation with a larger contactCapacity',
          report.overflowSphere,
        );
      }
      const count = gpu.sphereCount;
      kineticEnergyPerSphere = count > 0 ? gpu.translationalKineticEnergy() / count : 0;
      if (report.nonFinite) {
        status = 'diverged';
        break;
      }
      onProgress?.({ steps: done, totalSteps: total, time: gpu.time, kineticEnergyPerSphere });
      if (threshold >= 0 && checkInterval > 0 && kineticEnergyPerSphere < threshold) {
        settled = true;
        break;
      }
      if (n === 0) break;
      if (checkInterval > 0) continue;
      const perStep = (performance.now() - started) / Math.max(1, n);
      const next = Math.max(1, Math.round(intervalMs / Math.max(perStep, 1e-6)));
      slice = Math.min(next, 4 * slice);
    }
  } catch (error) {
    if (signal?.aborted && !released()) throw signal.reason;
    throw stopped() ?? error;
  }
  // release() or finalize() from inside the last onProgress: the run did not settle.
  const stop = stopped();
  if (stop !== undefined) throw stop;
  return { status, steps: done, clampedSpheres, firstClampedSphere, settled, kineticEnergyPerSphere };
}
