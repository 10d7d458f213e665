// readOptions refuses keys it was not asked to read: a misspelt option is a TypeError naming its
// full path and the nearest known key, an option another package takes says where, and only
// records opened on purpose (`open`) let other keys through.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { closestKey, readBox, readOptions } from '../dist/index.js';

/** Asserts that `fn` throws a TypeError whose `argument` is `path` and whose message matches `pattern`. */
function refuses(fn, path, pattern) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof TypeError, `${e}`);
    assert.equal(e.argument, path);
    assert.match(e.message, pattern);
    return true;
  });
}

describe('readOptions and unknown keys', () => {
  it('names a misspelt key with its full path and the key it most likely meant', () => {
    refuses(
      () => readOptions({ box: 1, periodc: true }, 'options', ['box', 'periodic', 'radii']),
      'options.periodc',
      /^options\.periodc: is not an option; did you mean 'periodic'\? \(the options are box, periodic, radii\)$/,
    );
    refuses(() => readOptions({ gravty: [0, 0, -9.81] }, 'options', ['gravity', 'box']), 'options.gravty', /'gravity'/);
    refuses(
      () => readOptions({ viscocity: 0.1 }, 'options', ['viscosity', 'shape']),
      'options.viscocity',
      /'viscosity'/,
    );
    refuses(() => readOptions({ voxelsize: 1 }, 'image', ['voxelSize']), 'image.voxelsize', /'voxelSize'/);
    refuses(() => readOptions({ frction: 0.5 }, 'contact', ['friction']), 'contact.frction', /'friction'/);
  });

  it('gives no suggestion when no key is near, and says when the object takes no options', () => {
    refuses(() => readOptions({ bogus: 1 }, 'options', ['steps', 'signal']), 'options.bogus', /is not an option \(the/);
    refuses(() => readOptions({ a: 1 }, 'options', []), 'options.a', /it takes no options/);
  });

  it("refuses 'mpi' where it is not an option, saying where it is", () => {
    refuses(
      () => readOptions({ mpi: {} }, 'options', ['box']),
      'options.mpi',
      /@peclet\/flow's Lattice and permeability/,
    );
    assert.deepEqual({ ...readOptions({ mpi: 1 }, 'options', ['mpi']) }, { mpi: 1 });
  });

  it('reads keys that are absent or undefined, inherited or symbol-named without a word', () => {
    const inherited = Object.create({ extra: 1 });
    inherited.steps = 3;
    assert.equal(readOptions(inherited, 'options', ['steps']).steps, 3);
    assert.equal(readOptions({ [Symbol('tag')]: 1, steps: 2 }, 'options', ['steps']).steps, 2);
    assert.equal(readOptions({ steps: undefined }, 'options', ['steps']).steps, undefined);
    assert.equal(readOptions(undefined, 'options', ['steps'], { optional: true }).steps, undefined);
  });

  it('lets other keys through an open record (an image, an environment), and reads nothing else', () => {
    let touched = false;
    const image = {
      solid: new Uint8Array(1),
      shape: [1, 1, 1],
      voxelSize: 1,
      get porosity() {
        touched = true;
        return 0;
      },
    };
    const o = readOptions(image, 'image', ['solid', 'shape', 'voxelSize'], { open: true });
    assert.equal(o.voxelSize, 1);
    assert.equal(touched, false);
  });

  it('checks the keys before any getter runs, and nested readers name the nested path', () => {
    let reads = 0;
    const o = {
      get steps() {
        reads++;
        return 1;
      },
      stpes: 2,
    };
    refuses(() => readOptions(o, 'options', ['steps']), 'options.stpes', /'steps'/);
    assert.equal(reads, 0);
    refuses(() => readBox({ min: [0, 0, 0], max: [1, 1, 1], mx: 1 }, 'options.box'), 'options.box.mx', /'max'/);
  });

  it('shortens a very long key in the message', () => {
    const key = 'k'.repeat(500);
    assert.throws(
      () => readOptions({ [key]: 1 }, 'options', ['steps']),
      (e) => e instanceof TypeError && e.message.length < 200,
    );
  });
});

describe('closestKey', () => {
  it('finds one or two edits, a transposition, a change of case; not a different word', () => {
    const keys = ['periodic', 'radii', 'box', 'threads', 'signal', 'onProgress'];
    assert.equal(closestKey('periodc', keys), 'periodic');
    assert.equal(closestKey('raddi', keys), 'radii');
    assert.equal(closestKey('trheads', keys), 'threads');
    assert.equal(closestKey('onprogress', keys), 'onProgress');
    assert.equal(closestKey('bx', keys), 'box');
    assert.equal(closestKey('colour', keys), undefined);
    assert.equal(closestKey('x', keys), undefined);
  });
});
