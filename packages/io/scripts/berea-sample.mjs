// Writes data/berea-100.npz, the sample image @peclet/io ships (bereaSamplePath): the central
// 100³ voxels, [50:150]³, of the 200³ Berea sandstone subvolume [100:300]³ of the Imperial
// College micro-CT image (400³ at 5.345 µm) as OpenPNM ships it in its test fixtures
// (berea_100_to_300.npz), here with 1 = solid. One uint8 array `im`, C order, deflated.
//
//   node scripts/berea-sample.mjs path/to/berea-200.raw.gz
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { zipSync } from 'fflate';

const source = process.argv[2];
if (!source) throw new Error('usage: node scripts/berea-sample.mjs berea-200.raw.gz');
const full = gunzipSync(readFileSync(source));
const sha = createHash('sha256').update(full).digest('hex');
if (sha !== '5fbf2c0f109884adbee2bad03cde8730ec676db2870057125fdc7ba35351c3f6') {
  throw new Error(`${source}: not the 200³ Berea image (sha256 ${sha})`);
}
const [n, m, start] = [200, 100, 50];
const im = new Uint8Array(m * m * m);
for (let i = 0; i < m; i++) {
  for (let j = 0; j < m; j++) {
    const from = ((i + start) * n + (j + start)) * n + start;
    im.set(full.subarray(from, from + m), (i * m + j) * m);
  }
}
let header = `{'descr': '|u1', 'fortran_order': False, 'shape': (${m}, ${m}, ${m}), }`;
header += ' '.repeat(63 - ((10 + header.length) % 64));
header += '\n';
const head = Buffer.alloc(10);
head.write('\x93NUMPY', 0, 'latin1');
head[6] = 1;
head.writeUInt16LE(header.length, 8);
const npy = Buffer.concat([head, Buffer.from(header, 'latin1'), im]);
// A fixed date: the same bytes on every run.
const zip = zipSync({ 'im.npy': [npy, { level: 9, mtime: new Date('2026-01-01T00:00:00Z') }] });
const out = join(import.meta.dirname, '..', 'data', 'berea-100.npz');
writeFileSync(out, zip);
let solid = 0;
for (const v of im) solid += v;
console.log(`${out}: ${zip.length} bytes, porosity ${1 - solid / im.length}`);
