#pragma once
/// \file
/// Linked-cell grid and half neighbour list with persistent contact history.
/// Internal to the kernel (used by `Simulation`); not part of the public API.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "options.hpp"

namespace peclet::dem::detail {

/// Cells of edge ≥ cutoff covering the box; periodic axes wrap.
struct CellGrid {
  std::array<std::size_t, 3> cells{1, 1, 1};
  Vec3 cellSize{1, 1, 1};
  Vec3 origin{0, 0, 0};
  Vec3 length{1, 1, 1};
  std::array<bool, 3> periodic{false, false, false};
  /// For each cell, up to 13 "forward" neighbour cells and their image codes,
  /// so that every unordered pair of cells is visited once.
  std::vector<std::uint32_t> stencilStart;  // cells + 1
  std::vector<std::uint32_t> stencilCell;
  std::vector<std::uint8_t> stencilImage;
  /// Shift (m) added to xi − xj for each image code (sx+1) + 3(sy+1) + 9(sz+1).
  double imageShift[27][3] = {};

  std::size_t cellCount() const { return cells[0] * cells[1] * cells[2]; }
  /// Cell of a point (clamped on non-periodic axes; the point must already be
  /// wrapped on periodic axes).
  std::size_t cellOf(const double* x) const;
  /// Rebuilds the grid; returns false when a periodic axis has < 3 cells.
  bool setup(const Box& box, const std::array<bool, 3>& periodic, double cutoff, std::size_t sphereCount);
};

/// Zero-shift image code.
inline constexpr std::uint8_t kNoImage = 13;

/// Half neighbour list of the spheres owned by one chunk [begin, end), in CSR
/// form, with a tangential spring (3 doubles) per pair that survives rebuilds.
/// Also holds the chunk's private force/torque accumulators over the index
/// range it touches.
struct PairChunk {
  std::size_t begin = 0, end = 0;
  std::vector<std::uint32_t> offsets;  // end − begin + 1
  std::vector<std::uint32_t> partner;
  std::vector<std::uint8_t> image;
  std::vector<double> shear;  // 3 per pair (m)
  /// Index range written by this chunk's pair loop, and its accumulators.
  std::size_t touchBegin = 0, touchEnd = 0;
  std::vector<double> force, torque;  // 3 × (touchEnd − touchBegin)
  /// Overlaps of the last force evaluation, relative to the smaller radius.
  double overlapSum = 0.0, overlapMax = 0.0;
  std::size_t contacts = 0;
  std::size_t pairCount() const { return partner.size(); }
};

/// Tangential springs of the previous list, re-keyed by new sphere index:
/// for sphere a, entries [start[a], start[a+1]) give partners and springs
/// (sign chosen for the pair seen from a).
struct ShearHistory {
  std::vector<std::uint32_t> start;
  std::vector<std::uint32_t> partner;
  std::vector<double> shear;
  std::vector<std::uint32_t> fill;  // scratch
};

/// Re-keys the non-zero springs of `chunks` (old indices) by new index.
void collectShearHistory(const std::vector<PairChunk>& chunks, const std::vector<std::uint32_t>& oldToNew,
                         std::size_t sphereCount, ShearHistory& history);

/// Builds `chunk`'s list for its spheres [chunk.begin, chunk.end), sorted by
/// cell (cellStart gives each cell's first sphere), keeping pairs closer than
/// ri + rj + skin and restoring their springs from `history`.
void buildPairChunk(const CellGrid& grid, const std::vector<std::uint32_t>& cellStart,
                    const std::vector<std::uint32_t>& cellOfSphere, const double* positions, const double* radii,
                    double skin, const ShearHistory& history, PairChunk& chunk);

}  // namespace peclet::dem::detail
