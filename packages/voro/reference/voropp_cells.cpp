// Reference harness: runs voro++ (Debian's voro++-dev) on points read from a
// file, for the side-by-side test and the benchmark.
//
//   voropp_cells <input> <output|-> [threads]
//
// input (little-endian): uint64 n; uint8 periodic[3]; uint8 hasRadii;
//   double min[3], max[3]; double xyz[3n]; double radii[n] if hasRadii.
// output: double volume[n]; then per cell int32 count, int32 neighbors[count].
// stderr: "seconds <t>" — the time of container setup and every cell
// (volume + neighbours), without reading or writing files.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <thread>
#include <vector>
#include <voro++/voro++.hh>

namespace {

struct Input {
  std::uint64_t n = 0;
  std::uint8_t periodic[3] = {0, 0, 0};
  std::uint8_t hasRadii = 0;
  double min[3], max[3];
  std::vector<double> xyz, radii;
};

struct Output {
  std::vector<double> volume;
  std::vector<std::vector<int>> neighbors;
};

// voro++ suggests about five particles per block.
int blocks(const Input& in, int axis) {
  double volume = 1;
  for (int a = 0; a < 3; a++) volume *= in.max[a] - in.min[a];
  double per = std::cbrt(static_cast<double>(in.n) / 5.0 / volume);
  return std::max(1, static_cast<int>(per * (in.max[axis] - in.min[axis])));
}

template <class Container>
void fill(Container& con, const Input& in);
template <>
void fill(voro::container& con, const Input& in) {
  for (std::uint64_t i = 0; i < in.n; i++)
    con.put(static_cast<int>(i), in.xyz[3 * i], in.xyz[3 * i + 1], in.xyz[3 * i + 2]);
}
template <>
void fill(voro::container_poly& con, const Input& in) {
  for (std::uint64_t i = 0; i < in.n; i++)
    con.put(static_cast<int>(i), in.xyz[3 * i], in.xyz[3 * i + 1], in.xyz[3 * i + 2], in.radii[i]);
}

// Each thread owns a container (voro++ computes cells through per-container
// state) and takes every `threads`-th cell.
template <class Container>
void run(const Input& in, Output& out, int threads) {
  out.volume.assign(in.n, 0.0);
  out.neighbors.assign(in.n, {});
  auto work = [&](int t) {
    Container con(in.min[0], in.max[0], in.min[1], in.max[1], in.min[2], in.max[2], blocks(in, 0), blocks(in, 1),
                  blocks(in, 2), in.periodic[0], in.periodic[1], in.periodic[2], 8);
    fill(con, in);
    voro::c_loop_all loop(con);
    voro::voronoicell_neighbor cell;
    int k = 0;
    if (loop.start()) do {
        if (k++ % threads != t) continue;
        if (con.compute_cell(cell, loop)) {
          int id = loop.pid();
          out.volume[id] = cell.volume();
          cell.neighbors(out.neighbors[id]);
        }
      } while (loop.inc());
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; t++) pool.emplace_back(work, t);
  work(0);
  for (auto& th : pool) th.join();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: voropp_cells <input> <output|-> [threads]\n");
    return 2;
  }
  int threads = argc > 3 ? std::atoi(argv[3]) : 1;
  std::ifstream file(argv[1], std::ios::binary);
  Input in;
  file.read(reinterpret_cast<char*>(&in.n), 8);
  file.read(reinterpret_cast<char*>(in.periodic), 3);
  file.read(reinterpret_cast<char*>(&in.hasRadii), 1);
  file.read(reinterpret_cast<char*>(in.min), 24);
  file.read(reinterpret_cast<char*>(in.max), 24);
  in.xyz.resize(3 * in.n);
  file.read(reinterpret_cast<char*>(in.xyz.data()), static_cast<std::streamsize>(24 * in.n));
  if (in.hasRadii) {
    in.radii.resize(in.n);
    file.read(reinterpret_cast<char*>(in.radii.data()), static_cast<std::streamsize>(8 * in.n));
  }
  if (!file) {
    std::fprintf(stderr, "voropp_cells: short input\n");
    return 1;
  }
  Output out;
  auto t0 = std::chrono::steady_clock::now();
  if (in.hasRadii)
    run<voro::container_poly>(in, out, threads);
  else
    run<voro::container>(in, out, threads);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::fprintf(stderr, "seconds %.6f\n", seconds);
  if (std::string(argv[2]) == "-") return 0;
  std::ofstream result(argv[2], std::ios::binary);
  result.write(reinterpret_cast<const char*>(out.volume.data()), static_cast<std::streamsize>(8 * in.n));
  for (auto& list : out.neighbors) {
    std::int32_t count = static_cast<std::int32_t>(list.size());
    result.write(reinterpret_cast<const char*>(&count), 4);
    for (int j : list) {
      std::int32_t v = j;
      result.write(reinterpret_cast<const char*>(&v), 4);
    }
  }
  return result ? 0 : 1;
}
