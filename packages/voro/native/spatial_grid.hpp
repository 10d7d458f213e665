#pragma once
/// @file spatial_grid.hpp
/// Bins points into a regular grid and lists bin offsets nearest first, so a cell meets its
/// closest neighbours early and can stop searching as soon as no farther bin can matter.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "box.hpp"

namespace peclet::voro {

/// Points sorted by bin, with their coordinates (and radii) copied alongside for locality.
class SpatialGrid {
 public:
  /// One bin offset of the search order, with the smallest distance any point of a bin at
  /// that offset can have from any point of the centre bin.
  struct Offset {
    int dx, dy, dz;
    double lowerBound;
  };

  /// Bins `count` wrapped points (inside the box) at about `pointsPerBin` per bin.
  void build(const double* wrapped, const double* radii, std::size_t count, const Box& box, double pointsPerBin);

  int bins(int axis) const { return bins_[axis]; }
  double binSize(int axis) const { return size_[axis]; }
  /// Bin of a wrapped coordinate on one axis.
  int binOf(double value, int axis) const;
  std::size_t binIndex(int bx, int by, int bz) const {
    return (std::size_t(bz) * std::size_t(bins_[1]) + std::size_t(by)) * std::size_t(bins_[0]) + std::size_t(bx);
  }
  /// Entries of bin b are [binStart(b), binStart(b + 1)).
  std::size_t binStart(std::size_t b) const { return start_[b]; }
  std::int32_t entryPoint(std::size_t e) const { return point_[e]; }
  /// The entry holding point i (inverse of entryPoint).
  std::size_t entryOf(std::int32_t i) const { return std::size_t(entry_[std::size_t(i)]); }
  const double* entryPosition(std::size_t e) const { return &position_[3 * e]; }
  double entryRadius(std::size_t e) const { return radius_.empty() ? 0.0 : radius_[e]; }

  /// Offsets within `shellReach()` bins per axis, sorted by lower bound (set by setShells()).
  const std::vector<Offset>& shells() const {
    static const std::vector<Offset> kNone;
    return shells_ ? *shells_ : kNone;
  }
  /// Largest |offset| per axis that shells() covers; farther bins are searched layer by layer.
  static constexpr int shellReach() { return kReach; }
  /// The search order for this grid's bin shape, from searchOrder(): it does not depend on the
  /// points, so one table can serve every grid of that shape.
  void setShells(std::shared_ptr<const std::vector<Offset>> shells) { shells_ = std::move(shells); }
  /// Every offset within shellReach() bins per axis (fewer on walled axes with few bins),
  /// nearest possible point first.
  static std::vector<Offset> searchOrder(const int bins[3], const double size[3], const bool periodic[3]);
  double maxRadius() const { return maxRadius_; }
  /// Bytes held (capacity).
  std::size_t memoryBytes() const {
    return start_.capacity() * sizeof(std::size_t) + point_.capacity() * 4 + position_.capacity() * 8 +
           radius_.capacity() * 8 + cursor_.capacity() * sizeof(std::size_t) + order_.capacity() * 4 +
           entry_.capacity() * 4;
  }

 private:
  int bins_[3] = {1, 1, 1};
  double size_[3] = {1, 1, 1};
  double min_[3] = {0, 0, 0};
  std::vector<std::size_t> start_;
  std::vector<std::int32_t> point_;
  std::vector<double> position_;
  std::vector<double> radius_;
  static constexpr int kReach = 6;
  std::shared_ptr<const std::vector<Offset>> shells_;
  std::vector<std::size_t> cursor_;
  std::vector<std::int32_t> order_;
  std::vector<std::int32_t> entry_;
  double maxRadius_ = 0;
};

}  // namespace peclet::voro
