// Elastic, frictionless dense gas: energy and momentum conservation.
#include "scenarios.hpp"
#include "test_framework.hpp"
#include "thread_pool.hpp"

using namespace peclet::dem;
using namespace peclet::dem::testing;

TEST(elastic_gas_conserves_energy_and_momentum) {
  ThreadPool pool(2);
  SimulationOptions options = linearOptions(1e4, 1.0, 0.0);
  const std::size_t count = 1000;
  const double r = 0.5, fraction = 0.3;
  const double side = std::cbrt(count * 4.0 / 3.0 * kPi * r * r * r / fraction);
  options.box = {{0, 0, 0}, {side, side, side}};
  options.periodic = {true, true, true};
  options.parallelFor = pool.function();
  options.workers = 2;
  Simulation simulation(options);
  addDenseGas(simulation, count, r, 1.0, 1.0, 7);
  auto total = [&] { return simulation.kineticEnergy() + simulation.elasticEnergy(); };
  const double e0 = total();
  const Vec3 p0 = simulation.momentum();
  double scale = 0.0;  // Σ m|v|, the size of the momentum round-off
  for (std::size_t i = 0; i < count; ++i) {
    const double* v = simulation.velocities() + 3 * i;
    scale += std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) * 4.0 / 3.0 * kPi * r * r * r;
  }
  double worst = 0.0, worstMomentum = 0.0, contactsSeen = 0.0;
  for (int block = 0; block < 100; ++block) {
    CHECK(simulation.step(100).status == StepStatus::Done);
    worst = std::max(worst, std::fabs(total() - e0) / e0);
    contactsSeen += double(simulation.contacts().size());
    const Vec3 p = simulation.momentum();
    for (int d = 0; d < 3; ++d) worstMomentum = std::max(worstMomentum, std::fabs(p[d] - p0[d]));
  }
  REPORT("N = %zu, phi = %.2f, dt = %.4g s (contact time / 50), 10^4 steps, %llu list rebuilds", count, fraction,
         simulation.timestep().timestep, (unsigned long long)simulation.rebuildCount());
  REPORT("mean contacts at samples: %.1f", contactsSeen / 100);
  REPORT("max |E - E0| / E0 = %.3g; max |P - P0| = %.3g (sum m|v| = %.3g, ratio %.3g)", worst, worstMomentum, scale,
         worstMomentum / scale);
  CHECK(worst < 1e-4);
  CHECK(worstMomentum < 1e-12 * scale);
}
