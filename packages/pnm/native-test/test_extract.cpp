// Extraction: the distance transform against brute force, the smoothing
// against scipy's definition, and networks of images with known answers.
#include <cmath>
#include <peclet/testing.hpp>
#include <random>

#include "../native/errors.hpp"
#include "../native/extract.hpp"

using namespace peclet::pnm;

namespace {

ParallelFor pool() {
  static peclet::testing::TestPool threads(2);
  return threads.function();
}

/// A simple cubic lattice of spherical pores (radius R) joined by cylinders
/// (radius r) along the three axes, spacing `a`, `cells` per axis, in solid.
std::vector<std::uint8_t> sphereLattice(int cells, int a, double R, double r, std::array<std::size_t, 3>& shape) {
  const int n = cells * a;
  shape = {std::size_t(n), std::size_t(n), std::size_t(n)};
  std::vector<std::uint8_t> solid(std::size_t(n) * n * n, 1);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++) {
        // position relative to the nearest pore centre (centres at a/2 + m·a, voxel centres at +0.5)
        auto rel = [&](int x) {
          const double p = x + 0.5 - a / 2.0;
          const double m = std::round(p / a);
          return p - m * a;
        };
        const double x = rel(i), y = rel(j), z = rel(k);
        const bool sphere = x * x + y * y + z * z <= R * R;
        const bool cylinder = (y * y + z * z <= r * r) || (x * x + z * z <= r * r) || (x * x + y * y <= r * r);
        if (sphere || cylinder) solid[(std::size_t(i) * n + j) * n + k] = 0;
      }
  return solid;
}

}  // namespace

TEST(the_distance_transform_is_exact) {
  std::mt19937 random(7);
  const std::array<std::size_t, 3> shape{13, 17, 11};
  const std::size_t n = shape[0] * shape[1] * shape[2];
  std::vector<std::uint8_t> solid(n);
  for (auto& s : solid) s = random() % 7 == 0;
  std::vector<float> dt(n);
  distanceTransform(solid.data(), shape, dt.data(), pool());
  for (std::size_t i = 0; i < shape[0]; i++)
    for (std::size_t j = 0; j < shape[1]; j++)
      for (std::size_t k = 0; k < shape[2]; k++) {
        double best = INFINITY;
        for (std::size_t a = 0; a < shape[0]; a++)
          for (std::size_t b = 0; b < shape[1]; b++)
            for (std::size_t c = 0; c < shape[2]; c++)
              if (solid[(a * shape[1] + b) * shape[2] + c]) {
                const double d = (double(a) - i) * (double(a) - i) + (double(b) - j) * (double(b) - j) +
                                 (double(c) - k) * (double(c) - k);
                best = std::min(best, d);
              }
        CHECK(std::fabs(dt[(i * shape[1] + j) * shape[2] + k] - std::sqrt(best)) < 1e-5);
      }
}

TEST(smoothing_keeps_a_constant_and_a_mirror_symmetry) {
  const std::array<std::size_t, 3> shape{9, 8, 7};
  std::vector<float> data(9 * 8 * 7, 3.0f);
  gaussianSmooth(data.data(), shape, 0.4, pool());
  for (float x : data) CHECK(std::fabs(x - 3.0f) < 1e-6);
  // a single spike spreads with weights exp(-x²/2σ²), normalized over radius 2
  std::fill(data.begin(), data.end(), 0.0f);
  data[(4 * 8 + 4) * 7 + 3] = 1.0f;
  gaussianSmooth(data.data(), shape, 0.4, pool());
  const double w1 = std::exp(-0.5 / 0.16), w2 = std::exp(-2.0 / 0.16), sum = 1 + 2 * w1 + 2 * w2;
  CHECK(std::fabs(data[(4 * 8 + 4) * 7 + 3] - std::pow(1 / sum, 3)) < 1e-7);
  CHECK(std::fabs(data[(5 * 8 + 4) * 7 + 3] - w1 / sum / sum / sum) < 1e-7);
  CHECK(data[(5 * 8 + 4) * 7 + 3] == data[(3 * 8 + 4) * 7 + 3]);
}

TEST(a_lattice_of_spheres_gives_one_pore_per_sphere_and_one_throat_per_cylinder) {
  std::array<std::size_t, 3> shape{};
  const int cells = 3, a = 21;
  std::vector<std::uint8_t> solid = sphereLattice(cells, a, 7.0, 3.0, shape);
  ExtractOptions options;
  options.shape = shape;
  options.voxelSize = 1e-6;
  options.parallelFor = pool();
  options.workers = 2;
  ExtractReport report;
  Network net = extract(std::move(solid), options, &report);
  std::printf("  pores %zu throats %zu (peaks %zu, saddles %zu, nearby %zu)\n", net.poreCount(), net.throatCount(),
              report.peaksFound, report.saddlesTrimmed, report.nearbyTrimmed);
  CHECK(net.poreCount() == 27);
  CHECK(net.throatCount() == 54);
  std::printf("  pore d %g throat d %g area %g\n", net.inscribedDiameter[13] / 1e-6,
              net.throatInscribedDiameter[0] / 1e-6, net.throatArea[0] / 1e-12);
  for (std::size_t p = 0; p < net.poreCount(); p++) CHECK(std::fabs(net.inscribedDiameter[p] / 1e-6 - 14.0) <= 1.0);
  for (std::size_t t = 0; t < net.throatCount(); t++) {
    CHECK(std::fabs(net.throatInscribedDiameter[t] / 1e-6 - 6.0) <= 1.0);
    CHECK(std::fabs(net.throatLength[t] / 1e-6 - 21.0) < 1e-6);
  }
}

TEST(bad_images_are_refused) {
  ExtractOptions options;
  options.shape = {4, 4, 4};
  bool thrown = false;
  try {
    extract(std::vector<std::uint8_t>(64, 1), options);
  } catch (const PnmError& e) {
    thrown = e.argument() == "image.solid";
  }
  CHECK(thrown);
  thrown = false;
  try {
    extract(std::vector<std::uint8_t>(64, 0), options);
  } catch (const PnmError& e) {
    thrown = e.argument() == "image.solid";
  }
  CHECK(thrown);
}

TEST(a_pore_space_too_thin_for_any_peak_gives_one_pore_per_component) {
  // two straight channels one voxel wide in solid: no voxel passes the maximum filter
  ExtractOptions options;
  options.shape = {12, 5, 5};
  std::vector<std::uint8_t> solid(12 * 5 * 5, 1);
  for (std::size_t i = 0; i < 12; i++) {
    solid[(i * 5 + 1) * 5 + 1] = 0;
    solid[(i * 5 + 3) * 5 + 3] = 0;
  }
  options.boundaries = {true, true, false, false, false, false};
  Network net = extract(std::move(solid), options);
  std::size_t interior = 0;
  for (auto f : net.face) interior += f < 0;
  CHECK(interior == 2);
  // a face section that is all region border (a channel one voxel wide) gets no boundary pore,
  // as snow2's boundary regions leave it out
  CHECK(net.poreCount() == 2);
  for (std::size_t v = 0; v < net.regions.size(); v++) CHECK((net.regions[v] > 0) == ((v % 25 == 6) || (v % 25 == 18)));
}

TEST(the_basin_watershed_gives_the_same_regions_whatever_order_the_chunks_run_in) {
  // Overlapping solid spheres (seeded): every plane a chunk, run serially,
  // in reverse order, and on two threads; and the priority flood beside it.
  const std::array<std::size_t, 3> shape{48, 40, 36};
  std::mt19937 random(11);
  std::uniform_real_distribution<double> at(0, 48), radius(3, 6);
  std::vector<std::uint8_t> solid(shape[0] * shape[1] * shape[2], 0);
  for (int s = 0; s < 90; s++) {
    const double ci = at(random), cj = at(random) * 40 / 48, ck = at(random) * 36 / 48, r = radius(random);
    for (std::size_t i = 0; i < shape[0]; i++)
      for (std::size_t j = 0; j < shape[1]; j++)
        for (std::size_t k = 0; k < shape[2]; k++) {
          const double x = i + 0.5 - ci, y = j + 0.5 - cj, z = k + 0.5 - ck;
          if (x * x + y * y + z * z <= r * r) solid[(i * shape[1] + j) * shape[2] + k] = 1;
        }
  }
  auto run = [&](ParallelFor parallelFor, bool priorityFlood) {
    ExtractOptions options;
    options.shape = shape;
    options.parallelFor = std::move(parallelFor);
    options.workers = 3;
    options.priorityFlood = priorityFlood;
    return extract(std::vector<std::uint8_t>(solid), options);
  };
  const Network serial = run(nullptr, false);
  const Network reversed = run(
      [](std::size_t count, const peclet::ParallelBody& body) {
        for (std::size_t c = count; c-- > 0;) body(c, c + 1, unsigned(c % 3));
      },
      false);
  const Network threads = run(pool(), false);
  const Network flood = run(nullptr, true);
  std::printf("  basins: %zu pores %zu throats; priority flood: %zu pores %zu throats\n", serial.poreCount(),
              serial.throatCount(), flood.poreCount(), flood.throatCount());
  CHECK(serial.poreCount() > 20);
  CHECK(serial.regions == reversed.regions);
  CHECK(serial.regions == threads.regions);
  CHECK(serial.throatCount() == threads.throatCount());
  // Same markers, so the same pores; every pore voxel labelled, no solid one.
  CHECK(flood.poreCount() == serial.poreCount());
  for (std::size_t v = 0; v < solid.size(); v++) CHECK((serial.regions[v] > 0) == (solid[v] == 0));
}
