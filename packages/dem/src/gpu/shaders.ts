/**
 * WGSL compute kernels of the WebGPU execution space. They port the CPU kernel's step
 * (native/simulation.cpp, native/contact_force.hpp) to f32, one invocation per sphere:
 *
 * - `count`, `scan`, `scatter`, `sortCells`: the uniform grid, rebuilt every step by a counting
 *   sort (atomic counts per cell → exclusive prefix sum → scatter), then each cell's sphere ids
 *   sorted so that the order of force summation, and so the result, is deterministic.
 * - `forces`: every sphere sums its own side of each contact over the 27 neighbouring cells
 *   (minimum image on periodic axes) and the walls; tangential springs live in per-sphere slots.
 * - `kickDrift`, `kick`: velocity Verlet with the same predicted velocities as the CPU kernel.
 *
 * Spheres keep their user order on the device; only the grid's id list is sorted. Every kernel
 * stays within 8 storage buffers (the WebGPU compatibility limit).
 * @internal
 */

/** Invocations per workgroup (within the compatibility limit of 128). */
export const WORKGROUP = 64;

/** Partner id of a wall contact in a history slot: WALL_PARTNER + face (0..5). */
export const WALL_PARTNER = 0xfffffff0;

/** Partner id that ends a sphere's list of history slots. */
export const NO_PARTNER = 0xffffffff;

/** Size in bytes of the uniform block below. */
export const PARAMS_BYTES = 8 * 16;

/** Fixed-point quanta per box edge: a position is box.min + (whole + fraction)·edge/2^30. */
export const QUANTA = 2 ** 30;

// Positions are fixed point: per axis an integer number of quanta `whole` in [0, 2^30] (the box
// edge is 2^30 quanta) plus an f32 `fraction` in [−½, ½] of a quantum. A drift adds Δt·v in
// quanta and carries the integer part into `whole`, so rounding errors scale with the step's
// displacement, not with the distance from the box origin as they would for f32 coordinates,
// and periodic wrapping is exact integer arithmetic. Buffer layout: 2 vec4<u32> per sphere,
// (whole xyz, radius bits) then (fraction bits xyz, 0).
const prelude = /* wgsl */ `
const FULL: i32 = ${QUANTA};
const HALF: i32 = ${QUANTA / 2};

struct Params {
  length: vec4<f32>,      // box edge lengths (m); w: time step dt (s)
  inverseCell: vec4<f32>, // cells per quantum per axis; w: dt / 2
  quantum: vec4<f32>,     // edge / 2^30 per axis (m)
  gravity: vec4<f32>,     // body acceleration (m/s²); w: friction coefficient μ
  law: vec4<f32>,         // linear: kn, kt, cn/√m*, ct/√m*; hertz-mindlin: E*, G*, α, 0
  cells: vec4<u32>,       // cells per axis, total cells
  flags: vec4<u32>,       // periodic axes (bits 0..2), walls (bits 0..5, faces x− x+ y− y+ z− z+), model (0 hertz-mindlin, 1 linear), rotation
  sizes: vec4<u32>,       // spheres, history slots per sphere (0: frictionless), 0, 0
}
@group(0) @binding(0) var<uniform> params: Params;

// Cell of a fixed-point position (whole, fraction).
fn cellCoordinate(whole: vec3<i32>, fraction: vec3<f32>) -> vec3<i32> {
  let n = vec3<i32>(params.cells.xyz);
  // A NaN position lands in some cell in range; the integrator reports it.
  let x = vec3<f32>(whole) + fraction;
  return clamp(vec3<i32>(floor(x * params.inverseCell.xyz)), vec3<i32>(0), n - vec3<i32>(1));
}

fn cellIndex(c: vec3<i32>) -> u32 {
  return u32((c.z * i32(params.cells.y) + c.y) * i32(params.cells.x) + c.x);
}

fn periodic(axis: u32) -> bool {
  return ((params.flags.x >> axis) & 1u) == 1u;
}
`;

/** count: the cell of every sphere and the number of spheres per cell. */
export const countShader = /* wgsl */ `${prelude}
@group(0) @binding(1) var<storage, read> position: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> cellOfSphere: array<u32>;
@group(0) @binding(3) var<storage, read_write> counts: array<atomic<u32>>;

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= params.sizes.x) { return; }
  let whole = bitcast<vec3<i32>>(position[2u * i].xyz);
  let cell = cellIndex(cellCoordinate(whole, bitcast<vec3<f32>>(position[2u * i + 1u].xyz)));
  cellOfSphere[i] = cell;
  atomicAdd(&counts[cell], 1u);
}
`;

/**
 * scan: exclusive prefix sum of the counts into cellStart (cells + 1 entries) by one workgroup:
 * each invocation sums a contiguous block, the block sums are scanned, then each block is
 * written. It zeroes the counts, which scatter uses next as per-cell cursors.
 */
export const scanShader = /* wgsl */ `${prelude}
@group(0) @binding(1) var<storage, read_write> counts: array<u32>;
@group(0) @binding(2) var<storage, read_write> cellStart: array<u32>;

var<workgroup> blockSum: array<u32, ${WORKGROUP}>;

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(local_invocation_index) t: u32) {
  let total = params.cells.w;
  let per = (total + ${WORKGROUP - 1}u) / ${WORKGROUP}u;
  let begin = min(t * per, total);
  let end = min(begin + per, total);
  var sum = 0u;
  for (var c = begin; c < end; c++) { sum += counts[c]; }
  blockSum[t] = sum;
  workgroupBarrier();
  if (t == 0u) {
    var running = 0u;
    for (var k = 0u; k < ${WORKGROUP}u; k++) {
      let value = blockSum[k];
      blockSum[k] = running;
      running += value;
    }
    cellStart[total] = running;
  }
  workgroupBarrier();
  var running = blockSum[t];
  for (var c = begin; c < end; c++) {
    cellStart[c] = running;
    running += counts[c];
    counts[c] = 0u;
  }
}
`;

/** scatter: sphere ids grouped by cell (order inside a cell fixed by sortCells). */
export const scatterShader = /* wgsl */ `${prelude}
@group(0) @binding(1) var<storage, read> cellOfSphere: array<u32>;
@group(0) @binding(2) var<storage, read> cellStart: array<u32>;
@group(0) @binding(3) var<storage, read_write> counts: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> sorted: array<u32>;

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= params.sizes.x) { return; }
  let cell = cellOfSphere[i];
  let rank = atomicAdd(&counts[cell], 1u);
  sorted[cellStart[cell] + rank] = i;
}
`;

/** sortCells: insertion sort of each cell's ids (a handful each); zeroes the cursors. */
export const sortCellsShader = /* wgsl */ `${prelude}
@group(0) @binding(1) var<storage, read> cellStart: array<u32>;
@group(0) @binding(2) var<storage, read_write> counts: array<u32>;
@group(0) @binding(3) var<storage, read_write> sorted: array<u32>;

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let cell = id.x;
  if (cell >= params.cells.w) { return; }
  let begin = cellStart[cell];
  let end = cellStart[cell + 1u];
  for (var a = begin + 1u; a < end; a++) {
    let value = sorted[a];
    var k = a;
    while (k > begin && sorted[k - 1u] > value) {
      sorted[k] = sorted[k - 1u];
      k--;
    }
    sorted[k] = value;
  }
  counts[cell] = 0u;
}
`;

/**
 * forces: contact forces and torques of every sphere, its own side of each contact (the partner
 * computes the mirror image, so Newton's third law holds to rounding). The contact law is
 * contact_force.hpp in f32: linear or Hertz normal spring, the dashpot integrated as an impulse
 * over the kick interval, tangential spring with Coulomb cap kept in the tangent plane.
 *
 * History slots: sphere i owns slots [i·C, (i+1)·C) of a double-buffered array: vec4<u32>(spring
 * bits, partner id), ended by NO_PARTNER. It reads last step's springs from slotsIn and writes the
 * current contacts to slotsOut; a sphere with more than C contacts sets the overflow status.
 *
 * status: [0] non-finite state, [1] clamped spheres, [2] lowest clamped sphere,
 *         [3] history overflow, [4] lowest overflowing sphere, [5] its contact count.
 */
export const forcesShader = /* wgsl */ `${prelude}
@group(0) @binding(1) var<storage, read> position: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> predicted: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> cellStart: array<u32>;
@group(0) @binding(4) var<storage, read> sorted: array<u32>;
@group(0) @binding(5) var<storage, read> slotsIn: array<vec4<u32>>;
@group(0) @binding(6) var<storage, read_write> slotsOut: array<vec4<u32>>;
@group(0) @binding(7) var<storage, read_write> forceTorque: array<vec4<f32>>;
@group(0) @binding(8) var<storage, read_write> status: array<atomic<u32>>;

struct Contact {
  force: vec3<f32>,
  arm: vec3<f32>,
  shear: vec3<f32>,
}

fn power54(d: f32) -> f32 {
  if (d > 0.0) { return d * sqrt(sqrt(d)); }
  return 0.0;
}

// Force on sphere i from its partner (contact_force.hpp). normal points from the partner to i.
fn contactForce(normal: vec3<f32>, overlap: f32, relative: vec3<f32>, spin: vec3<f32>,
                reducedMass: f32, reducedRadius: f32, shearIn: vec3<f32>, friction: bool) -> Contact {
  let dt = params.length.w;
  let linear = params.flags.z == 1u;
  var kn: f32;
  var kt = 0.0;
  var ct = 0.0;
  var dashpot: f32;
  let vn = dot(relative, normal);
  let rate = -vn;
  let before = overlap - 0.5 * dt * rate;
  let after = overlap + 0.5 * dt * rate;
  let startInside = overlap - dt * rate > 0.0;
  let endInside = overlap + dt * rate > 0.0;
  if (linear) {
    let rootMass = sqrt(reducedMass);
    kn = params.law.x;
    kt = params.law.y;
    ct = params.law.w * rootMass;
    let cn = params.law.z * rootMass;
    let start = select(0.0, before, startInside);
    let end = select(0.0, after, endInside);
    dashpot = cn * (end - start) / dt;
  } else {
    let contactRadius = sqrt(reducedRadius * overlap);
    kn = 4.0 / 3.0 * params.law.x * contactRadius;
    kt = 8.0 * params.law.y * contactRadius;
    ct = params.law.z * sqrt(reducedMass * kt);
    let coefficient = params.law.z * sqrt(reducedMass * 4.0 / 3.0 * params.law.x * sqrt(reducedRadius));
    let start = select(0.0, power54(before), startInside);
    let end = select(0.0, power54(after), endInside);
    dashpot = 0.8 * coefficient * (end - start) / dt;
  }
  let fn_ = kn * overlap + dashpot;
  var result: Contact;
  result.force = fn_ * normal;
  result.arm = vec3<f32>(0.0);
  result.shear = vec3<f32>(0.0);
  if (!friction) { return result; }
  let vt = relative - vn * normal - cross(spin, normal);
  var s = shearIn + vt * dt;
  s = s - dot(s, normal) * normal;
  var ft = -(kt * s + ct * vt);
  let limit = params.gravity.w * abs(fn_);
  let ft2 = dot(ft, ft);
  if (ft2 > limit * limit) {
    ft = ft * (limit / sqrt(ft2));
    s = -(ft + ct * vt) / kt;
  }
  result.shear = s;
  result.force = result.force + ft;
  result.arm = cross(normal, ft);
  return result;
}

fn lookupShear(base: u32, capacity: u32, partner: u32) -> vec3<f32> {
  for (var k = 0u; k < capacity; k++) {
    let slot = slotsIn[base + k];
    if (slot.w == ${NO_PARTNER}u) { break; }
    if (slot.w == partner) { return bitcast<vec3<f32>>(slot.xyz); }
  }
  return vec3<f32>(0.0);
}

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = gid.x;
  if (i >= params.sizes.x) { return; }
  let capacity = params.sizes.y;
  let friction = capacity > 0u;
  let base = i * capacity;
  let own = position[2u * i];
  let wholeI = bitcast<vec3<i32>>(own.xyz);
  let fractionI = bitcast<vec3<f32>>(position[2u * i + 1u].xyz);
  let ri = bitcast<f32>(own.w);
  let motion = predicted[2u * i];
  let vi = motion.xyz;
  let inverseMassI = motion.w;
  let wi = predicted[2u * i + 1u].xyz;
  let quantum = params.quantum.xyz;
  let cells = vec3<i32>(params.cells.xyz);
  let home = cellCoordinate(wholeI, fractionI);
  var force = vec3<f32>(0.0);
  var torque = vec3<f32>(0.0);
  var stored = 0u;
  var wanted = 0u;
  for (var dz = -1; dz <= 1; dz++) {
    for (var dy = -1; dy <= 1; dy++) {
      for (var dx = -1; dx <= 1; dx++) {
        var c = home + vec3<i32>(dx, dy, dz);
        var inside = true;
        for (var a = 0u; a < 3u; a++) {
          if (c[a] < 0 || c[a] >= cells[a]) {
            if (periodic(a)) { c[a] = (c[a] + cells[a]) % cells[a]; } else { inside = false; }
          }
        }
        if (!inside) { continue; }
        let cell = cellIndex(c);
        let end = cellStart[cell + 1u];
        for (var k = cellStart[cell]; k < end; k++) {
          let j = sorted[k];
          if (j == i) { continue; }
          let other = position[2u * j];
          // Integer difference first (exact, minimum image on periodic axes), then the fractions:
          // the separation is accurate relative to its own size.
          var steps = wholeI - bitcast<vec3<i32>>(other.xyz);
          for (var a = 0u; a < 3u; a++) {
            if (periodic(a)) {
              if (steps[a] > HALF) { steps[a] -= FULL; } else if (steps[a] < -HALF) { steps[a] += FULL; }
            }
          }
          let d = (vec3<f32>(steps) + (fractionI - bitcast<vec3<f32>>(position[2u * j + 1u].xyz))) * quantum;
          let rj = bitcast<f32>(other.w);
          let reach = ri + rj;
          let r2 = dot(d, d);
          if (r2 >= reach * reach) { continue; }
          let r = sqrt(r2);
          let normal = d * (1.0 / r);
          let partner = predicted[2u * j];
          let relative = vi - partner.xyz;
          let spin = ri * wi + rj * predicted[2u * j + 1u].xyz;
          var shear = vec3<f32>(0.0);
          if (friction) { shear = lookupShear(base, capacity, j); }
          let contact = contactForce(normal, reach - r, relative, spin, 1.0 / (inverseMassI + partner.w),
                                     ri * rj / reach, shear, friction);
          force += contact.force;
          torque -= ri * contact.arm;
          if (friction) {
            wanted++;
            if (stored < capacity) {
              slotsOut[base + stored] = vec4<u32>(bitcast<vec3<u32>>(contact.shear), j);
              stored++;
            }
          }
        }
      }
    }
  }
  // Walls: a sphere of infinite radius and mass, R* = r, m* = m.
  for (var face = 0u; face < 6u; face++) {
    if (((params.flags.y >> face) & 1u) == 0u) { continue; }
    let axis = face / 2u;
    let lower = face % 2u == 0u;
    let fromLower = (f32(wholeI[axis]) + fractionI[axis]) * quantum[axis];
    let fromUpper = (f32(FULL - wholeI[axis]) - fractionI[axis]) * quantum[axis];
    let gap = select(fromUpper, fromLower, lower);
    if (gap >= ri) { continue; }
    var normal = vec3<f32>(0.0);
    normal[axis] = select(-1.0, 1.0, lower);
    let id = ${WALL_PARTNER}u + face;
    var shear = vec3<f32>(0.0);
    if (friction) { shear = lookupShear(base, capacity, id); }
    let contact = contactForce(normal, ri - gap, vi, ri * wi, 1.0 / inverseMassI, ri, shear, friction);
    force += contact.force;
    torque -= ri * contact.arm;
    if (friction) {
      wanted++;
      if (stored < capacity) {
        slotsOut[base + stored] = vec4<u32>(bitcast<vec3<u32>>(contact.shear), id);
        stored++;
      }
    }
  }
  if (stored < capacity) { slotsOut[base + stored] = vec4<u32>(0u, 0u, 0u, ${NO_PARTNER}u); }
  if (wanted > capacity) {
    atomicMax(&status[3], 1u);
    atomicMin(&status[4], i);
    atomicMax(&status[5], wanted);
  }
  forceTorque[2u * i] = vec4<f32>(force, 0.0);
  forceTorque[2u * i + 1u] = vec4<f32>(torque, 0.0);
}
`;

// Shared by kickDrift and kick: acceleration = contact force / m + g (gravity is added here, not
// summed into the force, so a free flight gets g exactly).
const integratorBindings = /* wgsl */ `
@group(0) @binding(1) var<storage, read_write> velocity: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> angularVelocity: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> forceTorque: array<vec4<f32>>;
`;

/**
 * kickDrift: v(n+½) = v(n) + ½Δt·a(n); predicted ṽ(n+1) = v(n+½) + ½Δt·a(n) (for the dashpots);
 * x(n+1) = x(n) + Δt·v(n+½); the same for ω. Then: a non-finite state is flagged; a centre
 * outside the box on a non-periodic axis is clamped onto the face with its outward velocity
 * zeroed; periodic coordinates are wrapped into [0, 2^30) quanta.
 */
export const kickDriftShader = /* wgsl */ `${prelude}${integratorBindings}
@group(0) @binding(4) var<storage, read_write> position: array<vec4<u32>>;
@group(0) @binding(5) var<storage, read_write> predicted: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read_write> status: array<atomic<u32>>;

fn finite(x: f32) -> bool {
  return (bitcast<u32>(x) & 0x7f800000u) != 0x7f800000u;
}

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= params.sizes.x) { return; }
  let dt = params.length.w;
  let h = params.inverseCell.w;
  let state = velocity[i];
  let inverseMass = state.w;
  let acceleration = forceTorque[2u * i].xyz * inverseMass + params.gravity.xyz;
  var v = state.xyz + h * acceleration;
  let predictedV = v + h * acceleration;
  let spin = angularVelocity[i];
  var w = spin.xyz;
  var predictedW = w;
  if (params.flags.w == 1u) {
    let angular = forceTorque[2u * i + 1u].xyz * spin.w;
    w = w + h * angular;
    predictedW = w + h * angular;
  }
  let own = position[2u * i];
  // Drift in quanta: the integer part moves into whole, the rest stays in fraction.
  let travel = dt * v / params.quantum.xyz;
  if (!(finite(travel.x) && finite(travel.y) && finite(travel.z) && finite(v.x) && finite(v.y) && finite(v.z))) {
    atomicMax(&status[0], 1u);
  }
  let delta = clamp(bitcast<vec3<f32>>(position[2u * i + 1u].xyz) + travel, vec3<f32>(-f32(FULL)), vec3<f32>(f32(FULL)));
  let carry = vec3<i32>(round(delta));
  var fraction = delta - vec3<f32>(carry);
  var whole = bitcast<vec3<i32>>(own.xyz) + carry;
  for (var a = 0u; a < 3u; a++) {
    if (periodic(a)) {
      if (whole[a] < 0) { whole[a] += FULL; } else if (whole[a] >= FULL) { whole[a] -= FULL; }
      continue;
    }
    let below = whole[a] < 0 || (whole[a] == 0 && fraction[a] < 0.0);
    let above = whole[a] > FULL || (whole[a] == FULL && fraction[a] > 0.0);
    if (!below && !above) { continue; }
    whole[a] = select(FULL, 0, below);
    fraction[a] = 0.0;
    if ((below && v[a] < 0.0) || (above && v[a] > 0.0)) { v[a] = 0.0; }
    atomicAdd(&status[1], 1u);
    atomicMin(&status[2], i);
  }
  position[2u * i] = vec4<u32>(bitcast<vec3<u32>>(whole), own.w);
  position[2u * i + 1u] = vec4<u32>(bitcast<vec3<u32>>(fraction), 0u);
  velocity[i] = vec4<f32>(v, inverseMass);
  angularVelocity[i] = vec4<f32>(w, spin.w);
  predicted[2u * i] = vec4<f32>(predictedV, inverseMass);
  predicted[2u * i + 1u] = vec4<f32>(predictedW, 0.0);
}
`;

/** kick: v(n+1) = v(n+½) + ½Δt·a(n+1), the same for ω. */
export const kickShader = /* wgsl */ `${prelude}${integratorBindings}
@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= params.sizes.x) { return; }
  let h = params.inverseCell.w;
  let state = velocity[i];
  let acceleration = forceTorque[2u * i].xyz * state.w + params.gravity.xyz;
  velocity[i] = vec4<f32>(state.xyz + h * acceleration, state.w);
  if (params.flags.w == 1u) {
    let spin = angularVelocity[i];
    angularVelocity[i] = vec4<f32>(spin.xyz + h * forceTorque[2u * i + 1u].xyz * spin.w, spin.w);
  }
}
`;
