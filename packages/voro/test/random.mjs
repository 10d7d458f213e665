// A small seeded generator (xorshift64*), so every test and benchmark run
// sees the same points.
export function random(seed = 1) {
  let s = BigInt(seed) | 1n;
  return () => {
    s ^= s >> 12n;
    s ^= (s << 25n) & 0xffffffffffffffffn;
    s ^= s >> 27n;
    return Number(((s * 2685821657736338717n) & 0xffffffffffffffffn) >> 11n) / 2 ** 53;
  };
}

/** n points uniformly in [min, max]^3. */
export function randomPoints(n, seed = 1, min = 0, max = 1) {
  const next = random(seed);
  const points = new Float64Array(3 * n);
  for (let i = 0; i < points.length; i++) points[i] = min + (max - min) * next();
  return points;
}
