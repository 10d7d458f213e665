// Hostile input: overflowing boxes, extreme magnitudes, coincident spheres,
// allocation failure at every point of a call, divergence, translation.
#include <atomic>
#include <chrono>
#include <cstring>
#include <new>

#include "scenarios.hpp"
#include "test_framework.hpp"

using namespace peclet::dem;
using namespace peclet::dem::testing;

namespace {

// A ParallelFor that runs every chunk on the calling thread and, when armed,
// throws std::bad_alloc on its `countdown`-th call instead: an allocation
// failure inside the kernel at each point that reaches the host.
struct FaultInjector {
  long countdown = -1;
  long calls = 0;
  ParallelFor function() {
    return [this](std::size_t count, const ParallelBody& body) {
      ++calls;
      if (countdown >= 0 && countdown-- == 0) throw std::bad_alloc();
      body(0, count, 0);
    };
  }
};

// Everything a user can observe, bit for bit.
struct Observed {
  std::vector<double> positions, velocities, angularVelocities, forces, radii, contacts;
  double time = 0, energy = 0, timestep = 0;
  std::uint64_t steps = 0;
  bool operator==(const Observed& o) const {
    return positions == o.positions && velocities == o.velocities && angularVelocities == o.angularVelocities &&
           forces == o.forces && radii == o.radii && contacts == o.contacts && time == o.time &&
           std::memcmp(&energy, &o.energy, sizeof energy) == 0 && timestep == o.timestep && steps == o.steps;
  }
};

Observed observe(const Simulation& s) {
  Observed o;
  const std::size_t n = s.sphereCount();
  o.positions.assign(s.positions(), s.positions() + 3 * n);
  o.velocities.assign(s.velocities(), s.velocities() + 3 * n);
  o.angularVelocities.assign(s.angularVelocities(), s.angularVelocities() + 3 * n);
  o.forces.assign(s.forces(), s.forces() + 3 * n);
  o.radii.assign(s.radii(), s.radii() + n);
  for (const Contact& c : s.contacts())
    o.contacts.insert(o.contacts.end(), {double(c.first), double(c.second), c.overlap});
  o.time = s.time();
  o.energy = s.kineticEnergy() + s.elasticEnergy();
  o.timestep = s.timestep().timestep;
  o.steps = s.stepCount();
  return o;
}

SimulationOptions gasOptions(ParallelFor parallelFor) {
  SimulationOptions options = linearOptions(1e4, 0.7, 0.5);
  options.box = {{-0.5, 2.0, 0.0}, {0.5, 3.0, 1.0}};
  options.periodic = {true, true, false};
  options.gravity = {0, 0, -9.81};
  options.workers = 2;
  options.parallelFor = std::move(parallelFor);
  return options;
}

// A frictional bed with springs in place, and a batch to add to it.
void prepare(Simulation& s) {
  addDenseGas(s, 150, 0.03, 1000, 0.3, 7);
  s.step(40);
}
struct Batch {
  std::vector<double> positions, radii;
  SphereBatch batch() const {
    SphereBatch b;
    b.positions = positions.data();
    b.positionsLength = positions.size();
    b.radii = radii.data();
    b.radiiLength = radii.size();
    b.density = 1000;
    return b;
  }
};
Batch extraBatch() {
  Batch b;
  for (int i = 0; i < 8; ++i) {
    b.positions.insert(b.positions.end(), {-0.4 + 0.1 * i, 2.5, 0.9});
    b.radii.push_back(0.02);
  }
  return b;
}

}  // namespace

TEST(overflowing_box_is_refused_by_name) {
  SimulationOptions options = linearOptions(1e4, 0.5, 0.5);
  options.box = {{-1e308, -1e308, -1e308}, {1e308, 1e308, 1e308}};
  const ValidationError error = expectError([&] { Simulation s(options); });
  CHECK(error.argument == "box" && error.kind == ErrorKind::Range);
  REPORT("%s", error.message.c_str());
}

TEST(huge_sparse_box_gets_a_small_grid) {
  // 1e12 m of box for one 1 m sphere: the cell grid is capped by the sphere
  // count, the insertion grid too (deposit), and nothing overflows.
  SimulationOptions options = linearOptions(1e4, 0.5, 0.5);
  options.box = {{0, 0, 0}, {1e12, 1e12, 1e12}};
  options.gravity = {0, 0, -9.81};
  Simulation s(options);
  const auto start = std::chrono::steady_clock::now();
  addSphere(s, {5e11, 5e11, 5e11}, 1.0, 1000);
  s.step(10);
  DepositOptions deposit;
  deposit.count = 20;
  deposit.radius.radius = 1.0;
  deposit.density = 1000;
  deposit.maxSteps = 10;
  s.deposit(deposit);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(s.sphereCount() == 21);
  CHECK(seconds < 2.0);
  REPORT("1e12 m box: add, step, deposit 20 in %.3f s", seconds);
}

TEST(extreme_magnitudes_are_refused_by_name) {
  SimulationOptions options = linearOptions(1e4, 0.5, 0.5);
  Simulation s(options);
  double position[3] = {0.5, 0.5, 0.5}, radius = 1e-120;
  SphereBatch batch;
  batch.positions = position;
  batch.positionsLength = 3;
  batch.radii = &radius;
  batch.radiiLength = 1;
  batch.density = 1000;
  ValidationError error = expectError([&] { s.addSpheres(batch); });
  CHECK(error.argument == "radii" && error.message.find("underflows") != std::string::npos);
  REPORT("%s", error.message.c_str());
  radius = 0.01;
  batch.density = 1e-305;  // the mass is subnormal
  error = expectError([&] { s.addSpheres(batch); });
  CHECK(error.argument == "density" && error.message.find("underflows") != std::string::npos);
  REPORT("%s", error.message.c_str());
  batch.density = 1000;
  double velocity[3] = {1e300, 0, 0};
  batch.velocities = velocity;
  batch.velocitiesLength = 3;
  error = expectError([&] { s.addSpheres(batch); });
  CHECK(error.argument == "velocities");
  REPORT("%s", error.message.c_str());
  CHECK(s.sphereCount() == 0);
  // A stiffness so small that the contact time overflows.
  SimulationOptions soft = linearOptions(1e-300, 0.5, 0.5);
  Simulation t(soft);
  batch.velocities = nullptr;
  batch.density = 1e300;
  radius = 0.1;
  error = expectError([&] { t.addSpheres(batch); });
  CHECK(error.argument == "contact.stiffness");
  REPORT("%s", error.message.c_str());
}

TEST(unresolvable_box_is_refused) {
  SimulationOptions options = linearOptions(1e4, 0.5, 0.5);
  const double o = std::ldexp(1.0, 60);
  options.box = {{o, o, o}, {o + 1e6, o + 1e6, o + 1e6}};
  Simulation s(options);
  const ValidationError error = expectError([&] { addSphere(s, {o, o, o + 100}, 0.05, 1000); });
  CHECK(error.argument == "box");
  REPORT("%s", error.message.c_str());
}

TEST(coincident_centres_are_refused) {
  Simulation s(linearOptions(1e4, 0.5, 0.5));
  const double positions[9] = {0.5, 0.5, 0.5, 0.2, 0.2, 0.2, 0.5, 0.5, 0.5};
  const double radii[3] = {0.05, 0.05, 0.05};
  SphereBatch batch;
  batch.positions = positions;
  batch.positionsLength = 9;
  batch.radii = radii;
  batch.radiiLength = 3;
  batch.density = 1000;
  ValidationError error = expectError([&] { s.addSpheres(batch); });
  CHECK(error.argument == "positions" && error.index == 6);
  CHECK(error.message.find("spheres 0 and 2") != std::string::npos);
  REPORT("%s", error.message.c_str());
  batch.positionsLength = 6;
  batch.radiiLength = 2;
  s.addSpheres(batch);
  batch.positions = positions + 3;
  batch.radiiLength = 1;
  batch.positionsLength = 3;
  error = expectError([&] { s.addSpheres(batch); });
  CHECK(error.argument == "positions" && error.message.find("as sphere 1 already") != std::string::npos);
  REPORT("%s", error.message.c_str());
  CHECK(s.sphereCount() == 2);
}

TEST(add_spheres_is_all_or_nothing_under_allocation_failure) {
  FaultInjector reference, injected;
  Simulation expected(gasOptions(reference.function())), s(gasOptions(injected.function()));
  prepare(expected);
  prepare(s);
  const Batch batch = extraBatch();
  expected.addSpheres(batch.batch());
  expected.step(30);
  long failures = 0;
  for (long k = 0;; ++k) {
    const Observed before = observe(s);
    injected.countdown = k;
    try {
      s.addSpheres(batch.batch());
    } catch (const std::bad_alloc&) {
      ++failures;
      CHECK(observe(s) == before);
      continue;
    }
    break;
  }
  injected.countdown = -1;
  s.step(30);
  CHECK(failures >= 3);
  CHECK(observe(s) == observe(expected));
  REPORT("addSpheres failed at %ld points, each leaving the state unchanged", failures);
}

TEST(step_is_atomic_under_allocation_failure) {
  FaultInjector reference, injected;
  Simulation expected(gasOptions(reference.function())), s(gasOptions(injected.function()));
  prepare(expected);
  prepare(s);
  expected.step(60);
  long failures = 0;
  for (long k = 0;; k += 7) {
    const Observed before = observe(s);
    injected.countdown = k;
    try {
      s.step(60);
    } catch (const std::bad_alloc&) {
      ++failures;
      CHECK(observe(s) == before);
      continue;
    }
    break;
  }
  CHECK(failures >= 10);
  CHECK(observe(s) == observe(expected));
  REPORT("step(60) failed at %ld points, each leaving the state unchanged", failures);
}

TEST(deposit_is_all_or_nothing_and_polls_cancel_while_inserting) {
  FaultInjector injected;
  SimulationOptions options = gasOptions(injected.function());
  options.periodic = {false, false, false};
  Simulation s(options);
  addSphere(s, {0, 2.5, 0.1}, 0.05, 1000);
  DepositOptions deposit;
  deposit.count = 50;
  deposit.radius.radius = 0.02;
  deposit.density = 1000;
  deposit.maxSteps = 200;
  for (long k : {0L, 3L, 40L}) {
    const Observed before = observe(s);
    injected.countdown = k;
    bool threw = false;
    try {
      s.deposit(deposit);
    } catch (const std::bad_alloc&) {
      threw = true;
    }
    CHECK(threw);
    CHECK(observe(s) == before);
  }
  injected.countdown = -1;
  std::atomic<bool> cancel{true};
  deposit.count = 5000;
  deposit.maxAttemptsPerSphere = 1000000;
  const DepositReport report = s.deposit(deposit, &cancel);
  CHECK(report.stepping.status == StepStatus::Cancelled && report.inserted == 0 && s.sphereCount() == 1);
}

TEST(divergence_restores_the_state_and_names_the_overlap) {
  SimulationOptions options;
  options.gravity = {0, 0, 0};
  options.contact.model = ContactModelKind::HertzMindlin;
  options.contact.youngsModulus = 1e300;  // forces overflow from a deep overlap
  options.box = {{0, 0, 0}, {10, 10, 10}};
  Simulation s(options);
  addSphere(s, {5, 5, 5}, 1, 1);
  addSphere(s, {5, 5, 5.1}, 1, 1);
  const Observed before = observe(s);
  const StepReport report = s.step(50);
  CHECK(report.status == StepStatus::Diverged);
  CHECK(report.divergedSphere == 0 || report.divergedSphere == 1);
  CHECK(report.diagnosis.find("overlapped") != std::string::npos);
  CHECK(observe(s) == before);
  REPORT("%s", report.diagnosis.c_str());
}

TEST(dynamics_are_translation_invariant) {
  auto run = [](double offset) {
    SimulationOptions options = linearOptions(1e4, 0.6, 0.4);
    options.box = {{offset, offset, offset}, {offset + 4, offset + 4, offset + 4}};
    options.gravity = {0, 0, -9.81};
    Simulation s(options);
    addSphere(s, {offset + 1.5, offset + 2, offset + 0.75}, 0.5, 1000, {1, 0.25, 0});
    addSphere(s, {offset + 2.75, offset + 2.125, offset + 0.75}, 0.5, 1000, {-1, 0, 0.5});
    s.step(2000);
    std::vector<double> relative(s.positions(), s.positions() + 6);
    for (int k = 0; k < 6; ++k) relative[k] -= offset;
    std::vector<double> velocities(s.velocities(), s.velocities() + 6);
    return std::make_pair(relative, velocities);
  };
  const auto origin = run(0.0), far = run(std::ldexp(1.0, 40));
  CHECK(origin.second == far.second);  // the kernel's state is the same bits
  const double ulp = std::ldexp(1.0, 40 - 52);
  for (int k = 0; k < 6; ++k) CHECK_NEAR(far.first[k], origin.first[k], ulp);
  CHECK(std::fabs(origin.second[0]) > 0.01);  // they did collide and move
}

TEST(hertz_damping_is_solved_once_per_restitution) {
  const auto start = std::chrono::steady_clock::now();
  const HertzDamping first = hertzDampingFromRestitution(0.4321);
  const double solve = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  const auto again = std::chrono::steady_clock::now();
  const HertzDamping second = hertzDampingFromRestitution(0.4321);
  const double memo = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - again).count();
  CHECK(first.alpha == second.alpha);
  CHECK_NEAR(hertzRestitutionForDamping(first.alpha), 0.4321, 1e-9);
  CHECK(memo < 0.5);
  REPORT("solve %.2f ms, memoized %.4f ms", solve, memo);
}

TEST(settle_checks_inside_one_call_match_separate_calls) {
  FaultInjector a, b;
  Simulation one(gasOptions(a.function())), separate(gasOptions(b.function()));
  prepare(one);
  prepare(separate);
  const SettleCheck never{0.0, 100};
  const StepReport report = one.step(250, nullptr, &never);
  CHECK(report.steps == 250 && !report.settled);
  separate.step(100);
  separate.step(100);
  separate.step(50);
  CHECK(observe(one) == observe(separate));
  const SettleCheck always{HUGE_VAL, 100};
  const StepReport settled = one.step(250, nullptr, &always);
  CHECK(settled.settled && settled.steps == 100);
}
