// Times extract() on a raw uint8 image (1 = solid): bench <file> <n0> <n1> <n2> [threads] [boundary axes, e.g. x]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <peclet/testing.hpp>
#include <string>

#include "../native/extract.hpp"

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: bench <raw file> <n0> <n1> <n2> [threads] [axes]\n");
    return 2;
  }
  const std::array<std::size_t, 3> shape{std::size_t(std::atol(argv[2])), std::size_t(std::atol(argv[3])),
                                         std::size_t(std::atol(argv[4]))};
  const unsigned threads = argc > 5 ? unsigned(std::atoi(argv[5])) : 2;
  const std::string axes = argc > 6 ? argv[6] : "x";
  std::vector<std::uint8_t> solid(shape[0] * shape[1] * shape[2]);
  std::ifstream in(argv[1], std::ios::binary);
  in.read(reinterpret_cast<char*>(solid.data()), std::streamsize(solid.size()));
  peclet::testing::TestPool pool(threads);
  peclet::pnm::ExtractOptions options;
  options.shape = shape;
  options.voxelSize = 5.345e-6;
  options.parallelFor = pool.function();
  options.workers = threads;
  for (char c : axes) {
    if (c >= 'x' && c <= 'z') options.boundaries[2 * (c - 'x')] = options.boundaries[2 * (c - 'x') + 1] = true;
  }
  peclet::pnm::ExtractReport report;
  const auto start = std::chrono::steady_clock::now();
  peclet::pnm::Network net = peclet::pnm::extract(std::move(solid), options, &report);
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::size_t boundary = 0;
  for (auto f : net.face) boundary += f >= 0;
  double coordination = 0;
  std::printf("pores %zu (boundary %zu) throats %zu peaks %zu saddles %zu nearby %zu\n", net.poreCount(), boundary,
              net.throatCount(), report.peaksFound, report.saddlesTrimmed, report.nearbyTrimmed);
  std::printf("edt %.3f smooth %.3f peaks %.3f watershed %.3f network %.3f total %.3f s\n", report.distanceTransform,
              report.smoothing, report.peaks, report.watershed, report.network, total);
  coordination = 2.0 * double(net.throatCount()) / double(net.poreCount());
  std::printf("mean coordination (all pores) %.3f porosity %.6f\n", coordination, net.porosity);
  return 0;
}
