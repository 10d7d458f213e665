// Gravity deposition of 4096 monodisperse spheres, with and without friction:
// bulk packing fraction away from the walls and coordination numbers.
#include <chrono>
#include <cstdio>

#include "scenarios.hpp"
#include "thread_pool.hpp"

using namespace peclet::dem;
using namespace peclet::dem::testing;

namespace {

struct Outcome {
  double bulkFraction, coordination, bulkCoordination, seconds;
  std::size_t steps;
  bool settled;
};

Outcome depositBed(double friction, ThreadPool& pool) {
  // Diameter 1, density 1, g = 1: soft enough to settle quickly (overlaps stay
  // below 0.1% of a diameter at the bottom of the bed).
  SimulationOptions options;
  options.box = {{0, 0, 0}, {16, 16, 40}};
  options.periodic = {true, true, false};
  options.gravity = {0, 0, -1};
  options.contact.model = ContactModelKind::Linear;
  options.contact.stiffness = 1e4;
  options.contact.restitution = 0.2;
  options.contact.friction = friction;
  options.parallelFor = pool.function();
  options.workers = pool.size();
  // About contactTime / 20 (0.018): well inside the limit and, with the
  // second-order damping, accurate enough for a packing.
  options.timestep = 9e-4;
  Simulation simulation(options);
  DepositOptions deposit;
  deposit.count = 4096;
  deposit.radius.radius = 0.5;
  deposit.density = 1.0;
  deposit.seed = 2024;
  // m g d = π/6. Frictionless spheres keep creeping into denser
  // arrangements for a long time, so they are stopped at a looser threshold.
  deposit.kineticEnergyThreshold = (friction > 0.0 ? 1e-6 : 1e-4) * (kPi / 6.0);
  const auto start = std::chrono::steady_clock::now();
  const DepositReport report = simulation.deposit(deposit);
  Outcome outcome{};
  outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  outcome.steps = report.stepping.steps;
  outcome.settled = report.settled;
  double top = 0.0;
  for (std::size_t i = 0; i < simulation.sphereCount(); ++i)
    top = std::max(top, simulation.positions()[3 * i + 2] + 0.5);
  // Bulk: 3 diameters clear of the floor and of the free surface.
  const double low = 3.0, high = top - 3.0;
  outcome.bulkFraction = simulation.packingFraction({0, 0, low}, {16, 16, high});
  outcome.coordination = simulation.coordinationNumber();
  std::vector<int> contactsOf(simulation.sphereCount(), 0);
  for (const Contact& contact : simulation.contacts()) {
    ++contactsOf[contact.first];
    ++contactsOf[contact.second];
  }
  std::size_t inside = 0, total = 0;
  for (std::size_t i = 0; i < simulation.sphereCount(); ++i) {
    const double z = simulation.positions()[3 * i + 2];
    if (z > low && z < high) {
      ++inside;
      total += std::size_t(contactsOf[i]);
    }
  }
  outcome.bulkCoordination = double(total) / double(inside);
  std::printf("friction %.1f: %zu steps (dt = %.3g, contact time %.3g), settled %s, %.1f s\n", friction, outcome.steps,
              simulation.timestep().timestep, simulation.timestep().contactTime, outcome.settled ? "yes" : "no",
              outcome.seconds);
  std::printf("  bed top z = %.2f; bulk packing fraction (z in [%.1f, %.2f]) = %.4f\n", top, low, high,
              outcome.bulkFraction);
  std::printf("  coordination number: all spheres %.3f, bulk %.3f\n", outcome.coordination, outcome.bulkCoordination);
  return outcome;
}

}  // namespace

int main() {
  ThreadPool pool(2);
  int passed = 0, failed = 0;
  const Outcome frictional = depositBed(0.5, pool);
  const bool ok1 = frictional.settled && frictional.bulkFraction >= 0.58 && frictional.bulkFraction <= 0.64;
  std::printf("[ %s ] frictional bed packing in [0.58, 0.64]\n", ok1 ? "PASS" : "FAIL");
  (ok1 ? passed : failed)++;
  const Outcome frictionless = depositBed(0.0, pool);
  const bool ok2 = frictionless.settled && frictionless.bulkFraction >= 0.62;
  std::printf("[ %s ] frictionless bed packing >= 0.62\n", ok2 ? "PASS" : "FAIL");
  (ok2 ? passed : failed)++;
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
