// @peclet/mpi's targets, on one rank (MPI's singleton start in the case's own process): init
// with hostile options, and every call with hostile buffers, ranks, tags and reductions, before
// init, after it and after finalize. No call may wait for ever: a receive only ever names a
// tag whose message this rank sent itself first (or a tag refused before MPI sees it), sends and
// sendrecv go to this rank with small buffers, and abort() is only given codes it refuses. MPI's
// own errors (a buffer too short, MPI_ERR_TRUNCATE) are JS errors that name the MPI call.

import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { containers, numbers } from './domains.mjs';

/**
 * Whether @peclet/mpi's addon was built (it is where the build found a system MPI): its targets
 * and its coverage count only then, the same in the parent, the children and a replay.
 */
export function mpiAvailable() {
  if (process.env.PECLET_MPI_BINARY) return existsSync(process.env.PECLET_MPI_BINARY);
  const root = dirname(createRequire(import.meta.url).resolve('@peclet/mpi/package.json'));
  return existsSync(join(root, 'native', 'build', 'Release', 'mpi.node'));
}

// An Error from a call before init(), or MPI's own error surfaced as a JS error.
const mpiError = (e) =>
  e instanceof Error &&
  (/MPI is not initialized; call init\(\) first/.test(e.message) || /MPI_\w+ failed: /.test(e.message));

const buffers = {
  ...Object.fromEntries(Object.entries(containers).map(([k, make]) => [k, () => make([1, 2, 3])])),
  Int8Array: () => Int8Array.of(1, 2, 3),
  BigInt64Array: () => BigInt64Array.of(1n, 2n, 3n),
  Uint8ClampedArray: () => Uint8ClampedArray.of(1, 2, 3),
  Float16Array: () => (typeof Float16Array === 'function' ? new Float16Array(3) : new Float32Array(3)),
  'a number': () => 3,
  undefined: () => undefined,
  null: () => null,
};
// The tags a receive may name: the one this rank sent (1), any (undefined), or ones refused.
const recvTags = ['1', 'undefined', '-1', '1.5', 'NaN', '32768', "'1' (string)", 'null'];
const recvTagValue = { 1: 1, undefined: undefined, 32768: 32768 };
const readTag = (key) => (key in recvTagValue ? recvTagValue[key] : numbers[key]());
const ranks = ['0', 'undefined', '1', '-1', '0.5', 'NaN', "'1' (string)", 'null', '2**31'];
const ops = ["'sum'", "'min'", "'max'", "'prod'", "'xor'", 'undefined', '0', 'null'];
const opValue = (key) => (key.startsWith("'") ? key.slice(1, -1) : numbers[key]());
// abort() ends the job for any code it accepts: only refused ones here.
const refusedCodes = ['0', '-1', '1.5', 'NaN', '2**31', "'1' (string)", 'null', '1e9'];

const members = [
  'allreduce',
  'send',
  'recv',
  'sendrecv',
  'barrier',
  'rank',
  'size',
  'initialized',
  'finalize',
  'abort',
];

const allMpiTargets = {
  'mpi.init': {
    build: (r) => ({
      options: r.pick([
        '{}',
        'undefined',
        "{ threadLevel: 'single' }",
        "{ threadLevel: 'funneled' }",
        "{ threadLevel: 'multiple' }",
        "{ threadLevel: 'lots' }",
        '{ threadLevel: 3 }',
        'null',
        '42',
        'a Proxy that throws',
      ]),
      next: r.pick(['init again', 'finalize twice', 'nothing']),
    }),
    async exec(plan, h, { mpi }) {
      const options = {
        '{}': {},
        undefined: undefined,
        "{ threadLevel: 'single' }": { threadLevel: 'single' },
        "{ threadLevel: 'funneled' }": { threadLevel: 'funneled' },
        "{ threadLevel: 'multiple' }": { threadLevel: 'multiple' },
        "{ threadLevel: 'lots' }": { threadLevel: 'lots' },
        '{ threadLevel: 3 }': { threadLevel: 3 },
        null: null,
        42: 42,
        'a Proxy that throws': new Proxy(
          {},
          {
            get() {
              throw new RangeError('hostile proxy');
            },
          },
        ),
      }[plan.options];
      const bad = ![
        '{}',
        'undefined',
        "{ threadLevel: 'single' }",
        "{ threadLevel: 'funneled' }",
        "{ threadLevel: 'multiple' }",
      ].includes(plan.options);
      const result = await h.call(`init(${plan.options})`, () => mpi.init(options), { bad });
      if (result.ok) {
        const { rank, size, threadLevel } = result.value;
        if (rank !== 0 || size !== 1) h.problem(`init() on one rank gave rank ${rank} of ${size}`);
        if (!['single', 'funneled', 'serialized', 'multiple'].includes(threadLevel))
          h.problem(`threadLevel ${threadLevel}`);
        if (mpi.initialized() !== true) h.problem('initialized() is false after init()');
      } else if (mpi.initialized()) {
        h.problem('init() threw and MPI is initialized');
      }
      if (plan.next === 'init again') {
        await h.call('init() again', () => mpi.init(), {
          allow: (e) => e instanceof Error && /already initialized/.test(e.message),
          mustThrow: result.ok ? 'a second init() returned' : undefined,
        });
      }
      if (plan.next === 'finalize twice') {
        await h.call('finalize()', () => mpi.finalize());
        await h.call('finalize() again', () => mpi.finalize());
        if (mpi.initialized()) h.problem('initialized() after finalize()');
      }
    },
  },

  'mpi.calls': {
    build: (r) => ({
      member: r.member(members),
      state: r.pick(['initialized', 'initialized', 'initialized', 'not initialized', 'finalized']),
      buffer: r.pick(Object.keys(buffers)),
      into: r.pick(Object.keys(buffers)),
      rank: r.pick(ranks),
      tag: r.pick(recvTags),
      op: r.pick(ops),
      code: r.pick(refusedCodes),
    }),
    async exec(plan, h, { mpi }) {
      if (plan.state !== 'not initialized') mpi.init();
      if (plan.state === 'finalized') mpi.finalize();
      const live = plan.state === 'initialized';
      const values = buffers[plan.buffer]();
      const into = buffers[plan.into]();
      const rank = numbers[plan.rank] ? numbers[plan.rank]() : undefined;
      const tag = readTag(plan.tag);
      // A receive finds the message this rank sent itself with tag 1.
      if (live && plan.member === 'recv') mpi.send(new Float64Array([4, 5, 6]), 0, { tag: 1 });
      const call = {
        allreduce: () => mpi.allreduce(values, opValue(plan.op)),
        send: () => mpi.send(values, rank, { tag: 2 }),
        recv: () => mpi.recv(into, rank, { tag }),
        sendrecv: () => mpi.sendrecv(values, rank, into, rank, { sendTag: 3, recvTag: 3 }),
        barrier: () => mpi.barrier(),
        rank: () => mpi.rank(),
        size: () => mpi.size(),
        initialized: () => mpi.initialized(),
        finalize: () => mpi.finalize(),
        abort: () => mpi.abort(numbers[plan.code]()),
      }[plan.member];
      const result = await h.call(
        `${plan.member}(${plan.buffer}, into ${plan.into}, rank ${plan.rank}, tag ${plan.tag}, op ${plan.op}) ${plan.state}`,
        call,
        {
          allow: (e) => mpiError(e),
          mustThrow: plan.member === 'abort' ? 'abort() returned' : undefined,
        },
      );
      if (!result.ok || !live) return;
      if (plan.member === 'rank' && result.value !== 0) h.problem(`rank() is ${result.value} on one rank`);
      if (plan.member === 'size' && result.value !== 1) h.problem(`size() is ${result.value} on one rank`);
      if (plan.member === 'allreduce' && result.value !== values) h.problem('allreduce did not return its buffer');
      if (plan.member === 'recv' || plan.member === 'sendrecv') {
        const { source, count } = result.value;
        if (source !== 0 || !(count >= 0)) h.problem(`received ${JSON.stringify(result.value)}`);
      }
      // The rank goes on after whatever the call did.
      const after = await h.call('allreduce(Int32Array [1]) after', () => mpi.allreduce(Int32Array.of(1)));
      if (plan.member !== 'finalize' && (!after.ok || after.value[0] !== 1))
        h.problem('the rank cannot reduce after the call');
    },
  },
};

export const mpiTargets = mpiAvailable() ? allMpiTargets : {};
