#pragma once
/// @file validation.hpp
/// Checks a tessellation's inputs and reports the first problem as data (never throws,
/// never aborts), so a binding can turn it into a TypeError or RangeError.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "box.hpp"

namespace peclet::voro {

/// Which JavaScript error class a problem maps to.
enum class ErrorKind {
  kNone,   ///< no problem
  kType,   ///< wrong shape or not a finite number (TypeError)
  kRange,  ///< a valid number out of its allowed range (RangeError)
};

/// The first problem found in the inputs.
struct ValidationError {
  ErrorKind kind = ErrorKind::kNone;
  /// Name of the offending argument: "points", "radii" or "box".
  std::string argument;
  /// Index of the first offending element (a point or radius index, or an axis for "box");
  /// -1 when the problem is not tied to one element.
  std::int64_t index = -1;
  /// One sentence saying what is wrong, suitable as an error message.
  std::string message;

  /// True when there is a problem.
  explicit operator bool() const { return kind != ErrorKind::kNone; }
};

/// Largest and smallest box width accepted: cell volumes (widths cubed, divided among up to
/// 2^31 points) and face areas then stay inside the normal range of a double.
constexpr double kMaxBoxWidth = 1e90;
constexpr double kMinBoxWidth = 1e-90;
/// Largest ratio of the box's largest width to its smallest: positions are resolved to about
/// 1e-14 of the largest width, which must stay far below the smallest one.
constexpr double kMaxBoxAspect = 1e9;
/// Largest radius, relative to the box's largest width: squares of radii and their
/// differences (formed in a frame where that width is about 1) stay far from overflow.
constexpr double kMaxRadiusRatio = 1e75;
/// Largest number of points: neighbour ids are int32.
constexpr std::size_t kMaxPoints = 0x7fffffff;

/// Validates points (`coordinateCount` doubles, x y z interleaved), the box, and optional
/// radii (`radii == nullptr` means a plain Voronoi tessellation; otherwise `radiusCount`
/// must equal the number of points).
///
/// Reported, in this order of checking:
/// - kType  "box":    a non-finite bound;            kRange "box": max <= min on an axis,
///                    a width (max - min) that overflows or lies outside [kMinBoxWidth,
///                    kMaxBoxWidth], largest / smallest width above kMaxBoxAspect
/// - kType  "points": length not a multiple of 3;    kRange "points": no points
/// - kType  "points": NaN or infinite coordinate (index = point index)
/// - kRange "points": outside the box on a walled (non-periodic) axis
/// - kType  "radii":  length differs from the number of points, or a non-finite radius
/// - kRange "radii":  negative radius, or above kMaxRadiusRatio times the largest box width
/// - kRange "points": two points at exactly the same position (after wrapping periodic
///                    axes); index = the larger of the two point indices
///
/// May throw std::bad_alloc (it sorts an index array of the points).
///
/// @code
///   Box box;  // unit cube, walled
///   std::vector<double> xyz = {0.1, 0.2, 0.3, 0.1, 0.2, 0.3};
///   ValidationError e = validateInput(xyz.data(), xyz.size(), box, nullptr, 0);
///   // e.kind == ErrorKind::kRange, e.argument == "points", e.index == 1
/// @endcode
ValidationError validateInput(const double* points, std::size_t coordinateCount, const Box& box, const double* radii,
                              std::size_t radiusCount);

/// Same as validateInput, with caller-owned scratch reused across calls (no allocation once
/// it is large enough), and the wrapped positions written to `wrapped` (3N doubles).
ValidationError validateInput(const double* points, std::size_t coordinateCount, const Box& box, const double* radii,
                              std::size_t radiusCount, std::vector<double>& wrapped, std::vector<std::uint32_t>& order);

/// Every check of validateInput except the last one (coincident points), for callers that
/// find coincident points their own way (the tessellation looks within its grid bins in
/// parallel) and call validateInput for the exact report when they find some. Writes the
/// wrapped positions to `wrapped` (3N doubles).
ValidationError validateInputExceptCoincident(const double* points, std::size_t coordinateCount, const Box& box,
                                              const double* radii, std::size_t radiusCount,
                                              std::vector<double>& wrapped);

/// The first pair of exactly equal positions among `n` points (3n doubles at `positions`), by a
/// lexicographic sort of `order` (scratch); reported as validateInput does (the smallest
/// "second of a pair", so the answer does not depend on the sort), or no error.
ValidationError findCoincidentPoints(const double* positions, std::size_t n, std::vector<std::uint32_t>& order);

/// Wraps one coordinate into [lo, hi) of a periodic axis.
double wrapCoordinate(double value, double lo, double hi);

}  // namespace peclet::voro
