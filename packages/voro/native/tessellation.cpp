#include "tessellation.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
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

// A plane to a nearby point, queued to be cut in order of distance.
struct NearPlane {
  double key, qx, qy, qz, q2, c;
  std::int32_t neighbor, image;
};

// Cells are built in grid order (neighbouring cells share bins, so the points they read
// are already cached); a chunk is kChunkCells consecutive grid entries. Aligned so that two
// workers filling neighbouring chunks never write to one cache line.
struct alignas(64) ChunkFaces {
  std::vector<std::int32_t> faceStart;  // per cell of the chunk, + 1: local face offsets
  std::vector<std::int32_t> neighbor, image;
  std::vector<double> area;
  std::vector<unsigned char> keep;
  std::vector<std::int32_t> kept;  // per cell: faces kept by the symmetry pass
  std::size_t defects = 0, empty = 0, removed = 0;
  double largestRemoved = 0;
};

// Bin offsets per axis tabulated per cell.
constexpr int kTableReach = 2;

// One axis of a bin offset seen from a cell: the wrapped bin, the periodic image it lies in,
// and the squared distance from the cell's point to that bin's slab (infinite past a wall).
struct AxisStep {
  int bin, shift;
  double gap2;
};

// Scratch of one worker, on cache lines of its own.
struct alignas(64) WorkerScratch {
  ConvexCell cell;
  std::vector<NearPlane> near;
  std::vector<std::uint64_t> order;  // near planes by distance: key bits, then index
  // Per axis and bin offset in [-reach, reach], see buildCell.
  AxisStep axisSteps[3 * (2 * kTableReach + 1)];
};

// Orders doubles as unsigned integers (float precision is enough to order planes).
inline std::uint32_t sortableKey(double value) {
  float f = static_cast<float>(value);
  std::uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
}

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

  std::vector<std::unique_ptr<WorkerScratch>> workers;  // one per worker
  std::vector<ChunkFaces> chunks;

  std::vector<double> volumes, centroids, areas;
  std::vector<std::int64_t> offsets;
  std::vector<std::int32_t> neighbors, images;
  TessellationStats stats;

  void buildCell(std::size_t i, WorkerScratch& scratch) const;
  Outcome run(const double* points, const Execution& execution);
  void forEach(const Execution& execution, std::size_t count, const ParallelBody& body) const;
};

// Builds the cell of point i: start from the box, then cut by neighbours nearest bin first
// until no unvisited bin can hold a point whose plane reaches the cell.
void Tessellation::State::buildCell(std::size_t i, WorkerScratch& scratch) const {
  ConvexCell& cell = scratch.cell;
  std::vector<NearPlane>& near = scratch.near;
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

  // Per axis and bin offset, tabulated once per cell for the precomputed search order.
  const int pb[3] = {bx, by, bz};
  auto axisStep = [&](int k, int d) {
    AxisStep a{pb[k] + d, 0, 0.0};
    if (a.bin < 0 || a.bin >= nb[k]) {
      if (!box.periodic[k]) {
        a.gap2 = HUGE_VAL;
        return a;
      }
      a.shift = floorDiv(a.bin, nb[k]);
      a.bin -= a.shift * nb[k];
    }
    const double binLo = box.min[k] + a.bin * h[k] + a.shift * length[k] - p[k];
    const double binHi = binLo + h[k];
    const double g = binLo > 0 ? binLo : (binHi < 0 ? -binHi : 0.0);
    a.gap2 = g * g;
    return a;
  };
  // Cells rarely look past two bins; farther steps are computed when needed.
  const int reach = std::min(grid.shellReach(), kTableReach);
  AxisStep* table = scratch.axisSteps;
  const int width = 2 * reach + 1;
  for (int k = 0; k < 3; ++k)
    for (int d = -reach; d <= reach; ++d) table[k * width + d + reach] = axisStep(k, d);

  // Clips by every point of a bin (or, with `collect`, queues them in `near`). Returns false
  // once the cell is empty.
  bool collect = false;
  std::size_t nearCount = 0;
  auto visit = [&](int dx, int dy, int dz) -> bool {
    AxisStep ax, ay, az;
    if (dx >= -reach && dx <= reach && dy >= -reach && dy <= reach && dz >= -reach && dz <= reach) {
      ax = table[dx + reach];
      ay = table[width + dy + reach];
      az = table[2 * width + dz + reach];
    } else {
      ax = axisStep(0, dx);
      ay = axisStep(1, dy);
      az = axisStep(2, dz);
    }
    const double gap2 = ax.gap2 + ay.gap2 + az.gap2;
    if (gap2 >= stop * stop) return true;
    const bool shifted = ax.shift != 0 || ay.shift != 0 || az.shift != 0;
    const double ox = ax.shift * length[0] - p[0], oy = ay.shift * length[1] - p[1], oz = az.shift * length[2] - p[2];
    const std::size_t b = grid.binIndex(ax.bin, ay.bin, az.bin);
    const std::size_t begin = grid.binStart(b), end = grid.binStart(b + 1);
    const std::int32_t image = shifted ? packImage(ax.shift, ay.shift, az.shift) : kNoImage;
    if (collect && near.size() < nearCount + (end - begin)) near.resize(2 * (nearCount + (end - begin)));
    for (std::size_t e = begin; e < end; ++e) {
      const std::int32_t j = grid.entryPoint(e);
      if (j == self && !shifted) continue;
      const double* q = grid.entryPosition(e);
      const double qx = q[0] + ox, qy = q[1] + oy, qz = q[2] + oz;
      const double q2 = qx * qx + qy * qy + qz * qz;
      const double rj = hasRadii ? grid.entryRadius(e) : 0.0;
      const double c = 0.5 * (q2 + ri2 - rj * rj);
      if (collect) {
        // Signed squared distance of the plane from p: sorts planes nearest first.
        // (Without radii c = q2 / 2, so this is q2 / 4: no division needed.)
        const double key = hasRadii ? c * std::fabs(c) / q2 : 0.25 * q2;
        near[nearCount++] = {key, qx, qy, qz, q2, c, j, image};
        continue;
      }
      // The plane is at distance c / |q|; it misses a cell whose vertices are all within R.
      if (c > 0 && c * c >= q2 * r2) continue;
      const ConvexCell::Clip result = cell.clip(qx, qy, qz, c, tolerance * std::sqrt(q2), j, image);
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
  collect = true;
  for (; next < shells.size() && shells[next].lowerBound == 0; ++next)
    visit(shells[next].dx, shells[next].dy, shells[next].dz);
  collect = false;
  // Only the nearest planes need an exact order; farther ones are mostly rejected by the
  // radius test whatever their order.
  std::vector<std::uint64_t>& order = scratch.order;
  order.resize(nearCount);
  for (std::size_t k = 0; k < nearCount; ++k)
    order[k] = (std::uint64_t(sortableKey(near[k].key)) << 32) | std::uint64_t(k);
  // Planes to points within about a bin side bound the cell; sort those, and keep the rest
  // in bin order behind them.
  const double hmin = std::min(h[0], std::min(h[1], h[2]));
  const std::uint32_t threshold = sortableKey(0.36 * hmin * hmin);  // (0.6 h)^2: |q| < 1.2 h
  const auto split = std::partition(order.begin(), order.end(),
                                    [threshold](std::uint64_t o) { return std::uint32_t(o >> 32) < threshold; });
  std::sort(order.begin(), split);
  for (const std::uint64_t o : order) {
    const NearPlane& np = near[std::size_t(o & 0xffffffffu)];
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

void Tessellation::State::forEach(const Execution& execution, std::size_t n, const ParallelBody& body) const {
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
  for (int a = 0; a < 3; ++a) far = std::max(far, std::max(std::abs(box.min[a]), std::abs(box.max[a])));
  // Rounding of relative positions scales with the coordinates' magnitude; geometry within
  // a cell scales with the spacing.
  tolerance = 1e-11 * spacing + 1e-14 * far;

  grid.build(wrapped.data(), hasRadii ? radii.data() : nullptr, count, box, kPointsPerBin);

  // Coincident points (the last input check) share a bin: compare within bins in parallel,
  // and on a hit let validateInput produce its exact report.
  {
    const std::size_t bins = std::size_t(grid.bins(0)) * grid.bins(1) * grid.bins(2);
    constexpr std::size_t kChunkBins = 4096;
    std::atomic<bool> coincident{false};
    forEach(execution, (bins + kChunkBins - 1) / kChunkBins, [&](std::size_t begin, std::size_t end, unsigned) {
      for (std::size_t b = begin * kChunkBins; b < std::min(bins, end * kChunkBins); ++b)
        for (std::size_t e = grid.binStart(b); e < grid.binStart(b + 1); ++e)
          for (std::size_t f = e + 1; f < grid.binStart(b + 1); ++f) {
            const double *p = grid.entryPosition(e), *q = grid.entryPosition(f);
            if (p[0] == q[0] && p[1] == q[1] && p[2] == q[2]) coincident.store(true, std::memory_order_relaxed);
          }
    });
    if (coincident.load()) {
      outcome.error =
          validateInput(points, n3, box, hasRadii ? radii.data() : nullptr, count, wrapped, validationOrder);
      if (outcome.error) {
        outcome.status = Status::kInvalid;
        return outcome;
      }
    }
  }

  const unsigned workerCount = std::max(1u, execution.workers);
  while (workers.size() < workerCount) workers.push_back(std::make_unique<WorkerScratch>());
  const std::size_t chunkCount = (count + kChunkCells - 1) / kChunkCells;
  if (chunks.size() < chunkCount) chunks.resize(chunkCount);
  volumes.resize(count);
  centroids.resize(n3);

  // Build the cells in grid order, each chunk's faces into its own buffers.
  std::atomic<bool> cancelled{false};
  const std::atomic<bool>* cancel = execution.cancel;
  forEach(execution, chunkCount, [&](std::size_t begin, std::size_t end, unsigned worker) {
    if (worker >= workers.size()) throw std::out_of_range("parallelFor worker index >= workers");
    WorkerScratch& scratch = *workers[worker];
    ConvexCell& cell = scratch.cell;
    for (std::size_t c = begin; c < end; ++c) {
      if (cancel && cancel->load(std::memory_order_relaxed)) {
        cancelled.store(true, std::memory_order_relaxed);
        return;
      }
      ChunkFaces& out = chunks[c];
      out.faceStart.assign(1, 0);
      out.neighbor.clear();
      out.image.clear();
      out.area.clear();
      out.empty = 0;
      cell.clearDefects();
      const std::size_t first = c * kChunkCells, last = std::min(count, first + kChunkCells);
      for (std::size_t e = first; e < last; ++e) {
        const std::size_t i = static_cast<std::size_t>(grid.entryPoint(e));
        buildCell(i, scratch);
        cell.finish();
        double volume, centroid[3];
        cell.measure(volume, centroid);
        volumes[i] = volume;
        for (int a = 0; a < 3; ++a) centroids[3 * i + a] = given[3 * i + a] + centroid[a];
        out.empty += cell.empty();
        const std::size_t faces = cell.faceCount(), at = out.neighbor.size();
        out.neighbor.resize(at + faces);
        out.image.resize(at + faces);
        out.area.resize(at + faces);
        std::int32_t* neighbor = out.neighbor.data() + at;
        std::int32_t* image = out.image.data() + at;
        double* area = out.area.data() + at;
        for (std::size_t f = 0; f < faces; ++f) {
          neighbor[f] = cell.faceNeighbor(f);
          image[f] = cell.faceImage(f);
          area[f] = cell.faceArea(f);
        }
        out.faceStart.push_back(static_cast<std::int32_t>(at + faces));
      }
      out.defects = cell.topologyDefects();
    }
  });
  if (cancelled.load()) {
    outcome.status = Status::kCancelled;
    return outcome;
  }

  // Make the face lists symmetric. Each cell is built on its own, so a plane that only
  // grazes a cell within rounding (a face of area ~tolerance^2) can be cut on one side and
  // judged "touching" on the other. Such one-sided faces are removed; matched pairs get the
  // mean of their two areas so both sides report the same number bit for bit. Each pair is
  // written only by the task of its earlier grid entry, so there are no races. Working in
  // grid order keeps a cell's neighbours' faces close in memory.
  forEach(execution, chunkCount, [&](std::size_t begin, std::size_t end, unsigned) {
    for (std::size_t c = begin; c < end; ++c) {
      ChunkFaces& ch = chunks[c];
      ch.removed = 0;
      ch.largestRemoved = 0;
      ch.keep.assign(ch.neighbor.size(), 1);
      ch.kept.clear();
      const std::size_t first = c * kChunkCells, last = std::min(count, first + kChunkCells);
      for (std::size_t e = first; e < last; ++e) {
        const std::int32_t i = grid.entryPoint(e);
        const std::size_t local = e - first;
        const std::int32_t faceBegin = ch.faceStart[local], faceEnd = ch.faceStart[local + 1];
        std::int32_t kept = 0;
        for (std::int32_t k = faceBegin; k < faceEnd; ++k) {
          const std::int32_t j = ch.neighbor[std::size_t(k)];
          ++kept;
          if (j < 0) continue;
          const std::int32_t want = oppositeImage(ch.image[std::size_t(k)]);
          const std::size_t ej = grid.entryOf(j);
          ChunkFaces& other = chunks[ej / kChunkCells];
          const std::size_t lj = ej % kChunkCells;
          std::int32_t partner = -1;
          for (std::int32_t m = other.faceStart[lj]; m < other.faceStart[lj + 1]; ++m)
            if (other.neighbor[std::size_t(m)] == i && other.image[std::size_t(m)] == want) {
              partner = m;
              break;
            }
          if (partner < 0) {
            ch.keep[std::size_t(k)] = 0;
            --kept;
            ++ch.removed;
            ch.largestRemoved = std::max(ch.largestRemoved, ch.area[std::size_t(k)]);
          } else if (ej > e || (ej == e && partner > k)) {
            double& mine = ch.area[std::size_t(k)];
            double& theirs = other.area[std::size_t(partner)];
            const double mean = 0.5 * (mine + theirs);
            mine = mean;
            theirs = mean;
          }
        }
        ch.kept.push_back(kept);
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

  // Gather into CSR arrays in point order.
  offsets.resize(count + 1);
  offsets[0] = 0;
  for (std::size_t e = 0; e < count; ++e)
    offsets[std::size_t(grid.entryPoint(e)) + 1] = chunks[e / kChunkCells].kept[e % kChunkCells];
  for (std::size_t i = 0; i < count; ++i) offsets[i + 1] += offsets[i];
  const std::size_t faceTotal = static_cast<std::size_t>(offsets[count]);
  neighbors.resize(faceTotal);
  images.resize(faceTotal);
  areas.resize(faceTotal);
  forEach(execution, chunkCount, [&](std::size_t begin, std::size_t end, unsigned) {
    for (std::size_t c = begin; c < end; ++c) {
      const ChunkFaces& ch = chunks[c];
      const std::size_t first = c * kChunkCells, last = std::min(count, first + kChunkCells);
      for (std::size_t e = first; e < last; ++e) {
        const std::size_t local = e - first;
        std::size_t at = static_cast<std::size_t>(offsets[std::size_t(grid.entryPoint(e))]);
        for (std::int32_t k = ch.faceStart[local]; k < ch.faceStart[local + 1]; ++k) {
          if (!ch.keep[std::size_t(k)]) continue;
          neighbors[at] = ch.neighbor[std::size_t(k)];
          images[at] = ch.image[std::size_t(k)];
          areas[at] = ch.area[std::size_t(k)];
          ++at;
        }
      }
    }
  });
  valid = true;
  return outcome;
}

Tessellation::Tessellation() : state_(std::make_unique<State>()) {}
Tessellation::~Tessellation() = default;
Tessellation::Tessellation(Tessellation&&) noexcept = default;
Tessellation& Tessellation::operator=(Tessellation&&) noexcept = default;

Outcome Tessellation::compute(const double* points, std::size_t coordinateCount, const Box& box, const double* radii,
                              std::size_t radiusCount, const Execution& execution) {
  State& s = *state_;
  s.valid = false;
  Outcome outcome;
  // Coincident points are looked for by run(), within grid bins and in parallel.
  outcome.error = validateInputExceptCoincident(points, coordinateCount, box, radii, radiusCount, s.wrapped);
  if (outcome.error) {
    outcome.status = Status::kInvalid;
    s.count = 0;
    return outcome;
  }
  s.box = box;
  s.count = coordinateCount / 3;
  s.hasRadii = radii != nullptr;
  if (s.hasRadii)
    s.radii.assign(radii, radii + s.count);
  else
    s.radii.clear();
  outcome = s.run(points, execution);
  if (outcome.status == Status::kInvalid) s.count = 0;
  return outcome;
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
  outcome.error = validateInputExceptCoincident(points, 3 * s.count, s.box, s.hasRadii ? s.radii.data() : nullptr,
                                                s.count, s.wrapped);
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
  std::size_t total = sizeof(State) + bytes(s.given) + bytes(s.wrapped) + bytes(s.radii) + bytes(s.validationOrder) +
                      s.grid.memoryBytes() + bytes(s.volumes) + bytes(s.centroids) + bytes(s.areas) + bytes(s.offsets) +
                      bytes(s.neighbors) + bytes(s.images);
  for (const ChunkFaces& c : s.chunks)
    total += sizeof(c) + bytes(c.faceStart) + bytes(c.neighbor) + bytes(c.image) + bytes(c.area) + bytes(c.keep) +
             bytes(c.kept);
  for (const auto& w : s.workers)
    total += sizeof(WorkerScratch) - sizeof(ConvexCell) + w->cell.memoryBytes() + bytes(w->near) + bytes(w->order);
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
  WorkerScratch scratch;
  ConvexCell& cell = scratch.cell;
  s.buildCell(i, scratch);
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
    if (k >= end || s.neighbors[k] != cell.faceNeighbor(f) || s.images[k] != cell.faceImage(f)) continue;
    ++k;
    const std::int32_t* loop = cell.faceLoop(f);
    out.faceVertices.insert(out.faceVertices.end(), loop, loop + cell.faceSize(f));
    out.faceOffsets.push_back(static_cast<std::int32_t>(out.faceVertices.size()));
    out.faceNeighbors.push_back(cell.faceNeighbor(f));
  }
  return true;
}

}  // namespace peclet::voro
