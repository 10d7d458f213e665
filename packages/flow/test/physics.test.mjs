// The solver against exact and published answers: plane Poiseuille flow to
// round-off (TRT, Λ = 3/16) and BGK's known wall slip; permeability = H²/12;
// Zick & Homsy's drag on simple cubic sphere arrays and the order of
// convergence; conservation and symmetry; gray media against their analytic
// permeability; the two drives against each other.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { Lattice, permeability } from '../dist/index.js';
import { sphereCell, zickHomsy } from './helpers.mjs';

const live = [];
/** Lattices made by a test are released after it. */
const track = (lattice) => (live.push(lattice), lattice);
afterEach(() => {
  for (const lattice of live.splice(0)) lattice.release();
});

function channelProfile({ width, precision = 'f64', relaxation, viscosity }) {
  const force = 1e-5;
  const lattice = track(
    new Lattice({
      shape: [1, width, 1],
      periodic: [true, false, true],
      bodyForce: [force, 0, 0],
      precision,
      ...(relaxation ? { relaxation } : {}),
      ...(viscosity ? { viscosity } : {}),
    }),
  );
  lattice.step(Math.ceil((40 * width * width) / (lattice.viscosity * 10)) + 2000);
  const u = Array.from({ length: width }, (_, y) => lattice.velocity[3 * y]);
  return { u, nu: lattice.viscosity, force };
}

describe('plane Poiseuille flow', () => {
  for (const precision of ['f64', 'f32']) {
    for (const width of [4, 8, 17]) {
      it(`TRT Λ = 3/16, ${precision}, ${width} nodes: the parabola with walls halfway, to round-off`, () => {
        const { u, nu, force } = channelProfile({ width, precision });
        const peak = (force / (8 * nu)) * width * width;
        const error = Math.max(
          ...u.map((v, y) => Math.abs(v - (force / (2 * nu)) * (y + 0.5) * (width - 0.5 - y)) / peak),
        );
        assert.ok(error < (precision === 'f64' ? 1e-10 : 1e-5), `relative error ${error}`);
      });
    }
  }

  it('BGK slips at the walls by F(16Λ − 3)/(24ν) with Λ = (τ − ½)²: the exact parabola misses it', () => {
    const tau = 1.5;
    const width = 9;
    const { u, nu, force } = channelProfile({ width, relaxation: { model: 'bgk', tau } });
    const slip = (force * (16 * (tau - 0.5) ** 2 - 3)) / (24 * nu);
    const exact = u.map((_, y) => (force / (2 * nu)) * (y + 0.5) * (width - 0.5 - y));
    const peak = (force / (8 * nu)) * width * width;
    assert.ok(Math.abs(u[0] - exact[0]) / peak > 1e-2, 'the comparison can fail');
    for (let y = 0; y < width; y++) assert.ok(Math.abs(u[y] - exact[y] - slip) / peak < 1e-10);
  });

  // The flux is the sum of the node velocities: the midpoint rule over the exact parabola, which
  // exceeds its integral by 1/24 voxel² of permeability. So a slit of aperture H reports
  // (H²/12 + 1/24)·φ exactly, H²/12 in the limit of fine voxels.
  it('permeability() of a slit of aperture H is (H²/12 + 1/24)·porosity voxel², exactly', async () => {
    for (const h of [4, 7]) {
      const shape = [3, h + 2, 1];
      const solid = new Uint8Array(shape[0] * shape[1]);
      for (let i = 0; i < shape[0]; i++) solid[i * shape[1]] = solid[i * shape[1] + h + 1] = 1;
      const result = await permeability(
        { solid, shape, voxelSize: 1e-6 },
        { buffer: 0, sides: 'periodic', tolerance: 1e-13, maxSteps: 200_000 },
      );
      result.lattice.release();
      const expected = ((h * h) / 12 + 1 / 24) * (h / (h + 2)) * 1e-12;
      assert.ok(Math.abs(result.permeability / expected - 1) < 1e-9, `${result.permeability} vs ${expected}`);
    }
  });
});

describe('Stokes flow through simple cubic arrays of spheres (Zick & Homsy 1982)', () => {
  // K = F/(6πμaU): F the force per sphere, the body force times the cell volume (the mean
  // pressure gradient it stands for); U the superficial velocity; spheres given by their signed
  // distance (interpolated bounce-back).
  function drag(c, n) {
    const { sdf, radius } = sphereCell(c, n);
    const lattice = track(
      new Lattice({ shape: [n, n, n], sdf, viscosity: 3, bodyForce: [1e-6, 0, 0], inertia: false }),
    );
    let previous = 0;
    let u = 0;
    for (let steps = 0; steps < 50_000; steps += 100) {
      u = lattice.step(100).meanVelocity[0];
      if (Math.abs(u - previous) < 1e-8 * u) break;
      previous = u;
    }
    return (1e-6 * n ** 3) / (6 * Math.PI * lattice.viscosity * radius * u);
  }

  for (const [c, n] of [
    [0.125, 64],
    [0.216, 54],
    [0.343, 46],
  ]) {
    it(`solid fraction ${c}, 40 nodes per diameter: within 1%`, () => {
      const k = drag(c, n);
      const expected = zickHomsy[c];
      assert.ok(Math.abs(k / expected - 1) < 0.01, `K = ${k}, Zick & Homsy ${expected}`);
    });
  }

  for (const [c, n] of [
    [0.027, 48],
    [0.064, 36],
    [0.45, 24],
    [0.5236, 20],
  ]) {
    it(`solid fraction ${c}, ${Math.round(2 * n * Math.cbrt((3 * c) / (4 * Math.PI)))} nodes per diameter: within 2%`, () => {
      const k = drag(c, n);
      const expected = zickHomsy[c];
      assert.ok(Math.abs(k / expected - 1) < 0.02, `K = ${k}, Zick & Homsy ${expected}`);
    });
  }

  it('converges at second order or better in the node spacing (solid fraction 0.125)', () => {
    const [coarse, middle, fine] = [12, 24, 48].map((n) => drag(0.125, n));
    const order = Math.log2((middle - coarse) / (fine - middle));
    assert.ok(order > 1.8, `order ${order} (K = ${coarse}, ${middle}, ${fine})`);
  });
});

describe('conservation and symmetry', () => {
  it('a periodic run conserves mass to round-off; a symmetric obstacle gives a symmetric field', () => {
    const n = 24;
    const solid = new Uint8Array(n * n * n);
    // A cube obstacle centred in y and z: the flow along x is mirror-symmetric about both.
    for (let i = 8; i < 14; i++)
      for (let j = 9; j < 15; j++) for (let k = 9; k < 15; k++) solid[(i * n + j) * n + k] = 1;
    const lattice = track(new Lattice({ shape: [n, n, n], solid, bodyForce: [1e-5, 0, 0], inertia: true }));
    const before = lattice.step(1).mass;
    const after = lattice.step(600).mass;
    assert.ok(Math.abs(after / before - 1) < 1e-13, `mass ${before} → ${after}`);
    const u = lattice.velocity;
    let asymmetry = 0;
    let scale = 0;
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        for (let k = 0; k < n; k++) {
          const v = (i * n + j) * n + k;
          const mirror = (i * n + (n - 1 - j)) * n + k;
          asymmetry = Math.max(
            asymmetry,
            Math.abs(u[3 * v] - u[3 * mirror]),
            Math.abs(u[3 * v + 1] + u[3 * mirror + 1]),
          );
          scale = Math.max(scale, Math.abs(u[3 * v]));
        }
      }
    }
    assert.ok(asymmetry < 1e-12 * scale, `asymmetry ${asymmetry} of ${scale}`);
  });

  it('streaming in place gives the fields of two lattices to the bit, on a cube with rows direct and rows not', () => {
    // A cube obstacle in a periodic box (dense: the rows clear of it pull and push directly) and
    // the same in a box with a pressure drive (sparse: links through the faces corrected).
    const n = 16;
    const solid = new Uint8Array(n * n * n);
    for (let i = 5; i < 9; i++)
      for (let j = 6; j < 10; j++) for (let k = 5; k < 11; k++) solid[(i * n + j) * n + k] = 1;
    const setups = [
      { layout: 'dense', bodyForce: [1e-5, 2e-6, 0] },
      {
        layout: 'sparse',
        periodic: [false, true, true],
        pressure: { axis: 'x', inletDensity: 1.001, outletDensity: 0.999 },
      },
    ];
    for (const setup of setups) {
      for (const precision of ['f64', 'f32']) {
        const make = (scheme) => {
          if (scheme) process.env.PECLET_FLOW_STREAMING = scheme;
          try {
            return track(new Lattice({ shape: [n, n, n], solid, precision, inertia: true, ...setup }));
          } finally {
            delete process.env.PECLET_FLOW_STREAMING;
          }
        };
        const inPlace = make(undefined);
        const twoLattice = make('two-lattice');
        assert.equal(inPlace.info.streaming, 'in-place');
        assert.equal(twoLattice.info.streaming, 'two-lattice');
        const copy = 19 * (precision === 'f32' ? 4 : 8) * inPlace.info.fluidNodes;
        assert.ok(twoLattice.info.bytes - inPlace.info.bytes >= copy, 'one copy of the populations less');
        for (const steps of [1, 4, 51]) {
          inPlace.step(steps);
          twoLattice.step(steps);
          assert.deepEqual(inPlace.velocity, twoLattice.velocity, `${setup.layout} ${precision} ${steps}`);
          assert.deepEqual(inPlace.density, twoLattice.density);
        }
      }
    }
    // Interpolated walls read a neighbour's value of the step before: two lattices.
    const { sdf } = sphereCell(0.125, 12);
    assert.equal(track(new Lattice({ shape: [12, 12, 12], sdf })).info.streaming, 'two-lattice');
  });
});

describe('gray voxels', () => {
  it('a uniform gray medium of solid fraction s has k = ν(1 − s)/(2s), under a body force and a pressure drop', () => {
    for (const s of [0.1, 0.4, 0.9]) {
      const solidFraction = new Float64Array(4 * 4 * 4).fill(s);
      const lattice = track(new Lattice({ shape: [4, 4, 4], solidFraction, bodyForce: [1e-5, 0, 0], viscosity: 0.1 }));
      const u = lattice.step(3000).meanVelocity[0];
      const k = (0.1 * u) / 1e-5;
      assert.ok(Math.abs(k / ((0.1 * (1 - s)) / (2 * s)) - 1) < 1e-10, `s ${s}: k ${k}`);

      const driven = track(
        new Lattice({
          shape: [10, 2, 2],
          solidFraction: new Float64Array(40).fill(s),
          periodic: [false, true, true],
          pressure: { axis: 'x', inletDensity: 1.0005, outletDensity: 0.9995 },
          viscosity: 0.1,
          inertia: false,
        }),
      );
      const ud = driven.step(20_000).meanVelocity[0];
      const kd = (0.1 * ud) / (0.001 / 3 / 10);
      assert.ok(Math.abs(kd / ((0.1 * (1 - s)) / (2 * s)) - 1) < 1e-8, `pressure, s ${s}: k ${kd}`);
    }
  });
});
