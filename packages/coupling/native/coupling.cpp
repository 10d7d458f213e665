#include "coupling.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <peclet/kernel_error.hpp>

namespace peclet::coupling {

namespace {

constexpr double kPi = 3.14159265358979323846;
// The continuum self-response of a Gaussian-regularized Stokeslet (spread and
// read with e^{−k²σ²}): u = F/(6 π^{3/2} μ σ).
constexpr double kGaussianSelfResponse = 0.029931187020861096;  // 1/(6 π^{3/2})

std::string text(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", x);
  return buffer;
}

}  // namespace

const std::array<std::array<double, 3>, kSatellites>& satellites() {
  static const std::array<std::array<double, 3>, kSatellites> points = [] {
    std::array<std::array<double, 3>, kSatellites> p{};
    // Three shells of equal volume, at the radius that halves each shell's
    // volume; 24 points per shell: the 8 sign patterns of (a, b, c) and of
    // its two cyclic permutations, a different (a, b, c) per shell so the
    // shells do not line up. No point lies on a coordinate plane, so a
    // sphere centred on a cell face, edge or corner splits 1/2, 1/4, 1/8.
    const double tuples[3][3] = {{0.25, 0.5, 0.83}, {0.62, 0.3, 0.72}, {0.45, 0.78, 0.4}};
    std::size_t k = 0;
    for (int shell = 0; shell < 3; shell++) {
      const double radius = std::cbrt((shell + 0.5) / 3.0);
      const double* t = tuples[shell];
      const double norm = std::sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
      for (int rotation = 0; rotation < 3; rotation++) {
        const double a = t[rotation % 3] / norm, b = t[(rotation + 1) % 3] / norm, c = t[(rotation + 2) % 3] / norm;
        for (int signs = 0; signs < 8; signs++) {
          p[k][0] = radius * ((signs & 1) ? -a : a);
          p[k][1] = radius * ((signs & 2) ? -b : b);
          p[k][2] = radius * ((signs & 4) ? -c : c);
          k++;
        }
      }
    }
    return p;
  }();
  return points;
}

double latticeResponse(int dx, int dy, int dz, int a, int b) {
  // The steady response of the lattice to one unit force in one cell, by
  // cubic symmetry eight numbers: measured with @peclet/flow's Lattice
  // (TRT, Λ = 3/16: the steady state does not depend on the viscosity) in
  // periodic boxes of 32³ and 48³ cells, each a unit force in one cell and
  // its opposite spread evenly, run until the velocity changes by less than
  // 1e-10 of itself in 200 steps; the images of a periodic box lower every
  // value by 2.8373/(6π L) (Hasimoto 1959), so the free-space value is
  // g(48) + 2 (g(48) − g(32)). scripts/lattice-response.mjs recomputes them;
  // a test checks them against boxes of 16³ and 24³.
  constexpr double kSame = 0.1308792;         // the cell itself
  constexpr double kFaceAlong = 0.0653888;    // a face neighbour along the force
  constexpr double kFaceAcross = 0.0385077;   // a face neighbour across it
  constexpr double kEdgeIn = 0.0457923;       // an edge neighbour in the force's plane
  constexpr double kEdgeAcross = 0.0306594;   // an edge neighbour across the force
  constexpr double kCorner = 0.0281031;       // a corner neighbour, along the force
  constexpr double kEdgeMixed = 0.0168695;    // an edge neighbour, the other component
  constexpr double kCornerMixed = 0.0041289;  // a corner neighbour, another component
  const int d[3] = {dx, dy, dz};
  const int nonzero = (dx != 0) + (dy != 0) + (dz != 0);
  if (a == b) {
    switch (nonzero) {
      case 0:
        return kSame;
      case 1:
        return d[a] != 0 ? kFaceAlong : kFaceAcross;
      case 2:
        return d[a] != 0 ? kEdgeIn : kEdgeAcross;
      default:
        return kCorner;
    }
  }
  if (d[a] == 0 || d[b] == 0) return 0;
  const double sign = d[a] * d[b] > 0 ? 1.0 : -1.0;
  return sign * (nonzero == 2 ? kEdgeMixed : kCornerMixed);
}

double oseenFactor(double a) {
  // h(a) = ∫₀^∞ q² e^{−q²} I(q, a) dq / (2√π/3), I = ∫₋₁¹ (1 − μ²)/(q² + a²μ²) dμ
  // = [(1 + b²)(2/b) atan(1/b) − 2]/a², b = q/a: the self-response of a
  // Gaussian-regularized force (e^{−k²σ²} for spreading and reading, a =
  // Uσ/ν) in a stream along it (Oseen: 1/(νk² − i k·U)), over the Stokes one.
  // Tabulated once on a logarithmic grid of a, linear in log a between.
  constexpr int kPoints = 97;
  constexpr double kLow = 1e-3, kHigh = 1e5;  // h = 1 below (to 1e-4); ~1.329/a above
  static const std::array<double, kPoints> table = [] {
    std::array<double, kPoints> t{};
    const double sqrtPi = std::sqrt(kPi);
    for (int j = 0; j < kPoints; j++) {
      const double a = kLow * std::pow(kHigh / kLow, double(j) / (kPoints - 1));
      // Simpson's rule on q ∈ [0, 7] (e^{−49} beyond), fine enough that
      // the peak of I near q ~ a is resolved for every a of the grid.
      constexpr int n = 4000;
      const double h = 7.0 / n;
      double sum = 0;
      for (int k = 1; k <= n; k++) {
        const double q = k * h;
        const double b = q / a;
        double inner;
        if (b > 30) {
          const double x = 1 / (b * b);
          inner = (4.0 / 3.0 - 4.0 / 15.0 * x + 4.0 / 35.0 * x * x) * x / (a * a);
        } else {
          inner = ((1 + b * b) * (2 / b) * std::atan(1 / b) - 2) / (a * a);
        }
        sum += (k == n ? 1 : (k % 2 == 1 ? 4 : 2)) * q * q * std::exp(-q * q) * inner;
      }
      t[j] = sum * h / 3 / (2 * sqrtPi / 3);
    }
    return t;
  }();
  if (!(a > kLow)) return 1.0;
  if (a >= kHigh) return table[kPoints - 1] * kHigh / a;
  const double x = std::log(a / kLow) / std::log(kHigh / kLow) * (kPoints - 1);
  const int j = std::min(int(x), kPoints - 2);
  const double t = x - j;
  return table[j] * (1 - t) + table[j + 1] * t;
}

namespace {

// Sum of `field` over the 3 × 3 × 3 block of cells around cell (i, j, k)
// (periodic axes wrapped, the others clamped, as the footprints are).
double blockSum(const Grid& grid, const double* field, const std::size_t at[3]) {
  std::size_t index[3][3];
  for (int a = 0; a < 3; a++) {
    const std::size_t n = grid.n[a], x = at[a];
    index[a][0] = x > 0 ? x - 1 : grid.periodic[a] ? n - 1 : 0;
    index[a][1] = x;
    index[a][2] = x + 1 < n ? x + 1 : grid.periodic[a] ? 0 : x;
  }
  double sum = 0;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      const double* row = field + (index[0][i] * grid.n[1] + index[1][j]) * grid.n[2];
      sum += row[index[2][0]] + row[index[2][1]] + row[index[2][2]];
    }
  return sum;
}

void unflatten(const Grid& grid, std::size_t cell, std::size_t at[3]) {
  at[2] = cell % grid.n[2];
  at[1] = (cell / grid.n[2]) % grid.n[1];
  at[0] = cell / (grid.n[1] * grid.n[2]);
}

}  // namespace

void selfShare(const Grid& grid, const Spheres& spheres, const double* solid, const Footprint* footprints,
               double* share) {
  // For each sphere, what it sees of the solid fraction beyond the mean of
  // the 3 × 3 × 3 cells around (its excess), over what its own volume alone
  // would make of that excess; summed over the spheres of each block of
  // cells and divided there, clamped to [0, 1]. A lone sphere gets 1; in a
  // lattice-like packing, whose neighbours' deficit cancels a sphere's own
  // excess, about 0; in a random suspension the structure factor of its
  // configuration at the scale of the cells. Work per sphere, not per cell
  // (a few spheres in a large fluid cost little).
  const std::size_t cells = grid.cells();
  const double cellVolume = grid.cellVolume();
  static thread_local std::vector<double> excess, alone;
  static thread_local std::vector<std::size_t> home;
  excess.assign(cells, 0.0);
  alone.assign(cells, 0.0);
  home.resize(spheres.count);
  for (std::size_t i = 0; i < spheres.count; i++) {
    const Footprint& f = footprints[i];
    const double r = spheres.radii[i];
    const double volume = 4.0 / 3.0 * kPi * r * r * r / cellVolume;
    double seen = 0, around = 0;
    std::uint32_t main = 0;
    for (std::uint32_t k = 0; k < f.count; k++) {
      std::size_t at[3];
      unflatten(grid, f.cell[k], at);
      seen += f.weight[k] * solid[f.cell[k]];
      around += f.weight[k] * blockSum(grid, solid, at) / 27;
      if (f.weight[k] > f.weight[main]) main = k;
    }
    home[i] = f.cell[main];
    excess[home[i]] += seen - around;
    alone[home[i]] += volume * (f.own - 1.0 / 27);
  }
  for (std::size_t i = 0; i < spheres.count; i++) {
    std::size_t at[3];
    unflatten(grid, home[i], at);
    const double e = blockSum(grid, excess.data(), at), o = blockSum(grid, alone.data(), at);
    share[i] = o > 0 ? std::clamp(e / o, 0.0, 1.0) : 0.0;
  }
}

void checkSpheres(const Grid& grid, const Spheres& spheres) {
  for (std::size_t i = 0; i < spheres.count; i++) {
    const double r = spheres.radii[i];
    if (!(r > 0 && std::isfinite(r)))
      kernelRangeError("radii", "sphere " + std::to_string(i) + " has radius " + text(r) + ", not a positive number",
                       std::int64_t(i));
    if (2 * r > grid.cell)
      kernelRangeError("cellSize",
                       "cells of " + text(grid.cell) + " m are smaller than sphere " + std::to_string(i) +
                           " (diameter " + text(2 * r) +
                           " m): unresolved coupling needs cells of at least a diameter (2 to 5 are usual)");
    for (int a = 0; a < 3; a++) {
      const double x = spheres.positions[3 * i + a];
      const double lo = grid.origin[a], hi = grid.origin[a] + grid.cell * double(grid.n[a]);
      if (!std::isfinite(x) || (!grid.periodic[a] && (x < lo || x > hi)))
        kernelRangeError("positions",
                         "sphere " + std::to_string(i) + " is at " + "xyz"[a] + " = " + text(x) +
                             ", outside the fluid grid [" + text(lo) + ", " + text(hi) + "] m",
                         std::int64_t(3 * i + a));
    }
    if (spheres.velocities != nullptr) {
      for (int a = 0; a < 3; a++) {
        const double v = spheres.velocities[3 * i + a];
        if (!std::isfinite(v))
          kernelRangeError("velocities", "sphere " + std::to_string(i) + " has velocity " + text(v),
                           std::int64_t(3 * i + a));
      }
    }
  }
}

Footprint footprint(const Grid& grid, const Spheres& spheres, std::size_t i) {
  // The points of a sphere no wider than a cell fall in the centre's cell or
  // its neighbours: count them in a 3 × 3 × 3 block around the centre's
  // cell (no point can reach both neighbours along an axis), then wrap or
  // clamp each occupied one.
  const auto& points = satellites();
  const double r = spheres.radii[i];
  const double* x = spheres.positions + 3 * i;
  double local[3];
  std::int64_t centre[3];
  for (int a = 0; a < 3; a++) {
    local[a] = (x[a] - grid.origin[a]) / grid.cell;
    centre[a] = std::int64_t(std::floor(local[a]));
  }
  std::uint8_t counts[27] = {};
  const double scale = r / grid.cell;
  // Position within the centre's cell, in [0, 1): a point leaves the cell
  // below 0 or at 1 and above, as floor() would say, without calling it.
  const double within[3] = {local[0] - double(centre[0]), local[1] - double(centre[1]), local[2] - double(centre[2])};
  // Axes along which some point may leave the cell (the points lie within
  // 0.95 of the radius): along the others every point stays, and a sphere
  // inside its cell along all three needs no look at its points.
  int crossing = 0, axis = -1;
  for (int a = 0; a < 3; a++) {
    if (within[a] - 0.95 * scale < 0.0 || within[a] + 0.95 * scale >= 1.0) crossing++, axis = a;
  }
  if (crossing == 0) {
    counts[13] = std::uint8_t(kSatellites);
  } else if (crossing == 1) {
    int below = 0, above = 0;
    for (const auto& s : points) {
      const double y = within[axis] + scale * s[axis];
      above += y >= 1.0;
      below += y < 0.0;
    }
    const int stride = axis == 0 ? 9 : axis == 1 ? 3 : 1;
    counts[13 - stride] = std::uint8_t(below);
    counts[13 + stride] = std::uint8_t(above);
    counts[13] = std::uint8_t(int(kSatellites) - below - above);
  } else {
    for (const auto& s : points) {
      int at = 0;
      for (int a = 0; a < 3; a++) {
        const double y = within[a] + scale * s[a];
        at = 3 * at + 1 + (y >= 1.0) - (y < 0.0);
      }
      counts[at]++;
    }
  }
  Footprint f;
  // The self-response, from the blocks' offsets (before wrapping or clamping
  // can merge two of them).
  if (crossing == 0) {
    f.own = 1;
    const double g = latticeResponse(0, 0, 0, 0, 0);
    f.response[0] = f.response[1] = f.response[2] = g;
  } else {
    int occupied[8], count = 0;
    for (int at = 0; at < 27; at++)
      if (counts[at] != 0) occupied[count++] = at;
    f.own = 0;
    for (int i = 0; i < count; i++) {
      const double wi = double(counts[occupied[i]]) / double(kSatellites);
      f.own += wi * wi;
      for (int j = 0; j < count; j++) {
        const double w = wi * double(counts[occupied[j]]) / double(kSatellites);
        const int dx = occupied[i] / 9 - occupied[j] / 9, dy = (occupied[i] / 3) % 3 - (occupied[j] / 3) % 3,
                  dz = occupied[i] % 3 - occupied[j] % 3;
        f.response[0] += w * latticeResponse(dx, dy, dz, 0, 0);
        f.response[1] += w * latticeResponse(dx, dy, dz, 1, 1);
        f.response[2] += w * latticeResponse(dx, dy, dz, 2, 2);
        f.response[3] += w * latticeResponse(dx, dy, dz, 0, 1);
        f.response[4] += w * latticeResponse(dx, dy, dz, 0, 2);
        f.response[5] += w * latticeResponse(dx, dy, dz, 1, 2);
      }
    }
  }
  for (int at = 0; at < 27; at++) {
    if (counts[at] == 0) continue;
    const int offset[3] = {at / 9 - 1, (at / 3) % 3 - 1, at % 3 - 1};
    std::size_t index[3];
    for (int a = 0; a < 3; a++) {
      const std::int64_t n = std::int64_t(grid.n[a]);
      std::int64_t c = centre[a] + offset[a];
      if (grid.periodic[a]) {
        c %= n;
        if (c < 0) c += n;
      } else {
        c = c < 0 ? 0 : c >= n ? n - 1 : c;
      }
      index[a] = std::size_t(c);
    }
    const std::size_t cell = (index[0] * grid.n[1] + index[1]) * grid.n[2] + index[2];
    // Clamping can send two blocks to one cell: merge them.
    std::uint32_t k = 0;
    while (k < f.count && f.cell[k] != cell) k++;
    if (k == f.count) {
      f.cell[k] = cell;
      f.weight[k] = 0;
      f.count++;
    }
    f.weight[k] += double(counts[at]) / double(kSatellites);
  }
  return f;
}

void solidFraction(const Grid& grid, const Spheres& spheres, double* solid, Footprint* footprints) {
  const std::size_t cells = grid.cells();
  std::fill(solid, solid + cells, 0.0);
  const double share = 4.0 / 3.0 * kPi / grid.cellVolume();
  for (std::size_t i = 0; i < spheres.count; i++) {
    const double r = spheres.radii[i];
    const double volume = share * r * r * r;
    const Footprint f = footprint(grid, spheres, i);
    for (std::uint32_t k = 0; k < f.count; k++) solid[f.cell[k]] += volume * f.weight[k];
    if (footprints != nullptr) footprints[i] = f;
  }
}

Drag parseDrag(const std::string& name) {
  if (name == "di-felice") return Drag::DiFelice;
  if (name == "beetstra") return Drag::Beetstra;
  if (name == "gidaspow") return Drag::Gidaspow;
  kernelTypeError("drag", "must be 'di-felice', 'beetstra' or 'gidaspow', got '" + name + "'");
}

double dragCoefficient(Drag drag, double epsilon, double diameter, double slip, double viscosity, double density) {
  const double phi = 1 - epsilon;
  const double reynolds = epsilon * density * diameter * slip / viscosity;
  switch (drag) {
    case Drag::DiFelice: {
      // F = ½ C_d ρ (π d²/4) ε^(2−χ) |u − v| (u − v), C_d = (0.63 + 4.8/√Re)²,
      // χ = 3.7 − 0.65 exp(−(1.5 − log₁₀ Re)²/2): C_d |u − v| written so that
      // it stays finite as the slip goes to 0.
      const double cdSlip =
          std::pow(0.63 * std::sqrt(slip) + 4.8 * std::sqrt(viscosity / (epsilon * density * diameter)), 2);
      const double chi =
          reynolds > 1e-300 ? 3.7 - 0.65 * std::exp(-0.5 * std::pow(1.5 - std::log10(reynolds), 2)) : 3.7;
      return 0.5 * cdSlip * density * kPi * diameter * diameter / 4 * std::pow(epsilon, 2 - chi);
    }
    case Drag::Beetstra: {
      // F = 3π μ d ε F(ε, Re) (u − v), F the normalized drag of Beetstra,
      // van der Hoef & Kuipers (2007), Re on the superficial slip.
      const double f0 = 10 * phi / (epsilon * epsilon) + epsilon * epsilon * (1 + 1.5 * std::sqrt(phi));
      double f = f0;
      if (reynolds > 0) {
        f += 0.413 * reynolds / (24 * epsilon * epsilon) *
             (1 / epsilon + 3 * epsilon * phi + 8.4 * std::pow(reynolds, -0.343)) /
             (1 + std::pow(10.0, 3 * phi) * std::pow(reynolds, -(1 + 4 * phi) / 2));
      }
      return 3 * kPi * viscosity * diameter * epsilon * f;
    }
    case Drag::Gidaspow: {
      // β V/(1 − ε): Ergun below ε = 0.8, Wen & Yu above.
      const double volume = kPi * diameter * diameter * diameter / 6;
      if (epsilon <= 0.8) {
        return (150 * phi * viscosity / (epsilon * diameter * diameter) + 1.75 * density * slip / diameter) * volume;
      }
      // C_d |u − v| = 24 μ/(ε ρ d) (1 + 0.15 Re^0.687) below Re = 1000, 0.44 |u − v| above.
      const double cdSlip =
          reynolds < 1000 ? 24 * viscosity / (epsilon * density * diameter) * (1 + 0.15 * std::pow(reynolds, 0.687))
                          : 0.44 * slip;
      return 0.75 * cdSlip * epsilon * density * std::pow(epsilon, -2.65) / diameter * volume;
    }
  }
  return 0;
}

void gradient(const Grid& grid, const double* field, double* out) {
  const std::size_t n0 = grid.n[0], n1 = grid.n[1], n2 = grid.n[2];
  const std::size_t stride[3] = {n1 * n2, n2, 1};
  for (std::size_t i = 0; i < n0; i++) {
    for (std::size_t j = 0; j < n1; j++) {
      for (std::size_t k = 0; k < n2; k++) {
        const std::size_t c = (i * n1 + j) * n2 + k;
        const std::size_t at[3] = {i, j, k};
        for (int a = 0; a < 3; a++) {
          const std::size_t n = grid.n[a], x = at[a];
          double g = 0;
          if (n > 1) {
            std::size_t lo = x, hi = x;
            double span = 0;
            if (grid.periodic[a]) {
              lo = x == 0 ? n - 1 : x - 1, hi = x + 1 == n ? 0 : x + 1, span = 2;
            } else {
              lo = x == 0 ? 0 : x - 1, hi = x + 1 == n ? x : x + 1, span = double(hi - lo);
            }
            g = (field[c - x * stride[a] + hi * stride[a]] - field[c - x * stride[a] + lo * stride[a]]) /
                (span * grid.cell);
          }
          out[3 * c + a] = g;
        }
      }
    }
  }
}

ExchangeReport exchange(const Grid& grid, const Spheres& spheres, const double* masses, const double* epsilon,
                        const double* solid, const double* velocity, const double* pressureGradient,
                        const ExchangeParameters& p, const ExchangeOutput& out, const Footprint* footprints) {
  ExchangeReport report;
  const std::size_t cells = grid.cells();
  const double cellVolume = grid.cellVolume();
  if (!(p.timestep > 0) || p.momentum == nullptr) kernelRangeError("timestep", "the exchange needs the fluid step");
  // What the fluid gets for the step, less the drive and the implicit part of
  // the drag: the correction that turns the lattice's −∇p into −ε∇p (+φ∇p,
  // balanced exactly by the spheres' −V∇p through the same points) and the
  // explicit part of the drag's reaction, Σ w β (v − c)/V_cell.
  for (std::size_t c = 0; c < cells; c++) {
    for (int a = 0; a < 3; a++) out.fluidForce[3 * c + a] = solid[c] * pressureGradient[3 * c + a];
  }
  static thread_local std::vector<double> cellDrag, heldDrag, implicit, next;
  cellDrag.assign(cells, 0.0);  // Σ w β per cell, for the report
  heldDrag.assign(cells, 0.0);  // the same over the spheres held in place
  implicit.assign(cells, 0.0);  // D = Σ w β/(ε̄ V_cell), kg/(m³ s)
  next.resize(3 * cells);       // the superficial velocity each cell ends the step with
  struct Sphere {
    double beta, eps, shift[3], gradient[3];
  };
  static thread_local std::vector<Sphere> state;
  state.resize(spheres.count);
  std::vector<Footprint> computed;
  if (footprints == nullptr) {
    computed.resize(spheres.count);
    for (std::size_t i = 0; i < spheres.count; i++) computed[i] = footprint(grid, spheres, i);
    footprints = computed.data();
  }
  std::vector<double> share;
  if (p.selfCorrection) {
    share.resize(spheres.count);
    selfShare(grid, spheres, solid, footprints, share.data());
  }
  for (std::size_t i = 0; i < spheres.count; i++) {
    const double r = spheres.radii[i];
    const double* v = spheres.velocities + 3 * i;
    const Footprint& f = footprints[i];
    // How far the sphere is held in place: 1 when fixed (mass 0); a free
    // sphere by the load its contacts carry against its drag (a sphere
    // resting in a bed), 0 when nothing but the fluid and gravity act on it.
    double held = 0;
    if (masses != nullptr && masses[i] == 0) {
      held = 1;
    } else if (p.contactForces != nullptr && p.previousDrag != nullptr) {
      const double* c = p.contactForces + 3 * i;
      const double* F = p.previousDrag + 3 * i;
      const double load = std::sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
      const double drag = std::sqrt(F[0] * F[0] + F[1] * F[1] + F[2] * F[2]);
      held = load >= drag ? (load > 0 ? 1.0 : 0.0) : load / drag;
    }
    double eps = 0, u[3] = {0, 0, 0}, g[3] = {0, 0, 0};
    for (std::uint32_t k = 0; k < f.count; k++) {
      const std::size_t c = f.cell[k];
      const double w = f.weight[k];
      eps += w * epsilon[c];
      for (int a = 0; a < 3; a++) u[a] += w * velocity[3 * c + a], g[a] += w * pressureGradient[3 * c + a];
    }
    const double volume = 4.0 / 3.0 * kPi * r * r * r;
    // The self-correction: what the sphere's own presence adds to what it
    // sees, on average over the configurations of the others (S(0) of the
    // others' solid fraction: all of it for a lone sphere, almost none in a
    // packing, whose neighbours' deficit cancels it), taken out.
    double structure = 0;
    if (p.selfCorrection) {
      structure = share[i];
      eps = std::min(1.0, eps + structure * volume / cellVolume * f.own);
    }
    eps = std::max(eps, p.minVoidFraction);
    double slip[3], speed2 = 0, shift[3] = {0, 0, 0};
    for (int a = 0; a < 3; a++) slip[a] = u[a] / eps - v[a];
    if (p.selfCorrection && p.previousDrag != nullptr) {
      // The velocity the last drag's reaction induced in the sphere's own
      // cells, added back: the lattice's steady Stokes response, lowered by
      // the fluid streaming past at the slip (oseenFactor), its gain on the
      // drag bounded so that the correction stays a contraction. The slip
      // that sets the Oseen factor is itself corrected: two passes.
      const double* F = p.previousDrag + 3 * i;
      const double* G = f.response;
      const double induced[3] = {G[0] * F[0] + G[3] * F[1] + G[4] * F[2], G[3] * F[0] + G[1] * F[1] + G[5] * F[2],
                                 G[4] * F[0] + G[5] * F[1] + G[2] * F[2]};
      const double largest = std::max({G[0], G[1], G[2]}) + std::fabs(G[3]) + std::fabs(G[4]) + std::fabs(G[5]);
      const double seen[3] = {slip[0], slip[1], slip[2]};
      for (int pass = 0; pass < 2; pass++) {
        double speed0 = 0, along = 0;
        for (int a = 0; a < 3; a++) speed0 += slip[a] * slip[a];
        speed0 = std::sqrt(speed0);
        if (speed0 > 0) {
          const double s[3] = {slip[0] / speed0, slip[1] / speed0, slip[2] / speed0};
          along = G[0] * s[0] * s[0] + G[1] * s[1] * s[1] + G[2] * s[2] * s[2] +
                  2 * (G[3] * s[0] * s[1] + G[4] * s[0] * s[2] + G[5] * s[1] * s[2]);
        }
        // The width of the Gaussian whose continuum self-response is the
        // footprint's, and the Oseen number of the slip over it.
        const double width = along > 0 ? kGaussianSelfResponse * grid.cell / along : grid.cell;
        const double factor = oseenFactor(p.density * speed0 * width / p.viscosity);
        const double beta0 = dragCoefficient(p.drag, eps, 2 * r, speed0, p.viscosity, p.density);
        // Screened by the drag of the held spheres in the same cells (a held
        // sphere's drag answers the induced velocity and takes up the force
        // that made it; a free sphere's returns to what moves it, as in a
        // settling suspension): the drag coefficients the last exchange left
        // in those cells, less this sphere's own.
        double others = 0;
        if (p.previousHeldDrag != nullptr) {
          for (std::uint32_t k = 0; k < f.count; k++)
            others += f.weight[k] * (p.previousHeldDrag[f.cell[k]] - held * beta0 * f.weight[k]);
          others = std::max(others, 0.0);
        }
        const double response = factor / (p.viscosity * grid.cell * eps);
        double scale = structure * response / (1 + response * along * others);
        if (beta0 * scale * largest > p.maxSelfGain) scale = p.maxSelfGain / (beta0 * largest);
        for (int a = 0; a < 3; a++) shift[a] = scale * induced[a], slip[a] = seen[a] + shift[a];
      }
    }
    for (int a = 0; a < 3; a++) speed2 += slip[a] * slip[a];
    const double speed = std::sqrt(speed2), d = 2 * r;
    const double beta = dragCoefficient(p.drag, eps, d, speed, p.viscosity, p.density);
    for (int a = 0; a < 3; a++) report.volumeFlux[a] += volume * v[a];
    report.maxReynolds = std::max(report.maxReynolds, eps * p.density * d * speed / p.viscosity);
    if (masses != nullptr && masses[i] > 0) report.maxDragRate = std::max(report.maxDragRate, beta / masses[i]);
    Sphere& sphere = state[i];
    sphere.beta = beta, sphere.eps = eps;
    for (int a = 0; a < 3; a++) sphere.shift[a] = shift[a], sphere.gradient[a] = g[a];
    // The drag's reaction on its cells, through the same points: its
    // explicit part now, its implicit part D once the cells are solved. The
    // implicit part takes each cell's own velocity, where the sphere sees
    // its cells' average: the difference, from the velocities now, is
    // explicit (it sums to zero over the sphere's cells), so that as the
    // fluid settles each cell gets w × the sphere's drag, as it would from
    // an explicit exchange.
    for (std::uint32_t k = 0; k < f.count; k++) {
      const std::size_t c = f.cell[k];
      double* force = out.fluidForce + 3 * c;
      const double wb = f.weight[k] * beta;
      for (int a = 0; a < 3; a++) force[a] += wb * (v[a] - shift[a] + (velocity[3 * c + a] - u[a]) / eps) / cellVolume;
      implicit[c] += wb / (eps * cellVolume);
      cellDrag[c] += wb;
      heldDrag[c] += held * wb;
    }
  }
  // The velocity of each cell in this step, as the lattice takes it (its
  // momentum m and half the step's force, Guo's forcing): u = m + Δt F/2ρ
  // with F = S + εG − D u, so u = (m + Δt(S + εG)/2ρ)/(1 + Δt D/2ρ). The
  // drive holding the flux makes the mean momentum after the step,
  // m + Δt F/ρ, the fluid's share of the flux.
  const double dt = p.timestep / p.density, half = 0.5 * dt;
  for (int a = 0; a < 3; a++) report.drive[a] = p.drivePressureGradient[a];
  if (p.holdFlux) {
    const double boxVolume = cellVolume * double(cells);
    double free[3] = {0, 0, 0}, gain = 0;
    for (std::size_t c = 0; c < cells; c++) {
      const double keep = 1 / (1 + half * implicit[c]), lose = 1 - half * implicit[c];
      gain += epsilon[c] * keep;
      for (int a = 0; a < 3; a++) free[a] += (p.momentum[3 * c + a] * lose + dt * out.fluidForce[3 * c + a]) * keep;
    }
    for (int a = 0; a < 3; a++) {
      const double want = p.flux[a] - report.volumeFlux[a] / boxVolume;
      report.drive[a] = (want * double(cells) - free[a]) / (dt * gain);
    }
  }
  for (std::size_t c = 0; c < cells; c++) {
    const double keep = 1 / (1 + half * implicit[c]);
    for (int a = 0; a < 3; a++) {
      double& force = out.fluidForce[3 * c + a];
      const double m = p.momentum[3 * c + a];
      const double given = force + epsilon[c] * report.drive[a];
      const double u = (m + half * given) * keep;
      next[3 * c + a] = u;
      force = given - implicit[c] * u;
    }
  }
  for (std::size_t i = 0; i < spheres.count; i++) {
    const double r = spheres.radii[i];
    const double* v = spheres.velocities + 3 * i;
    const Footprint& f = footprints[i];
    const Sphere& sphere = state[i];
    double u[3] = {0, 0, 0};
    for (std::uint32_t k = 0; k < f.count; k++)
      for (int a = 0; a < 3; a++) u[a] += f.weight[k] * next[3 * f.cell[k] + a];
    const double volume = 4.0 / 3.0 * kPi * r * r * r;
    for (int a = 0; a < 3; a++) {
      const double drag = sphere.beta * (u[a] / sphere.eps - v[a] + sphere.shift[a]);
      out.drag[3 * i + a] = drag;
      out.total[3 * i + a] = drag + volume * (report.drive[a] - sphere.gradient[a]) - volume * p.density * p.gravity[a];
    }
  }
  if (out.heldDrag != nullptr) std::copy(heldDrag.begin(), heldDrag.end(), out.heldDrag);
  for (std::size_t c = 0; c < cells; c++) {
    if (cellDrag[c] > 0)
      report.maxFluidDragRate = std::max(
          report.maxFluidDragRate, cellDrag[c] / (std::max(epsilon[c], p.minVoidFraction) * p.density * cellVolume));
  }
  return report;
}

}  // namespace peclet::coupling
