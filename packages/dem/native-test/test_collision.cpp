// Binary collisions reproduce the requested coefficient of restitution.
#include "scenarios.hpp"
#include "test_framework.hpp"

using namespace peclet::dem;
using namespace peclet::dem::testing;

namespace {

double headOnRestitution(SimulationOptions options, double speed) {
  options.box = {{-1, -1, -1}, {1, 1, 1}};
  Simulation simulation(options);
  const double r = 0.01;
  addSphere(simulation, {-1.5 * r, 0, 0}, r, 2500, {speed, 0, 0});
  addSphere(simulation, {1.5 * r, 0, 0}, r, 2500, {-speed, 0, 0});
  // Run well past the contact, then compare separation and approach speeds.
  const double approach = r / speed;
  const double tc = simulation.timestep().contactTime;
  const auto steps = std::size_t((approach + 3 * tc) / simulation.timestep().timestep);
  simulation.step(steps);
  const double* v = simulation.velocities();
  CHECK(simulation.contacts().empty());
  return (v[3] - v[0]) / (2 * speed);
}

double wallRestitution(SimulationOptions options, double speed) {
  options.box = {{-1, -1, 0}, {1, 1, 1}};
  Simulation simulation(options);
  const double r = 0.01;
  addSphere(simulation, {0, 0, 2 * r}, r, 2500, {0, 0, -speed});
  const double tc = simulation.timestep().contactTime;
  simulation.step(std::size_t((r / speed + 3 * tc) / simulation.timestep().timestep));
  return simulation.velocities()[2] / speed;
}

SimulationOptions hertzOptions(double restitution) {
  SimulationOptions options;
  options.gravity = {0, 0, 0};
  options.contact.model = ContactModelKind::HertzMindlin;
  options.contact.youngsModulus = 1e8;
  options.contact.poissonRatio = 0.3;
  options.contact.restitution = restitution;
  options.contact.friction = 0.3;
  options.impactVelocity = 1.0;
  return options;
}

}  // namespace

TEST(linear_head_on_collision_restitution) {
  for (double e : {0.3, 0.5, 0.9, 1.0}) {
    const double measured = headOnRestitution(linearOptions(1e4, e, 0.3), 1.0);
    REPORT("linear e = %.2f: measured %.5f (error %.3f%%)", e, measured, 100 * (measured / e - 1));
    CHECK_NEAR(measured, e, 0.01 * e);
    const double wall = wallRestitution(linearOptions(1e4, e, 0.3), 1.0);
    REPORT("linear e = %.2f: wall bounce %.5f", e, wall);
    CHECK_NEAR(wall, e, 0.01 * e);
  }
}

TEST(hertz_head_on_collision_restitution) {
  for (double e : {0.3, 0.5, 0.9, 1.0})
    for (double speed : {0.3, 1.0, 3.0}) {
      const double measured = headOnRestitution(hertzOptions(e), speed);
      REPORT("Hertz e = %.2f, v = %.1f m/s: measured %.5f (error %.3f%%)", e, speed, measured,
             100 * (measured / e - 1));
      CHECK_NEAR(measured, e, 0.01 * e);
      const double wall = wallRestitution(hertzOptions(e), speed);
      REPORT("Hertz e = %.2f, v = %.1f m/s: wall bounce %.5f", e, speed, wall);
      CHECK_NEAR(wall, e, 0.01 * e);
    }
}
