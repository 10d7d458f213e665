#include "coupling.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <peclet/kernel_error.hpp>

namespace peclet::coupling {

namespace {

constexpr double kPi = 3.14159265358979323846;

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
  // The correction that turns the lattice's −∇p into −ε∇p: +φ∇p on the
  // fluid, balanced exactly by the spheres' −V∇p through the same points.
  for (std::size_t c = 0; c < cells; c++) {
    for (int a = 0; a < 3; a++) out.fluidForce[3 * c + a] = solid[c] * pressureGradient[3 * c + a];
  }
  std::vector<double> cellDrag;  // Σ β per cell, for the report
  cellDrag.assign(cells, 0.0);
  for (std::size_t i = 0; i < spheres.count; i++) {
    const double r = spheres.radii[i];
    const double* v = spheres.velocities + 3 * i;
    const Footprint f = footprints != nullptr ? footprints[i] : footprint(grid, spheres, i);
    double eps = 0, u[3] = {0, 0, 0}, g[3] = {0, 0, 0};
    for (std::uint32_t k = 0; k < f.count; k++) {
      const std::size_t c = f.cell[k];
      const double w = f.weight[k];
      eps += w * epsilon[c];
      for (int a = 0; a < 3; a++) u[a] += w * velocity[3 * c + a], g[a] += w * pressureGradient[3 * c + a];
    }
    eps = std::max(eps, p.minVoidFraction);
    double slip[3], speed2 = 0;
    for (int a = 0; a < 3; a++) {
      slip[a] = u[a] / eps - v[a];
      speed2 += slip[a] * slip[a];
    }
    const double speed = std::sqrt(speed2), d = 2 * r;
    const double beta = dragCoefficient(p.drag, eps, d, speed, p.viscosity, p.density);
    const double volume = 4.0 / 3.0 * kPi * r * r * r;
    for (int a = 0; a < 3; a++) report.volumeFlux[a] += volume * v[a];
    report.maxReynolds = std::max(report.maxReynolds, eps * p.density * d * speed / p.viscosity);
    if (masses != nullptr && masses[i] > 0) report.maxDragRate = std::max(report.maxDragRate, beta / masses[i]);
    for (int a = 0; a < 3; a++) {
      const double drag = beta * slip[a];
      out.drag[3 * i + a] = drag;
      out.total[3 * i + a] = drag + volume * (p.drivePressureGradient[a] - g[a]) - volume * p.density * p.gravity[a];
    }
    // The drag's reaction, spread over the cells through the same points.
    for (std::uint32_t k = 0; k < f.count; k++) {
      double* force = out.fluidForce + 3 * f.cell[k];
      const double share = f.weight[k] / cellVolume;
      for (int a = 0; a < 3; a++) force[a] -= share * out.drag[3 * i + a];
      cellDrag[f.cell[k]] += beta * f.weight[k];
    }
  }
  for (std::size_t c = 0; c < cells; c++) {
    if (cellDrag[c] > 0)
      report.maxFluidDragRate = std::max(
          report.maxFluidDragRate, cellDrag[c] / (std::max(epsilon[c], p.minVoidFraction) * p.density * cellVolume));
  }
  return report;
}

}  // namespace peclet::coupling
