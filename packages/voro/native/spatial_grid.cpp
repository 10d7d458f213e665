#include "spatial_grid.hpp"

#include <algorithm>
#include <cmath>

namespace peclet::voro {

int SpatialGrid::binOf(double value, int axis) const {
  int b = static_cast<int>((value - min_[axis]) / size_[axis]);
  // Points on the upper wall belong to the last bin.
  return b < 0 ? 0 : (b >= bins_[axis] ? bins_[axis] - 1 : b);
}

void SpatialGrid::build(const double* wrapped, const double* radii, std::size_t count, const Box& box,
                        double pointsPerBin) {
  double length[3], volume = 1;
  for (int a = 0; a < 3; ++a) {
    length[a] = box.max[a] - box.min[a];
    volume *= length[a];
  }
  // Cubic-ish bins holding about pointsPerBin points on average.
  const double side = std::cbrt(volume * pointsPerBin / double(count));
  std::size_t total = 1;
  for (int a = 0; a < 3; ++a) {
    double nb = std::floor(length[a] / side + 0.5);
    nb = std::min(std::max(nb, 1.0), 1024.0);
    bins_[a] = static_cast<int>(nb);
    size_[a] = length[a] / nb;
    min_[a] = box.min[a];
    total *= std::size_t(bins_[a]);
  }

  // Counting sort of the points by bin.
  start_.assign(total + 1, 0);
  point_.resize(count);
  position_.resize(3 * count);
  if (radii)
    radius_.resize(count);
  else
    radius_.clear();
  // point_ first holds each point's bin, then (after the swap) the points in bin order.
  for (std::size_t i = 0; i < count; ++i) {
    const double* p = wrapped + 3 * i;
    const std::size_t b = binIndex(binOf(p[0], 0), binOf(p[1], 1), binOf(p[2], 2));
    point_[i] = static_cast<std::int32_t>(b);
    ++start_[b + 1];
  }
  for (std::size_t b = 0; b < total; ++b) start_[b + 1] += start_[b];
  // Fill from the back so that each bin keeps increasing point order (determinism).
  std::vector<std::int32_t>& binOfPoint = point_;
  cursor_.assign(start_.begin() + 1, start_.end());
  order_.resize(count);
  for (std::size_t i = count; i-- > 0;) {
    const std::size_t e = --cursor_[std::size_t(binOfPoint[i])];
    order_[e] = static_cast<std::int32_t>(i);
  }
  point_.swap(order_);
  entry_.resize(count);
  for (std::size_t e = 0; e < count; ++e) entry_[std::size_t(point_[e])] = static_cast<std::int32_t>(e);
  maxRadius_ = 0;
  for (std::size_t e = 0; e < count; ++e) {
    const std::size_t i = std::size_t(point_[e]);
    position_[3 * e] = wrapped[3 * i];
    position_[3 * e + 1] = wrapped[3 * i + 1];
    position_[3 * e + 2] = wrapped[3 * i + 2];
    if (radii) {
      radius_[e] = radii[i];
      maxRadius_ = std::max(maxRadius_, radii[i]);
    }
  }
}

std::vector<SpatialGrid::Offset> SpatialGrid::searchOrder(const int bins[3], const double size[3],
                                                          const bool periodic[3]) {
  std::vector<Offset> shells;
  int lim[3];
  for (int a = 0; a < 3; ++a) lim[a] = periodic[a] ? kReach : std::min(kReach, bins[a] - 1);
  shells.reserve(std::size_t(2 * lim[0] + 1) * (2 * lim[1] + 1) * (2 * lim[2] + 1));
  for (int dz = -lim[2]; dz <= lim[2]; ++dz)
    for (int dy = -lim[1]; dy <= lim[1]; ++dy)
      for (int dx = -lim[0]; dx <= lim[0]; ++dx) {
        const int d[3] = {dx, dy, dz};
        double lb = 0;
        for (int a = 0; a < 3; ++a) {
          const double gap = std::max(std::abs(d[a]) - 1, 0) * size[a];
          lb += gap * gap;
        }
        shells.push_back({dx, dy, dz, std::sqrt(lb)});
      }
  std::sort(shells.begin(), shells.end(), [](const Offset& a, const Offset& b) {
    if (a.lowerBound != b.lowerBound) return a.lowerBound < b.lowerBound;
    const int na = a.dx * a.dx + a.dy * a.dy + a.dz * a.dz;
    const int nb = b.dx * b.dx + b.dy * b.dy + b.dz * b.dz;
    if (na != nb) return na < nb;
    if (a.dz != b.dz) return a.dz < b.dz;
    if (a.dy != b.dy) return a.dy < b.dy;
    return a.dx < b.dx;
  });
  return shells;
}

}  // namespace peclet::voro
