import type { FileHandle } from 'node:fs/promises';
import { type Classifier, classify } from './classify.js';
import type { Shape3 } from './voxel.js';

/** How one element is stored: its size in bytes, whether it is a float or a signed integer, its byte order. */
export interface ElementLayout {
  readonly itemSize: number;
  readonly float: boolean;
  readonly signed: boolean;
  readonly littleEndian: boolean;
}

/** Reads the element at byte `at` of `view` as a number. */
export function elementReader(layout: ElementLayout): (view: DataView, at: number) => number {
  const { itemSize, float, signed, littleEndian: le } = layout;
  if (float) return itemSize === 8 ? (v, at) => v.getFloat64(at, le) : (v, at) => v.getFloat32(at, le);
  if (itemSize === 1) return signed ? (v, at) => v.getInt8(at) : (v, at) => v.getUint8(at);
  if (itemSize === 2) return signed ? (v, at) => v.getInt16(at, le) : (v, at) => v.getUint16(at, le);
  return signed ? (v, at) => v.getInt32(at, le) : (v, at) => v.getUint32(at, le);
}

/** Bytes per read when streaming a file into an image. */
export const chunkBytes = 4 * 2 ** 20;

/**
 * Turns stored elements into solid flags, element by element, in the order they are stored:
 * C order (last index fastest) or Fortran order (first index fastest), scattered into the C-order
 * `solid`. An element is non-zero when any of its bytes is, except a float's sign bit (−0 is
 * zero; NaN is non-zero) — a test that needs no byte swapping. A value rule (`poreValue`,
 * `solidValue`) decodes each element and compares it.
 */
export class SolidWriter {
  private readonly solid: Uint8Array;
  private readonly layout: ElementLayout;
  private readonly whenNonzero: number;
  private readonly classifier: Classifier;
  private readonly read: (view: DataView, at: number) => number;
  private readonly fortran: boolean;
  private readonly n0: number;
  private readonly n1: number;
  private readonly n2: number;
  private next = 0; // C order: next index; Fortran order: elements done
  private i = 0;
  private j = 0;
  private k = 0;

  constructor(solid: Uint8Array, shape: Shape3, layout: ElementLayout, classifier: Classifier, fortran: boolean) {
    this.solid = solid;
    this.layout = layout;
    this.classifier = classifier;
    this.read = elementReader(layout);
    this.whenNonzero = classifier.rule === 'zero' ? 0 : 1;
    this.fortran = fortran;
    [this.n0, this.n1, this.n2] = shape;
  }

  /** Elements written so far. */
  get written(): number {
    return this.next;
  }

  /** Converts whole elements of `bytes` (its length a multiple of the item size). */
  push(bytes: Uint8Array): void {
    const { rule } = this.classifier;
    if (rule === 'pore-value' || rule === 'solid-value') {
      this.pushValues(bytes);
      return;
    }
    const { itemSize, float, littleEndian } = this.layout;
    const count = bytes.length / itemSize;
    const on = this.whenNonzero;
    const off = 1 - on;
    const signByte = littleEndian ? itemSize - 1 : 0;
    const out = this.solid;
    // Any byte non-zero, a float's sign bit aside: the test needs no byte swapping.
    const flagAt = (b: number): number => {
      let any = 0;
      for (let q = 0; q < itemSize; q++) {
        const byte = bytes[b + q] as number;
        any |= float && q === signByte ? byte & 0x7f : byte;
      }
      return any !== 0 ? on : off;
    };
    if (!this.fortran) {
      let p = this.next;
      if (itemSize === 1) {
        for (let e = 0; e < count; e++) out[p++] = bytes[e] !== 0 ? on : off;
      } else {
        for (let e = 0, b = 0; e < count; e++, b += itemSize) out[p++] = flagAt(b);
      }
      this.next = p;
      return;
    }
    this.scatterFortran(count, flagAt);
  }

  /** {@link push} for a value rule: each element decoded and compared. */
  private pushValues(bytes: Uint8Array): void {
    const { itemSize } = this.layout;
    const count = bytes.length / itemSize;
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const { classifier, read, solid: out } = this;
    if (!this.fortran) {
      let p = this.next;
      for (let e = 0, b = 0; e < count; e++, b += itemSize) out[p++] = classify(classifier, read(view, b));
      this.next = p;
      return;
    }
    this.scatterFortran(count, (b) => classify(classifier, read(view, b)));
  }

  /**
   * Fortran order: element (i, j, k) is stored at i + n0 (j + n1 k); writes the flag `flagAt(b)`
   * of the element at byte b of the chunk at (i n1 + j) n2 + k.
   */
  private scatterFortran(count: number, flagAt: (byte: number) => number): void {
    const { n0, n1, n2, solid: out } = this;
    const { itemSize } = this.layout;
    let { i, j, k } = this;
    for (let e = 0, b = 0; e < count; e++, b += itemSize) {
      out[(i * n1 + j) * n2 + k] = flagAt(b);
      if (++i === n0) {
        i = 0;
        if (++j === n1) {
          j = 0;
          k++;
        }
      }
    }
    this.i = i;
    this.j = j;
    this.k = k;
    this.next += count;
  }
}

/**
 * Streams `count` elements from `handle` at byte `position` into `writer`, in chunks of about
 * {@link chunkBytes}, through one reusable buffer. Returns false when the file ended early.
 */
export async function streamElements(
  handle: FileHandle,
  position: number,
  count: number,
  itemSize: number,
  writer: SolidWriter,
): Promise<boolean> {
  const elementsPerChunk = Math.max(1, Math.floor(chunkBytes / itemSize));
  const buffer = new Uint8Array(Math.min(count, elementsPerChunk) * itemSize);
  let done = 0;
  let at = position;
  while (done < count) {
    const want = Math.min(count - done, elementsPerChunk) * itemSize;
    let got = 0;
    while (got < want) {
      const { bytesRead } = await handle.read(buffer, got, want - got, at + got);
      if (bytesRead === 0) return false;
      got += bytesRead;
    }
    writer.push(buffer.subarray(0, want));
    done += want / itemSize;
    at += want;
  }
  return true;
}
