#pragma once
// Runs voro++ (Debian's voro++-dev) on the same points, as the reference for the comparison
// and the benchmark. voro++ has no threads of its own; for T threads each thread fills its
// own container and computes every T-th cell, which is how one would parallelise it.

#include <cmath>
#include <thread>
#include <vector>
#include <voro++/voro++.hh>

#include "../native/box.hpp"

struct ReferenceCells {
  std::vector<double> volumes;
  std::vector<std::vector<int>> neighbors;  // per cell, in voro++'s face order
  std::vector<std::vector<double>> areas;   // aligned with neighbors
};

inline void voroppBlocks(std::size_t n, const peclet::voro::Box& box, int blocks[3]) {
  double len[3], vol = 1;
  for (int a = 0; a < 3; ++a) {
    len[a] = box.max[a] - box.min[a];
    vol *= len[a];
  }
  // About five particles per block, as voro++'s documentation recommends.
  const double side = std::cbrt(vol * 5.0 / double(n));
  for (int a = 0; a < 3; ++a) blocks[a] = std::max(1, int(std::lround(len[a] / side)));
}

// keepFaces = false keeps volumes only but still asks voro++ for neighbour ids (the
// benchmark's workload: volume + neighbours).
inline void runVoropp(const double* xyz, std::size_t n, const peclet::voro::Box& box, const double* radii,
                      unsigned threads, bool keepFaces, ReferenceCells& out) {
  out.volumes.assign(n, 0.0);
  if (keepFaces) {
    out.neighbors.assign(n, {});
    out.areas.assign(n, {});
  }
  int nb[3];
  voroppBlocks(n, box, nb);
  auto work = [&](unsigned t) {
    voro::voronoicell_neighbor cell;
    std::vector<int> ids;
    std::vector<double> faceAreas;
    auto body = [&](auto& con) {
      voro::c_loop_all loop(con);
      std::size_t counter = 0;
      if (loop.start()) do {
          if (counter++ % threads != t) continue;
          if (!con.compute_cell(cell, loop)) continue;
          const int id = loop.pid();
          out.volumes[id] = cell.volume();
          cell.neighbors(ids);
          if (keepFaces) {
            cell.face_areas(faceAreas);
            out.neighbors[id] = ids;
            out.areas[id] = faceAreas;
          }
        } while (loop.inc());
    };
    if (radii) {
      voro::container_poly con(box.min[0], box.max[0], box.min[1], box.max[1], box.min[2], box.max[2], nb[0], nb[1],
                               nb[2], box.periodic[0], box.periodic[1], box.periodic[2], 8);
      for (std::size_t i = 0; i < n; ++i) con.put(int(i), xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2], radii[i]);
      body(con);
    } else {
      voro::container con(box.min[0], box.max[0], box.min[1], box.max[1], box.min[2], box.max[2], nb[0], nb[1], nb[2],
                          box.periodic[0], box.periodic[1], box.periodic[2], 8);
      for (std::size_t i = 0; i < n; ++i) con.put(int(i), xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2]);
      body(con);
    }
  };
  if (threads <= 1) {
    work(0);
    return;
  }
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work, t);
  for (auto& th : pool) th.join();
}
