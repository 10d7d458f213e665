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

void Simulation::images(std::size_t i, Vec3& centre, int lo[3], int hi[3]) const {
  const Box& box = box_;
  const double r = radius_[i];
  for (int a = 0; a < 3; ++a) {
    centre[a] = x_[3 * i + a];
    lo[a] = hi[a] = 0;
    if (!options_.periodic[a]) continue;
    const double length = box.max[a] - box.min[a];
    centre[a] -= length * std::floor((centre[a] - box.min[a]) / length);
    // A sphere straddling a periodic face also appears, cut, on the opposite side.
    if (centre[a] + r > box.max[a]) lo[a] = -1;
    if (centre[a] - r < box.min[a]) hi[a] = 1;
  }
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
    int lo[3], hi[3];
    images(i, centre, lo, hi);
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

void Simulation::voxelize(const Vec3& userMin, const std::size_t n[3], double voxel, std::uint8_t* solid) const {
  const std::size_t plane = n[1] * n[2];
  Vec3 min;  // relative to box.min, as the kernel stores centres
  for (int a = 0; a < 3; ++a) min[a] = userMin[a] - options_.box.min[a];
  const Box& box = box_;
  const std::size_t workers = std::max<std::size_t>(1, options_.workers);
  // The voxel index range [lo, hi) whose centres min + (i + ½) h lie within
  // [c − r, c + r] along an axis of n voxels (empty when lo ≥ hi).
  auto range = [&](double c, double r, int a, std::int64_t& lo, std::int64_t& hi) {
    const double first = std::ceil((c - r - min[a]) / voxel - 0.5);
    const double last = std::floor((c + r - min[a]) / voxel - 0.5);
    // Clamped in double before the conversion: a sphere far outside (or a
    // voxel tiny beside the coordinates) gives values no integer holds.
    lo = std::int64_t(std::clamp(first, 0.0, double(n[a])));
    hi = std::int64_t(std::clamp(last + 1, 0.0, double(n[a])));
  };
  runParallel([&](std::size_t begin, std::size_t end, unsigned) {
    for (std::size_t chunk = begin; chunk < end; ++chunk) {
      // This chunk's slab of the first axis: no two chunks write one byte.
      const std::int64_t slabLo = std::int64_t(chunk * n[0] / workers);
      const std::int64_t slabHi = std::int64_t((chunk + 1) * n[0] / workers);
      if (slabLo >= slabHi) continue;
      std::fill(solid + slabLo * plane, solid + slabHi * plane, std::uint8_t(0));
      for (std::size_t s = 0; s < count_; ++s) {
        const double r = radius_[s];
        Vec3 centre;
        int lo[3], hi[3];
        images(s, centre, lo, hi);
        for (int sx = lo[0]; sx <= hi[0]; ++sx) {
          const double cx = centre[0] + sx * (box.max[0] - box.min[0]);
          std::int64_t i0, i1;
          range(cx, r, 0, i0, i1);
          i0 = std::max(i0, slabLo), i1 = std::min(i1, slabHi);
          if (i0 >= i1) continue;
          for (int sy = lo[1]; sy <= hi[1]; ++sy) {
            const double cy = centre[1] + sy * (box.max[1] - box.min[1]);
            for (int sz = lo[2]; sz <= hi[2]; ++sz) {
              const double cz = centre[2] + sz * (box.max[2] - box.min[2]);
              for (std::int64_t i = i0; i < i1; ++i) {
                const double dx = min[0] + (double(i) + 0.5) * voxel - cx;
                const double rx = r * r - dx * dx;
                if (rx < 0) continue;
                std::int64_t j0, j1;
                range(cy, std::sqrt(rx), 1, j0, j1);
                for (std::int64_t j = j0; j < j1; ++j) {
                  const double dy = min[1] + (double(j) + 0.5) * voxel - cy;
                  const double ry = rx - dy * dy;
                  if (ry < 0) continue;
                  std::int64_t k0, k1;
                  range(cz, std::sqrt(ry), 2, k0, k1);
                  if (k0 >= k1) continue;
                  std::uint8_t* row = solid + std::size_t(i) * plane + std::size_t(j) * n[2];
                  std::fill(row + k0, row + k1, std::uint8_t(1));
                }
              }
            }
          }
        }
      }
    }
  });
}

}  // namespace peclet::dem
