// Network writers and statistics on a hand-built network: Statoil files read back by an
// independent reader (test/statoil-reader.mjs) and checked value by value against numbers worked
// out by hand; the OpenPNM dictionary through JSON; statistics; bad arguments; atomic writes.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { networkStatistics, networkToJSON, writeStatoil } from '../dist/index.js';
import { readStatoil } from './statoil-reader.mjs';

const root = mkdtempSync(join(tmpdir(), 'peclet-pnm-writers-'));
after(() => rmSync(root, { recursive: true, force: true }));
let dirs = 0;
const freshDir = () => {
  const dir = join(root, `d${dirs++}`);
  mkdirSync(dir);
  return dir;
};

const circle = 1 / (4 * Math.PI);

// Seven pores on a 6 × 3 × 3 image of 1 µm voxels:
//   0 A interior       1 x− boundary (inlet)    2 B interior    3 y− boundary (capping B)
//   4 C interior       5 x+ boundary (outlet)   6 D interior, isolated
// Five throats: A–inlet, A–B, B–ybound, B–C, C–outlet.
const coords = [
  [1.5e-6, 1.5e-6, 1.5e-6],
  [0, 1.5e-6, 1.5e-6],
  [3.1e-6, 1.2e-6, 1.7e-6],
  [3.1e-6, 0, 1.7e-6],
  [4.6e-6, 1.4e-6, 1.6e-6],
  [6e-6, 1.4e-6, 1.6e-6],
  [2e-6 / 3, 2.5e-6, 0.5e-6],
];
const pore = {
  volume: [1e-18 / 3, 0, 2.2e-18, 0, 1.7e-18, 0, 0.1e-18],
  inscribedDiameter: [1.2e-6, 1.1e-6, 1.6e-6, 1.0e-6, 1.4e-6, 1.3e-6, 0.7e-6],
  equivalentDiameter: [1.3e-6, 0, 1.7e-6, 0, 1.5e-6, 0, 0.6e-6],
  surfaceArea: [4e-12, 0, 6e-12, 0, 5e-12, 0, 1e-12],
  label: [1, 1, 2, 2, 3, 3, 4],
  face: [-1, 0, -1, 2, -1, 1, -1],
};
const conns = [
  [0, 1],
  [0, 2],
  [2, 3],
  [2, 4],
  [4, 5],
];
const throat = {
  inscribedDiameter: [1.0e-6, 0.8e-6, 0.9e-6, 0.7e-6, 1.1e-6],
  area: [1e-12, 0.5e-12, 0.7e-12, 0.4e-12, 1e-12],
  // G = A/P²: 1/16; 1/18; (dropped); 0.0826 > 1/(4π), clipped; P = 0, a circle.
  perimeter: [4e-6, 3e-6, 3.2e-6, 2.2e-6, 0],
  length: [1.5e-6, 1.8e-6, 1.7e-6, 1.6e-6, 1.4e-6],
  totalLength: [1.6e-6, 1.9e-6, 1.8e-6, 1.7e-6, 1.5e-6],
  conduitLengths: [
    [0.7e-6, 0.2e-6, 0.6e-6],
    [0.5e-6, 0.4e-6, 0.9e-6],
    [0.8e-6, 0.5e-6, 0.4e-6],
    [0.6e-6, 0.3e-6, 0.7e-6],
    [0.65e-6, 0.25e-6, 0.5e-6],
  ],
};

function handNetwork() {
  return {
    shape: [6, 3, 3],
    voxelSize: 1e-6,
    porosity: 0.3,
    pores: {
      coordinates: Float64Array.from(coords.flat()),
      volume: Float64Array.from(pore.volume),
      inscribedDiameter: Float64Array.from(pore.inscribedDiameter),
      equivalentDiameter: Float64Array.from(pore.equivalentDiameter),
      surfaceArea: Float64Array.from(pore.surfaceArea),
      label: Int32Array.from(pore.label),
      face: Int8Array.from(pore.face),
    },
    throats: {
      conns: Int32Array.from(conns.flat()),
      inscribedDiameter: Float64Array.from(throat.inscribedDiameter),
      area: Float64Array.from(throat.area),
      perimeter: Float64Array.from(throat.perimeter),
      length: Float64Array.from(throat.length),
      totalLength: Float64Array.from(throat.totalLength),
      conduitLengths: Float64Array.from(throat.conduitLengths.flat()),
    },
  };
}

/** |actual − expected| ≤ 1e-12 · |expected| (exact for 0). */
function close(actual, expected, what) {
  assert.equal(typeof actual, 'number', what);
  const tolerance = 1e-12 * Math.abs(expected);
  assert.ok(Math.abs(actual - expected) <= tolerance, `${what}: ${actual} ≠ ${expected}`);
}

function closeAll(actual, expected, what) {
  assert.equal(actual.length, expected.length, `${what}: length`);
  expected.forEach((x, i) => {
    close(actual[i], x, `${what}[${i}]`);
  });
}

/** `fn` throws or rejects with `Kind` whose `argument` is `argument` and whose message starts with it. */
async function throwsNaming(fn, Kind, argument) {
  let error;
  try {
    await fn();
  } catch (e) {
    error = e;
  }
  assert.ok(error, `expected ${Kind.name} naming ${argument}, nothing thrown`);
  assert.ok(error instanceof Kind, `expected ${Kind.name}, got ${error?.constructor?.name}: ${error?.message}`);
  assert.equal(error.argument, argument, error.message);
  assert.ok(error.message.startsWith(argument), error.message);
}

// Node (1-based) ← pore: A 0 → 1, B 2 → 2, C 4 → 3, D 6 → 4. Links (1-based) ← throat:
// 0 → 1 (inlet −1 to node 1), 1 → 2, 3 → 3, 4 → 4 (outlet 0 to node 3); throat 2 (to the y−
// boundary pore) is dropped. On a reservoir link the reservoir is pore 1, so pore1Length is the
// boundary pore's part of the conduit.
const expectedLinks = [
  { pore1: -1, pore2: 1, radius: 0.5e-6, g: 1 / 16, total: 1.5e-6, l1: 0.6e-6, lt: 0.2e-6, l2: 0.7e-6 },
  { pore1: 1, pore2: 2, radius: 0.4e-6, g: 1 / 18, total: 1.8e-6, l1: 0.5e-6, lt: 0.4e-6, l2: 0.9e-6 },
  { pore1: 2, pore2: 3, radius: 0.35e-6, g: circle, total: 1.6e-6, l1: 0.6e-6, lt: 0.3e-6, l2: 0.7e-6 },
  { pore1: 0, pore2: 3, radius: 0.55e-6, g: circle, total: 1.4e-6, l1: 0.5e-6, lt: 0.25e-6, l2: 0.65e-6 },
];
const expectedNodes = [
  { from: 0, neighbours: [-1, 2], links: [1, 2], inlet: true, outlet: false, g: (1 / 16 + 1 / 18) / 2 },
  { from: 2, neighbours: [1, 3], links: [2, 3], inlet: false, outlet: false, g: (1 / 18 + circle) / 2 },
  { from: 4, neighbours: [2, 0], links: [3, 4], inlet: false, outlet: true, g: circle },
  { from: 6, neighbours: [], links: [], inlet: false, outlet: false, g: circle },
];

test('writeStatoil: the four files read back, every value checked', async () => {
  const dir = freshDir();
  await writeStatoil(handNetwork(), dir, 'hand');
  assert.deepEqual(readdirSync(dir).sort(), ['hand_link1.dat', 'hand_link2.dat', 'hand_node1.dat', 'hand_node2.dat']);
  const { size, pores, links } = readStatoil(dir, 'hand');
  closeAll(size, [6e-6, 3e-6, 3e-6], 'Lx Ly Lz');

  assert.equal(pores.length, expectedNodes.length);
  expectedNodes.forEach((e, i) => {
    const p = pores[i];
    const what = `node ${i + 1}`;
    assert.equal(p.index, i + 1, what);
    closeAll([p.x, p.y, p.z], coords[e.from], `${what} coordinates`);
    assert.equal(p.coordination, e.neighbours.length, `${what} coordination`);
    assert.deepEqual(p.neighbours, e.neighbours, `${what} neighbours`);
    assert.deepEqual(p.links, e.links, `${what} links`);
    assert.equal(p.inlet, e.inlet, `${what} inlet`);
    assert.equal(p.outlet, e.outlet, `${what} outlet`);
    close(p.volume, pore.volume[e.from], `${what} volume`);
    close(p.radius, pore.inscribedDiameter[e.from] / 2, `${what} radius`);
    close(p.shapeFactor, e.g, `${what} shape factor`);
    assert.equal(p.clayVolume, 0, `${what} clay volume`);
  });

  assert.equal(links.length, expectedLinks.length);
  expectedLinks.forEach((e, k) => {
    const l = links[k];
    const what = `link ${k + 1}`;
    assert.equal(l.index, k + 1, what);
    assert.equal(l.pore1, e.pore1, `${what} pore1`);
    assert.equal(l.pore2, e.pore2, `${what} pore2`);
    close(l.radius, e.radius, `${what} radius`);
    close(l.shapeFactor, e.g, `${what} shape factor`);
    close(l.totalLength, e.total, `${what} total length`);
    close(l.pore1Length, e.l1, `${what} pore1 length`);
    close(l.throatLength, e.lt, `${what} throat length`);
    close(l.pore2Length, e.l2, `${what} pore2 length`);
    assert.equal(l.volume, 0, `${what} volume`);
    assert.equal(l.clayVolume, 0, `${what} clay volume`);
  });
  // Every shape factor lies in (0, 1/(4π)].
  for (const x of [...pores, ...links]) assert.ok(x.shapeFactor > 0 && x.shapeFactor <= circle);
});

test('writeStatoil: numbers round-trip exactly, overwriting replaces whole files', async () => {
  const dir = freshDir();
  const network = handNetwork();
  await writeStatoil(network, dir, 'net');
  // A second network with awkward values over the same files.
  network.pores.coordinates[0] = 0.1 + 0.2;
  network.pores.volume[0] = Math.PI * 1e-19;
  network.throats.length[1] = 1 / 7;
  await writeStatoil(network, dir, 'net');
  const { pores, links } = readStatoil(dir, 'net');
  assert.equal(pores[0].x, 0.1 + 0.2);
  assert.equal(pores[0].volume, Math.PI * 1e-19);
  assert.equal(links[1].totalLength, 1 / 7);
  assert.equal(pores[1].x, coords[2][0]);
  assert.deepEqual(readdirSync(dir).sort(), ['net_link1.dat', 'net_link2.dat', 'net_node1.dat', 'net_node2.dat']);
});

test('writeStatoil: a network with no boundary pores has no reservoir links', async () => {
  const dir = freshDir();
  const network = handNetwork();
  network.pores.face.fill(-1);
  await writeStatoil(network, dir, 'closed');
  const { pores, links } = readStatoil(dir, 'closed');
  assert.equal(pores.length, 7);
  assert.equal(links.length, 5);
  assert.deepEqual(
    links.map((l) => [l.pore1, l.pore2]),
    conns.map(([a, b]) => [a + 1, b + 1]),
  );
  assert.ok(pores.every((p) => !p.inlet && !p.outlet));
  close(links[0].pore1Length, 0.7e-6, 'pore order kept');
});

test('networkToJSON: OpenPNM names and values through JSON', () => {
  const json = JSON.parse(JSON.stringify(networkToJSON(handNetwork())));
  assert.deepEqual(Object.keys(json).sort(), [
    'pore.boundary',
    'pore.coords',
    'pore.equivalent_diameter',
    'pore.inscribed_diameter',
    'pore.internal',
    'pore.region_label',
    'pore.surface_area',
    'pore.volume',
    'pore.xmax',
    'pore.xmin',
    'pore.ymax',
    'pore.ymin',
    'pore.zmax',
    'pore.zmin',
    'throat.conduit_lengths.pore1',
    'throat.conduit_lengths.pore2',
    'throat.conduit_lengths.throat',
    'throat.conns',
    'throat.cross_sectional_area',
    'throat.direct_length',
    'throat.inscribed_diameter',
    'throat.perimeter',
    'throat.total_length',
  ]);
  assert.deepEqual(json['pore.coords'], coords);
  assert.deepEqual(json['pore.volume'], pore.volume);
  assert.deepEqual(json['pore.inscribed_diameter'], pore.inscribedDiameter);
  assert.deepEqual(json['pore.equivalent_diameter'], pore.equivalentDiameter);
  assert.deepEqual(json['pore.surface_area'], pore.surfaceArea);
  assert.deepEqual(json['pore.region_label'], pore.label);
  assert.deepEqual(
    json['pore.internal'],
    pore.face.map((f) => f === -1),
  );
  assert.deepEqual(
    json['pore.boundary'],
    pore.face.map((f) => f !== -1),
  );
  ['xmin', 'xmax', 'ymin', 'ymax', 'zmin', 'zmax'].forEach((name, f) => {
    assert.deepEqual(
      json[`pore.${name}`],
      pore.face.map((x) => x === f),
      name,
    );
  });
  assert.deepEqual(json['pore.xmin'], [false, true, false, false, false, false, false]);
  assert.deepEqual(json['throat.conns'], conns);
  assert.deepEqual(json['throat.inscribed_diameter'], throat.inscribedDiameter);
  assert.deepEqual(json['throat.cross_sectional_area'], throat.area);
  assert.deepEqual(json['throat.perimeter'], throat.perimeter);
  assert.deepEqual(json['throat.direct_length'], throat.length);
  assert.deepEqual(json['throat.total_length'], throat.totalLength);
  assert.deepEqual(
    json['throat.conduit_lengths.pore1'],
    throat.conduitLengths.map((c) => c[0]),
  );
  assert.deepEqual(
    json['throat.conduit_lengths.throat'],
    throat.conduitLengths.map((c) => c[1]),
  );
  assert.deepEqual(
    json['throat.conduit_lengths.pore2'],
    throat.conduitLengths.map((c) => c[2]),
  );
});

test('networkStatistics: counts, coordination and histograms by hand', () => {
  const s = networkStatistics(handNetwork(), { bins: 2 });
  assert.equal(s.poreCount, 7);
  assert.equal(s.throatCount, 5);
  assert.equal(s.boundaryPoreCount, 3);
  // Interior pores A, B, C, D end 2, 3 (A–B, B–ybound, B–C), 2 and 0 throats.
  assert.deepEqual(s.coordination, { mean: 7 / 4, min: 0, max: 3, histogram: [1, 0, 2, 1] });
  close(s.poreVolumeTotal, 1e-18 / 3 + 2.2e-18 + 1.7e-18 + 0.1e-18, 'pore volume');
  assert.equal(s.porosity, 0.3);

  // Interior pore diameters 1.2, 1.6, 1.4, 0.7 µm in two bins split at 1.15 µm.
  const d = s.poreDiameter;
  closeAll(d.edges, [0.7e-6, 1.15e-6, 1.6e-6], 'pore edges');
  assert.deepEqual(d.counts, [1, 3]);
  close(d.mean, 4.9e-6 / 4, 'pore mean');
  close(d.median, 1.3e-6, 'pore median');
  assert.equal(d.min, 0.7e-6);
  assert.equal(d.max, 1.6e-6);

  // Throat diameters 1.0, 0.8, 0.9, 0.7, 1.1 µm in three bins.
  const t = networkStatistics(handNetwork(), { bins: 3 }).throatDiameter;
  closeAll(t.edges, [0.7e-6, 0.7e-6 + 0.4e-6 / 3, 0.7e-6 + 0.8e-6 / 3, 1.1e-6], 'throat edges');
  assert.deepEqual(t.counts, [2, 1, 2]);
  close(t.mean, 0.9e-6, 'throat mean');
  assert.equal(t.median, 0.9e-6);
  assert.equal(t.min, 0.7e-6);
  assert.equal(t.max, 1.1e-6);

  // Default: 20 bins, counts summing to the values.
  const byDefault = networkStatistics(handNetwork());
  assert.equal(byDefault.poreDiameter.counts.length, 20);
  assert.equal(byDefault.poreDiameter.edges.length, 21);
  assert.equal(
    byDefault.poreDiameter.counts.reduce((a, b) => a + b, 0),
    4,
  );
  assert.equal(
    byDefault.throatDiameter.counts.reduce((a, b) => a + b, 0),
    5,
  );
  assert.deepEqual(byDefault.coordination, s.coordination);
});

test('networkStatistics: equal values and an empty network', () => {
  const network = handNetwork();
  network.throats.inscribedDiameter.fill(2e-6);
  // All 2 µm: the range widens to [1, 3] µm, the values in the middle bin.
  const t = networkStatistics(network, { bins: 3 }).throatDiameter;
  closeAll(t.edges, [1e-6, 5e-6 / 3, 7e-6 / 3, 3e-6], 'widened edges');
  assert.deepEqual(t.counts, [0, 5, 0]);
  assert.equal(t.median, 2e-6);

  const empty = {
    shape: [2, 2, 2],
    voxelSize: 1e-6,
    porosity: 0,
    pores: {
      coordinates: new Float64Array(0),
      volume: new Float64Array(0),
      inscribedDiameter: new Float64Array(0),
      equivalentDiameter: new Float64Array(0),
      surfaceArea: new Float64Array(0),
      label: new Int32Array(0),
      face: new Int8Array(0),
    },
    throats: {
      conns: new Int32Array(0),
      inscribedDiameter: new Float64Array(0),
      area: new Float64Array(0),
      perimeter: new Float64Array(0),
      length: new Float64Array(0),
      conduitLengths: new Float64Array(0),
    },
  };
  const s = networkStatistics(empty, { bins: 3 });
  assert.equal(s.poreCount, 0);
  assert.deepEqual(s.coordination.histogram, []);
  assert.ok(Number.isNaN(s.coordination.mean));
  assert.deepEqual(s.poreDiameter.counts, [0, 0, 0]);
  assert.ok(Number.isNaN(s.poreDiameter.median));
});

test('bad arguments name themselves', async () => {
  const network = handNetwork();
  const dir = freshDir();
  const file = join(dir, 'a-file');
  writeFileSync(file, 'x');
  await throwsNaming(() => writeStatoil(network, join(dir, 'missing'), 'p'), RangeError, 'dir');
  await throwsNaming(() => writeStatoil(network, file, 'p'), RangeError, 'dir');
  await throwsNaming(() => writeStatoil(network, '', 'p'), TypeError, 'dir');
  await throwsNaming(() => writeStatoil(network, 42, 'p'), TypeError, 'dir');
  await throwsNaming(() => writeStatoil(network, dir, 'a/b'), RangeError, 'prefix');
  await throwsNaming(() => writeStatoil(network, dir, 'a\\b'), RangeError, 'prefix');
  await throwsNaming(() => writeStatoil(network, dir, ''), TypeError, 'prefix');
  await throwsNaming(() => writeStatoil(network, dir, undefined), TypeError, 'prefix');
  await throwsNaming(() => writeStatoil(null, dir, 'p'), TypeError, 'network');

  const badConns = handNetwork();
  badConns.throats.conns[3] = 7;
  await throwsNaming(() => writeStatoil(badConns, dir, 'p'), RangeError, 'network.throats.conns');
  const badVolume = handNetwork();
  badVolume.pores.volume = new Float32Array(7);
  await throwsNaming(() => networkToJSON(badVolume), TypeError, 'network.pores.volume');
  const nan = handNetwork();
  nan.throats.length[2] = Number.NaN;
  await throwsNaming(() => writeStatoil(nan, dir, 'p'), RangeError, 'network.throats.length');
  const badFace = handNetwork();
  badFace.pores.face[0] = 6;
  await throwsNaming(() => networkStatistics(badFace), RangeError, 'network.pores.face');

  await throwsNaming(() => networkStatistics(network, { bins: 0 }), RangeError, 'bins');
  await throwsNaming(() => networkStatistics(network, { bins: Number.NaN }), RangeError, 'bins');
  await throwsNaming(() => networkStatistics(network, { bins: 2.5 }), RangeError, 'bins');
  await throwsNaming(() => networkStatistics(network, { bins: 10001 }), RangeError, 'bins');
  await throwsNaming(() => networkStatistics(network, { bins: '3' }), TypeError, 'bins');
  await throwsNaming(() => networkStatistics(network, 3), TypeError, 'options');
  // Nothing was written by the failed calls.
  assert.deepEqual(readdirSync(dir), ['a-file']);
});

test('writes are atomic: no temp file after success, none after a failed rename', async () => {
  const dir = freshDir();
  await writeStatoil(handNetwork(), dir, 'ok');
  assert.deepEqual(readdirSync(dir).sort(), ['ok_link1.dat', 'ok_link2.dat', 'ok_node1.dat', 'ok_node2.dat']);

  // link1's target is a directory: its rename fails after node1 and node2 were written.
  mkdirSync(join(dir, 'bad_link1.dat'));
  await assert.rejects(writeStatoil(handNetwork(), dir, 'bad'));
  const names = readdirSync(dir).sort();
  assert.ok(!names.some((n) => n.endsWith('.tmp')), names.join(' '));
  assert.ok(statSync(join(dir, 'bad_link1.dat')).isDirectory());
  assert.ok(!names.includes('bad_link2.dat'), 'link2 is not written after link1 failed');
  // The files that were written are whole.
  const { pores } = readStatoil(dir, 'ok');
  assert.equal(pores.length, 4);
});
