#pragma once
// Whole-tessellation invariants shared by the tests.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>

#include "test_framework.hpp"

struct Invariants {
  double volumeError = 0;        // |sum of volumes - box volume| / box volume
  std::size_t asymmetric = 0;    // faces without a partner face on the neighbour's side
  std::size_t areaMismatch = 0;  // partner faces whose areas differ at all
  double meanFaces = 0;
  std::size_t defects = 0;
};

inline double boxVolume(const peclet::voro::Box& b) {
  return (b.max[0] - b.min[0]) * (b.max[1] - b.min[1]) * (b.max[2] - b.min[2]);
}

inline Invariants checkInvariants(const peclet::voro::Tessellation& t, const peclet::voro::Box& box) {
  Invariants r;
  const std::size_t n = t.pointCount();
  // Compensated sum: the check must not add rounding of its own at 1e-12.
  long double sum = 0;
  for (double v : t.cellVolumes()) sum += v;
  r.volumeError = std::fabs(double(sum) - boxVolume(box)) / boxVolume(box);
  const auto& off = t.neighborOffsets();
  const auto& nb = t.neighbors();
  const auto& im = t.neighborImages();
  const auto& area = t.faceAreas();
  for (std::size_t i = 0; i < n; ++i) {
    for (auto k = off[i]; k < off[i + 1]; ++k) {
      const int j = nb[k];
      if (j < 0) continue;
      int s[3];
      peclet::voro::Tessellation::imageShift(im[k], s);
      bool found = false;
      for (auto m = off[j]; m < off[j + 1]; ++m) {
        if (nb[m] != int(i)) continue;
        int u[3];
        peclet::voro::Tessellation::imageShift(im[m], u);
        if (u[0] == -s[0] && u[1] == -s[1] && u[2] == -s[2]) {
          found = true;
          if (area[m] != area[k]) ++r.areaMismatch;
          break;
        }
      }
      if (!found) ++r.asymmetric;
    }
  }
  r.meanFaces = double(off[n]) / double(n);
  r.defects = t.stats().topologyDefects;
  return r;
}

inline void printInvariants(const char* label, const Invariants& r, const peclet::voro::TessellationStats& s) {
  std::printf(
      "    %-28s volume error %.2e  mean faces %.4f  asymmetric %zu  area mismatch %zu  "
      "one-sided removed %zu (largest %.1e)  defects %zu\n",
      label, r.volumeError, r.meanFaces, r.asymmetric, r.areaMismatch, s.oneSidedFacesRemoved, s.largestRemovedFaceArea,
      r.defects);
}
