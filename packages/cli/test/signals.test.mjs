// Ctrl-C: the run in flight is cancelled, every module finalized by the signal, and the process
// dies by SIGINT (a shell reports 130).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { findCrash, parseTrace, transcript } from '@peclet/test-harness';
import { grains, start, tempFolder } from './helpers.mjs';

describe('Ctrl-C', () => {
  const temp = tempFolder();
  before(() => writeFileSync(join(temp.dir, 'grains.raw'), grains(40).solid));
  after(() => temp.cleanup());

  it('SIGINT during the lattice Boltzmann run: flow finalized by the signal, death by SIGINT', async () => {
    // A tolerance the flow cannot reach soon: the run goes on until the signal.
    const child = start(
      [
        'permeability',
        'grains.raw',
        '--shape',
        '40,40,40',
        '--voxel-size',
        '1e-5',
        '--tolerance',
        '1e-14',
        '--max-steps',
        '10000000',
      ],
      { cwd: temp.dir, env: { PECLET_DEBUG: '1', PECLET_TEARDOWN_TRACE: '1' } },
    );
    // The first progress report: the lattice exists and runs.
    await child.waitFor(/peclet: debug: flow: \d+ steps/);
    child.child.kill('SIGINT');
    const r = await child.ended;
    const result = { ...r, hung: false };
    assert.equal(r.signal, 'SIGINT', transcript(result));
    assert.equal(r.status, null);
    assert.equal(findCrash(result), undefined, transcript(result));
    const finalized = parseTrace(r.stderr).filter((e) => e.kind === 'finalize' && e.module === 'flow');
    assert.equal(finalized.length, 1, transcript(result));
    assert.equal(finalized[0].reason, 'signal');
    assert.equal(finalized[0].released, 1, 'the lattice released by the finalize');
    assert.equal(finalized[0].liveBytes, 0);
    // The cancelled run's rejection is not reported as an error: the signal is the news.
    assert.doesNotMatch(r.stderr.replace(/^peclet: debug: .*$/gm, ''), /^peclet: /m, transcript(result));
    assert.equal(r.stdout, '');
  });
});
