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
  for (int a = 0; a < 3; ++a) box_.max[a] = options_.box.max[a] - options_.box.min[a];
  box_.min = {0.0, 0.0, 0.0};
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
  if (batch.radiiLength == 0) return;
  // Copy first: the batch may alias the simulation's own arrays, which move
  // when they grow.
  std::vector<double> local(batch.positions, batch.positions + 3 * batch.radiiLength);
  for (std::size_t k = 0; k < local.size(); ++k) local[k] -= options_.box.min[k % 3];
  addLocalSpheres(batch, local.data());
}

namespace {

bool normalPositive(double value) { return std::isnormal(value) && value > 0.0; }

// Wraps a coordinate relative to the box min into [0, length).
double wrap(double x, double length) {
  x -= length * std::floor(x / length);
  return x >= length || x < 0.0 ? 0.0 : x;
}

}  // namespace

void Simulation::addLocalSpheres(const SphereBatch& batch, const double* localPositions) {
  const std::size_t added = batch.radiiLength;
  if (added == 0) return;
  const std::size_t n = count_ + added;
  const double* L = box_.max.data();

  // Everything that can reject the batch is decided before any state changes.
  std::vector<double> lx(localPositions, localPositions + 3 * added);
  for (std::size_t k = 0; k < lx.size(); ++k)
    if (options_.periodic[k % 3]) lx[k] = wrap(lx[k], L[k % 3]);
  std::vector<double> masses(added);
  for (std::size_t i = 0; i < added; ++i) {
    const double r = batch.radii[i];
    const double volume = 4.0 / 3.0 * kPi * r * r * r;
    if (!normalPositive(volume))
      throw DemError({ErrorKind::Range, "radii", std::ptrdiff_t(i),
                      "radius " + str(r) + " of sphere " + std::to_string(i) + " gives a volume of " + str(volume) +
                          " m^3, which " + (volume > 1.0 ? "overflows" : "underflows") +
                          " a double; rescale the units (e.g. mm instead of m)"});
    const double mass = batch.density * 4.0 / 3.0 * kPi * r * r * r;  // this rounding order, as always
    if (!normalPositive(mass))
      throw DemError({ErrorKind::Range, "density", -1,
                      "density " + str(batch.density) + " x volume " + str(volume) + " of sphere " + std::to_string(i) +
                          " gives a mass of " + str(mass) + " kg, which " + (mass > 1.0 ? "overflows" : "underflows") +
                          " a double; rescale the units"});
    const double inertia = 0.4 * mass * r * r;
    if (!normalPositive(inertia) || !normalPositive(1.0 / inertia) || !normalPositive(1.0 / mass))
      throw DemError({ErrorKind::Range, "radii", std::ptrdiff_t(i),
                      "sphere " + std::to_string(i) + " (radius " + str(r) + ", mass " + str(mass) +
                          " kg) has a moment of inertia of " + str(inertia) +
                          " kg m^2, which under/overflows a double; rescale the units"});
    masses[i] = mass;
  }
  double maxRadius = 0.0, minMass = HUGE_VAL, minRadius = HUGE_VAL;
  for (std::size_t i = 0; i < count_; ++i) {
    maxRadius = std::max(maxRadius, radius_[i]);
    minRadius = std::min(minRadius, radius_[i]);
    minMass = std::min(minMass, mass_[i]);
  }
  for (std::size_t i = 0; i < added; ++i) {
    maxRadius = std::max(maxRadius, batch.radii[i]);
    minRadius = std::min(minRadius, batch.radii[i]);
    minMass = std::min(minMass, masses[i]);
  }
  // The coordinates must resolve the smallest sphere: stored relative to
  // box.min they do, but inputs and the user-facing positions are absolute.
  double largest = 0.0;
  for (int a = 0; a < 3; ++a)
    largest = std::max({largest, std::fabs(options_.box.min[a]), std::fabs(options_.box.max[a])});
  const double ulp = std::nextafter(largest, HUGE_VAL) - largest;
  if (ulp > 1e-3 * minRadius)
    throw DemError({ErrorKind::Range, "box", -1,
                    "the box coordinates (up to " + str(largest) + " in magnitude) are resolved only to " + str(ulp) +
                        ", more than 1e-3 x the smallest radius " + str(minRadius) +
                        "; move the box closer to the origin or rescale the units"});
  checkCoincident(lx, added);
  const bool automaticSkin = std::isnan(options_.skin) || options_.skin == 0.0;
  const double skin = automaticSkin ? 0.2 * maxRadius : options_.skin;
  const double cutoff = 2.0 * maxRadius + skin;
  if (!normalPositive(cutoff))
    throw DemError({ErrorKind::Range, "radii", -1, "largest diameter + skin overflows; rescale the units"});
  for (int a = 0; a < 3; ++a) {
    if (options_.periodic[a] && L[a] < 3.0 * cutoff)
      throw DemError({ErrorKind::Range, "radii", -1,
                      std::string("periodic axis ") + "xyz"[a] + " is " + str(L[a]) +
                          " m long; it must be at least 3 x (largest diameter + skin) = " + str(3.0 * cutoff) + " m"});
  }
  double impactSpeed = options_.impactVelocity;
  if (std::isnan(impactSpeed) || impactSpeed == 0.0) {
    const Vec3& g = options_.gravity;
    const double gNorm = std::hypot(g[0], g[1], g[2]);
    double height = 0.0;
    for (int a = 0; a < 3; ++a) height += std::fabs(g[a]) * L[a];
    impactSpeed = gNorm > 0.0 ? std::sqrt(2.0 * height) : 1.0;
    if (!normalPositive(impactSpeed))
      throw DemError({ErrorKind::Range, "gravity", -1,
                      "the impact speed sqrt(2 |g| height) = " + str(impactSpeed) +
                          " m/s is not a finite positive number; rescale the units or give impactVelocity"});
  }
  const char* stiffnessName = law_.model == ContactModelKind::Linear ? "contact.stiffness" : "contact.youngsModulus";
  TimestepReport report = timestep_;
  report.contactTime = law_.contactTime(0.5 * minMass, 0.5 * minRadius, impactSpeed);
  report.stabilityLimit = report.contactTime / 5.0;
  if (!normalPositive(report.contactTime) || !normalPositive(report.contactTime / 50.0))
    throw DemError({ErrorKind::Range, stiffnessName, -1,
                    "the contact time of the lightest sphere pair (mass " + str(minMass) + " kg, radius " +
                        str(minRadius) + " m) is " + str(report.contactTime) + " s, which " +
                        (report.contactTime > 1.0 ? "overflows" : "underflows") +
                        " a double; rescale the units (radii, density and " + stiffnessName + ")"});
  if (report.automatic) {
    report.timestep = report.contactTime / 50.0;
  } else if (report.timestep > report.stabilityLimit) {
    throw DemError({ErrorKind::Range, "timestep", -1,
                    "timestep " + str(report.timestep) + " s exceeds the stability limit " +
                        str(report.stabilityLimit) + " s (contact time " + str(report.contactTime) +
                        " s / 5) of the lightest sphere pair"});
  }
  if (batch.velocities)
    for (std::size_t k = 0; k < 3 * added; ++k)
      if (!(std::fabs(batch.velocities[k]) * report.timestep <= L[k % 3]))
        throw DemError({ErrorKind::Range, "velocities", std::ptrdiff_t(k),
                        "velocity " + str(batch.velocities[k]) + " m/s of sphere " + std::to_string(k / 3) +
                            " crosses the whole box (" + str(L[k % 3]) + " m) in one time step of " +
                            str(report.timestep) + " s"});
  detail::CellGrid grid;
  if (!grid.setup(box_, options_.periodic, cutoff, n))
    throw DemError({ErrorKind::Range, "radii", -1, "spheres do not fit the periodic box"});

  // Reserve next so that a bad_alloc leaves the simulation unchanged; the
  // appends below cannot throw.
  for (auto* array : {&x_, &v_, &omega_, &f_, &t_, &predictedV_, &predictedOmega_, &xAtBuild_, &userPositions_,
                      &userVelocities_, &userAngularVelocities_, &userForces_, &userExternalForces_, &externalWork_})
    array->reserve(3 * n);
  for (auto* array : {&radius_, &mass_, &inverseMass_, &inverseInertia_, &userRadii_}) array->reserve(n);
  userIndex_.reserve(n);
  userFixed_.reserve(n);
  wallShear_.reserve(3 * activeWalls_.size() * n);

  const std::size_t before = count_;
  const TimestepReport oldTimestep = timestep_;
  const double oldDt = dt_, oldSkin = skin_;
  const std::size_t oldFixedCount = fixedCount_;
  for (std::size_t i = 0; i < added; ++i) {
    const double r = batch.radii[i];
    const double mass = masses[i];
    // A fixed sphere has 1/m = 1/I = 0: the kicks leave its velocities at
    // exactly zero, so the drift leaves it exactly in place.
    const bool fixed = batch.fixed != nullptr && batch.fixed[i] != 0;
    for (int a = 0; a < 3; ++a) {
      const double value = lx[3 * i + a];
      x_.push_back(value);
      xAtBuild_.push_back(value);
      userPositions_.push_back(value + options_.box.min[a]);
      const double velocity = batch.velocities && !fixed ? batch.velocities[3 * i + a] : 0.0;
      v_.push_back(velocity);
      userVelocities_.push_back(velocity);
      predictedV_.push_back(velocity);
      omega_.push_back(0.0);
      predictedOmega_.push_back(0.0);
      userAngularVelocities_.push_back(0.0);
      f_.push_back(0.0);
      t_.push_back(0.0);
      userForces_.push_back(0.0);
      userExternalForces_.push_back(0.0);
      externalWork_.push_back(0.0);
    }
    radius_.push_back(r);
    userRadii_.push_back(r);
    mass_.push_back(mass);
    inverseMass_.push_back(fixed ? 0.0 : 1.0 / mass);
    inverseInertia_.push_back(fixed ? 0.0 : 1.0 / (0.4 * mass * r * r));
    userFixed_.push_back(fixed ? 1 : 0);
    fixedCount_ += fixed ? 1 : 0;
    userIndex_.push_back(static_cast<std::uint32_t>(count_ + i));
    for (std::size_t w = 0; w < 3 * activeWalls_.size(); ++w) wallShear_.push_back(0.0);
  }
  count_ = n;
  timestep_ = report;
  dt_ = timestep_.timestep;
  skin_ = skin;
  impactSpeed_ = impactSpeed;
  std::swap(grid_, grid);
  try {
    // Build the list now so that queries (contacts, energies) work before the
    // first step; springs of existing contacts carry over.
    rebuild();
  } catch (...) {
    // rebuild() changes nothing before it can no longer fail: undo the appends.
    for (auto* array : {&x_, &v_, &omega_, &f_, &t_, &predictedV_, &predictedOmega_, &xAtBuild_, &userPositions_,
                        &userVelocities_, &userAngularVelocities_, &userForces_, &userExternalForces_, &externalWork_})
      array->resize(3 * before);
    for (auto* array : {&radius_, &mass_, &inverseMass_, &inverseInertia_, &userRadii_}) array->resize(before);
    userIndex_.resize(before);
    userFixed_.resize(before);
    fixedCount_ = oldFixedCount;
    wallShear_.resize(3 * activeWalls_.size() * before);
    count_ = before;
    timestep_ = oldTimestep;
    dt_ = oldDt;
    skin_ = oldSkin;
    std::swap(grid_, grid);
    throw;
  }
}

void Simulation::checkCoincident(const std::vector<double>& lx, std::size_t added) const {
  // Two spheres at one centre have no contact normal: the first step would
  // divide by zero. Sort the new centres, compare neighbours, then look each
  // existing centre up: O((N + M) log M).
  std::vector<std::uint32_t> order(added);
  for (std::size_t i = 0; i < added; ++i) order[i] = static_cast<std::uint32_t>(i);
  auto less = [&](const double* a, const double* b) {
    return a[0] != b[0] ? a[0] < b[0] : a[1] != b[1] ? a[1] < b[1] : a[2] < b[2];
  };
  auto same = [](const double* a, const double* b) { return a[0] == b[0] && a[1] == b[1] && a[2] == b[2]; };
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return less(&lx[3 * a], &lx[3 * b]) || (same(&lx[3 * a], &lx[3 * b]) && a < b);
  });
  auto where = [&](const double* x) {
    return "(" + str(x[0] + options_.box.min[0]) + ", " + str(x[1] + options_.box.min[1]) + ", " +
           str(x[2] + options_.box.min[2]) + ")";
  };
  for (std::size_t k = 1; k < added; ++k)
    if (same(&lx[3 * order[k - 1]], &lx[3 * order[k]]))
      throw DemError({ErrorKind::Range, "positions", std::ptrdiff_t(3 * order[k]),
                      "spheres " + std::to_string(order[k - 1]) + " and " + std::to_string(order[k]) +
                          " of the batch have the same centre " + where(&lx[3 * order[k]]) +
                          "; coincident spheres have no contact normal"});
  for (std::size_t i = 0; i < count_; ++i) {
    double x[3];
    for (int a = 0; a < 3; ++a) x[a] = options_.periodic[a] ? wrap(x_[3 * i + a], box_.max[a]) : x_[3 * i + a];
    auto found = std::lower_bound(order.begin(), order.end(), x,
                                  [&](std::uint32_t a, const double* key) { return less(&lx[3 * a], key); });
    if (found != order.end() && same(&lx[3 * *found], x))
      throw DemError({ErrorKind::Range, "positions", std::ptrdiff_t(3 * *found),
                      "sphere " + std::to_string(*found) + " of the batch has the same centre " + where(x) +
                          " as sphere " + std::to_string(userIndex_[i]) +
                          " already in the simulation; coincident spheres have no contact normal"});
  }
}

void Simulation::rebuild() {
  const std::size_t n = count_;
  const std::size_t workers = options_.workers;
  const double* L = box_.max.data();
  const std::size_t wallWidth = 3 * activeWalls_.size();
  auto wrapped = [&](const double* x, int a) {
    if (!options_.periodic[a]) return x[a];
    return wrap(x[a], L[a]);
  };
  // Phase A: everything that allocates, with no visible change.
  // 1. Each sphere's cell (periodic coordinates wrapped).
  scratchIndex_.resize(n);
  runParallel([&](std::size_t begin, std::size_t end, unsigned) {
    for (std::size_t c = begin; c < end; ++c)
      for (std::size_t i = c * n / workers; i < (c + 1) * n / workers; ++i) {
        const double x[3] = {wrapped(&x_[3 * i], 0), wrapped(&x_[3 * i], 1), wrapped(&x_[3 * i], 2)};
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
  cellOfSphere_.resize(std::max(n, cells));
  {
    std::vector<std::uint32_t>& fill = cellOfSphere_;  // reused as scratch
    std::copy(cellStart_.begin(), cellStart_.end() - 1, fill.begin());
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t slot = fill[scratchIndex_[i]]++;
      order_[slot] = static_cast<std::uint32_t>(i);
      oldToNew_[i] = slot;
    }
  }
  cellOfSphere_.resize(n);
  for (std::size_t c = 0; c < cells; ++c)
    for (std::uint32_t k = cellStart_[c]; k < cellStart_[c + 1]; ++k) cellOfSphere_[k] = static_cast<std::uint32_t>(c);
  // 3. Springs of the old list, keyed by new index (old lists are still intact).
  detail::collectShearHistory(chunks_, oldToNew_, n, history_);
  // 4. Positions and radii in the new order, and the new half lists, one per
  //    chunk, built in the spare generation of lists.
  sortedX_.resize(3 * n);
  sortedRadius_.resize(n);
  runParallel([&](std::size_t begin, std::size_t end, unsigned) {
    for (std::size_t c = begin; c < end; ++c)
      for (std::size_t k = c * n / workers; k < (c + 1) * n / workers; ++k) {
        const std::size_t i = order_[k];
        for (int a = 0; a < 3; ++a) sortedX_[3 * k + a] = wrapped(&x_[3 * i], a);
        sortedRadius_[k] = radius_[i];
      }
  });
  spareChunks_.resize(workers);
  splitByWork(cells, spareChunks_);
  runParallel([&](std::size_t begin, std::size_t end, unsigned) {
    for (std::size_t c = begin; c < end; ++c)
      detail::buildPairChunk(grid_, cellStart_, cellOfSphere_, sortedX_.data(), sortedRadius_.data(), skin_, history_,
                             spareChunks_[c]);
  });
  scratch_.reserve(3 * n);
  scratchNarrow_.reserve(n);
  scratchWall_.reserve(wallWidth * n);
  scratchIndex_.reserve(n);

  // Phase B: permute the other per-sphere arrays and swap the new
  // generation in. Nothing below allocates (every scratch has its capacity)
  // or calls the host's parallel loop, so nothing can fail half-way: a
  // serial gather, memory-bound like the counting sort above.
  auto permute = [&](auto& array, auto& scratch, std::size_t width) {
    scratch.resize(array.size());
    for (std::size_t k = 0; k < n; ++k)
      for (std::size_t d = 0; d < width; ++d) scratch[width * k + d] = array[width * order_[k] + d];
    array.swap(scratch);
  };
  x_.swap(sortedX_);
  radius_.swap(sortedRadius_);
  for (auto* array : {&v_, &omega_, &predictedV_, &predictedOmega_}) permute(*array, scratch_, 3);
  for (auto* array : {&mass_, &inverseMass_, &inverseInertia_}) permute(*array, scratchNarrow_, 1);
  if (wallWidth > 0) permute(wallShear_, scratchWall_, wallWidth);
  permute(userIndex_, scratchIndex_, 1);
  std::copy(x_.begin(), x_.end(), xAtBuild_.begin());
  chunks_.swap(spareChunks_);
  listValid_ = true;
  forcesValid_ = false;
  ++rebuilds_;
}

void Simulation::splitByWork(std::size_t cells, std::vector<detail::PairChunk>& chunks) {
  // Equal numbers of spheres make unequal work: the bottom of a bed has more
  // contacts than its loose top, and the thread with the denser chunk keeps
  // the other waiting at every step. Cut where the estimated work is equal:
  // a sphere's half list holds about half the spheres of its own cell and
  // those of its 13 forward cells, and each sphere also costs a fixed part
  // (the kick, drift and wall pass) of about a quarter of a typical list.
  const std::size_t n = count_, workers = chunks.size();
  const std::uint32_t* start = cellStart_.data();
  cellWork_.resize(cells);
  double candidates = 0.0;
  for (std::size_t c = 0; c < cells; ++c) {
    const double own = double(start[c + 1] - start[c]);
    if (own == 0.0) continue;  // no sphere to weigh
    double forward = 0.5 * own;
    for (std::uint32_t k = grid_.stencilStart[c]; k < grid_.stencilStart[c + 1]; ++k) {
      const std::uint32_t other = grid_.stencilCell[k];
      forward += double(start[other + 1] - start[other]);
    }
    cellWork_[c] = forward;
    candidates += own * forward;
  }
  const double fixedPart = n > 0 ? 0.25 * candidates / double(n) : 0.0;
  const double total = candidates + fixedPart * double(n);
  std::size_t k = 0, c = 0;
  double done = 0.0;
  for (std::size_t chunk = 0; chunk < workers; ++chunk) {
    chunks[chunk].begin = k;
    const double target = total * double(chunk + 1) / double(workers);
    if (chunk + 1 == workers) k = n;
    while (k < n) {
      while (start[c + 1] <= k) ++c;  // the cell of sphere k (sorted by cell)
      const double work = cellWork_[c] + fixedPart;
      const std::size_t left = start[c + 1] - k;
      if (done + double(left) * work <= target) {
        done += double(left) * work;
        k = start[c + 1];
        continue;
      }
      const std::size_t take = std::min(left, std::size_t((target - done) / work));
      done += double(take) * work;
      k += take;
      break;
    }
    chunks[chunk].end = k;
  }
}

template <bool Friction, ContactModelKind Model>
void Simulation::pairForcesChunk(detail::PairChunk& chunk) {
  const double* x = x_.data();
  const double* v = predictedV_.data();
  const double* w = predictedOmega_.data();
  const double* radius = radius_.data();
  const double* mass = mass_.data();
  const double* inverseMass = inverseMass_.data();
  const bool anyFixed = fixedCount_ > 0;
  double overlapSum = 0.0, overlapMax = 0.0;
  std::size_t contacts = 0;
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
      // A fixed partner has infinite mass: m* is the other sphere's mass. Two
      // fixed spheres have no relative motion, so m* only has to be finite.
      double reducedMass = mi * mj / (mi + mj);
      if (anyFixed && (inverseMass[i] == 0.0) != (inverseMass[j] == 0.0)) reducedMass = inverseMass[i] == 0.0 ? mj : mi;
      const double overlap = reach - r;
      const double share = overlap / std::min(ri, rj);
      overlapSum += share;
      overlapMax = std::max(overlapMax, share);
      ++contacts;
      double f[3], arm[3];
      detail::contactForce<Model, Friction>(law_, dt, normal, overlap, relative, spin, reducedMass, ri * rj / reach,
                                            &shear[3 * k], f, arm);
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
  chunk.overlapSum = overlapSum;
  chunk.overlapMax = overlapMax;
  chunk.contacts = contacts;
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
    const double gap = lower ? x[axis] : box_.max[axis] - x[axis];
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
  const double* external = hasExternal_ ? externalWork_.data() : nullptr;
  runParallel([&](std::size_t begin, std::size_t end, unsigned) {
    for (std::size_t c = begin; c < end; ++c) {
      ChunkTally tally;
      for (std::size_t i = chunks_[c].begin; i < chunks_[c].end; ++i) {
        const double m = mass_[i];
        double force[3] = {m * g[0], m * g[1], m * g[2]};
        if (external != nullptr)
          for (int d = 0; d < 3; ++d) force[d] += external[3 * userIndex_[i] + d];
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
  const Box& box = box_;
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

void Simulation::checkExternalForces() const {
  // Volatile reads: the host may write the array from another thread
  // between calls; what is checked is what gets copied.
  const volatile double* source = userExternalForces_.data();
  for (std::size_t k = 0; k < 3 * count_; ++k) {
    const double value = source[k];
    if (!std::isfinite(value))
      throw DemError({ErrorKind::Range, "externalForces", std::ptrdiff_t(k),
                      "external force " + std::to_string(k) + " (sphere " + std::to_string(k / 3) + ") is " +
                          str(value) + "; it must be a finite number (N)"});
  }
}

void Simulation::loadExternalForces() {
  // Read once (the host may write the array from another thread between
  // calls: volatile reads), checked whole, then applied: a bad value changes
  // nothing.
  const volatile double* source = userExternalForces_.data();
  externalScratch_.resize(3 * count_);
  for (std::size_t k = 0; k < 3 * count_; ++k) {
    const double value = source[k];
    if (!std::isfinite(value))
      throw DemError({ErrorKind::Range, "externalForces", std::ptrdiff_t(k),
                      "external force " + std::to_string(k) + " (sphere " + std::to_string(k / 3) + ") is " +
                          str(value) + "; it must be a finite number (N)"});
    externalScratch_[k] = value;
  }
  bool any = false;
  for (std::size_t i = 0; i < count_; ++i) {
    // The forces kept from the last step hold the external forces of then:
    // the new ones act from the first half kick of this call, so that a
    // force written between calls is applied for whole steps (what a
    // coupling that gives the fluid the opposite force needs).
    const std::size_t u = userIndex_[i];
    for (int d = 0; d < 3; ++d) {
      const std::size_t k = 3 * u + d;
      const double value = externalScratch_[k];
      if (forcesValid_) f_[3 * i + d] += value - externalWork_[k];
      externalWork_[k] = value;
      any = any || value != 0.0;
    }
  }
  hasExternal_ = any;
}

void Simulation::saveSnapshot() {
  Snapshot& s = snapshot_;
  // Sized first (this may allocate and throw; nothing visible has changed),
  // then copied in slices on the pool: the copy is a pass over the whole
  // state at every call, as large as a step's own memory traffic.
  const std::pair<const std::vector<double>*, std::vector<double>*> arrays[] = {{&x_, &s.x},
                                                                                {&v_, &s.v},
                                                                                {&omega_, &s.omega},
                                                                                {&f_, &s.f},
                                                                                {&t_, &s.t},
                                                                                {&predictedV_, &s.predictedV},
                                                                                {&predictedOmega_, &s.predictedOmega},
                                                                                {&xAtBuild_, &s.xAtBuild},
                                                                                {&radius_, &s.radius},
                                                                                {&mass_, &s.mass},
                                                                                {&inverseMass_, &s.inverseMass},
                                                                                {&inverseInertia_, &s.inverseInertia},
                                                                                {&wallShear_, &s.wallShear}};
  for (const auto& [from, to] : arrays) to->resize(from->size());
  s.userIndex.resize(userIndex_.size());
  s.chunks.resize(chunks_.size());
  const std::size_t slices = options_.workers;
  runParallel([&](std::size_t begin, std::size_t end, unsigned) {
    for (std::size_t c = begin; c < end; ++c) {
      for (const auto& [from, to] : arrays) {
        const std::size_t a = c * from->size() / slices, b = (c + 1) * from->size() / slices;
        std::copy(from->begin() + a, from->begin() + b, to->begin() + a);
      }
      const std::size_t a = c * userIndex_.size() / slices, b = (c + 1) * userIndex_.size() / slices;
      std::copy(userIndex_.begin() + a, userIndex_.begin() + b, s.userIndex.begin() + a);
      // One list per chunk (chunk counts match once the lists are built).
      for (std::size_t k = c; k < chunks_.size(); k += slices) s.chunks[k] = chunks_[k];
    }
  });
  s.time = time_;
  s.stepCount = stepCount_;
  s.rebuilds = rebuilds_;
  s.listValid = listValid_;
  s.forcesValid = forcesValid_;
}

void Simulation::restoreSnapshot() noexcept {
  // Swaps: the snapshot keeps the discarded state's buffers as capacity for
  // the next copy.
  Snapshot& s = snapshot_;
  x_.swap(s.x);
  v_.swap(s.v);
  omega_.swap(s.omega);
  f_.swap(s.f);
  t_.swap(s.t);
  predictedV_.swap(s.predictedV);
  predictedOmega_.swap(s.predictedOmega);
  xAtBuild_.swap(s.xAtBuild);
  radius_.swap(s.radius);
  mass_.swap(s.mass);
  inverseMass_.swap(s.inverseMass);
  inverseInertia_.swap(s.inverseInertia);
  wallShear_.swap(s.wallShear);
  userIndex_.swap(s.userIndex);
  chunks_.swap(s.chunks);
  time_ = s.time;
  stepCount_ = s.stepCount;
  rebuilds_ = s.rebuilds;
  listValid_ = s.listValid;
  forcesValid_ = s.forcesValid;
}

std::string Simulation::diagnoseDivergence(std::ptrdiff_t sphere, std::size_t stepOfCall) const {
  std::ostringstream out;
  out.precision(3);
  out << "sphere " << sphere << " became non-finite at step " << stepOfCall << " of the call; ";
  const double* L = box_.max.data();
  // Deepest overlap at the start of the call, of the diverged sphere and of
  // any pair (as a share of the smaller radius); walls count as spheres.
  double own = 0.0, any = 0.0;
  std::ptrdiff_t ownPartner = -2, anyFirst = -1, anySecond = -1;  // -2: none, -1: a wall
  for (const detail::PairChunk& chunk : chunks_)
    for (std::size_t i = chunk.begin; i < chunk.end; ++i)
      for (std::uint32_t k = chunk.offsets[i - chunk.begin]; k < chunk.offsets[i - chunk.begin + 1]; ++k) {
        const std::size_t j = chunk.partner[k];
        const double* shift = grid_.imageShift[chunk.image[k]];
        double r2 = 0.0;
        for (int d = 0; d < 3; ++d) {
          const double delta = x_[3 * i + d] - x_[3 * j + d] + shift[d];
          r2 += delta * delta;
        }
        const double overlap = radius_[i] + radius_[j] - std::sqrt(r2);
        if (!(overlap > 0.0)) continue;
        const double share = overlap / std::min(radius_[i], radius_[j]);
        const std::ptrdiff_t a = userIndex_[i], b = userIndex_[j];
        if (share > any) {
          any = share;
          anyFirst = std::min(a, b);
          anySecond = std::max(a, b);
        }
        if ((a == sphere || b == sphere) && share > own) {
          own = share;
          ownPartner = a == sphere ? b : a;
        }
      }
  double maxSpeed = 0.0, maxShare = 0.0, minMass = HUGE_VAL, minRadius = HUGE_VAL;
  std::ptrdiff_t fastest = -1;
  for (std::size_t i = 0; i < count_; ++i) {
    const double* v = &v_[3 * i];
    const double speed = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    maxSpeed = std::max(maxSpeed, speed);
    minMass = std::min(minMass, mass_[i]);
    minRadius = std::min(minRadius, radius_[i]);
    if (speed * dt_ / radius_[i] > maxShare) {
      maxShare = speed * dt_ / radius_[i];
      fastest = userIndex_[i];
    }
    if (std::ptrdiff_t(userIndex_[i]) != sphere) continue;
    for (int face : activeWalls_) {
      const int a = face / 2;
      const double gap = face % 2 == 0 ? x_[3 * i + a] : L[a] - x_[3 * i + a];
      if (gap < radius_[i] && (radius_[i] - gap) / radius_[i] > own) {
        own = (radius_[i] - gap) / radius_[i];
        ownPartner = -1;
      }
    }
  }
  if (own >= 0.5) {
    out << "at the start of the call it overlapped "
        << (ownPartner >= 0 ? "sphere " + std::to_string(ownPartner) : std::string("a wall")) << " by "
        << std::round(100.0 * own) << "% of its radius: spheres must not start deeply overlapping";
  } else if (any >= 0.5) {
    out << "at the start of the call spheres " << anyFirst << " and " << anySecond << " overlapped by "
        << std::round(100.0 * any) << "% of the smaller radius: spheres must not start deeply overlapping";
  } else if (maxShare >= 0.1) {
    out << "at the start of the call the velocity of sphere " << fastest << " carried it "
        << std::round(100.0 * maxShare) << "% of its radius per time step of " << dt_
        << " s, which exceeds the 10% a contact can resolve: lower the velocities or the time step";
  } else {
    // Hertz contacts stiffen with impact speed: the limit quoted for
    // impactVelocity does not hold for faster spheres.
    const double speed = std::max(impactSpeed_, 2.0 * maxSpeed);
    const double limit = law_.contactTime(0.5 * minMass, 0.5 * minRadius, speed) / 5.0;
    if (dt_ > limit)
      out << "the time step " << dt_ << " s is above the stability limit " << limit
          << " s of the lightest sphere pair at the relative speeds present (up to " << speed
          << " m/s): lower the time step or give a larger impactVelocity";
    else
      out << "no deep overlap or excessive speed was present at the start of the call; the time step " << dt_
          << " s (stability limit " << timestep_.stabilityLimit << " s) may still be too large for these contacts";
  }
  out << " (the state was restored to the start of the call)";
  return out.str();
}

StepReport Simulation::step(std::size_t steps, const std::atomic<bool>* cancel, const SettleCheck* settle) {
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
  loadExternalForces();  // may throw DemError; nothing has changed yet
  std::vector<ChunkTally> tallies(options_.workers);
  saveSnapshot();  // may throw; nothing has changed yet
  try {
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
        std::ptrdiff_t first = -1;
        for (std::size_t i = 0; i < count_; ++i) {
          // As drift() judges it: the displacement since the last build can
          // overflow while the coordinates are still finite.
          double moved2 = 0.0;
          for (int d = 0; d < 3; ++d) {
            const double moved = x_[3 * i + d] - xAtBuild_[3 * i + d];
            moved2 += moved * moved + 0.0 * v_[3 * i + d];
          }
          const bool finite = std::isfinite(moved2);
          if (!finite && (first < 0 || std::ptrdiff_t(userIndex_[i]) < first)) first = userIndex_[i];
        }
        restoreSnapshot();
        report.status = StepStatus::Diverged;
        report.divergedSphere = first;
        report.diagnosis = diagnoseDivergence(first, s + 1);
        report.clampedSpheres = 0;
        report.firstClampedSphere = -1;
        syncUserArrays(false);
        return report;
      }
      if (maxDisplacement2 > halfSkin2) rebuild();
      computePairForces();
      const bool last = s + 1 == steps;
      const bool stop = !last && cancelled();
      // A check point ends the fused pass as the end of a call would.
      const bool check =
          settle != nullptr && settle->checkInterval > 0 && ((s + 1) % settle->checkInterval == 0 || last);
      finishStep(!last && !stop && !check, 0.5, tallies);
      forcesValid_ = true;
      ++stepCount_;
      time_ += dt_;
      ++report.steps;
      if (stop) {
        report.status = StepStatus::Cancelled;
        break;
      }
      if (check) {
        if (meanTranslationalKineticEnergy() < settle->threshold) {
          report.settled = true;
          break;
        }
        if (!last) kickAndDrift(tallies);
      }
    }
    syncUserArrays(true);
  } catch (...) {
    restoreSnapshot();
    syncUserArrays(false);  // a parallel sync may have stopped half-way
    throw;
  }
  return report;
}

void Simulation::syncUserArrays(bool parallel) {
  const double* L = box_.max.data();
  const Vec3& origin = options_.box.min;
  auto body = [&](std::size_t begin, std::size_t end, unsigned) {
    for (std::size_t c = begin; c < end; ++c)
      for (std::size_t i = chunks_[c].begin; i < chunks_[c].end; ++i) {
        const std::size_t u = userIndex_[i];
        for (int a = 0; a < 3; ++a) {
          double x = x_[3 * i + a];
          if (options_.periodic[a]) x = wrap(x, L[a]);
          userPositions_[3 * u + a] = origin[a] + x;
          userVelocities_[3 * u + a] = v_[3 * i + a];
          userAngularVelocities_[3 * u + a] = omega_[3 * i + a];
          userForces_[3 * u + a] = f_[3 * i + a];
        }
      }
  };
  if (parallel)
    runParallel(body);
  else
    body(0, chunks_.size(), 0);  // cannot fail: no allocation, no host call
}

}  // namespace peclet::dem
