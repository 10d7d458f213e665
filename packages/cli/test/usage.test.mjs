// Exit statuses scripts rely on: 2 for a bad command line (commander's and our own checks, and
// a value a package refuses for a flag), 1 for a file or computation error, 0 for help.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { transcript } from '@peclet/test-harness';
import { peclet, slit, tempFolder, writeNpy } from './helpers.mjs';

describe('exit statuses and messages', () => {
  const temp = tempFolder();
  before(() => {
    writeFileSync(join(temp.dir, 'slit.raw'), slit(4, 3, 3).solid); // 3×6×3
    writeNpy(join(temp.dir, 'points.npy'), [0.1, 0.2, 0.3, 0.7, 0.8, 0.9], [2, 3]);
    writeNpy(join(temp.dir, 'flat.npy'), [0.1, 0.2, 0.3], [3]);
  });
  after(() => temp.cleanup());
  const run = (args, env) => peclet(args, { cwd: temp.dir, ...(env ? { env } : {}) });

  /** Status 2, a `peclet:` message matching `pattern`, nothing on stdout. */
  function assertUsage(r, pattern) {
    assert.equal(r.status, 2, transcript(r));
    assert.match(r.stderr, /^peclet: /);
    assert.match(r.stderr, pattern);
    assert.equal(r.stdout, '');
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack');
  }

  /** Status 1, one `peclet:` message matching `pattern`, no stack. */
  function assertFailure(r, pattern) {
    assert.equal(r.status, 1, transcript(r));
    assert.match(r.stderr, /^peclet: /);
    assert.match(r.stderr, pattern);
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack without PECLET_DEBUG');
    assert.equal(r.stdout, '');
  }

  it('a raw image without --shape: 2, naming --shape', async () => {
    assertUsage(await run(['permeability', 'slit.raw', '--voxel-size', '1e-6']), /--shape is required/);
  });

  it('a malformed --shape: 2, quoting it', async () => {
    assertUsage(
      await run(['permeability', 'slit.raw', '--shape', '2,x', '--voxel-size', '1e-6']),
      /--shape must be three positive integers, got "2,x"/,
    );
  });

  it('a --shape that does not match the file (io refuses it): 2, naming --shape', async () => {
    assertUsage(
      await run(['extract', 'slit.raw', '--shape', '4,4,4', '--voxel-size', '1e-6']),
      /^peclet: --shape: 4 × 4 × 4 uint8 voxels need 64 bytes, but slit\.raw holds 54/,
    );
  });

  it('no --voxel-size, a bad one, a bad --axis, a bad --tolerance: 2', async () => {
    assertUsage(await run(['permeability', 'slit.raw', '--shape', '3,6,3']), /--voxel-size is required/);
    assertUsage(
      await run(['permeability', 'slit.raw', '--shape', '3,6,3', '--voxel-size', '-1']),
      /--voxel-size must be a positive number of metres, got "-1"/,
    );
    assertUsage(
      await run(['permeability', 'slit.raw', '--shape', '3,6,3', '--voxel-size', '1e-6', '--axis', 'w']),
      /'--axis <axis>' argument 'w' is invalid/,
    );
    assertUsage(
      await run(['permeability', 'slit.raw', '--shape', '3,6,3', '--voxel-size', '1e-6', '--tolerance', '2']),
      /--tolerance must be a number in \(0, 1\), got "2"/,
    );
  });

  it('flags that do not apply: --shape on an .npy image, --conductance without --network: 2', async () => {
    assertUsage(
      await run(['permeability', 'points.npy', '--shape', '1,2,3', '--voxel-size', '1e-6']),
      /--shape only applies to raw images/,
    );
    assertUsage(
      await run([
        'permeability',
        'slit.raw',
        '--shape',
        '3,6,3',
        '--voxel-size',
        '1e-6',
        '--conductance',
        'hagen-poiseuille',
      ]),
      /--conductance only applies with --network/,
    );
  });

  it('an unknown command, an unknown flag, an extra argument, no command: 2', async () => {
    assertUsage(await run(['permeabilty', 'slit.raw']), /unknown command 'permeabilty'/);
    assertUsage(await run(['extract', 'slit.raw', '--frobnicate']), /unknown option '--frobnicate'/);
    assertUsage(await run(['tessellate', 'a.npy', 'b.npy', '--box', '0,0,0,1,1,1']), /too many arguments/);
    const r = await run([]);
    assert.equal(r.status, 2, transcript(r));
    assert.match(r.stderr, /Usage: peclet/);
  });

  it('tessellate without --box, with a malformed or empty one: 2', async () => {
    assertUsage(await run(['tessellate', 'points.npy']), /--box is required/);
    assertUsage(
      await run(['tessellate', 'points.npy', '--box', '0,0,0,1,1']),
      /--box must be six numbers xmin,ymin,zmin,xmax,ymax,zmax, got "0,0,0,1,1"/,
    );
    assertUsage(
      await run(['tessellate', 'points.npy', '--box', '0,0,0,1,0,1']),
      /--box: ymax \(0\) must be greater than ymin \(0\)/,
    );
    assertUsage(await run(['tessellate', 'points.npy', '--box', '0,0,0,1,1,1', '--periodic', 'w']), /--periodic must/);
  });

  it('an output into a folder that does not exist: 2, before computing', async () => {
    assertUsage(
      await run(['extract', 'slit.raw', '--shape', '3,6,3', '--voxel-size', '1e-6', '--out', 'no/such/x.vtp']),
      /--out: the folder no\/such of no\/such\/x\.vtp does not exist/,
    );
  });

  it('a missing file: 1, `peclet: <path>: no such file or directory`', async () => {
    assertFailure(
      await run(['permeability', 'missing.raw', '--shape', '3,6,3', '--voxel-size', '1e-6']),
      /^peclet: missing\.raw: no such file or directory\n$/,
    );
    assertFailure(await run(['tessellate', 'missing.npy', '--box', '0,0,0,1,1,1']), /no such file or directory/);
  });

  it('a file of the wrong kind, points outside the box: 1', async () => {
    assertFailure(
      await run(['tessellate', 'flat.npy', '--box', '0,0,0,1,1,1']),
      /flat\.npy holds an array of shape \(3\); an \(n, 3\) array is needed/,
    );
    assertFailure(await run(['tessellate', 'points.npy', '--box', '0,0,0,0.5,0.5,0.5']), /^peclet: points/);
  });

  it('a sample no fluid crosses: 1, saying so', async () => {
    // Flow along y crosses the slit's walls.
    assertFailure(
      await run(['permeability', 'slit.raw', '--shape', '3,6,3', '--voxel-size', '1e-6', '--axis', 'y']),
      /no pore path joins the inlet and outlet faces/,
    );
  });

  it('PECLET_DEBUG=1 adds the stack to an error', async () => {
    const r = await run(['permeability', 'missing.raw', '--shape', '3,6,3', '--voxel-size', '1e-6'], {
      PECLET_DEBUG: '1',
    });
    assert.equal(r.status, 1, transcript(r));
    assert.match(r.stderr, /^peclet: missing\.raw: no such file or directory\n/);
    assert.match(r.stderr, /\n\s+at /);
  });

  it('--help of the program and of each command: examples on stdout, 0', async () => {
    const program = await run(['--help']);
    assert.equal(program.status, 0, transcript(program));
    assert.equal(program.stderr, '');
    assert.match(program.stdout, /Examples:\n {2}\$ peclet permeability /);
    assert.match(program.stdout, /Exit status:\n {2}0 +success\n {2}1 /);
    assert.match(program.stdout, /130 +interrupted by Ctrl-C/);
    for (const command of ['permeability', 'extract', 'tessellate']) {
      const r = await run([command, '--help']);
      assert.equal(r.status, 0, transcript(r));
      assert.match(r.stdout, new RegExp(`Usage: peclet ${command} \\[options\\]`));
      assert.match(r.stdout, new RegExp(`Examples:\\n {2}\\$ peclet ${command} `));
      assert.match(r.stdout, /Exit status: 0, 1, 2 or 130/);
    }
    const version = await run(['--version']);
    assert.equal(version.status, 0);
    assert.match(version.stdout, /^\d+\.\d+\.\d+\n$/);
  });

  it('the library entry: main() and ExitStatus', async () => {
    const cli = await import('../dist/index.js');
    assert.deepEqual(cli.ExitStatus, { success: 0, failure: 1, usage: 2, interrupted: 130 });
    assert.equal(typeof cli.main, 'function');
    assert.equal(typeof cli.createProgram, 'function');
  });
});
