#pragma once
// Shared set-ups for the tests and the benchmark.

#include <cmath>
#include <random>
#include <vector>

#include "dem.hpp"
#include "test_framework.hpp"

namespace peclet::dem::testing {

constexpr double kPi = 3.14159265358979323846;

/// Runs `action`, which must throw a DemError, and returns its description.
template <class Action>
ValidationError expectError(Action action) {
  try {
    action();
  } catch (const DemError& error) {
    return error.error();
  }
  fail(__FILE__, __LINE__, "expected a DemError");
  return {};
}

/// Adds one sphere with the given centre, radius, density and velocity.
inline void addSphere(Simulation& simulation, Vec3 position, double radius, double density, Vec3 velocity = {0, 0, 0}) {
  SphereBatch batch;
  batch.positions = position.data();
  batch.positionsLength = 3;
  batch.radii = &radius;
  batch.radiiLength = 1;
  batch.density = density;
  batch.velocities = velocity.data();
  batch.velocitiesLength = 3;
  simulation.addSpheres(batch);
}

/// Options for a linear-contact simulation without gravity.
inline SimulationOptions linearOptions(double stiffness, double restitution, double friction) {
  SimulationOptions options;
  options.gravity = {0, 0, 0};
  options.contact.model = ContactModelKind::Linear;
  options.contact.stiffness = stiffness;
  options.contact.restitution = restitution;
  options.contact.friction = friction;
  return options;
}

/// A dense gas: `count` spheres of radius `radius` placed by random
/// sequential insertion in a fully periodic cube at solid fraction
/// `fraction`, with Gaussian velocities (σ per component) and zero momentum.
inline void addDenseGas(Simulation& simulation, std::size_t count, double radius, double density, double sigma,
                        std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  const std::vector<double> radii(count, radius);
  std::vector<double> positions;
  const Box& box = simulation.options().box;
  auto error = randomSequentialInsertion(radii, box, simulation.options().periodic, box, {}, 100000, engine, positions);
  if (error) throw DemError(*error);
  std::vector<double> velocities(3 * count);
  double mean[3] = {0, 0, 0};
  for (std::size_t k = 0; k < 3 * count; ++k) {
    velocities[k] = sigma * standardNormal(engine);
    mean[k % 3] += velocities[k] / double(count);
  }
  for (std::size_t k = 0; k < 3 * count; ++k) velocities[k] -= mean[k % 3];
  SphereBatch batch;
  batch.positions = positions.data();
  batch.positionsLength = positions.size();
  batch.radii = radii.data();
  batch.radiiLength = count;
  batch.density = density;
  batch.velocities = velocities.data();
  batch.velocitiesLength = velocities.size();
  simulation.addSpheres(batch);
}

}  // namespace peclet::dem::testing
