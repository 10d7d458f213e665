#pragma once
/// @file box.hpp
/// The axis-aligned container of a tessellation.

namespace peclet::voro {

/// Axis-aligned box [min, max] (same length unit as the points), periodic or walled per axis.
struct Box {
  double min[3] = {0.0, 0.0, 0.0};
  double max[3] = {1.0, 1.0, 1.0};
  /// A periodic axis wraps: points may lie anywhere along it (they are wrapped into the box),
  /// and cells meet images of other cells across the boundary instead of a wall.
  bool periodic[3] = {false, false, false};
};

/// Neighbour ids used for the six box walls in neighbour lists (the voro++ convention).
enum Wall : int {
  kWallXMin = -1,
  kWallXMax = -2,
  kWallYMin = -3,
  kWallYMax = -4,
  kWallZMin = -5,
  kWallZMax = -6,
};

}  // namespace peclet::voro
