// The fluid lattice's steady response to a unit force in one cell (D3Q19, TRT, Λ = 3/16), the table
// of the self-correction (native/coupling.cpp, latticeResponse): in periodic boxes of 32³ and 48³
// cells a force in one cell and its opposite spread evenly, run until the velocity there changes by
// less than 1e-10 of itself in 200 steps; the periodic images lower every value by about
// 2.8373/(6π L) (Hasimoto 1959), so the free-space value is g(48) + 2 (g(48) − g(32)).
//   node scripts/lattice-response.mjs   (about 20 s)
import { latticeResponseIn, latticeResponseOffsets } from '../test/helpers.mjs';

const small = latticeResponseIn(32);
const large = latticeResponseIn(48);
latticeResponseOffsets.forEach(([what], k) => {
  const free = large[k] + 2 * (large[k] - small[k]);
  console.log(`${free.toFixed(7)}  ${what}`);
});
