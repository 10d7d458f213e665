// The object contract: determinism across threads, buffer reuse, cancellation, cell().
#include <set>

#include "checks.hpp"
#include "thread_pool.hpp"

using namespace peclet::voro;

TEST(results_do_not_depend_on_thread_count) {
  const Box box = makeBox(0, 1, true, false, true);
  std::vector<double> xyz = randomPoints(30000, box, 5);
  Tessellation serial, two, three;
  ThreadPool p2(2), p3(3);
  CHECK(serial.compute(xyz.data(), xyz.size(), box, nullptr, 0, Execution{}).status == Status::kOk);
  CHECK(two.compute(xyz.data(), xyz.size(), box, nullptr, 0, p2.execution()).status == Status::kOk);
  CHECK(three.compute(xyz.data(), xyz.size(), box, nullptr, 0, p3.execution()).status == Status::kOk);
  for (const Tessellation* t : {&two, &three}) {
    CHECK(t->cellVolumes() == serial.cellVolumes());
    CHECK(t->cellCentroids() == serial.cellCentroids());
    CHECK(t->neighborOffsets() == serial.neighborOffsets());
    CHECK(t->neighbors() == serial.neighbors());
    CHECK(t->faceAreas() == serial.faceAreas());
  }
}

TEST(update_reuses_buffers) {
  const Box box = makeBox(0, 1, true, true, true);
  std::vector<double> xyz = randomPoints(20000, box, 8);
  ThreadPool pool(2);
  Tessellation t;
  CHECK(t.compute(xyz.data(), xyz.size(), box, nullptr, 0, pool.execution()).status == Status::kOk);
  // A second pass sizes every buffer for the busiest layout seen so far.
  std::mt19937_64 rng(9);
  std::normal_distribution<double> jitter(0.0, 0.002);
  for (double& x : xyz) x += jitter(rng);
  CHECK(t.update(xyz.data(), pool.execution()).status == Status::kOk);
  const double* volumes = t.cellVolumes().data();
  const std::int32_t* neighbors = t.neighbors().data();
  const std::size_t capacity = t.neighbors().capacity();
  for (double& x : xyz) x += jitter(rng);
  CHECK(t.update(xyz.data(), pool.execution()).status == Status::kOk);
  CHECK(t.cellVolumes().data() == volumes);
  CHECK(t.neighbors().capacity() < capacity || t.neighbors().data() == neighbors);
  Tessellation fresh;
  CHECK(fresh.compute(xyz.data(), xyz.size(), box, nullptr, 0, Execution{}).status == Status::kOk);
  CHECK(fresh.cellVolumes() == t.cellVolumes());
  CHECK(fresh.neighbors() == t.neighbors());
  CHECK(fresh.faceAreas() == t.faceAreas());
  Invariants r = checkInvariants(t, box);
  CHECK(r.volumeError < 1e-12 && r.asymmetric == 0);
}

TEST(cancellation_stops_between_chunks) {
  const Box box = makeBox(0, 1, false, false, false);
  std::vector<double> xyz = randomPoints(20000, box, 10);
  ThreadPool pool(2);
  std::atomic<bool> cancel{true};
  Tessellation t;
  Outcome o = t.compute(xyz.data(), xyz.size(), box, nullptr, 0, pool.execution(&cancel));
  CHECK(o.status == Status::kCancelled);
  CHECK(t.pointCount() == 0);
  CellGeometry g;
  CHECK(!t.cell(0, g));
  cancel = false;
  CHECK(t.compute(xyz.data(), xyz.size(), box, nullptr, 0, pool.execution(&cancel)).status == Status::kOk);
  CHECK(t.pointCount() == 20000);
}

TEST(cell_geometry_matches_results) {
  for (bool periodic : {false, true}) {
    const Box box = makeBox(0, 1, periodic, periodic, periodic);
    std::vector<double> xyz = randomPoints(5000, box, 12);
    std::vector<double> radii(5000);
    std::mt19937_64 rng(13);
    std::uniform_real_distribution<double> u(0.0, 0.03);
    for (double& r : radii) r = u(rng);
    for (bool laguerre : {false, true}) {
      Tessellation t;
      CHECK(t.compute(xyz.data(), xyz.size(), box, laguerre ? radii.data() : nullptr, 5000, Execution{}).status ==
            Status::kOk);
      CellGeometry g;
      double worstVolume = 0;
      std::size_t badLoops = 0;
      for (std::size_t i = 0; i < 5000; i += 7) {
        CHECK(t.cell(i, g));
        const auto begin = t.neighborOffsets()[i], end = t.neighborOffsets()[i + 1];
        CHECK(g.faceNeighbors == std::vector<std::int32_t>(t.neighbors().begin() + begin, t.neighbors().begin() + end));
        // Volume by the divergence theorem from absolute coordinates, around the point.
        double volume = 0;
        std::multiset<std::pair<int, int>> edges;
        const double* p = &xyz[3 * i];
        for (std::size_t f = 0; f + 1 < g.faceOffsets.size(); ++f) {
          const int a = g.faceOffsets[f], b = g.faceOffsets[f + 1];
          for (int k = a; k < b; ++k) edges.insert({g.faceVertices[k], g.faceVertices[k + 1 < b ? k + 1 : a]});
          const double* o = &g.vertices[3 * g.faceVertices[a]];
          for (int k = a + 1; k + 1 < b; ++k) {
            const double* q = &g.vertices[3 * g.faceVertices[k]];
            const double* r = &g.vertices[3 * g.faceVertices[k + 1]];
            const double ox = o[0] - p[0], oy = o[1] - p[1], oz = o[2] - p[2];
            const double qx = q[0] - p[0], qy = q[1] - p[1], qz = q[2] - p[2];
            const double rx = r[0] - p[0], ry = r[1] - p[1], rz = r[2] - p[2];
            volume += (ox * (qy * rz - qz * ry) + oy * (qz * rx - qx * rz) + oz * (qx * ry - qy * rx)) / 6;
          }
        }
        // Closed surface: every directed edge has its reverse.
        for (const auto& e : edges) badLoops += edges.count({e.second, e.first}) != 1;
        const double v = t.cellVolumes()[i];
        if (v > 0) worstVolume = std::max(worstVolume, std::fabs(volume - v) / v);
      }
      CHECK(worstVolume < 1e-10);
      CHECK(badLoops == 0);
    }
  }
  Tessellation t;
  CellGeometry g;
  CHECK(!t.cell(0, g));
}

TEST(moved_tessellation_keeps_results) {
  const Box box = makeBox(0, 1, false, false, false);
  std::vector<double> xyz = randomPoints(1000, box, 14);
  Tessellation a;
  CHECK(a.compute(xyz.data(), xyz.size(), box, nullptr, 0, Execution{}).status == Status::kOk);
  const auto volumes = a.cellVolumes();
  Tessellation b(std::move(a));
  CHECK(b.cellVolumes() == volumes);
  CHECK(b.update(xyz.data(), Execution{}).status == Status::kOk);
  CHECK(b.cellVolumes() == volumes);
}

TEST(walls_use_negative_ids) {
  // One point: the cell is the box, each face a wall with the voro++ numbering.
  const Box box = makeBox(0, 2, false, false, false);
  std::vector<double> xyz = {0.5, 0.5, 0.5};
  Tessellation t;
  CHECK(t.compute(xyz.data(), 3, box, nullptr, 0, Execution{}).status == Status::kOk);
  std::set<int> ids(t.neighbors().begin(), t.neighbors().end());
  CHECK(ids == (std::set<int>{-1, -2, -3, -4, -5, -6}));
  CHECK(std::fabs(t.cellVolumes()[0] - 8) < 1e-14);
  CHECK(std::fabs(t.cellCentroids()[0] - 1) < 1e-14);
  // Two points split along x: the x-min wall belongs to the first.
  std::vector<double> two = {0.5, 1, 1, 1.5, 1, 1};
  CHECK(t.compute(two.data(), 6, box, nullptr, 0, Execution{}).status == Status::kOk);
  std::set<int> first(t.neighbors().begin(), t.neighbors().begin() + t.neighborOffsets()[1]);
  CHECK(first == (std::set<int>{-1, 1, -3, -4, -5, -6}));
}
