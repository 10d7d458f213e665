// Networks of images with known answers: a lattice of spheres and cylinders (one pore per
// sphere, one throat per cylinder, permeability beside @peclet/flow's direct simulation), a
// straight tube (Hagen–Poiseuille, formation factor = area ratio), a bundle of tubes (the
// Washburn steps of drainage) and access limitation.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { permeability } from '../../flow/dist/index.js';
import { extract } from '../dist/index.js';
import { sphereLattice, tubes } from './helpers.mjs';

const h = 1e-6;

describe('a lattice of spheres joined by cylinders', () => {
  const image = sphereLattice({ cells: 3, a: 21, R: 7, r: 3, voxelSize: h });
  const network = extract(image, { boundaries: ['x'] });

  it('gives exactly one pore per sphere and one throat per cylinder, and a boundary pore per cylinder end', () => {
    const face = network.pores.face;
    const interior = face.filter((f) => f < 0).length;
    assert.equal(interior, 27);
    assert.equal(face.filter((f) => f === 0).length, 9);
    assert.equal(face.filter((f) => f === 1).length, 9);
    // 3 axes × 9 lines × 2 joints inside, plus one throat per boundary pore
    assert.equal(network.throatCount, 54 + 18);
  });

  it('measures the pores and throats within one voxel', () => {
    const { pores, throats } = network;
    // each region is its unit cell's pore space (the watershed divides each cylinder at its middle)
    const cell = (image.solid.length - image.solid.reduce((s, x) => s + x, 0)) / 27;
    for (let p = 0; p < network.poreCount; p++) {
      if (pores.face[p] >= 0) continue;
      assert.ok(Math.abs(pores.inscribedDiameter[p] / h - 14) <= 1, `pore ${p}: ${pores.inscribedDiameter[p] / h}`);
      assert.ok(
        Math.abs(pores.volume[p] / h ** 3 / cell - 1) < 0.05,
        `pore ${p}: ${pores.volume[p] / h ** 3} vs ${cell}`,
      );
    }
    for (let t = 0; t < network.throatCount; t++) {
      const [a, b] = [throats.conns[2 * t], throats.conns[2 * t + 1]];
      assert.ok(
        Math.abs(throats.inscribedDiameter[t] / h - 6) <= 1,
        `throat ${t}: ${throats.inscribedDiameter[t] / h}`,
      );
      if (pores.face[a] < 0 && pores.face[b] < 0) assert.ok(Math.abs(throats.length[t] / h - 21) < 1e-9);
      assert.ok(
        Math.abs(throats.area[t] / h ** 2 - Math.PI * 9) / (Math.PI * 9) < 0.1,
        `area ${throats.area[t] / h ** 2}`,
      );
    }
    // conduit lengths add up to the throat's length
    const c = network.throats.conduitLengths;
    for (let t = 0; t < network.throatCount; t++) {
      assert.ok(
        Math.abs(c[3 * t] + c[3 * t + 1] + c[3 * t + 2] - throats.length[t]) < 1e-12 * throats.length[t] + 1e-18,
      );
    }
  });

  it('has a network permeability within 10% of the direct simulation by @peclet/flow', async () => {
    const network_k = network.stokesFlow({ axis: 'x', conductance: 'hagen-poiseuille' }).permeability;
    const shapeFactor_k = network.stokesFlow({ axis: 'x', conductance: 'shape-factor' }).permeability;
    const direct = await permeability(image, { axis: 'x' });
    const ratio = network_k / direct.permeability;
    console.log(
      `lattice: network ${(network_k / h ** 2).toFixed(4)} voxel² (Hagen–Poiseuille), ${(shapeFactor_k / h ** 2).toFixed(4)} (shape factor); direct ${(direct.permeability / h ** 2).toFixed(4)}; ratios ${ratio.toFixed(3)} / ${(shapeFactor_k / direct.permeability).toFixed(3)}`,
    );
    direct.lattice.release();
    assert.ok(Math.abs(ratio - 1) < 0.1, `ratio ${ratio}`);
    assert.ok(Math.abs(shapeFactor_k / direct.permeability - 1) < 0.1, `ratio ${shapeFactor_k / direct.permeability}`);
  });
});

describe('a straight tube', () => {
  const { image, section } = tubes({ radii: [3], length: 30, voxelSize: h });
  const network = extract(image, { boundaries: ['x'] });
  const [, n1, n2] = image.shape;
  const area = n1 * n2 * h * h;

  it('is one pore capped by two boundary pores', () => {
    assert.equal(network.poreCount, 3);
    assert.equal(network.throatCount, 2);
  });

  it('has the permeability of Hagen–Poiseuille for its radius, and the voxelized radius within the voxelization error', () => {
    const r = network.pores.inscribedDiameter[0] / 2;
    const flow = network.stokesFlow({
      axis: 'x',
      conductance: 'hagen-poiseuille',
      viscosity: 1e-3,
      inletPressure: 2,
      outletPressure: 1,
    });
    const hp = (Math.PI * r ** 4) / 8 / area; // K = Q μ L / (A ΔP) for Q = π r⁴ ΔP / (8 μ L)
    assert.ok(Math.abs(flow.permeability / hp - 1) < 1e-9, `${flow.permeability} vs ${hp}`);
    assert.ok(Math.abs(flow.flowRate - (Math.PI * r ** 4 * 1) / (8 * 1e-3 * 30 * h)) < 1e-9 * flow.flowRate);
    // the radius the distance transform sees is the tube's to within a voxel
    const rArea = Math.sqrt(section[0] / Math.PI) * h;
    assert.ok(Math.abs(r - rArea) < h, `${r / h} vs ${rArea / h}`);
    assert.ok(Math.abs(r - 3 * h) < h);
  });

  it('has a formation factor equal to the area ratio (the tube’s voxelized section)', () => {
    const { formationFactor } = network.diffusion({ axis: 'x' });
    const tube = section[0] * h * h;
    assert.ok(Math.abs(formationFactor / (area / tube) - 1) < 1e-9, `${formationFactor} vs ${area / tube}`);
  });
});

describe('drainage', () => {
  const radii = [2, 3, 4.5, 6];
  const sigma = 0.48;
  const theta = 140;
  const entry = (r) => (-2 * sigma * Math.cos((theta * Math.PI) / 180)) / r;

  it('on a bundle of tubes reproduces the Washburn steps exactly', () => {
    const { image } = tubes({ radii, length: 20, voxelSize: h });
    const network = extract(image, { boundaries: ['x'] });
    const { pores } = network;
    const tubesOf = [];
    for (let p = 0; p < network.poreCount; p++) if (pores.face[p] < 0) tubesOf.push(p);
    assert.equal(tubesOf.length, radii.length);
    const volume = tubesOf.reduce((s, p) => s + pores.volume[p], 0);
    // each tube's entry pressure is the Washburn pressure of its inscribed radius
    const steps = tubesOf.map((p) => ({ p, pc: entry(pores.inscribedDiameter[p] / 2) })).sort((x, y) => x.pc - y.pc);
    const pressures = steps.flatMap(({ pc }) => [pc * (1 - 1e-9), pc * (1 + 1e-9)]);
    const curve = network.drainage({ contactAngle: theta, surfaceTension: sigma, pressures });
    let filled = 0;
    steps.forEach(({ p }, i) => {
      assert.equal(curve.saturation[2 * i], filled / volume, `below step ${i}`);
      filled += pores.volume[p];
      assert.ok(Math.abs(curve.saturation[2 * i + 1] - filled / volume) < 1e-14, `above step ${i}`);
    });
  });

  it('on a network is monotonic and access-limited: a pore behind a narrow throat fills at that throat’s pressure', () => {
    const network = extract(sphereLattice({ cells: 3, a: 21, R: 7, r: 3, voxelSize: h }), { boundaries: ['x'] });
    const curve = network.drainage({ contactAngle: theta, surfaceTension: sigma });
    for (let i = 1; i < curve.saturation.length; i++) assert.ok(curve.saturation[i] >= curve.saturation[i - 1]);
    assert.ok(Math.abs(curve.saturation.at(-1) - 1) < 1e-12);
    const { pores, throats } = network;
    for (let p = 0; p < network.poreCount; p++) {
      if (pores.face[p] >= 0) continue;
      // the sphere's own entry pressure is lower, yet it fills only once a throat into it does
      const own = entry(pores.inscribedDiameter[p] / 2);
      assert.ok(curve.poreInvaded[p] > own);
      let lowest = Number.POSITIVE_INFINITY;
      for (let t = 0; t < network.throatCount; t++) {
        if (throats.conns[2 * t] === p || throats.conns[2 * t + 1] === p)
          lowest = Math.min(lowest, curve.throatInvaded[t]);
      }
      assert.equal(curve.poreInvaded[p], lowest);
    }
  });

  it('invasion percolation fills every reachable pore, in order of entry pressure along the invaded cluster', () => {
    const network = extract(sphereLattice({ cells: 2, a: 21, R: 7, r: 3, voxelSize: h }), { boundaries: ['x'] });
    const ip = network.invasionPercolation({ contactAngle: theta, surfaceTension: sigma });
    for (let p = 0; p < network.poreCount; p++) assert.ok(ip.poreSequence[p] >= 0, `pore ${p} never invaded`);
    for (let s = 1; s < ip.saturation.length; s++) assert.ok(ip.saturation[s] >= ip.saturation[s - 1]);
  });
});

describe('thin images', () => {
  // A line or a slab one voxel thick: components too thin for a peak, some of them reaching the
  // labelled ones only through other such components (a watershed over the whole image passes
  // them; searching through solid alone left their voxels without a region).
  it('label every pore voxel, and the pores hold the whole pore space', () => {
    let s = 12345;
    const next = () => {
      s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
      return s / 2 ** 32;
    };
    for (const shape of [
      [1, 1, 60],
      [1, 16, 16],
    ]) {
      for (let k = 0; k < 25; k++) {
        const n = shape[0] * shape[1] * shape[2];
        const solid = Uint8Array.from({ length: n }, () => (next() < 0.4 ? 1 : 0));
        solid[0] = 0;
        solid[1] = 1;
        const pore = solid.reduce((a, x) => a + (x === 0 ? 1 : 0), 0);
        const network = extract({ solid, shape, voxelSize: 1 });
        const unlabelled = network.regions.filter((r, i) => solid[i] === 0 && r <= 0).length;
        assert.equal(unlabelled, 0, `${shape} #${k}: ${unlabelled} pore voxels without a region`);
        const volume = network.pores.volume.reduce((a, v) => a + v, 0);
        assert.ok(Math.abs(volume - pore) < 1e-9 * pore, `${shape} #${k}: pores hold ${volume} of ${pore}`);
        network.release();
      }
    }
  });
});

describe('open pore space', () => {
  // Three small grains in a 40³ box: the distance to solid is wider than the regions, and a pore
  // body as wide as its inscribed sphere carried more than the region's section (F came out 0.58).
  it('has a formation factor of 1/φ within 1%, never below 1', () => {
    const n = 40;
    const solid = new Uint8Array(n * n * n);
    for (const cx of [6, 14, 22])
      for (let i = 0; i < n; i++)
        for (let j = 0; j < n; j++)
          for (let k = 0; k < n; k++)
            if ((i + 0.5 - cx) ** 2 + (j + 0.5 - 20) ** 2 + (k + 0.5 - 20) ** 2 <= 4) solid[(i * n + j) * n + k] = 1;
    const network = extract({ solid, shape: [n, n, n], voxelSize: 1e-6 }, { boundaries: ['x'] });
    const F = network.diffusion({ axis: 'x' }).formationFactor;
    const inverse = 1 / network.porosity;
    network.release();
    assert.ok(F >= 1 && Math.abs(F / inverse - 1) < 0.01, `F = ${F}, 1/φ = ${inverse}`);
  });
});
