// Diffusion on the voxels of an image: a straight channel (F = the area
// ratio, exactly), a random image against a plain Gauss–Seidel solve of the
// same equations, clusters that do not join both planes left out, the same
// bits whatever order the chunks run in, and the errors.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <peclet/testing.hpp>
#include <random>
#include <string>
#include <vector>

#include "errors.hpp"
#include "voxel_diffusion.hpp"

namespace {

using namespace peclet::pnm;

std::size_t at(const std::array<std::size_t, 3>& s, std::size_t i, std::size_t j, std::size_t k) {
  return (i * s[1] + j) * s[2] + k;
}

/// The same equations solved plainly: Gauss–Seidel on the pore voxels joining
/// both planes (given), with the planes fixed, until nothing changes.
std::vector<double> gaussSeidel(const std::vector<std::uint8_t>& keep, const std::array<std::size_t, 3>& s) {
  std::vector<double> c(keep.size(), 0.0);
  for (std::size_t j = 0; j < s[1]; j++)
    for (std::size_t k = 0; k < s[2]; k++) c[at(s, 0, j, k)] = 1.0;
  for (int sweep = 0; sweep < 200000; sweep++) {
    double change = 0;
    for (std::size_t i = 1; i + 1 < s[0]; i++)
      for (std::size_t j = 0; j < s[1]; j++)
        for (std::size_t k = 0; k < s[2]; k++) {
          const std::size_t v = at(s, i, j, k);
          if (!keep[v]) continue;
          double sum = 0;
          int n = 0;
          const std::size_t nb[6][3] = {{i - 1, j, k}, {i + 1, j, k}, {i, j - 1, k},
                                        {i, j + 1, k}, {i, j, k - 1}, {i, j, k + 1}};
          for (const auto& q : nb) {
            if (q[1] >= s[1] || q[2] >= s[2]) continue;  // wrapped below 0
            const std::size_t u = at(s, q[0], q[1], q[2]);
            if (!keep[u]) continue;
            sum += c[u];
            n++;
          }
          const double next = sum / n;
          change = std::max(change, std::abs(next - c[v]));
          c[v] = next;
        }
    if (change < 1e-15) break;
  }
  return c;
}

}  // namespace

TEST(a_straight_channel_has_the_area_ratio_as_formation_factor) {
  const std::array<std::size_t, 3> s{10, 6, 6};
  std::vector<std::uint8_t> solid(s[0] * s[1] * s[2], 1);
  for (std::size_t i = 0; i < s[0]; i++)
    for (std::size_t j = 2; j < 4; j++)
      for (std::size_t k = 1; k < 4; k++) solid[at(s, i, j, k)] = 0;
  VoxelDiffusionOptions o;
  o.shape = s;
  o.tolerance = 1e-12;
  const VoxelDiffusionResult r = voxelDiffusion(solid.data(), o);
  CHECK(r.converged);
  CHECK_NEAR(r.formationFactor, 36.0 / 6.0, 1e-9);
  CHECK_NEAR(r.tortuosity, (60.0 / 360.0) * 6.0, 1e-9);  // φ F = 1: a straight path
  CHECK_NEAR(r.inletRate, r.outletRate, 1e-9);
  CHECK_NEAR(r.concentration[at(s, 3, 2, 1)], 1.0 - 3.0 / 9.0, 1e-9);
  CHECK(std::isnan(r.concentration[at(s, 3, 0, 0)]));
}

TEST(a_random_image_matches_a_plain_gauss_seidel_solve_and_leaves_out_what_does_not_join_both_planes) {
  const std::array<std::size_t, 3> s{9, 7, 8};
  std::mt19937 random(7);
  std::bernoulli_distribution isSolid(0.35);
  std::vector<std::uint8_t> solid(s[0] * s[1] * s[2]);
  for (auto& v : solid) v = isSolid(random) ? 1 : 0;
  // An isolated pore pocket: a pore voxel walled in on every side.
  for (std::size_t i = 3; i < 6; i++)
    for (std::size_t j = 2; j < 5; j++)
      for (std::size_t k = 2; k < 5; k++) solid[at(s, i, j, k)] = 1;
  solid[at(s, 4, 3, 3)] = 0;
  VoxelDiffusionOptions o;
  o.shape = s;
  o.tolerance = 1e-13;
  const VoxelDiffusionResult r = voxelDiffusion(solid.data(), o);
  CHECK(r.converged);
  CHECK(std::isnan(r.concentration[at(s, 4, 3, 3)]));
  std::vector<std::uint8_t> keep(solid.size());
  for (std::size_t v = 0; v < solid.size(); v++) keep[v] = !std::isnan(r.concentration[v]);
  const std::vector<double> c = gaussSeidel(keep, s);
  double worst = 0;
  for (std::size_t v = 0; v < solid.size(); v++)
    if (keep[v]) worst = std::max(worst, std::abs(c[v] - r.concentration[v]));
  CHECK(worst < 1e-10);
  CHECK_NEAR(r.inletRate, r.outletRate, 1e-9 * r.inletRate);
  CHECK(r.effectivePorosity < r.porosity);
  CHECK(r.formationFactor > 1.0 / r.effectivePorosity);
}

TEST(the_result_is_the_same_bits_whatever_order_the_chunks_run_in) {
  const std::array<std::size_t, 3> s{40, 40, 40};
  std::mt19937 random(3);
  std::bernoulli_distribution isSolid(0.3);
  std::vector<std::uint8_t> solid(s[0] * s[1] * s[2]);
  for (auto& v : solid) v = isSolid(random) ? 1 : 0;
  VoxelDiffusionOptions o;
  o.shape = s;
  const VoxelDiffusionResult serial = voxelDiffusion(solid.data(), o);
  o.parallelFor = [](std::size_t count, const peclet::ParallelBody& body) {
    for (std::size_t c = count; c-- > 0;) body(c, c + 1, unsigned(c % 3));
  };
  const VoxelDiffusionResult reversed = voxelDiffusion(solid.data(), o);
  CHECK(serial.unknowns > 16384);  // more than one chunk
  CHECK(serial.iterations == reversed.iterations);
  CHECK(serial.formationFactor == reversed.formationFactor);
}

TEST(errors_name_the_argument) {
  const std::array<std::size_t, 3> s{4, 3, 3};
  std::vector<std::uint8_t> solid(36, 1);
  VoxelDiffusionOptions o;
  o.shape = s;
  auto argumentOf = [&] {
    try {
      voxelDiffusion(solid.data(), o);
    } catch (const PnmError& e) {
      return e.argument();
    }
    return std::string("(no error)");
  };
  CHECK(argumentOf() == "image.solid");  // no pore at all
  solid[at(s, 0, 1, 1)] = 0;             // a pore on the first plane only: no path
  CHECK(argumentOf() == "image.solid");
  solid[0] = 2;  // a value other than 0 and 1
  CHECK(argumentOf() == "image.solid");
  solid[0] = 1;
  o.axis = 3;
  CHECK(argumentOf() == "axis");
}
