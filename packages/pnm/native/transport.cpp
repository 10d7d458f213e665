#include "transport.hpp"

#include <Eigen/Sparse>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "errors.hpp"

// Conduits (pore 1 – throat – pore 2 in series) follow OpenPNM's
// spheres_and_cylinders: the part of pore i inside the conduit reaches from
// its centre to where the sphere of its inscribed radius R_i is cut by the
// throat's cylinder of radius r_t, L_i = √(R_i² − r_t²) (0 when r_t ≥ R_i, and
// 0 for a boundary pore); when L_1 + L_2 > 0.99 L both shrink in proportion to
// 0.99 L, so the throat keeps at least 1 % of the length L; L_t = L − L_1 − L_2.
//
// Per element (μ the viscosity):
//   throat, Hagen–Poiseuille   g_t = π r_t⁴ / (8 μ L_t)
//   throat, shape factor       g_t = k G A² / (μ L_t), G = A/P² clipped to (0, 1/(4π)],
//                              k = 0.6 (G ≤ √3/36), 0.5623 (G ≤ 1/16), 0.5 above
//   pore, Hagen–Poiseuille     1/g_i = (8μ/π) ∫₀^{L_i} dx / (R² − x²)²
//                                    = (8μ/π) (u/(1 − u²) + atanh u) / (2R³), u = L_i/R
//   pore, shape factor         1/g_i = 8 μ L_i / (π R⁴) (a circle of the pore's radius)
//   diffusion (D = 1)          1/g = L_t / A_t + Σ_i atanh(L_i/R_i) / (π R_i), A_t the throat's
//                              measured area (π r_t² without one)
// and 1/g = 1/g_1 + 1/g_t + 1/g_2. A throat of zero radius (shape factor: zero
// area) has g = 0. A throat part of zero length (a zero-length throat) is
// floored at 1e-3 voxels; a conduit whose resistance is still 0 or not finite
// gets g = 0.
//
// Flow and diffusion solve Σ_j g_ij (θ_i − θ_j) = 0 for θ = 1 on the inlet
// face, 0 on the outlet face (pressure = outlet + θ ΔP), over the clusters of
// conducting throats that join both faces, scaled by the mean conductance:
// conjugate gradients preconditioned by a diagonal incomplete Cholesky (Jacobi
// if that fails), from a guess linear along the axis. Eigen's
// IncompleteCholesky was 3–8 times slower on a 10⁶-pore lattice (its
// triangular solves cost as much and its iterations were no fewer).

namespace peclet::pnm {

namespace {

using SparseMatrix = Eigen::SparseMatrix<double>;
using Vector = Eigen::VectorXd;

constexpr double kPi = 3.14159265358979323846;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kMaxPoreFraction = 0.99;  // of a conduit's length, for both pore parts together
constexpr double kMinThroatVoxels = 1e-3;  // floor of a throat part in a conductance
constexpr std::size_t kMaxCount = 2147483647;
constexpr std::size_t kCancelPoll = 4096;  // heap pops between polls of the cancel flag
constexpr int kMaxRestarts = 4;            // conjugate-gradient restarts when the true residual lags

std::string str(double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.17g", v);
  return buffer;
}

const char* axisName(int axis) { return axis == 0 ? "x" : axis == 1 ? "y" : "z"; }

std::string faceName(int face) { return std::string(axisName(face / 2)) + (face % 2 == 0 ? "−" : "+"); }

bool isBoundary(const Network& n, std::size_t pore) { return n.face[pore] >= 0; }

/// Half a diameter, 0 when not finite and positive.
double radiusOf(double diameter) { return std::isfinite(diameter) && diameter > 0 ? 0.5 * diameter : 0.0; }

// ---------------------------------------------------------------------------
// Validation.

void validateAxis(int axis) {
  if (axis < 0 || axis > 2) rangeError("axis", "is " + std::to_string(axis) + "; it must be 0 (x), 1 (y) or 2 (z)");
}

void validateSolve(const SolveOptions& s) {
  if (!std::isfinite(s.tolerance) || s.tolerance <= 0 || s.tolerance >= 1)
    rangeError("tolerance", "is " + str(s.tolerance) + "; a relative residual lies in (0, 1)");
}

enum NetworkNeeds : unsigned {
  kNeedConduits = 1,      // throat radii and lengths
  kNeedShape = 2,         // throat areas and perimeters
  kNeedVolume = 4,        // pore volumes
  kNeedRadii = 8,         // throat radii
  kNeedSizeFactors = 16,  // equivalent diameters, throat radii and total lengths
};

void checkSize(const char* field, std::size_t got, std::size_t want, const char* per) {
  if (got != want)
    rangeError("network", std::string(field) + " has " + std::to_string(got) + " values; the network's " +
                              std::to_string(want) + " " + per + " need as many");
}

void validateNetwork(const Network& n, unsigned needs) {
  const std::size_t pores = n.poreCount();
  if (n.conns.size() % 2 != 0)
    rangeError("network", "conns has " + std::to_string(n.conns.size()) + " values; it holds 2 per throat");
  const std::size_t throats = n.throatCount();
  if (pores > kMaxCount || throats > kMaxCount)
    rangeError("network", "has " + std::to_string(pores) + " pores and " + std::to_string(throats) +
                              " throats; at most 2147483647 of each are supported");
  checkSize("face", n.face.size(), pores, "pores");
  checkSize("inscribedDiameter", n.inscribedDiameter.size(), pores, "pores");
  if (needs & (kNeedConduits | kNeedRadii))
    checkSize("throatInscribedDiameter", n.throatInscribedDiameter.size(), throats, "throats");
  if (needs & kNeedConduits) checkSize("throatLength", n.throatLength.size(), throats, "throats");
  if (needs & kNeedVolume) checkSize("volume", n.volume.size(), pores, "pores");
  if (needs & kNeedSizeFactors) {
    checkSize("equivalentDiameter", n.equivalentDiameter.size(), pores, "pores");
    checkSize("throatInscribedDiameter", n.throatInscribedDiameter.size(), throats, "throats");
    checkSize("throatTotalLength", n.throatTotalLength.size(), throats, "throats");
    checkSize("throatDirectLength", n.throatDirectLength.size(), throats, "throats");
  }
  if (needs & kNeedShape) {
    checkSize("throatArea", n.throatArea.size(), throats, "throats");
    checkSize("throatPerimeter", n.throatPerimeter.size(), throats, "throats");
  }
  for (std::size_t i = 0; i < n.conns.size(); i++) {
    const std::int32_t p = n.conns[i];
    if (p < 0 || std::size_t(p) >= pores)
      rangeError("network", "throat " + std::to_string(i / 2) + " joins pore " + std::to_string(p) + ", outside the " +
                                std::to_string(pores) + " pores");
  }
}

/// The faces of `axis` must hold boundary pores (the inlet, and with
/// `needOutlet` the outlet).
void requireBoundaryPores(const Network& n, int axis, bool needOutlet) {
  bool inlet = false, outlet = false;
  for (std::size_t p = 0; p < n.poreCount(); p++) {
    inlet = inlet || n.face[p] == 2 * axis;
    outlet = outlet || n.face[p] == 2 * axis + 1;
  }
  for (int face : {2 * axis, 2 * axis + 1}) {
    if (face == 2 * axis + 1 && !needOutlet) break;
    if (!(face == 2 * axis ? inlet : outlet))
      rangeError("axis", "the network has no boundary pores on the " + faceName(face) +
                             " face; extract the network with boundary pores");
  }
}

// ---------------------------------------------------------------------------
// Conduits and conductances.

struct Conduit {
  double pore1, throat, pore2;
};

/// The radius of a pore's body in its conduits: its inscribed radius, but no
/// more than the radius of the sphere of its volume. The distance to solid can
/// exceed the region itself where the pore space is open (a nearly empty box,
/// a region at the image's edge); a sphere that wide would carry more than the
/// region's whole section, and a formation factor below 1 came out of it.
double poreRadius(const Network& n, std::size_t pore) {
  const double R = radiusOf(n.inscribedDiameter[pore]);
  const double eq = pore < n.equivalentDiameter.size() ? radiusOf(n.equivalentDiameter[pore]) : 0.0;
  return eq > 0 && eq < R ? eq : R;
}

Conduit conduitOf(const Network& n, std::size_t t) {
  const double raw = n.throatLength[t];
  const double length = std::isfinite(raw) && raw > 0 ? raw : 0.0;
  const double rt = radiusOf(n.throatInscribedDiameter[t]);
  const auto part = [&](std::int32_t pore) {
    if (isBoundary(n, std::size_t(pore))) return 0.0;
    const double R = poreRadius(n, std::size_t(pore));
    return rt < R ? std::sqrt((R - rt) * (R + rt)) : 0.0;
  };
  double l1 = part(n.conns[2 * t]), l2 = part(n.conns[2 * t + 1]);
  const double limit = kMaxPoreFraction * length;
  if (l1 + l2 > limit) {
    const double scale = limit / (l1 + l2);
    l1 *= scale;
    l2 *= scale;
  }
  return {l1, std::max(0.0, length - l1 - l2), l2};
}

/// (8μ/π) ∫₀^L dx / (R² − x²)²: the viscous resistance of a sphere of radius
/// R from its centre out to L (0 for L = 0, Inf for L ≥ R).
double sphereHydraulicResistance(double R, double L, double viscosity) {
  if (!(L > 0)) return 0.0;
  const double u = L / R;
  if (!(u < 1)) return kInf;
  const double R3 = R * R * R;
  return 8.0 * viscosity / kPi * (u / ((1 - u) * (1 + u)) + std::atanh(u)) / (2.0 * R3);
}

/// ∫₀^L dx / (π (R² − x²)): the diffusive resistance (D = 1) of the same part.
double sphereDiffusiveResistance(double R, double L) {
  if (!(L > 0)) return 0.0;
  const double u = L / R;
  if (!(u < 1)) return kInf;
  return std::atanh(u) / (kPi * R);
}

/// Hydraulic conductance coefficient k of a duct of shape factor G.
double shapeCoefficient(double G) {
  if (G <= std::sqrt(3.0) / 36.0) return 0.6;
  if (G <= 1.0 / 16.0) return 0.5623;
  return 0.5;
}

enum class Physics { HagenPoiseuille, ShapeFactor, Diffusion };

/// Conductance of every throat's conduit. `entrance`: each end of the throat
/// that opens into a pore wider than itself adds Sampson's resistance of a
/// circular opening, 3μ/(2r³) per side (Weissberg 1962, Phys. Fluids 5:1033:
/// a tube of length L between two half-spaces has μ(8L/(πr⁴) + 3/r³)), with r
/// the throat's radius (its area's, for the shape-factor model).
std::vector<double> conductances(const Network& n, Physics physics, double viscosity, bool entrance = false) {
  const std::size_t throats = n.throatCount();
  const double minThroat = std::isfinite(n.voxelSize) && n.voxelSize > 0 ? kMinThroatVoxels * n.voxelSize : 0.0;
  std::vector<double> g(throats, 0.0);
  for (std::size_t t = 0; t < throats; t++) {
    const double rt = radiusOf(n.throatInscribedDiameter[t]);
    double area = 0, perimeter = 0;
    if (physics == Physics::ShapeFactor) {
      area = n.throatArea[t];
      perimeter = n.throatPerimeter[t];
      if (!(std::isfinite(area) && area > 0)) continue;
    } else if (!(rt > 0)) {
      continue;
    }
    const Conduit c = conduitOf(n, t);
    const double lt = std::max(c.throat, minThroat);
    const std::size_t pores[2] = {std::size_t(n.conns[2 * t]), std::size_t(n.conns[2 * t + 1])};
    const double parts[2] = {c.pore1, c.pore2};
    double resistance = 0;
    for (int i = 0; i < 2; i++) {
      if (!(parts[i] > 0)) continue;
      const double R = poreRadius(n, pores[i]);
      switch (physics) {
        case Physics::HagenPoiseuille:
          resistance += sphereHydraulicResistance(R, parts[i], viscosity);
          break;
        case Physics::ShapeFactor:
          resistance += 8.0 * viscosity * parts[i] / (kPi * R * R * R * R);
          break;
        case Physics::Diffusion:
          resistance += sphereDiffusiveResistance(R, parts[i]);
          break;
      }
    }
    if (entrance && physics != Physics::Diffusion) {
      const double re = physics == Physics::ShapeFactor ? std::sqrt(area / kPi) : rt;
      for (int i = 0; i < 2; i++)
        if (parts[i] > 0) resistance += 1.5 * viscosity / (re * re * re);
    }
    switch (physics) {
      case Physics::HagenPoiseuille:
        resistance += 8.0 * viscosity * lt / (kPi * rt * rt * rt * rt);
        break;
      case Physics::ShapeFactor: {
        double G = std::isfinite(perimeter) && perimeter > 0 ? area / (perimeter * perimeter) : kInf;
        G = std::min(G, 1.0 / (4.0 * kPi));
        if (!(G > 0)) continue;
        resistance += viscosity * lt / (shapeCoefficient(G) * G * area * area);
        break;
      }
      case Physics::Diffusion: {
        // Fick through the throat's measured section (a cylinder of its radius without one).
        const double a = std::isfinite(n.throatArea[t]) && n.throatArea[t] > 0 ? n.throatArea[t] : kPi * rt * rt;
        resistance += lt / a;
        break;
      }
    }
    const double conductance = 1.0 / resistance;
    if (resistance > 0 && std::isfinite(conductance)) g[t] = conductance;
  }
  return g;
}

// ---------------------------------------------------------------------------
// OpenPNM's size-factor models (openpnm.models.geometry.conduit_lengths,
// hydraulic_size_factors and diffusive_size_factors): per element
// S_hyd = 1/(16π² I ∫dx/A²) with I = 1/(2π) for circles, 1/6 for squares, and
// S_diff = 1/∫dx/A; a pore's part runs from its centre to the throat.

constexpr double kOpenPnmMinLength = 1e-15;  // OpenPNM's floor of a throat part (m)

const char* modelName(ConductanceModel m) {
  switch (m) {
    case ConductanceModel::PyramidsAndCuboids:
      return "pyramids-and-cuboids";
    case ConductanceModel::ConesAndCylinders:
      return "cones-and-cylinders";
    case ConductanceModel::SpheresAndCylinders:
      return "spheres-and-cylinders";
    case ConductanceModel::ShapeFactor:
      return "shape-factor";
    default:
      return "hagen-poiseuille";
  }
}

/// A part's resistance 1/S: 0 for a part of no length (S infinite).
double inverse(double sizeFactor) { return std::isinf(sizeFactor) ? 0.0 : 1.0 / sizeFactor; }

/// Series conductance of three parts of size factors S (g = S · coefficient);
/// 0 when not finite and positive.
double series(const double* S, double coefficient) {
  const double resistance = (inverse(S[0]) + inverse(S[1]) + inverse(S[2])) / coefficient;
  const double g = 1.0 / resistance;
  return resistance > 0 && std::isfinite(g) ? g : 0.0;
}

// ---------------------------------------------------------------------------
// Clusters.

/// Union–find over pores with path halving and union by size.
class DisjointSets {
 public:
  explicit DisjointSets(std::size_t count) : parent_(count), size_(count, 1) {
    for (std::size_t i = 0; i < count; i++) parent_[i] = std::int32_t(i);
  }
  std::int32_t find(std::int32_t i) {
    while (parent_[std::size_t(i)] != i) {
      parent_[std::size_t(i)] = parent_[std::size_t(parent_[std::size_t(i)])];
      i = parent_[std::size_t(i)];
    }
    return i;
  }
  void unite(std::int32_t a, std::int32_t b) {
    a = find(a);
    b = find(b);
    if (a == b) return;
    if (size_[std::size_t(a)] < size_[std::size_t(b)]) std::swap(a, b);
    parent_[std::size_t(b)] = a;
    size_[std::size_t(a)] += size_[std::size_t(b)];
  }

 private:
  std::vector<std::int32_t> parent_;
  std::vector<std::int32_t> size_;
};

// ---------------------------------------------------------------------------
// The linear solve: Σ_j g_ij (θ_i − θ_j) = 0 with θ = 1 on the inlet face and
// 0 on the outlet face. Solving for the normalized potential θ rather than
// the pressure keeps the result independent of the pressure level.

struct Potential {
  std::vector<double> theta;           ///< per pore; NaN when excluded
  std::vector<std::uint8_t> included;  ///< per pore: its cluster joins both faces
  SolveReport report;
};

struct PcgState {
  std::size_t iterations = 0;
  bool cancelled = false;
};

/// Preconditioned conjugate gradients on A x = b from the x given, until
/// ‖r‖ ≤ tolerance ‖b‖ (the recursive residual), `maxIterations` in all
/// (counted in `state`), the cancel flag, or a breakdown.
template <typename Preconditioner>
void conjugateGradient(const SparseMatrix& A, const Vector& b, Vector& x, const Preconditioner& M, double tolerance,
                       std::size_t maxIterations, const std::atomic<bool>* cancel, PcgState& state) {
  const double threshold = tolerance * tolerance * b.squaredNorm();
  Vector r = b - A * x;
  if (r.squaredNorm() <= threshold) return;
  Vector z(b.size());
  M.apply(r, z);
  Vector p = z;
  Vector Ap(b.size());
  double rz = r.dot(z);
  while (state.iterations < maxIterations) {
    if (cancel != nullptr && cancel->load(std::memory_order_relaxed)) {
      state.cancelled = true;
      return;
    }
    Ap.noalias() = A * p;
    const double pAp = p.dot(Ap);
    if (!(pAp > 0) || !std::isfinite(pAp)) return;
    const double alpha = rz / pAp;
    x.noalias() += alpha * p;
    r.noalias() -= alpha * Ap;
    state.iterations++;
    if (r.squaredNorm() <= threshold) return;
    M.apply(r, z);
    const double rzNext = r.dot(z);
    if (!std::isfinite(rzNext) || !(rz != 0)) return;
    p = z + (rzNext / rz) * p;
    rz = rzNext;
  }
}

/// Diagonal incomplete Cholesky: M = (D + L) D⁻¹ (D + Lᵀ) with L the strictly
/// lower part of A and d_i = a_ii − Σ_{k<i} a_ik² / d_k. Its pivots are
/// positive for the diagonally dominant M-matrices assembled here; compute()
/// returns false otherwise. One application costs about one product with A.
class DiagonalIncompleteCholesky {
 public:
  bool compute(const SparseMatrix& A) {
    const Eigen::Index n = A.rows();
    start_.assign(std::size_t(n) + 1, 0);
    index_.clear();
    value_.clear();
    inverse_.resize(n);
    for (Eigen::Index i = 0; i < n; i++) {
      double diagonal = 0, sum = 0;
      for (SparseMatrix::InnerIterator it(A, i); it; ++it) {  // column i = row i (A is symmetric)
        if (it.index() < i) {
          index_.push_back(std::int32_t(it.index()));
          value_.push_back(it.value());
          sum += it.value() * it.value() * inverse_[it.index()];
        } else if (it.index() == i) {
          diagonal = it.value();
        }
      }
      start_[std::size_t(i) + 1] = index_.size();
      const double pivot = diagonal - sum;
      if (!(pivot > 0) || !std::isfinite(pivot)) return false;
      inverse_[i] = 1.0 / pivot;
    }
    return true;
  }

  /// z = M⁻¹ r.
  void apply(const Vector& r, Vector& z) const {
    const std::size_t n = std::size_t(r.size());
    for (std::size_t i = 0; i < n; i++) {  // (D + L) y = r, y in z
      double s = r[Eigen::Index(i)];
      for (std::size_t e = start_[i]; e < start_[i + 1]; e++) s -= value_[e] * z[index_[e]];
      z[Eigen::Index(i)] = s * inverse_[Eigen::Index(i)];
    }
    for (std::size_t i = n; i-- > 0;) {  // (D + Lᵀ) z = D y, by columns of Lᵀ
      const double zi = z[Eigen::Index(i)];
      for (std::size_t e = start_[i]; e < start_[i + 1]; e++) z[index_[e]] -= inverse_[index_[e]] * value_[e] * zi;
    }
  }

 private:
  std::vector<std::size_t> start_;   // rows of L
  std::vector<std::int32_t> index_;  // their columns (< the row)
  std::vector<double> value_;
  Vector inverse_;  // 1 / d_i
};

/// Jacobi: M = diag(A).
class JacobiPreconditioner {
 public:
  bool compute(const SparseMatrix& A) {
    inverse_ = A.diagonal().cwiseInverse();
    return inverse_.allFinite();
  }
  void apply(const Vector& r, Vector& z) const { z = inverse_.cwiseProduct(r); }

 private:
  Vector inverse_;
};

/// Solves with `M`, restarting from the true residual while the recursive one
/// has drifted below the tolerance. Returns the true relative residual.
template <typename Preconditioner>
double solveWith(const SparseMatrix& A, const Vector& b, Vector& x, const Preconditioner& M, double tolerance,
                 std::size_t maxIterations, const std::atomic<bool>* cancel, PcgState& state) {
  const double bNorm = b.norm();
  double residual = (b - A * x).norm() / bNorm;
  for (int attempt = 0; attempt <= kMaxRestarts; attempt++) {
    if (residual <= tolerance || state.cancelled || state.iterations >= maxIterations) break;
    const std::size_t before = state.iterations;
    conjugateGradient(A, b, x, M, tolerance, maxIterations, cancel, state);
    residual = (b - A * x).norm() / bNorm;
    if (!std::isfinite(residual) || (state.iterations == before && !state.cancelled)) break;
  }
  return residual;
}

Potential solvePotential(const Network& n, const std::vector<double>& g, int axis, const SolveOptions& options) {
  const std::size_t pores = n.poreCount(), throats = n.throatCount();
  const int inletFace = 2 * axis, outletFace = 2 * axis + 1;
  requireBoundaryPores(n, axis, true);

  // Clusters over the throats that conduct.
  DisjointSets sets(pores);
  for (std::size_t t = 0; t < throats; t++)
    if (g[t] > 0) sets.unite(n.conns[2 * t], n.conns[2 * t + 1]);
  std::vector<std::uint8_t> reach(pores, 0);  // per root: 1 inlet, 2 outlet
  Potential out;
  for (std::size_t p = 0; p < pores; p++) {
    const std::size_t root = std::size_t(sets.find(std::int32_t(p)));
    if (root == p) out.report.clusters++;
    if (n.face[p] == inletFace) reach[root] |= 1;
    if (n.face[p] == outletFace) reach[root] |= 2;
  }
  out.included.assign(pores, 0);
  out.theta.assign(pores, kNaN);
  std::vector<std::int32_t> index(pores, -1);
  std::size_t unknowns = 0, included = 0;
  for (std::size_t p = 0; p < pores; p++) {
    if (reach[std::size_t(sets.find(std::int32_t(p)))] != 3) continue;
    out.included[p] = 1;
    included++;
    if (n.face[p] == inletFace) {
      out.theta[p] = 1.0;
    } else if (n.face[p] == outletFace) {
      out.theta[p] = 0.0;
    } else {
      index[p] = std::int32_t(unknowns++);
    }
  }
  out.report.excludedPores = pores - included;
  out.report.unknowns = unknowns;
  out.report.tolerance = options.tolerance;
  if (included == 0)
    rangeError("axis", std::string("no path of connected pores joins the ") + faceName(inletFace) + " and " +
                           faceName(outletFace) + " faces");
  if (unknowns == 0) {
    out.report.converged = true;
    return out;
  }

  // Assembly, scaled by the mean conductance.
  double sum = 0;
  std::size_t count = 0, offDiagonal = 0;
  Eigen::VectorXi perColumn = Eigen::VectorXi::Ones(Eigen::Index(unknowns));
  for (std::size_t t = 0; t < throats; t++) {
    const std::size_t a = std::size_t(n.conns[2 * t]), b = std::size_t(n.conns[2 * t + 1]);
    if (!(g[t] > 0) || !out.included[a] || a == b) continue;
    sum += g[t];
    count++;
    if (index[a] >= 0 && index[b] >= 0) {
      perColumn[index[a]]++;
      perColumn[index[b]]++;
      offDiagonal += 2;
    }
  }
  if (unknowns + offDiagonal > kMaxCount)
    rangeError("network", "is too large for the sparse solver (more than 2147483647 matrix entries)");
  const double scale = sum / double(count);
  const auto size = Eigen::Index(unknowns);
  SparseMatrix A(size, size);
  A.reserve(perColumn);
  for (std::size_t k = 0; k < unknowns; k++) A.insert(Eigen::Index(k), Eigen::Index(k)) = 0.0;
  Vector rhs = Vector::Zero(size);
  for (std::size_t t = 0; t < throats; t++) {
    const std::size_t a = std::size_t(n.conns[2 * t]), b = std::size_t(n.conns[2 * t + 1]);
    if (!(g[t] > 0) || !out.included[a] || a == b) continue;
    const double gs = g[t] / scale;
    const std::int32_t ia = index[a], ib = index[b];
    if (ia >= 0) {
      A.coeffRef(ia, ia) += gs;
      if (ib >= 0) {
        A.coeffRef(ia, ib) -= gs;
      } else {
        rhs[ia] += gs * out.theta[b];
      }
    }
    if (ib >= 0) {
      A.coeffRef(ib, ib) += gs;
      if (ia >= 0) {
        A.coeffRef(ib, ia) -= gs;
      } else {
        rhs[ib] += gs * out.theta[a];
      }
    }
  }
  A.makeCompressed();

  // First guess: linear along the axis, from the pores' coordinates.
  Vector x = Vector::Zero(size);
  const double length = n.extent(axis);
  if (n.coordinates.size() == 3 * pores && std::isfinite(length) && length > 0) {
    for (std::size_t p = 0; p < pores; p++) {
      if (index[p] < 0) continue;
      const double guess = 1.0 - n.coordinates[3 * p + std::size_t(axis)] / length;
      x[index[p]] = std::isfinite(guess) ? std::min(1.0, std::max(0.0, guess)) : 0.5;
    }
  }
  const Vector start = x;
  const std::size_t maxIterations = options.maxIterations > 0 ? options.maxIterations : 10 * unknowns + 1000;

  PcgState state;
  double residual = 0;
  if (rhs.squaredNorm() == 0) {
    x.setZero();  // nothing drives the flow in the unknowns: θ = 0 solves it exactly
  } else {
    DiagonalIncompleteCholesky cholesky;
    bool solved = false;
    if (cholesky.compute(A)) {
      residual = solveWith(A, rhs, x, cholesky, options.tolerance, maxIterations, options.cancel, state);
      solved = std::isfinite(residual);
    }
    if (!solved && !state.cancelled) {
      x = start;
      JacobiPreconditioner jacobi;
      jacobi.compute(A);
      residual = solveWith(A, rhs, x, jacobi, options.tolerance, maxIterations, options.cancel, state);
    }
  }
  out.report.iterations = state.iterations;
  out.report.residual = residual;
  out.report.converged = residual <= options.tolerance;
  out.report.cancelled = state.cancelled;
  for (std::size_t p = 0; p < pores; p++)
    if (index[p] >= 0) out.theta[p] = x[index[p]];
  return out;
}

/// Σ g (θ_a − θ_b) over the throats leaving the inlet face's pores.
double inletFlow(const Network& n, const std::vector<double>& g, const Potential& potential, int axis,
                 std::vector<double>* throatFlow, double drop) {
  double total = 0;
  for (std::size_t t = 0; t < n.throatCount(); t++) {
    const std::size_t a = std::size_t(n.conns[2 * t]), b = std::size_t(n.conns[2 * t + 1]);
    double flow = 0;
    if (g[t] > 0 && potential.included[a]) flow = g[t] * drop * (potential.theta[a] - potential.theta[b]);
    if (throatFlow != nullptr) (*throatFlow)[t] = flow;
    if (n.face[a] == 2 * axis) total += flow;
    if (n.face[b] == 2 * axis) total -= flow;
  }
  return total;
}

/// The box's section normal to `axis`.
double section(const Network& n, int axis) { return n.extent((axis + 1) % 3) * n.extent((axis + 2) % 3); }

// ---------------------------------------------------------------------------
// Capillarity.

/// −2σ cos θ, positive for a non-wetting invading phase.
double capillaryFactor(const DrainageOptions& o) {
  if (!std::isfinite(o.contactAngle) || o.contactAngle <= 90 || o.contactAngle > 180)
    rangeError("contactAngle", "is " + str(o.contactAngle) +
                                   "°; the invading phase must be non-wetting (a contact angle in (90, 180])");
  const double cosine = std::cos(o.contactAngle * kPi / 180.0);
  if (!(cosine < 0))
    rangeError("contactAngle", "is " + str(o.contactAngle) + "°; the invading phase must be non-wetting");
  if (!std::isfinite(o.surfaceTension) || o.surfaceTension <= 0)
    rangeError("surfaceTension", "is " + str(o.surfaceTension) + "; it must be finite and positive (N/m)");
  return -2.0 * o.surfaceTension * cosine;
}

void validatePressures(const std::vector<double>& pressures) {
  for (std::size_t i = 0; i < pressures.size(); i++) {
    const double p = pressures[i];
    if (!std::isfinite(p) || p <= 0)
      rangeError("pressures", "pressure " + std::to_string(i) + " is " + str(p) + "; pressures must be finite and > 0");
    if (i > 0 && !(p > pressures[i - 1]))
      rangeError("pressures", "pressure " + std::to_string(i) + " (" + str(p) + ") does not exceed the one before (" +
                                  str(pressures[i - 1]) + "); pressures must be strictly ascending");
  }
}

/// Washburn entry pressure of an inscribed radius; Inf for no opening.
double washburn(double factor, double radius) { return radius > 0 ? factor / radius : kInf; }

/// Entry pressures: throats by their inscribed radius, interior pores by
/// theirs, boundary pores 0 (no volume and no capillary barrier of their own).
void entryPressures(const Network& n, double factor, std::vector<double>& pore, std::vector<double>& throat) {
  pore.resize(n.poreCount());
  throat.resize(n.throatCount());
  for (std::size_t p = 0; p < pore.size(); p++)
    pore[p] = isBoundary(n, p) ? 0.0 : washburn(factor, radiusOf(n.inscribedDiameter[p]));
  for (std::size_t t = 0; t < throat.size(); t++) throat[t] = washburn(factor, radiusOf(n.throatInscribedDiameter[t]));
}

/// Pore → throats, compressed.
struct Adjacency {
  std::vector<std::size_t> start;     ///< N + 1
  std::vector<std::int32_t> throats;  ///< 2M
};

Adjacency adjacencyOf(const Network& n) {
  Adjacency adj;
  adj.start.assign(n.poreCount() + 1, 0);
  for (std::int32_t p : n.conns) adj.start[std::size_t(p) + 1]++;
  for (std::size_t p = 0; p < n.poreCount(); p++) adj.start[p + 1] += adj.start[p];
  adj.throats.resize(n.conns.size());
  std::vector<std::size_t> next(adj.start.begin(), adj.start.end() - 1);
  for (std::size_t i = 0; i < n.conns.size(); i++) adj.throats[next[std::size_t(n.conns[i])]++] = std::int32_t(i / 2);
  return adj;
}

/// Volume counted in saturations: interior pores' finite positive volumes.
double saturationVolume(const Network& n, std::size_t pore) {
  if (isBoundary(n, pore)) return 0.0;
  const double v = n.volume[pore];
  return std::isfinite(v) && v > 0 ? v : 0.0;
}

using HeapEntry = std::pair<double, std::int64_t>;
using MinHeap = std::priority_queue<HeapEntry, std::vector<HeapEntry>, std::greater<HeapEntry>>;

bool cancelled(const std::atomic<bool>* cancel) { return cancel != nullptr && cancel->load(std::memory_order_relaxed); }

}  // namespace

// ---------------------------------------------------------------------------

SizeFactors sizeFactors(const Network& network, ConductanceModel model, Spacing spacing) {
  if (!isSizeFactorModel(model))
    rangeError("conductance", std::string("'") + modelName(model) + "' is not one of OpenPNM's size-factor models");
  validateNetwork(network, kNeedSizeFactors);
  const std::size_t throats = network.throatCount();
  SizeFactors out;
  out.lengths.resize(3 * throats);
  out.hydraulic.resize(3 * throats);
  out.diffusive.resize(3 * throats);
  std::size_t wider = 0, overlapping = 0;
  for (std::size_t t = 0; t < throats; t++) {
    const double D1 = network.equivalentDiameter[std::size_t(network.conns[2 * t])];
    const double D2 = network.equivalentDiameter[std::size_t(network.conns[2 * t + 1])];
    const double Dt = network.throatInscribedDiameter[t];
    const double L = spacing == Spacing::DirectLength ? network.throatDirectLength[t] : network.throatTotalLength[t];
    double* l = &out.lengths[3 * t];
    double* h = &out.hydraulic[3 * t];
    double* d = &out.diffusive[3 * t];
    if (!(D1 > 0 && D2 > 0 && Dt > 0 && L > 0) || !std::isfinite(D1 + D2 + Dt + L)) {
      // No opening or no conduit: nothing flows (OpenPNM would compute NaN).
      l[0] = l[2] = 0;
      l[1] = std::max(L, 0.0);
      h[0] = h[1] = h[2] = d[0] = d[1] = d[2] = 0;
      continue;
    }
    double L1, L2, Lt;
    if (model == ConductanceModel::SpheresAndCylinders) {
      if (Dt > D1 || Dt > D2) {
        wider++;
        continue;
      }
      L1 = 0.5 * std::sqrt((D1 - Dt) * (D1 + Dt));
      L2 = 0.5 * std::sqrt((D2 - Dt) * (D2 + Dt));
      Lt = L - L1 - L2;
      if (Lt < 0) {
        const double R1 = 0.5 * D1, R2 = 0.5 * D2;
        const double m = L * L - R2 * R2 + R1 * R1;
        const double L1i = m / (2 * L);
        const double Di = std::sqrt(4 * L * L * R1 * R1 - m * m) / L;
        if (L1i < 0 || L1i > L || !(Di > Dt)) {
          overlapping++;
          continue;
        }
        L1 = L1i;
        L2 = L - L1;
        Lt = kOpenPnmMinLength;
      }
    } else {
      L1 = 0.5 * D1;
      L2 = 0.5 * D2;
      if (L - 0.5 * (D1 + D2) < 0) {
        L1 = (4 * L * L + D1 * D1 - D2 * D2) / (8 * L);
        L2 = L - L1;
      }
      Lt = std::max(L - L1 - L2, kOpenPnmMinLength);
    }
    l[0] = L1;
    l[1] = Lt;
    l[2] = L2;
    const double D[2] = {D1, D2}, Lp[2] = {L1, L2};
    for (int i = 0; i < 2; i++) {
      const double Dp = D[i], Li = Lp[i];
      double& hs = h[2 * i];
      double& ds = d[2 * i];
      if (!(Li > 0)) {
        hs = ds = kInf;
        continue;
      }
      switch (model) {
        case ConductanceModel::PyramidsAndCuboids: {
          const double q = Dp * Dp + Dp * Dt + Dt * Dt;
          hs = 9 * Dp * Dp * Dp * Dt * Dt * Dt / (8 * kPi * kPi * Li * q);
          ds = Dp * Dt / Li;
          break;
        }
        case ConductanceModel::ConesAndCylinders: {
          const double q = Dp * Dp + Dp * Dt + Dt * Dt;
          hs = 3 * kPi * Dp * Dp * Dp * Dt * Dt * Dt / (128 * Li * q);
          ds = kPi * Dp * Dt / (4 * Li);
          break;
        }
        default: {  // spheres: ∫ over the sphere's section from the centre out to Li
          const double u = 2 * Li / Dp;
          const double F =
              4 / (kPi * kPi * Dp * Dp * Dp) * (2 * Dp * Li / ((Dp - 2 * Li) * (Dp + 2 * Li)) + std::atanh(u));
          hs = u < 1 ? 1 / (8 * kPi * F) : 0.0;
          ds = u < 1 ? kPi * Dp / (2 * std::atanh(u)) : 0.0;
          break;
        }
      }
    }
    if (model == ConductanceModel::PyramidsAndCuboids) {
      h[1] = 3 * Dt * Dt * Dt * Dt / (8 * kPi * kPi * Lt);
      d[1] = Dt * Dt / Lt;
    } else {
      h[1] = kPi * Dt * Dt * Dt * Dt / (128 * Lt);
      d[1] = kPi * Dt * Dt / (4 * Lt);
    }
  }
  if (wider > 0)
    rangeError("conductance", "'spheres-and-cylinders' needs every throat narrower than its pores, and " +
                                  std::to_string(wider) + " of " + std::to_string(throats) +
                                  " throats are wider than one of theirs (OpenPNM refuses these too); "
                                  "'pyramids-and-cuboids' or 'cones-and-cylinders' take them");
  if (overlapping > 0)
    rangeError("conductance", "'spheres-and-cylinders': the pores of " + std::to_string(overlapping) +
                                  " throats overlap too far for the model (OpenPNM refuses these too)");
  return out;
}

double sizeFactorLength(const Network& network, int axis) {
  return network.extent(axis) + kBoundaryWidth * network.voxelSize;
}

std::vector<double> conduitLengths(const Network& network) {
  validateNetwork(network, kNeedConduits);
  std::vector<double> out(3 * network.throatCount());
  for (std::size_t t = 0; t < network.throatCount(); t++) {
    const Conduit c = conduitOf(network, t);
    out[3 * t] = c.pore1;
    out[3 * t + 1] = c.throat;
    out[3 * t + 2] = c.pore2;
  }
  return out;
}

StokesResult stokesFlow(const Network& network, const StokesOptions& options) {
  validateAxis(options.axis);
  if (!std::isfinite(options.viscosity) || options.viscosity <= 0)
    rangeError("viscosity", "is " + str(options.viscosity) + "; it must be finite and positive (Pa·s)");
  if (!std::isfinite(options.inletPressure))
    rangeError("inletPressure", "is " + str(options.inletPressure) + "; it must be finite");
  if (!std::isfinite(options.outletPressure))
    rangeError("outletPressure", "is " + str(options.outletPressure) + "; it must be finite");
  const double drop = options.inletPressure - options.outletPressure;
  if (!(drop != 0) || !std::isfinite(drop))
    rangeError("inletPressure", "equals outletPressure (" + str(options.outletPressure) + "); nothing drives the flow");
  validateSolve(options.solve);
  const bool shape = options.model == ConductanceModel::ShapeFactor;
  const bool sized = isSizeFactorModel(options.model);
  validateNetwork(network, sized ? unsigned(kNeedSizeFactors) : kNeedConduits | (shape ? kNeedShape : 0u));

  StokesResult result;
  if (sized) {
    const SizeFactors factors = sizeFactors(network, options.model, options.spacing);
    result.conductance.resize(network.throatCount());
    for (std::size_t t = 0; t < network.throatCount(); t++)
      result.conductance[t] = series(&factors.hydraulic[3 * t], 1.0 / options.viscosity);
  } else {
    result.conductance = conductances(network, shape ? Physics::ShapeFactor : Physics::HagenPoiseuille,
                                      options.viscosity, options.entrance);
  }
  const Potential potential = solvePotential(network, result.conductance, options.axis, options.solve);
  result.solve = potential.report;
  const std::size_t pores = network.poreCount();
  result.pressure.resize(pores);
  for (std::size_t p = 0; p < pores; p++) {
    const int face = network.face[p];
    if (!potential.included[p]) {
      result.pressure[p] = kNaN;
    } else if (face == 2 * options.axis) {
      result.pressure[p] = options.inletPressure;
    } else if (face == 2 * options.axis + 1) {
      result.pressure[p] = options.outletPressure;
    } else {
      result.pressure[p] = options.outletPressure + potential.theta[p] * drop;
    }
  }
  result.throatFlow.resize(network.throatCount());
  result.flowRate = inletFlow(network, result.conductance, potential, options.axis, &result.throatFlow, drop);
  const double length = sized ? sizeFactorLength(network, options.axis) : network.extent(options.axis);
  const double area = section(network, options.axis);
  result.permeability = length > 0 && area > 0 ? result.flowRate * options.viscosity * length / (area * drop) : kNaN;
  return result;
}

DiffusionResult diffusion(const Network& network, const DiffusionOptions& options) {
  validateAxis(options.axis);
  validateSolve(options.solve);
  const bool sized = isSizeFactorModel(options.model);
  validateNetwork(network, sized ? unsigned(kNeedSizeFactors) : unsigned(kNeedConduits));
  std::vector<double> g;
  if (sized) {
    const SizeFactors factors = sizeFactors(network, options.model, options.spacing);
    g.resize(network.throatCount());
    for (std::size_t t = 0; t < network.throatCount(); t++) g[t] = series(&factors.diffusive[3 * t], 1.0);
  } else {
    g = conductances(network, Physics::Diffusion, 1.0);
  }
  Potential potential = solvePotential(network, g, options.axis, options.solve);
  DiffusionResult result;
  result.solve = potential.report;
  const double flow = inletFlow(network, g, potential, options.axis, nullptr, 1.0);
  result.concentration = std::move(potential.theta);
  const double length = sized ? sizeFactorLength(network, options.axis) : network.extent(options.axis);
  const double area = section(network, options.axis);
  result.effectiveDiffusivity = length > 0 && area > 0 ? flow * length / area : kNaN;
  result.formationFactor = result.effectiveDiffusivity > 0 ? 1.0 / result.effectiveDiffusivity : kInf;
  result.tortuosity = result.formationFactor * network.porosity;
  return result;
}

DrainageResult drainage(const Network& network, const DrainageOptions& options) {
  validateAxis(options.axis);
  const double factor = capillaryFactor(options);
  validatePressures(options.pressures);
  validateNetwork(network, kNeedRadii | kNeedVolume);
  requireBoundaryPores(network, options.axis, false);

  const std::size_t pores = network.poreCount(), throats = network.throatCount();
  DrainageResult result;
  entryPressures(network, factor, result.poreEntry, result.throatEntry);
  if (options.pressures.empty()) {
    for (std::size_t p = 0; p < pores; p++)
      if (network.face[p] != 2 * options.axis && std::isfinite(result.poreEntry[p]) && result.poreEntry[p] > 0)
        result.pressure.push_back(result.poreEntry[p]);
    for (double e : result.throatEntry)
      if (std::isfinite(e) && e > 0) result.pressure.push_back(e);
    std::sort(result.pressure.begin(), result.pressure.end());
    result.pressure.erase(std::unique(result.pressure.begin(), result.pressure.end()), result.pressure.end());
  } else {
    result.pressure = options.pressures;
  }
  result.poreInvaded.assign(pores, kInf);
  result.throatInvaded.assign(throats, kInf);
  const Adjacency adj = adjacencyOf(network);
  double total = 0;
  for (std::size_t p = 0; p < pores; p++) total += saturationVolume(network, p);

  // Elements: pores 0..N−1, throats N..N+M−1. The heap holds the elements
  // next to filled ones, by entry pressure; a filled element is skipped.
  std::vector<std::uint8_t> poreFilled(pores, 0), throatFilled(throats, 0);
  MinHeap heap;
  const auto pushThroats = [&](std::size_t p) {
    for (std::size_t i = adj.start[p]; i < adj.start[p + 1]; i++) {
      const std::size_t t = std::size_t(adj.throats[i]);
      if (!throatFilled[t]) heap.push({result.throatEntry[t], std::int64_t(pores + t)});
    }
  };
  const double first = result.pressure.empty() ? kInf : result.pressure.front();
  for (std::size_t p = 0; p < pores; p++) {
    if (network.face[p] != 2 * options.axis) continue;
    poreFilled[p] = 1;
    result.poreInvaded[p] = first;
  }
  for (std::size_t p = 0; p < pores; p++)
    if (poreFilled[p]) pushThroats(p);

  double filled = 0;
  std::size_t pops = 0;
  bool stop = cancelled(options.cancel);
  result.saturation.reserve(result.pressure.size());
  for (std::size_t step = 0; step < result.pressure.size() && !stop; step++) {
    const double pressure = result.pressure[step];
    while (!heap.empty() && heap.top().first <= pressure) {
      if (pops++ % kCancelPoll == 0 && cancelled(options.cancel)) {
        stop = true;
        break;
      }
      const std::int64_t element = heap.top().second;
      heap.pop();
      if (std::size_t(element) < pores) {
        const std::size_t p = std::size_t(element);
        if (poreFilled[p]) continue;
        poreFilled[p] = 1;
        result.poreInvaded[p] = pressure;
        filled += saturationVolume(network, p);
        pushThroats(p);
      } else {
        const std::size_t t = std::size_t(element) - pores;
        if (throatFilled[t]) continue;
        throatFilled[t] = 1;
        result.throatInvaded[t] = pressure;
        for (int end = 0; end < 2; end++) {
          const std::size_t p = std::size_t(network.conns[2 * t + std::size_t(end)]);
          if (!poreFilled[p]) heap.push({result.poreEntry[p], std::int64_t(p)});
        }
      }
    }
    if (stop) break;
    result.saturation.push_back(total > 0 ? filled / total : 0.0);
    stop = cancelled(options.cancel);
  }
  result.cancelled = stop;
  result.pressure.resize(result.saturation.size());
  return result;
}

InvasionResult invasionPercolation(const Network& network, const DrainageOptions& options) {
  validateAxis(options.axis);
  const double factor = capillaryFactor(options);
  validateNetwork(network, kNeedRadii | kNeedVolume);
  requireBoundaryPores(network, options.axis, false);

  const std::size_t pores = network.poreCount(), throats = network.throatCount();
  std::vector<double> poreEntry, throatEntry;
  entryPressures(network, factor, poreEntry, throatEntry);
  const Adjacency adj = adjacencyOf(network);
  double total = 0;
  for (std::size_t p = 0; p < pores; p++) total += saturationVolume(network, p);

  InvasionResult result;
  result.poreSequence.assign(pores, -1);
  result.throatSequence.assign(throats, -1);
  // The key of a throat: its entry, and the entry of the pore behind it while
  // that pore is empty (a throat is pushed again, with its own entry, when
  // both its pores have filled; the older entry is then stale).
  const auto key = [&](std::size_t t) {
    const std::size_t a = std::size_t(network.conns[2 * t]), b = std::size_t(network.conns[2 * t + 1]);
    double k = throatEntry[t];
    if (result.poreSequence[a] < 0) k = std::max(k, poreEntry[a]);
    if (result.poreSequence[b] < 0) k = std::max(k, poreEntry[b]);
    return k;
  };
  MinHeap heap;
  const auto pushThroats = [&](std::size_t p) {
    for (std::size_t i = adj.start[p]; i < adj.start[p + 1]; i++) {
      const std::size_t t = std::size_t(adj.throats[i]);
      if (result.throatSequence[t] < 0) heap.push({key(t), std::int64_t(t)});
    }
  };
  // Step 0: the inlet face's boundary pores.
  for (std::size_t p = 0; p < pores; p++)
    if (network.face[p] == 2 * options.axis) result.poreSequence[p] = 0;
  for (std::size_t p = 0; p < pores; p++)
    if (result.poreSequence[p] == 0) pushThroats(p);
  result.pressure.push_back(0.0);
  result.saturation.push_back(0.0);

  double filled = 0;
  std::size_t pops = 0;
  while (!heap.empty()) {
    if (pops++ % kCancelPoll == 0 && cancelled(options.cancel)) {
      result.cancelled = true;
      break;
    }
    const auto [pressure, element] = heap.top();
    heap.pop();
    const std::size_t t = std::size_t(element);
    if (result.throatSequence[t] >= 0 || pressure > key(t)) continue;  // filled, or a stale key
    if (!std::isfinite(pressure)) break;                               // the rest can never fill
    const std::int32_t step = std::int32_t(result.pressure.size());
    result.throatSequence[t] = step;
    for (int end = 0; end < 2; end++) {
      const std::size_t p = std::size_t(network.conns[2 * t + std::size_t(end)]);
      if (result.poreSequence[p] >= 0) continue;
      result.poreSequence[p] = step;
      filled += saturationVolume(network, p);
      pushThroats(p);
    }
    result.pressure.push_back(pressure);
    result.saturation.push_back(total > 0 ? filled / total : 0.0);
  }
  return result;
}

}  // namespace peclet::pnm
