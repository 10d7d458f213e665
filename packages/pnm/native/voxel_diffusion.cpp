#include "voxel_diffusion.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "errors.hpp"

namespace peclet::pnm {

namespace {

constexpr std::int32_t kNone = -1;    // solid, or pore that does not join both planes
constexpr std::int32_t kInlet = -2;   // pore of the first plane: concentration 1
constexpr std::int32_t kOutlet = -3;  // pore of the last plane: concentration 0
constexpr std::size_t kGrain = 1 << 14;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A parallel loop over [0, n) in fixed chunks; `partial` holds one value per
// chunk, summed in chunk order, so a reduction is the same on any thread count.
template <typename Fn>
void chunks(const ParallelFor& parallelFor, std::size_t n, const Fn& fn) {
  if (n == 0) return;
  const std::size_t count = (n + kGrain - 1) / kGrain;
  auto body = [&](std::size_t cb, std::size_t ce, unsigned) {
    for (std::size_t c = cb; c < ce; c++) fn(c, c * kGrain, std::min(n, (c + 1) * kGrain));
  };
  if (parallelFor && count > 1) {
    parallelFor(count, body);
  } else {
    body(0, count, 0);
  }
}

template <typename Fn>
double reduce(const ParallelFor& parallelFor, std::size_t n, const Fn& fn) {
  std::vector<double> partial((n + kGrain - 1) / kGrain, 0.0);
  chunks(parallelFor, n, [&](std::size_t c, std::size_t b, std::size_t e) {
    double s = 0;
    for (std::size_t i = b; i < e; i++) s += fn(i);
    partial[c] = s;
  });
  double sum = 0;
  for (double s : partial) sum += s;
  return sum;
}

/// Marks (bit `bit` in `reach`) the pore voxels 6-connected to the pore of
/// plane `plane` along `axis`.
void flood(const std::uint8_t* solid, const std::array<std::size_t, 3>& shape, int axis, std::size_t plane,
           std::uint8_t bit, std::vector<std::uint8_t>& reach) {
  const std::size_t n1 = shape[1], n2 = shape[2];
  const std::size_t stride[3] = {n1 * n2, n2, 1};
  std::vector<std::size_t> stack;
  std::size_t c[3];
  for (c[0] = 0; c[0] < shape[0]; c[0]++) {
    if (axis == 0 && c[0] != plane) continue;
    for (c[1] = 0; c[1] < shape[1]; c[1]++) {
      if (axis == 1 && c[1] != plane) continue;
      for (c[2] = 0; c[2] < shape[2]; c[2]++) {
        if (axis == 2 && c[2] != plane) continue;
        const std::size_t v = c[0] * stride[0] + c[1] * stride[1] + c[2];
        if (solid[v] != 0 || (reach[v] & bit)) continue;
        reach[v] |= bit;
        stack.push_back(v);
      }
    }
  }
  while (!stack.empty()) {
    const std::size_t v = stack.back();
    stack.pop_back();
    const std::size_t at[3] = {v / stride[0], (v / stride[1]) % shape[1], v % shape[2]};
    for (int a = 0; a < 3; a++) {
      for (int s = -1; s <= 1; s += 2) {
        if ((s < 0 && at[a] == 0) || (s > 0 && at[a] + 1 >= shape[a])) continue;
        const std::size_t u = s < 0 ? v - stride[a] : v + stride[a];
        if (solid[u] != 0 || (reach[u] & bit)) continue;
        reach[u] |= bit;
        stack.push_back(u);
      }
    }
  }
}

}  // namespace

VoxelDiffusionResult voxelDiffusion(const std::uint8_t* solid, const VoxelDiffusionOptions& options) {
  const int axis = options.axis;
  if (axis < 0 || axis > 2) rangeError("axis", "must be 0 (x), 1 (y) or 2 (z)");
  const auto& shape = options.shape;
  const std::size_t voxels = shape[0] * shape[1] * shape[2];
  if (voxels == 0) rangeError("image.shape", "has no voxel");
  const std::size_t length = shape[axis];
  if (length < 2)
    rangeError("image.shape",
               "has " + std::to_string(length) + " voxel along the axis; a concentration drop needs at least 2 planes");
  if (!(options.tolerance > 0 && options.tolerance < 1))
    rangeError("tolerance", "must lie in (0, 1): it is the relative residual the solve stops at");
  std::size_t pore = 0;
  for (std::size_t v = 0; v < voxels; v++) {
    if (solid[v] > 1)
      rangeError("image.solid", "must hold only 0 (pore) and 1 (solid), found " + std::to_string(int(solid[v])));
    pore += solid[v] == 0;
  }

  VoxelDiffusionResult out;
  out.porosity = double(pore) / double(voxels);
  const std::size_t n1 = shape[1], n2 = shape[2];
  const std::size_t stride[3] = {n1 * n2, n2, 1};
  std::vector<std::uint8_t> reach(voxels, 0);
  flood(solid, shape, axis, 0, 1, reach);
  flood(solid, shape, axis, length - 1, 2, reach);

  // Unknowns in red–black order: every face neighbour of a red voxel (even
  // i + j + k) is black, so each half of a Gauss–Seidel sweep is parallel.
  constexpr std::int32_t kRed = -4, kBlack = -5;  // unknowns, before they are numbered
  std::vector<std::int32_t> index(voxels, kNone);
  std::size_t kept = 0, reds = 0, blacks = 0;
  auto coordinate = [&](std::size_t v, int a) { return (v / stride[a]) % shape[a]; };
  for (std::size_t v = 0; v < voxels; v++) {
    if (reach[v] != 3) continue;
    kept++;
    const std::size_t along = coordinate(v, axis);
    if (along == 0) {
      index[v] = kInlet;
    } else if (along == length - 1) {
      index[v] = kOutlet;
    } else if (((v / stride[0] + (v / stride[1]) % shape[1] + v % shape[2]) & 1u) == 0) {
      index[v] = kRed;
      reds++;
    } else {
      index[v] = kBlack;
      blacks++;
    }
  }
  std::vector<std::uint8_t>().swap(reach);
  if (kept == 0)
    rangeError("image.solid", std::string("has no path of pore voxels joining the first and last planes along ") +
                                  (axis == 0   ? "x"
                                   : axis == 1 ? "y"
                                               : "z"));
  out.effectivePorosity = double(kept) / double(voxels);
  const std::size_t unknowns = reds + blacks;
  if (unknowns >= std::size_t(std::numeric_limits<std::int32_t>::max()))
    rangeError("image.shape", "has more than 2^31 − 2 pore voxels to solve for");
  out.unknowns = unknowns;
  std::vector<std::uint64_t> voxelOf(unknowns);
  {
    std::int32_t red = 0, black = std::int32_t(reds);
    for (std::size_t v = 0; v < voxels; v++) {
      if (index[v] == kRed) {
        voxelOf[std::size_t(red)] = v;
        index[v] = red++;
      } else if (index[v] == kBlack) {
        voxelOf[std::size_t(black)] = v;
        index[v] = black++;
      }
    }
  }

  // Per unknown: its 6 face neighbours' indices (kNone: no conductance,
  // kInlet/kOutlet: a fixed value), its diagonal, and b (the inlet links).
  std::vector<std::int32_t> next(6 * unknowns);
  std::vector<double> diagonal(unknowns), b(unknowns);
  chunks(options.parallelFor, unknowns, [&](std::size_t, std::size_t begin, std::size_t end) {
    for (std::size_t u = begin; u < end; u++) {
      const std::size_t v = voxelOf[u];
      int links = 0, inlet = 0;
      for (int a = 0; a < 3; a++) {
        const std::size_t at = coordinate(v, a);
        for (int s = 0; s < 2; s++) {
          std::int32_t j = kNone;
          if (s == 0 ? at > 0 : at + 1 < shape[a]) j = index[s == 0 ? v - stride[a] : v + stride[a]];
          next[6 * u + 2 * a + s] = j;
          links += j != kNone;
          inlet += j == kInlet;
        }
      }
      diagonal[u] = links;
      b[u] = inlet;
    }
  });

  auto multiply = [&](const std::vector<double>& x, std::vector<double>& y) {
    chunks(options.parallelFor, unknowns, [&](std::size_t, std::size_t begin, std::size_t end) {
      for (std::size_t u = begin; u < end; u++) {
        double s = diagonal[u] * x[u];
        for (int k = 0; k < 6; k++) {
          const std::int32_t j = next[6 * u + k];
          if (j >= 0) s -= x[std::size_t(j)];
        }
        y[u] = s;
      }
    });
  };
  // z = M⁻¹ r, M = (D + L) D⁻¹ (D + U) in red–black order (the off-diagonal
  // entries are −1): y_red = r/d; y_black = (r + Σ y_red)/d; z_black = y_black;
  // z_red = y_red + Σ z_black / d.
  auto precondition = [&](const std::vector<double>& r, std::vector<double>& z) {
    chunks(options.parallelFor, reds, [&](std::size_t, std::size_t begin, std::size_t end) {
      for (std::size_t u = begin; u < end; u++) z[u] = r[u] / diagonal[u];
    });
    auto sweep = [&](std::size_t first, std::size_t count, bool black) {
      chunks(options.parallelFor, count, [&](std::size_t, std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; i++) {
          const std::size_t u = first + i;
          double s = 0;
          for (int k = 0; k < 6; k++) {
            const std::int32_t j = next[6 * u + k];
            if (j >= 0) s += z[std::size_t(j)];
          }
          z[u] = black ? (r[u] + s) / diagonal[u] : z[u] + s / diagonal[u];
        }
      });
    };
    sweep(reds, blacks, true);  // black from the red values
    sweep(0, reds, false);      // red, corrected by the black values
  };

  // Conjugate gradients from a guess linear along the axis.
  std::vector<double> x(unknowns), r(unknowns), z(unknowns), p(unknowns), q(unknowns);
  chunks(options.parallelFor, unknowns, [&](std::size_t, std::size_t begin, std::size_t end) {
    for (std::size_t u = begin; u < end; u++) x[u] = 1.0 - double(coordinate(voxelOf[u], axis)) / double(length - 1);
  });
  const double bNorm = std::sqrt(reduce(options.parallelFor, unknowns, [&](std::size_t u) { return b[u] * b[u]; }));
  const std::size_t maxIterations = options.maxIterations > 0
                                        ? options.maxIterations
                                        : 20 * (length + std::max({shape[0], shape[1], shape[2]})) + 10000;
  auto residual = [&] {
    multiply(x, q);
    chunks(options.parallelFor, unknowns, [&](std::size_t, std::size_t begin, std::size_t end) {
      for (std::size_t u = begin; u < end; u++) r[u] = b[u] - q[u];
    });
    return std::sqrt(reduce(options.parallelFor, unknowns, [&](std::size_t u) { return r[u] * r[u]; })) / bNorm;
  };
  if (unknowns > 0 && bNorm > 0) {
    // Restarted from the true residual while the recursive one drifted below the tolerance.
    for (int attempt = 0; attempt < 4; attempt++) {
      double relative = residual();
      out.residual = relative;
      if (relative <= options.tolerance || out.iterations >= maxIterations) break;
      precondition(r, z);
      p = z;
      double rz = reduce(options.parallelFor, unknowns, [&](std::size_t u) { return r[u] * z[u]; });
      const double threshold = options.tolerance * options.tolerance * bNorm * bNorm;
      while (out.iterations < maxIterations) {
        if (options.cancel != nullptr && options.cancel->load(std::memory_order_relaxed)) {
          out.cancelled = true;
          break;
        }
        multiply(p, q);
        const double pq = reduce(options.parallelFor, unknowns, [&](std::size_t u) { return p[u] * q[u]; });
        if (!(pq > 0) || !std::isfinite(pq)) break;
        const double alpha = rz / pq;
        chunks(options.parallelFor, unknowns, [&](std::size_t, std::size_t begin, std::size_t end) {
          for (std::size_t u = begin; u < end; u++) {
            x[u] += alpha * p[u];
            r[u] -= alpha * q[u];
          }
        });
        out.iterations++;
        if (reduce(options.parallelFor, unknowns, [&](std::size_t u) { return r[u] * r[u]; }) <= threshold) break;
        precondition(r, z);
        const double rzNext = reduce(options.parallelFor, unknowns, [&](std::size_t u) { return r[u] * z[u]; });
        const double beta = rzNext / rz;
        rz = rzNext;
        chunks(options.parallelFor, unknowns, [&](std::size_t, std::size_t begin, std::size_t end) {
          for (std::size_t u = begin; u < end; u++) p[u] = z[u] + beta * p[u];
        });
      }
      if (out.cancelled) break;
    }
    out.residual = residual();
  }
  out.converged = !out.cancelled && (unknowns == 0 || bNorm == 0 || out.residual <= options.tolerance);

  // Fluxes through the planes, and the concentration of every voxel.
  out.concentration.assign(voxels, kNaN);
  auto value = [&](std::int32_t j) { return j == kInlet ? 1.0 : j == kOutlet ? 0.0 : x[std::size_t(j)]; };
  for (std::size_t v = 0; v < voxels; v++) {
    const std::int32_t j = index[v];
    if (j == kNone) continue;
    out.concentration[v] = value(j);
    if (j != kInlet && j != kOutlet) continue;
    // The plane's links into the voxels off it (a neighbour in the same plane carries no flux).
    for (int s = 0; s < 2; s++) {
      const std::size_t at = coordinate(v, axis);
      if (s == 0 ? at == 0 : at + 1 >= length) continue;
      const std::int32_t k = index[s == 0 ? v - stride[axis] : v + stride[axis]];
      if (k == kNone || k == j) continue;
      if (j == kInlet) {
        out.inletRate += 1.0 - value(k);
      } else {
        out.outletRate += value(k);
      }
    }
  }
  const double area = double(voxels) / double(length);
  out.effectiveDiffusivity = out.inletRate * double(length - 1) / area;
  out.formationFactor =
      out.effectiveDiffusivity > 0 ? 1.0 / out.effectiveDiffusivity : std::numeric_limits<double>::infinity();
  out.tortuosity = out.effectivePorosity * out.formationFactor;
  return out;
}

}  // namespace peclet::pnm
