// A sphere on a frictional incline (tilted gravity, floor wall).
#include "scenarios.hpp"
#include "test_framework.hpp"

using namespace peclet::dem;
using namespace peclet::dem::testing;

namespace {

struct InclineResult {
  double acceleration;  // along the slope, fitted from the velocity (m/s²)
  double displacement;  // along the slope during the measurement (m)
  double speed;         // along the slope at the end (m/s)
};

InclineResult incline(double degrees, double friction, bool rotation) {
  const double g = 9.81, theta = degrees * kPi / 180.0;
  SimulationOptions options = linearOptions(1e5, 0.3, friction);
  options.box = {{0, 0, 0}, {1, 1, 1}};
  options.periodic = {true, true, false};
  options.gravity = {g * std::sin(theta), 0, -g * std::cos(theta)};
  options.rotation = rotation;
  Simulation simulation(options);
  const double r = 0.01, density = 2500;
  const double mass = density * 4.0 / 3.0 * kPi * r * r * r;
  // Start at the static overlap so that there is no bounce.
  const double overlap = mass * g * std::cos(theta) / 1e5;
  addSphere(simulation, {0.5, 0.5, r - overlap}, r, density);
  const double dt = simulation.timestep().timestep;
  const auto settle = std::size_t(0.05 / dt), measure = std::size_t(0.2 / dt);
  simulation.step(settle);
  const double v1 = simulation.velocities()[0];
  const double x1 = simulation.positions()[0];
  simulation.step(measure);
  const double v2 = simulation.velocities()[0];
  double moved = simulation.positions()[0] - x1;
  moved -= std::floor(moved + 0.5);  // periodic wrap; runs are short
  return {(v2 - v1) / (measure * dt), moved, v2};
}

}  // namespace

TEST(incline_sticks_below_friction_angle_without_rotation) {
  const double mu = 0.5;
  for (double degrees : {10.0, 20.0, 26.0}) {  // tan θ < μ (26.57°)
    const InclineResult result = incline(degrees, mu, false);
    REPORT("theta %.0f deg, tan %.3f < mu %.2f: final speed %.3g m/s, displacement %.3g m", degrees,
           std::tan(degrees * kPi / 180), mu, result.speed, result.displacement);
    CHECK(std::fabs(result.speed) < 1e-6);
    CHECK(std::fabs(result.displacement) < 1e-9);  // stuck once the spring has loaded
  }
}

TEST(incline_slides_with_coulomb_acceleration_without_rotation) {
  const double mu = 0.5, g = 9.81;
  for (double degrees : {30.0, 35.0, 50.0}) {
    const double theta = degrees * kPi / 180;
    const double expected = g * (std::sin(theta) - mu * std::cos(theta));
    const InclineResult result = incline(degrees, mu, false);
    REPORT("theta %.0f deg: a = %.6f, g(sin - mu cos) = %.6f (error %.4f%%)", degrees, result.acceleration, expected,
           100 * (result.acceleration / expected - 1));
    CHECK_NEAR(result.acceleration, expected, 0.01 * expected);
  }
}

TEST(incline_rolls_or_slides_with_rotation) {
  const double mu = 0.5, g = 9.81;
  // Rolling without slip needs tan θ < 7μ/2; the centre then accelerates at 5/7 g sin θ.
  for (double degrees : {20.0, 45.0}) {
    const double theta = degrees * kPi / 180;
    const double expected = 5.0 / 7.0 * g * std::sin(theta);
    const InclineResult result = incline(degrees, mu, true);
    REPORT("rolling, theta %.0f deg: a = %.6f, 5/7 g sin = %.6f (error %.4f%%)", degrees, result.acceleration, expected,
           100 * (result.acceleration / expected - 1));
    CHECK_NEAR(result.acceleration, expected, 0.01 * expected);
  }
  const double theta = 65.0 * kPi / 180;  // tan 65° = 2.14 > 1.75
  const double expected = g * (std::sin(theta) - mu * std::cos(theta));
  const InclineResult result = incline(65.0, mu, true);
  REPORT("sliding with rotation, theta 65 deg: a = %.6f, expected %.6f (error %.4f%%)", result.acceleration, expected,
         100 * (result.acceleration / expected - 1));
  CHECK_NEAR(result.acceleration, expected, 0.01 * expected);
}
