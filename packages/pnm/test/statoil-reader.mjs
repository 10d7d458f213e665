// An independent reader of the Statoil network format (the four text files `<prefix>_node1.dat`,
// `_node2.dat`, `_link1.dat`, `_link2.dat` of Imperial College's extraction, read by pnflow and
// OpenPNM), written from the format's description, sharing no code with the writer. It checks
// what a consumer relies on: counts, 1-based sequential indices, the same pores in link1 and
// link2, and node1's neighbour and link lists agreeing with the links (−1 = inlet reservoir,
// 0 = outlet reservoir).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const numberPattern = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** The whitespace-separated rows of a file, each a list of numbers; blank lines skipped. */
function rows(path) {
  const text = readFileSync(path, 'utf8');
  const out = [];
  text.split(/\r?\n/).forEach((line, at) => {
    const tokens = line
      .trim()
      .split(/\s+/)
      .filter((t) => t.length > 0);
    if (tokens.length === 0) return;
    out.push(
      tokens.map((t) => {
        if (!numberPattern.test(t)) throw new Error(`${path}:${at + 1}: '${t}' is not a number`);
        return Number(t);
      }),
    );
  });
  return out;
}

function integer(x, where) {
  if (!Number.isInteger(x)) throw new Error(`${where}: ${x} is not an integer`);
  return x;
}

function expectLength(row, n, where) {
  if (row.length !== n) throw new Error(`${where}: ${row.length} fields, expected ${n}`);
}

/**
 * Reads `<dir>/<prefix>_*.dat`. Returns `{ size: [Lx, Ly, Lz], pores, links }`: `pores[i]` is node
 * `i + 1` as `{ index, x, y, z, coordination, neighbours, inlet, outlet, links, volume, radius,
 * shapeFactor, clayVolume }`, `links[k]` is link `k + 1` as `{ index, pore1, pore2, radius,
 * shapeFactor, totalLength, pore1Length, pore2Length, throatLength, volume, clayVolume }` (pore
 * indices as in the files: 1-based, −1 inlet, 0 outlet). Throws on any inconsistency.
 */
export function readStatoil(dir, prefix) {
  const file = (kind) => join(dir, `${prefix}_${kind}.dat`);
  const node1 = rows(file('node1'));
  const node2 = rows(file('node2'));
  const link1 = rows(file('link1'));
  const link2 = rows(file('link2'));

  const head = node1.shift();
  if (!head) throw new Error('node1: empty');
  expectLength(head, 4, 'node1 header');
  const np = integer(head[0], 'node1 header');
  const size = head.slice(1);
  if (node1.length !== np) throw new Error(`node1: ${node1.length} pores, header says ${np}`);
  if (node2.length !== np) throw new Error(`node2: ${node2.length} pores, node1 says ${np}`);

  const linkHead = link1.shift();
  if (!linkHead) throw new Error('link1: empty');
  expectLength(linkHead, 1, 'link1 header');
  const nt = integer(linkHead[0], 'link1 header');
  if (link1.length !== nt) throw new Error(`link1: ${link1.length} links, header says ${nt}`);
  if (link2.length !== nt) throw new Error(`link2: ${link2.length} links, link1 says ${nt}`);

  const pore = (x, where) => {
    integer(x, where);
    if (x < -1 || x > np) throw new Error(`${where}: pore ${x} is not −1, 0 or in 1..${np}`);
    return x;
  };

  const links = link1.map((row, k) => {
    const where = `link1 line ${k + 2}`;
    expectLength(row, 6, where);
    const other = link2[k];
    expectLength(other, 8, `link2 line ${k + 1}`);
    if (integer(row[0], where) !== k + 1) throw new Error(`${where}: index ${row[0]}, expected ${k + 1}`);
    if (other[0] !== k + 1) throw new Error(`link2 line ${k + 1}: index ${other[0]}, expected ${k + 1}`);
    const pore1 = pore(row[1], where);
    const pore2 = pore(row[2], where);
    if (other[1] !== pore1 || other[2] !== pore2) {
      throw new Error(`link ${k + 1}: link1 joins ${pore1}–${pore2}, link2 ${other[1]}–${other[2]}`);
    }
    if (pore1 <= 0 && pore2 <= 0) throw new Error(`link ${k + 1}: joins two reservoirs`);
    return {
      index: k + 1,
      pore1,
      pore2,
      radius: row[3],
      shapeFactor: row[4],
      totalLength: row[5],
      pore1Length: other[3],
      pore2Length: other[4],
      throatLength: other[5],
      volume: other[6],
      clayVolume: other[7],
    };
  });

  const pores = node1.map((row, i) => {
    const where = `node1 line ${i + 2}`;
    if (row.length < 7) throw new Error(`${where}: ${row.length} fields, expected at least 7`);
    if (integer(row[0], where) !== i + 1) throw new Error(`${where}: index ${row[0]}, expected ${i + 1}`);
    const z = integer(row[4], where);
    expectLength(row, 7 + 2 * z, where);
    const neighbours = row.slice(5, 5 + z).map((x) => pore(x, where));
    const inlet = row[5 + z];
    const outlet = row[6 + z];
    if ((inlet !== 0 && inlet !== 1) || (outlet !== 0 && outlet !== 1)) {
      throw new Error(`${where}: inlet/outlet flags ${inlet} ${outlet} are not 0 or 1`);
    }
    const poreLinks = row.slice(7 + z).map((x) => integer(x, where));
    poreLinks.forEach((k, s) => {
      const link = links[k - 1];
      if (!link) throw new Error(`${where}: link ${k} does not exist`);
      const self = i + 1;
      const other = link.pore1 === self ? link.pore2 : link.pore2 === self ? link.pore1 : null;
      if (other === null) throw new Error(`${where}: link ${k} does not end at pore ${self}`);
      if (other !== neighbours[s])
        throw new Error(`${where}: neighbour ${neighbours[s]} but link ${k} leads to ${other}`);
    });
    if ((inlet === 1) !== neighbours.includes(-1)) throw new Error(`${where}: inlet flag disagrees with neighbours`);
    if ((outlet === 1) !== neighbours.includes(0)) throw new Error(`${where}: outlet flag disagrees with neighbours`);
    const second = node2[i];
    expectLength(second, 5, `node2 line ${i + 1}`);
    if (second[0] !== i + 1) throw new Error(`node2 line ${i + 1}: index ${second[0]}, expected ${i + 1}`);
    return {
      index: i + 1,
      x: row[1],
      y: row[2],
      z: row[3],
      coordination: z,
      neighbours,
      inlet: inlet === 1,
      outlet: outlet === 1,
      links: poreLinks,
      volume: second[1],
      radius: second[2],
      shapeFactor: second[3],
      clayVolume: second[4],
    };
  });

  // Every link appears in the lists of each of its (non-reservoir) pores.
  links.forEach((link) => {
    for (const p of [link.pore1, link.pore2]) {
      if (p > 0 && !pores[p - 1].links.includes(link.index)) {
        throw new Error(`link ${link.index} is missing from pore ${p}'s list`);
      }
    }
  });
  return { size, pores, links };
}
