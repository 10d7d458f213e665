#include "simulation.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "contact_force.hpp"
#include "validation.hpp"

namespace peclet::dem {

// Per-chunk results of a drift pass; padded so chunks never share a line.
struct alignas(64) Simulation::ChunkTally {
  double maxDisplacement2 = 0.0;
  std::size_t clamped = 0;
  std::ptrdiff_t firstClamped = -1;
  bool nonFinite = false;
};

namespace {

constexpr double kPi = 3.14159265358979323846;

std::string str(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

}  // namespace

Simulation::Simulation(SimulationOptions options) : options_(std::move(options)) {
  if (auto error = validateSimulationOptions(options_)) throw DemError(*error);
  law_ = ContactLaw::fromOptions(options_.contact);
  if (!options_.parallelFor) options_.parallelFor = serialParallelFor;
  for (int face = 0; face < 6; ++face)
    if (options_.walls[face] && !options_.periodic[face / 2]) activeWalls_.push_back(face);
  timestep_.automatic = std::isnan(options_.timestep) || options_.timestep == 0.0;
  if (!timestep_.automatic) dt_ = timestep_.timestep = options_.timestep;
}

void Simulation::runParallel(const ParallelBody& body) const {
  if (options_.workers == 1)
    body(0, 1, 0);
  else
    options_.parallelFor(options_.workers, body);
}

void Simulation::addSpheres(const SphereBatch& batch) {
  if (auto error = validateSphereBatch(batch, options_)) throw DemError(*error);
  const std::size_t added = batch.radiiLength;
  if (added == 0) return;
  const std::size_t n = count_ + added;

  // Everything that can reject the batch is decided before any state changes.
  double maxRadius = 0.0, minMass = HUGE_VAL, minRadius = HUGE_VAL;
  for (std::size_t i = 0; i < count_; ++i) {
    maxRadius = std::max(maxRadius, radius_[i]);
    minRadius = std::min(minRadius, radius_[i]);
    minMass = std::min(minMass, mass_[i]);
  }
  for (std::size_t i = 0; i < added; ++i) {
    const double r = batch.radii[i];
    maxRadius = std::max(maxRadius, r);
    minRadius = std::min(minRadius, r);
    minMass = std::min(minMass, batch.density * 4.0 / 3.0 * kPi * r * r * r);
  }
  const bool automaticSkin = std::isnan(options_.skin) || options_.skin == 0.0;
  const double skin = automaticSkin ? 0.2 * maxRadius : options_.skin;
  const double cutoff = 2.0 * maxRadius + skin;
  for (int a = 0; a < 3; ++a) {
    const double length = options_.box.max[a] - options_.box.min[a];
    if (options_.periodic[a] && length < 3.0 * cutoff)
      throw DemError({ErrorKind::Range, "radii", -1,
                      std::string("periodic axis ") + "xyz"[a] + " is " + str(length) +
                          " m long; it must be at least 3 x (largest diameter + skin) = " + str(3.0 * cutoff) + " m"});
  }
  double impactSpeed = options_.impactVelocity;
  if (std::isnan(impactSpeed) || impactSpeed == 0.0) {
    const Vec3& g = options_.gravity;
    const double gNorm = std::sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
    double height = 0.0;
    for (int a = 0; a < 3; ++a) height += std::fabs(g[a]) * (options_.box.max[a] - options_.box.min[a]);
    impactSpeed = gNorm > 0.0 ? std::sqrt(2.0 * height) : 1.0;
  }
  TimestepReport report = timestep_;
  report.contactTime = law_.contactTime(0.5 * minMass, 0.5 * minRadius, impactSpeed);
  report.stabilityLimit = report.contactTime / 5.0;
  if (report.automatic) {
    report.timestep = report.contactTime / 50.0;
  } else if (report.timestep > report.stabilityLimit) {
    throw DemError({ErrorKind::Range, "timestep", -1,
                    "timestep " + str(report.timestep) + " s exceeds the stability limit " +
                        str(report.stabilityLimit) + " s (contact time " + str(report.contactTime) +
                        " s / 5) of the lightest sphere pair"});
  }

  // Reserve first so that a bad_alloc leaves the simulation unchanged.
  for (auto* array : {&x_, &v_, &omega_, &f_, &t_, &predictedV_, &predictedOmega_, &xAtBuild_, &userPositions_,
                      &userVelocities_, &userAngularVelocities_, &userForces_})
    array->reserve(3 * n);
  for (auto* array : {&radius_, &mass_, &inverseMass_, &inverseInertia_, &userRadii_}) array->reserve(n);
  userIndex_.reserve(n);
  wallShear_.reserve(3 * activeWalls_.size() * n);

  for (std::size_t i = 0; i < added; ++i) {
    const double r = batch.radii[i];
    const double mass = batch.density * 4.0 / 3.0 * kPi * r * r * r;
    double position[3];
    for (int a = 0; a < 3; ++a) {
      double value = batch.positions[3 * i + a];
      if (options_.periodic[a]) {
        const double length = options_.box.max[a] - options_.box.min[a];
        value -= length * std::floor((value - options_.box.min[a]) / length);
      }
      position[a] = value;
      x_.push_back(value);
      xAtBuild_.push_back(value);
      userPositions_.push_back(value);
      const double velocity = batch.velocities ? batch.velocities[3 * i + a] : 0.0;
      v_.push_back(velocity);
      userVelocities_.push_back(velocity);
      predictedV_.push_back(velocity);
      omega_.push_back(0.0);
      predictedOmega_.push_back(0.0);
      userAngularVelocities_.push_back(0.0);
      f_.push_back(0.0);
      t_.push_back(0.0);
      userForces_.push_back(0.0);
    }
    (void)position;
    radius_.push_back(r);
    userRadii_.push_back(r);
    mass_.push_back(mass);
    inverseMass_.push_back(1.0 / mass);
    inverseInertia_.push_back(1.0 / (0.4 * mass * r * r));
    userIndex_.push_back(static_cast<std::uint32_t>(count_ + i));
    for (std::size_t w = 0; w < 3 * activeWalls_.size(); ++w) wallShear_.push_back(0.0);
  }
  count_ = n;
  timestep_ = report;
  dt_ = timestep_.timestep;
  skin_ = skin;
  if (!grid_.setup(options_.box, options_.periodic, cutoff, n))
    throw DemError({ErrorKind::Range, "radii", -1, "spheres do not fit the periodic box"});
  // Build the list now so that queries (contacts, energies) work before the
  // first step; springs of existing contacts carry over.
  rebuild();
}

void Simulation::partitionChunks() {
  const std::size_t workers = options_.workers;
  chunks_.resize(workers);
  for (std::size_t c = 0; c < workers; ++c) {
    chunks_[c].begin = c * count_ / workers;
    chunks_[c].end = (c + 1) * count_ / workers;
  }
}

void Simulation::rebuild() {
  const std::size_t n = count_;
  const std::size_t workers = options_.workers;
  const Box& box = options_.box;
  // 1. Wrap periodic coordinates and find each sphere's cell.
  scratchIndex_.resize(n);
  runParallel([&](std::size_t begin, std::size_t end, unsigned) {
    for (std::size_t c = begin; c < end; ++c)
      for (std::size_t i = c * n / workers; i < (c + 1) * n / workers; ++i) {
        double* x = &x_[3 * i];
        for (int a = 0; a < 3; ++a)
          if (options_.periodic[a]) {
            const double length = box.max[a] - box.min[a];
            x[a] -= length * std::floor((x[a] - box.min[a]) / length);
            if (x[a] >= box.max[a]) x[a] = box.min[a];
          }
        scratchIndex_[i] = static_cast<std::uint32_t>(grid_.cellOf(x));
      }
  });
  // 2. Counting sort by cell: spheres of a cell become contiguous, and cells
  //    are ordered z-major so neighbours sit close in memory.
  const std::size_t cells = grid_.cellCount();
  cellStart_.assign(cells + 1, 0);
  for (std::size_t i = 0; i < n; ++i) ++cellStart_[scratchIndex_[i] + 1];
  for (std::size_t c = 0; c < cells; ++c) cellStart_[c + 1] += cellStart_[c];
  order_.resize(n);
  oldToNew_.resize(n);
  {
    std::vector<std::uint32_t>& fill = cellOfSphere_;  // reused as scratch
    fill.assign(cellStart_.begin(), cellStart_.end() - 1);
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t slot = fill[scratchIndex_[i]]++;
      order_[slot] = static_cast<std::uint32_t>(i);
      oldToNew_[i] = slot;
    }
  }
  // 3. Springs of the old list, keyed by new index (old lists are still intact).
  detail::collectShearHistory(chunks_, oldToNew_, n, history_);
  // 4. Permute the per-sphere arrays.
  auto permute = [&](auto& array, auto& scratch, std::size_t width) {
    scratch.resize(array.size());
    runParallel([&](std::size_t begin, std::size_t end, unsigned) {
      for (std::size_t c = begin; c < end; ++c)
        for (std::size_t k = c * n / workers; k < (c + 1) * n / workers; ++k)
          for (std::size_t d = 0; d < width; ++d) scratch[width * k + d] = array[width * order_[k] + d];
    });
    array.swap(scratch);
  };
  for (auto* array : {&x_, &v_, &omega_, &predictedV_, &predictedOmega_}) permute(*array, scratch_, 3);
  for (auto* array : {&radius_, &mass_, &inverseMass_, &inverseInertia_}) permute(*array, scratch_, 1);
  if (!activeWalls_.empty()) permute(wallShear_, scratch_, 3 * activeWalls_.size());
  permute(userIndex_, scratchIndex_, 1);
  cellOfSphere_.resize(n);
  for (std::size_t c = 0; c < cells; ++c)
    for (std::uint32_t k = cellStart_[c]; k < cellStart_[c + 1]; ++k) cellOfSphere_[k] = static_cast<std::uint32_t>(c);
  xAtBuild_ = x_;
  // 5. New half lists, one per chunk, in parallel.
  partitionChunks();
  runParallel([&](std::size_t begin, std::size_t end, unsigned) {
    for (std::size_t c = begin; c < end; ++c)
      detail::buildPairChunk(grid_, cellStart_, cellOfSphere_, x_.data(), radius_.data(), skin_, history_, chunks_[c]);
  });
  listValid_ = true;
  forcesValid_ = false;
  ++rebuilds_;
}

template <bool Friction, ContactModelKind Model>
void Simulation::pairForcesChunk(detail::PairChunk& chunk) {
  const double* x = x_.data();
  const double* v = predictedV_.data();
  const double* w = predictedOmega_.data();
  const double* radius = radius_.data();
  const double* mass = mass_.data();
  const std::size_t base = chunk.touchBegin;
  double* force = chunk.force.data();
  double* torque = chunk.torque.data();
  std::fill(chunk.force.begin(), chunk.force.end(), 0.0);
  std::fill(chunk.torque.begin(), chunk.torque.end(), 0.0);
  const std::uint32_t* partner = chunk.partner.data();
  const std::uint8_t* image = chunk.image.data();
  double* shear = chunk.shear.data();
  const double dt = dt_;
  for (std::size_t i = chunk.begin; i < chunk.end; ++i) {
    const double xi = x[3 * i], yi = x[3 * i + 1], zi = x[3 * i + 2];
    const double ri = radius[i], mi = mass[i];
    double fi[3] = {0.0, 0.0, 0.0}, ti[3] = {0.0, 0.0, 0.0};
    const std::uint32_t kEnd = chunk.offsets[i - chunk.begin + 1];
    for (std::uint32_t k = chunk.offsets[i - chunk.begin]; k < kEnd; ++k) {
      const std::size_t j = partner[k];
      const double* shift = grid_.imageShift[image[k]];
      const double dx = xi - x[3 * j] + shift[0];
      const double dy = yi - x[3 * j + 1] + shift[1];
      const double dz = zi - x[3 * j + 2] + shift[2];
      const double r2 = dx * dx + dy * dy + dz * dz;
      const double rj = radius[j];
      const double reach = ri + rj;
      if (r2 >= reach * reach) {
        if constexpr (Friction) shear[3 * k] = shear[3 * k + 1] = shear[3 * k + 2] = 0.0;
        continue;
      }
      const double r = std::sqrt(r2);
      const double inverse = 1.0 / r;
      const double normal[3] = {dx * inverse, dy * inverse, dz * inverse};
      const double relative[3] = {v[3 * i] - v[3 * j], v[3 * i + 1] - v[3 * j + 1], v[3 * i + 2] - v[3 * j + 2]};
      double spin[3] = {0.0, 0.0, 0.0};
      if constexpr (Friction)
        for (int d = 0; d < 3; ++d) spin[d] = ri * w[3 * i + d] + rj * w[3 * j + d];
      const double mj = mass[j];
      double f[3], arm[3];
      detail::contactForce<Model, Friction>(law_, dt, normal, reach - r, relative, spin, mi * mj / (mi + mj),
                                            ri * rj / reach, &shear[3 * k], f, arm);
      const std::size_t jj = 3 * (j - base);
      for (int d = 0; d < 3; ++d) {
        fi[d] += f[d];
        force[jj + d] -= f[d];
      }
      if constexpr (Friction)
        for (int d = 0; d < 3; ++d) {
          ti[d] -= ri * arm[d];
          torque[jj + d] -= rj * arm[d];
        }
    }
    const std::size_t ii = 3 * (i - base);
    for (int d = 0; d < 3; ++d) {
      force[ii + d] += fi[d];
      torque[ii + d] += ti[d];
    }
  }
}

void Simulation::computePairForces() {
  const bool friction = law_.friction > 0.0;
  const bool linear = law_.model == ContactModelKind::Linear;
  runParallel([&](std::size_t begin, std::size_t end, unsigned) {
    for (std::size_t c = begin; c < end; ++c) {
      detail::PairChunk& chunk = chunks_[c];
      if (linear) {
        if (friction)
          pairForcesChunk<true, ContactModelKind::Linear>(chunk);
        else
          pairForcesChunk<false, ContactModelKind::Linear>(chunk);
      } else {
        if (friction)
          pairForcesChunk<true, ContactModelKind::HertzMindlin>(chunk);
        else
          pairForcesChunk<false, ContactModelKind::HertzMindlin>(chunk);
      }
    }
  });
}

template <ContactModelKind Model>
void Simulation::wallForces(std::size_t i, double* force, double* torque) {
  const double r = radius_[i];
  const double* x = &x_[3 * i];
  const double* v = &predictedV_[3 * i];
  const double* w = &predictedOmega_[3 * i];
  const bool friction = law_.friction > 0.0;
  for (std::size_t slot = 0; slot < activeWalls_.size(); ++slot) {
    const int face = activeWalls_[slot];
    const int axis = face / 2;
    const bool lower = face % 2 == 0;
    const double gap = lower ? x[axis] - options_.box.min[axis] : options_.box.max[axis] - x[axis];
    double* shear = &wallShear_[3 * (activeWalls_.size() * i + slot)];
    if (gap >= r) {
      shear[0] = shear[1] = shear[2] = 0.0;
      continue;
    }
    double normal[3] = {0.0, 0.0, 0.0};
    normal[axis] = lower ? 1.0 : -1.0;
    const double spin[3] = {r * w[0], r * w[1], r * w[2]};
    double f[3], arm[3];
    // A wall acts like a sphere of infinite radius and mass: R* = r, m* = m.
    if (friction)
      detail::contactForce<Model, true>(law_, dt_, normal, r - gap, v, spin, mass_[i], r, shear, f, arm);
    else
      detail::contactForce<Model, false>(law_, dt_, normal, r - gap, v, spin, mass_[i], r, shear, f, arm);
    for (int d = 0; d < 3; ++d) {
      force[d] += f[d];
      torque[d] -= r * arm[d];
    }
  }
}

void Simulation::finishStep(bool advanceNext, double kickFraction, std::vector<ChunkTally>& tallies) {
  const double h = kickFraction * dt_;
  const Vec3 g = options_.gravity;
  const bool rotation = options_.rotation;
  const bool linear = law_.model == ContactModelKind::Linear;
  const bool walls = !activeWalls_.empty();
  runParallel([&](std::size_t begin, std::size_t end, unsigned) {
    for (std::size_t c = begin; c < end; ++c) {
      ChunkTally tally;
      for (std::size_t i = chunks_[c].begin; i < chunks_[c].end; ++i) {
        const double m = mass_[i];
        double force[3] = {m * g[0], m * g[1], m * g[2]};
        double torque[3] = {0.0, 0.0, 0.0};
        // Sum the chunk buffers in chunk order: the result is independent of
        // which thread ran which chunk.
        for (const detail::PairChunk& chunk : chunks_)
          if (i >= chunk.touchBegin && i < chunk.touchEnd) {
            const std::size_t k = 3 * (i - chunk.touchBegin);
            for (int d = 0; d < 3; ++d) {
              force[d] += chunk.force[k + d];
              torque[d] += chunk.torque[k + d];
            }
          }
        if (walls) {
          if (linear)
            wallForces<ContactModelKind::Linear>(i, force, torque);
          else
            wallForces<ContactModelKind::HertzMindlin>(i, force, torque);
        }
        double* v = &v_[3 * i];
        double* w = &omega_[3 * i];
        for (int d = 0; d < 3; ++d) {
          f_[3 * i + d] = force[d];
          t_[3 * i + d] = torque[d];
        }
        if (h == 0.0) continue;
        const double im = inverseMass_[i], ii = inverseInertia_[i];
        for (int d = 0; d < 3; ++d) v[d] += h * force[d] * im;
        if (rotation)
          for (int d = 0; d < 3; ++d) w[d] += h * torque[d] * ii;
        if (!advanceNext) continue;
        // Next step's first half kick and drift, fused into this pass; the
        // arithmetic is the same as in separate passes.
        for (int d = 0; d < 3; ++d) {
          v[d] += h * force[d] * im;
          predictedV_[3 * i + d] = v[d] + h * force[d] * im;
        }
        if (rotation)
          for (int d = 0; d < 3; ++d) {
            w[d] += h * torque[d] * ii;
            predictedOmega_[3 * i + d] = w[d] + h * torque[d] * ii;
          }
        drift(i, tally);
      }
      tallies[c] = tally;
    }
  });
}

void Simulation::drift(std::size_t i, ChunkTally& tally) {
  const Box& box = options_.box;
  double* x = &x_[3 * i];
  double* v = &v_[3 * i];
  double moved2 = 0.0;
  for (int d = 0; d < 3; ++d) {
    x[d] += dt_ * v[d];
    const double moved = x[d] - xAtBuild_[3 * i + d];
    moved2 += moved * moved;
  }
  if (!std::isfinite(moved2)) {
    tally.nonFinite = true;
    return;
  }
  tally.maxDisplacement2 = std::max(tally.maxDisplacement2, moved2);
  for (int a = 0; a < 3; ++a) {
    if (options_.periodic[a]) continue;
    const bool below = x[a]<box.min[a], above = x[a]> box.max[a];
    if (!below && !above) continue;
    x[a] = below ? box.min[a] : box.max[a];
    if ((below && v[a] < 0.0) || (above && v[a] > 0.0)) v[a] = 0.0;
    if (tally.clamped++ == 0) tally.firstClamped = userIndex_[i];
  }
}

void Simulation::kickAndDrift(std::vector<ChunkTally>& tallies) {
  const double h = 0.5 * dt_;
  const bool rotation = options_.rotation;
  runParallel([&](std::size_t begin, std::size_t end, unsigned) {
    for (std::size_t c = begin; c < end; ++c) {
      ChunkTally tally;
      for (std::size_t i = chunks_[c].begin; i < chunks_[c].end; ++i) {
        const double im = inverseMass_[i], ii = inverseInertia_[i];
        double* v = &v_[3 * i];
        for (int d = 0; d < 3; ++d) {
          v[d] += h * f_[3 * i + d] * im;
          predictedV_[3 * i + d] = v[d] + h * f_[3 * i + d] * im;
          if (rotation) {
            omega_[3 * i + d] += h * t_[3 * i + d] * ii;
            predictedOmega_[3 * i + d] = omega_[3 * i + d] + h * t_[3 * i + d] * ii;
          }
        }
        drift(i, tally);
      }
      tallies[c] = tally;
    }
  });
}

StepReport Simulation::step(std::size_t steps, const std::atomic<bool>* cancel) {
  StepReport report;
  auto cancelled = [cancel] { return cancel != nullptr && cancel->load(std::memory_order_relaxed); };
  if (steps == 0) return report;
  if (cancelled()) {
    report.status = StepStatus::Cancelled;
    return report;
  }
  if (count_ == 0) {
    report.steps = steps;
    stepCount_ += steps;
    time_ += double(steps) * dt_;
    return report;
  }
  std::vector<ChunkTally> tallies(options_.workers);
  if (!listValid_ || chunks_.size() != options_.workers) rebuild();
  if (!forcesValid_) {
    // Forces at the current state, needed by the first half kick.
    computePairForces();
    finishStep(false, 0.0, tallies);
    forcesValid_ = true;
  }
  const double halfSkin2 = 0.25 * skin_ * skin_;
  kickAndDrift(tallies);
  for (std::size_t s = 0; s < steps; ++s) {
    double maxDisplacement2 = 0.0;
    bool nonFinite = false;
    for (const ChunkTally& tally : tallies) {
      maxDisplacement2 = std::max(maxDisplacement2, tally.maxDisplacement2);
      nonFinite = nonFinite || tally.nonFinite;
      if (tally.clamped > 0 && report.firstClampedSphere < 0) report.firstClampedSphere = tally.firstClamped;
      report.clampedSpheres += tally.clamped;
    }
    if (nonFinite) {
      report.status = StepStatus::Diverged;
      forcesValid_ = false;
      break;
    }
    if (maxDisplacement2 > halfSkin2) rebuild();
    computePairForces();
    const bool last = s + 1 == steps;
    const bool stop = !last && cancelled();
    finishStep(!last && !stop, 0.5, tallies);
    forcesValid_ = true;
    ++stepCount_;
    time_ += dt_;
    ++report.steps;
    if (stop) {
      report.status = StepStatus::Cancelled;
      break;
    }
  }
  syncUserArrays();
  return report;
}

void Simulation::syncUserArrays() {
  const Box& box = options_.box;
  runParallel([&](std::size_t begin, std::size_t end, unsigned) {
    for (std::size_t c = begin; c < end; ++c)
      for (std::size_t i = chunks_[c].begin; i < chunks_[c].end; ++i) {
        const std::size_t u = userIndex_[i];
        for (int a = 0; a < 3; ++a) {
          double x = x_[3 * i + a];
          if (options_.periodic[a]) {
            const double length = box.max[a] - box.min[a];
            x -= length * std::floor((x - box.min[a]) / length);
          }
          userPositions_[3 * u + a] = x;
          userVelocities_[3 * u + a] = v_[3 * i + a];
          userAngularVelocities_[3 * u + a] = omega_[3 * i + a];
          userForces_[3 * u + a] = f_[3 * i + a];
        }
      }
  });
}

}  // namespace peclet::dem
