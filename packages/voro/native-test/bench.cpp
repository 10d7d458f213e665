// Cells per second of this kernel and of voro++ on the same random points (unit cube,
// volume + neighbour ids), 1 and 2 threads, walled and periodic; median of 3 after a warm-up
// run that sizes every buffer. Usage: bench [N ...] (default 100000 1000000).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "../native/voro.hpp"
#include "thread_pool.hpp"
#include "voropp_reference.hpp"

using namespace peclet::voro;

namespace {

template <class F>
double medianSeconds(int repeats, const F& f) {
  std::vector<double> t;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::size_t> sizes;
  for (int a = 1; a < argc; ++a) sizes.push_back(std::strtoull(argv[a], nullptr, 10));
  if (sizes.empty()) sizes = {100000, 1000000};
  std::printf("%-9s %-9s %-7s %14s %14s %7s %12s\n", "N", "box", "threads", "ours cells/s", "voro++ cells/s", "ratio",
              "bytes/cell");
  for (std::size_t n : sizes) {
    // Fewer repeats for the large size keep the whole run near two minutes.
    const int repeats = n >= 500000 ? 1 : 3;
    for (bool periodic : {false, true}) {
      Box box;
      for (int a = 0; a < 3; ++a) box.periodic[a] = periodic;
      std::mt19937_64 rng(42);
      std::uniform_real_distribution<double> u(0.0, 1.0);
      std::vector<double> xyz(3 * n);
      for (double& x : xyz) x = u(rng);
      double oursOne = 0;
      for (unsigned threads : {1u, 2u}) {
        ThreadPool pool(threads);
        Tessellation t;
        const Execution exec = pool.execution();
        t.compute(xyz.data(), xyz.size(), box, nullptr, 0, exec);  // warm-up: sizes buffers
        const double ours = medianSeconds(repeats, [&] { t.compute(xyz.data(), xyz.size(), box, nullptr, 0, exec); });
        ReferenceCells ref;
        const double theirs =
            medianSeconds(repeats, [&] { runVoropp(xyz.data(), n, box, nullptr, threads, false, ref); });
        if (threads == 1) oursOne = ours;
        std::printf("%-9zu %-9s %-7u %14.0f %14.0f %7.2f %12.0f%s\n", n, periodic ? "periodic" : "walled", threads,
                    n / ours, n / theirs, theirs / ours, double(t.memoryBytes()) / double(n), threads == 2 ? "" : "");
        if (threads == 2) std::printf("%-9s speedup 1 -> 2 threads (ours): %.2fx\n", "", oursOne / ours);
      }
    }
  }
  return 0;
}
