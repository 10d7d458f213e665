#include "neighbor_list.hpp"

#include <algorithm>
#include <cmath>

namespace peclet::dem::detail {

std::size_t CellGrid::cellOf(const double* x) const {
  std::size_t index[3];
  for (int a = 0; a < 3; ++a) {
    const double t = std::floor((x[a] - origin[a]) / cellSize[a]);
    // NaN or far-outside values land in the edge cells, clamped as doubles
    // before any conversion; never out of range.
    const double last = double(cells[a] - 1);
    index[a] = !(t >= 0.0) ? 0 : t >= last ? cells[a] - 1 : static_cast<std::size_t>(t);
  }
  return (index[2] * cells[1] + index[1]) * cells[0] + index[0];
}

bool CellGrid::setup(const Box& box, const std::array<bool, 3>& periodicAxes, double cutoff, std::size_t sphereCount) {
  periodic = periodicAxes;
  for (int a = 0; a < 3; ++a) {
    origin[a] = box.min[a];
    length[a] = box.max[a] - box.min[a];
  }
  // Never let the grid outgrow the spheres by much: coarsen the cells of a
  // sparse box instead of allocating millions of empty ones. The cap also
  // keeps every cell and stencil index within 32 bits. All of it in doubles
  // so that no user number can overflow an integer.
  const double maxCells = std::min(std::max(64.0, 4.0 * double(sphereCount)), 134217728.0);  // 2^27
  double edge = cutoff;
  const double fit = std::cbrt(length[0]) * std::cbrt(length[1]) * std::cbrt(length[2]) / std::cbrt(maxCells);
  if (edge < fit) edge = fit;
  auto cellsAlong = [&](int a) { return std::max(1.0, std::floor(length[a] / edge)); };
  while (cellsAlong(0) * cellsAlong(1) * cellsAlong(2) > maxCells) edge *= 1.25;
  bool ok = true;
  for (int a = 0; a < 3; ++a) {
    cells[a] = static_cast<std::size_t>(cellsAlong(a));
    // A periodic axis needs 3 cells so that no pair is listed twice.
    if (periodic[a] && cells[a] < 3) {
      if (length[a] >= 3.0 * cutoff)
        cells[a] = 3;
      else
        ok = false;
    }
    cellSize[a] = length[a] / double(cells[a]);
  }
  for (int code = 0; code < 27; ++code) {
    const int s[3] = {code % 3 - 1, (code / 3) % 3 - 1, code / 9 - 1};
    for (int a = 0; a < 3; ++a) imageShift[code][a] = s[a] * length[a];
  }
  const std::size_t n = cellCount();
  stencilStart.assign(n + 1, 0);
  stencilCell.clear();
  stencilImage.clear();
  stencilCell.reserve(n * 13);
  stencilImage.reserve(n * 13);
  for (std::size_t cz = 0; cz < cells[2]; ++cz)
    for (std::size_t cy = 0; cy < cells[1]; ++cy)
      for (std::size_t cx = 0; cx < cells[0]; ++cx) {
        const std::size_t cell = (cz * cells[1] + cy) * cells[0] + cx;
        stencilStart[cell] = static_cast<std::uint32_t>(stencilCell.size());
        for (int dz = -1; dz <= 1; ++dz)
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
              // Forward half of the 26 neighbours (lexicographic on z, y, x).
              if (dz < 0 || (dz == 0 && dy < 0) || (dz == 0 && dy == 0 && dx <= 0)) continue;
              const long c[3] = {long(cx) + dx, long(cy) + dy, long(cz) + dz};
              long wrapped[3];
              int shift[3] = {0, 0, 0};
              bool inside = true;
              for (int a = 0; a < 3; ++a) {
                const long nA = long(cells[a]);
                wrapped[a] = c[a];
                if (c[a] < 0 || c[a] >= nA) {
                  if (!periodic[a] || nA < 3) {
                    inside = false;
                    break;
                  }
                  // The partner's image lies one box length away.
                  wrapped[a] = (c[a] + nA) % nA;
                  shift[a] = c[a] < 0 ? 1 : -1;
                }
              }
              // Single-cell non-periodic axes: the offset cell does not exist.
              if (!inside) continue;
              const std::size_t neighbour =
                  (std::size_t(wrapped[2]) * cells[1] + std::size_t(wrapped[1])) * cells[0] + std::size_t(wrapped[0]);
              stencilCell.push_back(static_cast<std::uint32_t>(neighbour));
              stencilImage.push_back(
                  static_cast<std::uint8_t>((shift[0] + 1) + 3 * (shift[1] + 1) + 9 * (shift[2] + 1)));
            }
      }
  stencilStart[n] = static_cast<std::uint32_t>(stencilCell.size());
  return ok;
}

void collectShearHistory(const std::vector<PairChunk>& chunks, const std::vector<std::uint32_t>& oldToNew,
                         std::size_t sphereCount, ShearHistory& history) {
  history.start.assign(sphereCount + 1, 0);
  auto active = [](const double* s) { return s[0] != 0.0 || s[1] != 0.0 || s[2] != 0.0; };
  std::size_t total = 0;
  for (const PairChunk& chunk : chunks)
    for (std::size_t i = chunk.begin; i < chunk.end; ++i)
      for (std::uint32_t k = chunk.offsets[i - chunk.begin]; k < chunk.offsets[i - chunk.begin + 1]; ++k)
        if (active(&chunk.shear[3 * k])) {
          ++history.start[oldToNew[i] + 1];
          ++history.start[oldToNew[chunk.partner[k]] + 1];
          total += 2;
        }
  for (std::size_t a = 0; a < sphereCount; ++a) history.start[a + 1] += history.start[a];
  history.partner.resize(total);
  history.shear.resize(3 * total);
  history.fill.assign(history.start.begin(), history.start.end() - 1);
  for (const PairChunk& chunk : chunks)
    for (std::size_t i = chunk.begin; i < chunk.end; ++i)
      for (std::uint32_t k = chunk.offsets[i - chunk.begin]; k < chunk.offsets[i - chunk.begin + 1]; ++k) {
        const double* s = &chunk.shear[3 * k];
        if (!active(s)) continue;
        const std::uint32_t a = oldToNew[i], b = oldToNew[chunk.partner[k]];
        // The spring is the displacement of the first sphere relative to the
        // second: seen from the other side it changes sign.
        std::uint32_t slot = history.fill[a]++;
        history.partner[slot] = b;
        for (int d = 0; d < 3; ++d) history.shear[3 * slot + d] = s[d];
        slot = history.fill[b]++;
        history.partner[slot] = a;
        for (int d = 0; d < 3; ++d) history.shear[3 * slot + d] = -s[d];
      }
}

void buildPairChunk(const CellGrid& grid, const std::vector<std::uint32_t>& cellStart,
                    const std::vector<std::uint32_t>& cellOfSphere, const double* x, const double* radii, double skin,
                    const ShearHistory& history, PairChunk& chunk) {
  const std::size_t owned = chunk.end - chunk.begin;
  chunk.offsets.resize(owned + 1);
  chunk.partner.clear();
  chunk.image.clear();
  chunk.shear.clear();
  std::size_t touchBegin = chunk.begin, touchEnd = chunk.end;
  const bool haveHistory = !history.partner.empty();

  auto consider = [&](std::size_t i, std::size_t j, std::uint8_t code) {
    const double* shift = grid.imageShift[code];
    const double dx = x[3 * i] - x[3 * j] + shift[0];
    const double dy = x[3 * i + 1] - x[3 * j + 1] + shift[1];
    const double dz = x[3 * i + 2] - x[3 * j + 2] + shift[2];
    const double reach = radii[i] + radii[j] + skin;
    if (dx * dx + dy * dy + dz * dz >= reach * reach) return;
    chunk.partner.push_back(static_cast<std::uint32_t>(j));
    chunk.image.push_back(code);
    double s[3] = {0.0, 0.0, 0.0};
    if (haveHistory)
      for (std::uint32_t h = history.start[i]; h < history.start[i + 1]; ++h)
        if (history.partner[h] == j) {
          for (int d = 0; d < 3; ++d) s[d] = history.shear[3 * h + d];
          break;
        }
    chunk.shear.insert(chunk.shear.end(), s, s + 3);
    touchBegin = std::min(touchBegin, j);
    touchEnd = std::max(touchEnd, j + 1);
  };

  for (std::size_t i = chunk.begin; i < chunk.end; ++i) {
    chunk.offsets[i - chunk.begin] = static_cast<std::uint32_t>(chunk.partner.size());
    const std::uint32_t cell = cellOfSphere[i];
    // Same cell: only partners after i, so each pair is listed once.
    for (std::size_t j = i + 1; j < cellStart[cell + 1]; ++j) consider(i, j, kNoImage);
    for (std::uint32_t s = grid.stencilStart[cell]; s < grid.stencilStart[cell + 1]; ++s) {
      const std::uint32_t other = grid.stencilCell[s];
      const std::uint8_t code = grid.stencilImage[s];
      for (std::size_t j = cellStart[other]; j < cellStart[other + 1]; ++j) consider(i, j, code);
    }
  }
  chunk.offsets[owned] = static_cast<std::uint32_t>(chunk.partner.size());
  chunk.touchBegin = touchBegin;
  chunk.touchEnd = touchEnd;
  chunk.force.resize(3 * (touchEnd - touchBegin));
  chunk.torque.resize(3 * (touchEnd - touchBegin));
}

}  // namespace peclet::dem::detail
