// Transport on hand-built pore networks, each against an analytic answer:
// Hagen–Poiseuille tubes, conduits in series, Washburn steps of a tube
// bundle, access limitation, cluster exclusion, invasion order, and mass
// conservation on a random lattice.
#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <peclet/testing.hpp>
#include <random>
#include <string>
#include <vector>

#include "errors.hpp"
#include "network.hpp"
#include "transport.hpp"

namespace {

using namespace peclet::pnm;

constexpr double kPi = 3.14159265358979323846;

/// Builds a network pore by pore and throat by throat; throats are circular.
struct Builder {
  Network net;

  Builder(std::array<std::size_t, 3> shape, double voxelSize, double porosity = 0.25) {
    net.shape = shape;
    net.voxelSize = voxelSize;
    net.porosity = porosity;
  }

  std::int32_t pore(double x, double y, double z, double radius, double volume, int face = kInterior) {
    net.coordinates.insert(net.coordinates.end(), {x, y, z});
    net.volume.push_back(volume);
    net.inscribedDiameter.push_back(2 * radius);
    net.equivalentDiameter.push_back(2 * radius);
    net.surfaceArea.push_back(4 * kPi * radius * radius);
    net.label.push_back(std::int32_t(net.volume.size()));
    net.face.push_back(std::int8_t(face));
    return std::int32_t(net.volume.size() - 1);
  }

  std::size_t throat(std::int32_t a, std::int32_t b, double radius, double length) {
    net.conns.push_back(std::min(a, b));
    net.conns.push_back(std::max(a, b));
    net.throatInscribedDiameter.push_back(2 * radius);
    net.throatArea.push_back(kPi * radius * radius);
    net.throatPerimeter.push_back(2 * kPi * radius);
    net.throatLength.push_back(length);
    return net.throatLength.size() - 1;
  }
};

/// A straight tube of radius r along x through `cells` interior pores of the
/// same radius, capped by boundary pores on x− and x+, in a box of
/// cells × 4 × 4 voxels of size h, at height y = z = `offset`.
void addTube(Builder& b, int cells, double h, double r, double offset) {
  std::int32_t previous = b.pore(0, offset, offset, r, 0, 0);
  for (int i = 0; i < cells; i++) {
    const std::int32_t p = b.pore((i + 0.5) * h, offset, offset, r, kPi * r * r * h);
    b.throat(previous, p, r, i == 0 ? 0.5 * h : h);
    previous = p;
  }
  const std::int32_t outlet = b.pore(cells * h, offset, offset, r, 0, 1);
  b.throat(previous, outlet, r, 0.5 * h);
}

/// The argument named by the Range PnmError that `f` throws ("" if none).
std::string rangeArgument(const std::function<void()>& f) {
  try {
    f();
  } catch (const PnmError& error) {
    return error.kind() == ErrorKind::Range ? error.argument() : "(not a range error)";
  }
  return "";
}

/// Composite Simpson's rule of f over [0, b] in `n` (even) intervals.
double simpson(const std::function<double(double)>& f, double b, int n = 20000) {
  if (b <= 0) return 0;
  const double step = b / n;
  double sum = f(0) + f(b);
  for (int i = 1; i < n; i++) sum += (i % 2 == 1 ? 4 : 2) * f(i * step);
  return sum * step / 3;
}

double washburn(double sigma, double theta, double r) { return -2 * sigma * std::cos(theta * kPi / 180) / r; }

/// A random lattice of n³ interior pores with boundary pores on x−, x+ and
/// y− (the last are no-flux for flow along x); about 3 % of throats closed.
Network randomLattice(int n, unsigned seed) {
  const double h = 1e-5;
  Builder b({std::size_t(n), std::size_t(n), std::size_t(n)}, h, 0.3);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::vector<double> radius;
  const auto at = [n](int i, int j, int k) { return std::int32_t((i * n + j) * n + k); };
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++) {
        const double R = (0.25 + 0.2 * uniform(rng)) * h;
        radius.push_back(R);
        b.pore((i + 0.5) * h, (j + 0.5) * h, (k + 0.5) * h, R, 4.0 / 3.0 * kPi * R * R * R);
      }
  const auto throatRadius = [&](std::int32_t p, std::int32_t q) {
    const double r = (0.1 + 0.85 * uniform(rng)) * std::min(radius[std::size_t(p)], radius[std::size_t(q)]);
    return uniform(rng) < 0.03 ? 0.0 : r;
  };
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++) {
        const std::int32_t p = at(i, j, k);
        if (i + 1 < n) b.throat(p, at(i + 1, j, k), throatRadius(p, at(i + 1, j, k)), h);
        if (j + 1 < n) b.throat(p, at(i, j + 1, k), throatRadius(p, at(i, j + 1, k)), h);
        if (k + 1 < n) b.throat(p, at(i, j, k + 1), throatRadius(p, at(i, j, k + 1)), h);
      }
  for (int j = 0; j < n; j++)
    for (int k = 0; k < n; k++) {
      const std::int32_t first = at(0, j, k), last = at(n - 1, j, k), side = at(j, 0, k);
      const double y = (j + 0.5) * h, z = (k + 0.5) * h;
      b.throat(b.pore(0, y, z, radius[std::size_t(first)], 0, 0), first, throatRadius(first, first), 0.5 * h);
      b.throat(b.pore(n * h, y, z, radius[std::size_t(last)], 0, 1), last, throatRadius(last, last), 0.5 * h);
      b.throat(b.pore(y, 0, z, radius[std::size_t(side)], 0, 2), side, throatRadius(side, side), 0.5 * h);
    }
  return b.net;
}

}  // namespace

TEST(conduit_lengths_follow_spheres_and_cylinders) {
  Builder b({4, 1, 1}, 1.0);
  const std::int32_t inlet = b.pore(0, 0, 0, 2, 0, 0);
  const std::int32_t p1 = b.pore(1, 0, 0, 2, 1);
  const std::int32_t p2 = b.pore(11, 0, 0, 3, 1);
  const std::int32_t p3 = b.pore(12, 0, 0, 0.5, 1);
  b.throat(inlet, p1, 1, 1);  // boundary part 0, pore part √3 > 0.99: clipped
  b.throat(p1, p2, 1, 10);    // √3 and √8
  b.throat(p2, p3, 1, 1);     // p3 is narrower than the throat: 0; p2 √8 clipped to 0.99
  const std::vector<double> l = conduitLengths(b.net);
  CHECK(l.size() == 9);
  CHECK_NEAR(l[0], 0, 0);
  CHECK_NEAR(l[2], 0.99, 1e-15);
  CHECK_NEAR(l[1], 0.01, 1e-15);
  CHECK_NEAR(l[3], std::sqrt(3.0), 1e-15);
  CHECK_NEAR(l[5], std::sqrt(8.0), 1e-15);
  CHECK_NEAR(l[4], 10 - std::sqrt(3.0) - std::sqrt(8.0), 1e-14);
  CHECK_NEAR(l[6], 0.99, 1e-15);
  CHECK_NEAR(l[8], 0, 0);
  for (int t = 0; t < 3; t++) CHECK_NEAR(l[3 * t] + l[3 * t + 1] + l[3 * t + 2], b.net.throatLength[t], 1e-14);
}

TEST(single_tube_matches_hagen_poiseuille) {
  const double h = 1e-6, r = 0.8e-6;
  const int cells = 10;
  Builder b({std::size_t(cells), 4, 4}, h, 0.2);
  addTube(b, cells, h, r, 2 * h);
  const double length = cells * h, area = 16 * h * h;

  StokesOptions o;
  const StokesResult flow = stokesFlow(b.net, o);
  const double drop = o.inletPressure - o.outletPressure;
  const double expected = kPi * std::pow(r, 4) * drop / (8 * o.viscosity * length);
  REPORT("Q = %.17g, Hagen-Poiseuille %.17g, %zu iterations", flow.flowRate, expected, flow.solve.iterations);
  CHECK(flow.solve.converged && !flow.solve.cancelled);
  CHECK(flow.solve.unknowns == std::size_t(cells) && flow.solve.excludedPores == 0 && flow.solve.clusters == 1);
  CHECK_NEAR(flow.flowRate, expected, 1e-9 * expected);
  CHECK_NEAR(flow.permeability, expected * o.viscosity * length / (area * drop), 1e-9 * kPi * std::pow(r, 4) / area);
  for (std::size_t t = 0; t < flow.throatFlow.size(); t++) CHECK_NEAR(flow.throatFlow[t], expected, 1e-9 * expected);
  for (int i = 0; i < cells; i++)  // linear pressure profile
    CHECK_NEAR(flow.pressure[std::size_t(i + 1)], o.outletPressure + drop * (1 - (i + 0.5) / cells), 1e-9);
  CHECK(flow.pressure[0] == o.inletPressure && flow.pressure[std::size_t(cells + 1)] == o.outletPressure);

  o.model = ConductanceModel::ShapeFactor;  // a circle: k G A²/μ = π r⁴/(8μ)
  CHECK_NEAR(stokesFlow(b.net, o).flowRate, expected, 1e-9 * expected);

  const DiffusionResult d = diffusion(b.net, {});
  const double formation = area / (kPi * r * r);
  CHECK(d.solve.converged);
  CHECK_NEAR(d.formationFactor, formation, 1e-9 * formation);
  CHECK_NEAR(d.effectiveDiffusivity, 1 / formation, 1e-9 / formation);
  CHECK_NEAR(d.tortuosity, formation * 0.2, 1e-9 * formation);
  CHECK_NEAR(d.concentration[1], 1 - 0.5 / cells, 1e-9);
}

TEST(series_conduits_add_resistances) {
  const double um = 1e-6, mu = 1e-3;
  Builder b({4, 2, 2}, 10 * um);
  const std::int32_t inlet = b.pore(0, 0, 0, 3 * um, 0, 0);
  const std::int32_t p1 = b.pore(10 * um, 0, 0, 5 * um, 1e-15);
  const std::int32_t p2 = b.pore(30 * um, 0, 0, 4 * um, 1e-15);
  const std::int32_t outlet = b.pore(40 * um, 0, 0, 2 * um, 0, 1);
  b.throat(inlet, p1, 3 * um, 10 * um);
  b.throat(p1, p2, 2 * um, 20 * um);
  b.throat(p2, outlet, 2.5 * um, 10 * um);
  // Throat 1 becomes a prism of shape factor 0.055 (k = 0.5623) for the shape-factor model.
  const double prismArea = 0.9 * kPi * 4 * um * um, prismG = 0.055;
  b.net.throatArea[1] = prismArea;
  b.net.throatPerimeter[1] = std::sqrt(prismArea / prismG);

  struct Part {
    double R, L;
  };
  const double R1 = 5 * um, R2 = 4 * um;
  const double throatRadius[3] = {3 * um, 2 * um, 2.5 * um};
  const Part pores[3][2] = {{{0, 0}, {R1, std::sqrt(25.0 - 9.0) * um}},
                            {{R1, std::sqrt(25.0 - 4.0) * um}, {R2, std::sqrt(16.0 - 4.0) * um}},
                            {{R2, std::sqrt(16.0 - 6.25) * um}, {0, 0}}};
  const double lengths[3] = {10 * um, 20 * um, 10 * um};
  double hydraulic = 0, shape = 0, diffusive = 0;
  for (int t = 0; t < 3; t++) {
    const double lt = lengths[t] - pores[t][0].L - pores[t][1].L, r = throatRadius[t];
    hydraulic += 8 * mu * lt / (kPi * std::pow(r, 4));
    diffusive += lt / (t == 1 ? prismArea : kPi * r * r);  // Fick through the measured section
    if (t == 1) {
      shape += mu * lt / (0.5623 * prismG * prismArea * prismArea);
    } else {
      shape += 8 * mu * lt / (kPi * std::pow(r, 4));
    }
    for (const Part& part : pores[t]) {
      const double R = part.R;
      hydraulic += simpson([&](double x) { return 8 * mu / kPi / std::pow(R * R - x * x, 2); }, part.L);
      diffusive += simpson([&](double x) { return 1 / (kPi * (R * R - x * x)); }, part.L);
      if (part.L > 0) shape += 8 * mu * part.L / (kPi * std::pow(R, 4));
    }
  }
  const std::vector<double> l = conduitLengths(b.net);
  CHECK_NEAR(l[3], pores[1][0].L, 1e-20);
  CHECK_NEAR(l[5], pores[1][1].L, 1e-20);

  StokesOptions o;
  o.viscosity = mu;
  o.entrance = false;
  const StokesResult flow = stokesFlow(b.net, o);
  REPORT("series: Q = %.17g, expected %.17g", flow.flowRate, 1 / hydraulic);
  CHECK_NEAR(flow.flowRate, 1 / hydraulic, 1e-9 / hydraulic);
  o.model = ConductanceModel::ShapeFactor;
  CHECK_NEAR(stokesFlow(b.net, o).flowRate, 1 / shape, 1e-9 / shape);
  // Sampson's entrance term: 3μ/(2r³) at every throat end that opens into a wider pore.
  double sampson = 0;
  for (int t = 0; t < 3; t++)
    for (const Part& part : pores[t])
      if (part.L > 0) sampson += 1.5 * mu / std::pow(throatRadius[t], 3);
  o.model = ConductanceModel::HagenPoiseuille;
  o.entrance = true;
  CHECK(sampson > 0);
  CHECK_NEAR(stokesFlow(b.net, o).flowRate, 1 / (hydraulic + sampson), 1e-9 / hydraulic);

  const DiffusionResult d = diffusion(b.net, {});
  const double area = 4 * 10 * um * 10 * um, length = 40 * um;
  const double formation = area * diffusive / length;
  CHECK_NEAR(d.formationFactor, formation, 1e-9 * formation);
}

TEST(drainage_tube_bundle_reproduces_washburn_steps) {
  const double h = 1e-6;
  const double radii[4] = {0.5e-6, 1e-6, 1.5e-6, 2e-6};
  Builder b({5, 20, 4}, h);
  for (int i = 0; i < 4; i++) addTube(b, 5, h, radii[i], (5 * i + 2.5) * h);
  DrainageOptions o;  // θ = 140°, σ = 0.48
  double total = 0;
  for (double r : radii) total += r * r;
  const auto fraction = [&](double rMin) {  // volume fraction of the tubes of radius ≥ rMin
    double sum = 0;
    for (double r : radii) sum += r >= rMin ? r * r : 0;
    return sum / total;
  };
  for (int i = 3; i >= 0; i--) {
    const double pc = washburn(o.surfaceTension, o.contactAngle, radii[i]);
    o.pressures.push_back(pc * (1 - 1e-9));
    o.pressures.push_back(pc * (1 + 1e-9));
  }
  const DrainageResult d = drainage(b.net, o);
  CHECK(d.pressure == o.pressures && d.saturation.size() == 8 && !d.cancelled);
  for (int s = 0; s < 4; s++) {
    const double r = radii[3 - s];
    CHECK_NEAR(d.saturation[std::size_t(2 * s)], s == 0 ? 0.0 : fraction(radii[4 - s]), 1e-14);
    CHECK_NEAR(d.saturation[std::size_t(2 * s + 1)], fraction(r), 1e-14);
  }
  // Tube i's pores (7 per tube: inlet, 5 interior, outlet) fill at the step above its entry.
  for (int i = 0; i < 4; i++) {
    const double filledAt = o.pressures[std::size_t(2 * (3 - i) + 1)];
    CHECK(d.poreInvaded[std::size_t(7 * i)] == o.pressures[0]);  // inlet boundary pore
    for (int k = 1; k < 7; k++) CHECK(d.poreInvaded[std::size_t(7 * i + k)] == filledAt);
    for (int k = 0; k < 6; k++) CHECK(d.throatInvaded[std::size_t(6 * i + k)] == filledAt);
  }

  // Every distinct entry pressure: one point per tube.
  o.pressures.clear();
  const DrainageResult all = drainage(b.net, o);
  CHECK(all.pressure.size() == 4);
  for (int s = 0; s < 4; s++) {
    CHECK_NEAR(all.pressure[std::size_t(s)], washburn(0.48, 140, radii[3 - s]), 1e-9 * all.pressure[std::size_t(s)]);
    CHECK_NEAR(all.saturation[std::size_t(s)], fraction(radii[3 - s]), 1e-14);
  }
}

TEST(drainage_access_limits_a_big_pore_behind_a_narrow_throat) {
  const double um = 1e-6;
  Builder b({4, 2, 2}, 10 * um);
  const std::int32_t inlet = b.pore(0, 0, 0, 5 * um, 0, 0);
  const std::int32_t a = b.pore(10 * um, 0, 0, 5 * um, 1.0);
  const std::int32_t big = b.pore(20 * um, 0, 0, 10 * um, 3.0);
  const std::int32_t outlet = b.pore(40 * um, 0, 0, 10 * um, 0, 1);
  b.throat(inlet, a, 5 * um, 10 * um);
  b.throat(a, big, 1 * um, 10 * um);
  b.throat(big, outlet, 8 * um, 20 * um);
  DrainageOptions o;
  for (double r : {10.0, 8.0, 5.0, 1.0}) o.pressures.push_back(washburn(o.surfaceTension, o.contactAngle, r * um));
  const DrainageResult d = drainage(b.net, o);
  CHECK_NEAR(d.poreEntry[std::size_t(big)], o.pressures[0], 1e-9 * o.pressures[0]);
  CHECK(d.poreInvaded[std::size_t(a)] == o.pressures[2]);
  CHECK(d.poreInvaded[std::size_t(big)] == o.pressures[3]);
  CHECK(d.throatInvaded[1] == o.pressures[3]);
  CHECK(d.poreInvaded[std::size_t(outlet)] == o.pressures[3]);
  CHECK(d.saturation == (std::vector<double>{0, 0, 0.25, 1}));
}

TEST(disconnected_cluster_is_excluded) {
  const double h = 1e-6, r = 0.8e-6;
  Builder b({10, 4, 4}, h);
  addTube(b, 10, h, r, 2 * h);
  const StokesResult alone = stokesFlow(b.net, {});
  // A dead end from the inlet face, a floating pair, and a pore hanging on a closed throat.
  const std::int32_t deadInlet = b.pore(0, h, h, r, 0, 0);
  const std::int32_t dead = b.pore(0.5 * h, h, h, r, 1e-18);
  b.throat(deadInlet, dead, r, 0.5 * h);
  const std::int32_t f1 = b.pore(3 * h, 3 * h, 3 * h, r, 1e-18), f2 = b.pore(4 * h, 3 * h, 3 * h, r, 1e-18);
  b.throat(f1, f2, r, h);
  const std::int32_t hanging = b.pore(5 * h, 3 * h, 2 * h, r, 1e-18);
  const std::size_t closed = b.throat(5, hanging, 0, h);
  const StokesResult flow = stokesFlow(b.net, {});
  CHECK(flow.solve.excludedPores == 5 && flow.solve.clusters == 4 && flow.solve.unknowns == 10);
  for (std::int32_t p : {deadInlet, dead, f1, f2, hanging}) CHECK(std::isnan(flow.pressure[std::size_t(p)]));
  CHECK(flow.throatFlow[closed] == 0 && flow.conductance[closed] == 0);
  CHECK(flow.throatFlow[closed - 1] == 0 && flow.throatFlow[closed - 2] == 0);
  CHECK_NEAR(flow.flowRate, alone.flowRate, 1e-12 * alone.flowRate);
  const DiffusionResult d = diffusion(b.net, {});
  CHECK(d.solve.excludedPores == 5 && std::isnan(d.concentration[std::size_t(f1)]));
}

TEST(missing_path_or_boundary_is_an_axis_error) {
  const double h = 1e-6, r = 0.8e-6;
  Builder b({10, 4, 4}, h);
  addTube(b, 10, h, r, 2 * h);
  Network cut = b.net;
  cut.throatInscribedDiameter[4] = 0;  // a closed throat splits the tube
  CHECK(rangeArgument([&] { stokesFlow(cut, {}); }) == "axis");
  CHECK(rangeArgument([&] { diffusion(cut, {}); }) == "axis");
  try {
    stokesFlow(cut, {});
  } catch (const PnmError& error) {
    CHECK(error.detail() == "no path of connected pores joins the x− and x+ faces");
  }
  Network noBoundary = b.net;
  std::fill(noBoundary.face.begin(), noBoundary.face.end(), std::int8_t(kInterior));
  CHECK(rangeArgument([&] { stokesFlow(noBoundary, {}); }) == "axis");
  CHECK(rangeArgument([&] { drainage(noBoundary, {}); }) == "axis");
  CHECK(rangeArgument([&] { invasionPercolation(noBoundary, {}); }) == "axis");
  StokesOptions alongY;
  alongY.axis = 1;
  CHECK(rangeArgument([&] { stokesFlow(b.net, alongY); }) == "axis");
  // Drainage needs only the inlet: the cut tube fills up to the cut.
  const DrainageResult d = drainage(cut, {});
  CHECK_NEAR(d.saturation.back(), 0.4, 1e-15);
  CHECK(std::isinf(d.poreInvaded[5]) && d.poreInvaded[4] == d.pressure[0]);
}

TEST(bad_options_name_the_argument) {
  Builder b({10, 4, 4}, 1e-6);
  addTube(b, 10, 1e-6, 0.8e-6, 2e-6);
  const Network& net = b.net;
  const auto stokes = [&](const std::function<void(StokesOptions&)>& change) {
    StokesOptions o;
    change(o);
    return rangeArgument([&] { stokesFlow(net, o); });
  };
  const auto drain = [&](const std::function<void(DrainageOptions&)>& change) {
    DrainageOptions o;
    change(o);
    return rangeArgument([&] { drainage(net, o); });
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK(stokes([](StokesOptions&) {}).empty());
  CHECK(stokes([](StokesOptions& o) { o.axis = 3; }) == "axis");
  CHECK(stokes([](StokesOptions& o) { o.axis = -1; }) == "axis");
  CHECK(stokes([](StokesOptions& o) { o.viscosity = 0; }) == "viscosity");
  CHECK(stokes([&](StokesOptions& o) { o.viscosity = nan; }) == "viscosity");
  CHECK(stokes([&](StokesOptions& o) { o.inletPressure = nan; }) == "inletPressure");
  CHECK(stokes([&](StokesOptions& o) { o.outletPressure = INFINITY; }) == "outletPressure");
  CHECK(stokes([](StokesOptions& o) { o.inletPressure = o.outletPressure; }) == "inletPressure");
  CHECK(stokes([](StokesOptions& o) { o.solve.tolerance = 0; }) == "tolerance");
  CHECK(stokes([](StokesOptions& o) { o.solve.tolerance = 1; }) == "tolerance");
  CHECK(drain([](DrainageOptions&) {}).empty());
  CHECK(drain([](DrainageOptions& o) { o.contactAngle = 60; }) == "contactAngle");
  CHECK(drain([](DrainageOptions& o) { o.contactAngle = 90; }) == "contactAngle");
  CHECK(drain([](DrainageOptions& o) { o.contactAngle = 181; }) == "contactAngle");
  CHECK(drain([&](DrainageOptions& o) { o.contactAngle = nan; }) == "contactAngle");
  CHECK(drain([](DrainageOptions& o) { o.surfaceTension = -1; }) == "surfaceTension");
  CHECK(drain([](DrainageOptions& o) { o.pressures = {2, 1}; }) == "pressures");
  CHECK(drain([](DrainageOptions& o) { o.pressures = {1, 1}; }) == "pressures");
  CHECK(drain([](DrainageOptions& o) { o.pressures = {-1}; }) == "pressures");
  CHECK(drain([&](DrainageOptions& o) { o.pressures = {1, nan}; }) == "pressures");
  CHECK(drain([](DrainageOptions& o) { o.axis = 7; }) == "axis");
  DiffusionOptions d;
  d.solve.tolerance = -1e-3;
  CHECK(rangeArgument([&] { diffusion(net, d); }) == "tolerance");
  Network broken = net;
  broken.conns[3] = 99;
  CHECK(rangeArgument([&] { stokesFlow(broken, {}); }) == "network");
  broken = net;
  broken.throatLength.pop_back();
  CHECK(rangeArgument([&] { conduitLengths(broken); }) == "network");
}

TEST(invasion_percolation_follows_the_lowest_entry) {
  const double um = 1e-6;
  Builder b({3, 3, 1}, 10 * um);
  const std::int32_t inlet = b.pore(0, 10 * um, 0, 4 * um, 0, 0);
  const double volumes[5] = {0, 1, 2, 3, 4};
  std::int32_t p[5] = {inlet};
  for (int i = 1; i < 4; i++) p[i] = b.pore(10 * i * um, 10 * um, 0, 10 * um, volumes[i]);
  p[4] = b.pore(40 * um, 10 * um, 0, 0.5 * um, volumes[4]);  // its entry outweighs its throat's
  b.throat(p[0], p[1], 4 * um, 10 * um);                     // t0
  b.throat(p[0], p[2], 3 * um, 10 * um);                     // t1
  b.throat(p[1], p[3], 1 * um, 10 * um);                     // t2
  b.throat(p[2], p[3], 2 * um, 10 * um);                     // t3
  b.throat(p[3], p[4], 5 * um, 10 * um);                     // t4: key = entry of p4 (r = 0.5)
  b.throat(p[1], p[2], 2.5 * um, 10 * um);                   // t5: joins two filled pores at step 3
  DrainageOptions o;
  const InvasionResult ip = invasionPercolation(b.net, o);
  CHECK(!ip.cancelled);
  CHECK(ip.poreSequence == (std::vector<std::int32_t>{0, 1, 2, 4, 6}));
  CHECK(ip.throatSequence == (std::vector<std::int32_t>{1, 2, 5, 4, 6, 3}));
  const auto pc = [&](double r) { return washburn(o.surfaceTension, o.contactAngle, r * um); };
  const std::vector<double> pressure = {0, pc(4), pc(3), pc(2.5), pc(2), pc(1), pc(0.5)};
  const std::vector<double> saturation = {0, 0.1, 0.3, 0.3, 0.6, 0.6, 1.0};
  CHECK(ip.pressure.size() == 7 && ip.saturation.size() == 7);
  for (std::size_t k = 0; k < 7; k++) {
    CHECK_NEAR(ip.pressure[k], pressure[k], 1e-12 * pressure[k]);
    CHECK_NEAR(ip.saturation[k], saturation[k], 1e-15);
  }
}

TEST(random_lattice_conserves_mass) {
  const Network net = randomLattice(20, 12345);
  StokesOptions o;
  o.inletPressure = 2;
  o.outletPressure = 1;
  const StokesResult low = stokesFlow(net, o);
  o.inletPressure = 101326;
  o.outletPressure = 101325;
  const StokesResult flow = stokesFlow(net, o);
  const SolveReport& s = flow.solve;
  REPORT("%zu unknowns, %zu clusters, %zu excluded, %zu iterations, residual %.3g, Q = %.6g m3/s, K = %.6g m2",
         s.unknowns, s.clusters, s.excludedPores, s.iterations, s.residual, flow.flowRate, flow.permeability);
  CHECK(s.converged && s.residual <= s.tolerance && s.tolerance == 1e-10);
  CHECK(s.excludedPores > 0 && s.clusters > 1);
  CHECK(flow.flowRate > 0);
  CHECK_NEAR(low.flowRate, flow.flowRate, 1e-12 * flow.flowRate);

  // Net flow out of every pore that is not on the inlet or outlet face; the outlet takes Q.
  std::vector<double> net_(net.poreCount(), 0.0);
  for (std::size_t t = 0; t < net.throatCount(); t++) {
    net_[std::size_t(net.conns[2 * t])] += flow.throatFlow[t];
    net_[std::size_t(net.conns[2 * t + 1])] -= flow.throatFlow[t];
  }
  double worst = 0, outlet = 0;
  std::size_t excluded = 0;
  for (std::size_t p = 0; p < net.poreCount(); p++) {
    if (std::isnan(flow.pressure[p])) {
      excluded++;
      CHECK(net_[p] == 0);
      continue;
    }
    if (net.face[p] == 1) outlet -= net_[p];
    if (net.face[p] != 0 && net.face[p] != 1) worst = std::max(worst, std::fabs(net_[p]));
  }
  REPORT("worst pore imbalance %.3g of Q", worst / flow.flowRate);
  CHECK(excluded == s.excludedPores);
  CHECK(worst <= 1e-8 * flow.flowRate);
  CHECK_NEAR(outlet, flow.flowRate, 1e-8 * flow.flowRate);

  StokesOptions alongY;
  alongY.axis = 1;  // y− has boundary pores, y+ none
  CHECK(rangeArgument([&] { stokesFlow(net, alongY); }) == "axis");

  o.model = ConductanceModel::ShapeFactor;
  const StokesResult prism = stokesFlow(net, o);
  CHECK(prism.solve.converged && prism.flowRate > 0);
  const DiffusionResult d = diffusion(net, {});
  REPORT("formation factor %.6g, tortuosity %.6g, %zu iterations", d.formationFactor, d.tortuosity, d.solve.iterations);
  CHECK(d.solve.converged && d.formationFactor > 1 && std::isfinite(d.formationFactor));
  CHECK_NEAR(d.tortuosity, d.formationFactor * 0.3, 1e-12 * d.tortuosity);
}

TEST(random_lattice_drainage_matches_a_fresh_search_per_pressure) {
  const Network net = randomLattice(12, 777);
  DrainageOptions o;
  for (int k = 0; k < 25; k++) o.pressures.push_back(1e5 * std::pow(1.15, k));
  const DrainageResult d = drainage(net, o);
  CHECK(d.saturation.size() == o.pressures.size());
  // Reference: a breadth-first search from the inlet at each pressure.
  std::vector<std::vector<std::size_t>> throatsOf(net.poreCount());
  for (std::size_t t = 0; t < net.throatCount(); t++) {
    throatsOf[std::size_t(net.conns[2 * t])].push_back(t);
    throatsOf[std::size_t(net.conns[2 * t + 1])].push_back(t);
  }
  double total = 0;
  for (std::size_t p = 0; p < net.poreCount(); p++) total += net.face[p] < 0 ? net.volume[p] : 0;
  for (std::size_t k = 0; k < o.pressures.size(); k++) {
    const double P = o.pressures[k];
    std::vector<char> pore(net.poreCount(), 0), throat(net.throatCount(), 0);
    std::deque<std::size_t> queue;
    for (std::size_t p = 0; p < net.poreCount(); p++)
      if (net.face[p] == 0) pore[p] = 1, queue.push_back(p);
    while (!queue.empty()) {
      const std::size_t p = queue.front();
      queue.pop_front();
      for (std::size_t t : throatsOf[p]) {
        if (throat[t] || !(d.throatEntry[t] <= P)) continue;
        throat[t] = 1;
        for (int end = 0; end < 2; end++) {
          const std::size_t q = std::size_t(net.conns[2 * t + std::size_t(end)]);
          if (!pore[q] && d.poreEntry[q] <= P) pore[q] = 1, queue.push_back(q);
        }
      }
    }
    double filled = 0;
    bool same = true;
    for (std::size_t p = 0; p < net.poreCount(); p++) {
      filled += pore[p] && net.face[p] < 0 ? net.volume[p] : 0;
      same = same && (pore[p] != 0) == (d.poreInvaded[p] <= P);
    }
    for (std::size_t t = 0; t < net.throatCount(); t++) same = same && (throat[t] != 0) == (d.throatInvaded[t] <= P);
    CHECK(same);
    CHECK_NEAR(d.saturation[k], filled / total, 1e-12);
    if (k > 0) CHECK(d.saturation[k] >= d.saturation[k - 1]);
  }
  REPORT("saturation %.4f at %.0f Pa, %.4f at %.0f Pa", d.saturation[5], d.pressure[5], d.saturation.back(),
         d.pressure.back());
  CHECK(d.saturation.front() < 0.01 && d.saturation.back() > 0.5);

  // Invasion percolation: one throat per step, and every pore it reaches through one.
  const InvasionResult ip = invasionPercolation(net, o);
  std::vector<char> stepSeen(ip.pressure.size(), 0);
  bool ok = true;
  for (std::size_t t = 0; t < net.throatCount(); t++) {
    const std::int32_t s = ip.throatSequence[t];
    if (s < 0) continue;
    ok = ok && s >= 1 && std::size_t(s) < ip.pressure.size() && !stepSeen[std::size_t(s)];
    if (ok) stepSeen[std::size_t(s)] = 1;
    const std::int32_t a = ip.poreSequence[std::size_t(net.conns[2 * t])];
    const std::int32_t b = ip.poreSequence[std::size_t(net.conns[2 * t + 1])];
    ok = ok && a >= 0 && b >= 0 && std::min(a, b) < s && std::max(a, b) <= s;
  }
  CHECK(ok);
  CHECK(std::count(stepSeen.begin(), stepSeen.end(), 1) == std::ptrdiff_t(ip.pressure.size() - 1));
  CHECK(ip.saturation.back() >= d.saturation.back() - 1e-12 && ip.saturation.back() <= 1 + 1e-12);
}

TEST(cancel_stops_the_solvers) {
  const Network net = randomLattice(12, 99);
  std::atomic<bool> cancel{true};
  StokesOptions o;
  o.solve.cancel = &cancel;
  const StokesResult flow = stokesFlow(net, o);
  CHECK(flow.solve.cancelled && !flow.solve.converged && flow.solve.iterations == 0);
  DrainageOptions d;
  d.cancel = &cancel;
  const DrainageResult drained = drainage(net, d);
  CHECK(drained.cancelled && drained.saturation.empty() && drained.pressure.empty());
  CHECK(invasionPercolation(net, d).cancelled);

  // A bounded solve that stops at maxIterations reports it is not converged.
  StokesOptions few;
  few.solve.maxIterations = 1;
  const StokesResult partial = stokesFlow(net, few);
  CHECK(partial.solve.iterations <= 1 && !partial.solve.converged && !partial.solve.cancelled);
}
