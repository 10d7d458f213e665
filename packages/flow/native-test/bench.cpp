// Reference figures for bench/flow.mjs, on the same threads as the addon:
//   bench triad <megabytes> <threads>              STREAM-like triad a = b + s·c
//   bench reference <n> <threads> <f32|f64> <steps> a straightforward two-lattice
//                                                  D3Q19 BGK kernel (dense, pull,
//                                                  periodic, no tricks)
//   bench peclet <n> <threads> <f32|f64> <steps>   this package's kernel, same box
// Each prints one JSON line.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <peclet/testing.hpp>
#include <string>
#include <thread>
#include <vector>

#include "d3q19.hpp"
#include "lattice.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using namespace peclet::flow;

double seconds(Clock::time_point since) { return std::chrono::duration<double>(Clock::now() - since).count(); }

// Runs body(begin, end) over [0, count) split evenly across `threads` threads.
template <typename Body>
void split(std::size_t count, unsigned threads, const Body& body) {
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; t++)
    pool.emplace_back([&, t] { body(count * t / threads, count * (t + 1) / threads); });
  body(0, count / threads);
  for (auto& thread : pool) thread.join();
}

void triad(double megabytes, unsigned threads) {
  const std::size_t n = std::size_t(megabytes * 1e6 / 24);
  std::vector<double> a(n), b(n), c(n);
  split(n, threads, [&](std::size_t from, std::size_t to) {  // first touch by the thread that uses it
    for (std::size_t i = from; i < to; i++) a[i] = 0, b[i] = 1, c[i] = 2;
  });
  double best = 1e30;
  for (int repeat = 0; repeat < 10; repeat++) {
    const auto start = Clock::now();
    split(n, threads, [&](std::size_t from, std::size_t to) {
      double* __restrict x = a.data();
      const double* __restrict y = b.data();
      const double* __restrict z = c.data();
      for (std::size_t i = from; i < to; i++) x[i] = y[i] + 3.0 * z[i];
    });
    best = std::min(best, seconds(start));
  }
  std::printf("{\"kind\":\"triad\",\"threads\":%u,\"bytes\":%.0f,\"seconds\":%.6f,\"bandwidth\":%.6e,\"check\":%g}\n",
              threads, 24.0 * double(n), best, 24.0 * double(n) / best, a[n / 2]);
}

template <typename T>
void reference(std::size_t n, unsigned threads, std::size_t steps) {
  using namespace d3q19;
  const std::size_t N = n * n * n;
  std::vector<T> f(Q * N), g(Q * N);
  split(n, threads, [&](std::size_t from, std::size_t to) {
    for (std::size_t q = 0; q < Q; q++)
      for (std::size_t v = from * n * n; v < to * n * n; v++) f[q * N + v] = g[q * N + v] = T(weight(q));
  });
  const T omega = T(1.0 / 0.8), force = T(1e-6);
  const auto start = Clock::now();
  for (std::size_t t = 0; t < steps; t++) {
    split(n, threads, [&](std::size_t from, std::size_t to) {
      for (std::size_t x = from; x < to; x++)
        for (std::size_t y = 0; y < n; y++)
          for (std::size_t z = 0; z < n; z++) {
            const std::size_t v = (x * n + y) * n + z;
            T p[Q], rho = 0, ux = 0, uy = 0, uz = 0;
            for (std::size_t q = 0; q < Q; q++) {
              const std::size_t sx = (x + n - cx[q]) % n, sy = (y + n - cy[q]) % n, sz = (z + n - cz[q]) % n;
              p[q] = f[q * N + (sx * n + sy) * n + sz];
              rho += p[q];
              ux += T(cx[q]) * p[q];
              uy += T(cy[q]) * p[q];
              uz += T(cz[q]) * p[q];
            }
            ux = ux / rho + force / (T(2) * rho);
            uy /= rho;
            uz /= rho;
            const T uu = ux * ux + uy * uy + uz * uz;
            for (std::size_t q = 0; q < Q; q++) {
              const T cu = T(cx[q]) * ux + T(cy[q]) * uy + T(cz[q]) * uz;
              const T eq = T(weight(q)) * rho * (T(1) + T(3) * cu + T(4.5) * cu * cu - T(1.5) * uu);
              g[q * N + v] = p[q] - omega * (p[q] - eq) + T(3 * weight(q)) * T(cx[q]) * force;
            }
          }
    });
    f.swap(g);
  }
  const double s = seconds(start);
  std::printf(
      "{\"kind\":\"reference\",\"n\":%zu,\"threads\":%u,\"precision\":\"%s\",\"steps\":%zu,\"seconds\":%.6f,"
      "\"mlups\":%.4f,\"bytesPerUpdate\":%zu,\"check\":%g}\n",
      n, threads, sizeof(T) == 4 ? "f32" : "f64", steps, s, double(N) * double(steps) / s / 1e6, 2 * Q * sizeof(T),
      double(f[N / 2]));
}

void pecletKernel(std::size_t n, unsigned threads, Precision precision, std::size_t steps) {
  peclet::testing::TestPool pool(threads);
  LatticeOptions o;
  o.shape = {n, n, n};
  o.bodyForce = {1e-6, 0, 0};
  o.precision = precision;
  o.workers = threads;
  o.parallelFor = pool.function();
  auto lattice = makeLattice(o);
  lattice->step(2, nullptr);  // first touch
  const auto start = Clock::now();
  lattice->step(steps, nullptr);
  const double s = seconds(start);
  std::printf(
      "{\"kind\":\"peclet\",\"n\":%zu,\"threads\":%u,\"precision\":\"%s\",\"steps\":%zu,\"seconds\":%.6f,"
      "\"mlups\":%.4f,\"bytesPerUpdate\":%.1f}\n",
      n, threads, precision == Precision::F32 ? "f32" : "f64", steps, s,
      double(lattice->fluidNodes()) * double(steps) / s / 1e6, lattice->bytesPerUpdate());
}

}  // namespace

int main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "";
  const unsigned threads = argc > 3 ? unsigned(std::atoi(argv[3])) : 1;
  if (what == "triad" && argc > 3) {
    triad(std::atof(argv[2]), threads);
    return 0;
  }
  if ((what == "reference" || what == "peclet") && argc > 5) {
    const std::size_t n = std::strtoul(argv[2], nullptr, 10), steps = std::strtoul(argv[5], nullptr, 10);
    const bool f32 = std::strcmp(argv[4], "f32") == 0;
    if (what == "peclet")
      pecletKernel(n, threads, f32 ? Precision::F32 : Precision::F64, steps);
    else if (f32)
      reference<float>(n, threads, steps);
    else
      reference<double>(n, threads, steps);
    return 0;
  }
  std::fprintf(stderr, "usage: bench triad <MB> <threads> | bench reference|peclet <n> <threads> <f32|f64> <steps>\n");
  return 2;
}
