// Simulation::deposit: insertion above the bed, then settling under gravity.
#include <algorithm>
#include <cmath>

#include "random_insertion.hpp"
#include "simulation.hpp"
#include "validation.hpp"

namespace peclet::dem {

DepositReport Simulation::deposit(const DepositOptions& options, const std::atomic<bool>* cancel) {
  if (auto error = validateDepositOptions(options, options_)) throw DemError(*error);
  checkExternalForces();
  std::mt19937_64 engine(options.seed);
  const std::vector<double> radii = drawRadii(options.radius, options.count, engine, cancel);
  if (radii.empty()) {
    DepositReport cancelled;
    cancelled.stepping.status = StepStatus::Cancelled;
    return cancelled;
  }

  // Everything in the kernel's coordinates, relative to box.min.
  Box region = box_;
  if (!std::isnan(options.regionBottom)) {
    region.min[2] = options.regionBottom - options_.box.min[2];
  } else {
    // Just above the highest sphere of the existing bed.
    for (std::size_t i = 0; i < count_; ++i) region.min[2] = std::max(region.min[2], x_[3 * i + 2] + radius_[i]);
  }
  if (!std::isnan(options.regionTop)) region.max[2] = options.regionTop - options_.box.min[2];
  if (!(region.max[2] > region.min[2]))
    throw DemError(
        {ErrorKind::Range, "regionTop", -1, "the insertion region is empty: its top must lie above its bottom"});

  std::vector<double> positions;
  const Obstacles obstacles{x_.data(), radius_.data(), count_};
  bool insertionCancelled = false;
  if (auto error =
          randomSequentialInsertion(radii, box_, options_.periodic, region, obstacles, options.maxAttemptsPerSphere,
                                    engine, positions, cancel, &insertionCancelled))
    throw DemError(*error);
  if (insertionCancelled) {
    DepositReport cancelled;
    cancelled.stepping.status = StepStatus::Cancelled;
    return cancelled;
  }

  SphereBatch batch;
  batch.positions = positions.data();
  batch.positionsLength = positions.size();
  batch.radii = radii.data();
  batch.radiiLength = radii.size();
  batch.density = options.density;
  // All or nothing: a failure while adding or settling (allocation) puts
  // back the simulation as it was. The copy costs about the state's size.
  Simulation saved(*this);
  try {
    return settle(options, batch, positions.data(), cancel);
  } catch (...) {
    *this = std::move(saved);
    throw;
  }
}

DepositReport Simulation::settle(const DepositOptions& options, const SphereBatch& batch, const double* positions,
                                 const std::atomic<bool>* cancel) {
  const std::vector<double> radii(batch.radii, batch.radii + batch.radiiLength);
  addLocalSpheres(batch, positions);

  double threshold = options.kineticEnergyThreshold;
  if (std::isnan(threshold)) {
    double meanMass = 0.0, meanDiameter = 0.0;
    for (double r : radii) {
      meanMass += options.density * 4.0 / 3.0 * 3.14159265358979323846 * r * r * r;
      meanDiameter += 2.0 * r;
    }
    meanMass /= double(radii.size());
    meanDiameter /= double(radii.size());
    threshold = 1e-5 * meanMass * std::fabs(options_.gravity[2]) * meanDiameter;
  }

  DepositReport report;
  report.inserted = radii.size();
  std::size_t taken = 0;
  while (taken < options.maxSteps) {
    const std::size_t chunk = std::min(options.checkInterval, options.maxSteps - taken);
    const StepReport stepping = step(chunk, cancel);
    taken += stepping.steps;
    report.stepping.steps = taken;
    report.stepping.clampedSpheres += stepping.clampedSpheres;
    if (report.stepping.firstClampedSphere < 0) report.stepping.firstClampedSphere = stepping.firstClampedSphere;
    report.stepping.status = stepping.status;
    report.stepping.divergedSphere = stepping.divergedSphere;
    report.stepping.diagnosis = stepping.diagnosis;
    if (stepping.status != StepStatus::Done) break;
    report.kineticEnergyPerSphere = meanTranslationalKineticEnergy();
    if (report.kineticEnergyPerSphere < threshold) {
      report.settled = true;
      break;
    }
  }
  report.kineticEnergyPerSphere = meanTranslationalKineticEnergy();
  return report;
}

}  // namespace peclet::dem
