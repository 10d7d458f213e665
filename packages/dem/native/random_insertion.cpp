#include "random_insertion.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace peclet::dem {

double standardNormal(std::mt19937_64& engine) {
  const double u1 = 1.0 - uniform01(engine);  // (0, 1]: log stays finite
  const double u2 = uniform01(engine);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * 3.14159265358979323846 * u2);
}

std::vector<double> drawRadii(const RadiusDistribution& d, std::size_t count, std::mt19937_64& engine,
                              const std::atomic<bool>* cancel) {
  std::vector<double> radii(count);
  std::size_t drawn = 0;
  for (double& r : radii) {
    if ((++drawn & 4095) == 0 && cancel != nullptr && cancel->load(std::memory_order_relaxed)) return {};
    switch (d.kind) {
      case RadiusDistributionKind::Fixed:
        r = d.radius;
        break;
      case RadiusDistributionKind::Uniform:
        r = d.minRadius + (d.maxRadius - d.minRadius) * uniform01(engine);
        break;
      case RadiusDistributionKind::LogNormal:
        // Truncation by redrawing; validation guarantees the window holds
        // at least 0.1 % of the distribution.
        do {
          r = d.medianRadius * std::exp(d.logStandardDeviation * standardNormal(engine));
        } while (r < d.minRadius || r > d.maxRadius);
        break;
    }
  }
  return radii;
}

namespace {

// Uniform grid of cells with edge ≥ largest diameter, chaining spheres.
struct InsertionGrid {
  Vec3 origin{}, length{}, cellSize{};
  std::array<long, 3> cells{1, 1, 1};
  std::array<bool, 3> wrap{false, false, false};
  std::vector<long> head, next;
  std::vector<double> position, radius;

  long cellCoordinate(int a, double x) const {
    double t = std::floor((x - origin[a]) / cellSize[a]);
    if (wrap[a]) t -= double(cells[a]) * std::floor(t / double(cells[a]));
    // Clamped as a double first: a far-off or NaN coordinate never overflows the conversion.
    return !(t >= 0.0) ? 0L : t >= double(cells[a] - 1) ? cells[a] - 1 : long(t);
  }
  void insert(const double* x, double r) {
    const long id = long(radius.size());
    position.insert(position.end(), x, x + 3);
    radius.push_back(r);
    const long cell =
        (cellCoordinate(2, x[2]) * cells[1] + cellCoordinate(1, x[1])) * cells[0] + cellCoordinate(0, x[0]);
    next.push_back(head[cell]);
    head[cell] = id;
  }
  bool overlaps(const double* x, double r) const {
    long c[3];
    for (int a = 0; a < 3; ++a) c[a] = cellCoordinate(a, x[a]);
    for (long dz = -1; dz <= 1; ++dz)
      for (long dy = -1; dy <= 1; ++dy)
        for (long dx = -1; dx <= 1; ++dx) {
          long n[3] = {c[0] + dx, c[1] + dy, c[2] + dz};
          bool inside = true;
          for (int a = 0; a < 3; ++a) {
            if (n[a] >= 0 && n[a] < cells[a]) continue;
            if (!wrap[a]) {
              inside = false;
              break;
            }
            n[a] = (n[a] + cells[a]) % cells[a];
          }
          if (!inside) continue;
          for (long id = head[(n[2] * cells[1] + n[1]) * cells[0] + n[0]]; id >= 0; id = next[id]) {
            double d2 = 0.0;
            for (int a = 0; a < 3; ++a) {
              double d = x[a] - position[3 * id + a];
              if (wrap[a]) d -= length[a] * std::round(d / length[a]);
              d2 += d * d;
            }
            const double reach = r + radius[id];
            if (d2 < reach * reach) return true;
          }
        }
    return false;
  }
};

}  // namespace

std::optional<ValidationError> randomSequentialInsertion(const std::vector<double>& radii, const Box& box,
                                                         const std::array<bool, 3>& periodic, const Box& region,
                                                         const Obstacles& obstacles, std::size_t maxAttempts,
                                                         std::mt19937_64& engine, std::vector<double>& positions,
                                                         const std::atomic<bool>* cancel, bool* cancelled) {
  double maxRadius = 0.0;
  for (double r : radii) maxRadius = std::max(maxRadius, r);
  for (std::size_t i = 0; i < obstacles.count; ++i) maxRadius = std::max(maxRadius, obstacles.radii[i]);
  InsertionGrid grid;
  std::array<bool, 3> spans{};
  const double edge = 2.0 * maxRadius;
  // At most about 4 cells per sphere (never 2^30 empty ones for a huge
  // sparse region), counted in doubles so that no user number overflows.
  const double maxCells = std::min(std::max(64.0, 4.0 * double(radii.size() + obstacles.count)), 67108864.0);
  double cellsAlong[3];
  for (int a = 0; a < 3; ++a) {
    // A periodic axis wraps only when the region covers it entirely.
    spans[a] = periodic[a] && region.min[a] <= box.min[a] && region.max[a] >= box.max[a];
    grid.wrap[a] = spans[a];
    grid.origin[a] = spans[a] ? box.min[a] : region.min[a] - edge;
    grid.length[a] = spans[a] ? box.max[a] - box.min[a] : region.max[a] - region.min[a] + 2 * edge;
    cellsAlong[a] = std::max(1.0, std::floor(grid.length[a] / edge));
    if (!std::isfinite(cellsAlong[a])) cellsAlong[a] = maxCells;
  }
  double shrink = 1.0;
  while (std::max(1.0, std::floor(cellsAlong[0] / shrink)) * std::max(1.0, std::floor(cellsAlong[1] / shrink)) *
             std::max(1.0, std::floor(cellsAlong[2] / shrink)) >
         maxCells)
    shrink *= 1.25;
  for (int a = 0; a < 3; ++a) {
    grid.cells[a] = long(std::max(1.0, std::floor(cellsAlong[a] / shrink)));
    grid.cellSize[a] = grid.length[a] / double(grid.cells[a]);
  }
  grid.head.assign(std::size_t(grid.cells[0] * grid.cells[1] * grid.cells[2]), -1);
  grid.next.reserve(radii.size() + obstacles.count);
  for (std::size_t i = 0; i < obstacles.count; ++i) {
    const double* x = &obstacles.positions[3 * i];
    bool near = true;
    for (int a = 0; a < 3; ++a)
      if (!spans[a] &&
          (x[a] + obstacles.radii[i] < region.min[a] - edge || x[a] - obstacles.radii[i] > region.max[a] + edge))
        near = false;
    if (near) grid.insert(x, obstacles.radii[i]);
  }
  positions.assign(3 * radii.size(), 0.0);
  std::size_t trials = 0;
  for (std::size_t i = 0; i < radii.size(); ++i) {
    const double r = radii[i];
    double lo[3], hi[3];
    for (int a = 0; a < 3; ++a) {
      if (spans[a]) {
        lo[a] = box.min[a];
        hi[a] = box.max[a];
      } else {
        // Stay clear of the region faces and of the walls.
        lo[a] = std::max(region.min[a], box.min[a]) + r;
        hi[a] = std::min(region.max[a], box.max[a]) - r;
      }
    }
    bool placed = false;
    if (lo[0] <= hi[0] && lo[1] <= hi[1] && lo[2] <= hi[2])
      for (std::size_t attempt = 0; attempt < maxAttempts && !placed; ++attempt) {
        if ((++trials & 1023) == 0 && cancel != nullptr && cancel->load(std::memory_order_relaxed)) {
          if (cancelled != nullptr) *cancelled = true;
          return std::nullopt;
        }
        double* x = &positions[3 * i];
        for (int a = 0; a < 3; ++a) x[a] = lo[a] + (hi[a] - lo[a]) * uniform01(engine);
        if (!grid.overlaps(x, r)) {
          grid.insert(x, r);
          placed = true;
        }
      }
    if (!placed) {
      std::ostringstream message;
      message << "only " << i << " of " << radii.size()
              << " spheres could be placed without overlap in the insertion region z in [" << region.min[2] << ", "
              << region.max[2] << "] (sphere " << i << " of radius " << r << " failed " << maxAttempts
              << " random trials); enlarge the box or region, or insert fewer spheres "
                 "(random sequential insertion fills at most about 30% of a region)";
      return ValidationError{ErrorKind::Range, "count", std::ptrdiff_t(i), message.str()};
    }
  }
  return std::nullopt;
}

}  // namespace peclet::dem
