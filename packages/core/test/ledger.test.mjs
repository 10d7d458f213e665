// The allocation ledger's detector, proven on a deliberately wrong addon,
// and the symbol hygiene that keeps two addons' kernels apart.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fixtures, here, runNode } from './helpers.mjs';

const script = join(fixtures, 'wrong-order.mjs');
const report = /^peclet:wrong ledger: Wrong\.heldPastFinalize \(8000 bytes\) freed after finalize$/m;

describe('allocation ledger', () => {
  it('reports a free after finalize', async () => {
    const result = await runNode(script, [], { env: { PECLET_STRICT: '0' } });
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stderr, report);
    // The finalize line shows the live bytes the wrong addon still held.
    assert.match(result.stderr, /^peclet:wrong finalize reason=exit released=0 live-bytes=8000$/m);
  });

  it('aborts with the label in strict mode', async () => {
    const result = await runNode(script, [], { env: { PECLET_STRICT: '1' } });
    assert.equal(result.signal, 'SIGABRT', result.stderr);
    assert.match(result.stderr, report);
  });
});

describe('symbol hygiene', () => {
  it('exports only the Node-API entry points (no kernel static can be shared)', () => {
    for (const name of ['alpha', 'beta']) {
      const file = join(here, '..', 'test-addon', 'build', 'Release', `${name}.node`);
      const symbols = execFileSync('nm', ['-D', '--defined-only', file], { encoding: 'utf8' })
        .trim()
        .split('\n')
        .map((line) => line.split(' ').slice(1).join(' '))
        .sort();
      // Anything else (a `u` unique static above all) could be bound across addons.
      assert.deepEqual(symbols, ['T napi_register_module_v1', 'T node_api_module_get_api_version_v1'], name);
    }
  });
});
