// The coupled system against what it must conserve and what the closures predict.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import { CoupledSimulation, dragCoefficient, terminalVelocity } from '../dist/index.js';
import {
  depositedBed,
  ergun,
  fixedBed,
  hinderedSettling,
  latticeResponseIn,
  latticeResponseOffsets,
  loneSphere,
  suspension,
} from './helpers.mjs';

describe('momentum exchange', () => {
  for (const drag of ['di-felice', 'beetstra', 'gidaspow']) {
    it(`fluid + particles momentum is conserved to round-off in a periodic box without gravity (${drag})`, () => {
      const { particles, sim } = suspension({ count: 27, drag });
      const start = sim.momentum();
      const total0 = start.fluid.map((x, a) => x + start.particles[a]);
      const scale = Math.hypot(...start.particles);
      assert.ok(scale > 0);
      sim.step(300);
      const end = sim.momentum();
      // The spheres gave momentum to the fluid...
      assert.ok(Math.hypot(...end.fluid) > 0.05 * scale, `fluid ${end.fluid}`);
      // ...and the sum stayed.
      for (let a = 0; a < 3; a++) {
        const total = end.fluid[a] + end.particles[a];
        assert.ok(Math.abs(total - total0[a]) <= 1e-12 * scale, `axis ${a}: ${total} vs ${total0[a]} (scale ${scale})`);
      }
      // Drag forces are the opposite of what the spheres gave: a zero-copy view of N×3.
      assert.equal(sim.dragForces.length, 3 * particles.sphereCount);
      sim.release();
      particles.release();
    });
  }

  it('the void fraction holds every sphere volume', () => {
    const { particles, sim } = suspension({ count: 27 });
    sim.step(1);
    const eps = sim.voidFraction;
    assert.equal(eps.length, 6 * 6 * 6);
    const cell = sim.cellSize ** 3;
    let solid = 0;
    for (const e of eps) solid += (1 - e) * cell;
    const expected = 27 * (4 / 3) * Math.PI * 5e-5 ** 3;
    assert.ok(Math.abs(solid - expected) < 1e-12 * expected, `${solid} vs ${expected}`);
    sim.release();
    particles.release();
  });
});

describe('closures', () => {
  it("give Stokes' drag (Di Felice: 0.96 of it) to a lone sphere at low Reynolds number", () => {
    const stokes = 3 * Math.PI * 1e-3 * 1e-4;
    assert.ok(Math.abs(dragCoefficient('gidaspow', 1, 1e-4, 1e-12, 1e-3, 1000) / stokes - 1) < 1e-6);
    assert.ok(Math.abs(dragCoefficient('beetstra', 1, 1e-4, 1e-12, 1e-3, 1000) / stokes - 1) < 1e-6);
    assert.ok(Math.abs(dragCoefficient('di-felice', 1, 1e-4, 0, 1e-3, 1000) / stokes - 0.96) < 1e-12);
  });

  it("terminal velocities by each closure's own drag", () => {
    // Stokes regime: U = W / (3π μ d) (Di Felice: / 0.96).
    const weight = 1e-12; // Re ≈ 1e-6
    const stokes = weight / (3 * Math.PI * 1e-2 * 1e-4);
    assert.ok(Math.abs(terminalVelocity('gidaspow', 1e-4, weight, 1e-2, 1000) / stokes - 1) < 1e-3);
    assert.ok(Math.abs(terminalVelocity('di-felice', 1e-4, weight, 1e-2, 1000) / (stokes / 0.96) - 1) < 1e-3);
    // Re = 100 by the standard curve: C_d = 24/Re (1 + 0.15 Re^0.687).
    const d = 1e-3;
    const u = 0.1; // Re = 100 in water
    const cd = (24 / 100) * (1 + 0.15 * 100 ** 0.687);
    const w = 0.5 * cd * 1000 * ((Math.PI * d * d) / 4) * u * u;
    assert.ok(Math.abs(terminalVelocity('gidaspow', d, w, 1e-3, 1000) / u - 1) < 1e-9);
  });
});

describe('fixed bed', () => {
  // CFDEMcoupling's ErgunTestMPI tutorial: d = 1 mm, bed void fraction 0.451335, gas of 10 kg/m³ and
  // ν = 1.5e-4 m²/s, U from 0.002 to 0.02 m/s (Re_p ≈ 0.013 to 0.13). Here the same gas and spheres
  // (void fraction 0.4510) at three superficial velocities giving Re_p = ρUd/μ = 0.1, 10 and 100.
  const d = 1e-3;
  const mu = 1.5e-3;
  const rho = 10;
  it('pressure drop per length within 5% of Ergun at Re_p 0.1, 10 and 100 (Gidaspow)', () => {
    const bed = fixedBed({ d });
    assert.ok(Math.abs(bed.voidFraction - 0.451) < 1e-3, `${bed.voidFraction}`);
    for (const re of [0.1, 10, 100]) {
      const u = (re * mu) / (rho * d);
      const sim = new CoupledSimulation({
        particles: bed.particles,
        fluid: { cellSize: bed.cellSize, viscosity: mu, density: rho, drive: { superficialVelocity: [u, 0, 0] } },
        drag: 'gidaspow',
      });
      let previous = 0;
      let dp = 0;
      for (let k = 0; k < 100; k++) {
        sim.step(20);
        dp = sim.pressureDrop('x');
        if (Math.abs(dp - previous) < 1e-9 * Math.abs(dp)) break;
        previous = dp;
      }
      const report = sim.step(0);
      assert.ok(Math.abs(report.superficialVelocity[0] / u - 1) < 1e-6, `superficial ${report.superficialVelocity}`);
      const ratio = dp / bed.length / ergun(bed.voidFraction, u, d, mu, rho);
      // How stiff the drag is for the fluid over its step: Δt Σβ/(ερV_cell); an explicit drag is
      // unstable above 2. The gas at Re_p 0.1 is far above: the semi-implicit drag takes it.
      const eps = bed.voidFraction;
      const beta = dragCoefficient('gidaspow', eps, d, u / eps, mu, rho);
      const stiffness = (sim.timestepReport.timestep * (1 - eps) * beta) / (eps * rho * ((Math.PI * d ** 3) / 6));
      console.log(
        `fixed bed, Re_p ${re}: Δp/L over Ergun's ${ratio.toFixed(4)} (drag stiffness over a fluid step ${stiffness.toFixed(1)})`,
      );
      assert.ok(Math.abs(ratio - 1) < 0.05, `Re ${re}: ${ratio}`);
      if (re === 0.1) assert.ok(stiffness > 2, `${stiffness}`);
      // The spheres hold still: the whole drop is carried by the fixed bed.
      assert.equal(Math.hypot(...bed.particles.momentum()), 0);
      sim.release();
    }
    bed.particles.release();
  });
});

describe('fluidized bed', () => {
  it('fluidization: the pressure drop plateaus at the buoyant weight per area; U_mf within 15% of Wen–Yu', () => {
    const mu = 1e-3;
    const rho = 1000;
    const bed = depositedBed();
    const { d } = bed;
    const count = bed.particles.sphereCount;
    const weightPerArea = (count * Math.PI * d ** 3 * 1500 * 9.81) / 6 / bed.area;
    // Wen & Yu (1966): Re_mf = √(33.7² + 0.0408 Ar) − 33.7.
    const ar = (d ** 3 * rho * 1500 * 9.81) / mu ** 2;
    const wenYu = ((Math.sqrt(33.7 ** 2 + 0.0408 * ar) - 33.7) * mu) / (rho * d);
    const top = () => {
      let z = 0;
      const p = bed.particles.positions;
      for (let i = 2; i < p.length; i += 3) z = Math.max(z, p[i]);
      return z;
    };
    const settled = top();
    // One coupled simulation, its step chosen for the fastest drive, the drive changed in place.
    const sim = new CoupledSimulation({
      particles: bed.particles,
      fluid: {
        cellSize: bed.cellSize,
        viscosity: mu,
        density: rho,
        drive: { superficialVelocity: [0, 0, 3 * wenYu] },
      },
      drag: 'gidaspow',
    });
    const drop = (u) => {
      sim.setDrive({ superficialVelocity: [0, 0, u] });
      const slice = Math.ceil(0.02 / sim.timestepReport.timestep);
      let sum = 0;
      for (let k = 0; k < 10; k++) {
        sim.step(slice);
        if (k >= 5) sum += sim.pressureDrop('z');
      }
      return sum / 5;
    };
    // Below minimum fluidization the bed stays packed and the drop grows with the velocity (the
    // Ergun branch, linear at Re_mf ≈ 1): its slope gives U_mf where it meets the plateau.
    const below = drop(0.5 * wenYu);
    assert.ok(top() < 1.02 * settled, `the packed bed moved: ${top()} vs ${settled}`);
    const minimum = (0.5 * wenYu * weightPerArea) / below;
    console.log(`fluidization: U_mf ${(minimum / wenYu).toFixed(3)} × Wen–Yu's`);
    assert.ok(Math.abs(minimum / wenYu - 1) < 0.15, `U_mf ${minimum} m/s vs Wen–Yu ${wenYu} m/s`);
    // Well above it the bed is fluidized: it expands and carries its buoyant weight.
    const above = drop(3 * wenYu);
    console.log(`fluidization: the drop at 3 U_mf ${(above / weightPerArea).toFixed(3)} × the buoyant weight per area`);
    assert.ok(Math.abs(above / weightPerArea - 1) < 0.05, `plateau ${above} Pa vs bed weight ${weightPerArea} Pa`);
    assert.ok(top() > 1.05 * settled, `the bed did not expand: ${top()} vs ${settled}`);
    sim.release();
    bed.particles.release();
  });
});

// The addon itself, for the self-correction's table (not part of the package's API).
const addon = createRequire(import.meta.url)('../native/build/Release/coupling.node');

describe('settling', () => {
  it("a lone sphere at Re_p 0.008 settles at Stokes' terminal velocity (Di Felice's, with the box's periodic images) within 3%", () => {
    const { ratio, hasimoto } = loneSphere({ reynolds: 0.008 });
    console.log(
      `lone sphere, Re_p 0.008, 16³ cells of 3 d: v/v_t ${ratio.toFixed(4)}, Hasimoto's ${hasimoto.toFixed(4)}`,
    );
    assert.ok(Math.abs(ratio / hasimoto - 1) < 0.03, `v/v_t ${ratio} vs ${hasimoto}`);
  });

  for (const reynolds of [10, 100]) {
    it(`a lone sphere at Re_p ${reynolds} settles at the closure's terminal velocity within 5%`, () => {
      const { ratio } = loneSphere({ reynolds, nz: 64 });
      console.log(`lone sphere, Re_p ${reynolds}, 16 × 16 × 64 cells of 3 d: v/v_t ${ratio.toFixed(4)}`);
      assert.ok(Math.abs(ratio - 1) < 0.05, `v/v_t ${ratio}`);
    });
  }

  it('hindered settling: the Richardson–Zaki exponent within 10% of 4.65 (Re_p < 0.2)', () => {
    const { points, exponent } = hinderedSettling();
    for (const p of points)
      console.log(`φ ${p.phi}: v/v_t ${p.ratio.toFixed(4)}, (1 − φ)^4.65 ${((1 - p.phi) ** 4.65).toFixed(4)}`);
    console.log(`Richardson–Zaki exponent ${exponent.toFixed(3)}`);
    assert.ok(Math.abs(exponent / 4.65 - 1) < 0.1, `n = ${exponent}`);
  });

  it("the self-correction's lattice response is the fluid lattice's own (boxes of 16³ and 24³, images removed)", () => {
    // A unit force in one cell, its opposite spread over all, to the steady state: the velocity
    // there and in its neighbours, × ν, with Hasimoto's 1/L images extrapolated away.
    const small = latticeResponseIn(16);
    const large = latticeResponseIn(24);
    latticeResponseOffsets.forEach(([, d, a], k) => {
      const free = large[k] + 2 * (large[k] - small[k]);
      const table = addon.latticeResponse(d[0], d[1], d[2], a, 0);
      // The table comes from boxes of 32³ and 48³; the off-diagonal values do not follow the
      // images' 1/L law, so the small boxes' extrapolation is within 2% there (3e-3 on the diagonal).
      const tolerance = a === 0 ? 3e-3 : 0.02;
      assert.ok(Math.abs(free / table - 1) < tolerance, `offset ${d}, component ${a}: ${free} vs ${table}`);
    });
  });
});
