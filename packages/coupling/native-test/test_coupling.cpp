// The coupling kernels against what they must conserve and the formulas they
// implement: the divided kernel keeps every sphere's volume and splits it by
// symmetry on faces, edges and corners; the closures reduce to Stokes' drag
// for a lone sphere and Gidaspow's to Ergun's pressure drop; the exchange
// gives the fluid exactly the opposite of what it gives the spheres.
#include <cmath>
#include <peclet/kernel_error.hpp>
#include <peclet/testing.hpp>
#include <random>
#include <string>
#include <vector>

#include "coupling.hpp"

namespace {

using namespace peclet::coupling;

constexpr double kPi = 3.14159265358979323846;

Grid box(std::size_t n0, std::size_t n1, std::size_t n2, double cell) {
  Grid g;
  g.n[0] = n0, g.n[1] = n1, g.n[2] = n2, g.cell = cell;
  return g;
}

template <typename F>
std::string refusal(F&& f) {
  try {
    f();
  } catch (const peclet::KernelArgumentError& e) {
    return e.argument();
  }
  return "";
}

}  // namespace

TEST(the_satellite_points_are_symmetric_and_inside_the_unit_sphere) {
  double mean[3] = {0, 0, 0}, second = 0;
  for (const auto& s : satellites()) {
    const double r2 = s[0] * s[0] + s[1] * s[1] + s[2] * s[2];
    CHECK(r2 < 1);
    for (int a = 0; a < 3; a++) mean[a] += s[a];
    second += r2;
  }
  for (int a = 0; a < 3; a++) CHECK_NEAR(mean[a], 0, 1e-13);
  // Equal-volume shells at (k + ½)/3 of the volume: mean r² = Σ (k + ½)^(2/3) / 3.
  double expected = 0;
  for (int k = 0; k < 3; k++) expected += std::cbrt((k + 0.5) / 3) * std::cbrt((k + 0.5) / 3) / 3;
  CHECK_NEAR(second / double(kSatellites), expected, 1e-13);
}

TEST(the_divided_kernel_keeps_every_sphere_volume) {
  Grid g = box(5, 4, 3, 1.0);
  g.periodic[2] = false;
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> unit(0, 1);
  const std::size_t n = 40;
  std::vector<double> x(3 * n), r(n);
  double volume = 0;
  for (std::size_t i = 0; i < n; i++) {
    r[i] = 0.1 + 0.35 * unit(random);
    for (int a = 0; a < 3; a++) x[3 * i + a] = unit(random) * double(g.n[a]);
    volume += 4.0 / 3.0 * kPi * r[i] * r[i] * r[i];
  }
  std::vector<double> solid(g.cells());
  Spheres s{n, x.data(), nullptr, r.data()};
  checkSpheres(g, s);
  solidFraction(g, s, solid.data());
  double sum = 0;
  for (double v : solid) sum += v;
  CHECK_NEAR(sum, volume, 1e-13 * volume);
}

TEST(a_sphere_inside_a_cell_stays_in_it_and_one_on_a_face_edge_or_corner_splits_by_symmetry) {
  Grid g = box(4, 4, 4, 2.0);
  const double r = 0.5, whole = 4.0 / 3.0 * kPi * r * r * r / 8.0;
  std::vector<double> solid(g.cells());
  auto at = [&](std::size_t i, std::size_t j, std::size_t k) { return solid[(i * 4 + j) * 4 + k]; };
  const double inside[3] = {3.0, 2.7, 3.4}, face[3] = {4.0, 3.0, 3.0}, edge[3] = {4.0, 4.0, 3.0},
               corner[3] = {0.0, 0.0, 0.0};
  const double radius[1] = {r};
  solidFraction(g, Spheres{1, inside, nullptr, radius}, solid.data());
  CHECK_NEAR(at(1, 1, 1), whole, 1e-15);
  solidFraction(g, Spheres{1, face, nullptr, radius}, solid.data());
  CHECK_NEAR(at(1, 1, 1), whole / 2, 1e-15);
  CHECK_NEAR(at(2, 1, 1), whole / 2, 1e-15);
  solidFraction(g, Spheres{1, edge, nullptr, radius}, solid.data());
  for (std::size_t i = 1; i <= 2; i++)
    for (std::size_t j = 1; j <= 2; j++) CHECK_NEAR(at(i, j, 1), whole / 4, 1e-15);
  // The corner of the periodic box: the eight cells around it across the faces.
  solidFraction(g, Spheres{1, corner, nullptr, radius}, solid.data());
  for (std::size_t i : {0, 3})
    for (std::size_t j : {0, 3})
      for (std::size_t k : {0, 3}) CHECK_NEAR(at(i, j, k), whole / 8, 1e-15);
}

TEST(the_closures_give_stokes_drag_to_a_lone_sphere) {
  const double mu = 1e-3, rho = 1000, d = 1e-4, stokes = 3 * kPi * mu * d;
  const double slip = 1e-12;  // Re = 1e-10
  CHECK_NEAR(dragCoefficient(Drag::Gidaspow, 1.0, d, slip, mu, rho) / stokes, 1.0, 1e-6);
  CHECK_NEAR(dragCoefficient(Drag::Beetstra, 1.0, d, slip, mu, rho) / stokes, 1.0, 1e-6);
  // Di Felice's C_d = (0.63 + 4.8/√Re)² tends to 23.04/Re: 0.96 of Stokes.
  CHECK_NEAR(dragCoefficient(Drag::DiFelice, 1.0, d, slip, mu, rho) / stokes, 0.96, 1e-4);
  // Finite at zero slip (the limit), and growing with Re.
  CHECK_NEAR(dragCoefficient(Drag::DiFelice, 1.0, d, 0.0, mu, rho) / stokes, 0.96, 1e-12);
  for (Drag drag : {Drag::DiFelice, Drag::Beetstra, Drag::Gidaspow})
    CHECK(dragCoefficient(drag, 1.0, d, 1.0, mu, rho) > dragCoefficient(drag, 1.0, d, 0.01, mu, rho));
}

TEST(di_felice_and_the_standard_drag_curve_at_re_10_and_100) {
  // At ε = 1, F = ½ C_d ρ (π d²/4) U² with C_d = (0.63 + 4.8/√Re)².
  const double mu = 1e-3, rho = 1000, d = 1e-3;
  for (double re : {10.0, 100.0}) {
    const double u = re * mu / (rho * d);
    const double cd = std::pow(0.63 + 4.8 / std::sqrt(re), 2);
    CHECK_NEAR(dragCoefficient(Drag::DiFelice, 1.0, d, u, mu, rho) * u, 0.5 * cd * rho * kPi * d * d / 4 * u * u,
               1e-12 * cd * rho * d * d * u * u);
    const double cdSN = 24 / re * (1 + 0.15 * std::pow(re, 0.687));
    CHECK_NEAR(dragCoefficient(Drag::Gidaspow, 1.0, d, u, mu, rho) * u, 0.5 * cdSN * rho * kPi * d * d / 4 * u * u,
               1e-12 * cdSN * rho * d * d * u * u);
  }
}

TEST(gidaspows_closure_reproduces_the_ergun_pressure_drop_in_a_fixed_bed) {
  // Model A in a uniform fixed bed: −dp/dx = n F_d / ε, n = (1 − ε)/V spheres per volume.
  const double mu = 1.8e-5, rho = 1.2, d = 5e-4, eps = 0.42, volume = kPi * d * d * d / 6;
  for (double superficial : {1e-3, 0.1, 2.0}) {
    const double u = superficial / eps;
    const double fd = dragCoefficient(Drag::Gidaspow, eps, d, u, mu, rho) * u;
    const double dpdx = (1 - eps) / volume * fd / eps;
    const double ergun = 150 * mu * (1 - eps) * (1 - eps) * superficial / (eps * eps * eps * d * d) +
                         1.75 * rho * (1 - eps) * superficial * superficial / (eps * eps * eps * d);
    CHECK_NEAR(dpdx / ergun, 1.0, 1e-12);
  }
}

TEST(the_exchange_conserves_momentum_to_round_off) {
  Grid g = box(6, 5, 4, 1e-3);
  g.periodic[1] = false;
  std::mt19937_64 random(11);
  std::uniform_real_distribution<double> unit(0, 1);
  const std::size_t n = 60, cells = g.cells();
  std::vector<double> x(3 * n), v(3 * n), r(n), m(n);
  for (std::size_t i = 0; i < n; i++) {
    r[i] = (0.15 + 0.3 * unit(random)) * 1e-3;
    m[i] = 2500 * 4.0 / 3.0 * kPi * r[i] * r[i] * r[i];
    for (int a = 0; a < 3; a++) {
      x[3 * i + a] = unit(random) * double(g.n[a]) * g.cell;
      v[3 * i + a] = unit(random) - 0.5;
    }
  }
  Spheres s{n, x.data(), v.data(), r.data()};
  std::vector<double> solid(cells), eps(cells), u(3 * cells), p(cells), grad(3 * cells);
  solidFraction(g, s, solid.data());
  for (std::size_t c = 0; c < cells; c++) {
    eps[c] = std::max(1 - solid[c], 0.3);
    p[c] = 100 * unit(random);
    for (int a = 0; a < 3; a++) u[3 * c + a] = unit(random) - 0.5;
  }
  gradient(g, p.data(), grad.data());
  for (Drag drag : {Drag::DiFelice, Drag::Beetstra, Drag::Gidaspow}) {
    ExchangeParameters parameters;
    parameters.drag = drag;
    parameters.timestep = 1e-4;
    parameters.momentum = u.data();
    std::vector<double> fd(3 * n), total(3 * n), fluid(3 * cells);
    ExchangeOutput out{fd.data(), total.data(), fluid.data()};
    const ExchangeReport report =
        exchange(g, s, m.data(), eps.data(), solid.data(), u.data(), grad.data(), parameters, out);
    CHECK(report.maxReynolds > 0 && report.maxDragRate > 0 && report.maxFluidDragRate > 0);
    // Again with the self-correction fed by the first exchange's drag (and
    // half the spheres fixed, so some cells screen): still equal and opposite.
    std::vector<double> previous = fd, held(cells), fd2(3 * n), total2(3 * n), fluid2(3 * cells);
    std::vector<double> m2 = m;
    for (std::size_t i = 0; i < n; i += 2) m2[i] = 0;
    ExchangeOutput first{fd2.data(), total2.data(), fluid2.data(), held.data()};
    exchange(g, s, m2.data(), eps.data(), solid.data(), u.data(), grad.data(), parameters, first);
    parameters.previousDrag = previous.data();
    parameters.previousHeldDrag = held.data();
    exchange(g, s, m2.data(), eps.data(), solid.data(), u.data(), grad.data(), parameters,
             ExchangeOutput{fd2.data(), total2.data(), fluid2.data()});
    double changed = 0;
    for (std::size_t k = 0; k < 3 * n; k++) changed = std::max(changed, std::fabs(fd2[k] - fd[k]));
    CHECK(changed > 0);
    for (const auto* pair : {&total, &total2}) {
      const std::vector<double>& t = *pair;
      const std::vector<double>& f = pair == &total ? fluid : fluid2;
      for (int a = 0; a < 3; a++) {
        double particles = 0, fluidSum = 0, scale = 0;
        for (std::size_t i = 0; i < n; i++) particles += t[3 * i + a], scale += std::fabs(t[3 * i + a]);
        for (std::size_t c = 0; c < cells; c++) fluidSum += f[3 * c + a] * g.cellVolume();
        CHECK_NEAR(particles + fluidSum, 0, 1e-14 * scale);
      }
    }
  }
}

TEST(the_semi_implicit_drag_is_stable_however_stiff_and_the_held_flux_is_met) {
  // Fixed spheres in a fluid streaming unevenly through 27 cells: for fluid
  // steps from soft to very stiff drag, the energy of the cells' momentum, stepped by the force
  // alone (no streaming) for 200 steps, falls at every step (the midpoint
  // rule relaxes it by (1 − h)/(1 + h) per step, h = Δt D/2ρ, and the
  // explicit remainder of the sphere-averaged drag stays within that), and
  // a held flux is met exactly in each step.
  Grid g = box(3, 3, 3, 1e-3);
  std::mt19937_64 random(5);
  std::uniform_real_distribution<double> unit(0, 1);
  const std::size_t n = 40, cells = g.cells();
  std::vector<double> x(3 * n), v(3 * n, 0.0), r(n, 0.4e-3), m(n, 0.0);
  for (std::size_t i = 0; i < n; i++)
    for (int a = 0; a < 3; a++) x[3 * i + a] = unit(random) * double(g.n[a]) * g.cell;
  Spheres s{n, x.data(), v.data(), r.data()};
  std::vector<double> solid(cells), eps(cells), start(3 * cells), grad(3 * cells, 0.0);
  solidFraction(g, s, solid.data());
  for (std::size_t c = 0; c < cells; c++) {
    eps[c] = std::max(1 - solid[c], 0.3);
    for (int a = 0; a < 3; a++) start[3 * c + a] = 0.01 * (unit(random) - 0.5);
  }
  double largest = 0;
  for (double u : start) largest = std::max(largest, std::fabs(u));
  double solidVolume = 0;
  for (std::size_t i = 0; i < n; i++) solidVolume += 4.0 / 3.0 * kPi * r[i] * r[i] * r[i];
  for (bool hold : {false, true}) {
    // h from about 1e-4 to 150 (at h ~ 1e8 the explicit remainder can add
    // a little energy for a step; the time steps chosen keep h near 1).
    for (double dt : {1e-6, 1e-3, 1.0}) {
      ExchangeParameters parameters;
      parameters.drag = Drag::Gidaspow;
      parameters.selfCorrection = false;
      parameters.timestep = dt;
      parameters.holdFlux = hold;
      parameters.flux[0] = 0.003;
      std::vector<double> momentum = start, velocity = start, fd(3 * n), total(3 * n), fluid(3 * cells);
      parameters.momentum = momentum.data();
      double previous = 0, energy = 0;
      for (double u : start) previous += u * u;
      for (int step = 0; step < 200; step++) {
        const ExchangeReport report = exchange(g, s, m.data(), eps.data(), solid.data(), velocity.data(), grad.data(),
                                               parameters, ExchangeOutput{fd.data(), total.data(), fluid.data()});
        double mean = 0, size = 0;
        for (std::size_t c = 0; c < cells; c++) {
          for (int a = 0; a < 3; a++) {
            const double F = dt / parameters.density * fluid[3 * c + a];
            velocity[3 * c + a] = momentum[3 * c + a] + 0.5 * F;
            momentum[3 * c + a] += F;
            energy += momentum[3 * c + a] * momentum[3 * c + a];
          }
          mean += momentum[3 * c];
          size += largest + dt / parameters.density * eps[c] * std::fabs(report.drive[0]);
        }
        if (!hold) CHECK(energy <= previous * (1 + 1e-12));
        previous = energy, energy = 0;
        if (hold) {
          // (to the round-off of F = εG − D u, two terms that grow with Δt)
          CHECK_NEAR(mean / double(cells), 0.003, 1e-12 + 1e-14 * size / double(cells));
          CHECK(report.drive[0] > 0);
          // Still equal and opposite: the spheres' drag and drive against
          // the fluid's force less its drive.
          double spheres = 0, fluidSum = 0;
          for (std::size_t i = 0; i < n; i++) spheres += total[3 * i];
          for (std::size_t c = 0; c < cells; c++)
            fluidSum += (fluid[3 * c] - eps[c] * report.drive[0]) * g.cellVolume();
          CHECK_NEAR(spheres + fluidSum, solidVolume * report.drive[0],
                     1e-12 * std::fabs(solidVolume * report.drive[0]) + 1e-12 * std::fabs(spheres));
        }
      }
    }
  }
}

TEST(the_lattice_response_has_the_cubic_symmetry_and_a_sphere_in_one_cell_sees_the_cells_own) {
  for (int dx = -1; dx <= 1; dx++)
    for (int dy = -1; dy <= 1; dy++)
      for (int dz = -1; dz <= 1; dz++)
        for (int a = 0; a < 3; a++)
          for (int b = 0; b < 3; b++) {
            const double g = latticeResponse(dx, dy, dz, a, b);
            CHECK_NEAR(g, latticeResponse(-dx, -dy, -dz, a, b), 0);
            CHECK_NEAR(g, latticeResponse(dx, dy, dz, b, a), 0);
            // A permutation of the axes permutes the components.
            const int d[3] = {dx, dy, dz};
            CHECK_NEAR(g, latticeResponse(d[1], d[2], d[0], (a + 2) % 3, (b + 2) % 3), 0);
            if (a == b) CHECK(g > 0 && g <= latticeResponse(0, 0, 0, 0, 0));
          }
  const Grid g = box(4, 4, 4, 1.0);
  const double x[3] = {1.5, 1.5, 1.5}, r[1] = {0.3};
  const Footprint f = footprint(g, Spheres{1, x, nullptr, r}, 0);
  CHECK_NEAR(f.own, 1, 0);
  CHECK_NEAR(f.response[2], latticeResponse(0, 0, 0, 2, 2), 0);
  // On a face: the average of the cell's own response and its neighbour's across.
  const double y[3] = {1.5, 2.0, 1.5};
  const Footprint h = footprint(g, Spheres{1, y, nullptr, r}, 0);
  CHECK_NEAR(h.own, 0.5, 1e-15);
  CHECK_NEAR(h.response[0], 0.5 * (latticeResponse(0, 0, 0, 0, 0) + latticeResponse(0, 1, 0, 0, 0)), 1e-15);
  CHECK_NEAR(h.response[1], 0.5 * (latticeResponse(0, 0, 0, 1, 1) + latticeResponse(0, 1, 0, 1, 1)), 1e-15);
  CHECK_NEAR(h.response[3], 0, 1e-15);
}

TEST(the_oseen_factor_is_one_at_rest_falls_as_1_33_over_a_and_matches_a_direct_quadrature) {
  CHECK_NEAR(oseenFactor(0), 1, 0);
  CHECK_NEAR(oseenFactor(1e-3), 1, 1e-3);
  double last = 1;
  for (double a = 1e-2; a < 1e6; a *= 1.7) {
    const double h = oseenFactor(a);
    CHECK(h < last && h > 0);
    last = h;
  }
  CHECK_NEAR(1e6 * oseenFactor(1e6), 0.75 * std::sqrt(kPi), 0.01);
  // The double integral by a plain midpoint rule in (q, μ), independent of
  // the closed form of the inner integral.
  for (double a : {0.3, 2.0, 20.0}) {
    double num = 0;
    const int nq = 3000, nm = 2000;
    for (int i = 0; i < nq; i++) {
      const double q = (i + 0.5) * 7.0 / nq;
      double inner = 0;
      for (int j = 0; j < nm; j++) {
        const double mu = -1 + (j + 0.5) * 2.0 / nm;
        inner += (1 - mu * mu) / (q * q + a * a * mu * mu) * 2.0 / nm;
      }
      num += q * q * std::exp(-q * q) * inner * 7.0 / nq;
    }
    CHECK_NEAR(oseenFactor(a), num / (2 * std::sqrt(kPi) / 3), 2e-3);
  }
}

TEST(the_self_share_is_one_for_a_lone_sphere_and_none_in_a_lattice_of_spheres) {
  const Grid g = box(5, 5, 5, 1.0);
  const double x[3] = {2.3, 2.6, 2.5}, r[1] = {0.3};
  const Spheres lone{1, x, nullptr, r};
  std::vector<double> solid(g.cells());
  std::vector<Footprint> f(1);
  solidFraction(g, lone, solid.data(), f.data());
  double share = -1;
  selfShare(g, lone, solid.data(), f.data(), &share);
  CHECK_NEAR(share, 1, 1e-12);
  // One sphere per cell at the same place in each: every cell alike, no excess.
  std::vector<double> xs, rs;
  for (int i = 0; i < 5; i++)
    for (int j = 0; j < 5; j++)
      for (int k = 0; k < 5; k++) xs.insert(xs.end(), {i + 0.3, j + 0.95, k + 0.5}), rs.push_back(0.3);
  const Spheres lattice{rs.size(), xs.data(), nullptr, rs.data()};
  std::vector<Footprint> fs(rs.size());
  std::vector<double> shares(rs.size());
  solidFraction(g, lattice, solid.data(), fs.data());
  selfShare(g, lattice, solid.data(), fs.data(), shares.data());
  for (double s : shares) CHECK_NEAR(s, 0, 1e-12);
}

TEST(the_gradient_is_exact_for_a_linear_field_inside_and_wraps_on_periodic_axes) {
  Grid g = box(4, 5, 6, 0.5);
  g.periodic[0] = false;
  std::vector<double> f(g.cells()), out(3 * g.cells());
  for (std::size_t i = 0; i < 4; i++)
    for (std::size_t j = 0; j < 5; j++)
      for (std::size_t k = 0; k < 6; k++) f[(i * 5 + j) * 6 + k] = 3.0 * double(i) * 0.5;
  gradient(g, f.data(), out.data());
  for (std::size_t c = 0; c < g.cells(); c++) {
    CHECK_NEAR(out[3 * c], 3.0, 1e-12);
    CHECK_NEAR(out[3 * c + 1], 0.0, 1e-15);
  }
}

TEST(spheres_outside_the_grid_too_large_or_not_finite_are_named) {
  Grid g = box(4, 4, 4, 1.0);
  g.periodic[2] = false;
  double x[3] = {1, 1, 4.5}, r[1] = {0.3}, v[3] = {0, 0, 0};
  CHECK(refusal([&] { checkSpheres(g, Spheres{1, x, v, r}); }) == "positions");
  x[2] = 2, x[0] = -50;  // a periodic axis wraps
  checkSpheres(g, Spheres{1, x, v, r});
  x[0] = NAN;
  CHECK(refusal([&] { checkSpheres(g, Spheres{1, x, v, r}); }) == "positions");
  x[0] = 1, r[0] = 0.6;
  CHECK(refusal([&] { checkSpheres(g, Spheres{1, x, v, r}); }) == "cellSize");
  r[0] = 0;
  CHECK(refusal([&] { checkSpheres(g, Spheres{1, x, v, r}); }) == "radii");
  r[0] = 0.3, v[1] = INFINITY;
  CHECK(refusal([&] { checkSpheres(g, Spheres{1, x, v, r}); }) == "velocities");
  CHECK(refusal([] { parseDrag("stokes"); }) == "drag");
}

TEST(the_footprint_counts_each_point_in_the_cell_that_holds_it) {
  // Against a point-by-point count (floor of each coordinate), for spheres
  // anywhere: inside a cell, across faces, edges and corners, across the
  // periodic faces and clamped at the walls.
  Grid g = box(4, 3, 5, 1.0);
  g.periodic[1] = false;
  std::mt19937_64 random(3);
  std::uniform_real_distribution<double> unit(0, 1);
  for (int trial = 0; trial < 2000; trial++) {
    double x[3], r[1] = {0.05 + 0.45 * unit(random)};
    for (int a = 0; a < 3; a++) x[a] = unit(random) * double(g.n[a]);
    if (trial % 4 == 0) x[trial % 3] = std::floor(x[trial % 3]);  // on a face
    const Footprint f = footprint(g, Spheres{1, x, nullptr, r}, 0);
    std::vector<double> expected(g.cells(), 0.0);
    for (const auto& s : satellites()) {
      std::size_t index[3];
      for (int a = 0; a < 3; a++) {
        long long c = (long long)std::floor(x[a] + r[0] * s[a]);
        const long long n = (long long)g.n[a];
        if (g.periodic[a])
          c = ((c % n) + n) % n;
        else
          c = c < 0 ? 0 : c >= n ? n - 1 : c;
        index[a] = std::size_t(c);
      }
      expected[(index[0] * g.n[1] + index[1]) * g.n[2] + index[2]] += 1.0 / double(kSatellites);
    }
    std::vector<double> got(g.cells(), 0.0);
    double sum = 0;
    for (std::uint32_t k = 0; k < f.count; k++) got[f.cell[k]] += f.weight[k], sum += f.weight[k];
    CHECK_NEAR(sum, 1.0, 1e-14);
    for (std::size_t c = 0; c < g.cells(); c++) CHECK_NEAR(got[c], expected[c], 1e-14);
  }
}
