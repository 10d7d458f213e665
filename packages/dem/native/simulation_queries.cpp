// Read-only measurements of a Simulation: energies, contacts, packing.
#include <algorithm>
#include <cmath>

#include "simulation.hpp"
#include "sphere_box_volume.hpp"

namespace peclet::dem {

double Simulation::kineticEnergy() const {
  double energy = 0.0;
  for (std::size_t i = 0; i < count_; ++i) {
    const double* v = &v_[3 * i];
    const double* w = &omega_[3 * i];
    energy += 0.5 * mass_[i] * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    // A fixed sphere (1/I = 0) never spins.
    if (options_.rotation && inverseInertia_[i] != 0.0)
      energy += 0.5 / inverseInertia_[i] * (w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
  }
  return energy;
}

double Simulation::translationalKineticEnergy() const {
  double energy = 0.0;
  for (std::size_t i = 0; i < count_; ++i) {
    const double* v = &v_[3 * i];
    energy += 0.5 * mass_[i] * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  }
  return energy;
}

double Simulation::meanTranslationalKineticEnergy() const {
  const std::size_t free = count_ - fixedCount_;
  return free == 0 ? 0.0 : translationalKineticEnergy() / double(free);
}

Vec3 Simulation::momentum() const {
  Vec3 p{0.0, 0.0, 0.0};
  for (std::size_t i = 0; i < count_; ++i)
    for (int d = 0; d < 3; ++d) p[d] += mass_[i] * v_[3 * i + d];
  return p;
}

namespace {

// Calls visit(i, j, overlap) for every sphere–sphere contact in the lists.
template <class Visit>
void forEachContact(const std::vector<detail::PairChunk>& chunks, const detail::CellGrid& grid,
                    const std::vector<double>& x, const std::vector<double>& radius, Visit visit) {
  for (const detail::PairChunk& chunk : chunks)
    for (std::size_t i = chunk.begin; i < chunk.end; ++i)
      for (std::uint32_t k = chunk.offsets[i - chunk.begin]; k < chunk.offsets[i - chunk.begin + 1]; ++k) {
        const std::size_t j = chunk.partner[k];
        const double* shift = grid.imageShift[chunk.image[k]];
        double r2 = 0.0;
        for (int d = 0; d < 3; ++d) {
          const double delta = x[3 * i + d] - x[3 * j + d] + shift[d];
          r2 += delta * delta;
        }
        const double reach = radius[i] + radius[j];
        if (r2 < reach * reach) visit(i, j, reach - std::sqrt(r2));
      }
}

}  // namespace

double Simulation::elasticEnergy() const {
  double energy = 0.0;
  forEachContact(chunks_, grid_, x_, radius_, [&](std::size_t i, std::size_t j, double overlap) {
    energy += law_.normalElasticEnergy(overlap, radius_[i] * radius_[j] / (radius_[i] + radius_[j]));
  });
  for (std::size_t i = 0; i < count_; ++i)
    for (int face : activeWalls_) {
      const int axis = face / 2;
      const double gap = face % 2 == 0 ? x_[3 * i + axis] - box_.min[axis] : box_.max[axis] - x_[3 * i + axis];
      if (gap < radius_[i]) energy += law_.normalElasticEnergy(radius_[i] - gap, radius_[i]);
    }
  return energy;
}

std::vector<Contact> Simulation::contacts() const {
  std::vector<Contact> result;
  forEachContact(chunks_, grid_, x_, radius_, [&](std::size_t i, std::size_t j, double overlap) {
    std::size_t a = userIndex_[i], b = userIndex_[j];
    if (a > b) std::swap(a, b);
    result.push_back({a, b, overlap});
  });
  return result;
}

OverlapStatistics Simulation::overlapStatistics() const {
  OverlapStatistics stats;
  double sum = 0.0;
  if (forcesValid_) {
    // The last force evaluation was at the current positions: its tallies,
    // summed in chunk order.
    for (const detail::PairChunk& chunk : chunks_) {
      sum += chunk.overlapSum;
      stats.max = std::max(stats.max, chunk.overlapMax);
      stats.contacts += chunk.contacts;
    }
  } else {
    forEachContact(chunks_, grid_, x_, radius_, [&](std::size_t i, std::size_t j, double overlap) {
      const double share = overlap / std::min(radius_[i], radius_[j]);
      sum += share;
      stats.max = std::max(stats.max, share);
      ++stats.contacts;
    });
  }
  stats.mean = stats.contacts > 0 ? sum / double(stats.contacts) : 0.0;
  return stats;
}

double Simulation::coordinationNumber() const {
  if (count_ == 0) return 0.0;
  std::size_t pairs = 0;
  forEachContact(chunks_, grid_, x_, radius_, [&](std::size_t, std::size_t, double) { ++pairs; });
  return 2.0 * double(pairs) / double(count_);
}

double Simulation::packingFraction(const Vec3& userMin, const Vec3& userMax) const {
  double boxVolume = 1.0;
  Vec3 min, max;  // relative to box.min, as the kernel stores centres
  for (int a = 0; a < 3; ++a) {
    if (!(userMax[a] > userMin[a])) return 0.0;
    boxVolume *= userMax[a] - userMin[a];
    min[a] = userMin[a] - options_.box.min[a];
    max[a] = userMax[a] - options_.box.min[a];
  }
  const Box& box = box_;
  double solid = 0.0;
  for (std::size_t i = 0; i < count_; ++i) {
    const double r = radius_[i];
    Vec3 centre;
    for (int a = 0; a < 3; ++a) {
      centre[a] = x_[3 * i + a];
      if (options_.periodic[a]) {
        const double length = box.max[a] - box.min[a];
        centre[a] -= length * std::floor((centre[a] - box.min[a]) / length);
      }
    }
    // Periodic images: a sphere straddling a periodic face also appears, cut,
    // on the opposite side.
    int lo[3], hi[3];
    for (int a = 0; a < 3; ++a) {
      lo[a] = hi[a] = 0;
      if (!options_.periodic[a]) continue;
      if (centre[a] + r > box.max[a]) lo[a] = -1;
      if (centre[a] - r < box.min[a]) hi[a] = 1;
    }
    for (int sx = lo[0]; sx <= hi[0]; ++sx)
      for (int sy = lo[1]; sy <= hi[1]; ++sy)
        for (int sz = lo[2]; sz <= hi[2]; ++sz) {
          const int s[3] = {sx, sy, sz};
          Vec3 image;
          for (int a = 0; a < 3; ++a) image[a] = centre[a] + s[a] * (box.max[a] - box.min[a]);
          solid += sphereBoxVolume(image, r, min, max);
        }
  }
  return solid / boxVolume;
}

}  // namespace peclet::dem
