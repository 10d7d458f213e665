#pragma once
/// \file
/// Structured errors reported by validation and by the simulation.
///
/// Every invalid input is described by a `ValidationError`: what kind of
/// problem it is (the bindings map `Type` to a JavaScript `TypeError` and
/// `Range` to a `RangeError`), which argument is at fault, the first offending
/// element (for array arguments), and a message meant for a person.

#include <cstddef>
#include <stdexcept>
#include <string>

namespace peclet::dem {

/// The category of an invalid input.
enum class ErrorKind {
  /// Wrong shape: missing field, array of the wrong length, unknown enum.
  Type,
  /// Right shape, unacceptable value: non-positive radius, NaN, a timestep
  /// above the stability limit, spheres that cannot fit.
  Range,
};

/// A description of one invalid input.
struct ValidationError {
  ErrorKind kind = ErrorKind::Range;
  /// Name of the argument or option at fault, in the public API's words
  /// (e.g. `"radii"`, `"contact.restitution"`, `"timestep"`).
  std::string argument;
  /// First offending element of an array argument (sphere index, or index
  /// into the flat 3N array for positions/velocities); -1 when not an array.
  std::ptrdiff_t index = -1;
  /// A complete sentence stating what is wrong and, where useful, the limit.
  std::string message;
};

/// Exception thrown by `Simulation` when its input is invalid.
/// Allocation failure is not wrapped: it surfaces as `std::bad_alloc`.
class DemError : public std::runtime_error {
 public:
  explicit DemError(ValidationError error) : std::runtime_error(error.message), error_(std::move(error)) {}
  /// The structured description of the failure.
  const ValidationError& error() const noexcept { return error_; }

 private:
  ValidationError error_;
};

}  // namespace peclet::dem
