// The flow kernel against exact solutions: plane Poiseuille flow (TRT is
// exact with Λ = 3/16; BGK slips by F(16Λ − 3)/(24ν)), pressure-driven
// Poiseuille, gray media, mass conservation and symmetry, layouts and
// thread counts that must agree, and validation.
#include <cstring>
#include <peclet/testing.hpp>
#include <random>

#include "lattice.hpp"

using namespace peclet::flow;

namespace {

double velocityAt(Lattice& lattice, std::size_t voxel, std::size_t component) {
  lattice.allocateFields();
  if (lattice.precision() == Precision::F32) return static_cast<float*>(lattice.velocityData())[3 * voxel + component];
  return static_cast<double*>(lattice.velocityData())[3 * voxel + component];
}

LatticeOptions channel(std::size_t width, double force) {
  LatticeOptions o;
  o.shape = {1, width, 1};
  o.periodic = {true, false, true};
  o.bodyForce = {force, 0, 0};
  return o;
}

// Largest error of the profile against F/(2ν)(y + ½)(W − ½ − y), relative to its maximum.
double poiseuilleError(Lattice& lattice, std::size_t width, double force, double slip = 0.0) {
  const double nu = viscosityOf(lattice.tauPlus());
  const double peak = force / (8 * nu) * double(width * width);
  double error = 0;
  for (std::size_t y = 0; y < width; y++) {
    const double exact = force / (2 * nu) * (double(y) + 0.5) * (double(width) - 0.5 - double(y)) + slip;
    error = std::max(error, std::fabs(velocityAt(lattice, y, 0) - exact) / peak);
  }
  return error;
}

std::vector<std::uint8_t> randomSolid(std::size_t n, double fraction, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> uniform(0, 1);
  std::vector<std::uint8_t> solid(n);
  for (auto& s : solid) s = uniform(random) < fraction ? 1 : 0;
  return solid;
}

}  // namespace

TEST(trt_poiseuille_is_exact_in_f64_and_f32_in_both_layouts) {
  for (Precision precision : {Precision::F64, Precision::F32}) {
    for (Layout layout : {Layout::Dense, Layout::Sparse}) {
      for (std::size_t width : {4, 8, 17}) {
        LatticeOptions o = channel(width, 1e-5);
        o.precision = precision;
        o.layout = layout;
        auto lattice = makeLattice(o);
        lattice->step(12000, nullptr);
        const double error = poiseuilleError(*lattice, width, 1e-5);
        REPORT("%s %s width %zu: max relative error %.2e", precision == Precision::F32 ? "f32" : "f64",
               layout == Layout::Dense ? "dense" : "sparse", width, error);
        CHECK(error < (precision == Precision::F32 ? 1e-5 : 1e-10));
      }
    }
  }
}

TEST(bgk_reproduces_its_viscosity_dependent_wall_slip) {
  for (double tau : {0.8, 1.5}) {
    LatticeOptions o = channel(9, 1e-5);
    o.relaxation.model = CollisionModel::BGK;
    o.relaxation.tauPlus = tau;
    auto lattice = makeLattice(o);
    lattice->step(40000, nullptr);
    const double nu = viscosityOf(tau), magic = (tau - 0.5) * (tau - 0.5);
    const double slip = 1e-5 * (16 * magic - 3) / (24 * nu);
    CHECK(poiseuilleError(*lattice, 9, 1e-5) > 1e-3);  // the exact parabola does not fit
    CHECK(poiseuilleError(*lattice, 9, 1e-5, slip) < 1e-10);
  }
}

TEST(pressure_drive_gives_poiseuille_flow_for_the_pressure_gradient_inside) {
  // Walls in y, a density drop along x through anti-bounce-back faces halfway
  // outside the first and last planes. The faces hold their density up to a
  // viscous correction where the velocity varies across them, so the profile
  // is checked against the gradient measured in the middle of the channel.
  LatticeOptions o;
  const std::size_t length = 40, width = 8;
  o.shape = {length, width, 1};
  o.periodic = {false, false, true};
  o.inertia = false;
  o.pressure = {0, 1.002, 0.998};
  auto lattice = makeLattice(o);
  lattice->step(40000, nullptr);
  lattice->allocateFields();
  const double* rho = static_cast<double*>(lattice->densityData());
  const std::size_t mid = length / 2;
  const double gradient = (rho[(mid - 1) * width + 3] - rho[(mid + 1) * width + 3]) / 6.0;
  const double nu = viscosityOf(lattice->tauPlus());
  double error = 0;
  for (std::size_t y = 0; y < width; y++) {
    const double exact = gradient / (2 * nu) * (double(y) + 0.5) * (double(width) - 0.5 - double(y));
    error = std::max(error, std::fabs(velocityAt(*lattice, mid * width + y, 0) - exact));
  }
  const double peak = gradient / (8 * nu) * double(width * width);
  REPORT("max relative error %.2e at mid-length", error / peak);
  CHECK(error / peak < 1e-6);
}

TEST(uniform_gray_medium_has_the_permeability_of_partial_bounce_back) {
  // A drag γu with γ = 2s/(1 − s): Darcy's u = k∇p/ν with k = ν(1 − s)/(2s),
  // the same under a body force and under a pressure gradient.
  for (double s : {0.05, 0.3, 0.8}) {
    LatticeOptions o;
    o.shape = {4, 4, 4};
    o.solidFraction.assign(64, s);
    o.bodyForce = {1e-5, 0, 0};
    auto lattice = makeLattice(o);
    lattice->step(2000, nullptr);
    const double u = lattice->moments().momentum[0] / 64.0;
    CHECK_NEAR(u / (1e-5 * (1 - s) / (2 * s)), 1.0, 1e-12);

    LatticeOptions p;
    p.shape = {12, 2, 2};
    p.solidFraction.assign(48, s);
    p.periodic = {false, true, true};
    p.pressure = {0, 1.0006, 0.9994};
    auto driven = makeLattice(p);
    driven->step(20000, nullptr);
    const double gradient = 0.0012 / 3.0 / 12.0;
    CHECK_NEAR(driven->moments().momentum[0] / 48.0 / (gradient * (1 - s) / (2 * s)), 1.0, 1e-9);
  }
}

TEST(periodic_runs_conserve_mass_and_keep_symmetry) {
  LatticeOptions o;
  o.shape = {16, 12, 10};
  o.solid = randomSolid(16 * 12 * 10, 0.3, 7);
  o.bodyForce = {2e-5, 1e-5, 0};
  auto lattice = makeLattice(o);
  lattice->step(1, nullptr);
  const double before = lattice->moments().mass;
  lattice->step(500, nullptr);
  const double after = lattice->moments().mass;
  REPORT("mass %.17g -> %.17g", before, after);
  CHECK_NEAR(after / before, 1.0, 1e-13);

  // A channel is symmetric about its mid-plane.
  auto duct = makeLattice(channel(11, 1e-5));
  duct->step(3000, nullptr);
  for (std::size_t y = 0; y < 5; y++) {
    const double a = velocityAt(*duct, y, 0), b = velocityAt(*duct, 10 - y, 0);
    CHECK_NEAR(a / b, 1.0, 1e-14);
  }
}

TEST(a_step_that_would_diverge_is_not_taken) {
  for (const Layout layout : {Layout::Dense, Layout::Sparse}) {
    LatticeOptions o;
    o.shape = {10, 8, 6};
    o.solid = randomSolid(10 * 8 * 6, 0.2, 5);
    o.layout = layout;
    o.bodyForce = {1e-5, 0, 0};
    auto lattice = makeLattice(o);
    lattice->step(20, nullptr);
    lattice->allocateFields();
    const auto* u = static_cast<const double*>(lattice->velocityData());
    const std::vector<double> before(u, u + 3 * lattice->voxels());
    const double mass = lattice->moments().mass;
    // A NaN force in one voxel from now on: an atomic call of several steps
    // goes back to where it began, a plain one keeps the last finite state.
    lattice->force()[3 * 37] = std::nan("");
    CHECK(lattice->step(5, nullptr, true) == 0);
    CHECK(lattice->diverged());
    CHECK(lattice->divergedAt() == 21);
    CHECK(lattice->stepCount() == 20);
    CHECK_NEAR(lattice->moments().mass, mass, 0.0);
    for (std::size_t i = 0; i < before.size(); i++) CHECK_NEAR(u[i], before[i], 0.0);
    CHECK(lattice->step(5, nullptr) == 0);
    CHECK(lattice->stepCount() == 20);
    lattice->force()[3 * 37] = 0.0;
    // So does a porosity outside (0, 1].
    std::size_t pore = 41;
    while (o.solid[pore]) pore++;
    for (const double bad : {0.0, -0.5, 1.5}) {
      lattice->porosity()[pore] = bad;
      CHECK(lattice->step(1, nullptr) == 0);
      CHECK(lattice->diverged());
    }
    lattice->porosity()[pore] = 1.0;
    // Solid voxels keep no state: what is written there does not count.
    for (std::size_t v = 0; v < lattice->voxels(); v++) {
      if (o.solid[v]) {
        lattice->porosity()[v] = 0.0;
        lattice->force()[3 * v] = std::nan("");
      }
    }
    CHECK(lattice->step(1, nullptr) == 1);
    CHECK(!lattice->diverged());
    CHECK(lattice->stepCount() == 21);
    CHECK(lattice->step(3, nullptr, true) == 3);
    CHECK(!lattice->diverged());
    CHECK(lattice->stepCount() == 24);
  }
  // Too strong a drive: the velocity overflows after some steps; the plain
  // call stops at the last finite state.
  LatticeOptions o = channel(8, 1.0);
  o.relaxation.tauPlus = 0.5001;
  auto wild = makeLattice(o);
  const std::size_t done = wild->step(100000, nullptr);
  CHECK(wild->diverged());
  CHECK(done < 100000);
  CHECK(wild->stepCount() == done);
  CHECK(wild->moments().finite);
  REPORT("a drive of 1 with tau 0.5001 diverges at step %zu", wild->divergedAt());
}

TEST(layouts_and_thread_counts_agree) {
  LatticeOptions o;
  o.shape = {12, 10, 9};
  o.solid = randomSolid(12 * 10 * 9, 0.35, 3);
  o.periodic = {true, false, true};
  o.bodyForce = {1e-5, 0, 0};
  peclet::testing::TestPool pool(2);
  std::vector<double> reference;
  for (int variant = 0; variant < 3; variant++) {
    LatticeOptions v = o;
    v.layout = variant == 0 ? Layout::Dense : Layout::Sparse;
    if (variant == 2) {
      v.workers = 2;
      v.parallelFor = pool.function();
    }
    auto lattice = makeLattice(v);
    lattice->step(200, nullptr);
    lattice->allocateFields();
    const double* u = static_cast<double*>(lattice->velocityData());
    if (variant == 0) {
      reference.assign(u, u + 3 * lattice->voxels());
    } else {
      for (std::size_t i = 0; i < reference.size(); i++) CHECK(u[i] == reference[i]);
    }
  }
}

TEST(the_sse2_and_avx2_steps_agree) {
  // PECLET_FLOW_ISA=sse2 builds a lattice on the baseline step; the AVX2 one
  // (where the CPU has it) fuses multiply-adds, so they agree to round-off.
  for (const Layout layout : {Layout::Dense, Layout::Sparse}) {
    LatticeOptions o;
    o.shape = {12, 10, 9};
    o.solid = randomSolid(12 * 10 * 9, 0.35, 4);
    o.periodic = {true, false, true};
    o.bodyForce = {1e-5, 2e-6, 0};
    o.layout = layout;
    std::vector<double> velocity[2];
    for (int isa = 0; isa < 2; isa++) {
      if (isa == 0) setenv("PECLET_FLOW_ISA", "sse2", 1);
      auto lattice = makeLattice(o);
      unsetenv("PECLET_FLOW_ISA");
      lattice->step(300, nullptr);
      lattice->allocateFields();
      const double* u = static_cast<double*>(lattice->velocityData());
      velocity[isa].assign(u, u + 3 * lattice->voxels());
    }
    double peak = 0, difference = 0;
    for (std::size_t i = 0; i < velocity[0].size(); i++) {
      peak = std::max(peak, std::fabs(velocity[0][i]));
      difference = std::max(difference, std::fabs(velocity[0][i] - velocity[1][i]));
    }
    REPORT("largest difference %.3g of a peak %.3g", difference, peak);
    CHECK(peak > 0);
    CHECK(difference <= 1e-12 * peak);
  }
}

TEST(interpolated_walls_put_a_plane_wall_where_the_distance_vanishes) {
  // A channel whose walls sit at y = 0.3 and y = W − 1.7 (not halfway): the
  // parabola between them is reproduced within 2% of its peak, where halfway
  // bounce-back on the voxels would be off by tens of percent.
  const std::size_t width = 12;
  LatticeOptions o;
  o.shape = {1, width, 1};
  o.periodic = {true, true, true};
  o.bodyForce = {1e-5, 0, 0};
  const double low = 0.3, high = double(width) - 1.7;
  o.sdf.resize(width);
  for (std::size_t y = 0; y < width; y++) {
    const double c = double(y) + 0.5;
    o.sdf[y] = std::min(c - low, high - c);
  }
  auto lattice = makeLattice(o);
  lattice->step(20000, nullptr);
  const double nu = viscosityOf(1.0), peak = 1e-5 / (8 * nu) * (high - low) * (high - low);
  double error = 0;
  for (std::size_t y = 0; y < width; y++) {
    const double c = double(y) + 0.5;
    if (c <= low || c >= high) continue;
    error = std::max(error, std::fabs(velocityAt(*lattice, y, 0) - 1e-5 / (2 * nu) * (c - low) * (high - c)) / peak);
  }
  REPORT("max relative error %.2e", error);
  CHECK(error < 2e-2);
}

// Two slabs along axis 0, each with a ghost plane on both sides, whose ghosts take the
// crossing populations of the other slab's edge planes after every step: the owned planes
// hold exactly the whole lattice's fields (the halo exchange of a run over MPI ranks, here
// in one process). In place, after an odd number of steps the exchange runs the other way:
// the ghosts hold what their neighbours' edge planes receive. Then saveState()/restoreState().
TEST(slabs_with_exchanged_ghost_planes_are_the_whole_lattice) {
  const std::array<std::size_t, 3> shape{10, 5, 4};
  const std::size_t n12 = shape[1] * shape[2];
  const auto solid = randomSolid(shape[0] * n12, 0.2, 11);
  for (Streaming streaming : {Streaming::InPlace, Streaming::TwoLattice}) {
    for (Precision precision : {Precision::F64, Precision::F32}) {
      for (Layout layout : {Layout::Dense, Layout::Sparse}) {
        LatticeOptions o;
        o.shape = shape;
        o.solid = solid;
        o.bodyForce = {1e-5, 2e-6, 0};
        o.precision = precision;
        o.layout = layout;
        o.streaming = streaming;
        auto whole = makeLattice(o);
        CHECK(whole->streaming() == streaming);
        const std::size_t owned = shape[0] / 2;
        std::unique_ptr<Lattice> slab[2];
        for (std::size_t r = 0; r < 2; r++) {
          LatticeOptions part = o;
          part.shape = {owned + 2, shape[1], shape[2]};
          part.periodic = {false, true, true};
          part.solid.assign((owned + 2) * n12, 0);
          for (std::size_t p = 0; p < owned + 2; p++) {
            const std::size_t global = (r * owned + p + shape[0] - 1) % shape[0];
            std::copy_n(solid.begin() + std::ptrdiff_t(global * n12), n12,
                        part.solid.begin() + std::ptrdiff_t(p * n12));
          }
          slab[r] = makeLattice(part);
        }
        const std::size_t size = precision == Precision::F32 ? 4 : 8;
        std::vector<std::uint8_t> up(5 * n12 * size), down(5 * n12 * size);
        for (int step = 0; step < 150; step++) {
          whole->step(1, nullptr);
          for (auto& s : slab) s->step(1, nullptr, false, false);
          for (std::size_t r = 0; r < 2; r++) {
            Lattice& from = *slab[r];
            Lattice& to = *slab[1 - r];  // periodic: each slab is the other's neighbour both ways
            CHECK(from.haloSize(owned) == to.haloSize(0));
            if (streaming == Streaming::InPlace && from.stepCount() % 2 == 1) {
              from.copyHalo(owned + 1, 1, up.data(), true);
              to.copyHalo(1, 1, up.data(), false);
              from.copyHalo(0, -1, down.data(), true);
              to.copyHalo(owned, -1, down.data(), false);
              continue;
            }
            from.copyHalo(owned, 1, up.data(), true);
            to.copyHalo(0, 1, up.data(), false);
            from.copyHalo(1, -1, down.data(), true);
            to.copyHalo(owned + 1, -1, down.data(), false);
          }
        }
        double difference = 0;
        for (std::size_t r = 0; r < 2; r++) {
          for (std::size_t v = 0; v < owned * n12; v++) {
            for (std::size_t a = 0; a < 3; a++) {
              difference = std::max(
                  difference, std::fabs(velocityAt(*slab[r], n12 + v, a) - velocityAt(*whole, r * owned * n12 + v, a)));
            }
          }
        }
        REPORT("%s %s %s: largest velocity difference %.1e",
               streaming == Streaming::InPlace ? "in place" : "two lattices",
               precision == Precision::F32 ? "f32" : "f64", layout == Layout::Dense ? "dense" : "sparse", difference);
        CHECK(difference == 0.0);

        // A saved state restored gives the same fields again.
        whole->updateFields();
        const double before = velocityAt(*whole, 7, 0);
        whole->saveState();
        whole->step(3, nullptr);
        whole->step(1, nullptr);
        CHECK(whole->stepCount() == 154);
        whole->restoreState();
        whole->updateFields();
        CHECK(whole->stepCount() == 150);
        CHECK(velocityAt(*whole, 7, 0) == before);
        bool refused = false;
        try {
          whole->haloSize(shape[0]);
        } catch (const FlowError& e) {
          refused = std::string(e.argument()) == "plane";
        }
        CHECK(refused);
      }
    }
  }
}

// Streaming in place computes what two lattices compute, bit for bit: the same values read
// in the same order by the same collision, whatever the step count's parity, with walls, a
// pressure drive, gray voxels, per-voxel porosity and force, with and without inertia.
TEST(in_place_streaming_equals_two_lattices_bit_for_bit) {
  const std::array<std::size_t, 3> shape{9, 6, 7};
  const std::size_t n = shape[0] * shape[1] * shape[2];
  const auto solid = randomSolid(n, 0.25, 5);
  std::mt19937 random(9);
  std::uniform_real_distribution<double> uniform(0, 1);
  std::vector<double> fraction(n);
  for (std::size_t v = 0; v < n; v++)
    fraction[v] = solid[v] ? 1.0 : uniform(random) < 0.3 ? 0.4 * uniform(random) : 0.0;
  int setups = 0;
  for (Precision precision : {Precision::F64, Precision::F32}) {
    for (Layout layout : {Layout::Dense, Layout::Sparse}) {
      for (int variant = 0; variant < 4; variant++) {
        LatticeOptions o;
        o.shape = shape;
        o.precision = precision;
        o.layout = layout;
        o.inertia = variant != 1;
        if (variant == 2) {
          o.solidFraction = fraction;
        } else {
          o.solid = solid;
        }
        if (variant == 1) {
          o.periodic = {true, false, true};
          o.pressure = {2, 1.01, 0.99};
          o.periodic[2] = false;
        } else {
          o.periodic = {true, variant != 3, true};
          o.bodyForce = {1e-4, 3e-5, -2e-5};
        }
        std::unique_ptr<Lattice> lattice[2];
        for (int k = 0; k < 2; k++) {
          LatticeOptions copy = o;
          copy.streaming = k == 0 ? Streaming::InPlace : Streaming::TwoLattice;
          lattice[k] = makeLattice(std::move(copy));
          if (variant == 3) {
            double* porosity = lattice[k]->porosity();
            double* force = lattice[k]->force();
            for (std::size_t v = 0; v < n; v++) {
              porosity[v] = 0.5 + 0.5 * double((v * 7) % 5) / 4.0;
              force[3 * v + 2] = 1e-5 * double(v % 3);
            }
          }
        }
        for (std::size_t steps : {1, 2, 7, 40}) {
          for (auto& l : lattice) l->step(steps, nullptr);
          for (auto& l : lattice) l->allocateFields();
          const std::size_t bytes = precision == Precision::F32 ? 4 : 8;
          CHECK(lattice[0]->stepCount() == lattice[1]->stepCount());
          CHECK(std::memcmp(lattice[0]->velocityData(), lattice[1]->velocityData(), 3 * n * bytes) == 0);
          CHECK(std::memcmp(lattice[0]->densityData(), lattice[1]->densityData(), n * bytes) == 0);
          CHECK(lattice[0]->moments().momentum == lattice[1]->moments().momentum);
          CHECK(lattice[0]->moments().mass == lattice[1]->moments().mass);
        }
        CHECK(lattice[0]->bytes() < lattice[1]->bytes());
        setups++;
      }
    }
  }
  REPORT("%d set-ups equal after 1, 3, 10 and 50 steps", setups);
}

// In place, a step that would start from a state out of bounds is not taken either: the
// state is read before it when the step before cannot prove it within them.
TEST(in_place_divergence_keeps_the_last_finite_state) {
  for (Layout layout : {Layout::Dense, Layout::Sparse}) {
    std::unique_ptr<Lattice> lattice[2];
    for (int k = 0; k < 2; k++) {
      LatticeOptions o;
      o.shape = {8, 6, 6};
      o.solid = randomSolid(8 * 6 * 6, 0.1, 3);
      o.layout = layout;
      o.bodyForce = {0.9, 0, 0};
      o.streaming = k == 0 ? Streaming::InPlace : Streaming::TwoLattice;
      lattice[k] = makeLattice(std::move(o));
    }
    std::size_t taken[2] = {0, 0};
    for (int k = 0; k < 2; k++) taken[k] = lattice[k]->step(100000, nullptr);
    CHECK(lattice[0]->diverged() && lattice[1]->diverged());
    CHECK(taken[0] == taken[1]);
    CHECK(lattice[0]->divergedAt() == lattice[1]->divergedAt());
    CHECK(lattice[0]->moments().finite);
    lattice[0]->allocateFields();
    lattice[1]->allocateFields();
    CHECK(std::memcmp(lattice[0]->velocityData(), lattice[1]->velocityData(), 3 * 8 * 6 * 6 * 8) == 0);
    REPORT("%s: diverges at step %zu in both schemes", layout == Layout::Dense ? "dense" : "sparse",
           lattice[0]->divergedAt());
    // Nothing is taken from there, and the state stays as it was.
    CHECK(lattice[0]->step(3, nullptr) == 0);
    CHECK(lattice[0]->step(1, nullptr) == 0);
    CHECK(!lattice[0]->checkStep(false) && !lattice[0]->checkStep(true));
  }
}

TEST(percolation_is_18_connected) {
  // Two pore voxels touching along an edge only: D3Q19 moves fluid between them.
  std::vector<std::uint8_t> solid(2 * 2 * 1, 1);
  solid[0] = 0;  // (0, 0, 0)
  solid[3] = 0;  // (1, 1, 0)
  CHECK(percolates(solid.data(), {2, 2, 1}, 0));
  solid[3] = 1;
  solid[2] = 1;
  CHECK(!percolates(solid.data(), {2, 2, 1}, 0));
}

TEST(percolation_crosses_the_faces_of_periodic_sides_only) {
  // Along axis 0: pore at y = 0 for x < 2 and at y = 3 for x >= 2; the only link between the
  // halves is the diagonal (1, 0) -> (2, 3) across the y faces.
  const std::array<std::size_t, 3> shape{4, 4, 1};
  std::vector<std::uint8_t> solid(16, 1);
  for (std::size_t x = 0; x < 4; x++) solid[(x * 4 + (x < 2 ? 0 : 3))] = 0;
  CHECK(!percolates(solid.data(), shape, 0));
  CHECK(percolates(solid.data(), shape, 0, {false, true, false}));
  // Never across the faces of the flow axis itself.
  std::vector<std::uint8_t> ends(16, 1);
  ends[0] = 0;   // (0, 0): the inlet face
  ends[12] = 0;  // (3, 0): the outlet face, a neighbour only across the x faces
  CHECK(!percolates(ends.data(), shape, 0, {true, true, true}));
}

TEST(invalid_options_name_the_argument) {
  auto argumentOf = [](LatticeOptions o) -> std::string {
    try {
      makeLattice(std::move(o));
    } catch (const FlowError& e) {
      return e.argument();
    }
    return "";
  };
  LatticeOptions good = channel(4, 0);
  LatticeOptions o = good;
  o.relaxation.tauPlus = 0.5;
  CHECK(argumentOf(o) == "viscosity");
  o = good;
  o.relaxation.magic = -1;
  CHECK(argumentOf(o) == "relaxation.magic");
  o = good;
  o.solid.assign(3, 0);
  CHECK(argumentOf(o) == "solid");
  o = good;
  o.bodyForce = {std::nan(""), 0, 0};
  CHECK(argumentOf(o) == "bodyForce");
  o = good;
  o.pressure.axis = 2;
  CHECK(argumentOf(o) == "pressure.axis");  // periodic
  o = good;
  o.shape = {1u << 20, 1u << 20, 1u << 20};
  CHECK(argumentOf(o) == "shape");
  o = good;
  o.solidFraction = {0, 0.5, 2, 0};
  CHECK(argumentOf(o) == "solidFraction");
}
