import { describeValue, fail, readEnum } from '@peclet/core';

/** Which voxels are solid: the non-zero ones (peclet's convention) or the zero ones (PoreSpy's). */
export type SolidRule = 'nonzero' | 'zero';

/**
 * How a reader turns stored values into solid flags, read from its `solid`, `poreValue` and
 * `solidValue` options (at most one of them).
 * @internal
 */
export interface Classifier {
  readonly rule: 'nonzero' | 'zero' | 'pore-value' | 'solid-value';
  /** The value of a `pore-value` or `solid-value` rule (NaN otherwise). */
  readonly value: number;
  /** Whether an option chose the rule; the default for a boolean array is True = pore. */
  readonly explicit: boolean;
}

/** The options that choose a classifier, as the readers take them. */
export interface ClassifierOptions {
  /** Which voxels are solid (default `'nonzero'`; for a boolean array, True = pore). */
  solid?: SolidRule;
  /** Voxels holding exactly this value are pore, every other voxel solid. */
  poreValue?: number;
  /** Voxels holding exactly this value are solid, every other voxel pore. */
  solidValue?: number;
}

/** The option keys of {@link ClassifierOptions}. */
export const classifierKeys = ['solid', 'poreValue', 'solidValue'] as const;

function readValue(value: unknown, argument: string): number {
  if (typeof value !== 'number') fail('type', argument, `must be a number, got ${describeValue(value)}`);
  if (!Number.isFinite(value)) fail('range', argument, `must be finite, got ${describeValue(value)}`);
  return value;
}

/**
 * Reads the `solid`, `poreValue` and `solidValue` options: at most one may be given (a TypeError
 * naming the second otherwise).
 * @internal
 */
export function readClassifier(o: { solid?: unknown; poreValue?: unknown; solidValue?: unknown }): Classifier {
  const given = classifierKeys.filter((key) => o[key] !== undefined);
  if (given.length > 1) {
    fail('type', given[1] as string, `cannot be given with ${given[0]}: each says which voxels are solid`);
  }
  if (o.poreValue !== undefined)
    return { rule: 'pore-value', value: readValue(o.poreValue, 'poreValue'), explicit: true };
  if (o.solidValue !== undefined) {
    return { rule: 'solid-value', value: readValue(o.solidValue, 'solidValue'), explicit: true };
  }
  const rule = readEnum(o.solid, 'solid', ['nonzero', 'zero'] as const, 'nonzero');
  return { rule, value: Number.NaN, explicit: o.solid !== undefined };
}

/**
 * The classifier a boolean array is read with: the default becomes True = pore, the convention of
 * PoreSpy and OpenPNM, whose images are boolean arrays of the pore space.
 * @internal
 */
export function forBoolean(c: Classifier): Classifier {
  return c.explicit ? c : { rule: 'zero', value: Number.NaN, explicit: false };
}

/**
 * A sentence naming how the values were read, e.g. "non-zero = solid" or "True = pore
 * (PoreSpy's convention for boolean arrays)".
 * @internal
 */
export function describeConvention(c: Classifier, boolean: boolean): string {
  if (c.rule === 'pore-value') return `value ${c.value} = pore, any other = solid`;
  if (c.rule === 'solid-value') return `value ${c.value} = solid, any other = pore`;
  if (boolean) {
    const convention = c.rule === 'zero' ? 'True = pore' : 'True = solid';
    return c.explicit ? convention : `${convention} (PoreSpy's convention for boolean arrays)`;
  }
  return c.rule === 'zero' ? 'zero = solid, non-zero = pore' : 'non-zero = solid, zero = pore';
}

/**
 * 1 (solid) or 0 (pore) for a value the file stores (NaN counts as non-zero).
 * @internal
 */
export function classify(c: Classifier, x: number): number {
  switch (c.rule) {
    case 'nonzero':
      return x !== 0 ? 1 : 0;
    case 'zero':
      return x !== 0 ? 0 : 1;
    case 'pore-value':
      return x === c.value ? 0 : 1;
    default:
      return x === c.value ? 1 : 0;
  }
}
