// Benchmark: a bed of 32,768 spheres settling under gravity with Hookean
// contacts and friction 0.5, the same case that bench.sh gives LAMMPS.
//
//   bench prepare FILE          deposit the bed (untimed) and write it as a
//                               LAMMPS data file
//   bench run FILE THREADS N    load FILE, warm up, time N steps and print
//                               "particle-steps/s: X"
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "scenarios.hpp"
#include "thread_pool.hpp"

using namespace peclet::dem;
using namespace peclet::dem::testing;

namespace {

// The benchmark case, shared with bench.sh (keep in sync with in.bed).
constexpr double kBoxSide = 32.0, kBoxHeight = 80.0;
constexpr double kStiffness = 1e4, kRestitution = 0.5, kFriction = 0.5;
constexpr double kTimestep = 3e-4, kSkin = 0.1, kGravity = 10.0;
constexpr std::size_t kSpheres = 32768;

SimulationOptions benchOptions(ThreadPool& pool) {
  SimulationOptions options;
  options.box = {{0, 0, 0}, {kBoxSide, kBoxSide, kBoxHeight}};
  options.periodic = {true, true, false};
  options.gravity = {0, 0, -kGravity};
  options.contact.model = ContactModelKind::Linear;
  options.contact.stiffness = kStiffness;
  options.contact.restitution = kRestitution;
  options.contact.friction = kFriction;
  options.timestep = kTimestep;
  options.skin = kSkin;
  options.parallelFor = pool.function();
  options.workers = pool.size();
  return options;
}

int prepare(const char* file) {
  ThreadPool pool(2);
  SimulationOptions options = benchOptions(pool);
  options.timestep = 9e-4;  // coarser while preparing: only the packing matters
  options.contact.restitution = 0.2;
  Simulation simulation(options);
  DepositOptions deposit;
  deposit.count = kSpheres;
  deposit.radius.radius = 0.5;
  deposit.density = 1.0;
  deposit.seed = 7;
  deposit.maxSteps = 6000;  // a fixed budget: the bed need not be at rest
  const DepositReport report = simulation.deposit(deposit);
  std::printf("prepared %zu spheres in %zu steps, KE/sphere %.3g\n", simulation.sphereCount(), report.stepping.steps,
              report.kineticEnergyPerSphere);
  std::ofstream out(file);
  out << "bed of " << kSpheres << " spheres for the DEM benchmark\n\n"
      << kSpheres << " atoms\n1 atom types\n\n"
      << "0 " << kBoxSide << " xlo xhi\n0 " << kBoxSide << " ylo yhi\n0 " << kBoxHeight
      << " zlo zhi\n\nAtoms # sphere\n\n";
  out.precision(17);
  for (std::size_t i = 0; i < simulation.sphereCount(); ++i) {
    const double* x = simulation.positions() + 3 * i;
    out << i + 1 << " 1 " << 2 * simulation.radii()[i] << " 1 " << x[0] << ' ' << x[1] << ' ' << x[2] << "\n";
  }
  return 0;
}

int run(const char* file, unsigned threads, std::size_t steps) {
  std::ifstream in(file);
  std::string line;
  std::vector<double> positions, radii;
  bool atoms = false;
  while (std::getline(in, line)) {
    if (line.rfind("Atoms", 0) == 0) {
      atoms = true;
      continue;
    }
    if (!atoms || line.empty()) continue;
    std::istringstream fields(line);
    long id, type;
    double diameter, density, x, y, z;
    if (!(fields >> id >> type >> diameter >> density >> x >> y >> z)) continue;
    positions.insert(positions.end(), {x, y, z});
    radii.push_back(0.5 * diameter);
  }
  if (radii.size() != kSpheres) {
    std::fprintf(stderr, "expected %zu spheres in %s, read %zu\n", kSpheres, file, radii.size());
    return 1;
  }
  ThreadPool pool(threads);
  Simulation simulation(benchOptions(pool));
  SphereBatch batch;
  batch.positions = positions.data();
  batch.positionsLength = positions.size();
  batch.radii = radii.data();
  batch.radiiLength = radii.size();
  batch.density = 1.0;
  simulation.addSpheres(batch);
  // Warm-up outside the timed region: lists built, buffers touched by the
  // threads that use them.
  simulation.step(200);
  const std::uint64_t rebuildsBefore = simulation.rebuildCount();
  const auto start = std::chrono::steady_clock::now();
  simulation.step(steps);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("threads %u, %zu steps in %.3f s, %llu rebuilds, coordination %.2f\n", threads, steps, seconds,
              (unsigned long long)(simulation.rebuildCount() - rebuildsBefore), simulation.coordinationNumber());
  std::printf("particle-steps/s: %.6g\n", double(kSpheres) * double(steps) / seconds);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 3 && std::strcmp(argv[1], "prepare") == 0) return prepare(argv[2]);
  if (argc >= 5 && std::strcmp(argv[1], "run") == 0)
    return run(argv[2], unsigned(std::atoi(argv[3])), std::size_t(std::atoll(argv[4])));
  std::fprintf(stderr, "usage: bench prepare FILE | bench run FILE THREADS STEPS\n");
  return 2;
}
