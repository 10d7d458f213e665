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

// The first cell index along an axis for coordinate s in cells (periodic:
// wrapped; otherwise clamped).
std::size_t axisIndex(double s, std::size_t n, bool periodic) {
  double f = std::floor(s);
  if (periodic) {
    f = std::fmod(f, double(n));
    if (f < 0) f += double(n);
    std::size_t i = std::size_t(f);
    return i >= n ? 0 : i;  // fmod may round up to n for a tiny negative
  }
  if (!(f >= 0)) return 0;  // NaN too (checkSpheres refuses it before)
  return f >= double(n - 1) ? n - 1 : std::size_t(f);
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

std::size_t Grid::cellOf(const double* x) const {
  std::size_t index[3];
  for (int a = 0; a < 3; a++) index[a] = axisIndex((x[a] - origin[a]) / cell, n[a], periodic[a]);
  return (index[0] * n[1] + index[1]) * n[2] + index[2];
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

void solidFraction(const Grid& grid, const Spheres& spheres, double* solid) {
  const std::size_t cells = grid.cells();
  std::fill(solid, solid + cells, 0.0);
  const auto& points = satellites();
  const double share = 4.0 / 3.0 * kPi / double(kSatellites) / grid.cellVolume();
  for (std::size_t i = 0; i < spheres.count; i++) {
    const double r = spheres.radii[i];
    const double* c = spheres.positions + 3 * i;
    const double volume = share * r * r * r;
    for (const auto& s : points) {
      const double x[3] = {c[0] + r * s[0], c[1] + r * s[1], c[2] + r * s[2]};
      solid[grid.cellOf(x)] += volume;
    }
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
                        const ExchangeParameters& p, const ExchangeOutput& out) {
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
  const auto& points = satellites();
  const double inverse = 1.0 / double(kSatellites);
  std::size_t at[kSatellites];
  for (std::size_t i = 0; i < spheres.count; i++) {
    const double r = spheres.radii[i];
    const double* x = spheres.positions + 3 * i;
    const double* v = spheres.velocities + 3 * i;
    double eps = 0, u[3] = {0, 0, 0}, g[3] = {0, 0, 0};
    for (std::size_t k = 0; k < kSatellites; k++) {
      const double y[3] = {x[0] + r * points[k][0], x[1] + r * points[k][1], x[2] + r * points[k][2]};
      const std::size_t c = grid.cellOf(y);
      at[k] = c;
      eps += epsilon[c];
      for (int a = 0; a < 3; a++) u[a] += velocity[3 * c + a], g[a] += pressureGradient[3 * c + a];
    }
    eps = std::max(eps * inverse, p.minVoidFraction);
    double slip[3], speed2 = 0;
    for (int a = 0; a < 3; a++) {
      slip[a] = u[a] * inverse / eps - v[a];
      speed2 += slip[a] * slip[a];
      g[a] *= inverse;
    }
    const double speed = std::sqrt(speed2), d = 2 * r;
    const double beta = dragCoefficient(p.drag, eps, d, speed, p.viscosity, p.density);
    const double volume = 4.0 / 3.0 * kPi * r * r * r;
    report.maxReynolds = std::max(report.maxReynolds, eps * p.density * d * speed / p.viscosity);
    if (masses != nullptr && masses[i] > 0) report.maxDragRate = std::max(report.maxDragRate, beta / masses[i]);
    for (int a = 0; a < 3; a++) {
      const double drag = beta * slip[a];
      out.drag[3 * i + a] = drag;
      out.total[3 * i + a] = drag + volume * (p.drivePressureGradient[a] - g[a]) - volume * p.density * p.gravity[a];
    }
    // The drag's reaction, spread over the cells through the same points.
    const double share = inverse / cellVolume;
    for (std::size_t k = 0; k < kSatellites; k++) {
      double* f = out.fluidForce + 3 * at[k];
      for (int a = 0; a < 3; a++) f[a] -= share * out.drag[3 * i + a];
      cellDrag[at[k]] += beta * inverse;
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
