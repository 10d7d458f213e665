#pragma once
/// \file
/// A D3Q19 lattice-Boltzmann solver for incompressible flow through a voxel
/// image, in plain C++ (no Node-API).
///
/// Collision: two-relaxation-time (TRT; BGK as the special case ω− = ω+)
/// with the incompressible equilibrium of He & Luo (1997), optionally without
/// its quadratic terms (creeping flow, exactly linear), and Guo's forcing
/// split into its symmetric and antisymmetric parts. Populations are stored
/// shifted by their rest-state weights (h = f − w) so that f32 keeps its
/// precision at small velocities. Walls: halfway bounce-back on solid voxels
/// and on the faces of the box that are not periodic. Gray voxels: a Darcy
/// drag −γu with γ = 2s/(1 − s) for a solid fraction s, implicit in the
/// velocity as in Guo & Zhao (2002), so that a uniform gray medium has the
/// permeability ν(1 − s)/(2s) of partial bounce-back (Walsh et al. 2009)
/// under a body force and a pressure gradient alike. Volume-averaged
/// flow: a per-cell porosity ε in the equilibrium and forcing of Guo & Zhao
/// (2002) and a per-cell body force. Pressure drive: Guo's non-equilibrium
/// extrapolation on the first and last planes along an axis.
///
/// Layout: structure of arrays, streamed in place (the AA pattern) or
/// between two lattices (pull), see `Streaming`. `Dense` stores
/// every voxel and finds neighbours by index arithmetic; `Sparse` stores
/// fluid nodes only with an index table of pull sources. `Auto` picks the
/// one that moves fewer bytes per step.

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <peclet/thread_pool.hpp>
#include <vector>

#include "errors.hpp"

namespace peclet::flow {

using ParallelFor = std::function<void(std::size_t count, const peclet::ParallelBody& body)>;

enum class Precision { F64, F32 };
enum class Layout { Auto, Dense, Sparse };
enum class CollisionModel { TRT, BGK };
/// How populations stream. `InPlace`: one copy of the populations, the AA
/// pattern (Bailey et al. 2009): steps alternate between one that reads the
/// populations from the neighbours' slots and writes them back to them, and
/// one that reads and writes each node's own (collision only, written back
/// to the opposite slots), so that every value is read and written in place by one node and a
/// step moves 2·19 values per node with no write-allocate. `TwoLattice`: pull
/// from one copy into another (what interpolated walls need, as they read a
/// neighbour's state of the step before). `Auto`: in place unless the
/// geometry is given by a signed distance; the environment variable
/// PECLET_FLOW_STREAMING=two-lattice|in-place overrides it.
enum class Streaming { Auto, InPlace, TwoLattice };

/// Relaxation: TRT with τ+ = 3ν + 1/2 and τ− from the magic parameter
/// Λ = (τ+ − 1/2)(τ− − 1/2); BGK uses τ+ for both.
struct Relaxation {
  CollisionModel model = CollisionModel::TRT;
  double tauPlus = 1.0;
  double magic = 3.0 / 16.0;
};

/// Fixed densities on the first (inlet) and last (outlet) planes along `axis`.
struct PressureDrive {
  int axis = -1;  // -1: none
  double inletDensity = 1.0;
  double outletDensity = 1.0;
};

struct LatticeOptions {
  std::array<std::size_t, 3> shape{0, 0, 0};
  /// Per voxel, C order; non-zero is solid. Empty: no solid voxel.
  std::vector<std::uint8_t> solid;
  /// Per voxel in [0, 1]: 1 solid, 0 open, between: gray. Empty: none.
  std::vector<double> solidFraction;
  /// Per voxel signed distance to the wall in voxel units, positive in the
  /// fluid: voxels at d <= 0 are solid, and each link cut by the wall
  /// bounces back where the linearly interpolated distance vanishes (central
  /// linear interpolation, Ginzburg & d'Humières 2003) instead of halfway.
  /// Empty: none. Needs the sparse layout.
  std::vector<double> sdf;
  std::array<bool, 3> periodic{true, true, true};
  Relaxation relaxation;
  /// Body force per unit volume (lattice units), along axes 0, 1, 2.
  std::array<double, 3> bodyForce{0.0, 0.0, 0.0};
  /// False: creeping (Stokes) flow, the equilibrium without quadratic terms.
  bool inertia = true;
  Precision precision = Precision::F64;
  Layout layout = Layout::Auto;
  Streaming streaming = Streaming::Auto;
  PressureDrive pressure;
  /// Chunks a parallel loop is cut into (fixed, so sums are deterministic).
  unsigned workers = 1;
  ParallelFor parallelFor;
};

/// Sums over the fluid nodes at the end of a step() call.
struct FlowMoments {
  std::array<double, 3> momentum{0.0, 0.0, 0.0};  // Σ u over fluid nodes
  double speed = 0.0;                             // Σ |u|
  double mass = 0.0;                              // Σ ρ
  bool finite = true;
};

class Lattice {
 public:
  virtual ~Lattice() = default;

  /// Advances `steps` steps; stops early (between steps) once `cancel` is
  /// set. Returns the steps taken. The moments are those after the last step.
  /// A step whose state would be non-finite is not taken: the call stops
  /// there with diverged() true, the lattice holding the last finite state,
  /// or with `atomic` the state the call started from (kept in a copy of the
  /// populations, allocated on the first atomic call of more than one step).
  /// `measure` false skips the moments and the fields after the last step
  /// (a distributed lattice steps one step at a time and measures its own
  /// planes only, after its halo exchange).
  virtual std::size_t step(std::size_t steps, const std::atomic<bool>* cancel, bool atomic = false,
                           bool measure = true) = 0;
  /// Whether the last step() call stopped at a step that would diverge.
  virtual bool diverged() const noexcept = 0;
  /// The number the step that would diverge would have had (0: none).
  virtual std::size_t divergedAt() const noexcept = 0;
  /// Bytes an atomic step() of more than one step would allocate first.
  virtual double snapshotBytes() const noexcept = 0;
  virtual const FlowMoments& moments() const noexcept = 0;

  /// Macroscopic fields over every voxel (0 velocity and density in solid
  /// voxels), computed now into storage of the lattice's precision.
  virtual void updateFields() = 0;
  virtual void* velocityData() noexcept = 0;  // 3 per voxel, interleaved
  virtual void* densityData() noexcept = 0;
  virtual void allocateFields() = 0;

  /// Per-voxel porosity ε (default 1) and body force (3 per voxel, default 0),
  /// read at every step; allocated on first request.
  virtual double* porosity() = 0;

  /// The halo of a slab decomposition along axis 0. Nodes of `plane` in
  /// storage (the plane's fluid nodes, or every voxel of it in the dense
  /// layout; contiguous, in C order either way) times the populations that
  /// cross towards `direction` (+1: the 5 with c_x = +1, -1: the 5 with
  /// c_x = -1): the values copyHalo moves.
  virtual std::size_t haloSize(std::size_t plane) const = 0;
  /// Copies the populations of `plane` that cross towards `direction` into
  /// `buffer` (`pack`), or from it into the plane: the buffer holds
  /// haloSize(plane) × 5 values of the lattice's precision, population by
  /// population. Which values: the post-collision ones that leave the plane
  /// (two lattices, and in place after an even number of steps), or the ones
  /// that arrived in the plane (in place after an odd number of steps:
  /// a ghost plane then holds what its neighbour's edge plane must receive).
  virtual void copyHalo(std::size_t plane, int direction, void* buffer, bool pack) = 0;
  /// Keeps a copy of the populations and the step count (allocated on the
  /// first call), and goes back to it.
  virtual void saveState() = 0;
  /// Whether the next step may be taken. `read` false: whether the last step
  /// proved the state within the bounds a step needs (every value it wrote
  /// below a bound that implies the rule of step()), reading nothing; true:
  /// reads the state and applies the rule. A true answer holds for the next
  /// step() call, which then does not check again. Halo values unpacked are
  /// taken to be within the bound of the lattice that packed them: a
  /// distributed step asks every rank checkStep(false) first, and all read
  /// if any cannot prove it.
  virtual bool checkStep(bool read) = 0;
  virtual void restoreState() = 0;
  virtual double* force() = 0;

  virtual void setBodyForce(const std::array<double, 3>& force) = 0;
  virtual const std::array<double, 3>& bodyForce() const noexcept = 0;
  virtual void setPressure(double inletDensity, double outletDensity) = 0;

  virtual Layout layout() const noexcept = 0;
  virtual Streaming streaming() const noexcept = 0;
  virtual Precision precision() const noexcept = 0;
  virtual std::size_t fluidNodes() const noexcept = 0;
  virtual std::size_t voxels() const noexcept = 0;
  virtual const std::array<std::size_t, 3>& shape() const noexcept = 0;
  virtual double tauPlus() const noexcept = 0;
  virtual double tauMinus() const noexcept = 0;
  virtual std::size_t stepCount() const noexcept = 0;
  /// Bytes of memory the lattice holds now.
  virtual std::size_t bytes() const noexcept = 0;
  /// Bytes moved per fluid-node update by the chosen layout (the roofline's
  /// numerator: populations read and written, plus index or mask reads).
  virtual double bytesPerUpdate() const noexcept = 0;
};

/// Validates `options` (FlowError naming the option) and builds the lattice.
std::unique_ptr<Lattice> makeLattice(LatticeOptions options);

/// Bytes a lattice with these options would need (before building it), so
/// that a caller can refuse it up front.
double plannedBytes(const LatticeOptions& options);

/// True when a fluid path (18-connected, as D3Q19 moves populations) joins
/// the first and the last plane along `axis`; `solid` non-zero is solid.
bool percolates(const std::uint8_t* solid, const std::array<std::size_t, 3>& shape, int axis,
                const std::array<bool, 3>& periodic = {false, false, false});

/// Labels the pore components of `solid` (18-connected, as percolates()):
/// `labels[v]` is -1 for a solid voxel, else its component's number in
/// [0, count), numbered in the order of their first voxel. Returns count.
std::size_t labelPores(const std::uint8_t* solid, const std::array<std::size_t, 3>& shape, std::int32_t* labels);

/// ν of a relaxation time τ+ (lattice units).
inline double viscosityOf(double tauPlus) { return (tauPlus - 0.5) / 3.0; }

}  // namespace peclet::flow
