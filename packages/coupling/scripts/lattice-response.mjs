// The fluid lattice's steady response to a unit force in one cell (D3Q19, TRT, Λ = 3/16), the table
// of the self-correction (native/coupling.cpp, latticeResponse): in periodic boxes of 32³ and 48³
// cells a force in one cell and its opposite spread evenly, run until the velocity there changes by
// less than 1e-10 of itself in 200 steps; the periodic images lower every value by about
// 2.8373/(6π L) (Hasimoto 1959), so the free-space value is g(48) + 2 (g(48) − g(32)).
//   node scripts/lattice-response.mjs   (about a minute)
import { Lattice } from '@peclet/flow';

const offsets = [
  ['the cell itself', [0, 0, 0], 0],
  ['a face neighbour along the force', [1, 0, 0], 0],
  ['a face neighbour across it', [0, 1, 0], 0],
  ["an edge neighbour in the force's plane", [1, 1, 0], 0],
  ['an edge neighbour across the force', [0, 1, 1], 0],
  ['a corner neighbour, along the force', [1, 1, 1], 0],
  ['an edge neighbour, the other component', [1, 1, 0], 1],
  ['a corner neighbour, another component', [1, 1, 1], 1],
];

function measure(n) {
  const nu = 1 / 6;
  const force = 1e-5;
  const lattice = new Lattice({ shape: [n, n, n], periodic: true, viscosity: nu, precision: 'f64', layout: 'dense' });
  const index = (i, j, k) => (((i + n) % n) * n + ((j + n) % n)) * n + ((k + n) % n);
  const f = lattice.force;
  for (let c = 0; c < n ** 3; c++) f[3 * c] = -force / n ** 3;
  const m = n / 2;
  f[3 * index(m, m, m)] += force;
  let last = 0;
  for (let k = 0; k < 500; k++) {
    lattice.step(200);
    const u = lattice.velocity[3 * index(m, m, m)];
    if (Math.abs(u - last) < 1e-10 * Math.abs(u)) break;
    last = u;
  }
  const u = lattice.velocity;
  const values = offsets.map(([, d, a]) => (u[3 * index(m + d[0], m + d[1], m + d[2]) + a] * nu) / force);
  lattice.release();
  return values;
}

const small = measure(32);
const large = measure(48);
offsets.forEach(([what], k) => {
  const free = large[k] + 2 * (large[k] - small[k]);
  console.log(`${free.toFixed(7)}  ${what}`);
});
