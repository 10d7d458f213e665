#pragma once
/// \file
/// The D3Q19 velocity set.
///
/// Direction 0 rests; directions 1..18 come in opposite pairs (2p − 1, 2p),
/// so the opposite of q is `q + 1` for odd q and `q − 1` for even q. The
/// components (cx, cy, cz) are along image axes 0, 1, 2 (x, y, z).

#include <array>
#include <cstddef>

namespace peclet::flow::d3q19 {

inline constexpr std::size_t Q = 19;
inline constexpr std::size_t kPairs = 9;

inline constexpr int cx[Q] = {0, 1, -1, 0, 0, 0, 0, 1, -1, 1, -1, 1, -1, 1, -1, 0, 0, 0, 0};
inline constexpr int cy[Q] = {0, 0, 0, 1, -1, 0, 0, 1, -1, -1, 1, 0, 0, 0, 0, 1, -1, 1, -1};
inline constexpr int cz[Q] = {0, 0, 0, 0, 0, 1, -1, 0, 0, 0, 0, 1, -1, -1, 1, 1, -1, -1, 1};

inline constexpr double kWeightRest = 1.0 / 3.0;
inline constexpr double kWeightFace = 1.0 / 18.0;
inline constexpr double kWeightEdge = 1.0 / 36.0;

/// Weight of direction q.
constexpr double weight(std::size_t q) { return q == 0 ? kWeightRest : q <= 6 ? kWeightFace : kWeightEdge; }
/// The direction opposite to q.
constexpr std::size_t opposite(std::size_t q) { return q == 0 ? 0 : (q % 2 == 1 ? q + 1 : q - 1); }

}  // namespace peclet::flow::d3q19
