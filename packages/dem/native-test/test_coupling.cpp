// What a fluid coupling needs from the kernel: external forces, fixed
// spheres, the overlap statistics.
#include <vector>

#include "scenarios.hpp"
#include "test_framework.hpp"

using namespace peclet::dem;
using namespace peclet::dem::testing;

TEST(external_force_accelerates_as_f_over_m) {
  SimulationOptions options = linearOptions(1e4, 0.5, 0.5);
  options.box = {{0, 0, 0}, {10, 10, 10}};
  options.timestep = 1e-3;
  Simulation simulation(options);
  addSphere(simulation, {5, 5, 5}, 0.1, 1000);
  const double force[3] = {0.3, -0.2, 0.5};
  for (int d = 0; d < 3; ++d) simulation.externalForces()[d] = force[d];
  simulation.step(10);
  simulation.step(990);
  const double m = 1000 * 4.0 / 3.0 * kPi * 0.1 * 0.1 * 0.1;
  const double t = simulation.time();
  for (int d = 0; d < 3; ++d) {
    CHECK_NEAR(simulation.positions()[d], 5 + force[d] * t * t / (2 * m), 1e-12);
    CHECK_NEAR(simulation.velocities()[d], force[d] * t / m, 1e-12);
    CHECK(simulation.forces()[d] == force[d]);
  }
}

TEST(non_finite_external_force_refused_without_change) {
  SimulationOptions options = linearOptions(1e4, 0.5, 0.5);
  Simulation simulation(options);
  addSphere(simulation, {0.5, 0.5, 0.5}, 0.1, 1000, {0.1, 0, 0});
  simulation.step(3);
  const double x = simulation.positions()[0];
  simulation.externalForces()[1] = std::nan("");
  const ValidationError error = expectError([&] { simulation.step(5); });
  CHECK(error.argument == "externalForces");
  CHECK(error.index == 1);
  CHECK(simulation.stepCount() == 3);
  CHECK(simulation.positions()[0] == x);
  simulation.externalForces()[1] = 0.0;
  simulation.step(5);
  CHECK(simulation.stepCount() == 8);
}

TEST(sphere_rebounds_off_fixed_sphere_as_off_infinite_mass) {
  SimulationOptions options = linearOptions(1e4, 0.5, 0.3);
  Simulation simulation(options);
  const double positions[6] = {0.5, 0.5, 0.5, 0.3, 0.5, 0.5};
  const double radii[2] = {0.05, 0.05};
  const double velocities[6] = {0, 0, 0, 0.5, 0, 0};
  const std::uint8_t fixed[2] = {1, 0};
  SphereBatch batch;
  batch.positions = positions;
  batch.positionsLength = 6;
  batch.radii = radii;
  batch.radiiLength = 2;
  batch.density = 1000;
  batch.velocities = velocities;
  batch.velocitiesLength = 6;
  batch.fixed = fixed;
  batch.fixedLength = 2;
  simulation.addSpheres(batch);
  CHECK(simulation.fixedCount() == 1);
  simulation.step(std::size_t((0.4 + 4 * simulation.timestep().contactTime) / simulation.timestep().timestep));
  const double rebound = -simulation.velocities()[3] / 0.5;
  REPORT("restitution off a fixed sphere: %.5f (asked 0.5)", rebound);
  CHECK_NEAR(rebound, 0.5, 0.005);
  CHECK(simulation.positions()[0] == 0.5 && simulation.velocities()[0] == 0.0);
  CHECK(simulation.meanTranslationalKineticEnergy() == simulation.translationalKineticEnergy());
}

TEST(fixed_sphere_with_velocity_refused) {
  Simulation simulation(linearOptions(1e4, 0.5, 0.3));
  const double position[3] = {0.5, 0.5, 0.5}, radius = 0.1, velocity[3] = {0, 1, 0};
  const std::uint8_t fixed = 1;
  SphereBatch batch;
  batch.positions = position;
  batch.positionsLength = 3;
  batch.radii = &radius;
  batch.radiiLength = 1;
  batch.density = 1000;
  batch.velocities = velocity;
  batch.velocitiesLength = 3;
  batch.fixed = &fixed;
  batch.fixedLength = 1;
  const ValidationError error = expectError([&] { simulation.addSpheres(batch); });
  CHECK(error.argument == "velocities" && error.index == 1);
  batch.fixedLength = 2;
  CHECK(expectError([&] { simulation.addSpheres(batch); }).argument == "fixed");
  CHECK(simulation.sphereCount() == 0);
}

TEST(overlap_statistics_match_the_contacts) {
  Simulation simulation(linearOptions(1e4, 0.5, 0.3));
  addSphere(simulation, {0.3, 0.5, 0.5}, 0.05, 1000);
  addSphere(simulation, {0.39, 0.5, 0.5}, 0.05, 1000);
  addSphere(simulation, {0.7, 0.5, 0.5}, 0.04, 1000);
  addSphere(simulation, {0.77, 0.5, 0.5}, 0.04, 1000);
  // Before any step (computed from the lists) and after one (from the force pass).
  for (int pass = 0; pass < 2; ++pass) {
    double sum = 0.0, max = 0.0;
    const std::vector<Contact> contacts = simulation.contacts();
    for (const Contact& c : contacts) {
      const double share = c.overlap / std::min(simulation.radii()[c.first], simulation.radii()[c.second]);
      sum += share;
      max = std::max(max, share);
    }
    const OverlapStatistics stats = simulation.overlapStatistics();
    CHECK(stats.contacts == 2 && contacts.size() == 2);
    CHECK_NEAR(stats.mean, sum / 2, 1e-14);
    CHECK_NEAR(stats.max, max, 1e-14);
    simulation.step(1);
  }
}
