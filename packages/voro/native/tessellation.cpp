#include "tessellation.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <peclet/memory.hpp>
#include <stdexcept>
#include <string>

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
  std::vector<double> volume, centroid;  // per cell of the chunk (centroid: 3 per cell)
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
  double lastRadius2 = 0;  // squared radius of the cell when its search stopped
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

// Work units (bins visited, points tested, planes cut) between two polls of cancellation
// inside one cell's search: about 10 microseconds, so a runaway cell still stops promptly.
constexpr std::size_t kPollInterval = 1024;

// How one cell's search ended.
enum class CellEnd { kDone, kStopped, kOverBudget };

// Polling and budget shared by the workers of one pass.
struct CellControl {
  const std::atomic<bool>* cancel = nullptr;
  const std::function<bool()>* shouldStop = nullptr;
  std::atomic<bool>* abort = nullptr;  // raised by a worker that stops: the others stop too
  std::size_t budget = std::numeric_limits<std::size_t>::max();

  bool stopRequested() const {
    if (abort != nullptr && abort->load(std::memory_order_relaxed)) return true;
    if (cancel != nullptr && cancel->load(std::memory_order_relaxed)) return true;
    return shouldStop != nullptr && *shouldStop && (*shouldStop)();
  }
};

// Power of two s with (largest width) * s in [1, 2): scaling by it is exact.
double frameScale(const double length[3]) {
  const double largest = std::max(length[0], std::max(length[1], length[2]));
  return std::ldexp(1.0, -std::ilogb(largest));
}

// Search order of the precomputed shells, shared by every tessellation of the process with the
// same bin shape (sorting ~2000 offsets costs more than a small tessellation).
std::shared_ptr<const std::vector<SpatialGrid::Offset>> sharedShells(const int bins[3], const double size[3],
                                                                     const bool periodic[3]) {
  struct Entry {
    int bins[3];
    double size[3];
    bool periodic[3];
    std::shared_ptr<const std::vector<SpatialGrid::Offset>> shells;
  };
  static std::mutex mutex;
  static std::vector<Entry> cache;  // most recent last; a few shapes at most
  constexpr std::size_t kCacheSize = 8;
  std::lock_guard<std::mutex> lock(mutex);
  for (std::size_t k = cache.size(); k-- > 0;) {
    const Entry& e = cache[k];
    bool same = true;
    for (int a = 0; a < 3; ++a)
      same = same && e.bins[a] == bins[a] && e.size[a] == size[a] && e.periodic[a] == periodic[a];
    if (same) return e.shells;
  }
  auto shells =
      std::make_shared<const std::vector<SpatialGrid::Offset>>(SpatialGrid::searchOrder(bins, size, periodic));
  if (cache.size() == kCacheSize) cache.erase(cache.begin());
  cache.push_back(
      {{bins[0], bins[1], bins[2]}, {size[0], size[1], size[2]}, {periodic[0], periodic[1], periodic[2]}, shells});
  return shells;
}

}  // namespace

// The inputs of one computation in the frame the geometry is computed in: positions relative
// to the box's min corner, scaled by a power of two so that the largest width is about 1.
// Two of these exist, the committed one and the next one: a call prepares the next and swaps
// only once everything succeeded, so a call that fails leaves the object as it was.
struct Geometry {
  Box box;  // min 0, max = length, periodic flags as given
  double length[3] = {1, 1, 1};
  double scale = 1;      // frame = (position - userBox.min) * scale
  double tolerance = 0;  // distance below which a vertex counts as on a plane (frame units)
  std::size_t count = 0;
  bool hasRadii = false;
  std::vector<double> given;    // points as passed in (for the output frame)
  std::vector<double> wrapped;  // points in the frame, wrapped into the box
  std::vector<double> radii;    // radii in the frame (times scale)
  SpatialGrid grid;

  CellEnd buildCell(std::size_t i, WorkerScratch& scratch, const CellControl& control) const;
  std::size_t memoryBytes() const {
    return (given.capacity() + wrapped.capacity() + radii.capacity()) * sizeof(double) + grid.memoryBytes();
  }
};

struct Tessellation::State {
  Box userBox;  // as given
  bool valid = false;
  Geometry current, next;
  std::vector<std::uint32_t> validationOrder;
  std::vector<double> validationScratch, validationRadii;

  std::vector<std::unique_ptr<WorkerScratch>> workers;  // one per worker
  std::vector<ChunkFaces> chunks;

  std::vector<double> volumes, centroids, areas;
  std::vector<std::int64_t> offsets;
  std::vector<std::int32_t> neighbors, images;
  TessellationStats stats;

  Outcome prepare(const double* points, const Box& box, const double* radii, const Execution& execution);
  Outcome run(const Execution& execution);
  void forEach(const Execution& execution, std::size_t count, const ParallelBody& body) const;
};

// Builds the cell of point i: start from the box, then cut by neighbours nearest bin first
// until no unvisited bin can hold a point whose plane reaches the cell. Polls `control`
// every kPollInterval units of work and gives up past its budget.
CellEnd Geometry::buildCell(std::size_t i, WorkerScratch& scratch, const CellControl& control) const {
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
  // A plane to a point at distance d is at (d^2 + ri^2 - rj^2) / (2d) from p; with
  // rj <= maxRadius it cannot reach a cell of radius R once d^2 - 2Rd + a >= 0. Differences of
  // squares are formed as (ri - rj)(ri + rj): equal radii give exactly 0 (the Voronoi planes),
  // whatever their size, where ri^2 - rj^2 would keep only the rounding of two huge squares.
  const double gridMax = grid.maxRadius();
  const double a = (ri - gridMax) * (ri + gridMax);
  double r2 = cell.maxRadiusSquared();
  auto stopDistance = [&](double radius2) {
    const double R = std::sqrt(radius2);
    return R + std::sqrt(std::max(0.0, radius2 - a));
  };
  double stop = stopDistance(r2);
  bool emptied = false;

  // Work done on this cell, and the end of its search when it stopped early.
  std::size_t work = 0, nextPoll = kPollInterval;
  CellEnd end = CellEnd::kDone;
  auto spend = [&](std::size_t units) -> bool {
    work += units;
    if (work < nextPoll) return true;
    nextPoll = work + kPollInterval;
    if (work > control.budget)
      end = CellEnd::kOverBudget;
    else if (control.stopRequested())
      end = CellEnd::kStopped;
    return end == CellEnd::kDone;
  };

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
  // once the cell is empty or the search must stop (`end`).
  bool collect = false;
  std::size_t nearCount = 0;
  auto visit = [&](int dx, int dy, int dz) -> bool {
    if (!spend(1)) return false;
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
    // A bin of a few points is paid for at once; a crowded one point by point, so that a
    // cell whose bin holds a dense cluster still polls every kPollInterval points.
    const bool crowded = end - begin > kPollInterval / 8;
    if (!crowded && end > begin && !spend(end - begin)) return false;
    for (std::size_t e = begin; e < end; ++e) {
      if (crowded && !spend(1)) return false;
      const std::int32_t j = grid.entryPoint(e);
      if (j == self && !shifted) continue;
      const double* q = grid.entryPosition(e);
      const double qx = q[0] + ox, qy = q[1] + oy, qz = q[2] + oz;
      const double q2 = qx * qx + qy * qy + qz * qz;
      const double rj = hasRadii ? grid.entryRadius(e) : 0.0;
      const double c = 0.5 * (q2 + (ri - rj) * (ri + rj));
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
        emptied = true;
        return false;
      }
    }
    return true;
  };
  auto finished = [&]() {
    scratch.lastRadius2 = r2;
    return end;
  };

  // The bins touching p's bin hold the planes most likely to bound the cell. Cutting by them
  // nearest first wastes fewer cuts on planes that later ones remove, which pays for the sort.
  const std::vector<SpatialGrid::Offset>& shells = grid.shells();
  std::size_t next = 0;
  collect = true;
  for (; next < shells.size() && shells[next].lowerBound == 0; ++next)
    if (!visit(shells[next].dx, shells[next].dy, shells[next].dz)) return finished();
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
    if (!spend(1)) return finished();
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
      if (end != CellEnd::kDone) return finished();
      break;
    }
  }
  // Beyond the precomputed offsets (sparse regions, large radii, tiny periodic boxes):
  // search cube layers outward until no bin of a layer can matter. Per axis, only offsets
  // whose slab gap alone is below the stop distance are enumerated, so a long thin box does
  // not visit every bin of a cube layer.
  for (int k = grid.shellReach() + 1; !emptied; ++k) {
    int limit[3];
    bool any = false;
    for (int ax = 0; ax < 3; ++ax) {
      // |offset| = m on this axis is at least (m - 1) bin sides from p.
      const double m = std::floor(stop / h[ax]) + 1;
      limit[ax] = m < k ? static_cast<int>(m) : k;
      if (!box.periodic[ax]) limit[ax] = std::min(limit[ax], nb[ax] - 1);
      any = any || limit[ax] == k;
    }
    if (!any) break;
    const int lx = limit[0], ly = limit[1], lz = limit[2];
    for (int dz = -lz; dz <= lz && !emptied; ++dz)
      for (int dy = -ly; dy <= ly && !emptied; ++dy) {
        const bool onLayer = std::abs(dz) == k || std::abs(dy) == k;
        if (onLayer) {
          for (int dx = -lx; dx <= lx; ++dx)
            if (!visit(dx, dy, dz)) {
              if (end != CellEnd::kDone) return finished();
              break;
            }
        } else if (lx == k) {
          if (!visit(-k, dy, dz) || !visit(k, dy, dz)) {
            if (end != CellEnd::kDone) return finished();
          }
        }
      }
  }
  return finished();
}

void Tessellation::State::forEach(const Execution& execution, std::size_t n, const ParallelBody& body) const {
  if (n == 0) return;
  if (execution.parallelFor && execution.workers > 1 && n > 1)
    execution.parallelFor(n, body);
  else
    body(0, n, 0);
}

namespace {

// Bytes a tessellation of n points holds, about (measured: ~600 per point for random points,
// plus the second set of inputs a call prepares before committing); checked before anything
// is allocated so that a huge count is refused instead of failing half-way.
constexpr double kBytesPerPoint = 1000.0;

std::string shortNumber(double v) {
  char out[32];
  std::snprintf(out, sizeof out, "%.3g", v);
  return out;
}

}  // namespace

// Validates the inputs and lays them out in `next` (frame positions, grid), looking for
// coincident points there. Touches nothing the committed results use.
Outcome Tessellation::State::prepare(const double* points, const Box& box, const double* radii,
                                     const Execution& execution) {
  Outcome outcome;
  Geometry& g = next;
  const std::size_t n3 = 3 * g.count;
  g.given.assign(points, points + n3);
  g.box.periodic[0] = box.periodic[0];
  g.box.periodic[1] = box.periodic[1];
  g.box.periodic[2] = box.periodic[2];
  double width[3];
  for (int a = 0; a < 3; ++a) width[a] = box.max[a] - box.min[a];
  g.scale = frameScale(width);
  for (int a = 0; a < 3; ++a) {
    g.length[a] = width[a] * g.scale;
    g.box.min[a] = 0;
    g.box.max[a] = g.length[a];
  }
  // Frame positions: relative to the min corner first (so far-off boxes lose nothing), then
  // wrapped on periodic axes, then scaled exactly.
  g.wrapped.resize(n3);
  for (std::size_t k = 0; k < n3; ++k) {
    const int a = static_cast<int>(k % 3);
    double r = points[k] - box.min[a];
    if (box.periodic[a]) {
      if (r < 0 || r >= width[a]) r -= width[a] * std::floor(r / width[a]);
      if (r >= width[a]) r -= width[a];
      if (r < 0) r = 0;
    } else {
      r = std::min(std::max(r, 0.0), width[a]);
    }
    g.wrapped[k] = r * g.scale;
  }
  if (g.hasRadii) {
    g.radii.resize(g.count);
    for (std::size_t i = 0; i < g.count; ++i) g.radii[i] = radii[i] * g.scale;
  } else {
    g.radii.clear();
  }
  const double spacing = std::cbrt(g.length[0] * g.length[1] * g.length[2] / double(g.count));
  const double largest = std::max(g.length[0], std::max(g.length[1], g.length[2]));
  // Rounding of frame positions scales with the box's largest width; geometry within a cell
  // scales with the spacing.
  g.tolerance = 1e-11 * spacing + 1e-14 * largest;

  g.grid.build(g.wrapped.data(), g.hasRadii ? g.radii.data() : nullptr, g.count, g.box, kPointsPerBin);
  int bins[3];
  double size[3];
  for (int a = 0; a < 3; ++a) {
    bins[a] = g.grid.bins(a);
    size[a] = g.grid.binSize(a);
  }
  g.grid.setShells(sharedShells(bins, size, g.box.periodic));

  // Coincident points (the last input check) share a bin: compare within bins in parallel,
  // and on a hit find the exact pair. Pairs within a bin cost its count squared: when points
  // crowd into a few bins (a dense cluster in a large box), sort them all instead.
  const std::size_t binCount = std::size_t(bins[0]) * bins[1] * bins[2];
  std::size_t crowded = 0;
  for (std::size_t b = 0; b < binCount; ++b) crowded = std::max(crowded, g.grid.binStart(b + 1) - g.grid.binStart(b));
  if (crowded > 64) {
    outcome.error = findCoincidentPoints(g.wrapped.data(), g.count, validationOrder);
    if (outcome.error) outcome.status = Status::kInvalid;
    return outcome;
  }
  constexpr std::size_t kChunkBins = 4096;
  std::atomic<bool> coincident{false};
  forEach(execution, (binCount + kChunkBins - 1) / kChunkBins, [&](std::size_t begin, std::size_t end, unsigned) {
    for (std::size_t b = begin * kChunkBins; b < std::min(binCount, end * kChunkBins); ++b)
      for (std::size_t e = g.grid.binStart(b); e < g.grid.binStart(b + 1); ++e)
        for (std::size_t f = e + 1; f < g.grid.binStart(b + 1); ++f) {
          const double *p = g.grid.entryPosition(e), *q = g.grid.entryPosition(f);
          if (p[0] == q[0] && p[1] == q[1] && p[2] == q[2]) coincident.store(true, std::memory_order_relaxed);
        }
  });
  if (coincident.load()) {
    outcome.error = findCoincidentPoints(g.wrapped.data(), g.count, validationOrder);
    if (outcome.error) outcome.status = Status::kInvalid;
  }
  return outcome;
}

// Builds every cell of `next` into scratch, then commits: swaps `next` in and writes the
// results. Nothing committed changes before the last step that can fail.
Outcome Tessellation::State::run(const Execution& execution) {
  Outcome outcome;
  const Geometry& g = next;
  const std::size_t count = g.count;
  const unsigned workerCount = std::max(1u, execution.workers);
  while (workers.size() < workerCount) workers.push_back(std::make_unique<WorkerScratch>());
  const std::size_t chunkCount = (count + kChunkCells - 1) / kChunkCells;
  if (chunks.size() < chunkCount) chunks.resize(chunkCount);

  // A cell may visit every bin and test every point once (a loner in a walled box); far more
  // means periodic images without end (a periodic width much smaller than the cell).
  const std::size_t binCount = std::size_t(g.grid.bins(0)) * g.grid.bins(1) * g.grid.bins(2);
  CellControl control;
  std::atomic<bool> abort{false};
  control.cancel = execution.cancel;
  control.shouldStop = execution.shouldStop ? &execution.shouldStop : nullptr;
  control.abort = &abort;
  control.budget = (std::size_t(1) << 22) + 4 * (binCount + count);
  std::atomic<std::size_t> overBudget{std::numeric_limits<std::size_t>::max()};
  std::atomic<double> overRadius2{0};
  std::atomic<bool> stopped{false};

  // Build the cells in grid order, each chunk's faces into its own buffers.
  forEach(execution, chunkCount, [&](std::size_t begin, std::size_t end, unsigned worker) {
    if (worker >= workers.size()) throw std::out_of_range("parallelFor worker index >= workers");
    WorkerScratch& scratch = *workers[worker];
    ConvexCell& cell = scratch.cell;
    for (std::size_t c = begin; c < end; ++c) {
      if (control.stopRequested()) {
        stopped.store(true, std::memory_order_relaxed);
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
      out.volume.resize(last - first);
      out.centroid.resize(3 * (last - first));
      for (std::size_t e = first; e < last; ++e) {
        const std::size_t i = static_cast<std::size_t>(g.grid.entryPoint(e));
        const CellEnd how = g.buildCell(i, scratch, control);
        if (how != CellEnd::kDone) {
          if (how == CellEnd::kOverBudget) {
            std::size_t seen = overBudget.load();
            while (i < seen && !overBudget.compare_exchange_weak(seen, i)) {
            }
            overRadius2.store(scratch.lastRadius2);
          }
          stopped.store(true, std::memory_order_relaxed);
          abort.store(true, std::memory_order_relaxed);
          return;
        }
        cell.finish();
        double volume, centroid[3];
        cell.measure(volume, centroid);
        out.volume[e - first] = volume;
        for (int a = 0; a < 3; ++a) out.centroid[3 * (e - first) + a] = centroid[a];
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
  if (overBudget.load() != std::numeric_limits<std::size_t>::max()) {
    const std::size_t i = overBudget.load();
    // Name the periodic axis that is narrowest next to the cell: its images are what the
    // search could not get past.
    const double reach = std::sqrt(overRadius2.load());
    int axis = -1;
    for (int a = 0; a < 3; ++a)
      if (g.box.periodic[a] && (axis < 0 || g.length[a] < g.length[axis])) axis = a;
    outcome.status = Status::kInvalid;
    outcome.error.kind = ErrorKind::kRange;
    const std::string budget = std::to_string(control.budget);
    if (axis >= 0 && g.length[axis] < reach) {
      const char* name = axis == 0 ? "x" : axis == 1 ? "y" : "z";
      outcome.error.argument = "box";
      outcome.error.index = axis;
      outcome.error.message =
          std::string("periodic axis ") + name + " (width " + shortNumber(g.length[axis] / g.scale) +
          ") is much narrower than the cell of point " + std::to_string(i) + ", which still reached " +
          shortNumber(reach / g.scale) + " from its point after " + budget +
          " bins and plane tests: the search would meet periodic images without end. Make axis " + name +
          " walled, use enough points that their spacing is no more than about the periodic widths, or widen the "
          "box along " +
          name;
    } else {
      outcome.error.argument = "points";
      outcome.error.index = static_cast<std::int64_t>(i);
      outcome.error.message = "the neighbour search of point " + std::to_string(i) + " exceeded its budget of " +
                              budget +
                              " bins and plane tests: the points are too unevenly spread for the search grid "
                              "(a dense cluster in a box far larger than it): shrink the box to the points";
    }
    return outcome;
  }
  if (stopped.load()) {
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
        const std::int32_t i = g.grid.entryPoint(e);
        const std::size_t local = e - first;
        const std::int32_t faceBegin = ch.faceStart[local], faceEnd = ch.faceStart[local + 1];
        std::int32_t kept = 0;
        for (std::int32_t k = faceBegin; k < faceEnd; ++k) {
          const std::int32_t j = ch.neighbor[std::size_t(k)];
          ++kept;
          if (j < 0) continue;
          const std::int32_t want = oppositeImage(ch.image[std::size_t(k)]);
          const std::size_t ej = g.grid.entryOf(j);
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

  // Room for the results before anything is committed: past this point nothing allocates.
  std::size_t faceTotal = 0;
  for (std::size_t c = 0; c < chunkCount; ++c)
    for (const std::int32_t k : chunks[c].kept) faceTotal += std::size_t(k);
  volumes.reserve(count);
  centroids.reserve(3 * count);
  offsets.reserve(count + 1);
  neighbors.reserve(faceTotal);
  images.reserve(faceTotal);
  areas.reserve(faceTotal);

  // Commit.
  std::swap(current, next);
  const Geometry& c = current;
  const double unit = 1.0 / c.scale, unit2 = unit * unit, unit3 = unit2 * unit;
  stats = TessellationStats{};
  for (std::size_t k = 0; k < chunkCount; ++k) {
    stats.oneSidedFacesRemoved += chunks[k].removed;
    stats.largestRemovedFaceArea = std::max(stats.largestRemovedFaceArea, chunks[k].largestRemoved * unit2);
    stats.topologyDefects += chunks[k].defects;
    stats.emptyCells += chunks[k].empty;
  }
  volumes.resize(count);
  centroids.resize(3 * count);
  offsets.resize(count + 1);
  offsets[0] = 0;
  for (std::size_t e = 0; e < count; ++e)
    offsets[std::size_t(c.grid.entryPoint(e)) + 1] = chunks[e / kChunkCells].kept[e % kChunkCells];
  for (std::size_t i = 0; i < count; ++i) offsets[i + 1] += offsets[i];
  neighbors.resize(faceTotal);
  images.resize(faceTotal);
  areas.resize(faceTotal);
  // Gather into point order, back in the units of the input (scaling by a power of two is exact).
  forEach(execution, chunkCount, [&](std::size_t begin, std::size_t end, unsigned) {
    for (std::size_t k = begin; k < end; ++k) {
      const ChunkFaces& ch = chunks[k];
      const std::size_t first = k * kChunkCells, last = std::min(count, first + kChunkCells);
      for (std::size_t e = first; e < last; ++e) {
        const std::size_t local = e - first;
        const std::size_t i = std::size_t(c.grid.entryPoint(e));
        volumes[i] = ch.volume[local] * unit3;
        for (int a = 0; a < 3; ++a) centroids[3 * i + a] = c.given[3 * i + a] + ch.centroid[3 * local + a] * unit;
        std::size_t at = static_cast<std::size_t>(offsets[i]);
        for (std::int32_t f = ch.faceStart[local]; f < ch.faceStart[local + 1]; ++f) {
          if (!ch.keep[std::size_t(f)]) continue;
          neighbors[at] = ch.neighbor[std::size_t(f)];
          images[at] = ch.image[std::size_t(f)];
          areas[at] = ch.area[std::size_t(f)] * unit2;
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
  Outcome outcome;
  // Coincident points are looked for by prepare(), within grid bins and in parallel.
  outcome.error = validateInputExceptCoincident(points, coordinateCount, box, radii, radiusCount, s.validationScratch);
  if (outcome.error) {
    outcome.status = Status::kInvalid;
    return outcome;
  }
  const std::size_t n = coordinateCount / 3;
  peclet::ensureAllocatable("points", "a tessellation of " + std::to_string(n) + " points", double(n) * kBytesPerPoint);
  s.next.count = n;
  s.next.hasRadii = radii != nullptr;
  outcome = s.prepare(points, box, radii, execution);
  if (outcome.status != Status::kOk) return outcome;
  outcome = s.run(execution);
  if (outcome.status == Status::kOk) s.userBox = box;
  return outcome;
}

Outcome Tessellation::update(const double* points, const Execution& execution) {
  State& s = *state_;
  Outcome outcome;
  if (!s.valid) {
    outcome.status = Status::kInvalid;
    outcome.error.kind = ErrorKind::kRange;
    outcome.error.argument = "points";
    outcome.error.message = "update() needs a successful compute() first";
    return outcome;
  }
  const std::size_t n = s.current.count;
  // The radii stay; they are given back in the units of the input for the checks.
  std::vector<double>& radii = s.validationRadii;
  const double* given = nullptr;
  if (s.current.hasRadii) {
    radii.resize(n);
    for (std::size_t i = 0; i < n; ++i) radii[i] = s.current.radii[i] / s.current.scale;
    given = radii.data();
  }
  outcome.error = validateInputExceptCoincident(points, 3 * n, s.userBox, given, n, s.validationScratch);
  if (outcome.error) {
    outcome.status = Status::kInvalid;
    return outcome;
  }
  s.next.count = n;
  s.next.hasRadii = s.current.hasRadii;
  outcome = s.prepare(points, s.userBox, given, execution);
  if (outcome.status != Status::kOk) return outcome;
  return s.run(execution);
}

std::size_t Tessellation::pointCount() const { return state_->valid ? state_->current.count : 0; }
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
  std::size_t total = sizeof(State) + s.current.memoryBytes() + s.next.memoryBytes() + bytes(s.validationOrder) +
                      bytes(s.validationScratch) + bytes(s.validationRadii) + bytes(s.volumes) + bytes(s.centroids) +
                      bytes(s.areas) + bytes(s.offsets) + bytes(s.neighbors) + bytes(s.images);
  for (const ChunkFaces& c : s.chunks)
    total += sizeof(c) + bytes(c.faceStart) + bytes(c.neighbor) + bytes(c.image) + bytes(c.area) + bytes(c.volume) +
             bytes(c.centroid) + bytes(c.keep) + bytes(c.kept);
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
  if (!s.valid || i >= s.current.count) return false;
  const Geometry& g = s.current;
  WorkerScratch scratch;
  ConvexCell& cell = scratch.cell;
  g.buildCell(i, scratch, CellControl{});
  cell.finish();
  const double* p = &g.given[3 * i];
  const double unit = 1.0 / g.scale;
  out.vertices.resize(3 * cell.vertexCount());
  for (std::size_t k = 0; k < cell.vertexCount(); ++k) {
    double v[3];
    cell.vertex(k, v);
    for (int a = 0; a < 3; ++a) out.vertices[3 * k + a] = p[a] + v[a] * unit;
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
