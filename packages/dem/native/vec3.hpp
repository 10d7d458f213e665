#pragma once
/// \file
/// The three-component vector used throughout the DEM kernel.

#include <array>

namespace peclet::dem {

/// A vector in 3-D space: {x, y, z}. Units depend on use (m, m/s, m/s², N).
using Vec3 = std::array<double, 3>;

}  // namespace peclet::dem
