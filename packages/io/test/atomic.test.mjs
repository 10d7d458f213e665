// Atomic writes: a failing write leaves no temp file and the old target; a process killed by
// SIGKILL mid-write leaves the old target intact and at most a .tmp behind.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { describe, it } from 'node:test';
import { writeAtomically, writeAtomicallySync, writeVti } from '../dist/index.js';
import { tempDir, throwsNaming } from './fixtures/helpers.mjs';

const dir = tempDir();
const entries = (d) => readdirSync(d).sort();

describe('writeAtomically', () => {
  it('writes through a temp file named .<name>.<pid>.<random>.tmp in the same directory', async () => {
    const target = join(dir, 'a.txt');
    let seen;
    await writeAtomically(target, async (temp) => {
      seen = temp;
      await writeFile(temp, 'new');
    });
    assert.equal(readFileSync(target, 'utf8'), 'new');
    assert.match(seen, new RegExp(`^${dir}/\\.a\\.txt\\.${process.pid}\\.[0-9a-f]+\\.tmp$`));
    assert.ok(!existsSync(seen));
  });
  it('writes a file whose name is at the file system’s limit (the temp name is cut, not longer)', async () => {
    // 255 bytes: ASCII, and 2-byte characters (a cut must not split one).
    for (const name of ['n'.repeat(251) + '.raw', 'é'.repeat(125) + '.raw']) {
      assert.equal(Buffer.byteLength(name), name.startsWith('n') ? 255 : 254);
      const target = join(dir, name);
      let seen;
      await writeAtomically(target, async (temp) => {
        seen = temp;
        await writeFile(temp, 'long');
      });
      assert.equal(readFileSync(target, 'utf8'), 'long');
      assert.ok(Buffer.byteLength(basename(seen)) <= 255, basename(seen));
      assert.ok(!basename(seen).includes('\ufffd'));
      writeAtomicallySync(target, (temp) => writeFileSync(temp, 'sync'));
      assert.equal(readFileSync(target, 'utf8'), 'sync');
    }
  });
  it('a throwing write leaves no temp file and the old target unchanged', async () => {
    const sub = join(dir, 'throwing');
    const target = join(sub, 'keep.txt');
    mkdirSync(sub);
    writeFileSync(target, 'old');
    await assert.rejects(
      writeAtomically(target, async (temp) => {
        await writeFile(temp, 'partial');
        throw new Error('disk full');
      }),
      /disk full/,
    );
    assert.equal(readFileSync(target, 'utf8'), 'old');
    assert.deepEqual(entries(sub), ['keep.txt']);
    assert.throws(
      () =>
        writeAtomicallySync(target, (temp) => {
          writeFileSync(temp, 'partial');
          throw new Error('sync failure');
        }),
      /sync failure/,
    );
    assert.equal(readFileSync(target, 'utf8'), 'old');
    assert.deepEqual(entries(sub), ['keep.txt']);
    // A write that never creates the file fails too (nothing to rename).
    await assert.rejects(
      writeAtomically(target, () => {}),
      { code: 'ENOENT' },
    );
    assert.deepEqual(entries(sub), ['keep.txt']);
    // The synchronous form replaces the target.
    writeAtomicallySync(target, (temp) => writeFileSync(temp, 'sync new'));
    assert.equal(readFileSync(target, 'utf8'), 'sync new');
  });
  it('bad arguments', async () => {
    await throwsNaming(() => writeAtomically(1, () => {}), TypeError, 'path');
    await throwsNaming(() => writeAtomically('', () => {}), TypeError, 'path');
    await throwsNaming(() => writeAtomically('a\0b', () => {}), TypeError, 'path');
    await throwsNaming(() => writeAtomically(join(dir, 'f'), 'no'), TypeError, 'write');
    assert.throws(() => writeAtomicallySync(join(dir, 'p'), async () => {}), TypeError);
    assert.ok(!readdirSync(dir).some((f) => f.endsWith('.tmp')));
  });
  it('SIGKILL mid-write leaves the old file intact and only a .tmp behind', async () => {
    const sub = join(dir, 'killed');
    mkdirSync(sub);
    const target = join(sub, 'big.vti');
    writeFileSync(target, 'old contents');
    const script = `
      import { writeVti } from ${JSON.stringify(new URL('../dist/index.js', import.meta.url).href)};
      const n = 256;
      const values = new Float64Array(n * n * n * 3).fill(1.5); // 400 MB, many chunks
      process.stdout.write('writing\\n');
      await writeVti(${JSON.stringify(target)}, { shape: [n, n, n], cellData: { u: { values, components: 3 } } });
      process.stdout.write('done\\n');
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    // Kill once the temp file exists and holds some bytes, not yet all.
    await new Promise((resolve, reject) => {
      const poll = setInterval(() => {
        const temp = readdirSync(sub).find((f) => f.endsWith('.tmp'));
        if (temp && statSync(join(sub, temp)).size > 8 * 2 ** 20) {
          clearInterval(poll);
          child.kill('SIGKILL');
          resolve();
        }
        if (out.includes('done')) {
          clearInterval(poll);
          reject(new Error('the child finished before it could be killed'));
        }
      }, 5);
    });
    const [, signal] = await new Promise((resolve) => child.on('exit', (...a) => resolve(a)));
    assert.equal(signal, 'SIGKILL');
    assert.equal(readFileSync(target, 'utf8'), 'old contents', 'the target is never truncated');
    const left = entries(sub);
    assert.equal(left.length, 2, left.join(', '));
    assert.ok(left.includes('big.vti'));
    assert.match(
      left.find((f) => f !== 'big.vti'),
      /^\.big\.vti\.\d+\.[0-9a-f]+\.tmp$/,
    );
    // A later write succeeds beside the stale temp file.
    await writeVti(target, { shape: [1, 1, 1], cellData: { u: new Float64Array(1) } });
    assert.match(readFileSync(target, 'latin1'), /^<\?xml/);
  });
});
