#pragma once
/// \file
/// Contact-law constants derived once from `ContactOptions`: stiffnesses,
/// damping from restitution, contact time.

#include "options.hpp"

namespace peclet::dem {

/// Solves the dimensionless Tsuji-form Hertz collision
///   y'' = −y^{3/2} − α·y^{1/4}·y',  y(0) = 0, y'(0) = 1
/// for the damping constant α that gives restitution `restitution`
/// (restitution is independent of impact speed for this form). Also returns
/// the dimensionless contact duration, with
/// fine-step RK4, so it is exact for the model up to ~1e-6. Solved by
/// regula falsi (Illinois) on ln e(α) and memoized per restitution for the
/// whole process (thread-safe).
struct HertzDamping {
  double alpha = 0.0;
  double dimensionlessContactTime = 0.0;
};
HertzDamping hertzDampingFromRestitution(double restitution);

/// Restitution of the dimensionless Tsuji-form Hertz collision for damping α.
double hertzRestitutionForDamping(double alpha, double* contactTime = nullptr);

/// Constants of the contact law, for sphere–sphere and sphere–wall contacts.
///
/// Linear: fn = kn·δ − cn·vn with cn = 2ζ·√(kn·m*), ζ = −ln e / √(π² + ln² e)
/// (so e = exp(−πβ/√(ω0² − β²)) with ω0² = kn/m*, β = cn / 2m*);
/// ft = −kt·ξ − ct·vt with ct = 2ζ·√(kt·m*), |ft| ≤ μ|fn|.
///
/// Hertz–Mindlin: with R* = rirj/(ri+rj), E* = E / (2(1−ν²)),
/// G* = G / (2(2−ν)), G = E / (2(1+ν)):
/// kn(δ) = 4/3·E*·√(R*δ), kt(δ) = 8·G*·√(R*δ), fn = kn(δ)·δ − α√(m*·kn(δ))·vn,
/// ft = −kt(δ)·ξ − α√(m*·kt(δ))·vt, |ft| ≤ μ|fn|. Walls: R* = r, m* = m.
struct ContactLaw {
  ContactModelKind model = ContactModelKind::Linear;
  double friction = 0.0;
  double restitution = 1.0;

  // Linear model.
  double normalStiffness = 0.0;         // kn (N/m)
  double tangentialStiffness = 0.0;     // kt (N/m)
  double normalDampingScale = 0.0;      // cn / √m* = 2ζ√kn
  double tangentialDampingScale = 0.0;  // ct / √m* = 2ζ√kt

  // Hertz–Mindlin.
  double effectiveModulus = 0.0;       // E* (Pa)
  double effectiveShearModulus = 0.0;  // G* (Pa)
  double hertzAlpha = 0.0;             // α
  double hertzContactTime = 0.0;       // dimensionless duration

  static ContactLaw fromOptions(const ContactOptions& options);

  /// Duration (s) of a binary collision with effective mass `reducedMass`,
  /// effective radius `reducedRadius` and (Hertz only) impact speed.
  double contactTime(double reducedMass, double reducedRadius, double impactSpeed) const;

  /// Elastic energy (J) stored at normal overlap δ (normal spring only).
  double normalElasticEnergy(double overlap, double reducedRadius) const;
};

}  // namespace peclet::dem
