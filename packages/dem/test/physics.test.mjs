// Physics through the JS API: free fall, restitution, Coulomb incline,
// energy and momentum conservation.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Simulation } from '../dist/index.js';

const linear = (stiffness, restitution, friction) => ({ model: 'linear', stiffness, restitution, friction });
const sphereMass = (r, density) => ((density * 4) / 3) * Math.PI * r ** 3;

describe('free fall', () => {
  it('matches the exact discrete solution of velocity Verlet', () => {
    const g = [0.3, -1.2, -9.81];
    const x0 = [0.5, 0.5, 0.9];
    const v0 = [0.1, 0.2, 0.5];
    const simulation = new Simulation({
      box: { min: [0, 0, 0], max: [1, 1, 1] },
      periodic: true,
      gravity: g,
      timestep: 1e-4,
      contact: linear(1e4, 0.5, 0),
    });
    simulation.addSpheres({ positions: x0, radii: [0.01], density: 1000, velocities: v0 });
    for (const n of [1, 9, 990]) simulation.step(n);
    assert.equal(simulation.stepCount, 1000);
    const t = simulation.stepCount * simulation.timestep;
    for (let d = 0; d < 3; d++) {
      let expected = x0[d] + v0[d] * t + 0.5 * g[d] * t * t;
      expected -= Math.floor(expected); // periodic box of side 1
      assert.ok(
        Math.abs(simulation.positions[d] - expected) < 1e-12,
        `x[${d}] ${simulation.positions[d]} vs ${expected}`,
      );
      assert.ok(Math.abs(simulation.velocities[d] - (v0[d] + g[d] * t)) < 1e-12, `v[${d}]`);
    }
    assert.equal(simulation.forces[2], sphereMass(0.01, 1000) * g[2]);
  });
});

function headOn(contact) {
  const simulation = new Simulation({ box: { min: [0, 0, 0], max: [1, 1, 1] }, gravity: [0, 0, 0], contact });
  simulation.addSpheres({
    positions: [0.4, 0.5, 0.5, 0.6, 0.5, 0.5],
    radii: [0.05, 0.05],
    density: 1000,
    velocities: [0.5, 0, 0, -0.5, 0, 0],
  });
  const report = simulation.timestepReport;
  simulation.step(Math.ceil((0.2 / 1 + 4 * report.contactTime) / simulation.timestep));
  assert.equal(simulation.contacts().pairs.length, 0, 'spheres separated');
  const v = simulation.velocities;
  return (v[3] - v[0]) / 1.0;
}

describe('head-on collision', () => {
  for (const e of [0.3, 0.5, 0.9, 1]) {
    it(`linear, e = ${e}, within 1%`, () => {
      const measured = headOn(linear(1e4, e, 0.3));
      assert.ok(Math.abs(measured - e) < 0.01 * e, `measured ${measured}`);
    });
    it(`hertz-mindlin, e = ${e}, within 1%`, () => {
      const measured = headOn({
        model: 'hertz-mindlin',
        youngsModulus: 1e7,
        poissonRatio: 0.3,
        restitution: e,
        friction: 0.3,
      });
      assert.ok(Math.abs(measured - e) < 0.01 * e, `measured ${measured}`);
    });
  }
  it('linear damping follows e = exp(−πβ/√(ω0² − β²))', () => {
    // The inverse relation: β = −ln e·ω0/√(π² + ln² e) gives back e.
    const e = 0.5;
    const w0 = 1;
    const beta = (-Math.log(e) * w0) / Math.sqrt(Math.PI ** 2 + Math.log(e) ** 2);
    assert.ok(Math.abs(Math.exp((-Math.PI * beta) / Math.sqrt(w0 * w0 - beta * beta)) - e) < 1e-12);
    assert.ok(Math.abs(headOn(linear(1e4, e, 0)) - e) < 0.01 * e);
  });
});

function incline(degrees, friction) {
  const g = 9.81;
  const theta = (degrees * Math.PI) / 180;
  const simulation = new Simulation({
    box: { min: [0, 0, 0], max: [1, 1, 1] },
    periodic: [true, true, false],
    gravity: [g * Math.sin(theta), 0, -g * Math.cos(theta)],
    rotation: false,
    contact: linear(1e5, 0.3, friction),
  });
  const r = 0.01;
  const overlap = (sphereMass(r, 2500) * g * Math.cos(theta)) / 1e5; // static: no bounce
  simulation.addSpheres({ positions: [0.5, 0.5, r - overlap], radii: [r], density: 2500 });
  const dt = simulation.timestep;
  simulation.step(Math.round(0.05 / dt));
  const v1 = simulation.velocities[0];
  const x1 = simulation.positions[0];
  const measure = Math.round(0.2 / dt);
  simulation.step(measure);
  let moved = simulation.positions[0] - x1;
  moved -= Math.floor(moved + 0.5);
  return { acceleration: (simulation.velocities[0] - v1) / (measure * dt), moved, speed: simulation.velocities[0] };
}

describe('incline (rotation off): Coulomb stick and slide, μ = 0.5', () => {
  for (const degrees of [10, 20, 26]) {
    it(`sticks at ${degrees}° (tan θ < μ)`, () => {
      const { speed, moved } = incline(degrees, 0.5);
      assert.ok(Math.abs(speed) < 1e-6, `speed ${speed}`);
      assert.ok(Math.abs(moved) < 1e-9, `moved ${moved}`);
    });
  }
  for (const degrees of [30, 35, 50]) {
    it(`slides at ${degrees}° with a = g(sin θ − μ cos θ) within 1%`, () => {
      const theta = (degrees * Math.PI) / 180;
      const expected = 9.81 * (Math.sin(theta) - 0.5 * Math.cos(theta));
      const { acceleration } = incline(degrees, 0.5);
      assert.ok(Math.abs(acceleration - expected) < 0.01 * expected, `a ${acceleration} vs ${expected}`);
    });
  }
});

// Deterministic pseudo-random numbers for the test set-ups.
function random(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('elastic gas (e = 1, no gravity, no friction)', () => {
  it('conserves energy to < 1e-4 over 10^4 steps and momentum to round-off', async () => {
    // 1000 spheres on a jittered lattice at solid fraction ~0.3 in a periodic cube.
    const n = 10;
    const r = 0.5;
    const spacing = 1.6;
    const side = n * spacing;
    const next = random(7);
    const positions = [];
    const velocities = [];
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++)
        for (let k = 0; k < n; k++) {
          positions.push(...[i, j, k].map((c) => (c + 0.5) * spacing + (next() - 0.5) * 0.5));
          velocities.push(next() - 0.5, next() - 0.5, next() - 0.5);
        }
    const mean = [0, 1, 2].map((d) => velocities.filter((_, i) => i % 3 === d).reduce((a, b) => a + b) / n ** 3);
    for (let i = 0; i < velocities.length; i++) velocities[i] -= mean[i % 3];
    const simulation = new Simulation({
      box: { min: [0, 0, 0], max: [side, side, side] },
      periodic: true,
      gravity: [0, 0, 0],
      contact: linear(1e4, 1, 0),
    });
    simulation.addSpheres({ positions, radii: new Float64Array(n ** 3).fill(r), density: 1, velocities });
    const total = () => simulation.kineticEnergy() + simulation.elasticEnergy();
    const e0 = total();
    const p0 = simulation.momentum();
    let scale = 0;
    const v = simulation.velocities;
    for (let i = 0; i < n ** 3; i++) scale += Math.hypot(v[3 * i], v[3 * i + 1], v[3 * i + 2]) * sphereMass(r, 1);
    let worst = 0;
    let worstMomentum = 0;
    let contacts = 0;
    await simulation.run({
      steps: 10_000,
      progressInterval: 20,
      onProgress: () => {
        worst = Math.max(worst, Math.abs(total() - e0) / e0);
        contacts += simulation.contacts().overlaps.length;
        const p = simulation.momentum();
        for (let d = 0; d < 3; d++) worstMomentum = Math.max(worstMomentum, Math.abs(p[d] - p0[d]));
      },
    });
    assert.equal(simulation.stepCount, 10_000);
    assert.ok(contacts > 0, 'collisions happened');
    assert.ok(worst < 1e-4, `energy drift ${worst}`);
    assert.ok(worstMomentum < 1e-12 * scale, `momentum ${worstMomentum} vs scale ${scale}`);
  });
});
