#pragma once
/// \file
/// The kernels between a volume-averaged fluid on a grid of cubic cells and
/// the spheres of a DEM, in plain C++ (no Node-API):
///
/// - the "divided" kernel: each sphere is split into kSatellites points of
///   equal volume (three equal-volume shells of 24 points each, every point
///   set symmetric under reflection about each axis) and each point's share
///   goes to the cell that contains it. The same points carry each sphere's
///   volume to the cells (void fraction), the cell fields to the sphere
///   (fluid velocity, void fraction, pressure gradient) and the sphere's drag
///   back to the cells — so the force the fluid gets is exactly the opposite
///   of the force the spheres get, and a sphere inside one cell is wholly in
///   it (after CFDEMcoupling's `divided` void fraction, Goniva et al. 2012);
/// - drag closures (Di Felice 1994; Beetstra, van der Hoef & Kuipers 2007;
///   Gidaspow 1994: Ergun 1952 below ε = 0.8, Wen & Yu 1966 above);
/// - the momentum exchange of the volume-averaged equations in the form
///   "model A" of Zhou, Kuang, Chu & Yu (2010): the fluid feels −ε∇p and the
///   reaction of the drag, each sphere the drag and −V∇p.
///
/// SI units everywhere here; the binding converts to and from lattice units.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace peclet::coupling {

/// Points per sphere of the divided kernel.
inline constexpr std::size_t kSatellites = 72;

/// Unit-sphere offsets of the divided kernel (each carries 1/kSatellites of
/// the volume).
const std::array<std::array<double, 3>, kSatellites>& satellites();

/// A box of n[0] × n[1] × n[2] cubic cells of side `cell`, C order (the last
/// index fastest), from `origin`.
struct Grid {
  std::size_t n[3] = {0, 0, 0};
  double cell = 1;
  double origin[3] = {0, 0, 0};
  bool periodic[3] = {true, true, true};

  std::size_t cells() const { return n[0] * n[1] * n[2]; }
  double cellVolume() const { return cell * cell * cell; }
};

/// The spheres as the DEM holds them (SI units), read in place.
struct Spheres {
  std::size_t count = 0;
  const double* positions = nullptr;   // 3 per sphere
  const double* velocities = nullptr;  // 3 per sphere
  const double* radii = nullptr;
};

/// Checks that every sphere centre lies in the grid's box (a sphere whose
/// centre is outside a non-periodic face is an error naming `positions` and
/// the sphere; on a periodic axis any finite centre is wrapped) and that every
/// radius is positive, finite and at most half a cell (unresolved coupling:
/// cells of at least a diameter, an error naming `cellSize`).
void checkSpheres(const Grid& grid, const Spheres& spheres);

/// Where one sphere's points fall: at most 8 cells (a sphere is at most a
/// cell wide), each with the fraction of the points in it (the fractions sum
/// to 1). `own` is Σ weight² (the share of the sphere's own volume fraction
/// in the void fraction it sees, per unit of that volume fraction) and
/// `response` the sphere's self-response: Σ_ab w_a w_b g(c_a − c_b), the
/// velocity its cells' average gets per unit force spread over the same
/// cells, in units of 1/(μ Δx) (xx, yy, zz, xy, xz, yz).
struct Footprint {
  std::uint32_t count = 0;
  std::size_t cell[8];
  double weight[8];
  double own = 1;
  double response[6] = {0, 0, 0, 0, 0, 0};
};

/// The steady velocity (× μ Δx) that a unit force in one cell of the fluid
/// lattice (D3Q19, TRT, Λ = 3/16) makes in a cell at offset (dx, dy, dz),
/// |d| ≤ 1 per axis, component a for a force along b — the lattice's own
/// Stokes response without periodic images (see latticeResponse in the .cpp
/// for where the numbers come from).
double latticeResponse(int dx, int dy, int dz, int a, int b);

/// The self-response of a force spread and read through a Gaussian of
/// width σ (e^{−k²σ²} in Fourier space) in a fluid streaming past it along the
/// force at speed U, over the same in fluid at rest (Oseen's linearization):
/// 1 at a = Uσ/ν → 0, about 1.33/a for a ≫ 1.
double oseenFactor(double a);

/// The share of each sphere's own presence in what it sees that the self-
/// correction takes out, in [0, 1]: over the spheres of the 3 × 3 × 3 cells
/// around its cell, Σ (solid fraction seen − its block mean) / Σ (what its
/// own volume alone adds to that difference) — the realized structure factor
/// at the scale of the cells (1 for a lone sphere or independent positions,
/// about 0 where neighbours' deficits cancel each sphere's excess, as in a
/// packing). `solid` per cell as solidFraction() gives it, one footprint and
/// one share per sphere.
void selfShare(const Grid& grid, const Spheres& spheres, const double* solid, const Footprint* footprints,
               double* share);

/// The footprint of sphere `i`.
Footprint footprint(const Grid& grid, const Spheres& spheres, std::size_t i);

/// Solid volume fraction per cell: Σ sphere volume in the cell / cell volume,
/// through the divided kernel (no cap). `solid` has grid.cells() elements.
/// With `footprints` (one per sphere) it also keeps each sphere's footprint.
void solidFraction(const Grid& grid, const Spheres& spheres, double* solid, Footprint* footprints = nullptr);

enum class Drag { DiFelice, Beetstra, Gidaspow };

/// Parses 'di-felice', 'beetstra', 'gidaspow' (throws a TypeError naming `drag`).
Drag parseDrag(const std::string& name);

/// The drag of one sphere of diameter d in a suspension of void fraction ε:
/// the force F = coefficient × (u − v), with u the interstitial fluid velocity
/// and v the sphere's, |u − v| = `slip`; returns the coefficient (kg/s).
/// `viscosity` μ (Pa·s), `density` ρ (kg/m³).
double dragCoefficient(Drag drag, double epsilon, double diameter, double slip, double viscosity, double density);

struct ExchangeParameters {
  Drag drag = Drag::DiFelice;
  double viscosity = 1e-3;  // μ, Pa·s
  double density = 1e3;     // ρ, kg/m³
  double minVoidFraction = 0.3;
  /// The mean driving pressure gradient −∇p (Pa/m) of the fluid (the drive of
  /// a periodic domain, in the fluid's force as εG): each sphere feels V × it.
  /// Ignored when `holdFlux` is set: the exchange chooses it then.
  double drivePressureGradient[3] = {0, 0, 0};
  /// Hold the mixture's volume flux at `flux` (m/s: the fluid's mean
  /// superficial velocity plus the spheres' Σ V v / box volume) after this
  /// fluid step, by choosing the drive.
  bool holdFlux = false;
  double flux[3] = {0, 0, 0};
  /// The fluid step (s) and the fluid's momentum per cell before it (3 per
  /// cell: superficial velocity, m/s, without the half force the reported
  /// velocity holds). The drag on the fluid is implicit in the velocity the
  /// fluid ends the step with: required.
  double timestep = 0;
  const double* momentum = nullptr;
  /// Gravity (m/s²): each sphere gets the buoyancy −V ρ g (the fluid's
  /// hydrostatic pressure, which a periodic lattice does not hold).
  double gravity[3] = {0, 0, 0};
  /// Remove from what each sphere sees the part its own presence adds on
  /// average: its own volume in the void fraction and the velocity its own
  /// drag's reaction induced in its cells (from `previousDrag`, the drag of the
  /// last exchange, 3 per sphere; none on a first exchange), both weighted by
  /// its selfShare().
  bool selfCorrection = true;
  const double* previousDrag = nullptr;
  /// Σ β w × held per cell of the last exchange (ExchangeOutput::heldDrag):
  /// the drag of the spheres held in place, which screens the induced
  /// velocity.
  const double* previousHeldDrag = nullptr;
  /// The force of contacts and walls on each sphere (3 per sphere, N), for
  /// how far it is held: optional.
  const double* contactForces = nullptr;
  /// Upper bound of the correction's gain β S g/(μ Δx ε) (the drag's response
  /// to the velocity it induces), below 1 for the explicit correction to stay
  /// a contraction; larger gains are scaled down to it.
  double maxSelfGain = 0.5;
};

/// What exchange() computes and what it reports.
struct ExchangeOutput {
  /// Per sphere (3 each, N): the drag alone, and the total fluid force
  /// (drag, −V∇p, drive, buoyancy) that the DEM applies.
  double* drag = nullptr;
  double* total = nullptr;
  /// Per cell (3 each): the force density the fluid gets for the step (N/m³):
  /// the drive εG, the drag's reaction and the correction φ∇p that turns the
  /// lattice's −∇p into −ε∇p.
  double* fluidForce = nullptr;
  /// Per cell, optional: Σ β × weight × held of the spheres in it (kg/s).
  double* heldDrag = nullptr;
};

struct ExchangeReport {
  /// Largest particle Reynolds number ε ρ |u − v| d / μ.
  double maxReynolds = 0;
  /// Largest drag coefficient over mass, 1/s (the stiffest particle response).
  double maxDragRate = 0;
  /// Largest drag coefficient per fluid mass in a cell, 1/s: Σ β / (ε ρ V_cell)
  /// (the drag is implicit for the fluid: any value is stable).
  double maxFluidDragRate = 0;
  /// Σ V v over the spheres (m⁴/s): their volume flux times the box volume.
  double volumeFlux[3] = {0, 0, 0};
  /// The drive −∇p (Pa/m) of this step: the one given, or the one chosen to
  /// hold the flux.
  double drive[3] = {0, 0, 0};
};

/// The exchange for the fluid state given per cell: `epsilon` (capped void
/// fraction the fluid uses), `solid` (uncapped solid fraction), `velocity`
/// (3 per cell: superficial velocity, m/s), `pressureGradient` (3 per cell,
/// Pa/m), and the spheres' masses (kg, per sphere) for the report.
///
/// The drag is semi-implicit: each sphere's coefficient β, its own velocity
/// and the self-correction come from the state now; the fluid velocity in the
/// drag is the one the lattice takes in this step (its momentum m plus half
/// the step's force, Guo's forcing), which each cell solves for: u = m +
/// Δt(S + ε G − D u)/2ρ, D = Σ w β/(ε̄ V_cell) over the spheres in it, S the
/// rest of its force. Each sphere's drag is β (Σ w u/ε̄ − v): equal and
/// opposite, and the momentum of a cell relaxes without growing however stiff
/// the drag (by (1 − h)/(1 + h) per step, h = Δt D/2ρ, as the Darcy drag of
/// Guo & Zhao 2002).
ExchangeReport exchange(const Grid& grid, const Spheres& spheres, const double* masses, const double* epsilon,
                        const double* solid, const double* velocity, const double* pressureGradient,
                        const ExchangeParameters& parameters, const ExchangeOutput& out,
                        const Footprint* footprints = nullptr);

/// Central-difference gradient of a cell field (periodic axes wrapped,
/// one-sided at the other faces), per unit length: 3 per cell.
void gradient(const Grid& grid, const double* field, double* gradient);

}  // namespace peclet::coupling
