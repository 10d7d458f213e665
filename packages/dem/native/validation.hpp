#pragma once
/// \file
/// Input validation. Each function returns the first problem found, or
/// nothing when the input is acceptable. `Simulation` calls these and throws
/// `DemError` with the result; bindings may call them directly to build
/// their own errors without exceptions.

#include <optional>

#include "errors.hpp"
#include "options.hpp"

namespace peclet::dem {

/// Box extent, finite gravity, contact parameters (model-specific required
/// fields, restitution in (0, 1], friction ≥ 0, ν in [0, 0.5)), timestep and
/// skin non-negative when given, workers ≥ 1.
std::optional<ValidationError> validateSimulationOptions(const SimulationOptions& options);

/// Array lengths (positions 3N, velocities 3N or absent), radii > 0 and
/// finite, density > 0 and finite, positions finite and inside the box,
/// velocities finite. `index` is the first offending element.
std::optional<ValidationError> validateSphereBatch(const SphereBatch& batch, const SimulationOptions& options);

/// Count ≥ 1, radius distribution parameters, density, region, gravity
/// pointing along −z, thresholds.
std::optional<ValidationError> validateDepositOptions(const DepositOptions& deposit, const SimulationOptions& options);

}  // namespace peclet::dem
