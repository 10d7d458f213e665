#pragma once
/// \file
/// The force of one contact (sphere–sphere or sphere–wall). Internal; inlined
/// into the pair and wall loops.

#include <cmath>

#include "contact_law.hpp"

namespace peclet::dem::detail {

/// Contact force on sphere i from partner j.
///   normal:   unit vector from j to i;  overlap δ > 0
///   relative: vi − vj (velocities predicted at this step, see Simulation)
///   spin:     ri·ωi + rj·ωj (for a wall, ri·ωi)
///   shear:    tangential spring of the pair, updated in place (m)
/// Outputs the force on i and `arm` = normal × tangential force; the torque on
/// each partner is −r·arm. Returns the normal force magnitude (signed).
template <ContactModelKind Model, bool Friction>
inline double contactForce(const ContactLaw& law, double dt, const double normal[3], double overlap,
                           const double relative[3], const double spin[3], double reducedMass, double reducedRadius,
                           double* shear, double force[3], double arm[3]) {
  double kn, cn, kt = 0.0, ct = 0.0;
  if constexpr (Model == ContactModelKind::Linear) {
    const double rootMass = std::sqrt(reducedMass);
    kn = law.normalStiffness;
    cn = law.normalDampingScale * rootMass;
    if constexpr (Friction) {
      kt = law.tangentialStiffness;
      ct = law.tangentialDampingScale * rootMass;
    }
  } else {
    const double contactRadius = std::sqrt(reducedRadius * overlap);
    kn = 4.0 / 3.0 * law.effectiveModulus * contactRadius;
    cn = 0.0;  // normal dashpot integrated as an impulse below
    if constexpr (Friction) {
      kt = 8.0 * law.effectiveShearModulus * contactRadius;
      ct = law.hertzAlpha * std::sqrt(reducedMass * kt);
    }
  }
  const double vn = relative[0] * normal[0] + relative[1] * normal[1] + relative[2] * normal[2];
  double fn;
  if constexpr (Model == ContactModelKind::Linear) {
    // The kick at this step stands for the interval of ±dt/2 around it. The
    // dashpot's impulse over that interval is exactly cn·(change of overlap);
    // clipping the overlap at 0 where the contact begins or ends inside the
    // interval removes the O(dt) error of the force jump at contact onset.
    const double rate = -vn;  // dδ/dt
    const double before = overlap - 0.5 * dt * rate, after = overlap + 0.5 * dt * rate;
    const double start = overlap - dt * rate > 0.0 ? before : 0.0;
    const double end = overlap + dt * rate > 0.0 ? after : 0.0;
    fn = kn * overlap + cn * (end - start) / dt;
  } else {
    // Same idea for the Tsuji dashpot C·δ^{1/4}·dδ/dt: its impulse is
    // 4/5·C·Δ(δ^{5/4}). This matters because C·δ^{1/4} is steep at δ = 0.
    const double rate = -vn;
    const double coefficient =
        law.hertzAlpha * std::sqrt(reducedMass * 4.0 / 3.0 * law.effectiveModulus * std::sqrt(reducedRadius));
    auto power = [](double d) { return d > 0.0 ? d * std::sqrt(std::sqrt(d)) : 0.0; };
    const double before = overlap - 0.5 * dt * rate, after = overlap + 0.5 * dt * rate;
    const double start = overlap - dt * rate > 0.0 ? power(before) : 0.0;
    const double end = overlap + dt * rate > 0.0 ? power(after) : 0.0;
    fn = kn * overlap + 0.8 * coefficient * (end - start) / dt;
    (void)cn;
  }
  force[0] = fn * normal[0];
  force[1] = fn * normal[1];
  force[2] = fn * normal[2];
  if constexpr (Friction) {
    // Relative velocity of the contact points, tangential part.
    const double vt[3] = {relative[0] - vn * normal[0] - (spin[1] * normal[2] - spin[2] * normal[1]),
                          relative[1] - vn * normal[1] - (spin[2] * normal[0] - spin[0] * normal[2]),
                          relative[2] - vn * normal[2] - (spin[0] * normal[1] - spin[1] * normal[0])};
    double s[3] = {shear[0] + vt[0] * dt, shear[1] + vt[1] * dt, shear[2] + vt[2] * dt};
    // Keep the spring in the current tangent plane as the contact rolls.
    const double sn = s[0] * normal[0] + s[1] * normal[1] + s[2] * normal[2];
    s[0] -= sn * normal[0];
    s[1] -= sn * normal[1];
    s[2] -= sn * normal[2];
    double ft[3] = {-(kt * s[0] + ct * vt[0]), -(kt * s[1] + ct * vt[1]), -(kt * s[2] + ct * vt[2])};
    const double ft2 = ft[0] * ft[0] + ft[1] * ft[1] + ft[2] * ft[2];
    const double limit = law.friction * std::fabs(fn);
    if (ft2 > limit * limit) {
      // Coulomb sliding: cap the force and stretch the spring no further
      // than the capped force allows.
      const double scale = limit / std::sqrt(ft2);
      for (int d = 0; d < 3; ++d) {
        ft[d] *= scale;
        s[d] = -(ft[d] + ct * vt[d]) / kt;
      }
    }
    shear[0] = s[0];
    shear[1] = s[1];
    shear[2] = s[2];
    force[0] += ft[0];
    force[1] += ft[1];
    force[2] += ft[2];
    arm[0] = normal[1] * ft[2] - normal[2] * ft[1];
    arm[1] = normal[2] * ft[0] - normal[0] * ft[2];
    arm[2] = normal[0] * ft[1] - normal[1] * ft[0];
  } else {
    (void)spin;
    (void)shear;
    arm[0] = arm[1] = arm[2] = 0.0;
  }
  return fn;
}

}  // namespace peclet::dem::detail
