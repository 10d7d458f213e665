#pragma once
/// \file
/// `Simulation`: a discrete element model of frictional spheres in a box.
///
/// Example:
/// \code
///   using namespace peclet::dem;
///   SimulationOptions options;
///   options.box = {{0, 0, 0}, {0.1, 0.1, 0.2}};
///   options.periodic = {true, true, false};
///   options.contact.model = ContactModelKind::HertzMindlin;
///   options.contact.youngsModulus = 1e7;
///   Simulation simulation(options);                 // throws DemError
///   DepositOptions deposit;
///   deposit.count = 2000;
///   deposit.radius.radius = 0.002;
///   deposit.density = 2500;
///   simulation.deposit(deposit);                    // insert, then settle
///   double phi = simulation.packingFraction({0, 0, 0.01}, {0.1, 0.1, 0.03});
/// \endcode
///
/// Integration is velocity Verlet:
///   v(n+½) = v(n) + ½Δt·a(n);  x(n+1) = x(n) + Δt·v(n+½);
///   a(n+1) = F(x(n+1), ṽ(n+1)) / m;  v(n+1) = v(n+½) + ½Δt·a(n+1)
/// where the velocity-dependent forces (dashpots, tangential spring
/// increments) use the prediction ṽ(n+1) = v(n+½) + ½Δt·a(n); angular velocity
/// is advanced the same way. With the plain half-step velocity the damping
/// would only be first-order accurate (restitution off by ~1.5% at 50 steps
/// per contact); the linear dashpot is further integrated as an exact impulse
/// over each kick interval, so contacts starting mid-step are not over-damped. Under a constant
/// acceleration g the scheme is exact: after n steps, with t = nΔt,
///   x(n) = x0 + v0·t + ½·g·t²,  v(n) = v0 + g·t
/// up to floating-point rounding.
///
/// Threads: the simulation never starts threads; it runs its loops through
/// `SimulationOptions::parallelFor` in `workers` chunks. Per-chunk force
/// buffers are summed in chunk order, so a given (inputs, workers) pair gives
/// bit-identical results however the host schedules the chunks. One
/// `Simulation` must not be used from two threads at once.
///
/// Boundaries: spheres touching a wall feel the same contact law as a
/// sphere–sphere contact (wall of the same material, infinite radius and
/// mass). A centre that ends a step outside the box on a non-periodic axis
/// (open face, or a blow-up that tunnels through a wall) is clamped onto the
/// face, its outward velocity zeroed, and the event is counted in
/// `StepReport`; a NaN/inf state stops stepping with `StepStatus::Diverged`.
/// Nothing ever indexes outside the kernel's arrays.
///
/// Coordinates: the kernel stores centres relative to `box.min` (the box is
/// [0, L] inside), so the dynamics are the same wherever the box lies; the
/// user-facing positions array and every input (positions, regions) are
/// translated at the boundary. A box whose coordinates cannot resolve the
/// smallest sphere (ulp of the largest |coordinate| above 1e-3 × the smallest
/// radius) is refused.
///
/// Failure atomicity: every public mutating call either completes or leaves
/// the simulation exactly as it was. `addSpheres` and `deposit` are
/// all-or-nothing (allocation failure included: `std::bad_alloc` propagates
/// with the state unchanged). `step` snapshots the dynamic state at its start
/// (a copy of the working arrays and neighbour lists, reusing its capacity
/// from call to call) and restores it when the step diverges or throws; a
/// host that advances in slices (the Node binding's async run) therefore
/// finds, after a diverged slice, the state at the start of that slice.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "contact_law.hpp"
#include "errors.hpp"
#include "neighbor_list.hpp"
#include "options.hpp"

namespace peclet::dem {

class Simulation {
 public:
  /// Validates `options` (throws `DemError`) and creates an empty simulation.
  explicit Simulation(SimulationOptions options);

  /// Adds spheres. Validates the whole batch first (throws `DemError`, adding
  /// nothing); also rejects a given time step above the stability limit of
  /// the new sphere set and sphere sizes that do not fit a periodic axis
  /// (length ≥ 3 × (largest diameter + skin)).
  /// Invalidates the pointers returned by the array accessors.
  void addSpheres(const SphereBatch& batch);

  /// Advances `steps` time steps. `cancel`, when given, is read between steps;
  /// once it is true the call returns `StepStatus::Cancelled` with the state
  /// at a whole step. On divergence the state is restored to the start of
  /// the call and the report carries a diagnosis. Allocates the snapshot on
  /// the first call, then only when a neighbour list outgrows its capacity.
  /// With `settle`, also stops once settled (checked every checkInterval
  /// steps, the same arithmetic as separate calls of checkInterval steps),
  /// so a divergence anywhere restores the state at the start of this call.
  /// Reads `externalForces()` once, at the start: a non-finite value throws
  /// `DemError` (argument "externalForces", index the element) before
  /// anything changes.
  StepReport step(std::size_t steps, const std::atomic<bool>* cancel = nullptr, const SettleCheck* settle = nullptr);

  /// Inserts `options.count` spheres without overlap by random sequential
  /// insertion in the region above the bed, then steps until the mean
  /// translational kinetic energy per sphere falls below the threshold (or
  /// `maxSteps`, or cancel).
  /// Throws `DemError` (argument "count") when the spheres cannot be placed;
  /// nothing is added in that case. Insertion polls `cancel` every 1024
  /// trials (a cancelled insertion adds nothing and reports Cancelled). Any
  /// exception leaves the simulation as it was before the call.
  DepositReport deposit(const DepositOptions& options, const std::atomic<bool>* cancel = nullptr);

  /// Number of spheres N.
  std::size_t sphereCount() const { return count_; }

  /// Kernel-owned arrays in the order spheres were added (user index):
  /// positions, velocities, angular velocities and total forces (contact +
  /// wall + gravity, N) are 3N doubles; radii are N doubles. Valid after
  /// `step` returns; the pointers stay stable until spheres are added.
  /// Read-only: the kernel keeps its own working copy (sorted by cell), so
  /// writes through these pointers are not seen by the simulation.
  /// Positions on periodic axes are wrapped into the box.
  const double* positions() const { return userPositions_.data(); }
  const double* velocities() const { return userVelocities_.data(); }
  const double* angularVelocities() const { return userAngularVelocities_.data(); }
  const double* forces() const { return userForces_.data(); }
  const double* radii() const { return userRadii_.data(); }
  /// Masses (kg) in the order spheres were added, into `out` (N).
  void copyMasses(double* out) const {
    for (std::size_t i = 0; i < count_; ++i) out[userIndex_[i]] = mass_[i];
  }

  /// External force on each sphere (N), 3N doubles in user order, zero for
  /// new spheres. Writable: every step adds it to the sphere's force (held
  /// constant until changed); `step` copies it at its start, so writes
  /// during a call take effect at the next one. Stable until spheres are
  /// added (the values of the spheres present are kept).
  double* externalForces() { return userExternalForces_.data(); }
  const double* externalForces() const { return userExternalForces_.data(); }
  /// N flags in user order, 1 for a fixed sphere (see SphereBatch::fixed).
  const std::uint8_t* fixed() const { return userFixed_.data(); }
  std::size_t fixedCount() const { return fixedCount_; }
  /// Throws DemError (argument "externalForces") at the first non-finite value.
  void checkExternalForces() const;

  /// Sphere–sphere overlaps relative to the smaller radius of each pair, in
  /// the current state (from the last force evaluation when it is current).
  OverlapStatistics overlapStatistics() const;

  /// Translational + rotational kinetic energy (J).
  double kineticEnergy() const;
  /// Translational kinetic energy Σ ½mv² (J). Settling in `deposit` is judged
  /// on this: spin about a contact normal meets no resistance in this model
  /// (no rolling/twisting friction) and could keep the total from decaying.
  double translationalKineticEnergy() const;
  /// translationalKineticEnergy() per free sphere (fixed spheres are left
  /// out; 0 when every sphere is fixed): what settling is judged on.
  double meanTranslationalKineticEnergy() const;
  /// Elastic energy stored in normal contact springs, sphere–sphere and
  /// sphere–wall (J).
  double elasticEnergy() const;
  /// Sum of m·v (kg·m/s).
  Vec3 momentum() const;

  /// Current sphere–sphere contacts (overlap > 0), user indices, first < second.
  std::vector<Contact> contacts() const;
  /// Mean number of sphere–sphere contacts per sphere (2·contacts / N).
  double coordinationNumber() const;
  /// Solid volume fraction in [min, max]: Σ exact volume(sphere ∩ box) / box
  /// volume. On periodic axes the images of spheres straddling the boundary
  /// are included.
  double packingFraction(const Vec3& min, const Vec3& max) const;
  /// Rasterizes the spheres onto n[0] × n[1] × n[2] cubic voxels of edge
  /// `voxel` from `min` (C order, the last index fastest): `solid` gets 1
  /// where a voxel's centre lies inside a sphere (or, on periodic axes, one
  /// of its images), else 0. Runs over slabs of the first axis in the
  /// kernel's chunks; `solid` holds n[0]·n[1]·n[2] bytes.
  void voxelize(const Vec3& min, const std::size_t n[3], double voxel, std::uint8_t* solid) const;

  /// Time step in use, contact time and stability limit.
  const TimestepReport& timestep() const { return timestep_; }
  /// Simulated time (s) and steps taken since creation.
  double time() const { return time_; }
  std::uint64_t stepCount() const { return stepCount_; }
  /// The Verlet skin (m) in use (0 until spheres exist, when automatic).
  double skin() const { return skin_; }
  /// Neighbour-list rebuilds so far.
  std::uint64_t rebuildCount() const { return rebuilds_; }
  const SimulationOptions& options() const { return options_; }

  /// Rough bytes the kernel holds per sphere (working, user-order, scratch
  /// and snapshot arrays plus ~8 neighbour pairs in two list generations),
  /// for refusing a sphere count up front.
  static constexpr double kBytesPerSphere = 1600.0;

 private:
  struct ChunkTally;

  void runParallel(const ParallelBody& body) const;
  /// Sphere i's centre wrapped into the box on periodic axes, and the image
  /// shifts (in box widths, lo..hi per axis) that its periodic images need.
  void images(std::size_t i, Vec3& centre, int lo[3], int hi[3]) const;
  /// Adds spheres whose centres are already relative to box.min.
  void addLocalSpheres(const SphereBatch& batch, const double* localPositions);
  /// Rebuilds the cell order and neighbour lists. Strong exception safety:
  /// everything that allocates happens before the first visible change.
  void rebuild();
  /// Sets the chunks' sphere ranges [begin, end) so that each holds about
  /// the same estimated work (pair candidates from the cell occupancy).
  void splitByWork(std::size_t cells, std::vector<detail::PairChunk>& chunks);
  /// Copies externalForces() into the working copy the steps read; throws
  /// DemError at a non-finite value, changing nothing visible.
  void loadExternalForces();
  /// Copies / restores the dynamic state for step()'s failure atomicity.
  void saveSnapshot();
  void restoreSnapshot() noexcept;
  /// The likely cause of a divergence of user sphere `sphere` at `stepOfCall`,
  /// judged from the (restored) state at the start of the call.
  std::string diagnoseDivergence(std::ptrdiff_t sphere, std::size_t stepOfCall) const;
  void computePairForces();
  void finishStep(bool advanceNext, double kickFraction, std::vector<ChunkTally>& tallies);
  void kickAndDrift(std::vector<ChunkTally>& tallies);
  /// Drifts sphere i by dt·v, tracks its displacement since the last build and clamps it to the box.
  void drift(std::size_t i, ChunkTally& tally);
  /// Copies the working arrays to the user-order ones; `parallel` false runs
  /// serially and cannot throw.
  void syncUserArrays(bool parallel);
  /// deposit()'s second half: adds the placed spheres and steps until settled.
  DepositReport settle(const DepositOptions& options, const SphereBatch& batch, const double* localPositions,
                       const std::atomic<bool>* cancel);
  /// Throws DemError (positions) when a new centre equals another one.
  void checkCoincident(const std::vector<double>& localPositions, std::size_t added) const;
  template <bool Friction, ContactModelKind Model>
  void pairForcesChunk(detail::PairChunk& chunk);
  template <ContactModelKind Model>
  void wallForces(std::size_t i, double* force, double* torque);

  SimulationOptions options_;
  /// The box relative to its own min corner: [0, L] on each axis.
  Box box_;
  ContactLaw law_;
  TimestepReport timestep_;
  double dt_ = 0.0;
  double skin_ = 0.0;
  double impactSpeed_ = 0.0;  // speed the contact time was quoted at (m/s)
  double time_ = 0.0;
  std::uint64_t stepCount_ = 0;
  std::uint64_t rebuilds_ = 0;
  bool listValid_ = false;
  bool forcesValid_ = false;

  std::size_t count_ = 0;
  // Working arrays, sorted by cell at every rebuild.
  std::vector<double> x_, v_, omega_, f_, t_;  // 3N
  // Velocities predicted at the force evaluation, v(n+½) + ½Δt·a(n), used by
  // the velocity-dependent forces so that damping is second-order accurate.
  std::vector<double> predictedV_, predictedOmega_;                   // 3N
  std::vector<double> radius_, mass_, inverseMass_, inverseInertia_;  // N
  std::vector<std::uint32_t> userIndex_;                              // working index → user index
  std::vector<double> wallShear_;                                     // 3 per (sphere, active wall)
  std::vector<double> xAtBuild_;                                      // 3N
  std::vector<int> activeWalls_;                                      // face ids 0..5 carrying a wall

  // Neighbour search.
  detail::CellGrid grid_;
  std::vector<detail::PairChunk> chunks_;
  detail::ShearHistory history_;
  std::vector<std::uint32_t> cellStart_, cellOfSphere_, order_, oldToNew_, scratchIndex_;
  std::vector<double> scratch_, scratchNarrow_, scratchWall_;  // 3N, N, wall springs
  // Rebuild's new order of positions and radii, and the lists under
  // construction: swapped in only once the build succeeded.
  std::vector<double> sortedX_, sortedRadius_;
  std::vector<detail::PairChunk> spareChunks_;
  std::vector<double> cellWork_;  // splitByWork's list length per sphere of each cell

  // step()'s snapshot of the dynamic state.
  struct Snapshot {
    std::vector<double> x, v, omega, f, t, predictedV, predictedOmega, xAtBuild, radius, mass, inverseMass,
        inverseInertia, wallShear;
    std::vector<std::uint32_t> userIndex;
    std::vector<detail::PairChunk> chunks;
    double time = 0.0;
    std::uint64_t stepCount = 0, rebuilds = 0;
    bool listValid = false, forcesValid = false;
  } snapshot_;

  // Arrays in user order.
  std::vector<double> userPositions_, userVelocities_, userAngularVelocities_, userForces_, userRadii_;
  std::vector<double> userExternalForces_;  // written by the host between calls
  std::vector<std::uint8_t> userFixed_;
  std::size_t fixedCount_ = 0;
  // The external forces read at the start of step() (user order), and
  // whether any is non-zero.
  std::vector<double> externalWork_;
  std::vector<double> externalScratch_;  // the user's external forces as read by the last call (3N, user order)
  bool hasExternal_ = false;
};

}  // namespace peclet::dem
