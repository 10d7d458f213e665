#pragma once
/// \file
/// Network extraction from a binary image by the SNOW recipe (Gostick 2017,
/// Phys. Rev. E 96, 023307), done natively: exact Euclidean distance
/// transform of the pore space, Gaussian smoothing, peaks by a maximum filter
/// over a ball, removal of saddle/plateau peaks and of peaks nearer to each
/// other than to solid, marker-based watershed of the negated distance, then
/// one pore per region and one throat per pair of touching regions.

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "network.hpp"

namespace peclet::pnm {

struct ExtractOptions {
  std::array<std::size_t, 3> shape{};
  double voxelSize = 1;              ///< m
  double sigma = 0.4;                ///< Gaussian smoothing of the distance (voxels); 0: none
  int rMax = 4;                      ///< radius of the maximum filter's ball (voxels)
  std::array<bool, 6> boundaries{};  ///< boundary pores on these faces (see network.hpp)
  bool priorityFlood = false;        ///< watershed voxel by voxel in scikit-image's order (one thread)
  ParallelFor parallelFor;           ///< empty: serial
  unsigned workers = 1;              ///< per-worker scratch slots parallelFor may use
  const std::atomic<bool>* cancel = nullptr;
  std::atomic<int>* stage = nullptr;  ///< set to the stage running (0..4), for progress
};

/// Seconds per stage and what the peak filters did.
struct ExtractReport {
  double distanceTransform = 0, smoothing = 0, peaks = 0, watershed = 0, network = 0;
  std::size_t peaksFound = 0;      ///< peak clusters after the maximum filter
  std::size_t saddlesTrimmed = 0;  ///< removed as saddle points
  std::size_t nearbyTrimmed = 0;   ///< removed as nearer to another peak than to solid
};

/// Thrown when the cancel flag was seen.
struct Cancelled {};

/// Bytes extraction needs at its peak for `voxels` voxels (for allocation checks).
double extractBytes(double voxels) noexcept;

/// Extracts the network of `solid` (1 = solid, 0 = pore; consumed: freed
/// early to lower the peak). Throws PnmError (image with no pore or no solid,
/// option out of range), Cancelled, std::bad_alloc.
Network extract(std::vector<std::uint8_t>&& solid, const ExtractOptions& options, ExtractReport* report = nullptr);

/// Exact squared-free Euclidean distance transform: per voxel the distance
/// (voxels) from the centre of a pore voxel (0) to the nearest solid voxel (1)
/// centre; 0 in solid. `out` has one float per voxel. No solid: every value
/// is +infinity.
void distanceTransform(const std::uint8_t* solid, const std::array<std::size_t, 3>& shape, float* out,
                       const ParallelFor& parallelFor);

/// Separable Gaussian smoothing (standard deviation `sigma` voxels, kernel
/// radius ⌊4σ + ½⌋, mirrored at the image's faces), as scipy.ndimage's
/// gaussian_filter; in place.
void gaussianSmooth(float* data, const std::array<std::size_t, 3>& shape, double sigma, const ParallelFor& parallelFor);

}  // namespace peclet::pnm
