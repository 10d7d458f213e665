import { describeValue, fail } from './args.js';

/**
 * @internal The getter behind {@link PecletModule.zeroCopyView}: `read` is called again only when
 * the value held is gone (collected) or no longer current (`isCurrent`; for a typed array, not
 * detached); `zeroCopy()` says whether what `read` returned shows native memory (else it is not
 * kept: a copy does not follow the native memory).
 */
export function viewGetter<T extends object>(
  read: () => T,
  zeroCopy: () => boolean,
  isCurrent: (value: T) => boolean = notDetached,
): () => T {
  if (typeof read !== 'function') fail('type', 'read', `must be a function, got ${describeValue(read)}`);
  if (typeof isCurrent !== 'function') fail('type', 'isCurrent', `must be a function, got ${describeValue(isCurrent)}`);
  const slot = new ViewSlot<T>(read, zeroCopy, isCurrent);
  // The typed-array getter checks the field inline: this is the hot path of every array read.
  // `length`, not `byteLength`: both are 0 once detached, and V8 inlines the first only (a
  // repeated read cost 8 ns with byteLength, 1.5 ns with length, beside 1.1 ns for a variable).
  if (isCurrent === notDetached)
    return () => {
      const hot = slot.hot as unknown as { length: number } | undefined;
      if (hot !== undefined && hot.length !== 0) return hot as unknown as T;
      return slot.slow();
    };
  return () => {
    const hot = slot.hot;
    if (hot !== undefined && isCurrent(hot)) return hot;
    return slot.slow();
  };
}

// A typed array is current until the kernel detaches it (length 0); an empty one never is (it
// cannot show that its buffer changed).
function notDetached(value: object): boolean {
  return (value as unknown as { length: number }).length !== 0;
}

const isTypedArray = (value: unknown): boolean => ArrayBuffer.isView(value) && !(value instanceof DataView);

// The slots holding a value strongly for this job; cleared by one microtask per job.
let hotSlots: ViewSlot<object>[] = [];
function coolDown(): void {
  const slots = hotSlots;
  hotSlots = [];
  for (const slot of slots) slot.hot = undefined;
}

class ViewSlot<T extends object> {
  hot: T | undefined = undefined;
  #weak: WeakRef<T> | undefined = undefined;
  readonly #read: () => T;
  readonly #zeroCopy: () => boolean;
  readonly #isCurrent: (value: T) => boolean;

  constructor(read: () => T, zeroCopy: () => boolean, isCurrent: (value: T) => boolean) {
    this.#read = read;
    this.#zeroCopy = zeroCopy;
    this.#isCurrent = isCurrent;
  }

  slow(): T {
    let value = this.#weak?.deref();
    if (value === undefined || !this.#isCurrent(value)) {
      this.#weak = undefined;
      value = this.#read();
      if (this.#isCurrent === notDetached ? !isTypedArray(value) : value === null || typeof value !== 'object')
        fail(
          'type',
          'read',
          `must return ${this.#isCurrent === notDetached ? 'a typed array' : 'an object'}, got ${describeValue(value)}`,
        );
      if (!this.#isCurrent(value) || !this.#zeroCopy()) return value;
      this.#weak = new WeakRef(value);
    }
    this.hot = value;
    if (hotSlots.length === 0) queueMicrotask(coolDown);
    hotSlots.push(this as unknown as ViewSlot<object>);
    return value;
  }
}
