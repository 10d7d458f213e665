#include "validation.hpp"

#include <cmath>
#include <sstream>

namespace peclet::dem {

namespace {

// Farthest a centre may lie from the box on a periodic axis, in box lengths.
constexpr double kMaxWrappedLengths = 1e6;

ValidationError typeError(std::string argument, std::string message) {
  return {ErrorKind::Type, std::move(argument), -1, std::move(message)};
}

ValidationError rangeError(std::string argument, std::string message, std::ptrdiff_t index = -1) {
  return {ErrorKind::Range, std::move(argument), index, std::move(message)};
}

std::string str(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

bool positiveFinite(double value) { return std::isfinite(value) && value > 0.0; }
bool unsetOrZero(double value) { return std::isnan(value) || value == 0.0; }

}  // namespace

std::optional<ValidationError> validateSimulationOptions(const SimulationOptions& o) {
  static const char* axisName[3] = {"x", "y", "z"};
  for (int a = 0; a < 3; ++a) {
    if (!std::isfinite(o.box.min[a]) || !std::isfinite(o.box.max[a]))
      return rangeError("box", std::string("box bounds must be finite numbers (axis ") + axisName[a] + ")", a);
    if (!(o.box.max[a] > o.box.min[a]))
      return rangeError("box",
                        std::string("box.max must exceed box.min on axis ") + axisName[a] + " (got " +
                            str(o.box.min[a]) + " .. " + str(o.box.max[a]) + ")",
                        a);
    if (!std::isfinite(o.box.max[a] - o.box.min[a]))
      return rangeError("box",
                        std::string("box is too wide on axis ") + axisName[a] + ": max - min = " + str(o.box.min[a]) +
                            " .. " + str(o.box.max[a]) + " overflows; rescale the units",
                        a);
    if (!std::isfinite(o.gravity[a])) return rangeError("gravity", "gravity components must be finite", a);
  }
  const ContactOptions& c = o.contact;
  if (c.model != ContactModelKind::HertzMindlin && c.model != ContactModelKind::Linear)
    return typeError("contact.model", "contact.model must be 'hertz-mindlin' or 'linear'");
  if (c.model == ContactModelKind::HertzMindlin) {
    if (std::isnan(c.youngsModulus))
      return typeError("contact.youngsModulus", "contact.youngsModulus is required by the Hertz-Mindlin model");
    if (!positiveFinite(c.youngsModulus))
      return rangeError("contact.youngsModulus",
                        "contact.youngsModulus must be a positive finite number (Pa), got " + str(c.youngsModulus));
    if (!(c.poissonRatio >= 0.0 && c.poissonRatio < 0.5))
      return rangeError("contact.poissonRatio",
                        "contact.poissonRatio must lie in [0, 0.5), got " + str(c.poissonRatio));
  } else {
    if (std::isnan(c.stiffness))
      return typeError("contact.stiffness", "contact.stiffness is required by the linear model");
    if (!positiveFinite(c.stiffness))
      return rangeError("contact.stiffness",
                        "contact.stiffness must be a positive finite number (N/m), got " + str(c.stiffness));
    if (!(c.tangentialStiffnessRatio > 0.0 && std::isfinite(c.tangentialStiffnessRatio)))
      return rangeError("contact.tangentialStiffnessRatio",
                        "contact.tangentialStiffnessRatio must be positive, got " + str(c.tangentialStiffnessRatio));
  }
  if (!(c.restitution > 0.0 && c.restitution <= 1.0))
    return rangeError("contact.restitution", "contact.restitution must lie in (0, 1], got " + str(c.restitution));
  if (!(c.friction >= 0.0 && std::isfinite(c.friction)))
    return rangeError("contact.friction", "contact.friction must be a finite number >= 0, got " + str(c.friction));
  if (!unsetOrZero(o.timestep) && !positiveFinite(o.timestep))
    return rangeError("timestep", "timestep must be a positive finite number (s), got " + str(o.timestep));
  if (!unsetOrZero(o.skin) && !positiveFinite(o.skin))
    return rangeError("skin", "skin must be a positive finite distance (m), got " + str(o.skin));
  if (!unsetOrZero(o.impactVelocity) && !positiveFinite(o.impactVelocity))
    return rangeError("impactVelocity",
                      "impactVelocity must be a positive finite speed (m/s), got " + str(o.impactVelocity));
  if (o.workers < 1) return rangeError("workers", "workers must be at least 1");
  return std::nullopt;
}

std::optional<ValidationError> validateSphereBatch(const SphereBatch& b, const SimulationOptions& o) {
  const std::size_t n = b.radiiLength;
  if (n > 0 && b.radii == nullptr) return typeError("radii", "radii must be an array");
  if (b.positionsLength != 3 * n || (n > 0 && b.positions == nullptr))
    return typeError("positions", "positions must hold 3 numbers per sphere (" + std::to_string(3 * n) + " for " +
                                      std::to_string(n) + " radii), got " + std::to_string(b.positionsLength));
  if (b.velocities != nullptr && b.velocitiesLength != 3 * n)
    return typeError("velocities", "velocities must hold 3 numbers per sphere (" + std::to_string(3 * n) + "), got " +
                                       std::to_string(b.velocitiesLength));
  if (!positiveFinite(b.density))
    return rangeError("density", "density must be a positive finite number (kg/m^3), got " + str(b.density));
  if (n > (std::size_t(1) << 31)) return rangeError("radii", "at most 2^31 spheres are supported");
  for (std::size_t i = 0; i < n; ++i)
    if (!positiveFinite(b.radii[i]))
      return rangeError(
          "radii",
          "radius of sphere " + std::to_string(i) + " must be a positive finite number (m), got " + str(b.radii[i]),
          std::ptrdiff_t(i));
  for (std::size_t k = 0; k < 3 * n; ++k) {
    const double x = b.positions[k];
    const int a = int(k % 3);
    if (!std::isfinite(x))
      return rangeError(
          "positions",
          "position " + std::to_string(k) + " (sphere " + std::to_string(k / 3) + ") is not a finite number",
          std::ptrdiff_t(k));
    // On a periodic axis a centre is wrapped into the box; so far out that
    // the wrap keeps no precision (a million box lengths: the spacing of
    // doubles there is 2e-10 of the box), it is refused.
    const double length = o.box.max[a] - o.box.min[a];
    if (o.periodic[a] && !(std::fabs(x - o.box.min[a]) <= kMaxWrappedLengths * length))
      return rangeError("positions",
                        "sphere " + std::to_string(k / 3) + " has its centre at " + str(x) + " on the periodic axis " +
                            "xyz"[a] + ", more than " + str(kMaxWrappedLengths) +
                            " box lengths away: wrapped into the box it would keep no precision",
                        std::ptrdiff_t(k));
    if (!o.periodic[a] && (x < o.box.min[a] || x > o.box.max[a]))
      return rangeError("positions",
                        "sphere " + std::to_string(k / 3) + " has its centre outside the box (coordinate " + str(x) +
                            " on axis " + "xyz"[a] + ")",
                        std::ptrdiff_t(k));
  }
  if (b.velocities)
    for (std::size_t k = 0; k < 3 * n; ++k)
      if (!std::isfinite(b.velocities[k]))
        return rangeError(
            "velocities",
            "velocity " + std::to_string(k) + " (sphere " + std::to_string(k / 3) + ") is not a finite number",
            std::ptrdiff_t(k));
  if (b.fixed != nullptr && b.fixedLength != n)
    return typeError("fixed", "fixed must hold one flag per sphere (" + std::to_string(n) + "), got " +
                                  std::to_string(b.fixedLength));
  // A fixed sphere never moves: a velocity given to it would be dropped.
  if (b.fixed != nullptr && b.velocities != nullptr)
    for (std::size_t k = 0; k < 3 * n; ++k)
      if (b.fixed[k / 3] != 0 && b.velocities[k] != 0.0)
        return rangeError("velocities",
                          "sphere " + std::to_string(k / 3) + " is fixed, so its velocity must be zero, got " +
                              str(b.velocities[k]) + " m/s",
                          std::ptrdiff_t(k));
  return std::nullopt;
}

std::optional<ValidationError> validateDepositOptions(const DepositOptions& d, const SimulationOptions& o) {
  if (d.count < 1) return rangeError("count", "count must be at least 1");
  if (d.count > (std::size_t(1) << 30)) return rangeError("count", "count is too large");
  const RadiusDistribution& r = d.radius;
  switch (r.kind) {
    case RadiusDistributionKind::Fixed:
      if (!positiveFinite(r.radius))
        return rangeError("radius.radius", "radius must be a positive finite number (m), got " + str(r.radius));
      break;
    case RadiusDistributionKind::Uniform:
    case RadiusDistributionKind::LogNormal:
      if (!positiveFinite(r.minRadius) || !positiveFinite(r.maxRadius) || r.maxRadius < r.minRadius)
        return rangeError("radius.minRadius", "minRadius and maxRadius must be positive with minRadius <= maxRadius");
      if (r.kind == RadiusDistributionKind::LogNormal) {
        if (!positiveFinite(r.medianRadius)) return rangeError("radius.medianRadius", "medianRadius must be positive");
        if (!(r.logStandardDeviation >= 0.0 && std::isfinite(r.logStandardDeviation)))
          return rangeError("radius.logStandardDeviation", "logStandardDeviation must be a finite number >= 0");
        // The truncation window must hold a reasonable share of the draws.
        const double lo = std::log(r.minRadius / r.medianRadius);
        const double hi = std::log(r.maxRadius / r.medianRadius);
        const double s = r.logStandardDeviation;
        const double share = s == 0.0
                                 ? (lo <= 0.0 && hi >= 0.0 ? 1.0 : 0.0)
                                 : 0.5 * (std::erf(hi / (s * std::sqrt(2.0))) - std::erf(lo / (s * std::sqrt(2.0))));
        if (share < 1e-3)
          return rangeError("radius.medianRadius",
                            "[minRadius, maxRadius] holds almost none of the log-normal "
                            "distribution");
      }
      break;
    default:
      return typeError("radius.kind", "radius distribution must be fixed, uniform or lognormal");
  }
  if (!positiveFinite(d.density))
    return rangeError("density", "density must be a positive finite number (kg/m^3), got " + str(d.density));
  if (!(o.gravity[2] < 0.0)) return rangeError("gravity", "deposit needs gravity pointing along -z (gravity[2] < 0)");
  if (!std::isnan(d.regionBottom) && !std::isfinite(d.regionBottom))
    return rangeError("regionBottom", "regionBottom must be finite");
  if (!std::isnan(d.regionTop) && !std::isfinite(d.regionTop))
    return rangeError("regionTop", "regionTop must be finite");
  if (!std::isnan(d.kineticEnergyThreshold) && !(d.kineticEnergyThreshold >= 0.0))
    return rangeError("kineticEnergyThreshold", "kineticEnergyThreshold must be >= 0 (J)");
  if (d.checkInterval < 1) return rangeError("checkInterval", "checkInterval must be >= 1");
  if (d.maxAttemptsPerSphere < 1) return rangeError("maxAttemptsPerSphere", "maxAttemptsPerSphere must be >= 1");
  return std::nullopt;
}

}  // namespace peclet::dem
