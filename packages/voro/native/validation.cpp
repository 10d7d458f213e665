#include "validation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace peclet::voro {
namespace {

ValidationError makeError(ErrorKind kind, const char* argument, std::int64_t index, std::string message) {
  ValidationError e;
  e.kind = kind;
  e.argument = argument;
  e.index = index;
  e.message = std::move(message);
  return e;
}

const char* axisName(int axis) { return axis == 0 ? "x" : axis == 1 ? "y" : "z"; }

std::string shortNumber(double v) {
  char out[32];
  std::snprintf(out, sizeof out, "%.3g", v);
  return out;
}

}  // namespace

double wrapCoordinate(double value, double lo, double hi) {
  if (value >= lo && value < hi) return value;
  const double length = hi - lo;
  double w = value - length * std::floor((value - lo) / length);
  // Rounding can land exactly on hi (or a hair outside); the box is half-open.
  if (w >= hi) w -= length;
  if (w < lo) w = lo;
  return w;
}

ValidationError validateInput(const double* points, std::size_t coordinateCount, const Box& box, const double* radii,
                              std::size_t radiusCount) {
  std::vector<double> wrapped;
  std::vector<std::uint32_t> order;
  return validateInput(points, coordinateCount, box, radii, radiusCount, wrapped, order);
}

ValidationError validateInputExceptCoincident(const double* points, std::size_t coordinateCount, const Box& box,
                                              const double* radii, std::size_t radiusCount,
                                              std::vector<double>& wrapped) {
  for (int a = 0; a < 3; ++a) {
    if (!std::isfinite(box.min[a]) || !std::isfinite(box.max[a]))
      return makeError(ErrorKind::kType, "box", a,
                       std::string("box bounds on axis ") + axisName(a) + " must be finite");
    if (!(box.max[a] > box.min[a]))
      return makeError(ErrorKind::kRange, "box", a,
                       std::string("box extent on axis ") + axisName(a) + " must be positive");
    const double width = box.max[a] - box.min[a];
    if (!std::isfinite(width))
      return makeError(ErrorKind::kRange, "box", a,
                       std::string("box width on axis ") + axisName(a) + " (max - min) overflows a double");
    if (width > kMaxBoxWidth || width < kMinBoxWidth)
      return makeError(ErrorKind::kRange, "box", a,
                       std::string("box width on axis ") + axisName(a) + " is " + shortNumber(width) +
                           ", outside [1e-90, 1e90]: volumes (widths cubed) would leave the range of a double");
  }
  double largest = 0, smallest = HUGE_VAL;
  int thinnest = 0;
  for (int a = 0; a < 3; ++a) {
    const double width = box.max[a] - box.min[a];
    largest = std::max(largest, width);
    if (width < smallest) {
      smallest = width;
      thinnest = a;
    }
  }
  if (largest > kMaxBoxAspect * smallest)
    return makeError(ErrorKind::kRange, "box", thinnest,
                     std::string("box width on axis ") + axisName(thinnest) + " is " + shortNumber(smallest) +
                         ", less than 1e-9 of the largest width (" + shortNumber(largest) +
                         "): positions are only resolved to about 1e-14 of the largest width");
  if (coordinateCount % 3 != 0)
    return makeError(
        ErrorKind::kType, "points", -1,
        "points length " + std::to_string(coordinateCount) + " is not a multiple of 3 (x, y, z per point)");
  const std::size_t n = coordinateCount / 3;
  if (n == 0) return makeError(ErrorKind::kRange, "points", -1, "points must not be empty");
  if (n > kMaxPoints) return makeError(ErrorKind::kRange, "points", -1, "more than 2^31-1 points");

  wrapped.resize(coordinateCount);
  for (std::size_t i = 0; i < n; ++i) {
    for (int a = 0; a < 3; ++a) {
      const double v = points[3 * i + a];
      if (!std::isfinite(v))
        return makeError(ErrorKind::kType, "points", static_cast<std::int64_t>(i),
                         "point " + std::to_string(i) + " has a non-finite " + axisName(a) + " coordinate");
      if (box.periodic[a]) {
        wrapped[3 * i + a] = wrapCoordinate(v, box.min[a], box.max[a]);
      } else {
        if (v < box.min[a] || v > box.max[a])
          return makeError(ErrorKind::kRange, "points", static_cast<std::int64_t>(i),
                           "point " + std::to_string(i) + " lies outside the box on the " + axisName(a) + " axis");
        wrapped[3 * i + a] = v;
      }
    }
  }
  if (radii != nullptr) {
    if (radiusCount != n)
      return makeError(
          ErrorKind::kType, "radii", -1,
          "radii length " + std::to_string(radiusCount) + " differs from the " + std::to_string(n) + " points");
    for (std::size_t i = 0; i < n; ++i) {
      if (!std::isfinite(radii[i]))
        return makeError(ErrorKind::kType, "radii", static_cast<std::int64_t>(i),
                         "radius " + std::to_string(i) + " is not finite");
      if (radii[i] < 0)
        return makeError(ErrorKind::kRange, "radii", static_cast<std::int64_t>(i),
                         "radius " + std::to_string(i) + " is negative");
      if (radii[i] > kMaxRadiusRatio * largest)
        return makeError(ErrorKind::kRange, "radii", static_cast<std::int64_t>(i),
                         "radius " + std::to_string(i) + " is " + shortNumber(radii[i]) +
                             ", more than 1e75 times the box's largest width: squares of radii would overflow");
    }
  }

  return ValidationError{};
}

ValidationError validateInput(const double* points, std::size_t coordinateCount, const Box& box, const double* radii,
                              std::size_t radiusCount, std::vector<double>& wrapped,
                              std::vector<std::uint32_t>& order) {
  ValidationError error = validateInputExceptCoincident(points, coordinateCount, box, radii, radiusCount, wrapped);
  if (error) return error;
  return findCoincidentPoints(wrapped.data(), coordinateCount / 3, order);
}

ValidationError findCoincidentPoints(const double* w, std::size_t n, std::vector<std::uint32_t>& order) {
  // Exactly equal positions leave the bisector undefined; a lexicographic sort puts them side
  // by side. Ties break on index so the reported index does not depend on the sort.
  order.resize(n);
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [w](std::uint32_t p, std::uint32_t q) {
    const double* a = w + 3 * std::size_t(p);
    const double* b = w + 3 * std::size_t(q);
    if (a[0] != b[0]) return a[0] < b[0];
    if (a[1] != b[1]) return a[1] < b[1];
    if (a[2] != b[2]) return a[2] < b[2];
    return p < q;
  });
  std::int64_t worst = -1;
  std::size_t other = 0;
  for (std::size_t k = 1; k < n; ++k) {
    const double* a = w + 3 * std::size_t(order[k - 1]);
    const double* b = w + 3 * std::size_t(order[k]);
    if (a[0] == b[0] && a[1] == b[1] && a[2] == b[2]) {
      // Report the smallest "second of a pair" so the answer is independent of sort details.
      if (worst < 0 || order[k] < worst) {
        worst = order[k];
        other = order[k - 1];
      }
    }
  }
  if (worst >= 0)
    return makeError(ErrorKind::kRange, "points", worst,
                     "point " + std::to_string(worst) + " coincides with point " + std::to_string(other));
  return ValidationError{};
}

}  // namespace peclet::voro
