/**
 * WGSL compute kernels of the WebGPU execution space. They port the host kernel's sparse step
 * (native/lattice.cpp, `collide`, `gatherSparse` and `scatterSparse`) to f32 with the same
 * operations in the same order, one invocation per fluid node, streaming in place as the host
 * does (the AA pattern: one copy of the populations; see the host's `Streaming`):
 *
 * - `stepShader` (after an even number of steps): pulls the 19 populations of a node from its
 *   neighbours' slots through the pull-source table (resolved to array indices, so that a
 *   bounce-back is a plain load), computes the moments, the Guo force and the gray drag, and
 *   pushes the TRT-collided populations back into the same slots.
 * - `localStepShader` (after an odd number): reads the node's own populations and writes the
 *   collided ones into the slots of the opposite directions.
 * - `checkShader` / `localCheckShader` and `decideShader`: the host's divergence rule before
 *   each step (see them).
 * - `measureShader`: reads the populations as the next step would (the form the steps taken
 *   leave) and writes velocity and density per node, plus per-workgroup sums of momentum, speed
 *   and mass (added in f64 on the host).
 *
 * Each slot is read and written by one invocation only, so a step needs no second lattice.
 * Populations are stored as deviations from rest (h = f − w), structure of arrays:
 * `h[q·N + s]`. Every kernel uses at most 4 storage buffers (the compatibility limit).
 * @internal
 */

/** Invocations per workgroup. */
export const WORKGROUP = 64;
/** Size in bytes of the uniform block below. */
export const PARAMS_BYTES = 16 * 16;
/** f32 words per workgroup in the measure kernel's partial sums. */
export const PARTIAL_WORDS = 8;
/**
 * A pull-source entry is the index in the population array to read (q·N + source node, or
 * q'·N + s for a link that bounces back); a pressure-face link (anti-bounce-back) also has this
 * bit set, and OUTLET_BIT for the outlet face.
 */
export const BOUNCE = 0x80000000;
export const OUTLET_BIT = 0x40000000;
export const INDEX_MASK = 0x3fffffff;

const cx = [0, 1, -1, 0, 0, 0, 0, 1, -1, 1, -1, 1, -1, 1, -1, 0, 0, 0, 0];
const cy = [0, 0, 0, 1, -1, 0, 0, 1, -1, -1, 1, 0, 0, 0, 0, 1, -1, 1, -1];
const cz = [0, 0, 0, 0, 0, 1, -1, 0, 0, 0, 0, 1, -1, -1, 1, 1, -1, -1, 1];
export const D3Q19 = { cx, cy, cz, Q: 19 } as const;
export const weight = (q: number): number => (q === 0 ? 1 / 3 : q <= 6 ? 1 / 18 : 1 / 36);
export const opposite = (q: number): number => (q === 0 ? 0 : q % 2 === 1 ? q + 1 : q - 1);

// An f32 constant as a WGSL literal that rounds to the same f32 as the host's T(value).
const f32 = (value: number): string => {
  const s = String(Math.fround(value));
  return /[.eE]/.test(s) ? `${s}f` : `${s}.0f`;
};

const prelude = /* wgsl */ `
const BOUNCE: u32 = ${BOUNCE}u;
const OUTLET_BIT: u32 = ${OUTLET_BIT}u;
const INDEX_MASK: u32 = ${INDEX_MASK}u;

struct Params {
  sizes: vec4<u32>,   // fluid nodes N, workgroups along x, inertia (0/1), gray (0/1)
  rates: vec4<f32>,   // ω+ = 1/τ+, ω− = 1/τ−, 1 − ω+/2, 1 − ω−/2
  force: vec4<f32>,   // uniform body force; w: the bound that proves a state (see Status)
  // 2·w_q·(ρ − 1) of the inlet face (q = 0..19) then of the outlet face (20..39), rounded from f64
  faces: array<vec4<f32>, 10>,
}
@group(0) @binding(0) var<uniform> params: Params;

fn nodeIndex(group: vec3<u32>, local: u32) -> u32 {
  return (group.y * params.sizes.y + group.x) * ${WORKGROUP}u + local;
}

fn faceTerm(i: u32) -> f32 {
  return params.faces[i / 4u][i % 4u];
}

// Pull of direction q into node s across the source table (read from lattice a): the entry is
// the index in a to read (the source node's population q, or for a link that bounces back the
// node's own population q'); a pressure-face link also has the top bit set (bit 30: outlet).
fn pulled(q: u32, s: u32, n: u32) -> f32 {
  let e = sources[(q - 1u) * n + s];
  let v = a[e & INDEX_MASK];
  if ((e & BOUNCE) == 0u) { return v; }
  // Anti-bounce-back through a pressure face: −f*_q' + 2 w_q (ρ_face − 1).
  return -v + faceTerm(select(q, 20u + q, (e & OUTLET_BIT) != 0u));
}
`;

// The batch's status (STATUS_WORDS u32): stop (a step was found that would diverge: the steps
// after it write nothing), exceeded (values the last step wrote past the bound force.w, under
// which the state it made is proved within the rule), taken (steps taken), parity (of the steps
// taken before the batch).
const status = /* wgsl */ `
struct Status {
  stop: atomic<u32>,
  exceeded: atomic<u32>,
  taken: atomic<u32>,
  parity: u32,
}
`;

// Loads h0..h18 (pulled from the neighbours, or `local`: the node's own) and the moments dr, j
// (summed in q order, as on the host), the force f and the velocity u (Guo's half force, gray
// drag implicit).
// `local` 'runtime': as the WGSL bool `atNodes` says.
function moments(local: boolean | 'runtime' = false): string {
  const lines = ['  let h0 = a[s];'];
  for (let q = 1; q < 19; q++) {
    if (local === 'runtime') lines.push(`  let h${q} = select(pulled(${q}u, s, n), a[${q}u * n + s], atNodes);`);
    else lines.push(local ? `  let h${q} = a[${q}u * n + s];` : `  let h${q} = pulled(${q}u, s, n);`);
  }
  lines.push('  var dr = 0.0f;', '  var x = 0.0f;', '  var y = 0.0f;', '  var z = 0.0f;');
  for (let q = 0; q < 19; q++) {
    lines.push(`  dr = dr + h${q};`);
    for (const [name, c] of [
      ['x', cx[q]],
      ['y', cy[q]],
      ['z', cz[q]],
    ] as const) {
      if (c === 1) lines.push(`  ${name} = ${name} + h${q};`);
      else if (c === -1) lines.push(`  ${name} = ${name} - h${q};`);
    }
  }
  lines.push(
    '  var f = params.force.xyz;',
    '  var u = vec3<f32>(x + 0.5f * f.x, y + 0.5f * f.y, z + 0.5f * f.z);',
    '  if (params.sizes.w != 0u) {',
    '    // A Darcy drag −γu, implicit in the velocity (Guo & Zhao 2002); γ after the table.',
    '    let gamma = bitcast<f32>(sources[18u * n + s]);',
    '    let implicit = 1.0f / (1.0f + 0.5f * gamma);',
    '    u = vec3<f32>(u.x * implicit, u.y * implicit, u.z * implicit);',
    '    f = vec3<f32>(f.x - gamma * u.x, f.y - gamma * u.y, f.z - gamma * u.z);',
    '  }',
  );
  return lines.join('\n');
}

function term(c: number, v: string): string {
  return c === 0 ? `0.0f * ${v}` : c === 1 ? v : `-${v}`;
}

// Where the collided population q of node s goes: pushed back into the slot its pull came
// from (the table of the opposite direction: a neighbour's slot q, or through a wall the node's
// own slot opposite(q); through a pressure face anti-bounce-back), or, `local`, into the node's
// slot opposite(q).
// Each value written past the bound force.w is counted (the proof the next step needs fails).
function store(q: number, value: string, local: boolean): string {
  const count = '    if (!(abs(v) <= params.force.w)) { atomicAdd(&state.exceeded, 1u); }';
  if (q === 0) return ['  {', `    let v = ${value};`, '    a[s] = v;', count, '  }'].join('\n');
  const o = opposite(q);
  if (local) return ['  {', `    let v = ${value};`, `    a[${o}u * n + s] = v;`, count, '  }'].join('\n');
  return [
    '  {',
    `    let e = sources[${o - 1}u * n + s];`,
    `    let v = ${value};`,
    count,
    '    if ((e & BOUNCE) == 0u) {',
    '      a[e & INDEX_MASK] = v;',
    '    } else {',
    `      a[e & INDEX_MASK] = -v + faceTerm(select(${o}u, ${20 + o}u, (e & OUTLET_BIT) != 0u));`,
    '    }',
    '  }',
  ].join('\n');
}

function collide(local: boolean): string {
  const lines = [
    '  let iota = select(0.0f, 1.0f, params.sizes.z != 0u);',
    '  let wp = params.rates.x;',
    '  let wm = params.rates.y;',
    '  let sp = params.rates.z;',
    '  let sm = params.rates.w;',
    '  let uu = u.x * u.x + u.y * u.y + u.z * u.z;',
    '  let uf = u.x * f.x + u.y * f.y + u.z * f.z;',
    `  let w0 = ${f32(1 / 3)};`,
    '  let eq0 = w0 * (dr - iota * 1.5f * uu);',
    store(0, 'h0 - wp * (h0 - eq0) + sp * w0 * iota * (-3.0f * uf)', local),
  ];
  for (let p = 1; p < 19; p += 2) {
    const qa = p;
    const qb = p + 1;
    const c = [cx[qa] as number, cy[qa] as number, cz[qa] as number];
    lines.push(
      '  {',
      `    let w = ${f32(weight(qa))};`,
      `    let cu = ${term(c[0] as number, 'u.x')} + ${term(c[1] as number, 'u.y')} + ${term(c[2] as number, 'u.z')};`,
      `    let cf = ${term(c[0] as number, 'f.x')} + ${term(c[1] as number, 'f.y')} + ${term(c[2] as number, 'f.z')};`,
      '    let eqp = w * (dr + iota * (4.5f * cu * cu - 1.5f * uu));',
      '    let eqm = w * 3.0f * cu;',
      `    let hp = 0.5f * (h${qa} + h${qb});`,
      `    let hm = 0.5f * (h${qa} - h${qb});`,
      '    let np = hp - wp * (hp - eqp) + sp * w * iota * (9.0f * cu * cf - 3.0f * uf);',
      '    let nm = hm - wm * (hm - eqm) + sm * w * 3.0f * cf;',
      store(qa, 'np + nm', local),
      store(qb, 'np - nm', local),
      '  }',
    );
  }
  return lines.join('\n');
}

function stepOf(local: boolean): string {
  return /* wgsl */ `
@group(0) @binding(1) var<storage, read_write> a: array<f32>;
@group(0) @binding(2) var<storage, read> sources: array<u32>;
${status}
@group(0) @binding(3) var<storage, read_write> state: Status;
${prelude}
@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
  let n = params.sizes.x;
  let s = nodeIndex(group, local);
  if (s >= n || atomicLoad(&state.stop) != 0u) { return; }
${moments(local)}
${collide(local)}
}
`;
}

/**
 * The host's rule before a step (native/lattice.cpp, countOutOfBounds): a node whose |u|² +
 * 10⁻⁴δρ² + 10⁻²(u·F)² passes 100, or is not finite, stops the batch before the step. Dispatched
 * (indirectly) first in a batch and after a step that could not prove the state within it.
 */
function checkOf(local: boolean): string {
  return /* wgsl */ `
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> sources: array<u32>;
${status}
@group(0) @binding(3) var<storage, read_write> state: Status;
${prelude}
@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
  let n = params.sizes.x;
  let s = nodeIndex(group, local);
  if (s >= n) { return; }
${moments(local)}
  let uu = u.x * u.x + u.y * u.y + u.z * u.z;
  let uf = u.x * f.x + u.y * f.y + u.z * f.z;
  let rule = uu + 1e-4f * dr * dr + 1e-2f * uf * uf;
  if (!(rule <= 100.0f)) { atomicStore(&state.stop, 1u); }
}
`;
}

/**
 * After each step (one invocation): counts the step as taken unless the batch stopped, and sets
 * the next check's workgroups: all (gx × gy) when the step wrote a value past the bound, none
 * when it proved the state or the batch stopped.
 */
export function decideShader(gx: number, gy: number): string {
  return /* wgsl */ `
${status}
@group(0) @binding(0) var<storage, read_write> state: Status;
@group(0) @binding(1) var<storage, read_write> args: array<u32, 4>;
@compute @workgroup_size(1)
fn main() {
  let stopped = atomicLoad(&state.stop) != 0u;
  if (!stopped) { atomicAdd(&state.taken, 1u); }
  let check = atomicExchange(&state.exceeded, 0u) != 0u && !stopped;
  args[0] = select(0u, ${gx}u, check);
  args[1] = select(0u, ${gy}u, check);
  args[2] = 1u;
}
`;
}

/** One step from the state after an even number of steps: pull, collide, push back. */
export const stepShader = stepOf(false);
/** One step from the state after an odd number: the node's own populations, collided. */
export const localStepShader = stepOf(true);
/** The rule before a step, from either form. */
export const checkShader = checkOf(false);
export const localCheckShader = checkOf(true);
/** u32 words of the status buffer. */
export const STATUS_WORDS = 4;

/**
 * Fields of lattice a (velocity xyz and density per node, 4 words each, at the start of `out`)
 * and per-workgroup sums (momentum xyz, speed, mass; PARTIAL_WORDS each, after 4N words).
 */
function measureOf(): string {
  return /* wgsl */ `
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<storage, read> sources: array<u32>;
${status}
@group(0) @binding(4) var<storage, read_write> state: Status;
${prelude}
var<workgroup> sums: array<array<f32, ${WORKGROUP}>, 5>;

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) local: u32) {
  let n = params.sizes.x;
  let s = nodeIndex(group, local);
  var values = array<f32, 5>(0.0f, 0.0f, 0.0f, 0.0f, 0.0f);
  // The populations lie at the nodes after an odd number of steps in all.
  let atNodes = ((state.parity + atomicLoad(&state.taken)) & 1u) == 1u;
  if (s < n) {
${moments('runtime')}
    out[4u * s] = u.x;
    out[4u * s + 1u] = u.y;
    out[4u * s + 2u] = u.z;
    out[4u * s + 3u] = 1.0f + dr;
    values = array<f32, 5>(u.x, u.y, u.z, sqrt(u.x * u.x + u.y * u.y + u.z * u.z), 1.0f + dr);
  }
  for (var k = 0u; k < 5u; k++) { sums[k][local] = values[k]; }
  workgroupBarrier();
  for (var stride = ${WORKGROUP / 2}u; stride > 0u; stride = stride / 2u) {
    if (local < stride) {
      for (var k = 0u; k < 5u; k++) { sums[k][local] = sums[k][local] + sums[k][local + stride]; }
    }
    workgroupBarrier();
  }
  if (local == 0u) {
    let g = group.y * params.sizes.y + group.x;
    let base = 4u * n + ${PARTIAL_WORDS}u * g;
    for (var k = 0u; k < 5u; k++) { out[base + k] = sums[k][0]; }
  }
}
`;
}

/** The fields of the state reached, in whichever form the steps taken leave it. */
export const measureShader = measureOf();
