// Settling against the closures, printed with the self-correction on and off: a lone sphere at
// Re_p 0.008 (against Stokes' terminal velocity with the box's periodic images), 10 and 100
// (against the closure's terminal velocity), and the Richardson–Zaki exponent of hindered
// settling against 4.65. The same cases as the tests (test/helpers.mjs).
//   node scripts/settling.mjs
import { hinderedSettling, loneSphere } from '../test/helpers.mjs';

for (const selfCorrection of [true, false]) {
  console.log(`self-correction ${selfCorrection ? 'on' : 'off'}`);
  const stokes = loneSphere({ reynolds: 0.008, selfCorrection });
  console.log(
    `  lone sphere, Re_p 0.008, 16³ cells of 3 d: v/v_t ${stokes.ratio.toFixed(4)} (Hasimoto's periodic array ${stokes.hasimoto.toFixed(4)})`,
  );
  for (const reynolds of [10, 100]) {
    const { ratio } = loneSphere({ reynolds, nz: 64, selfCorrection });
    console.log(`  lone sphere, Re_p ${reynolds}, 16 × 16 × 64 cells of 3 d: v/v_t ${ratio.toFixed(4)}`);
  }
  const { points, exponent } = hinderedSettling({ selfCorrection });
  for (const p of points)
    console.log(`  φ ${p.phi}: v/v_t ${p.ratio.toFixed(4)}, (1 − φ)^4.65 = ${((1 - p.phi) ** 4.65).toFixed(4)}`);
  console.log(`  Richardson–Zaki exponent ${exponent.toFixed(3)} (4.65 at Re_p < 0.2)`);
}
