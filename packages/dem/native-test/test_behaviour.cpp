// Determinism, cancellation, escape policy, queries and a small deposition.
#include <atomic>
#include <cstring>

#include "scenarios.hpp"
#include "test_framework.hpp"
#include "thread_pool.hpp"

using namespace peclet::dem;
using namespace peclet::dem::testing;

namespace {

std::vector<double> runGas(unsigned threads, unsigned workers, std::size_t steps) {
  ThreadPool pool(threads);
  SimulationOptions options = linearOptions(1e4, 0.7, 0.4);
  options.box = {{0, 0, 0}, {10, 10, 10}};
  options.periodic = {true, true, false};
  options.gravity = {0, 0, -1};
  options.parallelFor = pool.function();
  options.workers = workers;
  Simulation simulation(options);
  addDenseGas(simulation, 600, 0.5, 1.0, 1.0, 11);
  simulation.step(steps);
  return std::vector<double>(simulation.positions(), simulation.positions() + 3 * 600);
}

}  // namespace

TEST(results_are_deterministic_for_a_fixed_worker_count) {
  const std::vector<double> a = runGas(2, 4, 3000);
  const std::vector<double> b = runGas(3, 4, 3000);  // different scheduling, same chunks
  const std::vector<double> c = runGas(1, 4, 3000);
  CHECK(std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
  CHECK(std::memcmp(a.data(), c.data(), a.size() * sizeof(double)) == 0);
}

TEST(cancellation_between_steps) {
  SimulationOptions options = linearOptions(1e4, 0.5, 0.5);
  options.box = {{0, 0, 0}, {1, 1, 1}};
  Simulation simulation(options);
  addSphere(simulation, {0.5, 0.5, 0.5}, 0.01, 2500, {0.1, 0, 0});
  std::atomic<bool> cancel{true};
  StepReport report = simulation.step(100, &cancel);
  CHECK(report.status == StepStatus::Cancelled && report.steps == 0);
  cancel = false;
  report = simulation.step(100, &cancel);
  CHECK(report.status == StepStatus::Done && report.steps == 100);
  CHECK(simulation.stepCount() == 100);
}

TEST(escaping_sphere_is_clamped_and_reported) {
  SimulationOptions options = linearOptions(1e4, 0.5, 0.5);
  options.box = {{0, 0, 0}, {1, 1, 1}};
  options.walls[5] = false;  // open top
  options.gravity = {0, 0, 0};
  Simulation simulation(options);
  addSphere(simulation, {0.5, 0.5, 0.5}, 0.01, 2500);
  addSphere(simulation, {0.2, 0.2, 0.9}, 0.01, 2500, {0, 0, 1000});
  const StepReport report = simulation.step(200);
  CHECK(report.status == StepStatus::Done);
  CHECK(report.clampedSpheres > 0 && report.firstClampedSphere == 1);
  CHECK(simulation.positions()[5] == 1.0);
  REPORT("clamped %zu times, sphere %td", report.clampedSpheres, report.firstClampedSphere);
}

TEST(packing_fraction_cuts_spheres_exactly) {
  SimulationOptions options = linearOptions(1e4, 0.5, 0.5);
  options.box = {{0, 0, 0}, {1, 1, 1}};
  options.periodic = {true, false, false};
  Simulation simulation(options);
  const double r = 0.1, volume = 4.0 / 3.0 * kPi * r * r * r;
  addSphere(simulation, {0.5, 0.5, 0.5}, r, 1000);
  addSphere(simulation, {0.02, 0.3, 0.3}, r, 1000);  // straddles the periodic x face
  CHECK_NEAR(simulation.packingFraction({0, 0, 0}, {1, 1, 1}), 2 * volume, 1e-15);
  CHECK_NEAR(simulation.packingFraction({0.5, 0.5, 0}, {1, 1, 1}), volume, 1e-15);
  // The image of the straddling sphere (centre x = 1.02) is cut by x ≤ 1.
  CHECK_NEAR(simulation.packingFraction({0.9, 0.1, 0.1}, {1, 0.5, 0.5}) * 0.016,
             sphereBoxVolume({1.02, 0.3, 0.3}, r, {0.9, 0.1, 0.1}, {1, 0.5, 0.5}), 1e-16);
  CHECK_NEAR(simulation.packingFraction({0.5, 0.5, 0.5}, {0.6, 0.6, 0.6}) * 1e-3, volume / 8, 1e-16);
  CHECK_NEAR(sphereBoxVolume({0, 0, 0}, 1.0, {0.3, -2, -2}, {2, 2, 2}), kPi * 0.7 * 0.7 * 2.3 / 3.0, 1e-14);
}

TEST(a_thin_box_through_a_sphere_never_holds_a_negative_volume) {
  // A slab [z0, z0 + t] across a unit sphere holds π(t − ((z0 + t)³ − z0³)/3): the sum of corner
  // and face terms of order 1 cancels to it, and its round-off once came out below 0.
  for (double t : {1e-5, 1e-7, 1e-9})
    for (double z0 : {-0.999, -0.5, 0.0, 0.3, 0.7, 0.99999}) {
      const double v = sphereBoxVolume({0, 0, 0}, 1.0, {-2, -2, z0}, {2, 2, z0 + t});
      const double exact = kPi * (t - ((z0 + t) * (z0 + t) * (z0 + t) - z0 * z0 * z0) / 3.0);
      CHECK(v >= 0.0);
      CHECK_NEAR(v, exact, 1e-14);
    }
  // A sphere that misses the box (its cut circle lies at y < 0) once came out at −4.6e-19.
  const double missed =
      sphereBoxVolume({0.84186402544289485, -0.32748691110219624, 0.39316045526474042}, 0.4, {0, 0, 0}, {1, 1, 1e-5});
  CHECK(missed >= 0.0 && missed < 1e-18);
}

TEST(voxelize_samples_voxel_centres_with_periodic_images_on_any_worker_count) {
  // A sphere straddling the periodic x face and one inside, on 10³ voxels
  // of 0.1 from the origin: voxel (i, j, k) is solid when its centre
  // (i + ½, j + ½, k + ½)/10 lies within a sphere or an image of one.
  std::vector<std::uint8_t> first;
  for (unsigned workers : {1u, 3u, 7u}) {
    ThreadPool pool(2);
    SimulationOptions options = linearOptions(1e4, 0.5, 0.5);
    options.box = {{0, 0, 0}, {1, 1, 1}};
    options.periodic = {true, false, false};
    options.parallelFor = pool.function();
    options.workers = workers;
    Simulation simulation(options);
    addSphere(simulation, {0.52, 0.48, 0.5}, 0.12, 1000);
    addSphere(simulation, {0.03, 0.2, 0.8}, 0.09, 1000);
    const std::size_t n[3] = {10, 10, 10};
    std::vector<std::uint8_t> solid(1000, 7);
    simulation.voxelize({0, 0, 0}, n, 0.1, solid.data());
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < 10; i++)
      for (std::size_t j = 0; j < 10; j++)
        for (std::size_t k = 0; k < 10; k++) {
          const double x = (i + 0.5) / 10, y = (j + 0.5) / 10, z = (k + 0.5) / 10;
          auto inside = [&](double cx, double cy, double cz, double r) {
            return (x - cx) * (x - cx) + (y - cy) * (y - cy) + (z - cz) * (z - cz) <= r * r;
          };
          const bool expected = inside(0.52, 0.48, 0.5, 0.12) || inside(0.03, 0.2, 0.8, 0.09) ||
                                inside(1.03, 0.2, 0.8, 0.09) || inside(-0.97, 0.2, 0.8, 0.09);
          wrong += solid[(i * 10 + j) * 10 + k] != (expected ? 1 : 0);
        }
    CHECK(wrong == 0);
    if (first.empty()) first = solid;
    CHECK(solid == first);
  }
}

TEST(contacts_and_coordination) {
  SimulationOptions options = linearOptions(1e4, 0.5, 0.5);
  options.box = {{0, 0, 0}, {1, 1, 1}};
  options.gravity = {0, 0, 0};
  Simulation simulation(options);
  addSphere(simulation, {0.5, 0.5, 0.5}, 0.1, 1000);
  addSphere(simulation, {0.69, 0.5, 0.5}, 0.1, 1000);
  addSphere(simulation, {0.5, 0.71, 0.5}, 0.1, 1000);  // within the skin: listed, no contact
  const auto contacts = simulation.contacts();
  CHECK(contacts.size() == 1);
  CHECK(contacts[0].first == 0 && contacts[0].second == 1);
  CHECK_NEAR(contacts[0].overlap, 0.01, 1e-12);
  CHECK_NEAR(simulation.coordinationNumber(), 2.0 / 3.0, 1e-15);
}

TEST(small_deposition_settles_without_overlap_at_insertion) {
  ThreadPool pool(2);
  SimulationOptions options = linearOptions(2000, 0.3, 0.5);
  options.box = {{0, 0, 0}, {6, 6, 12}};
  options.periodic = {true, true, false};
  options.gravity = {0, 0, -1};
  options.parallelFor = pool.function();
  options.workers = 2;
  Simulation simulation(options);
  DepositOptions deposit;
  deposit.count = 200;
  deposit.radius.kind = RadiusDistributionKind::LogNormal;
  deposit.radius.medianRadius = 0.5;
  deposit.radius.logStandardDeviation = 0.15;
  deposit.radius.minRadius = 0.35;
  deposit.radius.maxRadius = 0.7;
  deposit.density = 1.0;
  deposit.seed = 42;
  const DepositReport report = simulation.deposit(deposit);
  CHECK(report.inserted == 200 && report.settled);
  CHECK(report.stepping.clampedSpheres == 0);
  double minRadius = 1, maxRadius = 0;
  for (std::size_t i = 0; i < 200; ++i) {
    minRadius = std::min(minRadius, simulation.radii()[i]);
    maxRadius = std::max(maxRadius, simulation.radii()[i]);
  }
  CHECK(minRadius >= 0.35 && maxRadius <= 0.7);
  REPORT("settled after %zu steps, KE/sphere %.3g, coordination %.2f", report.stepping.steps,
         report.kineticEnergyPerSphere, simulation.coordinationNumber());
  // A second deposit goes on top of the first bed.
  deposit.count = 50;
  deposit.seed = 43;
  CHECK(simulation.deposit(deposit).settled);
  CHECK(simulation.sphereCount() == 250);
}
