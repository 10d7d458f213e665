#include "convex_cell.hpp"

#include <cmath>
#include <utility>

namespace peclet::voro {
namespace {

template <class T>
void growTo(std::vector<T>& v, std::size_t n) {
  // Only grows, so a warm cell never allocates.
  if (v.size() < n) v.resize(n + n / 2 + 16);
}

// Room made for a new vertex's edges: three after a generic cut, four leaves slack for the
// degenerate vertices of lattices.
constexpr std::int32_t kNewVertexEdges = 4;

// The box as a vertex graph. Vertex v has x from bit 0, y from bit 1, z from bit 2
// (0 = lo, 1 = hi). Derived once from the face loops, counter-clockwise seen from outside.
struct BoxGraph {
  std::int32_t to[8][3];
  std::int32_t face[8][3];
};

BoxGraph makeBoxGraph() {
  static const std::int32_t kLoops[6][4] = {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4},
                                            {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};
  BoxGraph g{};
  for (int v = 0; v < 8; ++v) {
    // Each face through v contributes the wedge "next, then prev" around v.
    std::int32_t first[3], second[3], face[3];
    int n = 0;
    for (int f = 0; f < 6; ++f)
      for (int k = 0; k < 4; ++k)
        if (kLoops[f][k] == v) {
          first[n] = kLoops[f][(k + 1) % 4];
          second[n] = kLoops[f][(k + 3) % 4];
          face[n] = f;
          ++n;
        }
    int w = 0;
    for (int k = 0; k < 3; ++k) {
      g.to[v][k] = first[w];
      g.face[v][k] = face[w];
      for (int u = 0; u < 3; ++u)
        if (first[u] == second[w]) {
          w = u;
          break;
        }
    }
  }
  return g;
}

}  // namespace

void ConvexCell::reserveVertices(std::size_t n) {
  if (x_.size() >= n) return;
  growTo(x_, n);
  const std::size_t m = x_.size();
  y_.resize(m);
  z_.resize(m);
  edgeStart_.resize(m);
  degree_.resize(m);
  edgeCapacity_.resize(m);
  distance_.resize(m);
  side_.resize(m);
  outside_.resize(m);
  vertexMark_.resize(m, 0);
  localIndex_.resize(m);
  capNext_.resize(m);
  capSeen_.resize(m, 0);
}

void ConvexCell::reserveEdges(std::size_t n) {
  if (edgeTo_.size() >= n) return;
  growTo(edgeTo_, n);
  edgeFace_.resize(edgeTo_.size());
}

void ConvexCell::resetToBox(const double lo[3], const double hi[3], const std::int32_t faceNeighbor[6],
                            const std::int32_t faceImage[6]) {
  static const BoxGraph kBox = makeBoxGraph();
  reserveVertices(64);
  reserveEdges(8 * kNewVertexEdges + 256);
  for (int v = 0; v < 8; ++v) {
    x_[v] = (v & 1) ? hi[0] : lo[0];
    y_[v] = (v & 2) ? hi[1] : lo[1];
    z_[v] = (v & 4) ? hi[2] : lo[2];
    edgeStart_[v] = v * kNewVertexEdges;
    edgeCapacity_[v] = kNewVertexEdges;
    degree_[v] = 3;
    for (int k = 0; k < 3; ++k) {
      edgeTo_[v * kNewVertexEdges + k] = kBox.to[v][k];
      edgeFace_[v * kNewVertexEdges + k] = kBox.face[v][k];
    }
  }
  vertexCount_ = 8;
  headerCount_ = 8;
  poolEnd_ = 8 * kNewVertexEdges;
  faceNeighbor_.assign(faceNeighbor, faceNeighbor + 6);
  faceImage_.assign(faceImage, faceImage + 6);
  updateRadius();
}

void ConvexCell::updateRadius() {
  double r2max = 0;
  const double *x = x_.data(), *y = y_.data(), *z = z_.data();
  for (std::size_t v = 0; v < vertexCount_; ++v) {
    const double r2 = x[v] * x[v] + y[v] * y[v] + z[v] * z[v];
    r2max = r2 > r2max ? r2 : r2max;
  }
  maxRadius2_ = r2max;
}

std::int32_t ConvexCell::newVertex() {
  const std::size_t v = totalVertices_++;
  reserveVertices(totalVertices_);
  if (v >= headerCount_) {
    // A fresh slot: give it room in the edge pool.
    reserveEdges(poolEnd_ + kNewVertexEdges);
    edgeStart_[v] = static_cast<std::int32_t>(poolEnd_);
    edgeCapacity_[v] = kNewVertexEdges;
    poolEnd_ += kNewVertexEdges;
    headerCount_ = v + 1;
  }
  degree_[v] = 0;
  return static_cast<std::int32_t>(v);
}

std::int32_t ConvexCell::cutVertex(std::int32_t inside, std::int32_t outside) {
  // The same edge is met once from each of its two faces; reuse the first point so both
  // faces share one vertex. Few edges are cut per plane, so a linear search is fastest.
  for (const CutEdge& c : cuts_)
    if (c.inside == inside && c.outside == outside) return c.index;
  const double di = distance_[inside], dout = distance_[outside];
  // di < -tol < tol < dout, so the denominator is bounded away from zero.
  const double t = di / (di - dout);
  const std::int32_t index = newVertex();
  x_[index] = x_[inside] + t * (x_[outside] - x_[inside]);
  y_[index] = y_[inside] + t * (y_[outside] - y_[inside]);
  z_[index] = z_[inside] + t * (z_[outside] - z_[inside]);
  cuts_.push_back({inside, outside, index});
  return index;
}

void ConvexCell::addCapEdge(std::int32_t from, std::int32_t to) {
  if (from == to) return;
  if (capSeen_[from] == stamp_) {
    // Two boundary edges leave one vertex: the classification was not consistent.
    ++defects_;
    return;
  }
  capSeen_[from] = stamp_;
  capNext_[from] = to;
  capSources_.push_back(from);
}

// Walks the face on the left of edge (v, k) (the face between edges k and k + 1 of v),
// appending its vertices counter-clockwise seen from outside. False if the graph does not
// close the loop.
bool ConvexCell::traceFace(std::int32_t v, std::int32_t k, std::vector<std::int32_t>& out) {
  std::int32_t cur = v, at = k;
  const std::size_t limit = vertexCount_ + 1;
  std::size_t steps = 0;
  do {
    out.push_back(cur);
    const std::int32_t next = edgeTo_[edgeStart_[cur] + at];
    const std::int32_t* list = &edgeTo_[edgeStart_[next]];
    const std::int32_t degree = degree_[next];
    std::int32_t back = -1;
    for (std::int32_t j = 0; j < degree; ++j)
      if (list[j] == cur) {
        back = j;
        break;
      }
    if (back < 0 || ++steps > limit) return false;
    at = back == 0 ? degree - 1 : back - 1;
    cur = next;
  } while (cur != v || at != k);
  return true;
}

void ConvexCell::setEdges(std::int32_t v, const std::int32_t* nb, const std::int32_t* face, std::int32_t degree) {
  if (degree > edgeCapacity_[v]) {
    const std::int32_t capacity = degree + 1;
    reserveEdges(poolEnd_ + std::size_t(capacity));
    edgeStart_[v] = static_cast<std::int32_t>(poolEnd_);
    edgeCapacity_[v] = capacity;
    poolEnd_ += std::size_t(capacity);
  }
  const std::int32_t base = edgeStart_[v];
  for (std::int32_t k = 0; k < degree; ++k) {
    edgeTo_[base + k] = nb[k];
    edgeFace_[base + k] = face[k];
  }
  degree_[v] = degree;
}

// Removes vertex v (no live vertex refers to it any more) by moving the last vertex into
// its slot.
void ConvexCell::removeVertex(std::int32_t v) {
  const std::int32_t last = static_cast<std::int32_t>(--vertexCount_);
  if (last == v) return;
  x_[v] = x_[last];
  y_[v] = y_[last];
  z_[v] = z_[last];
  std::swap(edgeStart_[v], edgeStart_[last]);
  std::swap(edgeCapacity_[v], edgeCapacity_[last]);
  degree_[v] = degree_[last];
  const std::int32_t base = edgeStart_[v];
  for (std::int32_t k = 0; k < degree_[v]; ++k) {
    const std::int32_t u = edgeTo_[base + k];
    std::int32_t* list = &edgeTo_[edgeStart_[u]];
    for (std::int32_t j = 0; j < degree_[u]; ++j)
      if (list[j] == last) {
        list[j] = v;
        break;
      }
  }
}

ConvexCell::Clip ConvexCell::clip(double nx, double ny, double nz, double offset, double tolerance,
                                  std::int32_t neighbor, std::int32_t image) {
  const std::size_t nv = vertexCount_;
  // Plane test over every vertex: a tight loop over the coordinate arrays. Most planes that
  // get here miss the cell, so this is all they cost.
  const double *x = x_.data(), *y = y_.data(), *z = z_.data();
  double* d = distance_.data();
  // Four independent maxima keep the loop from waiting on one dependency chain.
  double m0 = -HUGE_VAL, m1 = -HUGE_VAL, m2 = -HUGE_VAL, m3 = -HUGE_VAL;
  std::size_t v = 0;
  for (; v + 4 <= nv; v += 4) {
    const double d0 = nx * x[v] + ny * y[v] + nz * z[v] - offset;
    const double d1 = nx * x[v + 1] + ny * y[v + 1] + nz * z[v + 1] - offset;
    const double d2 = nx * x[v + 2] + ny * y[v + 2] + nz * z[v + 2] - offset;
    const double d3 = nx * x[v + 3] + ny * y[v + 3] + nz * z[v + 3] - offset;
    d[v] = d0;
    d[v + 1] = d1;
    d[v + 2] = d2;
    d[v + 3] = d3;
    m0 = d0 > m0 ? d0 : m0;
    m1 = d1 > m1 ? d1 : m1;
    m2 = d2 > m2 ? d2 : m2;
    m3 = d3 > m3 ? d3 : m3;
  }
  for (; v < nv; ++v) {
    const double dv = nx * x[v] + ny * y[v] + nz * z[v] - offset;
    d[v] = dv;
    m0 = dv > m0 ? dv : m0;
  }
  m0 = m1 > m0 ? m1 : m0;
  m2 = m3 > m2 ? m3 : m2;
  const double dmax = m2 > m0 ? m2 : m0;
  if (!(dmax > tolerance)) return Clip::kUnchanged;
  std::size_t out = 0, inside = 0;
  double nearest = HUGE_VAL, keptRadius2 = 0;
  std::int32_t* outside = outside_.data();  // sized with the vertex table
  signed char* side = side_.data();
  for (v = 0; v < nv; ++v) {
    const double dv = d[v];
    const double a = std::fabs(dv);
    nearest = a < nearest ? a : nearest;
    if (dv > tolerance) {
      side[v] = 1;
      outside[out++] = static_cast<std::int32_t>(v);
    } else {
      side[v] = dv < -tolerance ? -1 : 0;
      inside += dv < -tolerance;
      const double r2 = x[v] * x[v] + y[v] * y[v] + z[v] * z[v];
      keptRadius2 = r2 > keptRadius2 ? r2 : keptRadius2;
    }
  }
  if (inside == 0) {
    vertexCount_ = 0;
    maxRadius2_ = 0;
    return Clip::kEmptied;
  }
  outsideCount_ = out;
  // No vertex on the plane (the common case): only edges crossing it change.
  if (nearest > tolerance && clipSimple(neighbor, image, keptRadius2)) return Clip::kCut;
  return clipGeneric(neighbor, image);
}

// Cut where every vertex is strictly above or below the plane. Each crossing edge gets a
// new vertex of degree three: its inside end, and its two neighbours around the new face,
// which are found by walking each cut face through its vertices above the plane only. The
// new vertices take the slots of the removed ones first.
bool ConvexCell::clipSimple(std::int32_t neighbor, std::int32_t image, double keptRadius2) {
  const std::size_t nv = vertexCount_, out = outsideCount_;
  const std::int32_t* outside = outside_.data();
  const signed char* side = side_.data();
  // Pass 1: the crossing edges, each remembered on its outside end's edge slot.
  growTo(crossingSlot_, poolEnd_);
  std::size_t count = 0;
  for (std::size_t o = 0; o < out; ++o) {
    const std::int32_t v = outside[o];
    const std::int32_t base = edgeStart_[v];
    for (std::int32_t k = 0; k < degree_[v]; ++k) {
      const std::int32_t u = edgeTo_[base + k];
      if (side[u] > 0) continue;
      growTo(crossings_, count + 1);
      crossingSlot_[std::size_t(base + k)] = static_cast<std::int32_t>(count);
      Crossing& c = crossings_[count++];
      c.outside = v;
      c.inside = u;
      c.outsideFace = edgeFace_[base + k];
      c.outsideSlot = k;
    }
  }
  if (count < 3) return false;
  growTo(crossingNext_, 2 * count);
  Crossing* cross = crossings_.data();
  // Pass 2: around the face of edge u -> v, the next crossing is where the face comes back
  // below the plane; walk there through the vertices above it.
  for (std::size_t c = 0; c < count; ++c) {
    std::int32_t cur = cross[c].outside;
    std::int32_t at = cross[c].outsideSlot;
    at = at == 0 ? degree_[cur] - 1 : at - 1;
    std::size_t steps = 0;
    while (true) {
      const std::int32_t slot = edgeStart_[cur] + at;
      const std::int32_t next = edgeTo_[slot];
      if (side[next] <= 0) {
        crossingNext_[c] = crossingSlot_[std::size_t(slot)];
        break;
      }
      const std::int32_t* list = &edgeTo_[edgeStart_[next]];
      const std::int32_t degree = degree_[next];
      std::int32_t back = -1;
      for (std::int32_t j = 0; j < degree; ++j)
        if (list[j] == cur) {
          back = j;
          break;
        }
      if (back < 0 || ++steps > nv) return false;
      at = back == 0 ? degree - 1 : back - 1;
      cur = next;
    }
  }
  // Each crossing must follow exactly one other, all in one loop (else: generic path).
  std::int32_t* previous = crossingNext_.data() + count;
  for (std::size_t c = 0; c < count; ++c) previous[c] = -1;
  for (std::size_t c = 0; c < count; ++c) {
    const std::int32_t n = crossingNext_[c];
    if (previous[n] >= 0) return false;
    previous[n] = static_cast<std::int32_t>(c);
  }
  {
    std::size_t length = 0;
    std::int32_t c = 0;
    do {
      c = crossingNext_[std::size_t(c)];
      ++length;
    } while (c != 0 && length <= count);
    if (length != count) return false;
  }
  // Pass 3 (reads only): where each inside end lists its outside neighbour, and the point.
  for (std::size_t c = 0; c < count; ++c) {
    Crossing& k = cross[c];
    const std::int32_t* list = &edgeTo_[edgeStart_[k.inside]];
    std::int32_t j = 0;
    while (j < degree_[k.inside] && list[j] != k.outside) ++j;
    if (j == degree_[k.inside]) return false;
    k.insideSlot = edgeStart_[k.inside] + j;
    k.insideFace = edgeFace_[std::size_t(k.insideSlot)];
    const double dv = distance_[k.outside], du = distance_[k.inside];
    const double t = du / (du - dv);
    k.x = x_[k.inside] + t * (x_[k.outside] - x_[k.inside]);
    k.y = y_[k.inside] + t * (y_[k.outside] - y_[k.inside]);
    k.z = z_[k.inside] + t * (z_[k.outside] - z_[k.inside]);
  }

  // Commit.
  const std::int32_t capFace = static_cast<std::int32_t>(faceNeighbor_.size());
  faceNeighbor_.push_back(neighbor);
  faceImage_.push_back(image);
  totalVertices_ = nv;
  for (std::size_t c = 0; c < count; ++c) cross[c].vertex = c < out ? outside[c] : newVertex();
  cross = crossings_.data();
  double r2max = keptRadius2;
  for (std::size_t c = 0; c < count; ++c) {
    const Crossing& k = cross[c];
    const std::int32_t w = k.vertex;
    edgeTo_[std::size_t(k.insideSlot)] = w;  // same face as before
    x_[w] = k.x;
    y_[w] = k.y;
    z_[w] = k.z;
    const double r2 = k.x * k.x + k.y * k.y + k.z * k.z;
    r2max = r2 > r2max ? r2 : r2max;
    // Counter-clockwise from outside: the inside end, the previous crossing around the new
    // face, the next one; between them the faces of v -> u, the new face, and u -> v.
    const std::size_t base = std::size_t(edgeStart_[w]);
    edgeTo_[base] = k.inside;
    edgeFace_[base] = k.outsideFace;
    edgeTo_[base + 1] = cross[previous[c]].vertex;
    edgeFace_[base + 1] = capFace;
    edgeTo_[base + 2] = cross[crossingNext_[c]].vertex;
    edgeFace_[base + 2] = k.insideFace;
    degree_[w] = 3;
  }
  vertexCount_ = totalVertices_;
  // Outside vertices not reused (more of them than crossings): highest slots first.
  for (std::size_t o = out; o-- > count;) removeVertex(outside[o]);
  totalVertices_ = vertexCount_;
  maxRadius2_ = r2max;
  return true;
}

ConvexCell::Clip ConvexCell::clipGeneric(std::int32_t neighbor, std::int32_t image) {
  const std::size_t nv = vertexCount_;
  if (++stamp_ >= 0x3fffffff) {
    stamp_ = 1;
    for (auto& m : faceMark_) m = 0;
    for (auto& m : vertexMark_) m = 0;
    for (auto& m : capSeen_) m = 0;
    for (auto& m : edgeSeen_) m = 0;
  }
  const std::int32_t stamp = stamp_;

  // Faces holding a vertex above the plane are the only ones that change.
  growTo(faceMark_, faceNeighbor_.size());
  affected_.clear();
  affectedStart_.clear();
  for (std::size_t o = 0; o < outsideCount_; ++o) {
    const std::int32_t v = outside_[o];
    const std::int32_t base = edgeStart_[v];
    for (std::int32_t k = 0; k < degree_[v]; ++k) {
      const std::int32_t f = edgeFace_[base + k];
      if (faceMark_[f] == stamp) continue;
      faceMark_[f] = stamp;
      affected_.push_back(f);
      affectedStart_.push_back(v);
      affectedStart_.push_back(k);
    }
  }
  oldLoops_.clear();
  oldStart_.clear();
  for (std::size_t a = 0; a < affected_.size(); ++a) {
    oldStart_.push_back(static_cast<std::int32_t>(oldLoops_.size()));
    if (!traceFace(affectedStart_[2 * a], affectedStart_[2 * a + 1], oldLoops_)) {
      ++defects_;
      return Clip::kUnchanged;
    }
  }
  oldStart_.push_back(static_cast<std::int32_t>(oldLoops_.size()));

  // Clip each affected face. Surviving vertices keep their ids; points cut on edges are
  // appended after them. Edges along the plane are collected for the new face.
  totalVertices_ = nv;
  cuts_.clear();
  capSources_.clear();
  newLoops_.clear();
  newStart_.clear();
  newFace_.clear();
  for (std::size_t a = 0; a < affected_.size(); ++a) {
    const std::int32_t* loop = oldLoops_.data() + oldStart_[a];
    const std::size_t n = static_cast<std::size_t>(oldStart_[a + 1] - oldStart_[a]);
    // Find an outside vertex followed by a kept one.
    std::size_t start = n;
    {
      signed char sPrev = side_[loop[n - 1]];
      for (std::size_t k = 0; k < n; ++k) {
        const signed char sCur = side_[loop[k]];
        if (sPrev > 0 && sCur <= 0) {
          start = k == 0 ? n - 1 : k - 1;
          break;
        }
        sPrev = sCur;
      }
    }
    if (start == n) continue;  // every vertex outside: the face is gone
    // Walk once around from just after an outside run. The result is a list of runs, each
    // starting where the loop re-enters the kept side (B) and ending where it leaves (A).
    faceScratch_.clear();
    runStarts_.clear();
    bool hasInside = false;
    std::int32_t prev = loop[start];
    std::size_t at = start;
    for (std::size_t k = 1; k <= n; ++k) {
      if (++at == n) at = 0;
      const std::int32_t cur = loop[at];
      const signed char sc = side_[cur], sp = side_[prev];
      if (sc <= 0) {
        if (sp > 0) {
          runStarts_.push_back(static_cast<std::int32_t>(faceScratch_.size()));
          if (sc < 0) faceScratch_.push_back(cutVertex(cur, prev));
        }
        faceScratch_.push_back(cur);
        hasInside |= sc < 0;
      } else if (sp < 0) {
        faceScratch_.push_back(cutVertex(prev, cur));
      }
      prev = cur;
    }
    const std::size_t m = faceScratch_.size();
    const std::size_t runs = runStarts_.size();
    if (hasInside && m >= 3) {
      newStart_.push_back(static_cast<std::int32_t>(newLoops_.size()));
      newFace_.push_back(affected_[a]);
      newLoops_.insert(newLoops_.end(), faceScratch_.begin(), faceScratch_.end());
      // The face now has edge A -> B along the plane; the new face runs it B -> A.
      for (std::size_t r = 0; r < runs; ++r) {
        const std::size_t b = static_cast<std::size_t>(runStarts_[r]);
        addCapEdge(faceScratch_[b], faceScratch_[(b + m - 1) % m]);
      }
    } else {
      // Nothing strictly inside remains: the face shrinks to a segment on the plane. Its
      // kept edges now border the new face, which takes them over in the same direction.
      for (std::size_t r = 0; r < runs; ++r) {
        const std::size_t b = static_cast<std::size_t>(runStarts_[r]);
        const std::size_t e = r + 1 < runs ? static_cast<std::size_t>(runStarts_[r + 1]) : m;
        for (std::size_t k = b; k + 1 < e; ++k) addCapEdge(faceScratch_[k], faceScratch_[k + 1]);
      }
    }
  }

  // Chain the boundary edges on the plane into the new face (one loop unless degenerate).
  for (std::size_t s = 0; s < capSources_.size(); ++s) {
    const std::int32_t first = capSources_[s];
    if (capSeen_[first] != stamp) continue;  // already used by an earlier loop
    const std::size_t begin = newLoops_.size();
    std::int32_t v = first;
    bool closed = false;
    while (true) {
      if (capSeen_[v] != stamp) {
        closed = v == first;
        break;
      }
      capSeen_[v] = stamp - 1;  // consumed
      newLoops_.push_back(v);
      v = capNext_[v];
    }
    if (!closed || newLoops_.size() - begin < 3) {
      if (!closed) ++defects_;
      newLoops_.resize(begin);
      continue;
    }
    newStart_.push_back(static_cast<std::int32_t>(begin));
    newFace_.push_back(static_cast<std::int32_t>(faceNeighbor_.size()));
    faceNeighbor_.push_back(neighbor);
    faceImage_.push_back(image);
  }
  newStart_.push_back(static_cast<std::int32_t>(newLoops_.size()));
  growTo(faceMark_, faceNeighbor_.size());

  // Vertices whose edge lists are rebuilt from the faces around them: those on the plane
  // that lie on a changed face, and the new ones. Inside vertices only see an outside
  // neighbour replaced by the cut point on that edge (below).
  rebuild_.clear();
  for (std::int32_t v : oldLoops_) {
    if (side_[v] != 0 || vertexMark_[v] == stamp) continue;
    vertexMark_[v] = stamp;
    localIndex_[v] = static_cast<std::int32_t>(rebuild_.size());
    rebuild_.push_back(v);
  }
  for (std::size_t v = nv; v < totalVertices_; ++v) {
    vertexMark_[v] = stamp;
    localIndex_[v] = static_cast<std::int32_t>(rebuild_.size());
    rebuild_.push_back(static_cast<std::int32_t>(v));
  }
  // Each face through a vertex gives one wedge: "edge to `first`, then edge to `second`".
  wedges_.clear();
  for (std::int32_t v : rebuild_) {
    if (static_cast<std::size_t>(v) >= nv) break;
    const std::int32_t base = edgeStart_[v], degree = degree_[v];
    for (std::int32_t k = 0; k < degree; ++k) {
      const std::int32_t f = edgeFace_[base + k];
      if (faceMark_[f] == stamp) continue;  // changed face: its new loop says
      wedges_.push_back({localIndex_[v], edgeTo_[base + k], edgeTo_[base + (k + 1 == degree ? 0 : k + 1)], f});
    }
  }
  for (std::size_t l = 0; l + 1 < newStart_.size(); ++l) {
    const std::int32_t* loop = newLoops_.data() + newStart_[l];
    const std::int32_t m = newStart_[l + 1] - newStart_[l];
    for (std::int32_t p = 0; p < m; ++p) {
      const std::int32_t v = loop[p];
      if (vertexMark_[v] != stamp) continue;
      wedges_.push_back({localIndex_[v], loop[p + 1 == m ? 0 : p + 1], loop[p == 0 ? m - 1 : p - 1], newFace_[l]});
    }
  }
  // Group by vertex (counting sort), then chain each vertex's wedges around it.
  const std::size_t nr = rebuild_.size();
  wedgeCount_.assign(nr + 1, 0);
  for (const Wedge& w : wedges_) ++wedgeCount_[std::size_t(w.owner) + 1];
  for (std::size_t r = 0; r < nr; ++r) wedgeCount_[r + 1] += wedgeCount_[r];
  growTo(wedgesSorted_, wedges_.size());
  growTo(chainTo_, wedges_.size());
  growTo(chainFace_, wedges_.size());
  {
    // wedgeCount_[r] is used as the insertion cursor, then restored.
    for (const Wedge& w : wedges_) wedgesSorted_[std::size_t(wedgeCount_[std::size_t(w.owner)]++)] = w;
    for (std::size_t r = nr; r > 0; --r) wedgeCount_[r] = wedgeCount_[r - 1];
    wedgeCount_[0] = 0;
  }
  for (std::size_t r = 0; r < nr; ++r) {
    const std::int32_t begin = wedgeCount_[r], count = wedgeCount_[r + 1] - begin;
    const Wedge* w = wedgesSorted_.data() + begin;
    if (count < 3 || count > 64) {
      ++defects_;
      return Clip::kUnchanged;
    }
    std::uint64_t used = 1;
    std::int32_t cur = 0;
    for (std::int32_t k = 0; k < count; ++k) {
      chainTo_[std::size_t(begin + k)] = w[cur].first;
      chainFace_[std::size_t(begin + k)] = w[cur].face;
      const std::int32_t want = w[cur].second;
      if (k + 1 == count) {
        if (want != w[0].first) {
          ++defects_;
          return Clip::kUnchanged;
        }
        break;
      }
      std::int32_t found = -1;
      for (std::int32_t u = 1; u < count; ++u)
        if (!(used >> u & 1) && w[u].first == want) {
          found = u;
          break;
        }
      if (found < 0) {
        ++defects_;
        return Clip::kUnchanged;
      }
      used |= std::uint64_t(1) << found;
      cur = found;
    }
  }

  // Everything is consistent: write the new graph.
  for (const CutEdge& c : cuts_) {
    std::int32_t* list = &edgeTo_[edgeStart_[c.inside]];
    for (std::int32_t j = 0; j < degree_[c.inside]; ++j)
      if (list[j] == c.outside) {
        list[j] = c.index;
        break;
      }
  }
  for (std::size_t r = 0; r < nr; ++r) {
    const std::int32_t begin = wedgeCount_[r];
    setEdges(rebuild_[r], &chainTo_[std::size_t(begin)], &chainFace_[std::size_t(begin)], wedgeCount_[r + 1] - begin);
  }
  vertexCount_ = totalVertices_;
  for (std::size_t k = outsideCount_; k-- > 0;) removeVertex(outside_[k]);
  totalVertices_ = vertexCount_;
  updateRadius();
  return Clip::kCut;
}

void ConvexCell::finish() {
  faceCount_ = 0;
  volume_ = 0;
  centroid_[0] = centroid_[1] = centroid_[2] = 0;
  if (vertexCount_ == 0) return;
  if (++stamp_ >= 0x3fffffff) {
    stamp_ = 1;
    for (auto& m : faceMark_) m = 0;
    for (auto& m : vertexMark_) m = 0;
    for (auto& m : capSeen_) m = 0;
    for (auto& m : edgeSeen_) m = 0;
  }
  const std::int32_t stamp = stamp_;
  growTo(edgeSeen_, poolEnd_);
  std::size_t directed = 0;
  for (std::size_t v = 0; v < vertexCount_; ++v) directed += std::size_t(degree_[v]);
  // Every directed edge belongs to exactly one face loop; each face has three or more.
  growTo(loops_, directed);
  growTo(faceStart_, directed / 3 + 1);
  growTo(faceSize_, directed / 3 + 1);
  growTo(faceId_, directed / 3 + 1);
  growTo(faceArea_, directed / 3 + 1);
  std::int32_t* loops = loops_.data();
  std::int32_t* seen = edgeSeen_.data();
  const std::int32_t* edgeTo = edgeTo_.data();
  const std::int32_t* edgeStart = edgeStart_.data();
  const std::int32_t* degrees = degree_.data();
  // Each face is measured as it is walked: areas by fans of triangles from its first
  // vertex; volume and centroid by tetrahedra from a vertex of the cell (not the origin,
  // which may lie outside a Laguerre cell and costs precision).
  const double *x = x_.data(), *y = y_.data(), *z = z_.data();
  const double ox = x[0], oy = y[0], oz = z[0];
  double vol = 0, cx = 0, cy = 0, cz = 0;
  std::size_t used = 0, faces = 0;
  for (std::size_t v0 = 0; v0 < vertexCount_; ++v0) {
    const std::int32_t v = static_cast<std::int32_t>(v0);
    for (std::int32_t k = 0; k < degrees[v]; ++k) {
      if (seen[edgeStart[v] + k] == stamp) continue;
      const std::size_t begin = used;
      const std::int32_t i0 = v;
      const double ax = x[i0] - ox, ay = y[i0] - oy, az = z[i0] - oz;
      double sx = 0, sy = 0, sz = 0, fvol = 0, fx = 0, fy = 0, fz = 0;
      std::int32_t i1 = -1;
      std::int32_t cur = v, at = k;
      bool ok = true;
      do {
        seen[edgeStart[cur] + at] = stamp;
        if (used == directed) {
          ok = false;
          break;
        }
        loops[used++] = cur;
        if (i1 >= 0) {
          const std::int32_t i2 = cur;
          const double ux = x[i1] - x[i0], uy = y[i1] - y[i0], uz = z[i1] - z[i0];
          const double vx = x[i2] - x[i0], vy = y[i2] - y[i0], vz = z[i2] - z[i0];
          sx += uy * vz - uz * vy;
          sy += uz * vx - ux * vz;
          sz += ux * vy - uy * vx;
          const double bx = x[i1] - ox, by = y[i1] - oy, bz = z[i1] - oz;
          const double qx = x[i2] - ox, qy = y[i2] - oy, qz = z[i2] - oz;
          const double t = ax * (by * qz - bz * qy) + ay * (bz * qx - bx * qz) + az * (bx * qy - by * qx);
          fvol += t;
          fx += t * (ax + bx + qx);
          fy += t * (ay + by + qy);
          fz += t * (az + bz + qz);
        }
        if (cur != i0) i1 = cur;
        const std::int32_t next = edgeTo[edgeStart[cur] + at];
        const std::int32_t* list = edgeTo + edgeStart[next];
        const std::int32_t degree = degrees[next];
        std::int32_t back = -1;
        for (std::int32_t j = 0; j < degree; ++j)
          if (list[j] == cur) {
            back = j;
            break;
          }
        if (back < 0) {
          ok = false;
          break;
        }
        at = back == 0 ? degree - 1 : back - 1;
        cur = next;
      } while (cur != v || at != k);
      if (!ok || used - begin < 3 || faces == faceStart_.size()) {
        ++defects_;
        used = begin;
        continue;
      }
      faceStart_[faces] = static_cast<std::int32_t>(begin);
      faceSize_[faces] = static_cast<std::int32_t>(used - begin);
      faceId_[faces] = edgeFace_[std::size_t(edgeStart[v] + k)];
      faceArea_[faces] = 0.5 * std::sqrt(sx * sx + sy * sy + sz * sz);
      ++faces;
      vol += fvol;
      cx += fx;
      cy += fy;
      cz += fz;
    }
  }
  faceCount_ = faces;
  volume_ = vol / 6.0;
  if (vol > 0) {
    centroid_[0] = ox + cx / (4.0 * vol);
    centroid_[1] = oy + cy / (4.0 * vol);
    centroid_[2] = oz + cz / (4.0 * vol);
  } else {
    centroid_[0] = ox;
    centroid_[1] = oy;
    centroid_[2] = oz;
  }
}

std::size_t ConvexCell::memoryBytes() const {
  auto bytes = [](const auto& v) { return v.capacity() * sizeof(v[0]); };
  return sizeof(*this) + bytes(x_) + bytes(y_) + bytes(z_) + bytes(edgeStart_) + bytes(degree_) + bytes(edgeCapacity_) +
         bytes(edgeTo_) + bytes(edgeFace_) + bytes(faceNeighbor_) + bytes(faceImage_) + bytes(distance_) +
         bytes(side_) + bytes(outside_) + bytes(faceMark_) + bytes(vertexMark_) + bytes(localIndex_) +
         bytes(affected_) + bytes(affectedStart_) + bytes(oldLoops_) + bytes(oldStart_) + bytes(newLoops_) +
         bytes(newStart_) + bytes(newFace_) + bytes(cuts_) + bytes(crossings_) + bytes(crossingSlot_) +
         bytes(crossingNext_) + bytes(faceScratch_) + bytes(runStarts_) + bytes(capSources_) + bytes(capNext_) +
         bytes(capSeen_) + bytes(rebuild_) + bytes(wedges_) + bytes(wedgesSorted_) + bytes(wedgeCount_) +
         bytes(chainTo_) + bytes(chainFace_) + bytes(loops_) + bytes(faceStart_) + bytes(faceSize_) + bytes(faceId_) +
         bytes(edgeSeen_) + bytes(faceArea_);
}

}  // namespace peclet::voro
