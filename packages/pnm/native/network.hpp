#pragma once
/// \file
/// A pore network in SI units: what extraction produces and what the
/// transport solvers read. Plain C++ (no Node-API).

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <peclet/thread_pool.hpp>
#include <utility>
#include <vector>

namespace peclet::pnm {

/// An allocator whose value-less construct leaves the element uninitialised:
/// an image-sized buffer is then first written (and its pages first touched)
/// by the parallel loop that fills it, not zeroed on one thread beforehand.
template <typename T>
struct UninitialisedAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = UninitialisedAllocator<U>;
  };
  UninitialisedAllocator() = default;
  template <typename U>
  UninitialisedAllocator(const UninitialisedAllocator<U>&) noexcept {}
  template <typename U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

/// An image-sized array of T, uninitialised when sized (see UninitialisedAllocator).
template <typename T>
using VoxelArray = std::vector<T, UninitialisedAllocator<T>>;

/// Runs a parallel loop over `count` chunks (see peclet::lendPool).
using ParallelFor = std::function<void(std::size_t count, const peclet::ParallelBody& body)>;

/// Faces of the image box: 0 x−, 1 x+, 2 y−, 3 y+, 4 z− (index 0 of each axis), 5 z+.
/// Axis a has faces 2a (its first plane) and 2a + 1 (its last).
constexpr int kInterior = -1;

/// Boundary pores take, for OpenPNM's conduit models, the geometry of snow2's
/// boundary regions: the face section of their region without its border,
/// extruded this many voxels out of the box (snow2's default boundary_width).
constexpr double kBoundaryWidth = 3;

/// A pore network. Coordinates are in metres with voxel (i, j, k) centred at
/// ((i + ½)h, (j + ½)h, (k + ½)h), so the image spans [0, n·h] on each axis.
/// Boundary pores (face ≥ 0) sit on a face of the box, have no volume, and
/// cap the interior pore whose region touches that face.
struct Network {
  std::array<std::size_t, 3> shape{};  ///< the image's shape (voxels)
  double voxelSize = 1;                ///< h (m)
  double porosity = 0;                 ///< pore voxels / all voxels

  // Pores (N).
  std::vector<double> coordinates;        ///< 3 per pore (m)
  std::vector<double> volume;             ///< m³
  std::vector<double> inscribedDiameter;  ///< m: 2 × largest distance to solid inside the region
  /// m: diameter of the sphere of the same volume; for a boundary pore, of its
  /// snow2 boundary region (see kBoundaryWidth), though its volume is 0
  std::vector<double> equivalentDiameter;
  std::vector<double> surfaceArea;  ///< m²: pore–solid interface
  std::vector<std::int32_t> label;  ///< the region (value in `regions`) the pore is, or caps
  std::vector<std::int8_t> face;    ///< kInterior, or the face of a boundary pore

  // Throats (M): a throat joins two pores whose regions touch (6-connected).
  std::vector<std::int32_t> conns;  ///< 2 per throat, conns[2t] < conns[2t + 1]
  /// m: 2 × the largest distance to solid on the interface: the voxels of the
  /// higher-labelled region that 6-touch the other (PoreSpy's definition); for a
  /// boundary throat, the face section off the region's border
  std::vector<double> throatInscribedDiameter;
  std::vector<double> throatArea;       ///< m²: the contact face
  std::vector<double> throatPerimeter;  ///< m: where the contact face meets solid
  std::vector<double> throatLength;     ///< m: centre to centre
  /// m: pore centre → the throat's peak (the interface voxel of the largest
  /// distance, first in C order) → pore centre, PoreSpy's total_length; a
  /// boundary throat's far end is its snow2 region's centre, kBoundaryWidth / 2
  /// voxels out of the face, its peak half a voxel out
  std::vector<double> throatTotalLength;
  /// m: centre to centre, a boundary throat's far end its snow2 region's
  /// centre (the size-factor models' direct spacing; `throatLength` for
  /// interior throats)
  std::vector<double> throatDirectLength;

  /// Region label per voxel (0 in solid), C order over `shape`.
  VoxelArray<std::int32_t> regions;

  std::size_t poreCount() const noexcept { return volume.size(); }
  std::size_t throatCount() const noexcept { return conns.size() / 2; }
  /// Extent of the box along `axis` (m).
  double extent(int axis) const noexcept { return double(shape[axis]) * voxelSize; }
  /// Bytes held.
  std::size_t bytes() const noexcept;
};

inline std::size_t Network::bytes() const noexcept {
  return (coordinates.capacity() + volume.capacity() + inscribedDiameter.capacity() + equivalentDiameter.capacity() +
          surfaceArea.capacity() + throatInscribedDiameter.capacity() + throatArea.capacity() +
          throatPerimeter.capacity() + throatLength.capacity() + throatTotalLength.capacity() +
          throatDirectLength.capacity()) *
             sizeof(double) +
         (label.capacity() + conns.capacity() + regions.capacity()) * sizeof(std::int32_t) + face.capacity();
}

}  // namespace peclet::pnm
