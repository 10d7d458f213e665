// Every public member of every module that takes an options object (the list of public members
// the hostile generator counts, test/harness/public-api.mjs) is called once with one key of an
// options object misspelt: each must throw a TypeError naming the key's full path and the key it
// most likely meant, and `mpi` where a package does not take it must say where it is taken. A
// member is either in `misspelt` below or in `noOptions`; a new member in neither fails the test
// until it is put in one.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import * as core from '@peclet/core';
import * as coupling from '@peclet/coupling';
import * as dem from '@peclet/dem';
import * as flow from '@peclet/flow';
import * as io from '@peclet/io';
import * as pnm from '@peclet/pnm';
import { publicMembers, reachableClasses } from '@peclet/test-harness/public-api';
import * as voro from '@peclet/voro';
import { mpiAvailable } from '../lib/mpi.mjs';

// @peclet/mpi where its addon was built against a system MPI: initialized here on one rank (MPI's
// singleton start) for the calls that need it, finalized at the end.
const mpi = mpiAvailable() ? await import('@peclet/mpi') : undefined;
const modules = { core, voro, dem, io, flow, pnm, coupling, ...(mpi ? { mpi } : {}) };
const dir = mkdtempSync(join(tmpdir(), 'peclet-misspelt-'));
after(() => rmSync(dir, { recursive: true, force: true }));

// ---- valid objects to call members on -----------------------------------------------------------

/** An 8³ image: a square channel 4 × 4 along x in solid. */
function channel() {
  const solid = new Uint8Array(512).fill(1);
  for (let i = 0; i < 8; i++) for (let j = 2; j < 6; j++) for (let k = 2; k < 6; k++) solid[(i * 8 + j) * 8 + k] = 0;
  return { solid, shape: [8, 8, 8], voxelSize: 1e-6 };
}
const image = channel();
// A permeability() result for flowFields and writeFlowVti (released after the tests).
const flowResult = await flow.permeability(image, { tolerance: 1e-3 });
after(() => flowResult.lattice.release());
const box = { min: [0, 0, 0], max: [4, 4, 4] };
const simulation = () =>
  new dem.Simulation({ box, periodic: true, gravity: [0, 0, 0], contact: { model: 'linear', stiffness: 1e4 } });
const withSpheres = () => {
  const s = simulation();
  s.addSpheres({ positions: [1, 1, 1, 3, 3, 3], radii: [0.4, 0.4], density: 1000 });
  return s;
};
const lattice = () => new flow.Lattice({ shape: [4, 4, 4] });
const network = () => pnm.extract(image, { boundaries: ['x'] });
const points = new Float64Array([1, 1, 1, 3, 3, 3]);
/** A stand-in of @peclet/mpi on one rank, initialized (what slabPlanes reads). */
const oneRank = {
  initialized: () => true,
  rank: () => 0,
  size: () => 1,
  allreduce: (values) => values,
  send() {},
  recv() {},
  sendrecv() {},
  barrier() {},
};
const H = 3e-4;
const coupled = (extra = {}) => {
  const L = 4 * H;
  const p = new dem.Simulation({
    box: { min: [0, 0, 0], max: [L, L, L] },
    periodic: true,
    gravity: [0, 0, -9.81],
    contact: { model: 'linear', stiffness: 1e-2 },
  });
  p.addSpheres({ positions: [L / 2, L / 2, L / 2], radii: [5e-5], density: 2500 });
  return new coupling.CoupledSimulation({
    particles: p,
    fluid: { cellSize: H, viscosity: 1e-2, density: 1000, ...extra.fluid },
    ...extra.options,
  });
};
const raw = join(dir, 'image.raw');
writeFileSync(raw, image.solid);
const npy = join(dir, 'image.npy');
{
  const header = `${"{'descr': '|u1', 'fortran_order': False, 'shape': (8, 8, 8), }".padEnd(117, ' ')}\n`;
  const magic = Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, header.length, 0]);
  writeFileSync(npy, Buffer.concat([magic, Buffer.from(header, 'latin1'), Buffer.from(image.solid)]));
}

// ---- the members that take options --------------------------------------------------------------

/**
 * member → [typo, the key it misspells, the path the error names, call(typo object)]. `call`
 * passes `{ [typo]: 1 }` merged into one options object of a call that is valid without it.
 */
const misspelt = {
  'core.cpuBudget': ['afinity', 'affinity', 'options', (x) => core.cpuBudget({ ...x })],
  'core.cpuBudgetDetails': ['rot', 'root', 'options', (x) => core.cpuBudgetDetails({ ...x })],
  'core.handleSignals': ['signal', 'signals', 'options', (x) => core.handleSignals({ signals: [], ...x })],
  'core.readOptions': ['optinal', 'optional', 'settings', (x) => core.readOptions({}, 'o', [], { ...x })],
  'core.readNumber': ['mni', 'min', 'range', (x) => core.readNumber(1, 'n', { min: 0, ...x })],
  'core.readInteger': ['mx', 'max', 'range', (x) => core.readInteger(1, 'n', { max: 2, ...x })],
  'core.readFloat64Array': [
    'lenght',
    'length',
    'shape',
    (x) => core.readFloat64Array(new Float64Array(3), 'a', { length: 3, ...x }),
  ],
  'core.readBox': ['maxExtend', 'maxExtent', 'limits', (x) => core.readBox(box, 'box', { ...x })],
  'core.readVector3': ['fallbak', 'fallback', 'options', (x) => core.readVector3([0, 0, 0], 'v', { ...x })],
  'core.defineModule': ['nam', 'name', 'options', (x) => core.defineModule({ name: 'misspelt', ...x })],
  'new core.PecletModule': ['threds', 'threads', 'options', (x) => new core.PecletModule({ name: 'misspelt', ...x })],
  'core.PecletModule#finalizeAsync': [
    'timeoutMS',
    'timeoutMs',
    'options',
    (x) => core.defineModule({ name: 'misspelt' }).finalizeAsync({ ...x }),
  ],
  'core.lazyAddon': [
    'platform',
    'platforms',
    'options',
    (x) => core.lazyAddon({ name: 'x', root: dir, packageName: '@peclet/x', version: '0.0.0', ...x }),
  ],
  'core.loadAddon': [
    'nam',
    'name',
    'options',
    (x) => core.loadAddon({ name: 'x', root: dir, packageName: '@peclet/x', version: '0.0.0', ...x }),
  ],
  'voro.tessellate': ['periodc', 'periodic', 'options', (x) => voro.tessellate(points, { box, ...x })],
  'voro.tessellateAsync': ['radi', 'radii', 'options', (x) => voro.tessellateAsync(points, { box, ...x })],
  'new dem.Simulation': [
    'gravty',
    'gravity',
    'options',
    (x) => new dem.Simulation({ box, contact: { model: 'linear', stiffness: 1e4 }, ...x }),
  ],
  'dem.Simulation#addSpheres': [
    'raddi',
    'radii',
    'batch',
    (x) => simulation().addSpheres({ positions: [1, 1, 1], radii: [0.4], density: 1000, ...x }),
  ],
  'dem.Simulation#deposit': ['cuont', 'count', 'options', (x) => simulation().deposit({ ...x })],
  'dem.Simulation#depositAsync': ['cuont', 'count', 'options', (x) => simulation().depositAsync({ ...x })],
  'dem.Simulation#run': ['stesp', 'steps', 'options', (x) => withSpheres().run({ steps: 1, ...x })],
  'dem.Simulation#voxelize': ['resoluton', 'resolution', 'options', (x) => withSpheres().voxelize({ ...x })],
  'dem.gpuDevice': ['backnd', 'backend', 'options', (x) => dem.gpuDevice({ ...x })],
  'dem.finalizeAsync': ['timeoutMS', 'timeoutMs', 'options', (x) => dem.finalizeAsync({ ...x })],
  'io.readRaw': ['dtyp', 'dtype', 'options', (x) => io.readRaw(raw, { shape: [8, 8, 8], voxelSize: 1e-6, ...x })],
  'io.readNpy': ['voxelsize', 'voxelSize', 'options', (x) => io.readNpy(npy, { voxelSize: 1e-6, ...x })],
  'io.readTiff': ['sold', 'solid', 'options', (x) => io.readTiff(join(dir, 'none.tif'), { voxelSize: 1e-6, ...x })],
  'io.readImage': ['voxelSise', 'voxelSize', 'options', (x) => io.readImage(npy, { voxelSize: 1e-6, ...x })],
  'io.writeVti': [
    'spcing',
    'spacing',
    'options',
    (x) => io.writeVti(join(dir, 'a.vti'), { shape: [8, 8, 8], cellData: { solid: image.solid }, ...x }),
  ],
  'io.writePvti': [
    'piece',
    'pieces',
    'options',
    (x) => io.writePvti(join(dir, 'a.pvti'), { shape: [8, 8, 8], pieces: [], cellData: {}, ...x }),
  ],
  'io.writeVtp': [
    'point',
    'points',
    'options',
    (x) => io.writeVtp(join(dir, 'a.vtp'), { points: new Float64Array(3), ...x }),
  ],
  'io.writePng': [
    'colormp',
    'colormap',
    'options',
    (x) => io.writePng(join(dir, 'a.png'), { data: [0, 1, 2, 3], width: 2, height: 2 }, { ...x }),
  ],
  'io.sliceOf': ['axsi', 'axis', 'options', (x) => io.sliceOf(image.solid, [8, 8, 8], { axis: 'x', ...x })],
  'new flow.Lattice': ['viscocity', 'viscosity', 'options', (x) => new flow.Lattice({ shape: [4, 4, 4], ...x })],
  'flow.Lattice#run': ['maxStep', 'maxSteps', 'options', (x) => lattice().run({ maxSteps: 1, ...x })],
  'flow.Lattice#writeVti': [
    'voxelSise',
    'voxelSize',
    'options',
    (x) => lattice().writeVti(join(dir, 'l.vti'), { ...x }),
  ],
  'flow.permeability': ['buffr', 'buffer', 'options', (x) => flow.permeability(image, { maxSteps: 1, ...x })],
  'flow.flowFields': ['viscosty', 'viscosity', 'options', (x) => flow.flowFields(flowResult, { ...x })],
  'flow.writeFlowVti': [
    'pressureGradiant',
    'pressureGradient',
    'options',
    (x) => flow.writeFlowVti(flowResult, join(dir, 'f.vti'), { ...x }),
  ],
  'flow.slabPlanes': ['weight', 'weights', 'options', (x) => flow.slabPlanes(8, oneRank, { ...x })],
  'flow.gpuDevice': ['backnd', 'backend', 'options', (x) => flow.gpuDevice({ ...x })],
  'flow.finalizeAsync': ['timeoutMS', 'timeoutMs', 'options', (x) => flow.finalizeAsync({ ...x })],
  'pnm.extract': ['rmax', 'rMax', 'options', (x) => pnm.extract(image, { ...x })],
  'pnm.extractAsync': ['sigm', 'sigma', 'options', (x) => pnm.extractAsync(image, { ...x })],
  'pnm.formationFactor': ['tolerence', 'tolerance', 'options', (x) => pnm.formationFactor(image, { ...x })],
  'pnm.Network#stokesFlow': ['conductence', 'conductance', 'options', (x) => network().stokesFlow({ ...x })],
  'pnm.Network#diffusion': ['axsi', 'axis', 'options', (x) => network().diffusion({ ...x })],
  'pnm.Network#drainage': ['contactAngel', 'contactAngle', 'options', (x) => network().drainage({ ...x })],
  'pnm.Network#invasionPercolation': [
    'surfaceTensoin',
    'surfaceTension',
    'options',
    (x) => network().invasionPercolation({ ...x }),
  ],
  'pnm.Network#sizeFactors': [
    'spacng',
    'spacing',
    'options',
    (x) => network().sizeFactors('pyramids-and-cuboids', { ...x }),
  ],
  'pnm.Network#statistics': ['bin', 'bins', 'options', (x) => network().statistics({ ...x })],
  'pnm.networkStatistics': ['bin', 'bins', 'options', (x) => pnm.networkStatistics(network(), { ...x })],
  'new coupling.CoupledSimulation': ['viscocity', 'viscosity', 'fluid', (x) => coupled({ fluid: x })],
  'coupling.CoupledSimulation#run': ['stesp', 'steps', 'options', (x) => coupled().run({ steps: 1, ...x })],
  'coupling.CoupledSimulation#setDrive': [
    'pressureGradiant',
    'pressureGradient',
    'drive',
    (x) => coupled().setDrive({ pressureGradient: [0, 0, 0], ...x }),
  ],
  ...(mpi && {
    'mpi.init': ['threadLevl', 'threadLevel', 'options', (x) => mpi.init({ ...x })],
    'mpi.send': ['tga', 'tag', 'options', (x) => live().send(new Float64Array(1), 0, { ...x })],
    'mpi.recv': ['tga', 'tag', 'options', (x) => live().recv(new Float64Array(1), 0, { ...x })],
    'mpi.sendrecv': [
      'sendtag',
      'sendTag',
      'options',
      (x) => live().sendrecv(new Float64Array(1), 0, new Float64Array(1), 0, { ...x }),
    ],
  }),
};

/** @peclet/mpi, initialized (once). */
function live() {
  if (!mpi.initialized()) mpi.init();
  return mpi;
}
after(() => {
  if (mpi?.initialized()) mpi.finalize();
});

/** Members that take no options object (their arguments are values, arrays, paths or callbacks). */
const noOptions = new Set([
  // core
  'core.PecletModule#assertLive',
  'core.PecletModule#executionSpace',
  'core.PecletModule#exiting',
  'core.PecletModule#finalize',
  'core.PecletModule#finalizeFor',
  'core.PecletModule#finalized',
  'core.PecletModule#onDrain',
  'core.PecletModule#stats',
  'core.PecletModule#markTeardownPending',
  'core.PecletModule#armSignals',
  'core.PecletModule#zeroCopyView',
  'core.Registry#add',
  'core.Registry#delete',
  'core.Registry#onRelease',
  'core.Registry#releaseAll',
  'core.Registry#size',
  'core.Releasable#assertLive',
  'core.Releasable#className',
  'core.Releasable#release',
  'core.Releasable#releaseBy',
  'core.Releasable#released',
  'core.Teardown#push',
  'core.Teardown#releaseAll',
  'core.Teardown#released',
  'core.Teardown#size',
  'core.argumentError',
  'core.cancelledError',
  'core.closestKey',
  'core.describeValue',
  'core.fail',
  'core.isDetached',
  'core.liveModules',
  'core.platformKey',
  'core.readBoolean',
  'core.readEnum',
  'core.readFlags',
  'core.readFunction',
  'core.readSignal',
  'core.traceEnabled',
  'new core.Registry',
  'new core.Releasable',
  'new core.Teardown',
  // voro
  'voro.Tessellation#cell',
  'voro.Tessellation#centroids',
  'voro.Tessellation#faceAreas',
  'voro.Tessellation#id',
  'voro.Tessellation#neighborOffsets',
  'voro.Tessellation#neighbors',
  'voro.Tessellation#release',
  'voro.Tessellation#released',
  'voro.Tessellation#size',
  'voro.Tessellation#stats',
  'voro.Tessellation#update',
  'voro.Tessellation#volumes',
  'voro.finalize',
  // dem
  'dem.Simulation#angularVelocities',
  'dem.Simulation#box',
  'dem.Simulation#contacts',
  'dem.Simulation#coordinationNumber',
  'dem.Simulation#elasticEnergy',
  'dem.Simulation#executionSpace',
  'dem.Simulation#externalForces',
  'dem.Simulation#fixed',
  'dem.Simulation#forces',
  'dem.Simulation#gravity',
  'dem.Simulation#id',
  'dem.Simulation#kineticEnergy',
  'dem.Simulation#masses',
  'dem.Simulation#momentum',
  'dem.Simulation#packingFraction',
  'dem.Simulation#periodic',
  'dem.Simulation#positions',
  'dem.Simulation#radii',
  'dem.Simulation#release',
  'dem.Simulation#released',
  'dem.Simulation#sphereCount',
  'dem.Simulation#step',
  'dem.Simulation#stepCount',
  'dem.Simulation#sync',
  'dem.Simulation#time',
  'dem.Simulation#timestep',
  'dem.Simulation#timestepReport',
  'dem.Simulation#translationalKineticEnergy',
  'dem.Simulation#velocities',
  'dem.finalize',
  // io
  'io.checkVoxelImage',
  'io.fromPoreSpy',
  'io.porosity',
  'io.imageWarnings',
  'io.neighbourCorrelation',
  'io.permeabilityWarning',
  'io.readBereaSample',
  'io.readNpyArray',
  'io.readPath',
  'io.writeAtomically',
  'io.writeAtomicallySync',
  // flow
  'flow.Lattice#bodyForce',
  'flow.Lattice#density',
  'flow.Lattice#executionSpace',
  'flow.Lattice#flux',
  'flow.Lattice#force',
  'flow.Lattice#id',
  'flow.Lattice#info',
  'flow.Lattice#layout',
  'flow.Lattice#porosity',
  'flow.Lattice#release',
  'flow.Lattice#released',
  'flow.Lattice#setPressure',
  'flow.Lattice#shape',
  'flow.Lattice#slab',
  'flow.Lattice#step',
  'flow.Lattice#stepCount',
  'flow.Lattice#velocity',
  'flow.Lattice#viscosity',
  'flow.finalize',
  'flow.fromPoreSpy',
  'flow.percolates',
  'flow.slabOf',
  // pnm
  'new pnm.Network',
  'pnm.Network#id',
  'pnm.Network#peaks',
  'pnm.Network#poreCount',
  'pnm.Network#pores',
  'pnm.Network#porosity',
  'pnm.Network#regions',
  'pnm.Network#release',
  'pnm.Network#released',
  'pnm.Network#shape',
  'pnm.Network#throatCount',
  'pnm.Network#throats',
  'pnm.Network#timings',
  'pnm.Network#toJSON',
  'pnm.Network#voxelSize',
  'pnm.Network#writeStatoil',
  'pnm.Network#writeVtp',
  'pnm.finalize',
  'pnm.fromPoreSpy',
  'pnm.networkToJSON',
  'pnm.writeStatoil',
  // coupling
  'coupling.CoupledSimulation#cellSize',
  'coupling.CoupledSimulation#className',
  'coupling.CoupledSimulation#dragForces',
  'coupling.CoupledSimulation#drive',
  'coupling.CoupledSimulation#executionSpace',
  'coupling.CoupledSimulation#fluidVelocity',
  'coupling.CoupledSimulation#id',
  'coupling.CoupledSimulation#momentum',
  'coupling.CoupledSimulation#particles',
  'coupling.CoupledSimulation#pressure',
  'coupling.CoupledSimulation#pressureDrop',
  'coupling.CoupledSimulation#release',
  'coupling.CoupledSimulation#released',
  'coupling.CoupledSimulation#shape',
  'coupling.CoupledSimulation#step',
  'coupling.CoupledSimulation#stepCount',
  'coupling.CoupledSimulation#time',
  'coupling.CoupledSimulation#timestepReport',
  'coupling.CoupledSimulation#timings',
  'coupling.CoupledSimulation#voidFraction',
  'coupling.dragCoefficient',
  'coupling.finalize',
  'coupling.terminalVelocity',
  // mpi (where built)
  'mpi.abort',
  'mpi.allreduce',
  'mpi.barrier',
  'mpi.finalize',
  'mpi.initialized',
  'mpi.rank',
  'mpi.size',
]);

/** Every public member of the modules. */
function allMembers() {
  const out = [];
  for (const [name, ns] of Object.entries(modules)) out.push(...publicMembers(name, ns, reachableClasses(name, ns)));
  return out;
}

async function outcome(fn) {
  try {
    const value = fn();
    if (value && typeof value.then === 'function') await value;
    return { ok: true, value };
  } catch (error) {
    return { ok: false, error };
  }
}

describe('a misspelt option is an error, not a silent default', () => {
  it('every public member is either listed with a misspelling or as taking no options', () => {
    const unlisted = allMembers().filter((m) => !(m in misspelt) && !noOptions.has(m));
    assert.deepEqual(unlisted, [], `classify these members in misspelt-options.test.mjs`);
    const all = allMembers();
    const stale = [...Object.keys(misspelt), ...noOptions].filter((m) => !all.includes(m) && !m.startsWith('mpi.'));
    assert.deepEqual(stale, [], 'listed but not public members');
  });

  for (const [member, [typo, meant, path, call]] of Object.entries(misspelt)) {
    it(`${member}: '${typo}' is refused, naming ${path}.${typo} and '${meant}'`, async () => {
      const result = await outcome(() => call({ [typo]: 1 }));
      assert.equal(result.ok, false, `${member} accepted '${typo}'`);
      const e = result.error;
      assert.ok(e instanceof TypeError, `${member}: ${e?.name}: ${e?.message}`);
      assert.equal(e.argument, `${path}.${typo}`, e.message);
      assert.match(e.message, new RegExp(`did you mean '${meant}'\\?`));
    });
  }

  it("'mpi' where a package does not take it says where it is taken", async () => {
    const refusals = [
      () => new dem.Simulation({ box, contact: { model: 'linear', stiffness: 1e4 }, mpi: {} }),
      () => voro.tessellate(points, { box, mpi: {} }),
      () => pnm.extract(image, { mpi: {} }),
      () => coupled({ options: { mpi: {} } }),
    ];
    for (const call of refusals) {
      const result = await outcome(call);
      assert.equal(result.ok, false);
      assert.ok(result.error instanceof TypeError);
      assert.equal(result.error.argument, 'options.mpi');
      assert.match(result.error.message, /@peclet\/flow's Lattice and permeability\(\) only/);
    }
  });
});
