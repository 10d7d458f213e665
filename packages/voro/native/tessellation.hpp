#pragma once
/// @file tessellation.hpp
/// 3D Voronoi and Laguerre (radical, power) tessellation of points in a box.
///
/// A cell is the set of positions x closer to its point p_i than to any other, in the power
/// distance |x - p_i|^2 - r_i^2 when radii are given (all radii zero gives the Voronoi
/// tessellation). Cells are clipped to the box on walled axes and meet periodic images of
/// other cells on periodic axes.
///
/// Example:
/// @code
///   using namespace peclet::voro;
///   Box box;                                    // unit cube
///   box.periodic[0] = box.periodic[1] = box.periodic[2] = true;
///   std::vector<double> xyz = ...;              // 3N coordinates
///   Tessellation t;
///   Outcome r = t.compute(xyz.data(), xyz.size(), box, nullptr, 0, Execution{});
///   if (r.status == Status::kInvalid) { /* r.error.kind, .argument, .index, .message */ }
///   double v0 = t.cellVolumes()[0];
///   for (auto k = t.neighborOffsets()[0]; k < t.neighborOffsets()[1]; ++k)
///     use(t.neighbors()[k], t.faceAreas()[k]);
///   // Points moved, same count: buffers are reused.
///   r = t.update(xyz.data(), Execution{});
/// @endcode

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "box.hpp"
#include "parallel.hpp"
#include "validation.hpp"

namespace peclet::voro {

/// How a computation ended.
enum class Status {
  kOk,         ///< results are valid
  kInvalid,    ///< inputs rejected, see Outcome::error; previous results are kept as they were
  kCancelled,  ///< Execution::cancel or shouldStop was raised; previous results are kept
};

/// Result of compute() / update().
struct Outcome {
  Status status = Status::kOk;
  ValidationError error;  ///< set when status == kInvalid
};

/// Counters describing how a computation went (for tests and diagnostics).
struct TessellationStats {
  /// Faces seen from one side only and therefore removed (their neighbour found the shared
  /// plane within rounding of touching it).
  std::size_t oneSidedFacesRemoved = 0;
  /// Largest area among those removed faces (area unit).
  double largestRemovedFaceArea = 0;
  /// Cuts where rounding prevented closing a face loop consistently.
  std::size_t topologyDefects = 0;
  /// Laguerre cells that came out empty (a point dominated by bigger neighbours).
  std::size_t emptyCells = 0;
};

/// The geometry of one cell, from Tessellation::cell().
struct CellGeometry {
  /// 3V absolute coordinates. On periodic axes they lie around the point as given (not
  /// wrapped), so a cell is never split by the box boundary.
  std::vector<double> vertices;
  /// F + 1 offsets into faceVertices; face f is faceVertices[faceOffsets[f] ..
  /// faceOffsets[f + 1]), a loop counter-clockwise seen from outside the cell.
  std::vector<std::int32_t> faceOffsets;
  std::vector<std::int32_t> faceVertices;
  /// F neighbour ids, equal (in order) to the cell's slice of Tessellation::neighbors().
  std::vector<std::int32_t> faceNeighbors;
};

/// Owns every result buffer and all scratch; compute() / update() reuse them, so repeated
/// tessellations of the same number of points do not allocate once warm.
///
/// Not safe for concurrent use of one instance; separate instances are independent.
class Tessellation {
 public:
  Tessellation();
  ~Tessellation();
  Tessellation(Tessellation&&) noexcept;
  Tessellation& operator=(Tessellation&&) noexcept;
  Tessellation(const Tessellation&) = delete;
  Tessellation& operator=(const Tessellation&) = delete;

  /// Validates and tessellates.
  /// @param points      3N coordinates, x y z per point; `coordinateCount` = 3N.
  /// @param box         container; points on periodic axes may lie anywhere (wrapped).
  /// @param radii       N radii for a Laguerre tessellation, or nullptr for Voronoi. Copied.
  /// @param radiusCount length of `radii` (ignored when radii is nullptr).
  /// @param execution   threads and cancellation lent by the caller.
  /// Results do not depend on the number of workers or on how parallelFor splits work.
  /// Geometry is computed relative to box.min, scaled by a power of two so that the largest
  /// width is about 1, and scaled back: results do not depend on where the box lies.
  /// Refuses (kInvalid) inputs past the limits of validation.hpp, and a cell whose neighbour
  /// search exceeds its work budget (a periodic width much smaller than the cells).
  /// Atomic: anything but kOk leaves the previous results exactly as they were. Throws only
  /// std::bad_alloc (peclet::AllocationRefused, argument "points", when the estimated memory of
  /// N points is more than the process can allocate), also leaving them as they were.
  Outcome compute(const double* points, std::size_t coordinateCount, const Box& box, const double* radii,
                  std::size_t radiusCount, const Execution& execution);

  /// Re-tessellates moved points: same count, box and radii as the last compute(). Reuses
  /// every buffer. `points` holds 3 * pointCount() coordinates. Atomic as compute(): the
  /// points are checked and laid out beside the committed ones, the cells built into scratch,
  /// and the results swapped in only once nothing can fail. After std::bad_alloc the results
  /// are intact but their buffers may have moved (reserve()).
  Outcome update(const double* points, const Execution& execution);

  /// Number of points of the last successful computation.
  std::size_t pointCount() const;
  /// N cell volumes (length^3). Zero for an empty Laguerre cell.
  const std::vector<double>& cellVolumes() const;
  /// 3N cell centroids, in the same frame as cell() vertices (around the point as given).
  /// An empty Laguerre cell reports its point's position.
  const std::vector<double>& cellCentroids() const;
  /// N + 1 offsets (int64, as face counts can exceed 2^31 for large N): the faces of cell i
  /// are [neighborOffsets()[i], neighborOffsets()[i + 1]).
  const std::vector<std::int64_t>& neighborOffsets() const;
  /// Per face, the neighbouring point index (int32), or a wall id (Wall: -1 x-min, -2 x-max,
  /// -3 y-min, -4 y-max, -5 z-min, -6 z-max). On periodic axes the id is the neighbour's own
  /// index whichever image is met; a cell that meets two images of one neighbour (or its
  /// own image, in a small box) has one face per image, so an id can repeat. Symmetric: j
  /// lists i as many times as i lists j.
  const std::vector<std::int32_t>& neighbors() const;
  /// Per face (aligned with neighbors()), its area (length^2). Exactly equal from both sides.
  const std::vector<double>& faceAreas() const;
  /// Per face, the periodic image of the neighbour met, packed as in convex_cell.hpp's
  /// packImage (use imageShift() to unpack); all zero shifts without periodic axes.
  const std::vector<std::int32_t>& neighborImages() const;
  /// Unpacks neighborImages()[k]: the neighbour met is at p_j + shift * box length.
  static void imageShift(std::int32_t packed, int shift[3]);

  /// Vertices and faces of cell i, recomputed on demand (about 10 microseconds). Returns
  /// false when i is out of range or there is no valid result. Throws only std::bad_alloc.
  bool cell(std::size_t i, CellGeometry& out) const;

  /// Counters of the last computation.
  const TessellationStats& stats() const;

  /// Bytes currently held by this object (results, per-worker scratch, grid), for an
  /// allocation ledger. Capacity is kept between calls, so this is the high-water mark.
  std::size_t memoryBytes() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace peclet::voro
