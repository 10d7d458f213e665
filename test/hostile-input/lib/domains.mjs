// Argument domains: named values, each made in the child by a thunk (a detached array, a
// Proxy or a SharedArrayBuffer cannot travel as JSON). A case names the values it uses, so
// the parent and the replay can print the call without running it. `bad` marks values the
// API documents as errors: accepting one is a failure too.

/** Plain numbers, for counts, intervals, time outs and every scalar option. */
export const numbers = {
  0: () => 0,
  '-0': () => -0,
  1: () => 1,
  '-1': () => -1,
  0.5: () => 0.5,
  1.5: () => 1.5,
  NaN: () => Number.NaN,
  Infinity: () => Number.POSITIVE_INFINITY,
  '-Infinity': () => Number.NEGATIVE_INFINITY,
  '1e308': () => 1e308,
  '-1e308': () => -1e308,
  '5e-324': () => 5e-324,
  '1e-314': () => 1e-314,
  '2**31': () => 2 ** 31,
  '2**32': () => 2 ** 32,
  '2**53': () => 2 ** 53,
  '1e9': () => 1e9,
  "'1' (string)": () => '1',
  undefined: () => undefined,
  null: () => null,
  true: () => true,
  '1n (bigint)': () => 1n,
  '{ valueOf: 1 }': () => ({ valueOf: () => 1 }),
  '[1]': () => [1],
  'Symbol()': () => Symbol('x'),
  'a Proxy of 1': () => new Proxy({}, { get: () => 1 }),
};

/** The same numbers minus the ones that would keep a valid call busy for minutes (step counts). */
export const smallCounts = Object.fromEntries(
  Object.entries(numbers).filter(([k]) => !['1e9', '2**31', '2**32', '2**53', '1e308'].includes(k)),
);

/** Boxes: `{ min, max }` or worse. `bad` ones are documented errors (readBox). */
export const boxes = {
  unit: { make: () => box([0, 0, 0], [1, 1, 1]) },
  'offset 1e14 (x)': { make: () => box([1e14, 0, 0], [1e14 + 1, 1, 1]) },
  'corner at 1e14': { make: () => box([1e14, 1e14, 1e14], [1e14 + 1, 1e14 + 1, 1e14 + 1]) },
  'negative corner -1e14': { make: () => box([-1e14 - 1, -1e14 - 1, -1e14 - 1], [-1e14, -1e14, -1e14]) },
  '±1e308': { make: () => box([-1e308, -1e308, -1e308], [1e308, 1e308, 1e308]), bad: true },
  'at 1e308': { make: () => box([1e308, 1e308, 1e308], [1.5e308, 1.5e308, 1.5e308]) },
  'extent 1e110': { make: () => box([0, 0, 0], [1e110, 1e110, 1e110]) },
  'long thin 1e5x1x1': { make: () => box([0, 0, 0], [1e5, 1, 1]) },
  'flat 1x1x1e-5': { make: () => box([0, 0, 0], [1, 1, 1e-5]) },
  'tiny 1e-100': { make: () => box([0, 0, 0], [1e-100, 1e-100, 1e-100]) },
  'denormal width': { make: () => box([0, 0, 0], [5e-324, 1, 1]) },
  'zero width': { make: () => box([0, 0, 0], [0, 1, 1]), bad: true },
  inverted: { make: () => box([1, 1, 1], [0, 0, 0]), bad: true },
  'NaN corner': { make: () => box([Number.NaN, 0, 0], [1, 1, 1]), bad: true },
  'Infinity corner': { make: () => box([0, 0, 0], [Number.POSITIVE_INFINITY, 1, 1]), bad: true },
  '-0 min': { make: () => box([-0, -0, -0], [1, 1, 1]) },
  'min of length 2': { make: () => ({ min: [0, 0], max: [1, 1, 1] }), bad: true },
  'min as strings': { make: () => ({ min: ['0', '0', '0'], max: [1, 1, 1] }), bad: true },
  'min as Float32Array': { make: () => ({ min: new Float32Array(3), max: [1, 1, 1] }) },
  'min as DataView': { make: () => ({ min: new DataView(new ArrayBuffer(24)), max: [1, 1, 1] }), bad: true },
  'array-like { 0, 1, 2, length }': {
    make: () => ({ min: { 0: 0, 1: 0, 2: 0, length: 3 }, max: [1, 1, 1] }),
    bad: true,
  },
  null: { make: () => null, bad: true },
  'a number': { make: () => 1, bad: true },
  'getter answering differently': {
    // First read: the unit box; every later read: ±1e308 (a caller that reads twice validates
    // one box and uses another).
    make: () => {
      let reads = 0;
      return {
        get min() {
          return reads++ === 0 ? [0, 0, 0] : [-1e308, -1e308, -1e308];
        },
        get max() {
          return [1, 1, 1];
        },
      };
    },
    unsure: true,
  },
  'Proxy with changing max': {
    make: () => {
      let reads = 0;
      return new Proxy(
        {},
        {
          get: (_, key) => {
            if (key === 'min') return [0, 0, 0];
            if (key === 'max') return reads++ % 2 === 0 ? [1, 1, 1] : [Number.NaN, 1, 1];
            return undefined;
          },
        },
      );
    },
    unsure: true,
  },
};

function box(min, max) {
  return { min, max };
}

/** The box a case meant (for invariants), when it is a plain one. */
export function plainBox(name) {
  const entry = boxes[name];
  if (entry.bad || entry.unsure) return undefined;
  const b = entry.make();
  return { min: Array.from(b.min, Number), max: Array.from(b.max, Number) };
}

/** Periodic flags. */
export const periodics = {
  false: () => false,
  true: () => true,
  '[true, false, false]': () => [true, false, false],
  '[false, true, true]': () => [false, true, true],
  '[true, true]': () => [true, true],
  "'yes'": () => 'yes',
  '[1, 0, 0]': () => [1, 0, 0],
  'getter flipping': () => {
    let reads = 0;
    return new Proxy([true, true, true], {
      get: (target, key) => (key === '0' ? reads++ % 2 === 0 : Reflect.get(target, key)),
    });
  },
};

/** Thread counts (voro `threads`, dem `threads`). */
export const threadCounts = {
  undefined: () => undefined,
  1: () => 1,
  2: () => 2,
  64: () => 64,
  0: () => 0,
  '-1': () => -1,
  1.5: () => 1.5,
  NaN: () => Number.NaN,
  Infinity: () => Number.POSITIVE_INFINITY,
  4097: () => 4097,
  '2**53': () => 2 ** 53,
  "'2'": () => '2',
};

/** How a Float64Array argument is wrapped: the same numbers in a hostile container. */
export const containers = {
  Float64Array: (values) => Float64Array.from(values),
  'plain array': (values) => Array.from(values),
  Float32Array: (values) => Float32Array.from(values),
  Int32Array: (values) => Int32Array.from(values),
  DataView: (values) => new DataView(Float64Array.from(values).buffer),
  'detached Float64Array': (values) => detached(Float64Array.from(values)),
  'SharedArrayBuffer-backed': (values) => {
    const a = new Float64Array(new SharedArrayBuffer(8 * values.length));
    a.set(values);
    return a;
  },
  'subarray at offset 1': (values) => {
    const a = new Float64Array(values.length + 2);
    a.set(values, 1);
    return a.subarray(1, values.length + 1);
  },
  'Proxy of a Float64Array': (values) => new Proxy(Float64Array.from(values), {}),
  'array with a getter answering NaN on the second read': (values) => {
    const a = Array.from(values);
    let reads = 0;
    Object.defineProperty(a, 0, { get: () => (reads++ === 0 ? values[0] : Number.NaN), enumerable: true });
    return a;
  },
  'array of strings': (values) => Array.from(values, String),
  'Float64Array with one extra element': (values) => Float64Array.from([...values, 0.5]),
  'empty Float64Array': () => new Float64Array(0),
};

/** Containers whose numbers arrive unchanged when accepted (the others are documented errors or unsure). */
export const faithfulContainers = new Set(['Float64Array', 'subarray at offset 1', 'SharedArrayBuffer-backed']);

/** Time outs (finalizeAsync). */
export const timeouts = {
  undefined: () => undefined,
  0: () => 0,
  '-0': () => -0,
  50: () => 50,
  Infinity: () => Number.POSITIVE_INFINITY,
  '2**31': () => 2 ** 31,
  '1e308': () => 1e308,
  '5e-324': () => 5e-324,
  '-1': () => -1,
  NaN: () => Number.NaN,
  "'50'": () => '50',
  null: () => null,
};

/** `array` with its buffer transferred away: detached, length 0. */
export function detached(array) {
  structuredClone(array.buffer, { transfer: [array.buffer] });
  return array;
}
