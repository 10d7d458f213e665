/**
 * The contact-law constants of native/contact_law.cpp, in double precision, for the WebGPU
 * kernels: linear damping from restitution in closed form, and the Hertz (Tsuji-form) damping
 * constant α by bisection over the same fine-step RK4 solution of the dimensionless collision.
 * @internal
 */

/** What the kernels need of the contact law (SI). */
export interface LawConstants {
  readonly linear: boolean;
  readonly friction: number;
  /** linear: kn, kt, cn/√m*, ct/√m*; hertz-mindlin: E*, G*, α, 0. */
  readonly law: readonly [number, number, number, number];
}

// y'' = −y^{3/2} − α·y^{1/4}·y', y(0) = 0, y'(0) = 1: restitution (exit speed) for α.
function restitutionForDamping(alpha: number): number {
  const h = 2e-4;
  const derivative = (y: number, v: number): [number, number] => {
    const yy = Math.max(y, 0);
    return [v, -yy * Math.sqrt(yy) - alpha * Math.sqrt(Math.sqrt(yy)) * v];
  };
  let y = 0;
  let v = 1;
  let t = 0;
  for (let i = 0; i < 2_000_000; i++) {
    const [k1y, k1v] = derivative(y, v);
    const [k2y, k2v] = derivative(y + 0.5 * h * k1y, v + 0.5 * h * k1v);
    const [k3y, k3v] = derivative(y + 0.5 * h * k2y, v + 0.5 * h * k2v);
    const [k4y, k4v] = derivative(y + h * k3y, v + h * k3v);
    const nextY = y + (h / 6) * (k1y + 2 * k2y + 2 * k3y + k4y);
    const nextV = v + (h / 6) * (k1v + 2 * k2v + 2 * k3v + k4v);
    if (nextY <= 0 && t > 0) {
      const f = y / (y - nextY);
      return -(v + f * (nextV - v));
    }
    y = nextY;
    v = nextV;
    t += h;
  }
  return 0;
}

/** α of the Tsuji-form Hertz dashpot that gives `restitution` (0 for e = 1). */
export function hertzDamping(restitution: number): number {
  if (restitution >= 1) return 0;
  let lo = 0;
  let hi = 1;
  while (restitutionForDamping(hi) > restitution && hi < 1e3) hi *= 2;
  for (let i = 0; i < 40; i++) {
    const mid = 0.5 * (lo + hi);
    if (restitutionForDamping(mid) > restitution) lo = mid;
    else hi = mid;
  }
  return 0.5 * (lo + hi);
}

/** Constants from the normalized options (already validated by the native constructor). */
export function lawConstants(options: Record<string, unknown>): LawConstants {
  const restitution = options.restitution as number;
  const friction = options.friction as number;
  if (options.model === 1) {
    const stiffness = options.stiffness as number;
    const logE = Math.log(restitution);
    const zeta = -logE / Math.sqrt(Math.PI * Math.PI + logE * logE);
    const tangential = stiffness * (options.tangentialStiffnessRatio as number);
    return {
      linear: true,
      friction,
      law: [stiffness, tangential, 2 * zeta * Math.sqrt(stiffness), 2 * zeta * Math.sqrt(tangential)],
    };
  }
  const nu = options.poissonRatio as number;
  const youngsModulus = options.youngsModulus as number;
  const shear = youngsModulus / (2 * (1 + nu));
  return {
    linear: false,
    friction,
    law: [youngsModulus / (2 * (1 - nu * nu)), shear / (2 * (2 - nu)), hertzDamping(restitution), 0],
  };
}
