#pragma once
/// @file convex_cell.hpp
/// One cell under construction: a convex polyhedron, in coordinates relative to its
/// generating point, cut down by one half-space per neighbour.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace peclet::voro {

/// A convex polyhedron stored as a vertex graph: each vertex lists its neighbours
/// counter-clockwise seen from outside the cell, and each entry also names the face that
/// lies between that edge and the next one. Vertices may have any degree, which keeps
/// lattice cells (where four or more planes meet at a point) exact.
///
/// A cut only visits the faces that hold a vertex above the plane and the vertices on
/// them; the rest of the graph is left as it is. Face loops, areas, volume and centroid
/// are produced once, by finish(), after the last cut.
///
/// All scratch lives in the object and only grows, so one instance per thread makes the
/// clipping loop allocation-free once warm.
class ConvexCell {
 public:
  /// What one cut did.
  enum class Clip { kUnchanged, kCut, kEmptied };

  /// Starts from the box [lo, hi] (relative coordinates); face k of the box (x-min, x-max,
  /// y-min, y-max, z-min, z-max) is labelled faceNeighbor[k] / faceImage[k].
  void resetToBox(const double lo[3], const double hi[3], const std::int32_t faceNeighbor[6],
                  const std::int32_t faceImage[6]);

  /// Keeps the part where n . x <= offset. Vertices within `tolerance` of the plane (in units
  /// of n . x) count as on it: a plane that only touches the cell changes nothing, and a
  /// vertex on the plane is reused rather than duplicated.
  Clip clip(double nx, double ny, double nz, double offset, double tolerance, std::int32_t neighbor,
            std::int32_t image);

  /// Largest squared distance of a vertex from the origin (the generating point).
  double maxRadiusSquared() const { return maxRadius2_; }
  bool empty() const { return vertexCount_ == 0; }

  /// Extracts the face loops and measures faces, volume and centroid. Call after the last
  /// clip() and before any accessor below.
  void finish();

  std::size_t vertexCount() const { return vertexCount_; }
  /// Position of vertex v (relative coordinates).
  void vertex(std::size_t v, double out[3]) const {
    out[0] = x_[v];
    out[1] = y_[v];
    out[2] = z_[v];
  }
  std::size_t faceCount() const { return faceCount_; }
  std::int32_t faceNeighbor(std::size_t f) const { return faceNeighbor_[faceId_[f]]; }
  std::int32_t faceImage(std::size_t f) const { return faceImage_[faceId_[f]]; }
  std::int32_t faceSize(std::size_t f) const { return faceSize_[f]; }
  /// Face f's vertices, counter-clockwise seen from outside.
  const std::int32_t* faceLoop(std::size_t f) const { return loops_.data() + faceStart_[f]; }
  /// Area of face f.
  double faceArea(std::size_t f) const { return faceArea_[f]; }
  /// Volume and centroid (relative coordinates); centroid is zero for an empty cell.
  void measure(double& volume, double centroid[3]) const {
    volume = volume_;
    for (int a = 0; a < 3; ++a) centroid[a] = centroid_[a];
  }

  /// Number of cuts whose face loops could not be closed consistently (rounding in
  /// near-degenerate configurations); zero in every test we run.
  std::size_t topologyDefects() const { return defects_; }
  void clearDefects() { defects_ = 0; }

  /// Bytes held by the tables and scratch (capacity).
  std::size_t memoryBytes() const;

 private:
  struct Wedge {
    std::int32_t owner, first, second, face;
  };
  struct CutEdge {
    std::int32_t inside, outside, index;
  };

  std::int32_t cutVertex(std::int32_t inside, std::int32_t outside);
  void addCapEdge(std::int32_t from, std::int32_t to);
  std::int32_t newVertex();
  void reserveVertices(std::size_t n);
  void reserveEdges(std::size_t n);
  Clip clipGeneric(std::int32_t neighbor, std::int32_t image);
  bool clipSimple(std::int32_t neighbor, std::int32_t image, double keptRadius2);
  bool traceFace(std::int32_t v, std::int32_t k, std::vector<std::int32_t>& out);
  void setEdges(std::int32_t v, const std::int32_t* nb, const std::int32_t* face, std::int32_t degree);
  void removeVertex(std::int32_t v);
  void updateRadius();

  std::size_t vertexCount_ = 0;    // live vertices are [0, vertexCount_)
  std::size_t totalVertices_ = 0;  // including the cut vertices of the current clip
  std::size_t headerCount_ = 0;    // vertex slots that own a segment of the edge pool
  double maxRadius2_ = 0;
  std::size_t defects_ = 0;

  // Vertex table (structure of arrays, so the plane test vectorises).
  std::vector<double> x_, y_, z_;
  // Edges of vertex v: pool entries [edgeStart_[v], edgeStart_[v] + degree_[v]); the
  // capacity is edgeCapacity_[v]. edgeFace_ of entry k is the face between edge k and k + 1.
  std::vector<std::int32_t> edgeStart_, degree_, edgeCapacity_;
  std::vector<std::int32_t> edgeTo_, edgeFace_;
  std::size_t poolEnd_ = 0;
  // Face labels by face id (ids are never reused within one cell).
  std::vector<std::int32_t> faceNeighbor_, faceImage_;

  // Per-clip scratch.
  std::vector<double> distance_;
  std::vector<signed char> side_;
  std::vector<std::int32_t> outside_;
  std::vector<std::int32_t> faceMark_, vertexMark_, localIndex_;
  std::vector<std::int32_t> affected_, affectedStart_;
  std::vector<std::int32_t> oldLoops_, oldStart_;
  std::vector<std::int32_t> newLoops_, newStart_, newFace_;
  std::vector<CutEdge> cuts_;
  // An edge from a vertex below the plane to one above, in a simple cut.
  struct Crossing {
    std::int32_t outside, inside, outsideFace, outsideSlot, insideFace, insideSlot, vertex;
    double x, y, z;
  };
  std::vector<Crossing> crossings_;
  std::vector<std::int32_t> crossingSlot_, crossingNext_;
  std::size_t outsideCount_ = 0;
  std::vector<std::int32_t> faceScratch_, runStarts_, capSources_, capNext_, capSeen_;
  std::vector<std::int32_t> rebuild_;
  std::vector<Wedge> wedges_, wedgesSorted_;
  std::vector<std::int32_t> wedgeCount_, chainTo_, chainFace_;
  std::int32_t stamp_ = 0;

  // Output of finish().
  std::vector<std::int32_t> loops_, faceStart_, faceSize_, faceId_, edgeSeen_;
  std::vector<double> faceArea_;
  std::size_t faceCount_ = 0;
  double volume_ = 0, centroid_[3] = {0, 0, 0};
};

/// Packs a periodic image shift (each component in [-512, 511]) into one integer.
inline std::int32_t packImage(int sx, int sy, int sz) { return ((sx + 512) << 20) | ((sy + 512) << 10) | (sz + 512); }
/// The image shift pointing the other way.
inline std::int32_t oppositeImage(std::int32_t image) {
  const int sx = ((image >> 20) & 1023) - 512, sy = ((image >> 10) & 1023) - 512, sz = (image & 1023) - 512;
  return packImage(-sx, -sy, -sz);
}
/// Unpacks an image shift.
inline void unpackImage(std::int32_t image, int shift[3]) {
  shift[0] = ((image >> 20) & 1023) - 512;
  shift[1] = ((image >> 10) & 1023) - 512;
  shift[2] = (image & 1023) - 512;
}
constexpr std::int32_t kNoImage = (512 << 20) | (512 << 10) | 512;

}  // namespace peclet::voro
