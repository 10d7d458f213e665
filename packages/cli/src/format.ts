/** Numbers for people and for JSON. */

/** 1 darcy in m². */
export const DARCY = 9.869233e-13;

/** `k` (m²) in the three units scripts and people ask for. */
export interface PermeabilityValue {
  /** m². */
  readonly permeability: number;
  readonly millidarcy: number;
  readonly darcy: number;
}

export function permeabilityValue(k: number): PermeabilityValue {
  return { permeability: k, millidarcy: (k / DARCY) * 1e3, darcy: k / DARCY };
}

/**
 * `1.463e-12 m² = 1.482 D`, or `… = 271.2 mD` below one darcy.
 *
 * @example
 * ```ts
 * formatPermeability(1.463e-12); // '1.463e-12 m² = 1.482 D'
 * ```
 */
export function formatPermeability(k: number): string {
  if (!Number.isFinite(k)) return String(k);
  const d = k / DARCY;
  const darcy = Math.abs(d) >= 1 ? `${d.toPrecision(4)} D` : `${(d * 1e3).toPrecision(4)} mD`;
  return `${k.toExponential(3)} m² = ${darcy}`;
}

/** A voxel edge in micrometres: `5.345 µm`. */
export function formatVoxelSize(metres: number): string {
  return `${Number((metres * 1e6).toPrecision(6))} µm`;
}

/** `200×200×200`. */
export function formatShape(shape: readonly number[]): string {
  return shape.join('×');
}

/** Up to `digits` significant digits, without trailing zeros. */
export function formatNumber(x: number, digits = 4): string {
  return Number.isFinite(x) ? String(Number(x.toPrecision(digits))) : String(x);
}

/**
 * One JSON object on one line. NaN and ±Infinity become null (JSON has no such numbers); typed
 * arrays become arrays.
 */
export function toJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === 'number' && !Number.isFinite(v)) return null;
    if (ArrayBuffer.isView(v) && !(v instanceof DataView)) return Array.from(v as unknown as ArrayLike<number>);
    return v;
  });
}
