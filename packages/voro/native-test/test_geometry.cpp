// Volumes fill the box, faces pair up with equal areas, and Poisson-Voronoi statistics.
#include "checks.hpp"
#include "thread_pool.hpp"

using namespace peclet::voro;

namespace {

void expectPartition(const char* label, std::size_t n, const Box& box, bool withRadii, unsigned long long seed,
                     ThreadPool& pool) {
  std::vector<double> xyz = randomPoints(n, box, seed);
  std::vector<double> radii;
  if (withRadii) {
    std::mt19937_64 rng(seed + 1);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    const double spacing = std::cbrt(boxVolume(box) / double(n));
    for (std::size_t i = 0; i < n; ++i) radii.push_back(spacing * (0.1 + 0.5 * u(rng)));
  }
  Tessellation t;
  Outcome o =
      t.compute(xyz.data(), xyz.size(), box, withRadii ? radii.data() : nullptr, radii.size(), pool.execution());
  CHECK(o.status == Status::kOk);
  Invariants r = checkInvariants(t, box);
  printInvariants(label, r, t.stats());
  CHECK(r.volumeError < 1e-12);
  CHECK(r.asymmetric == 0);
  CHECK(r.areaMismatch == 0);
  CHECK(r.defects == 0);
  for (double v : t.cellVolumes()) CHECK(v >= 0);
}

}  // namespace

TEST(volumes_fill_walled_box) {
  ThreadPool pool(2);
  expectPartition("walled 2e4", 20000, makeBox(0, 1, false, false, false), false, 1, pool);
  expectPartition("walled offset box 1e4", 10000, makeBox(1000, 1003, false, false, false), false, 2, pool);
}

TEST(volumes_fill_periodic_box) {
  ThreadPool pool(2);
  expectPartition("periodic 2e4", 20000, makeBox(0, 1, true, true, true), false, 3, pool);
  expectPartition("periodic x,z 2e4", 20000, makeBox(-1, 2, true, false, true), false, 4, pool);
  expectPartition("periodic y 1e4", 10000, makeBox(0, 1, false, true, false), false, 5, pool);
  expectPartition("periodic 7 points", 7, makeBox(0, 1, true, true, true), false, 6, pool);
  expectPartition("periodic 1 point", 1, makeBox(0, 1, true, true, true), false, 7, pool);
  expectPartition("walled 1 point", 1, makeBox(0, 1, false, false, false), false, 8, pool);
}

TEST(volumes_fill_box_laguerre) {
  ThreadPool pool(2);
  expectPartition("laguerre walled 2e4", 20000, makeBox(0, 1, false, false, false), true, 9, pool);
  expectPartition("laguerre periodic 2e4", 20000, makeBox(0, 1, true, true, true), true, 10, pool);
  expectPartition("laguerre mixed 1e4", 10000, makeBox(0, 1, false, true, true), true, 11, pool);
}

TEST(larger_random_sets_stay_symmetric) {
  ThreadPool pool(2);
  expectPartition("walled 2e5", 200000, makeBox(0, 1, false, false, false), false, 12, pool);
  expectPartition("periodic 2e5", 200000, makeBox(0, 1, true, true, true), false, 13, pool);
}

TEST(poisson_voronoi_mean_faces) {
  // The expected number of faces of a Poisson-Voronoi cell is 15.5355 (Meijering 1953).
  ThreadPool pool(2);
  const Box box = makeBox(0, 1, true, true, true);
  std::vector<double> xyz = randomPoints(100000, box, 2024);
  Tessellation t;
  CHECK(t.compute(xyz.data(), xyz.size(), box, nullptr, 0, pool.execution()).status == Status::kOk);
  Invariants r = checkInvariants(t, box);
  printInvariants("poisson periodic 1e5", r, t.stats());
  CHECK(std::fabs(r.meanFaces - 15.535) < 0.01);
  for (auto j : t.neighbors()) CHECK(j >= 0);  // no walls when periodic
}

TEST(points_outside_periodic_box_are_wrapped) {
  const Box box = makeBox(0, 1, true, true, true);
  std::vector<double> xyz = randomPoints(2000, box, 77);
  std::vector<double> moved = xyz;
  for (std::size_t i = 0; i < moved.size(); i += 3) moved[i] += double(int(i % 5) - 2);
  Tessellation a, b;
  CHECK(a.compute(xyz.data(), xyz.size(), box, nullptr, 0, Execution{}).status == Status::kOk);
  CHECK(b.compute(moved.data(), moved.size(), box, nullptr, 0, Execution{}).status == Status::kOk);
  double worst = 0;
  for (std::size_t i = 0; i < 2000; ++i)
    worst = std::max(worst, std::fabs(a.cellVolumes()[i] - b.cellVolumes()[i]) / a.cellVolumes()[i]);
  CHECK(worst < 1e-10);
  CHECK(a.neighbors() == b.neighbors());
  // Centroids follow the point as given.
  for (std::size_t i = 0; i < 6000; i += 3)
    CHECK(std::fabs((b.cellCentroids()[i] - moved[i]) - (a.cellCentroids()[i] - xyz[i])) < 1e-9);
}

TEST(laguerre_two_points_power_bisector) {
  // Two points on the x axis with radii: the plane sits where |x-p1|^2-r1^2 = |x-p2|^2-r2^2.
  const Box box = makeBox(0, 1, false, false, false);
  std::vector<double> xyz = {0.25, 0.5, 0.5, 0.75, 0.5, 0.5};
  std::vector<double> radii = {0.2, 0.1};
  Tessellation t;
  CHECK(t.compute(xyz.data(), 6, box, radii.data(), 2, Execution{}).status == Status::kOk);
  // x* = (p2^2 - p1^2 + r1^2 - r2^2) / (2 (p2 - p1))
  const double x = (0.75 * 0.75 - 0.25 * 0.25 + 0.04 - 0.01) / (2 * 0.5);
  CHECK(std::fabs(t.cellVolumes()[0] - x) < 1e-14);
  CHECK(std::fabs(t.cellVolumes()[1] - (1 - x)) < 1e-14);
  CHECK(std::fabs(t.faceAreas()[t.neighborOffsets()[0]] - 1.0) < 1e-14 ||
        t.neighborOffsets()[1] - t.neighborOffsets()[0] == 6);
}

TEST(laguerre_equal_radii_is_voronoi) {
  const Box box = makeBox(0, 1, true, false, true);
  std::vector<double> xyz = randomPoints(3000, box, 31);
  std::vector<double> radii(3000, 0.02);
  Tessellation a, b;
  CHECK(a.compute(xyz.data(), xyz.size(), box, nullptr, 0, Execution{}).status == Status::kOk);
  CHECK(b.compute(xyz.data(), xyz.size(), box, radii.data(), 3000, Execution{}).status == Status::kOk);
  double worst = 0;
  for (std::size_t i = 0; i < 3000; ++i)
    worst = std::max(worst, std::fabs(a.cellVolumes()[i] - b.cellVolumes()[i]) / a.cellVolumes()[i]);
  CHECK(worst < 1e-10);
  CHECK(a.neighbors() == b.neighbors());
}

TEST(laguerre_dominated_cell_is_empty) {
  // A point with zero radius squeezed between two big spheres has no power cell.
  const Box box = makeBox(0, 1, false, false, false);
  std::vector<double> xyz = {0.3, 0.5, 0.5, 0.5, 0.5, 0.5, 0.7, 0.5, 0.5};
  std::vector<double> radii = {0.3, 0.0, 0.3};
  Tessellation t;
  CHECK(t.compute(xyz.data(), 9, box, radii.data(), 3, Execution{}).status == Status::kOk);
  CHECK(t.cellVolumes()[1] == 0.0);
  CHECK(t.neighborOffsets()[2] == t.neighborOffsets()[1]);
  CHECK(t.stats().emptyCells == 1);
  CHECK(std::fabs(t.cellVolumes()[0] + t.cellVolumes()[2] - 1.0) < 1e-14);
  Invariants r = checkInvariants(t, box);
  CHECK(r.asymmetric == 0);
}
