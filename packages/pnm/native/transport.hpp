#pragma once
/// \file
/// Transport on a pore network: Stokes flow (permeability), diffusion
/// (formation factor), drainage (capillary pressure curve) and invasion
/// percolation. Conduits are pore–throat–pore in series; pores are spheres
/// truncated by their throats, throats cylinders (or, with the shape-factor
/// model, prisms of the throat's measured shape factor G = A/P²).
///
/// Errors: PnmError (errors.hpp) naming the public option at fault; the
/// solvers never hang (iterations are bounded) and never solve a singular
/// system (pores without a path to both the inlet and the outlet are excluded).

#include <atomic>
#include <cstddef>
#include <vector>

#include "network.hpp"

namespace peclet::pnm {

enum class ConductanceModel {
  HagenPoiseuille,  ///< circular sections: spheres truncated by cylinders, of the pores' inscribed radii
  ShapeFactor,      ///< g = k G A²/μ per element with G from the throat's area and perimeter (Patzek & Silin)
  // OpenPNM's size-factor models, on the geometry OpenPNM's recipe for snow2
  // networks gives them: D_pore = equivalentDiameter, D_throat =
  // throatInscribedDiameter, spacing = throatTotalLength; the conduit's parts in
  // series, g = 1/(1/g1 + 1/gt + 1/g2), with no entrance term.
  PyramidsAndCuboids,   ///< square sections: frusta of pyramids and a cuboid (cones_and_cylinders lengths)
  ConesAndCylinders,    ///< circular sections: frusta of cones and a cylinder
  SpheresAndCylinders,  ///< spheres cut by a cylinder; refuses a throat wider than a pore, as OpenPNM does
};

/// True for the three OpenPNM models.
constexpr bool isSizeFactorModel(ConductanceModel m) {
  return m == ConductanceModel::PyramidsAndCuboids || m == ConductanceModel::ConesAndCylinders ||
         m == ConductanceModel::SpheresAndCylinders;
}

/// OpenPNM's size factors of every throat's conduit, 3 per throat (pore 1,
/// throat, pore 2): conduit lengths (m), hydraulic size factors (m⁴; g = S/μ)
/// and diffusive size factors (m; g = D S). A part of zero length has an
/// infinite size factor. Throws PnmError("conductance") for a model that is not
/// a size-factor model, and, with SpheresAndCylinders, for a throat wider than
/// one of its pores or pores that overlap too far (OpenPNM raises there too).
struct SizeFactors {
  std::vector<double> lengths, hydraulic, diffusive;
};
/// How the size-factor models read a conduit's spacing.
enum class Spacing {
  TotalLength,   ///< throatTotalLength, through the throat's peak (OpenPNM's recipe: spacing = total_length)
  DirectLength,  ///< centre to centre (what OpenPNM measured when it ignored throat.spacing)
};
SizeFactors sizeFactors(const Network& network, ConductanceModel model, Spacing spacing = Spacing::TotalLength);

/// The length the size-factor models' permeability and formation factor are
/// taken over along `axis`: between the centres of the boundary regions, the
/// box's extent plus kBoundaryWidth voxels.
double sizeFactorLength(const Network& network, int axis);

/// Conduit lengths of every throat: pore 1 part, throat part, pore 2 part (m),
/// 3 per throat, summing to the throat's centre-to-centre length. A pore's
/// part is √(R² − r_t²) (0 when r_t ≥ R, and 0 for boundary pores); when the
/// two exceed 0.99 of the length they shrink in proportion to 0.99 of it.
std::vector<double> conduitLengths(const Network& network);

/// How a sparse solve went.
struct SolveReport {
  std::size_t unknowns = 0;       ///< pores solved for (not fixed by a boundary condition, not excluded)
  std::size_t iterations = 0;     ///< conjugate-gradient iterations
  double residual = 0;            ///< ‖b − Ax‖ / ‖b‖ at the end
  double tolerance = 0;           ///< the relative residual asked for
  bool converged = false;         ///< residual ≤ tolerance
  bool cancelled = false;         ///< stopped by the cancel flag
  std::size_t clusters = 0;       ///< connected clusters of pores in the network
  std::size_t excludedPores = 0;  ///< pores in clusters that do not join both faces (no equation, NaN result)
};

struct SolveOptions {
  double tolerance = 1e-10;                   ///< relative residual
  std::size_t maxIterations = 0;              ///< 0: 10 × unknowns + 1000
  const std::atomic<bool>* cancel = nullptr;  ///< polled between iterations
};

struct StokesOptions {
  int axis = 0;             ///< flow from face 2·axis to face 2·axis + 1
  double viscosity = 1e-3;  ///< Pa·s
  ConductanceModel model = ConductanceModel::HagenPoiseuille;
  Spacing spacing = Spacing::TotalLength;  ///< the size-factor models' spacing
  /// Sampson's entrance resistance where a throat opens into a wider pore (see conductances()).
  bool entrance = true;
  double inletPressure = 101325 + 1;  ///< Pa, on the boundary pores of face 2·axis
  double outletPressure = 101325;     ///< Pa, on the boundary pores of face 2·axis + 1
  SolveOptions solve;
};

struct StokesResult {
  std::vector<double> pressure;     ///< per pore (Pa); NaN for excluded pores
  std::vector<double> throatFlow;   ///< per throat (m³/s), positive from conns[2t] to conns[2t + 1]; 0 if excluded
  std::vector<double> conductance;  ///< per throat, the conduit's hydraulic conductance (m³/(Pa·s))
  double flowRate = 0;              ///< m³/s leaving the inlet face
  double permeability = 0;          ///< m²: Q μ L / (A ΔP) with L, A the box's extent and section
  SolveReport solve;
};

/// Throws PnmError: axis (no boundary pores on a face of that axis — extract
/// with boundaries; or no path joins the two faces), viscosity (not > 0 and
/// finite), inletPressure/outletPressure (not finite or equal).
StokesResult stokesFlow(const Network& network, const StokesOptions& options);

struct DiffusionOptions {
  int axis = 0;
  /// HagenPoiseuille and ShapeFactor: the truncated spheres of the first with the
  /// throat's measured section; a size-factor model: its diffusive size factors.
  ConductanceModel model = ConductanceModel::HagenPoiseuille;
  Spacing spacing = Spacing::TotalLength;  ///< the size-factor models' spacing
  SolveOptions solve;
};

struct DiffusionResult {
  std::vector<double> concentration;  ///< per pore, 1 at the inlet, 0 at the outlet; NaN when excluded
  double effectiveDiffusivity = 0;    ///< D_eff / D_bulk of the box (porous medium, Fick's law over L and A)
  double formationFactor = 0;         ///< D_bulk / D_eff
  double tortuosity = 0;              ///< F · φ (φ the network's porosity, Network::porosity)
  SolveReport solve;
};

DiffusionResult diffusion(const Network& network, const DiffusionOptions& options);

struct DrainageOptions {
  int axis = 0;                   ///< the non-wetting phase enters from face 2·axis
  double contactAngle = 140;      ///< degrees, measured through the wetting phase... as OpenPNM: 140 for mercury
  double surfaceTension = 0.48;   ///< N/m
  std::vector<double> pressures;  ///< Pa, ascending; empty: every distinct entry pressure
  const std::atomic<bool>* cancel = nullptr;
};

struct DrainageResult {
  std::vector<double> pressure;       ///< the capillary pressures applied (Pa), ascending
  std::vector<double> saturation;     ///< non-wetting saturation (invaded pore volume / pore volume) at each
  std::vector<double> poreEntry;      ///< per pore, its Washburn entry pressure (Pa); 0 for boundary pores
  std::vector<double> throatEntry;    ///< per throat, its Washburn entry pressure (Pa)
  std::vector<double> poreInvaded;    ///< per pore, the lowest applied pressure that fills it (Inf: never)
  std::vector<double> throatInvaded;  ///< per throat, likewise
  bool cancelled = false;
};

/// Ordinary percolation with access: at pressure P an element fills when its
/// entry pressure is ≤ P and it joins the inlet through filled elements.
/// Washburn: Pc = −2σ cos θ / r with r the inscribed radius. The inlet face's
/// boundary pores are filled from the start (poreInvaded: the first pressure).
/// Throws PnmError for contactAngle (not in (90, 180]: the invading phase must
/// be non-wetting), surfaceTension (not > 0), pressures (not finite and > 0, or
/// not strictly ascending), axis (no boundary pores there).
DrainageResult drainage(const Network& network, const DrainageOptions& options);

struct InvasionResult {
  std::vector<std::int32_t> poreSequence;    ///< per pore, the step it was invaded at (0-based), −1: never
  std::vector<std::int32_t> throatSequence;  ///< per throat, likewise
  std::vector<double> pressure;              ///< per step, the entry pressure of the element invaded (Pa)
  std::vector<double> saturation;            ///< per step, saturation after it
  bool cancelled = false;
};

/// Invasion percolation from face 2·axis: the accessible element with the
/// lowest entry pressure fills next (a binary heap), until all accessible are filled.
/// Step 0 fills the inlet face's boundary pores (pressure 0). Each later step
/// fills one throat next to a filled pore, with the pore behind it if that is
/// empty; its pressure is max(throat entry, that pore's entry), or the throat's
/// entry alone when both its pores are filled. Ties go to the lower throat
/// index. Elements of infinite entry (zero radius) are never filled.
/// `pressures` is not used.
InvasionResult invasionPercolation(const Network& network, const DrainageOptions& options);

}  // namespace peclet::pnm
