// Hostile input: far-off and huge or tiny boxes, huge radii, out-of-range limits, a periodic
// box that defeats the neighbour search, cancellation inside one cell, failed calls that must
// leave the object as it was.
#include <chrono>
#include <cmath>
#include <thread>

#include "checks.hpp"
#include "thread_pool.hpp"

using namespace peclet::voro;

namespace {

double maxRelativeDifference(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return HUGE_VAL;
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double scale = std::max(std::fabs(a[i]), std::fabs(b[i]));
    if (scale > 0) worst = std::max(worst, std::fabs(a[i] - b[i]) / scale);
  }
  return worst;
}

// Random points on a grid of 2^-22, so that adding a power of two up to 2^30 is exact.
std::vector<double> gridPoints(std::size_t n, unsigned long long seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> xyz(3 * n);
  for (double& x : xyz) x = std::ldexp(double(rng() >> 42), -22);
  return xyz;
}

}  // namespace

TEST(far_off_box_gives_the_same_cells) {
  // Two points in a unit box whose corner is at 1e14: halves, not [1, 1].
  Box far = makeBox(1e14, 1e14 + 1, false, false, false);
  std::vector<double> two = {1e14 + 0.25, 1e14 + 0.5, 1e14 + 0.5, 1e14 + 0.75, 1e14 + 0.5, 1e14 + 0.5};
  Tessellation t;
  CHECK(t.compute(two.data(), 6, far, nullptr, 0, Execution{}).status == Status::kOk);
  CHECK(t.cellVolumes().size() == 2 && t.cellVolumes()[0] == 0.5 && t.cellVolumes()[1] == 0.5);
  // Translation by 2^30 (exact for these points): identical volumes and areas.
  for (bool periodic : {false, true}) {
    const Box box = makeBox(0, 1, periodic, periodic, periodic);
    std::vector<double> xyz = gridPoints(2000, 3), moved = xyz;
    const double offset = std::ldexp(1.0, 30);
    for (double& x : moved) x += offset;
    Box shifted = box;
    for (int a = 0; a < 3; ++a) {
      shifted.min[a] += offset;
      shifted.max[a] += offset;
    }
    Tessellation a, b;
    CHECK(a.compute(xyz.data(), xyz.size(), box, nullptr, 0, Execution{}).status == Status::kOk);
    CHECK(b.compute(moved.data(), moved.size(), shifted, nullptr, 0, Execution{}).status == Status::kOk);
    CHECK(maxRelativeDifference(a.cellVolumes(), b.cellVolumes()) < 1e-12);
    CHECK(maxRelativeDifference(a.faceAreas(), b.faceAreas()) < 1e-12);
    CHECK(a.neighbors() == b.neighbors());
  }
}

TEST(scaled_box_gives_scaled_cells) {
  const Box box = makeBox(0, 1, true, false, true);
  std::vector<double> xyz = randomPoints(3000, box, 4);
  Tessellation unit;
  CHECK(unit.compute(xyz.data(), xyz.size(), box, nullptr, 0, Execution{}).status == Status::kOk);
  for (double factor : {std::ldexp(1.0, 200), std::ldexp(1.0, -200), 3.0, 1e-80, 1e80}) {
    std::vector<double> scaled = xyz;
    for (double& x : scaled) x *= factor;
    const Box big = makeBox(0, factor, true, false, true);
    Tessellation t;
    CHECK(t.compute(scaled.data(), scaled.size(), big, nullptr, 0, Execution{}).status == Status::kOk);
    std::vector<double> volumes = t.cellVolumes(), areas = t.faceAreas();
    for (double& v : volumes) v /= factor * factor * factor;
    for (double& a : areas) a /= factor * factor;
    CHECK(maxRelativeDifference(volumes, unit.cellVolumes()) < 1e-12);
    // Faces are compared relative to the mean face: a sliver face (area ~1e-12 of the mean)
    // moves by the rounding of the scaled coordinates like any other.
    double worst = 0, mean = 0;
    for (const double a : unit.faceAreas()) mean += a / double(unit.faceAreas().size());
    for (std::size_t k = 0; k < areas.size() && areas.size() == unit.faceAreas().size(); ++k)
      worst = std::max(worst, std::fabs(areas[k] - unit.faceAreas()[k]) / mean);
    CHECK(areas.size() == unit.faceAreas().size() && worst < 1e-12);
    if (std::ilogb(factor) == std::log2(factor)) CHECK(areas == unit.faceAreas());  // exact for 2^k
    CHECK(t.neighbors() == unit.neighbors());
  }
}

TEST(huge_equal_radii_are_voronoi) {
  for (bool periodic : {false, true}) {
    const Box box = makeBox(0, 1, periodic, periodic, periodic);
    std::vector<double> xyz = randomPoints(1000, box, 6);
    Tessellation voronoi;
    CHECK(voronoi.compute(xyz.data(), xyz.size(), box, nullptr, 0, Execution{}).status == Status::kOk);
    for (double r : {1e6, 1e8, 1e70}) {
      std::vector<double> radii(1000, r);
      Tessellation t;
      CHECK(t.compute(xyz.data(), xyz.size(), box, radii.data(), 1000, Execution{}).status == Status::kOk);
      CHECK(t.stats().emptyCells == 0);
      CHECK(maxRelativeDifference(t.cellVolumes(), voronoi.cellVolumes()) < 1e-12);
    }
  }
}

TEST(limits_are_refused) {
  std::vector<double> one = {0, 0, 0};
  auto refused = [&](const Box& box, const double* radii, const char* argument) {
    Tessellation t;
    const Outcome o = t.compute(one.data(), 3, box, radii, radii ? 1 : 0, Execution{});
    return o.status == Status::kInvalid && o.error.kind == ErrorKind::kRange && o.error.argument == argument;
  };
  CHECK(refused(makeBox(-1e308, 1e308, false, false, false), nullptr, "box"));  // width overflows
  CHECK(refused(makeBox(0, 1e110, false, false, false), nullptr, "box"));       // volume overflows
  CHECK(refused(makeBox(0, 1e-110, false, false, false), nullptr, "box"));      // volume underflows
  Box thin = makeBox(0, 1, false, false, false);
  thin.max[2] = 1e-10;
  CHECK(refused(thin, nullptr, "box"));
  const double huge = 1e80;
  CHECK(refused(makeBox(0, 1, false, false, false), &huge, "radii"));
  const double fine = 1e70;
  Tessellation t;
  CHECK(t.compute(one.data(), 3, makeBox(0, 1, false, false, false), &fine, 1, Execution{}).status == Status::kOk);
  CHECK(t.compute(one.data(), 3, makeBox(0, 1e89, false, false, false), nullptr, 0, Execution{}).status == Status::kOk);
  CHECK(t.cellVolumes()[0] == 1e89 * 1e89 * 1e89);
}

TEST(long_periodic_box_is_refused_fast) {
  // 100 points in a periodic box 1e5 x 1 x 1: the cells are ~1e3 long, the periodic widths 1.
  Box box = makeBox(0, 1, true, true, true);
  box.max[0] = 1e5;
  std::vector<double> xyz = randomPoints(100, box, 7);
  for (const unsigned workers : {1u, 2u}) {
    ThreadPool pool(workers);
    Tessellation t;
    const auto start = std::chrono::steady_clock::now();
    const Outcome o = t.compute(xyz.data(), xyz.size(), box, nullptr, 0, pool.execution());
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CHECK(o.status == Status::kInvalid && o.error.kind == ErrorKind::kRange && o.error.argument == "box");
    CHECK(o.error.message.find("periodic axis") != std::string::npos);
    CHECK(seconds < 1.0);
    std::printf("    refused in %.3f s (%u workers): %s\n", seconds, workers, o.error.message.c_str());
  }
  // The same points with walled y and z are fine.
  box.periodic[1] = box.periodic[2] = false;
  Tessellation t;
  CHECK(t.compute(xyz.data(), xyz.size(), box, nullptr, 0, Execution{}).status == Status::kOk);
  Invariants r = checkInvariants(t, box);
  CHECK(r.volumeError < 1e-12 && r.asymmetric == 0);
}

TEST(cancellation_is_polled_inside_a_cell) {
  // A legal but slow layout: most points in a tiny cluster, so each cell tests them all.
  const Box box = makeBox(0, 1, false, false, false);
  std::vector<double> xyz = randomPoints(20000, makeBox(0, 1e-3, false, false, false), 8);
  std::atomic<bool> stop{false};
  Execution execution;
  execution.shouldStop = [&stop] { return stop.load(); };
  std::chrono::steady_clock::time_point raised;
  std::thread raise([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    raised = std::chrono::steady_clock::now();
    stop = true;
  });
  Tessellation t;
  const Outcome o = t.compute(xyz.data(), xyz.size(), box, nullptr, 0, execution);
  const auto ended = std::chrono::steady_clock::now();
  raise.join();
  // Time from raising the flag to the end of compute(), not counting a late wake of `raise`.
  const double seconds = std::chrono::duration<double>(ended - raised).count();
  CHECK(o.status == Status::kCancelled);
  CHECK(seconds < 0.1);
  std::printf("    stopped %.1f ms after the flag was raised\n", seconds * 1e3);
}

TEST(failed_update_leaves_results) {
  const Box box = makeBox(0, 1, false, false, false);
  std::vector<double> xyz = randomPoints(500, box, 9);
  Tessellation t;
  CHECK(t.compute(xyz.data(), xyz.size(), box, nullptr, 0, Execution{}).status == Status::kOk);
  const std::vector<double> volumes = t.cellVolumes(), areas = t.faceAreas();
  const std::vector<std::int32_t> neighbors = t.neighbors();
  std::vector<double> bad = xyz;
  bad[3 * 7 + 1] = std::nan("");
  CHECK(t.update(bad.data(), Execution{}).status == Status::kInvalid);
  bad = xyz;
  for (int a = 0; a < 3; ++a) bad[3 * 9 + a] = bad[3 * 4 + a];
  CHECK(t.update(bad.data(), Execution{}).status == Status::kInvalid);
  std::atomic<bool> cancel{true};
  ThreadPool pool(2);
  CHECK(t.update(xyz.data(), pool.execution(&cancel)).status == Status::kCancelled);
  CHECK(t.pointCount() == 500);
  CHECK(t.cellVolumes() == volumes && t.faceAreas() == areas && t.neighbors() == neighbors);
  CellGeometry g;
  CHECK(t.cell(3, g));
  CHECK(t.update(xyz.data(), Execution{}).status == Status::kOk);
  CHECK(t.cellVolumes() == volumes && t.neighbors() == neighbors);
}

TEST(coincident_points_in_a_dense_cluster_are_found_fast) {
  // Every point in one grid bin: pairs within the bin would cost N^2 / 2 comparisons.
  const Box box = makeBox(0, 1, false, false, false);
  std::vector<double> xyz = randomPoints(100000, makeBox(0, 1e-3, false, false, false), 11);
  for (int a = 0; a < 3; ++a) xyz[3 * 70000 + a] = xyz[3 * 123 + a];
  const auto start = std::chrono::steady_clock::now();
  Tessellation t;
  const Outcome o = t.compute(xyz.data(), xyz.size(), box, nullptr, 0, Execution{});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(o.status == Status::kInvalid && o.error.index == 70000);
  CHECK(o.error.message == "point 70000 coincides with point 123");
  CHECK(seconds < 0.5);
}
