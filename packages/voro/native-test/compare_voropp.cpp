// Side-by-side with voro++ on the same random points: per-cell volumes and neighbour sets,
// walled, periodic, mixed, and Laguerre (voro++'s container_poly).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>

#include "../native/voro.hpp"
#include "voropp_reference.hpp"

using namespace peclet::voro;

namespace {

struct Report {
  double maxVolumeDiff = 0;         // max |ours - voro++| / voro++ per cell
  std::size_t differentSets = 0;    // cells whose neighbour multisets differ
  std::size_t significantSets = 0;  // ... by a face larger than 1e-9 of the cell's scale^2
  double largestDifferingFace = 0;  // relative to volume^(2/3)
};

Report compare(const char* label, std::size_t n, const Box& box, bool laguerre, unsigned long long seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> xyz(3 * n), radii;
  for (std::size_t i = 0; i < n; ++i)
    for (int a = 0; a < 3; ++a) xyz[3 * i + a] = box.min[a] + u(rng) * (box.max[a] - box.min[a]);
  if (laguerre) {
    const double spacing =
        std::cbrt((box.max[0] - box.min[0]) * (box.max[1] - box.min[1]) * (box.max[2] - box.min[2]) / double(n));
    for (std::size_t i = 0; i < n; ++i) radii.push_back(spacing * (0.1 + 0.5 * u(rng)));
  }
  const double* r = laguerre ? radii.data() : nullptr;
  Tessellation t;
  const Outcome o = t.compute(xyz.data(), xyz.size(), box, r, radii.size(), Execution{});
  ReferenceCells ref;
  runVoropp(xyz.data(), n, box, r, 1, true, ref);
  Report rep;
  if (o.status != Status::kOk) {
    std::printf("%-22s FAILED: %s\n", label, o.error.message.c_str());
    rep.significantSets = n;
    return rep;
  }
  for (std::size_t i = 0; i < n; ++i) {
    const double v = ref.volumes[i];
    const double diff = v > 0 ? std::fabs(t.cellVolumes()[i] - v) / v : std::fabs(t.cellVolumes()[i]);
    rep.maxVolumeDiff = std::max(rep.maxVolumeDiff, diff);
    // Neighbour multisets with the area of each face, to judge any difference.
    std::map<int, std::vector<double>> ours, theirs;
    for (auto k = t.neighborOffsets()[i]; k < t.neighborOffsets()[i + 1]; ++k)
      ours[t.neighbors()[k]].push_back(t.faceAreas()[k]);
    for (std::size_t k = 0; k < ref.neighbors[i].size(); ++k) theirs[ref.neighbors[i][k]].push_back(ref.areas[i][k]);
    bool differs = false;
    double largest = 0;
    auto scan = [&](const std::map<int, std::vector<double>>& a, const std::map<int, std::vector<double>>& b) {
      for (const auto& [id, areas] : a) {
        auto it = b.find(id);
        const std::size_t have = it == b.end() ? 0 : it->second.size();
        if (have == areas.size()) continue;
        differs = true;
        // Unmatched faces of this id: the smallest ones are the extras.
        std::vector<double> sorted = areas;
        std::sort(sorted.begin(), sorted.end());
        for (std::size_t k = 0; k + have < sorted.size(); ++k) largest = std::max(largest, sorted[k]);
      }
    };
    scan(ours, theirs);
    scan(theirs, ours);
    if (differs) {
      ++rep.differentSets;
      const double scale = std::pow(std::max(v, 1e-300), 2.0 / 3.0);
      rep.largestDifferingFace = std::max(rep.largestDifferingFace, largest / scale);
      if (largest > 1e-9 * scale) ++rep.significantSets;
    }
  }
  std::printf(
      "%-26s N=%zu  max volume diff %.2e  cells with different neighbour sets %zu "
      "(significant %zu, largest differing face %.1e of volume^(2/3))\n",
      label, n, rep.maxVolumeDiff, rep.differentSets, rep.significantSets, rep.largestDifferingFace);
  return rep;
}

Box unitBox(bool px, bool py, bool pz) {
  Box b;
  b.periodic[0] = px;
  b.periodic[1] = py;
  b.periodic[2] = pz;
  return b;
}

}  // namespace

int main() {
  const std::size_t n = 20000;
  struct Case {
    const char* label;
    Box box;
    bool laguerre;
  };
  Box shifted = unitBox(false, false, false);
  for (int a = 0; a < 3; ++a) {
    shifted.min[a] = -2.0;
    shifted.max[a] = 1.0 + a;
  }
  const Case cases[] = {
      {"voronoi walled", unitBox(false, false, false), false},
      {"voronoi periodic", unitBox(true, true, true), false},
      {"voronoi periodic x,y", unitBox(true, true, false), false},
      {"voronoi walled, odd box", shifted, false},
      {"laguerre walled", unitBox(false, false, false), true},
      {"laguerre periodic", unitBox(true, true, true), true},
      {"laguerre periodic z", unitBox(false, false, true), true},
  };
  int passed = 0, failed = 0;
  unsigned long long seed = 100;
  for (const Case& c : cases) {
    const Report r = compare(c.label, n, c.box, c.laguerre, seed++);
    const bool ok = r.maxVolumeDiff < 1e-9 && r.significantSets == 0;
    (ok ? passed : failed)++;
    if (!ok) std::printf("  FAIL %s\n", c.label);
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
