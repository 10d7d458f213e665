// Invalid inputs give structured errors and leave the simulation unchanged.
#include <cstring>
#include <limits>

#include "scenarios.hpp"
#include "test_framework.hpp"

using namespace peclet::dem;
using namespace peclet::dem::testing;

namespace {

SimulationOptions boxOptions() {
  SimulationOptions options = linearOptions(1e4, 0.5, 0.5);
  options.box = {{0, 0, 0}, {1, 1, 1}};
  return options;
}

}  // namespace

TEST(validation_of_spheres) {
  Simulation simulation(boxOptions());
  const double positions[6] = {0.2, 0.2, 0.2, 0.5, 0.5, 0.5};
  double radii[2] = {0.01, -0.01};
  SphereBatch batch;
  batch.positions = positions;
  batch.positionsLength = 6;
  batch.radii = radii;
  batch.radiiLength = 2;
  batch.density = 1000;
  ValidationError error = expectError([&] { simulation.addSpheres(batch); });
  CHECK(error.kind == ErrorKind::Range && error.argument == "radii" && error.index == 1);
  REPORT("%s", error.message.c_str());
  radii[1] = 0.0;
  CHECK(expectError([&] { simulation.addSpheres(batch); }).index == 1);
  radii[1] = std::numeric_limits<double>::quiet_NaN();
  CHECK(expectError([&] { simulation.addSpheres(batch); }).argument == "radii");
  radii[1] = 0.01;
  batch.density = 0.0;
  error = expectError([&] { simulation.addSpheres(batch); });
  CHECK(error.argument == "density" && error.kind == ErrorKind::Range);
  batch.density = -5;
  CHECK(expectError([&] { simulation.addSpheres(batch); }).argument == "density");
  batch.density = 1000;
  double bad[6];
  std::memcpy(bad, positions, sizeof bad);
  bad[4] = std::numeric_limits<double>::quiet_NaN();
  batch.positions = bad;
  error = expectError([&] { simulation.addSpheres(batch); });
  CHECK(error.argument == "positions" && error.index == 4);
  bad[4] = 2.0;  // outside the walled box
  error = expectError([&] { simulation.addSpheres(batch); });
  CHECK(error.argument == "positions" && error.index == 4);
  REPORT("%s", error.message.c_str());
  batch.positions = positions;
  batch.positionsLength = 5;
  error = expectError([&] { simulation.addSpheres(batch); });
  CHECK(error.kind == ErrorKind::Type && error.argument == "positions");
  CHECK(simulation.sphereCount() == 0);  // nothing was added by failed calls
  batch.positionsLength = 6;
  simulation.addSpheres(batch);
  CHECK(simulation.sphereCount() == 2);
}

TEST(validation_of_options) {
  SimulationOptions options = boxOptions();
  options.contact.restitution = 0.0;
  ValidationError error = expectError([&] { Simulation s(options); });
  CHECK(error.argument == "contact.restitution" && error.kind == ErrorKind::Range);
  options = boxOptions();
  options.contact.stiffness = std::numeric_limits<double>::quiet_NaN();
  error = expectError([&] { Simulation s(options); });
  CHECK(error.argument == "contact.stiffness" && error.kind == ErrorKind::Type);
  options = boxOptions();
  options.box.max[1] = -1;
  CHECK(expectError([&] { Simulation s(options); }).argument == "box");
  options = boxOptions();
  options.contact.friction = -0.1;
  CHECK(expectError([&] { Simulation s(options); }).argument == "contact.friction");
  options = boxOptions();
  options.contact.model = ContactModelKind::HertzMindlin;
  CHECK(expectError([&] { Simulation s(options); }).argument == "contact.youngsModulus");
}

TEST(timestep_above_stability_limit_is_rejected_with_the_limit) {
  SimulationOptions options = boxOptions();
  options.timestep = 1e-2;
  Simulation simulation(options);
  ValidationError error = expectError([&] { addSphere(simulation, {0.5, 0.5, 0.5}, 0.01, 2500); });
  CHECK(error.argument == "timestep" && error.kind == ErrorKind::Range);
  CHECK(error.message.find("stability limit") != std::string::npos);
  REPORT("%s", error.message.c_str());
  CHECK(simulation.sphereCount() == 0);
}

TEST(periodic_axis_too_short_is_rejected) {
  SimulationOptions options = boxOptions();
  options.periodic = {true, false, false};
  Simulation simulation(options);
  ValidationError error = expectError([&] { addSphere(simulation, {0.5, 0.5, 0.5}, 0.2, 2500); });
  CHECK(error.argument == "radii");
  REPORT("%s", error.message.c_str());
}

TEST(insertion_that_cannot_fit_fails_cleanly) {
  SimulationOptions options = boxOptions();
  options.gravity = {0, 0, -9.81};
  options.periodic = {true, true, false};
  Simulation simulation(options);
  DepositOptions deposit;
  deposit.count = 2000;  // 2000 spheres of r = 0.05 are 1.05 box volumes
  deposit.radius.radius = 0.05;
  deposit.density = 2500;
  deposit.maxAttemptsPerSphere = 200;
  ValidationError error = expectError([&] { simulation.deposit(deposit); });
  CHECK(error.argument == "count" && error.kind == ErrorKind::Range && error.index > 0);
  REPORT("%s", error.message.c_str());
  CHECK(simulation.sphereCount() == 0);
  deposit.radius.radius = -1;
  CHECK(expectError([&] { simulation.deposit(deposit); }).argument == "radius.radius");
}
