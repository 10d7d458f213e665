#pragma once
/// \file
/// Plain option and result structures of the DEM kernel. SI units throughout
/// (m, kg, s, N, Pa), although any consistent unit system works.

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "parallel.hpp"
#include "vec3.hpp"

namespace peclet::dem {

/// Marks an option as "not set".
inline constexpr double kUnset = std::numeric_limits<double>::quiet_NaN();

/// An axis-aligned box [min, max] (m).
struct Box {
  Vec3 min{0.0, 0.0, 0.0};
  Vec3 max{1.0, 1.0, 1.0};
};

/// The normal/tangential contact law.
enum class ContactModelKind {
  /// Hertz normal force k·δ^{3/2} with Mindlin tangential stiffness
  /// 8·G*·√(R*δ), damping of the Tsuji form (∝ δ^{1/4}) calibrated so that a
  /// binary collision has exactly the requested restitution.
  HertzMindlin,
  /// Hookean normal spring `stiffness`·δ and tangential spring
  /// `tangentialStiffnessRatio`·`stiffness`, linear viscous damping chosen
  /// from the restitution through e = exp(−πβ/√(ω0² − β²)).
  Linear,
};

/// Material and contact parameters, shared by sphere–sphere and sphere–wall
/// contacts (walls are treated as the same material, with infinite radius and
/// mass).
struct ContactOptions {
  ContactModelKind model = ContactModelKind::HertzMindlin;
  /// Young's modulus E (Pa); required for Hertz–Mindlin.
  double youngsModulus = kUnset;
  /// Poisson's ratio ν in [0, 0.5); used by Hertz–Mindlin.
  double poissonRatio = 0.3;
  /// Normal spring constant kn (N/m); required for the linear model.
  double stiffness = kUnset;
  /// kt / kn for the linear model (2/7 matches the translational and
  /// rotational oscillation periods of a sphere).
  double tangentialStiffnessRatio = 2.0 / 7.0;
  /// Coefficient of normal restitution e in (0, 1].
  double restitution = 0.5;
  /// Coulomb friction coefficient μ ≥ 0 (0 switches tangential forces off).
  double friction = 0.5;
};

/// Everything fixed when a `Simulation` is created.
struct SimulationOptions {
  Box box;
  /// Periodicity per axis. Non-periodic faces carry planar walls.
  std::array<bool, 3> periodic{false, false, false};
  /// Walls on the faces {x−, x+, y−, y+, z−, z+}; ignored on periodic axes.
  /// A face without a wall is open: spheres reaching it are clamped (see
  /// `StepReport`).
  std::array<bool, 6> walls{true, true, true, true, true, true};
  /// Body acceleration (m/s²).
  Vec3 gravity{0.0, 0.0, -9.81};
  /// Time step (s). Unset or 0: contactTime / 50, re-derived whenever spheres
  /// are added. A value above the stability limit (contactTime / 5) is
  /// rejected when spheres are added.
  double timestep = kUnset;
  ContactOptions contact;
  /// Verlet skin (m): neighbour pairs are kept up to (ri + rj + skin) and the
  /// list is rebuilt once any sphere has moved more than skin/2. Unset:
  /// 0.1 × the largest diameter present.
  double skin = kUnset;
  /// Integrate angular velocities (torques from tangential forces). When
  /// false spheres never rotate (useful to study pure sliding).
  bool rotation = true;
  /// Hertz only: the impact speed (m/s) at which the contact time is quoted
  /// and the default time step derived. Unset: √(2·|g|·box height along g),
  /// or 1 m/s without gravity.
  double impactVelocity = kUnset;
  /// Host-provided parallel loop; empty means serial.
  ParallelFor parallelFor;
  /// Number of chunks work is split into (≥ 1). Results are bit-for-bit
  /// reproducible for a fixed value, whatever the host's scheduling.
  unsigned workers = 1;
};

/// A batch of spheres to add. Arrays are read, never retained.
struct SphereBatch {
  /// 3N centre coordinates (m), x0 y0 z0 x1 ...
  const double* positions = nullptr;
  std::size_t positionsLength = 0;
  /// N radii (m).
  const double* radii = nullptr;
  std::size_t radiiLength = 0;
  /// Material density (kg/m³), the same for the whole batch.
  double density = kUnset;
  /// Optional 3N initial velocities (m/s); null means at rest.
  const double* velocities = nullptr;
  std::size_t velocitiesLength = 0;
  /// Optional N flags, non-zero for a fixed sphere: it never moves or
  /// rotates and acts in contacts as a body of infinite mass (a packed bed
  /// held in place). Its velocity must be zero. Null means all free.
  const std::uint8_t* fixed = nullptr;
  std::size_t fixedLength = 0;
};

/// How `deposit` draws radii.
enum class RadiusDistributionKind {
  /// Every radius equals `radius`.
  Fixed,
  /// Uniform in [minRadius, maxRadius].
  Uniform,
  /// ln r ~ Normal(ln medianRadius, logStandardDeviation²), redrawn until it
  /// falls inside [minRadius, maxRadius] (a truncated log-normal; both bounds
  /// are required so the largest sphere, which sets the cell size, is known).
  LogNormal,
};

struct RadiusDistribution {
  RadiusDistributionKind kind = RadiusDistributionKind::Fixed;
  double radius = kUnset;
  double minRadius = kUnset;
  double maxRadius = kUnset;
  double medianRadius = kUnset;
  double logStandardDeviation = kUnset;
};

/// Options of `Simulation::deposit` (gravity must point along −z).
struct DepositOptions {
  std::size_t count = 0;
  RadiusDistribution radius;
  /// Density (kg/m³) of the inserted spheres.
  double density = kUnset;
  /// Seed of the random stream (std::mt19937_64; radii and positions are
  /// drawn with the kernel's own portable transforms, so a seed gives the
  /// same spheres on every platform).
  std::uint64_t seed = 1;
  /// Insertion region along z (m). Unset bottom: top of the existing bed
  /// (highest sphere top) or the box floor. Unset top: the box ceiling.
  double regionBottom = kUnset;
  double regionTop = kUnset;
  /// Random trial positions per sphere before insertion is declared impossible.
  std::size_t maxAttemptsPerSphere = 10000;
  /// Settling stops when the mean translational kinetic energy per sphere
  /// falls below this (J). Unset: 1e-5 × m̄·|g|·d̄ of the inserted spheres.
  double kineticEnergyThreshold = kUnset;
  /// Kinetic energy is checked every `checkInterval` steps.
  std::size_t checkInterval = 200;
  /// Give up settling after this many steps (the report says settled=false).
  std::size_t maxSteps = 10'000'000;
};

/// Outcome of a call to `step`.
enum class StepStatus {
  /// All requested steps were taken.
  Done,
  /// The cancellation flag was seen between two steps.
  Cancelled,
  /// A position or velocity became NaN/inf (time step far too large or
  /// inputs inconsistent); stepping stopped at the step where it was seen and
  /// the state was restored to what it was at the start of the call.
  Diverged,
};

/// Optional early stop of `Simulation::step`: every `checkInterval` steps,
/// stop once the mean translational kinetic energy per sphere is below
/// `threshold` (J).
struct SettleCheck {
  double threshold = 0.0;
  std::size_t checkInterval = 0;
};

struct StepReport {
  StepStatus status = StepStatus::Done;
  /// With a SettleCheck: whether stepping stopped because the threshold was reached.
  bool settled = false;
  /// Steps completed in this call.
  std::size_t steps = 0;
  /// Times a sphere centre was found outside the box on a non-periodic axis
  /// and clamped back onto the face (outward velocity zeroed). Walls normally
  /// prevent this; a non-zero count signals an open face or a blow-up.
  std::size_t clampedSpheres = 0;
  /// User index of the first clamped sphere, or -1.
  std::ptrdiff_t firstClampedSphere = -1;
  /// Diverged only: the first sphere (user index) found non-finite, and a
  /// sentence naming the likely cause, judged from the state at the start of
  /// the call (deep overlap, a speed too high for the time step, or a time
  /// step above the stability limit for the speeds present).
  std::ptrdiff_t divergedSphere = -1;
  std::string diagnosis;
};

struct DepositReport {
  StepReport stepping;
  /// Spheres inserted (always `count`: insertion is all-or-nothing).
  std::size_t inserted = 0;
  /// Whether the kinetic-energy threshold was reached within `maxSteps`.
  bool settled = false;
  /// Mean translational kinetic energy per sphere (J) at the end.
  double kineticEnergyPerSphere = 0.0;
};

/// The time step in use and how it relates to the contact time.
struct TimestepReport {
  /// Time step (s) in use; 0 until spheres are present and none was given.
  double timestep = 0.0;
  /// Duration (s) of a binary collision of the two lightest spheres (Hertz:
  /// at `impactVelocity`).
  double contactTime = 0.0;
  /// Largest accepted time step (s): contactTime / 5.
  double stabilityLimit = 0.0;
  /// Whether the time step was derived (contactTime / 50) or given.
  bool automatic = true;
};

/// Sphere–sphere overlaps relative to the smaller radius of each pair,
/// δ / min(ri, rj), over the contacts present.
struct OverlapStatistics {
  /// Mean over contacts (0 without contacts).
  double mean = 0.0;
  /// Largest (0 without contacts).
  double max = 0.0;
  std::size_t contacts = 0;
};

/// A sphere–sphere contact: user indices and overlap (m).
struct Contact {
  std::size_t first = 0;
  std::size_t second = 0;
  double overlap = 0.0;
};

}  // namespace peclet::dem
