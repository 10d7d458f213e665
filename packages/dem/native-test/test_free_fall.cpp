// Velocity Verlet is exact under constant acceleration.
#include "scenarios.hpp"
#include "test_framework.hpp"

using namespace peclet::dem;
using namespace peclet::dem::testing;

TEST(free_fall_matches_exact_discrete_solution) {
  SimulationOptions options = linearOptions(1e4, 0.5, 0.5);
  options.box = {{-10, -10, -200}, {10, 10, 10}};
  options.gravity = {0.3, -0.2, -9.81};
  Simulation simulation(options);
  const Vec3 x0{0.1, -0.2, 0.3}, v0{1.0, 0.5, 2.0};
  addSphere(simulation, x0, 0.01, 2500, v0);
  // Split across calls: the state between calls is a whole step.
  simulation.step(300);
  simulation.step(1700);
  const double dt = simulation.timestep().timestep;
  const double t = 2000 * dt;
  REPORT("dt = %.6g s, t = %.6g s", dt, t);
  double worst = 0.0;
  for (int a = 0; a < 3; ++a) {
    const double x = x0[a] + v0[a] * t + 0.5 * options.gravity[a] * t * t;
    const double v = v0[a] + options.gravity[a] * t;
    worst = std::max(worst, std::fabs(simulation.positions()[a] - x));
    worst = std::max(worst, std::fabs(simulation.velocities()[a] - v));
    CHECK_NEAR(simulation.positions()[a], x, 1e-12 * (1 + std::fabs(x)));
    CHECK_NEAR(simulation.velocities()[a], v, 1e-12 * (1 + std::fabs(v)));
  }
  REPORT("largest deviation from x0 + v0 t + g t^2/2, v0 + g t: %.3g", worst);
  CHECK_NEAR(simulation.time(), t, 1e-12);
}
