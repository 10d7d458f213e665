/** Ticks, units and number formats of the axes and colour bars. */

/** A unit to show numbers in: `value / factor` is shown, followed by `name`. */
export interface Unit {
  readonly name: string;
  /** SI value of one of this unit (1e-6 for µm). */
  readonly factor: number;
}

const lengths: Unit[] = [
  { name: 'nm', factor: 1e-9 },
  { name: 'µm', factor: 1e-6 },
  { name: 'mm', factor: 1e-3 },
  { name: 'm', factor: 1 },
];

/**
 * The largest length unit in which `metres` (the largest length shown) reads at least 2: µm for
 * a micro-CT sample (1069 µm), mm for a bed of beads (4 mm).
 *
 * @example
 * ```ts
 * lengthUnit(1.07e-3); // { name: 'µm', factor: 1e-6 }: 1070 µm
 * ```
 */
export function lengthUnit(metres: number): Unit {
  const m = Math.abs(metres);
  for (const unit of [...lengths].reverse()) if (m / unit.factor >= 2) return unit;
  return lengths[0] as Unit;
}

/** m/s, mm/s, µm/s or nm/s: the one in which `metresPerSecond` reads between 1 and 1000. */
export function speedUnit(metresPerSecond: number): Unit {
  const v = Math.abs(metresPerSecond);
  for (const unit of [...lengths].reverse())
    if (v / unit.factor >= 1) return { name: `${unit.name}/s`, factor: unit.factor };
  return { name: 'nm/s', factor: 1e-9 };
}

/** Pa, kPa or MPa: the one in which `pascals` reads below 1000. */
export function pressureUnit(pascals: number): Unit {
  const p = Math.abs(pascals);
  if (p < 1e3) return { name: 'Pa', factor: 1 };
  if (p < 1e6) return { name: 'kPa', factor: 1e3 };
  return { name: 'MPa', factor: 1e6 };
}

/**
 * Round tick values inside [lo, hi], about `count` of them, on steps of 1, 2 or 5 × 10ⁿ.
 *
 * @example
 * ```ts
 * niceTicks(0, 1070, 5); // [0, 200, 400, 600, 800, 1000]
 * ```
 */
export function niceTicks(lo: number, hi: number, count = 5): number[] {
  if (!(hi > lo) || !Number.isFinite(lo) || !Number.isFinite(hi)) return Number.isFinite(lo) ? [lo] : [];
  const step = niceStep((hi - lo) / Math.max(1, count));
  const ticks: number[] = [];
  const first = Math.ceil(lo / step - 1e-9);
  for (let i = first; i * step <= hi + step * 1e-9; i++) ticks.push(roundTo(i * step, step));
  return ticks;
}

/** The step of 1, 2 or 5 × 10ⁿ nearest above `raw`. */
export function niceStep(raw: number): number {
  const power = 10 ** Math.floor(Math.log10(raw));
  const f = raw / power;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * power;
}

/** Tick values of a log axis over [lo, hi] (both > 0): each decade, and 2× and 5× when few decades are shown. */
export function logTicks(lo: number, hi: number): number[] {
  const ticks: number[] = [];
  const decades = Math.log10(hi / lo);
  const mantissas = decades <= 1.5 ? [1, 2, 5] : decades <= 3 ? [1, 3] : [1];
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) {
    for (const m of mantissas) {
      const v = roundTo(m * 10 ** e, 10 ** e);
      if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) ticks.push(v);
    }
  }
  return ticks;
}

/** `value` rounded to the decimals `step` needs, so that 0.1 + 0.2 prints as 0.3. */
function roundTo(value: number, step: number): number {
  const digits = Math.max(0, -Math.floor(Math.log10(step)) + 1);
  return Number(value.toFixed(Math.min(20, digits)));
}

/**
 * A tick label: as few decimals as the spacing of the ticks needs, exponent notation only for
 * numbers beyond 1e-3…1e5.
 */
export function formatTick(value: number, ticks: readonly number[]): string {
  if (value === 0) return '0';
  const a = Math.abs(value);
  if (a >= 1e5 || a < 1e-3) return value.toExponential(1).replace('e+', 'e');
  let step = Number.POSITIVE_INFINITY;
  for (let i = 1; i < ticks.length; i++)
    step = Math.min(step, Math.abs((ticks[i] as number) - (ticks[i - 1] as number)));
  if (!Number.isFinite(step) || step === 0) step = a;
  const decimals = Math.max(0, Math.min(6, -Math.floor(Math.log10(step) + 1e-9)));
  return value.toFixed(decimals);
}

/** A number with `digits` significant digits, plain when it reads well so, else with a power of ten. */
export function formatNumber(value: number, digits = 3): string {
  if (!Number.isFinite(value)) return String(value);
  const a = Math.abs(value);
  if (a !== 0 && (a >= 1e5 || a < 1e-3)) {
    const [m, e] = value.toExponential(digits - 1).split('e');
    return `${m} × 10${superscript(Number(e))}`;
  }
  return Number(value.toPrecision(digits)).toString();
}

const superscripts = '⁰¹²³⁴⁵⁶⁷⁸⁹';

/** An integer in superscript digits (−12 → ⁻¹²). */
export function superscript(n: number): string {
  return `${n < 0 ? '⁻' : ''}${String(Math.abs(n))
    .split('')
    .map((d) => superscripts[Number(d)])
    .join('')}`;
}
