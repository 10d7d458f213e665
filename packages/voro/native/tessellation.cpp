#include "tessellation.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "convex_cell.hpp"
#include "spatial_grid.hpp"

namespace peclet::voro {
namespace {

// Cells per unit of work handed to the parallel-for; small enough to balance two workers on
// 10^4 points, large enough that scheduling costs nothing next to ~10 us per cell.
constexpr std::size_t kChunkCells = 128;
// Average points per grid bin: fewer bins to scan against fewer points per bin.
constexpr double kPointsPerBin = 5.0;

int floorDiv(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// Faces of one chunk of cells, in cell order, before they are gathered into the CSR arrays.
// A plane to a nearby point, queued to be cut in order of distance.
struct NearPlane {
  double key, qx, qy, qz, q2, c;
  std::int32_t neighbor, image;
};

struct ChunkFaces {
  std::vector<std::int32_t> faceCount;  // per cell of the chunk
  std::vector<std::int32_t> neighbor, image;
  std::vector<double> area;
  std::size_t defects = 0, empty = 0, removed = 0;
  double largestRemoved = 0;
};

}  // namespace

struct Tessellation::State {
  Box box;
  std::size_t count = 0;
  bool hasRadii = false;
  bool valid = false;
  double length[3] = {1, 1, 1};
  double tolerance = 0;  // distance below which a vertex counts as on a plane

  std::vector<double> given;    // points as passed in (for the output frame)
  std::vector<double> wrapped;  // points wrapped into the box (for the geometry)
  std::vector<double> radii;
  std::vector<std::uint32_t> validationOrder;
  SpatialGrid grid;

  std::vector<std::unique_ptr<ConvexCell>> cells;  // one per worker
  std::vector<std::vector<NearPlane>> nearPlanes;  // one per worker
  std::vector<ChunkFaces> chunks;

  std::vector<double> volumes, centroids, areas;
  std::vector<std::int64_t> offsets;
  std::vector<std::int32_t> neighbors, images;
  std::vector<unsigned char> keep;
  TessellationStats stats;

  void buildCell(std::size_t i, ConvexCell& cell, std::vector<NearPlane>& near) const;
  Outcome run(const double* points, const Execution& execution);
  void forEach(const Execution& execution, std::size_t count, const ParallelBody& body) const;
};

// Builds the cell of point i: start from the box, then cut by neighbours nearest bin first
// until no unvisited bin can hold a point whose plane reaches the cell.
void Tessellation::State::buildCell(std::size_t i, ConvexCell& cell,
                                    std::vector<NearPlane>& near) const {
  const double* p = &wrapped[3 * i];
  double lo[3], hi[3];
  std::int32_t faceNeighbor[6], faceImage[6];
  const std::int32_t self = static_cast<std::int32_t>(i);
  for (int a = 0; a < 3; ++a) {
    if (box.periodic[a]) {
      // The cell lies within half a period of its point: the planes to its own images there
      // bound it. Label those faces as such; they survive only in tiny boxes.
      lo[a] = -0.5 * length[a];
      hi[a] = 0.5 * length[a];
      int minus[3] = {0, 0, 0}, plus[3] = {0, 0, 0};
      minus[a] = -1;
      plus[a] = 1;
      faceNeighbor[2 * a] = self;
      faceNeighbor[2 * a + 1] = self;
      faceImage[2 * a] = packImage(minus[0], minus[1], minus[2]);
      faceImage[2 * a + 1] = packImage(plus[0], plus[1], plus[2]);
    } else {
      lo[a] = box.min[a] - p[a];
      hi[a] = box.max[a] - p[a];
      faceNeighbor[2 * a] = -(2 * a + 1);
      faceNeighbor[2 * a + 1] = -(2 * a + 2);
      faceImage[2 * a] = faceImage[2 * a + 1] = kNoImage;
    }
  }
  cell.resetToBox(lo, hi, faceNeighbor, faceImage);

  const double ri = hasRadii ? radii[i] : 0.0;
  const double ri2 = ri * ri;
  // A plane to a point at distance d is at (d^2 + ri^2 - rj^2) / (2d) from p; with
  // rj <= maxRadius it cannot reach a cell of radius R once d^2 - 2Rd + a >= 0.
  const double gridMax = grid.maxRadius();
  const double a = ri2 - gridMax * gridMax;
  double r2 = cell.maxRadiusSquared();
  auto stopDistance = [&](double radius2) {
    const double R = std::sqrt(radius2);
    return R + std::sqrt(std::max(0.0, radius2 - a));
  };
  double stop = stopDistance(r2);
  bool emptied = false;

  const int bx = grid.binOf(p[0], 0), by = grid.binOf(p[1], 1), bz = grid.binOf(p[2], 2);
  const int nb[3] = {grid.bins(0), grid.bins(1), grid.bins(2)};
  const double h[3] = {grid.binSize(0), grid.binSize(1), grid.binSize(2)};

  // Clips by every point of a bin (or, with `collect`, queues them in `near`). Returns false
  // once the cell is empty.
  bool collect = false;
  auto visit = [&](int dx, int dy, int dz) -> bool {
    int t[3] = {bx + dx, by + dy, bz + dz}, s[3] = {0, 0, 0};
    double gap2 = 0;
    for (int k = 0; k < 3; ++k) {
      if (t[k] < 0 || t[k] >= nb[k]) {
        if (!box.periodic[k]) return true;
        s[k] = floorDiv(t[k], nb[k]);
        t[k] -= s[k] * nb[k];
      }
      // Distance from p to the bin's slab on this axis, in the image's frame.
      const double binLo = box.min[k] + t[k] * h[k] + s[k] * length[k] - p[k];
      const double binHi = binLo + h[k];
      const double g = binLo > 0 ? binLo : (binHi < 0 ? -binHi : 0.0);
      gap2 += g * g;
    }
    if (gap2 >= stop * stop) return true;
    const bool shifted = s[0] != 0 || s[1] != 0 || s[2] != 0;
    const double ox = s[0] * length[0] - p[0], oy = s[1] * length[1] - p[1],
                 oz = s[2] * length[2] - p[2];
    const std::size_t b = grid.binIndex(t[0], t[1], t[2]);
    const std::size_t end = grid.binStart(b + 1);
    const std::int32_t image = shifted ? packImage(s[0], s[1], s[2]) : kNoImage;
    for (std::size_t e = grid.binStart(b); e < end; ++e) {
      const std::int32_t j = grid.entryPoint(e);
      if (j == self && !shifted) continue;
      const double* q = grid.entryPosition(e);
      const double qx = q[0] + ox, qy = q[1] + oy, qz = q[2] + oz;
      const double q2 = qx * qx + qy * qy + qz * qz;
      const double rj = hasRadii ? grid.entryRadius(e) : 0.0;
      const double c = 0.5 * (q2 + ri2 - rj * rj);
      if (collect) {
        // Signed squared distance of the plane from p: sorts planes nearest first.
        near.push_back({c * std::fabs(c) / q2, qx, qy, qz, q2, c, j, image});
        continue;
      }
      // The plane is at distance c / |q|; it misses a cell whose vertices are all within R.
      if (c > 0 && c * c >= q2 * r2) continue;
      const ConvexCell::Clip result =
          cell.clip(qx, qy, qz, c, tolerance * std::sqrt(q2), j, image);
      if (result == ConvexCell::Clip::kCut) {
        r2 = cell.maxRadiusSquared();
        stop = stopDistance(r2);
      } else if (result == ConvexCell::Clip::kEmptied) {
        return false;
      }
    }
    return true;
  };

  // The bins touching p's bin hold the planes most likely to bound the cell. Cutting by them
  // nearest first wastes fewer cuts on planes that later ones remove, which pays for the sort.
  const std::vector<SpatialGrid::Offset>& shells = grid.shells();
  std::size_t next = 0;
  near.clear();
  collect = true;
  for (; next < shells.size() && shells[next].lowerBound == 0; ++next)
    visit(shells[next].dx, shells[next].dy, shells[next].dz);
  collect = false;
  std::sort(near.begin(), near.end(), [](const NearPlane& x, const NearPlane& y) {
    if (x.key != y.key) return x.key < y.key;
    if (x.neighbor != y.neighbor) return x.neighbor < y.neighbor;
    return x.image < y.image;
  });
  for (const NearPlane& np : near) {
    if (np.c > 0 && np.c * np.c >= np.q2 * r2) continue;
    const ConvexCell::Clip result =
        cell.clip(np.qx, np.qy, np.qz, np.c, tolerance * std::sqrt(np.q2), np.neighbor, np.image);
    if (result == ConvexCell::Clip::kCut) {
      r2 = cell.maxRadiusSquared();
      stop = stopDistance(r2);
    } else if (result == ConvexCell::Clip::kEmptied) {
      emptied = true;
      break;
    }
  }
  for (; !emptied && next < shells.size(); ++next) {
    const SpatialGrid::Offset& o = shells[next];
    if (o.lowerBound >= stop) break;
    if (!visit(o.dx, o.dy, o.dz)) {
      emptied = true;
      break;
    }
  }
  // Beyond the precomputed offsets (sparse regions, large radii, tiny periodic boxes):
  // search cube layers outward until no bin of a layer can matter.
  for (int k = grid.shellReach() + 1; !emptied; ++k) {
    double hmin = -1;
    for (int ax = 0; ax < 3; ++ax)
      if (box.periodic[ax] || k <= nb[ax] - 1) hmin = hmin < 0 ? h[ax] : std::min(hmin, h[ax]);
    if (hmin < 0 || (k - 1) * hmin >= stop) break;
    for (int dz = -k; dz <= k && !emptied; ++dz)
      for (int dy = -k; dy <= k && !emptied; ++dy)
        for (int dx = -k; dx <= k; ++dx) {
          if (std::max(std::abs(dx), std::max(std::abs(dy), std::abs(dz))) != k) continue;
          if (!visit(dx, dy, dz)) {
            emptied = true;
            break;
          }
        }
  }
}

void Tessellation::State::forEach(const Execution& execution, std::size_t n,
                                  const ParallelBody& body) const {
  if (n == 0) return;
  if (execution.parallelFor && execution.workers > 1)
    execution.parallelFor(n, body);
  else
    body(0, n, 0);
}

Outcome Tessellation::State::run(const double* points, const Execution& execution) {
  valid = false;
  Outcome outcome;
  const std::size_t n3 = 3 * count;
  given.assign(points, points + n3);
  for (int a = 0; a < 3; ++a) length[a] = box.max[a] - box.min[a];
  const double spacing = std::cbrt(length[0] * length[1] * length[2] / double(count));
  double far = 0;
  for (int a = 0; a < 3; ++a)
    far = std::max(far, std::max(std::abs(box.min[a]), std::abs(box.max[a])));
  // Rounding of relative positions scales with the coordinates' magnitude; geometry within
  // a cell scales with the spacing.
  tolerance = 1e-11 * spacing + 1e-14 * far;

  grid.build(wrapped.data(), hasRadii ? radii.data() : nullptr, count, box, kPointsPerBin);

  const unsigned workers = std::max(1u, execution.workers);
  while (cells.size() < workers) cells.push_back(std::make_unique<ConvexCell>());
  if (nearPlanes.size() < workers) nearPlanes.resize(workers);
  const std::size_t chunkCount = (count + kChunkCells - 1) / kChunkCells;
  if (chunks.size() < chunkCount) chunks.resize(chunkCount);
  volumes.resize(count);
  centroids.resize(n3);

  std::atomic<bool> cancelled{false};
  const std::atomic<bool>* cancel = execution.cancel;
  forEach(execution, chunkCount, [&](std::size_t begin, std::size_t end, unsigned worker) {
    if (worker >= cells.size()) throw std::out_of_range("parallelFor worker index >= workers");
    ConvexCell& cell = *cells[worker];
    std::vector<NearPlane>& near = nearPlanes[worker];
    for (std::size_t c = begin; c < end; ++c) {
      if (cancel && cancel->load(std::memory_order_relaxed)) {
        cancelled.store(true, std::memory_order_relaxed);
        return;
      }
      ChunkFaces& out = chunks[c];
      out.faceCount.clear();
      out.neighbor.clear();
      out.image.clear();
      out.area.clear();
      out.empty = 0;
      cell.clearDefects();
      const std::size_t first = c * kChunkCells, last = std::min(count, first + kChunkCells);
      for (std::size_t i = first; i < last; ++i) {
        buildCell(i, cell, near);
        cell.finish();
        double volume, centroid[3];
        cell.measure(volume, centroid);
        volumes[i] = volume;
        for (int a = 0; a < 3; ++a) centroids[3 * i + a] = given[3 * i + a] + centroid[a];
        out.empty += cell.empty();
        const std::size_t faces = cell.faceCount();
        out.faceCount.push_back(static_cast<std::int32_t>(faces));
        for (std::size_t f = 0; f < faces; ++f) {
          out.neighbor.push_back(cell.faceNeighbor(f));
          out.image.push_back(cell.faceImage(f));
          out.area.push_back(cell.faceArea(f));
        }
      }
      out.defects = cell.topologyDefects();
    }
  });
  if (cancelled.load()) {
    outcome.status = Status::kCancelled;
    return outcome;
  }

  // Gather the chunks into CSR arrays.
  offsets.resize(count + 1);
  offsets[0] = 0;
  for (std::size_t c = 0; c < chunkCount; ++c) {
    const std::size_t first = c * kChunkCells;
    const ChunkFaces& ch = chunks[c];
    for (std::size_t k = 0; k < ch.faceCount.size(); ++k)
      offsets[first + k + 1] = offsets[first + k] + ch.faceCount[k];
  }
  const std::size_t faceTotal = static_cast<std::size_t>(offsets[count]);
  neighbors.resize(faceTotal);
  images.resize(faceTotal);
  areas.resize(faceTotal);
  keep.resize(faceTotal);
  forEach(execution, chunkCount, [&](std::size_t begin, std::size_t end, unsigned) {
    for (std::size_t c = begin; c < end; ++c) {
      const ChunkFaces& ch = chunks[c];
      const std::size_t at = static_cast<std::size_t>(offsets[c * kChunkCells]);
      std::copy(ch.neighbor.begin(), ch.neighbor.end(), neighbors.begin() + at);
      std::copy(ch.image.begin(), ch.image.end(), images.begin() + at);
      std::copy(ch.area.begin(), ch.area.end(), areas.begin() + at);
    }
  });

  // Make the face lists symmetric. Each cell is built on its own, so a plane that only
  // grazes a cell within rounding (a face of area ~tolerance^2) can be cut on one side and
  // judged "touching" on the other. Such one-sided faces are removed; matched pairs get the
  // mean of their two areas so both sides report the same number bit for bit. Each pair is
  // written only by the task of its lower index, so there are no races.
  forEach(execution, chunkCount, [&](std::size_t begin, std::size_t end, unsigned) {
    for (std::size_t c = begin; c < end; ++c) {
      ChunkFaces& ch = chunks[c];
      ch.removed = 0;
      ch.largestRemoved = 0;
      const std::size_t first = c * kChunkCells, last = std::min(count, first + kChunkCells);
      for (std::size_t i = first; i < last; ++i) {
        for (std::int64_t k = offsets[i]; k < offsets[i + 1]; ++k) {
          const std::int32_t j = neighbors[k];
          keep[k] = 1;
          if (j < 0) continue;
          const std::int32_t want = oppositeImage(images[k]);
          std::int64_t partner = -1;
          for (std::int64_t m = offsets[j]; m < offsets[j + 1]; ++m)
            if (neighbors[m] == static_cast<std::int32_t>(i) && images[m] == want) {
              partner = m;
              break;
            }
          if (partner < 0) {
            keep[k] = 0;
            ++ch.removed;
            ch.largestRemoved = std::max(ch.largestRemoved, areas[k]);
          } else if (static_cast<std::size_t>(j) > i || (static_cast<std::size_t>(j) == i && partner > k)) {
            const double mean = 0.5 * (areas[k] + areas[partner]);
            areas[k] = mean;
            areas[partner] = mean;
          }
        }
      }
    }
  });

  stats = TessellationStats{};
  for (std::size_t c = 0; c < chunkCount; ++c) {
    stats.oneSidedFacesRemoved += chunks[c].removed;
    stats.largestRemovedFaceArea = std::max(stats.largestRemovedFaceArea, chunks[c].largestRemoved);
    stats.topologyDefects += chunks[c].defects;
    stats.emptyCells += chunks[c].empty;
  }
  if (stats.oneSidedFacesRemoved > 0) {
    std::size_t w = 0;
    std::int64_t begin = 0;
    for (std::size_t i = 0; i < count; ++i) {
      const std::int64_t end = offsets[i + 1];
      for (std::int64_t k = begin; k < end; ++k) {
        if (!keep[k]) continue;
        neighbors[w] = neighbors[k];
        images[w] = images[k];
        areas[w] = areas[k];
        ++w;
      }
      begin = end;
      offsets[i + 1] = static_cast<std::int64_t>(w);
    }
    neighbors.resize(w);
    images.resize(w);
    areas.resize(w);
  }
  valid = true;
  return outcome;
}

Tessellation::Tessellation() : state_(std::make_unique<State>()) {}
Tessellation::~Tessellation() = default;
Tessellation::Tessellation(Tessellation&&) noexcept = default;
Tessellation& Tessellation::operator=(Tessellation&&) noexcept = default;

Outcome Tessellation::compute(const double* points, std::size_t coordinateCount, const Box& box,
                              const double* radii, std::size_t radiusCount,
                              const Execution& execution) {
  State& s = *state_;
  s.valid = false;
  Outcome outcome;
  outcome.error = validateInput(points, coordinateCount, box, radii, radiusCount, s.wrapped,
                                s.validationOrder);
  if (outcome.error) {
    outcome.status = Status::kInvalid;
    s.count = 0;
    return outcome;
  }
  s.box = box;
  s.count = coordinateCount / 3;
  s.hasRadii = radii != nullptr;
  if (s.hasRadii) s.radii.assign(radii, radii + s.count); else s.radii.clear();
  return s.run(points, execution);
}

Outcome Tessellation::update(const double* points, const Execution& execution) {
  State& s = *state_;
  Outcome outcome;
  if (s.count == 0) {
    outcome.status = Status::kInvalid;
    outcome.error.kind = ErrorKind::kRange;
    outcome.error.argument = "points";
    outcome.error.message = "update() needs a successful compute() first";
    return outcome;
  }
  s.valid = false;
  outcome.error = validateInput(points, 3 * s.count, s.box, s.hasRadii ? s.radii.data() : nullptr,
                                s.count, s.wrapped, s.validationOrder);
  if (outcome.error) {
    outcome.status = Status::kInvalid;
    return outcome;
  }
  return s.run(points, execution);
}

std::size_t Tessellation::pointCount() const { return state_->valid ? state_->count : 0; }
const std::vector<double>& Tessellation::cellVolumes() const { return state_->volumes; }
const std::vector<double>& Tessellation::cellCentroids() const { return state_->centroids; }
const std::vector<std::int64_t>& Tessellation::neighborOffsets() const { return state_->offsets; }
const std::vector<std::int32_t>& Tessellation::neighbors() const { return state_->neighbors; }
const std::vector<double>& Tessellation::faceAreas() const { return state_->areas; }
const std::vector<std::int32_t>& Tessellation::neighborImages() const { return state_->images; }
const TessellationStats& Tessellation::stats() const { return state_->stats; }
std::size_t Tessellation::memoryBytes() const {
  const State& s = *state_;
  auto bytes = [](const auto& v) { return v.capacity() * sizeof(v[0]); };
  std::size_t total = sizeof(State) + bytes(s.given) + bytes(s.wrapped) + bytes(s.radii) +
                      bytes(s.validationOrder) + s.grid.memoryBytes() + bytes(s.volumes) +
                      bytes(s.centroids) + bytes(s.areas) + bytes(s.offsets) +
                      bytes(s.neighbors) + bytes(s.images) + bytes(s.keep);
  for (const ChunkFaces& c : s.chunks)
    total += sizeof(c) + bytes(c.faceCount) + bytes(c.neighbor) + bytes(c.image) + bytes(c.area);
  for (const auto& c : s.cells) total += c->memoryBytes();
  for (const auto& v : s.nearPlanes) total += bytes(v);
  return total;
}

void Tessellation::imageShift(std::int32_t packed, int shift[3]) { unpackImage(packed, shift); }

bool Tessellation::cell(std::size_t i, CellGeometry& out) const {
  const State& s = *state_;
  out.vertices.clear();
  out.faceOffsets.assign(1, 0);
  out.faceVertices.clear();
  out.faceNeighbors.clear();
  if (!s.valid || i >= s.count) return false;
  ConvexCell cell;
  std::vector<NearPlane> near;
  s.buildCell(i, cell, near);
  cell.finish();
  const double* p = &s.given[3 * i];
  out.vertices.resize(3 * cell.vertexCount());
  for (std::size_t k = 0; k < cell.vertexCount(); ++k) {
    double v[3];
    cell.vertex(k, v);
    for (int a = 0; a < 3; ++a) out.vertices[3 * k + a] = p[a] + v[a];
  }
  // Same construction as compute(), so faces come in the same order; skip the one-sided
  // faces the symmetry pass removed.
  std::int64_t k = s.offsets[i];
  const std::int64_t end = s.offsets[i + 1];
  for (std::size_t f = 0; f < cell.faceCount(); ++f) {
    if (k >= end || s.neighbors[k] != cell.faceNeighbor(f) || s.images[k] != cell.faceImage(f))
      continue;
    ++k;
    const std::int32_t* loop = cell.faceLoop(f);
    out.faceVertices.insert(out.faceVertices.end(), loop, loop + cell.faceSize(f));
    out.faceOffsets.push_back(static_cast<std::int32_t>(out.faceVertices.size()));
    out.faceNeighbors.push_back(cell.faceNeighbor(f));
  }
  return true;
}

}  // namespace peclet::voro
