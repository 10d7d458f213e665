#include "extract.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "errors.hpp"

namespace peclet::pnm {

namespace {

using Shape = std::array<std::size_t, 3>;
constexpr float kInfinity = std::numeric_limits<float>::infinity();

double seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

void checkCancel(const std::atomic<bool>* cancel) {
  if (cancel != nullptr && cancel->load(std::memory_order_relaxed)) throw Cancelled{};
}

/// Runs fn(begin, end, worker) over [0, n) in chunks of `grain` on the pool (or serially).
template <typename Fn>
void forChunks(const ParallelFor& parallelFor, std::size_t n, std::size_t grain, const Fn& fn) {
  if (n == 0) return;
  grain = std::max<std::size_t>(1, grain);
  const std::size_t chunks = (n + grain - 1) / grain;
  auto body = [&](std::size_t cb, std::size_t ce, unsigned worker) {
    for (std::size_t c = cb; c < ce; c++) fn(c * grain, std::min(n, (c + 1) * grain), worker);
  };
  if (parallelFor && chunks > 1) {
    parallelFor(chunks, body);
  } else {
    body(0, chunks, 0);
  }
}

/// Applies `op(line, length, scratch)` to every line of the image along
/// `axis`, gathering lines into a contiguous buffer (blocks of lines along the
/// last axis for axes 0 and 1, so that memory is read in rows).
template <typename Op>
void forEachLine(float* data, const Shape& shape, int axis, const ParallelFor& parallelFor, const Op& op) {
  const std::size_t n0 = shape[0], n1 = shape[1], n2 = shape[2];
  const std::size_t length = shape[axis];
  if (axis == 2) {
    forChunks(parallelFor, n0 * n1, 64, [&](std::size_t b, std::size_t e, unsigned) {
      std::vector<float> line(length);
      std::vector<double> scratch;
      for (std::size_t l = b; l < e; l++) {
        float* row = data + l * n2;
        std::memcpy(line.data(), row, length * sizeof(float));
        op(line.data(), length, scratch);
        std::memcpy(row, line.data(), length * sizeof(float));
      }
    });
    return;
  }
  constexpr std::size_t kBlock = 16;
  const std::size_t stride = axis == 1 ? n2 : n1 * n2;
  const std::size_t outer = axis == 1 ? n0 : n1;  // the other non-contiguous axis
  const std::size_t blocks = (n2 + kBlock - 1) / kBlock;
  forChunks(parallelFor, outer * blocks, 4, [&](std::size_t b, std::size_t e, unsigned) {
    std::vector<float> buffer(length * kBlock);
    std::vector<float> line(length);
    std::vector<double> scratch;
    for (std::size_t t = b; t < e; t++) {
      const std::size_t o = t / blocks, k0 = (t % blocks) * kBlock, width = std::min(kBlock, n2 - k0);
      const std::size_t base = axis == 1 ? o * n1 * n2 + k0 : o * n2 + k0;
      for (std::size_t i = 0; i < length; i++) std::memcpy(&buffer[i * kBlock], data + base + i * stride, width * 4);
      for (std::size_t w = 0; w < width; w++) {
        for (std::size_t i = 0; i < length; i++) line[i] = buffer[i * kBlock + w];
        op(line.data(), length, scratch);
        for (std::size_t i = 0; i < length; i++) buffer[i * kBlock + w] = line[i];
      }
      for (std::size_t i = 0; i < length; i++) std::memcpy(data + base + i * stride, &buffer[i * kBlock], width * 4);
    }
  });
}

/// 1D squared distance transform of sampled function f (Felzenszwalb &
/// Huttenlocher 2012): d(q) = min_p (q − p)² + f(p) over the finite samples.
void squaredDistance1d(float* f, std::size_t n, std::vector<double>& scratch) {
  // scratch: v (sites) as doubles, z (boundaries), values
  scratch.resize(3 * n + 2);
  double* v = scratch.data();
  double* z = v + n;
  double* g = z + n + 1;
  std::size_t k = 0;
  bool any = false;
  for (std::size_t q = 0; q < n; q++) {
    if (!(f[q] < kInfinity)) continue;
    const double fq = f[q], dq = double(q);
    if (!any) {
      v[0] = dq;
      g[0] = fq;
      z[0] = -std::numeric_limits<double>::infinity();
      z[1] = std::numeric_limits<double>::infinity();
      any = true;
      continue;
    }
    double s;
    while (true) {
      s = ((fq + dq * dq) - (g[k] + v[k] * v[k])) / (2 * dq - 2 * v[k]);
      if (s <= z[k] && k > 0) {
        k--;
        continue;
      }
      break;
    }
    if (s <= z[k]) {  // k == 0 and the new parabola is lower everywhere
      v[0] = dq;
      g[0] = fq;
      z[1] = std::numeric_limits<double>::infinity();
      continue;
    }
    k++;
    v[k] = dq;
    g[k] = fq;
    z[k] = s;
    z[k + 1] = std::numeric_limits<double>::infinity();
  }
  if (!any) return;  // all infinite
  std::size_t j = 0;
  for (std::size_t q = 0; q < n; q++) {
    while (z[j + 1] < double(q)) j++;
    const double d = double(q) - v[j];
    f[q] = static_cast<float>(d * d + g[j]);
  }
}

/// Mirrors index i into [0, n) as scipy's 'reflect' mode (d c b a | a b c d).
std::ptrdiff_t mirror(std::ptrdiff_t i, std::ptrdiff_t n) {
  if (n == 1) return 0;
  const std::ptrdiff_t period = 2 * n;
  i %= period;
  if (i < 0) i += period;
  return i < n ? i : period - 1 - i;
}

}  // namespace

void distanceTransform(const std::uint8_t* solid, const Shape& shape, float* out, const ParallelFor& parallelFor) {
  const std::size_t n0 = shape[0], n1 = shape[1], n2 = shape[2];
  // Along the last axis: the 1D distance to solid, squared (two sweeps).
  forChunks(parallelFor, n0 * n1, 256, [&](std::size_t b, std::size_t e, unsigned) {
    for (std::size_t l = b; l < e; l++) {
      const std::uint8_t* s = solid + l * n2;
      float* d = out + l * n2;
      double last = -1;  // position of the last solid seen, −1: none
      for (std::size_t k = 0; k < n2; k++) {
        if (s[k]) last = double(k);
        d[k] = last < 0 ? kInfinity : static_cast<float>(double(k) - last);
      }
      last = -1;
      for (std::size_t k = n2; k-- > 0;) {
        if (s[k]) last = double(k);
        if (last >= 0) d[k] = std::min(d[k], static_cast<float>(last - double(k)));
        d[k] = d[k] < kInfinity ? d[k] * d[k] : kInfinity;
      }
    }
  });
  forEachLine(out, shape, 1, parallelFor, squaredDistance1d);
  forEachLine(out, shape, 0, parallelFor, squaredDistance1d);
  forChunks(parallelFor, n0 * n1 * n2, 1 << 16, [&](std::size_t b, std::size_t e, unsigned) {
    for (std::size_t v = b; v < e; v++) out[v] = std::sqrt(out[v]);
  });
}

void gaussianSmooth(float* data, const Shape& shape, double sigma, const ParallelFor& parallelFor) {
  if (!(sigma > 0)) return;
  const int radius = static_cast<int>(4.0 * sigma + 0.5);
  if (radius < 1) return;
  std::vector<double> weights(radius + 1);
  double sum = 0;
  for (int i = 0; i <= radius; i++) {
    weights[i] = std::exp(-0.5 * double(i) * double(i) / (sigma * sigma));
    sum += i == 0 ? weights[i] : 2 * weights[i];
  }
  for (double& w : weights) w /= sum;
  // Axis by axis in scipy's order, rounding to float after each as it does.
  for (int axis = 0; axis < 3; axis++) {
    if (shape[axis] == 1) continue;
    forEachLine(data, shape, axis, parallelFor, [&](float* line, std::size_t n, std::vector<double>& scratch) {
      scratch.resize(n + 2 * radius);
      double* padded = scratch.data() + radius;
      for (std::ptrdiff_t i = -radius; i < std::ptrdiff_t(n) + radius; i++)
        padded[i] = line[mirror(i, std::ptrdiff_t(n))];
      for (std::size_t i = 0; i < n; i++) {
        double s = padded[i] * weights[0];
        for (int j = 1; j <= radius; j++) s += (padded[std::ptrdiff_t(i) - j] + padded[i + j]) * weights[j];
        line[i] = static_cast<float>(s);
      }
    });
  }
}

double extractBytes(double voxels) noexcept {
  // input copy (freed after the distance transform), distance, smoothed
  // distance, labels; the watershed's queue and the network come on top.
  return voxels * 14.0 + (1 << 20);
}

namespace {

struct Offsets {
  std::ptrdiff_t n1, n2;
  Shape shape;
  std::size_t index(std::size_t i, std::size_t j, std::size_t k) const { return (i * shape[1] + j) * shape[2] + k; }
  void coords(std::size_t v, std::size_t& i, std::size_t& j, std::size_t& k) const {
    k = v % shape[2];
    const std::size_t r = v / shape[2];
    j = r % shape[1];
    i = r / shape[1];
  }
};

/// Calls fn(u) for the in-image face neighbours of v (6-connectivity).
template <typename Fn>
inline void forFaceNeighbours(const Offsets& o, std::size_t v, const Fn& fn) {
  std::size_t i, j, k;
  o.coords(v, i, j, k);
  const std::size_t plane = o.shape[1] * o.shape[2], row = o.shape[2];
  if (i > 0) fn(v - plane);
  if (i + 1 < o.shape[0]) fn(v + plane);
  if (j > 0) fn(v - row);
  if (j + 1 < o.shape[1]) fn(v + row);
  if (k > 0) fn(v - 1);
  if (k + 1 < o.shape[2]) fn(v + 1);
}

/// Calls fn(u) for every in-image neighbour of v within the cube of radius 1
/// (26-connectivity, `faces` false) or across a face (6-connectivity).
template <typename Fn>
void forNeighbours(const Offsets& o, std::size_t v, bool facesOnly, const Fn& fn) {
  if (facesOnly) return forFaceNeighbours(o, v, fn);
  std::size_t i, j, k;
  o.coords(v, i, j, k);
  for (int di = -1; di <= 1; di++) {
    if ((di < 0 && i == 0) || (di > 0 && i + 1 >= o.shape[0])) continue;
    for (int dj = -1; dj <= 1; dj++) {
      if ((dj < 0 && j == 0) || (dj > 0 && j + 1 >= o.shape[1])) continue;
      for (int dk = -1; dk <= 1; dk++) {
        if ((dk < 0 && k == 0) || (dk > 0 && k + 1 >= o.shape[2])) continue;
        const int nonzero = (di != 0) + (dj != 0) + (dk != 0);
        if (nonzero == 0 || (facesOnly && nonzero != 1)) continue;
        fn(o.index(i + di, j + dj, k + dk));
      }
    }
  }
}

/// Connected components of a voxel set given as sorted indices; returns the
/// component of each entry (numbered by the raster order of their first voxel).
std::vector<std::int32_t> components(const std::vector<std::uint64_t>& voxels, const Offsets& o, bool facesOnly,
                                     std::size_t& count) {
  std::vector<std::int32_t> component(voxels.size(), -1);
  auto find = [&](std::uint64_t v) -> std::ptrdiff_t {
    auto it = std::lower_bound(voxels.begin(), voxels.end(), v);
    return it != voxels.end() && *it == v ? it - voxels.begin() : -1;
  };
  std::vector<std::size_t> stack;
  count = 0;
  for (std::size_t s = 0; s < voxels.size(); s++) {
    if (component[s] >= 0) continue;
    const auto id = static_cast<std::int32_t>(count++);
    component[s] = id;
    stack.push_back(s);
    while (!stack.empty()) {
      const std::size_t t = stack.back();
      stack.pop_back();
      forNeighbours(o, voxels[t], facesOnly, [&](std::size_t u) {
        const std::ptrdiff_t at = find(u);
        if (at >= 0 && component[at] < 0) {
          component[at] = id;
          stack.push_back(std::size_t(at));
        }
      });
    }
  }
  return component;
}

/// Groups entries by component: offsets into a permutation.
void groupBy(const std::vector<std::int32_t>& component, std::size_t count, std::vector<std::size_t>& start,
             std::vector<std::size_t>& order) {
  start.assign(count + 1, 0);
  for (std::int32_t c : component) start[c + 1]++;
  for (std::size_t c = 0; c < count; c++) start[c + 1] += start[c];
  order.resize(component.size());
  std::vector<std::size_t> at(start.begin(), start.end() - 1);
  for (std::size_t s = 0; s < component.size(); s++) order[at[component[s]]++] = s;
}

/// Peaks: pore voxels whose smoothed distance no voxel of the ball of radius
/// rMax exceeds, where voxels outside the pore count as 2 (SNOW's maximum
/// filter of dt + 2·(¬pore)). The pore is the image's (distance > 0), not
/// where the smoothed distance is positive: smoothing spreads small positive
/// values into solid voxels beside the pore, which would then count as pore.
std::vector<std::uint64_t> findPeaks(const float* s, const float* dt, const Offsets& o, int rMax,
                                     const ParallelFor& parallelFor, const std::atomic<bool>* cancel) {
  std::vector<std::array<int, 3>> ball;
  for (int a = -rMax; a <= rMax; a++)
    for (int b = -rMax; b <= rMax; b++)
      for (int c = -rMax; c <= rMax; c++)
        if (a * a + b * b + c * c <= rMax * rMax && (a || b || c)) ball.push_back({a, b, c});
  const std::size_t n0 = o.shape[0], n1 = o.shape[1], n2 = o.shape[2];
  std::vector<std::vector<std::uint64_t>> found(n0);
  auto value = [&](std::size_t u) { return dt[u] > 0 ? s[u] : 2.0f; };
  forChunks(parallelFor, n0, 1, [&](std::size_t b, std::size_t e, unsigned) {
    for (std::size_t i = b; i < e; i++) {
      checkCancel(cancel);
      for (std::size_t j = 0; j < n1; j++) {
        for (std::size_t k = 0; k < n2; k++) {
          const std::size_t v = o.index(i, j, k);
          if (!(dt[v] > 0)) continue;
          const float x = s[v];
          bool peak = true;
          forNeighbours(o, v, false, [&](std::size_t u) { peak = peak && !(value(u) > x); });
          if (!peak) continue;
          for (const auto& d : ball) {
            const std::ptrdiff_t ii = std::ptrdiff_t(i) + d[0], jj = std::ptrdiff_t(j) + d[1],
                                 kk = std::ptrdiff_t(k) + d[2];
            if (ii < 0 || jj < 0 || kk < 0 || ii >= std::ptrdiff_t(n0) || jj >= std::ptrdiff_t(n1) ||
                kk >= std::ptrdiff_t(n2))
              continue;  // mirrored voxels lie inside the ball too
            if (value(o.index(ii, jj, kk)) > x) {
              peak = false;
              break;
            }
          }
          if (peak) found[i].push_back(v);
        }
      }
    }
  });
  std::vector<std::uint64_t> peaks;
  for (auto& f : found) peaks.insert(peaks.end(), f.begin(), f.end());
  return peaks;
}

/// SNOW's saddle test for one peak cluster: dilate the plateau of its value
/// step by step (26-connected, at most 20 times, inside its box padded by
/// max(10, R)); voxels of the rim at or above R in two or more separate
/// groups make it a saddle (removed); an empty rim or a plateau that stops
/// growing makes it a true peak.
bool isSaddle(const float* s, const Offsets& o, const std::vector<std::uint64_t>& cluster) {
  float r = 0;
  std::array<std::size_t, 3> lo{o.shape}, hi{0, 0, 0};
  for (std::uint64_t v : cluster) {
    r = std::max(r, s[v]);
    std::size_t c[3];
    o.coords(v, c[0], c[1], c[2]);
    for (int a = 0; a < 3; a++) {
      lo[a] = std::min(lo[a], c[a]);
      hi[a] = std::max(hi[a], c[a]);
    }
  }
  const std::size_t pad = std::max<std::size_t>(10, static_cast<std::size_t>(r));
  for (int a = 0; a < 3; a++) {
    lo[a] = lo[a] > pad ? lo[a] - pad : 0;
    hi[a] = std::min(o.shape[a] - 1, hi[a] + pad);
  }
  auto inBox = [&](std::size_t u) {
    std::size_t c[3];
    o.coords(u, c[0], c[1], c[2]);
    return c[0] >= lo[0] && c[0] <= hi[0] && c[1] >= lo[1] && c[1] <= hi[1] && c[2] >= lo[2] && c[2] <= hi[2];
  };
  std::unordered_set<std::uint64_t> current(cluster.begin(), cluster.end());
  for (int iteration = 0; iteration < 20; iteration++) {
    std::unordered_set<std::uint64_t> dilated(current);
    for (std::uint64_t v : current) {
      forNeighbours(o, v, false, [&](std::size_t u) {
        if (inBox(u)) dilated.insert(u);
      });
    }
    std::vector<std::uint64_t> high;
    for (std::uint64_t u : dilated)
      if (!current.count(u) && s[u] >= r) high.push_back(u);
    if (high.empty()) return false;
    std::sort(high.begin(), high.end());
    std::size_t groups = 0;
    components(high, o, false, groups);
    if (groups >= 2) return true;
    std::unordered_set<std::uint64_t> plateau;
    for (std::uint64_t u : dilated)
      if (s[u] == r) plateau.insert(u);
    if (plateau.size() == current.size()) return false;
    current.swap(plateau);
  }
  return false;
}

/// SNOW's nearby-peak test: clusters (26-connected) whose centroid (truncated
/// to a voxel) is nearer to another's than to solid: the one of the pair with
/// the smaller distance value is dropped. Returns the clusters kept.
std::vector<bool> trimNearby(const float* s, const Offsets& o, const std::vector<std::array<std::int64_t, 3>>& centres,
                             std::size_t& dropped) {
  const std::size_t n = centres.size();
  std::vector<double> radius(n);
  for (std::size_t c = 0; c < n; c++)
    radius[c] = s[o.index(std::size_t(centres[c][0]), std::size_t(centres[c][1]), std::size_t(centres[c][2]))];
  // A uniform grid of cells of 16 voxels; a query looks only as far as its radius.
  constexpr std::int64_t kCell = 16;
  std::array<std::int64_t, 3> cells{};
  for (int a = 0; a < 3; a++) cells[a] = std::int64_t(o.shape[a]) / kCell + 1;
  std::unordered_map<std::int64_t, std::vector<std::size_t>> grid;
  auto cellKey = [&](std::int64_t a, std::int64_t b, std::int64_t c) { return (a * cells[1] + b) * cells[2] + c; };
  for (std::size_t c = 0; c < n; c++)
    grid[cellKey(centres[c][0] / kCell, centres[c][1] / kCell, centres[c][2] / kCell)].push_back(c);
  std::vector<bool> drop(n, false);
  for (std::size_t c = 0; c < n; c++) {
    const double r = radius[c];
    if (!(r > 0)) continue;
    const std::int64_t reach = static_cast<std::int64_t>(std::ceil(r));
    double best = std::numeric_limits<double>::infinity();
    std::size_t nearest = n;
    std::int64_t from[3], to[3];
    for (int a = 0; a < 3; a++) {
      from[a] = std::max<std::int64_t>(0, (centres[c][a] - reach) / kCell);
      to[a] = std::min<std::int64_t>(cells[a] - 1, (centres[c][a] + reach) / kCell);
    }
    for (std::int64_t a = from[0]; a <= to[0]; a++)
      for (std::int64_t b = from[1]; b <= to[1]; b++)
        for (std::int64_t d = from[2]; d <= to[2]; d++) {
          auto it = grid.find(cellKey(a, b, d));
          if (it == grid.end()) continue;
          for (std::size_t other : it->second) {
            if (other == c) continue;
            double d2 = 0;
            for (int x = 0; x < 3; x++)
              d2 += double(centres[other][x] - centres[c][x]) * (centres[other][x] - centres[c][x]);
            const double dist = std::sqrt(d2);
            if (dist < best || (dist == best && other < nearest)) {
              best = dist;
              nearest = other;
            }
          }
        }
    if (nearest < n && best < r) drop[radius[c] < radius[nearest] ? c : nearest] = true;
  }
  dropped = 0;
  std::vector<bool> keep(n);
  for (std::size_t c = 0; c < n; c++) {
    keep[c] = !drop[c];
    dropped += drop[c];
  }
  return keep;
}

/// The watershed's priority queue: smallest value first, and among equal
/// values the one pushed first (as scikit-image's). Values are spread over
/// buckets that each cover about 64 of the values to come (from their
/// histogram), each a small binary heap; a value below the bucket being
/// drained joins that bucket, where the heap still orders it exactly, so the
/// order is the same as one heap over everything.
class LevelQueue {
 public:
  /// `values(fn)` calls fn(value) for every value that will be pushed.
  template <typename Values>
  LevelQueue(float lowest, float highest, const Values& values) : lowest_(lowest) {
    const double span = std::max(1e-30, double(highest) - double(lowest));
    scale_ = double(kBins - 1) / span;
    std::vector<std::uint32_t> histogram(kBins, 0);
    values([&](float v) { histogram[bin(v)]++; });
    table_.resize(kBins);
    std::uint32_t bucket = 0, filled = 0;
    for (std::size_t b = 0; b < kBins; b++) {
      table_[b] = bucket;
      filled += histogram[b];
      if (filled >= kPerBucket) {
        bucket++;
        filled = 0;
      }
    }
    buckets_.resize(std::size_t(bucket) + 1);
  }
  bool empty() const { return size_ == 0; }
  /// Queues voxel `index` at `value`, carrying the label it was given.
  void push(float value, std::uint64_t index, std::int32_t label) {
    if (age_ == std::numeric_limits<std::uint32_t>::max()) renumber();
    const std::size_t b = std::max<std::size_t>(table_[bin(value)], current_);
    auto& heap = buckets_[b];
    heap.push_back({value, age_++, label, index});
    std::push_heap(heap.begin(), heap.end(), Later{});
    size_++;
  }
  /// The first voxel by (value, age) and its label; the queue is not empty.
  std::pair<std::uint64_t, std::int32_t> pop() {
    while (buckets_[current_].empty()) {
      // Nothing joins a bucket below the one drained: give its memory back.
      std::vector<Entry>().swap(buckets_[current_]);
      current_++;
    }
    auto& heap = buckets_[current_];
    std::pop_heap(heap.begin(), heap.end(), Later{});
    const Entry e = heap.back();
    heap.pop_back();
    size_--;
    return {e.index, e.label};
  }
  /// The voxel pop() would give next (no queue change), or none when the
  /// bucket being drained is empty.
  bool peek(std::uint64_t& index) const {
    const auto& heap = buckets_[current_];
    if (heap.empty()) return false;
    index = heap.front().index;
    return true;
  }

 private:
  static constexpr std::size_t kBins = std::size_t(1) << 20;
  static constexpr std::uint32_t kPerBucket = 64;
  std::size_t bin(float value) const {
    const double at = (double(value) - lowest_) * scale_;
    return at > 0 ? std::min(kBins - 1, static_cast<std::size_t>(at)) : 0;
  }
  struct Entry {
    float value;
    std::uint32_t age;
    std::int32_t label;
    std::uint64_t index;
  };
  struct Later {
    bool operator()(const Entry& a, const Entry& b) const {
      return a.value > b.value || (a.value == b.value && a.age > b.age);
    }
  };
  /// Ages are 32-bit: after 2³² pushes the queued entries are renumbered in order.
  void renumber() {
    std::vector<Entry*> all;
    for (auto& heap : buckets_)
      for (Entry& e : heap) all.push_back(&e);
    std::sort(all.begin(), all.end(), [](const Entry* a, const Entry* b) { return a->age < b->age; });
    age_ = 0;
    for (Entry* e : all) e->age = age_++;
    // Renumbering keeps the relative order, so every heap stays a heap.
  }
  double lowest_;
  double scale_ = 1;
  std::vector<std::uint32_t> table_;  // bin → bucket
  std::vector<std::vector<Entry>> buckets_;
  std::size_t current_ = 0;
  std::size_t size_ = 0;
  std::uint32_t age_ = 0;
};

/// Orphans: pore components (6-connected) that no marker reached through
/// pore (labels 0 there; `inPlane` lists them by plane, see findOrphans) take the label of the nearest voxel a marker
/// reached, breadth-first through solid and through such components (as a
/// watershed over the whole image, masked afterwards, gives them). The
/// components are found in raster order and searched from on every thread,
/// each on its own, so the result does not depend on the threads. Returns
/// how many components there were.
using PlaneLists = std::vector<std::vector<std::uint64_t>>;

/// The orphan voxels (pore, label 0) of each plane, found on every thread.
PlaneLists findOrphans(const VoxelArray<std::int32_t>& labels, const float* dt, const Offsets& o,
                       const ParallelFor& parallelFor) {
  const std::size_t n0 = o.shape[0], plane = o.shape[1] * o.shape[2];
  PlaneLists inPlane(n0);
  forChunks(parallelFor, n0, 1, [&](std::size_t b, std::size_t e, unsigned) {
    for (std::size_t i = b; i < e; i++)
      for (std::size_t v = i * plane; v < (i + 1) * plane; v++)
        if (dt[v] > 0 && labels[v] == 0) inPlane[i].push_back(v);
  });
  return inPlane;
}

std::size_t labelOrphans(VoxelArray<std::int32_t>& labels, const float* dt, const Offsets& o, PlaneLists&& inPlane,
                         const ParallelFor& parallelFor, const std::atomic<bool>* cancel) {
  const std::size_t n0 = o.shape[0];
  // The components, marked −1, their voxels listed one after the other.
  std::vector<std::uint64_t> voxels, start;
  for (std::size_t i = 0; i < n0; i++) {
    checkCancel(cancel);
    for (std::uint64_t first : inPlane[i]) {
      if (labels[first] != 0) continue;
      start.push_back(voxels.size());
      labels[first] = -1;
      voxels.push_back(first);
      for (std::size_t at = start.back(); at < voxels.size(); at++) {
        forNeighbours(o, voxels[at], true, [&](std::size_t u) {
          if (dt[u] > 0 && labels[u] == 0) {
            labels[u] = -1;
            voxels.push_back(u);
          }
        });
      }
    }
    std::vector<std::uint64_t>().swap(inPlane[i]);
  }
  const std::size_t orphans = start.size();
  start.push_back(voxels.size());
  // Breadth-first outwards from each to the nearest labelled voxel, through
  // solid and orphans: in a thin image a component may have only other
  // components between it and every labelled voxel.
  std::vector<std::int32_t> found(orphans, 0);
  forChunks(parallelFor, orphans, 16, [&](std::size_t b, std::size_t e, unsigned) {
    std::unordered_set<std::uint64_t> seen;
    std::vector<std::uint64_t> frontier, next;
    for (std::size_t c = b; c < e; c++) {
      checkCancel(cancel);
      seen.clear();
      frontier.assign(voxels.begin() + std::ptrdiff_t(start[c]), voxels.begin() + std::ptrdiff_t(start[c + 1]));
      seen.insert(frontier.begin(), frontier.end());
      std::int32_t label = 0;
      while (!frontier.empty() && label == 0) {
        next.clear();
        for (std::uint64_t v : frontier) {
          forFaceNeighbours(o, v, [&](std::size_t u) {
            if (label != 0 || !seen.insert(u).second) return;
            if (labels[u] > 0) {
              label = labels[u];
            } else {
              next.push_back(u);
            }
          });
          if (label != 0) break;
        }
        frontier.swap(next);
      }
      found[c] = label;
    }
  });
  for (std::size_t c = 0; c < orphans; c++)
    for (std::uint64_t x = start[c]; x < start[c + 1]; x++) labels[voxels[x]] = found[c];
  return orphans;
}

/// Marker-based watershed of −s over the pore voxels (6-connected): a voxel
/// takes the label of the voxel whose turn reached it, turns going by
/// increasing −s and, at equal values, by the order reached. Pore voxels no marker
/// reaches through pore take the label of the nearest labelled voxel through
/// solid and other such voxels (as a watershed over the whole image, masked
/// afterwards, gives them).
/// Voxel positions in bricks of 8³ (2 kB of 4-byte values, within one page):
/// the flood reads a voxel's six neighbours, which in C order are a plane
/// apart; in bricks most of them share the voxel's page and cache lines.
struct Bricks {
  explicit Bricks(const Shape& n)
      : nb1((n[1] + 7) / 8), nb2((n[2] + 7) / 8), size(((n[0] + 7) / 8) * nb1 * nb2 * 512) {}
  std::size_t at(std::size_t i, std::size_t j, std::size_t k) const {
    return ((((i >> 3) * nb1 + (j >> 3)) * nb2 + (k >> 3)) << 9) | ((i & 7) << 6) | ((j & 7) << 3) | (k & 7);
  }
  std::size_t nb1, nb2, size;
};

VoxelArray<std::int32_t> watershed(VoxelArray<float>& smooth, const float* dt,
                                   const std::vector<std::pair<std::uint64_t, std::int32_t>>& markers, const Offsets& o,
                                   const ParallelFor& parallelFor, const std::atomic<bool>* cancel) {
  const std::size_t n0 = o.shape[0], n1 = o.shape[1], n2 = o.shape[2];
  const std::size_t voxels = n0 * n1 * n2;
  constexpr std::int32_t kSolid = -2;
  const Bricks bricks(o.shape);
  // The smoothed distance in bricks (the C-order copy is freed), and the
  // labels in bricks with solid marked, so that a neighbour costs one read.
  std::vector<float> sb(bricks.size, 0.0f);
  forChunks(parallelFor, n0, 1, [&](std::size_t b, std::size_t e, unsigned) {
    for (std::size_t i = b; i < e; i++)
      for (std::size_t j = 0; j < n1; j++)
        for (std::size_t k = 0; k < n2; k++) sb[bricks.at(i, j, k)] = smooth[(i * n1 + j) * n2 + k];
  });
  float highest = 0;
  for (float x : smooth) highest = std::max(highest, x);
  VoxelArray<float>().swap(smooth);
  std::vector<std::int32_t> lb(bricks.size, 0);
  forChunks(parallelFor, n0, 1, [&](std::size_t b, std::size_t e, unsigned) {
    for (std::size_t i = b; i < e; i++)
      for (std::size_t j = 0; j < n1; j++)
        for (std::size_t k = 0; k < n2; k++)
          if (!(dt[(i * n1 + j) * n2 + k] > 0)) lb[bricks.at(i, j, k)] = kSolid;
  });
  LevelQueue queue(-highest, 0.0f, [&](const auto& fn) {
    for (std::size_t i = 0; i < n0; i++)
      for (std::size_t j = 0; j < n1; j++)
        for (std::size_t k = 0; k < n2; k++)
          if (dt[(i * n1 + j) * n2 + k] > 0) fn(-sb[bricks.at(i, j, k)]);
  });
  for (const auto& [v, label] : markers) {
    std::size_t i, j, k;
    o.coords(v, i, j, k);
    const std::size_t at = bricks.at(i, j, k);
    lb[at] = label;
    queue.push(-sb[at], v, label);
  }
  std::size_t popped = 0;
  const std::size_t plane = n1 * n2;
  const auto floodStart = std::chrono::steady_clock::now();
  while (!queue.empty()) {
    const auto [v, label] = queue.pop();
    if ((++popped & 0xffff) == 0) checkCancel(cancel);
    // The next voxel's neighbourhood is fetched while this one's is processed.
    std::uint64_t next;
    if (queue.peek(next)) {
      std::size_t a, b, c;
      o.coords(next, a, b, c);
      __builtin_prefetch(&lb[bricks.at(a, b, c)]);
      if (a > 0) __builtin_prefetch(&lb[bricks.at(a - 1, b, c)]);
      if (a + 1 < n0) __builtin_prefetch(&lb[bricks.at(a + 1, b, c)]);
      if (b > 0) __builtin_prefetch(&lb[bricks.at(a, b - 1, c)]);
      if (b + 1 < n1) __builtin_prefetch(&lb[bricks.at(a, b + 1, c)]);
    }
    std::size_t i, j, k;
    o.coords(v, i, j, k);
    auto reach = [&](std::size_t at, std::size_t u) {
      if (lb[at] == 0) {
        lb[at] = label;
        queue.push(-sb[at], u, label);
      }
    };
    if (i > 0) reach(bricks.at(i - 1, j, k), v - plane);
    if (i + 1 < n0) reach(bricks.at(i + 1, j, k), v + plane);
    if (j > 0) reach(bricks.at(i, j - 1, k), v - n2);
    if (j + 1 < n1) reach(bricks.at(i, j + 1, k), v + n2);
    if (k > 0) reach(bricks.at(i, j, k - 1), v - 1);
    if (k + 1 < n2) reach(bricks.at(i, j, k + 1), v + 1);
  }
  if (std::getenv("PNM_DEBUG")) std::fprintf(stderr, "flood loop %.3f s\n", seconds(floodStart));
  std::vector<float>().swap(sb);
  VoxelArray<std::int32_t> labels(voxels);
  forChunks(parallelFor, n0, 1, [&](std::size_t b, std::size_t e, unsigned) {
    for (std::size_t i = b; i < e; i++)
      for (std::size_t j = 0; j < n1; j++)
        for (std::size_t k = 0; k < n2; k++)
          labels[(i * n1 + j) * n2 + k] = std::max<std::int32_t>(0, lb[bricks.at(i, j, k)]);
  });
  std::vector<std::int32_t>().swap(lb);
  const auto flooded = std::chrono::steady_clock::now();
  const std::size_t orphanComponents =
      labelOrphans(labels, dt, o, findOrphans(labels, dt, o, parallelFor), parallelFor, cancel);
  if (std::getenv("PNM_DEBUG"))
    std::fprintf(stderr, "flood %zu voxels, then %zu orphan components in %.3f s\n", popped, orphanComponents,
                 seconds(flooded));
  return labels;
}

/// Marker-based watershed of −s over the pore voxels (6-connected), computed
/// in parallel with the same labels on any number of threads:
///  1. every pore voxel points to its steepest ascent, the face neighbour in
///     the pore with the largest s if that is above its own (the first of
///     equals in the order −i, +i, −j, +j, −k, +k); a voxel with none is a
///     root, and its catchment basin is the voxels whose path ends there
///     (the drop-of-water watershed of −s, one basin per regional minimum
///     voxel of −s);
///  2. touching basins are joined by an edge at their pass, the largest over
///     their touching voxel pairs of the smaller s of the pair (the level at
///     which water rising in one spills into the other);
///  3. the basins holding a marker take its label, and the rest are flooded
///     from them over the basin graph, highest pass first and, at equal
///     passes, the edge reached first: a minimum spanning forest rooted in
///     the markers, i.e. a watershed cut (Cousty et al. 2009, IEEE PAMI 31,
///     1362) of the basin graph;
///  4. each pore voxel takes its basin's label; orphans as labelOrphans.
/// Every marker voxel is a root (no neighbour of a peak is above it), so
/// each marker keeps its own voxels. Against a voxel-by-voxel priority flood
/// (scikit-image's), the borders between regions keep to basin borders,
/// which are the valleys of s (constrictions), instead of running where two
/// floods met. Stages 1, 2 and 4 run on every thread over planes; 3 works on
/// the basin graph, a few basins per hundred pore voxels.
VoxelArray<std::int32_t> watershedBasins(VoxelArray<float>& smooth, const float* dt,
                                         const std::vector<std::pair<std::uint64_t, std::int32_t>>& markers,
                                         const Offsets& o, const ParallelFor& parallelFor,
                                         const std::atomic<bool>* cancel) {
  const std::size_t n0 = o.shape[0], n1 = o.shape[1], n2 = o.shape[2];
  const std::size_t plane = n1 * n2, voxels = n0 * plane;
  constexpr std::uint8_t kRoot = 0, kSolidVoxel = 7;
  const std::ptrdiff_t step[7] = {
      0, -std::ptrdiff_t(plane), std::ptrdiff_t(plane), -std::ptrdiff_t(n2), std::ptrdiff_t(n2), -1, 1};
  const auto t0 = std::chrono::steady_clock::now();
  // Solid at −∞, so that a neighbour costs one read (s is freed at the end).
  float* const s = smooth.data();
  forChunks(parallelFor, n0, 1, [&](std::size_t b, std::size_t e, unsigned) {
    for (std::size_t v = b * plane; v < e * plane; v++)
      if (!(dt[v] > 0)) s[v] = -kInfinity;
  });
  // 1. Steepest ascent, and the roots of each plane.
  VoxelArray<std::uint8_t> ascent(voxels);
  PlaneLists roots(n0);
  forChunks(parallelFor, n0, 1, [&](std::size_t b, std::size_t e, unsigned) {
    for (std::size_t i = b; i < e; i++) {
      checkCancel(cancel);
      for (std::size_t j = 0; j < n1; j++) {
        const std::size_t row = i * plane + j * n2;
        for (std::size_t k = 0; k < n2; k++) {
          const std::size_t v = row + k;
          if (s[v] == -kInfinity) {
            ascent[v] = kSolidVoxel;
            continue;
          }
          float best = s[v];
          std::uint8_t to = kRoot;
          auto offer = [&](bool inside, std::uint8_t d) {
            if (!inside) return;
            const std::size_t u = std::size_t(std::ptrdiff_t(v) + step[d]);
            if (s[u] > best) {
              best = s[u];
              to = d;
            }
          };
          offer(i > 0, 1);
          offer(i + 1 < n0, 2);
          offer(j > 0, 3);
          offer(j + 1 < n1, 4);
          offer(k > 0, 5);
          offer(k + 1 < n2, 6);
          ascent[v] = to;
          if (to == kRoot) roots[i].push_back(v);
        }
      }
    }
  });
  std::vector<std::uint64_t> rootsIn(n0 + 1, 0);
  for (std::size_t i = 0; i < n0; i++) rootsIn[i + 1] = rootsIn[i] + roots[i].size();
  const std::uint64_t basins = rootsIn[n0];
  if (basins >= std::uint64_t(std::numeric_limits<std::int32_t>::max()))
    rangeError("image", "has more watershed basins than a 32-bit label can number");
  // Basins numbered by their roots in raster order.
  VoxelArray<std::int32_t> labels(voxels);
  forChunks(parallelFor, n0, 1, [&](std::size_t b, std::size_t e, unsigned) {
    for (std::size_t i = b; i < e; i++) {
      auto next = static_cast<std::int32_t>(rootsIn[i]);
      for (std::uint64_t v : roots[i]) labels[v] = next++;
      std::vector<std::uint64_t>().swap(roots[i]);
    }
  });
  // Every other pore voxel walks up to its root, or to a voxel whose root is
  // known: a voxel's label is written before its `done` bit (release), read
  // after it (acquire), only by the thread whose planes hold it; the label a
  // voxel gets is its root's whichever way it was found. Solid gets −1.
  constexpr std::uint8_t kDone = 8;
  forChunks(parallelFor, n0, 1, [&](std::size_t b, std::size_t e, unsigned) {
    const std::size_t lo = b * plane, hi = e * plane;
    std::vector<std::size_t> path;
    for (std::size_t v = lo; v < hi; v++) {
      if ((v & 0xffff) == 0) checkCancel(cancel);
      const std::uint8_t d = ascent[v];
      if (d == kSolidVoxel) {
        labels[v] = -1;
        continue;
      }
      if (d == kRoot || (d & kDone)) continue;
      path.assign(1, v);
      std::size_t u = std::size_t(std::ptrdiff_t(v) + step[d]);
      std::int32_t label;
      for (;;) {
        const std::uint8_t a = __atomic_load_n(&ascent[u], __ATOMIC_ACQUIRE);
        if (a == kRoot) {
          label = labels[u];  // written before this loop
          break;
        }
        if (a & kDone) {
          label = __atomic_load_n(&labels[u], __ATOMIC_RELAXED);
          break;
        }
        if (u >= lo && u < hi) path.push_back(u);
        u = std::size_t(std::ptrdiff_t(u) + step[a]);
      }
      for (std::size_t w : path) {
        __atomic_store_n(&labels[w], label, __ATOMIC_RELAXED);
        __atomic_store_n(&ascent[w], std::uint8_t(ascent[w] | kDone), __ATOMIC_RELEASE);
      }
    }
  });
  const double tBasins = seconds(t0);
  // 2. Basin edges at their passes, per plane (with the plane after it),
  //    each plane's list reduced, then all of them.
  struct Edge {
    std::uint64_t key;  // lower basin << 32 | higher basin
    float pass;
  };
  auto reduce = [](std::vector<Edge>& edges) {
    std::sort(edges.begin(), edges.end(), [](const Edge& x, const Edge& y) { return x.key < y.key; });
    std::size_t kept = 0;
    for (std::size_t x = 0; x < edges.size(); x++) {
      if (kept > 0 && edges[kept - 1].key == edges[x].key) {
        edges[kept - 1].pass = std::max(edges[kept - 1].pass, edges[x].pass);
      } else {
        edges[kept++] = edges[x];
      }
    }
    edges.resize(kept);
  };
  std::vector<std::vector<Edge>> perPlane(n0);
  const std::vector<std::int32_t> none(n2, -1);
  forChunks(parallelFor, n0, 1, [&](std::size_t b, std::size_t e, unsigned) {
    std::vector<std::uint8_t> mask(n2);
    for (std::size_t i = b; i < e; i++) {
      checkCancel(cancel);
      std::vector<Edge>& edges = perPlane[i];
      // Most pairs repeat at once along a border: a small cache merges them.
      constexpr std::size_t kCache = 64;
      Edge cache[kCache];
      for (Edge& c : cache) c = {~std::uint64_t(0), 0};
      // Per row, which of the three forward neighbours lie in another basin
      // (a branch-free pass the compiler vectorises), then only those.
      for (std::size_t j = 0; j < n1; j++) {
        const std::size_t row = i * plane + j * n2;
        const std::int32_t* here = labels.data() + row;
        const std::int32_t* across = j + 1 < n1 ? here + n2 : none.data();
        const std::int32_t* below = i + 1 < n0 ? here + plane : none.data();
        auto differs = [](std::int32_t a, std::int32_t b) { return std::uint8_t((a != b) & (b >= 0)); };
        for (std::size_t k = 0; k + 1 < n2; k++) {
          const std::int32_t lv = here[k];
          mask[k] = std::uint8_t((lv >= 0) *
                                 (differs(lv, here[k + 1]) | differs(lv, across[k]) << 1 | differs(lv, below[k]) << 2));
        }
        {
          const std::int32_t lv = here[n2 - 1];
          mask[n2 - 1] = std::uint8_t((lv >= 0) * (differs(lv, across[n2 - 1]) << 1 | differs(lv, below[n2 - 1]) << 2));
        }
        for (std::size_t k = 0; k < n2; k++) {
          const std::uint8_t m = mask[k];
          if (m == 0) continue;
          const std::size_t v = row + k;
          const std::int32_t lv = here[k];
          auto join = [&](std::size_t u) {
            const auto p = std::uint32_t(lv), q = std::uint32_t(labels[u]);
            const std::uint64_t key = p < q ? (std::uint64_t(p) << 32 | q) : (std::uint64_t(q) << 32 | p);
            const float pass = std::min(s[u], s[v]);
            Edge& c = cache[(key * 0x9e3779b97f4a7c15ull) >> 58];
            if (c.key == key) {
              c.pass = std::max(c.pass, pass);
            } else {
              if (c.key != ~std::uint64_t(0)) edges.push_back(c);
              c = {key, pass};
            }
          };
          if (m & 1) join(v + 1);
          if (m & 2) join(v + n2);
          if (m & 4) join(v + plane);
        }
      }
      for (const Edge& c : cache)
        if (c.key != ~std::uint64_t(0)) edges.push_back(c);
      reduce(edges);
    }
  });
  std::vector<Edge> edges;
  {
    std::size_t total = 0;
    for (const auto& p : perPlane) total += p.size();
    edges.reserve(total);
    for (auto& p : perPlane) {
      edges.insert(edges.end(), p.begin(), p.end());
      std::vector<Edge>().swap(p);
    }
  }
  reduce(edges);
  VoxelArray<std::uint8_t>().swap(ascent);
  VoxelArray<float>().swap(smooth);
  // The basin graph, both ways (CSR).
  std::vector<std::uint64_t> first(basins + 1, 0);
  for (const Edge& e : edges) {
    first[(e.key >> 32) + 1]++;
    first[(e.key & 0xffffffffu) + 1]++;
  }
  for (std::uint64_t x = 0; x < basins; x++) first[x + 1] += first[x];
  std::vector<std::pair<std::uint32_t, float>> adjacent(2 * edges.size());
  {
    std::vector<std::uint64_t> at(first.begin(), first.end() - 1);
    for (const Edge& e : edges) {
      const auto p = std::uint32_t(e.key >> 32), q = std::uint32_t(e.key & 0xffffffffu);
      adjacent[at[p]++] = {q, e.pass};
      adjacent[at[q]++] = {p, e.pass};
    }
  }
  std::vector<Edge>().swap(edges);
  const double tEdges = seconds(t0);
  // 3. The flood over the basin graph from the markers' basins.
  std::vector<std::int32_t> basinLabel(basins, 0);
  struct Reach {
    float pass;
    std::uint64_t age;
    std::uint32_t basin;
    std::int32_t label;
  };
  auto later = [](const Reach& x, const Reach& y) { return x.pass < y.pass || (x.pass == y.pass && x.age > y.age); };
  std::vector<Reach> heap;
  std::uint64_t age = 0;
  auto spread = [&](std::uint32_t basin, std::int32_t label) {
    for (std::uint64_t x = first[basin]; x < first[basin + 1]; x++) {
      if (basinLabel[adjacent[x].first] != 0) continue;
      heap.push_back({adjacent[x].second, age++, adjacent[x].first, label});
      std::push_heap(heap.begin(), heap.end(), later);
    }
  };
  for (const auto& [v, label] : markers) basinLabel[std::size_t(labels[v])] = label;
  for (const auto& [v, label] : markers) spread(std::uint32_t(labels[v]), label);
  std::size_t popped = 0;
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), later);
    const Reach r = heap.back();
    heap.pop_back();
    if ((++popped & 0xffff) == 0) checkCancel(cancel);
    if (basinLabel[r.basin] != 0) continue;
    basinLabel[r.basin] = r.label;
    spread(r.basin, r.label);
  }
  const double tFlood = seconds(t0);
  // 4. Voxels take their basin's label (solid 0); orphans listed per plane.
  PlaneLists orphans(n0);
  forChunks(parallelFor, n0, 1, [&](std::size_t b, std::size_t e, unsigned) {
    for (std::size_t i = b; i < e; i++)
      for (std::size_t v = i * plane; v < (i + 1) * plane; v++) {
        const std::int32_t l = labels[v];
        labels[v] = l < 0 ? 0 : basinLabel[std::size_t(l)];
        if (l >= 0 && labels[v] == 0) orphans[i].push_back(v);
      }
  });
  const std::size_t orphanComponents = labelOrphans(labels, dt, o, std::move(orphans), parallelFor, cancel);
  if (std::getenv("PNM_DEBUG"))
    std::fprintf(stderr,
                 "watershed: %llu basins, %zu edges, %zu orphan components; basins %.3f s, edges %.3f, flood %.3f, "
                 "labels %.3f\n",
                 static_cast<unsigned long long>(basins), adjacent.size() / 2, orphanComponents, tBasins,
                 tEdges - tBasins, tFlood - tEdges, seconds(t0) - tFlood);
  return labels;
}

struct ThroatSums {
  std::uint64_t faces = 0;      // contact faces
  std::uint64_t perimeter = 0;  // contact faces with a voxel near solid (distance < 2)
  // The throat's peak, as PoreSpy's regions_to_network: the largest distance
  // on the interface's voxels of the higher-labelled region (those 6-touching
  // the other), and the first voxel (C order) that holds it.
  float peak = -1;
  std::uint64_t peakVoxel = ~std::uint64_t(0);
  void offer(float d, std::uint64_t voxel) {
    if (d > peak || (d == peak && voxel < peakVoxel)) {
      peak = d;
      peakVoxel = voxel;
    }
  }
};

/// One pore per region and one throat per pair of 6-touching regions; boundary
/// pores on the faces asked for.
Network buildNetwork(const float* dt, const std::int32_t* labels, std::size_t regionCount, const Offsets& o,
                     const ExtractOptions& options, const std::atomic<bool>* cancel) {
  const std::size_t n0 = o.shape[0], n1 = o.shape[1], n2 = o.shape[2];
  const double h = options.voxelSize;
  struct RegionSums {
    double count = 0, x = 0, y = 0, z = 0, solidFaces = 0;
    float maxDistance = 0;
  };
  const unsigned workers = std::max(1u, options.workers);
  std::vector<std::vector<RegionSums>> regionSums(workers);
  std::vector<std::unordered_map<std::uint64_t, ThroatSums>> throatSums(workers);
  forChunks(options.parallelFor, n0, 1, [&](std::size_t b, std::size_t e, unsigned worker) {
    auto& regions = regionSums[worker];
    if (regions.empty()) regions.resize(regionCount);
    auto& throats = throatSums[worker];
    for (std::size_t i = b; i < e; i++) {
      checkCancel(cancel);
      for (std::size_t j = 0; j < n1; j++) {
        for (std::size_t k = 0; k < n2; k++) {
          const std::size_t v = o.index(i, j, k);
          const std::int32_t a = labels[v];
          if (a <= 0) continue;
          RegionSums& r = regions[a - 1];
          r.count += 1;
          r.x += double(i);
          r.y += double(j);
          r.z += double(k);
          r.maxDistance = std::max(r.maxDistance, dt[v]);
          forNeighbours(o, v, true, [&](std::size_t u) {
            const std::int32_t bLabel = labels[u];
            if (bLabel == 0) {
              r.solidFaces += 1;
            } else if (bLabel > a) {
              const std::uint64_t key = (std::uint64_t(a) << 32) | std::uint32_t(bLabel);
              ThroatSums& t = throats[key];
              t.faces++;
              if (std::min(dt[v], dt[u]) < 2) t.perimeter++;
              t.offer(dt[u], u);
            }
          });
        }
      }
    }
  });
  std::vector<RegionSums> regions(regionCount);
  for (auto& part : regionSums) {
    if (part.empty()) continue;
    for (std::size_t r = 0; r < regionCount; r++) {
      regions[r].count += part[r].count;
      regions[r].x += part[r].x;
      regions[r].y += part[r].y;
      regions[r].z += part[r].z;
      regions[r].solidFaces += part[r].solidFaces;
      regions[r].maxDistance = std::max(regions[r].maxDistance, part[r].maxDistance);
    }
    std::vector<RegionSums>().swap(part);
  }
  std::unordered_map<std::uint64_t, ThroatSums> throats;
  for (auto& part : throatSums) {
    for (const auto& [key, t] : part) {
      ThroatSums& into = throats[key];
      into.faces += t.faces;
      into.perimeter += t.perimeter;
      into.offer(t.peak, t.peakVoxel);
    }
    std::unordered_map<std::uint64_t, ThroatSums>().swap(part);
  }

  Network net;
  net.shape = o.shape;
  net.voxelSize = h;
  // Boundary pores: per face asked for, one per patch of a region's voxels on
  // the face (4-connected in the face's plane) that holds a voxel off its
  // region's border (26-neighbours all in the region) — as SNOW's boundary
  // regions, which extrude each region's face section without its border.
  struct FaceSums {
    std::int32_t region = 0;
    double count = 0, u = 0, w = 0, perimeter = 0;
    float maxDistance = 0;
    bool core = false;
    // The voxels off the region's border, which snow2 extrudes into its
    // boundary region: their count, centroid, and peak (largest distance,
    // first voxel in raster order).
    double coreCount = 0, coreU = 0, coreW = 0;
    float corePeak = -1;
    std::size_t corePeakU = 0, corePeakW = 0;
  };
  std::vector<std::pair<int, std::vector<FaceSums>>> faces;
  for (int f = 0; f < 6; f++) {
    if (!options.boundaries[f]) continue;
    checkCancel(cancel);
    const int axis = f / 2;
    const std::size_t plane = f % 2 == 0 ? 0 : o.shape[axis] - 1;
    const int ua = axis == 0 ? 1 : 0, wa = axis == 2 ? 1 : 2;
    const std::size_t nu = o.shape[ua], nw = o.shape[wa];
    auto voxel = [&](std::size_t p, std::size_t q) {
      std::size_t c[3];
      c[axis] = plane;
      c[ua] = p;
      c[wa] = q;
      return o.index(c[0], c[1], c[2]);
    };
    std::vector<std::int32_t> patch(nu * nw, -1);
    std::vector<FaceSums> sums;
    std::vector<std::size_t> stack;
    for (std::size_t start = 0; start < nu * nw; start++) {
      const std::int32_t a = labels[voxel(start / nw, start % nw)];
      if (a <= 0 || patch[start] >= 0) continue;
      const auto id = static_cast<std::int32_t>(sums.size());
      sums.push_back(FaceSums{});
      FaceSums& s = sums.back();
      s.region = a;
      patch[start] = id;
      stack.assign(1, start);
      while (!stack.empty()) {
        const std::size_t at = stack.back();
        stack.pop_back();
        const std::size_t p = at / nw, q = at % nw;
        const std::size_t v = voxel(p, q);
        s.count += 1;
        s.u += double(p);
        s.w += double(q);
        if (dt[v] < 2) s.perimeter += 1;
        s.maxDistance = std::max(s.maxDistance, dt[v]);
        bool border = false;
        forNeighbours(o, v, false, [&](std::size_t u) { border = border || labels[u] != a; });
        if (!border) {
          s.core = true;
          s.coreCount += 1;
          s.coreU += double(p);
          s.coreW += double(q);
          // The flood visits voxels out of raster order: ties go to the first in it.
          if (dt[v] > s.corePeak ||
              (dt[v] == s.corePeak && (p < s.corePeakU || (p == s.corePeakU && q < s.corePeakW)))) {
            s.corePeak = dt[v];
            s.corePeakU = p;
            s.corePeakW = q;
          }
        }
        auto visit = [&](std::size_t pp, std::size_t qq) {
          const std::size_t next = pp * nw + qq;
          if (patch[next] < 0 && labels[voxel(pp, qq)] == a) {
            patch[next] = id;
            stack.push_back(next);
          }
        };
        if (p > 0) visit(p - 1, q);
        if (p + 1 < nu) visit(p + 1, q);
        if (q > 0) visit(p, q - 1);
        if (q + 1 < nw) visit(p, q + 1);
      }
    }
    // In the order of their regions (then of their first voxel).
    std::stable_sort(sums.begin(), sums.end(),
                     [](const FaceSums& x, const FaceSums& y) { return x.region < y.region; });
    faces.emplace_back(f, std::move(sums));
  }

  std::size_t boundaryCount = 0;
  for (const auto& [f, sums] : faces)
    for (const FaceSums& s : sums) boundaryCount += s.core;
  const std::size_t poreCount = regionCount + boundaryCount;
  net.coordinates.reserve(3 * poreCount);
  net.volume.reserve(poreCount);
  net.inscribedDiameter.reserve(poreCount);
  net.equivalentDiameter.reserve(poreCount);
  net.surfaceArea.reserve(poreCount);
  net.label.reserve(poreCount);
  net.face.reserve(poreCount);
  const double pi = 3.14159265358979323846;
  for (std::size_t r = 0; r < regionCount; r++) {
    const RegionSums& s = regions[r];
    const double count = std::max(1.0, s.count);
    net.coordinates.push_back((s.x / count + 0.5) * h);
    net.coordinates.push_back((s.y / count + 0.5) * h);
    net.coordinates.push_back((s.z / count + 0.5) * h);
    const double volume = s.count * h * h * h;
    net.volume.push_back(volume);
    net.inscribedDiameter.push_back(2.0 * s.maxDistance * h);
    net.equivalentDiameter.push_back(std::cbrt(6.0 * volume / pi));
    net.surfaceArea.push_back(s.solidFaces * h * h);
    net.label.push_back(static_cast<std::int32_t>(r + 1));
    net.face.push_back(static_cast<std::int8_t>(kInterior));
  }
  // Throats between regions, in the order of their pores.
  std::vector<std::pair<std::uint64_t, ThroatSums>> sorted(throats.begin(), throats.end());
  std::unordered_map<std::uint64_t, ThroatSums>().swap(throats);
  std::sort(sorted.begin(), sorted.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  auto centre = [&](std::size_t pore) { return &net.coordinates[3 * pore]; };
  auto distance = [](const double* x, const double* y) {
    double d2 = 0;
    for (int i = 0; i < 3; i++) d2 += (x[i] - y[i]) * (x[i] - y[i]);
    return std::sqrt(d2);
  };
  // `peak`: the throat's peak (m); `far`: the centre of pore b its total length reaches.
  auto addThroat = [&](std::size_t a, std::size_t b, double faceCount, double perimeter, double peakDistance,
                       const double* peak, const double* far) {
    net.conns.push_back(static_cast<std::int32_t>(a));
    net.conns.push_back(static_cast<std::int32_t>(b));
    net.throatArea.push_back(faceCount * h * h);
    net.throatPerimeter.push_back(perimeter * h);
    net.throatInscribedDiameter.push_back(2.0 * std::max(0.0, peakDistance) * h);
    net.throatLength.push_back(distance(centre(a), centre(b)));
    net.throatTotalLength.push_back(distance(centre(a), peak) + distance(far, peak));
    net.throatDirectLength.push_back(distance(centre(a), far));
  };
  const std::size_t throatCount = sorted.size() + boundaryCount;
  net.conns.reserve(2 * throatCount);
  net.throatArea.reserve(throatCount);
  net.throatPerimeter.reserve(throatCount);
  net.throatInscribedDiameter.reserve(throatCount);
  net.throatLength.reserve(throatCount);
  net.throatTotalLength.reserve(throatCount);
  net.throatDirectLength.reserve(throatCount);
  for (const auto& [key, t] : sorted) {
    const std::size_t a = std::size_t(key >> 32) - 1, b = std::size_t(key & 0xffffffffu) - 1;
    std::size_t c[3];
    o.coords(t.peakVoxel, c[0], c[1], c[2]);
    const double peak[3] = {(double(c[0]) + 0.5) * h, (double(c[1]) + 0.5) * h, (double(c[2]) + 0.5) * h};
    addThroat(a, b, double(t.faces), double(t.perimeter), t.peak, peak, centre(b));
  }
  for (const auto& [f, sums] : faces) {
    const int axis = f / 2;
    const int ua = axis == 0 ? 1 : 0, wa = axis == 2 ? 1 : 2;
    // snow2's boundary region: the section off the border extruded kBoundaryWidth
    // voxels out of the face; its first layer is the throat's interface.
    const double outward = f % 2 == 0 ? -1.0 : 1.0;
    const double facePlane = f % 2 == 0 ? 0.0 : o.shape[axis] * h;
    for (const FaceSums& s : sums) {
      if (!s.core) continue;
      const std::size_t r = std::size_t(s.region) - 1;
      const std::size_t pore = net.volume.size();
      double c[3];
      c[axis] = facePlane;
      c[ua] = (s.u / s.count + 0.5) * h;
      c[wa] = (s.w / s.count + 0.5) * h;
      for (double x : c) net.coordinates.push_back(x);
      net.volume.push_back(0);
      net.inscribedDiameter.push_back(2.0 * s.maxDistance * h);
      net.equivalentDiameter.push_back(std::cbrt(6.0 * s.coreCount * kBoundaryWidth / pi) * h);
      net.surfaceArea.push_back(0);
      net.label.push_back(s.region);
      net.face.push_back(static_cast<std::int8_t>(f));
      double peak[3], slab[3];
      peak[axis] = facePlane + outward * 0.5 * h;
      peak[ua] = (double(s.corePeakU) + 0.5) * h;
      peak[wa] = (double(s.corePeakW) + 0.5) * h;
      slab[axis] = facePlane + outward * 0.5 * kBoundaryWidth * h;
      slab[ua] = (s.coreU / s.coreCount + 0.5) * h;
      slab[wa] = (s.coreW / s.coreCount + 0.5) * h;
      addThroat(r, pore, s.count, s.perimeter, s.corePeak, peak, slab);
    }
  }
  return net;
}

}  // namespace

Network extract(std::vector<std::uint8_t>&& solid, const ExtractOptions& options, ExtractReport* report) {
  const Shape shape = options.shape;
  const double voxelsD = double(shape[0]) * double(shape[1]) * double(shape[2]);
  if (!(voxelsD >= 1) || voxelsD != double(solid.size()))
    throw PnmError(ErrorKind::Range, "image.shape", "does not match the image's voxel count");
  if (!(options.voxelSize > 0) || !std::isfinite(options.voxelSize))
    rangeError("image.voxelSize", "must be a positive finite number");
  if (!(options.sigma >= 0 && options.sigma <= 100)) rangeError("sigma", "must be a number in [0, 100] (voxels)");
  if (!(options.rMax >= 1 && options.rMax <= 64)) rangeError("rMax", "must be an integer in [1, 64] (voxels)");
  const std::size_t voxels = solid.size();
  std::size_t pore = 0;
  for (std::uint8_t s : solid) {
    if (s > 1) rangeError("image.solid", "must hold only 0 (pore) and 1 (solid), found " + std::to_string(int(s)));
    pore += s == 0;
  }
  if (pore == 0) rangeError("image.solid", "has no pore voxel (every value is 1): there is no pore space to extract");
  if (pore == voxels)
    rangeError("image.solid", "has no solid voxel (every value is 0): pores are undefined without solid walls");
  const Offsets o{std::ptrdiff_t(shape[1]), std::ptrdiff_t(shape[2]), shape};
  ExtractReport local;
  ExtractReport& rep = report ? *report : local;
  auto stage = [&](int s) {
    if (options.stage) options.stage->store(s);
    checkCancel(options.cancel);
  };

  stage(0);
  auto t0 = std::chrono::steady_clock::now();
  VoxelArray<float> dt(voxels);
  distanceTransform(solid.data(), shape, dt.data(), options.parallelFor);
  std::vector<std::uint8_t>().swap(solid);
  rep.distanceTransform = seconds(t0);

  stage(1);
  t0 = std::chrono::steady_clock::now();
  VoxelArray<float> smooth(voxels);
  forChunks(options.parallelFor, voxels, std::size_t(1) << 20, [&](std::size_t b, std::size_t e, unsigned) {
    std::copy(dt.begin() + std::ptrdiff_t(b), dt.begin() + std::ptrdiff_t(e), smooth.begin() + std::ptrdiff_t(b));
  });
  gaussianSmooth(smooth.data(), shape, options.sigma, options.parallelFor);
  rep.smoothing = seconds(t0);

  stage(2);
  t0 = std::chrono::steady_clock::now();
  std::vector<std::uint64_t> peaks =
      findPeaks(smooth.data(), dt.data(), o, options.rMax, options.parallelFor, options.cancel);
  // Saddles: clusters 6-connected (SNOW labels them so).
  {
    std::size_t count = 0;
    const std::vector<std::int32_t> component = components(peaks, o, true, count);
    rep.peaksFound = count;
    std::vector<std::size_t> start, order;
    groupBy(component, count, start, order);
    std::vector<char> saddle(count, 0);
    forChunks(options.parallelFor, count, 16, [&](std::size_t b, std::size_t e, unsigned) {
      std::vector<std::uint64_t> cluster;
      for (std::size_t c = b; c < e; c++) {
        checkCancel(options.cancel);
        cluster.clear();
        for (std::size_t x = start[c]; x < start[c + 1]; x++) cluster.push_back(peaks[order[x]]);
        saddle[c] = isSaddle(smooth.data(), o, cluster);
      }
    });
    std::vector<std::uint64_t> kept;
    for (std::size_t x = 0; x < peaks.size(); x++)
      if (!saddle[component[x]]) kept.push_back(peaks[x]);
    for (char s : saddle) rep.saddlesTrimmed += s != 0;
    peaks.swap(kept);
  }
  // Nearby peaks: clusters 26-connected, compared by their truncated centroids.
  {
    std::size_t count = 0;
    const std::vector<std::int32_t> component = components(peaks, o, false, count);
    std::vector<std::array<double, 4>> sums(count, {0, 0, 0, 0});
    for (std::size_t x = 0; x < peaks.size(); x++) {
      std::size_t c[3];
      o.coords(peaks[x], c[0], c[1], c[2]);
      auto& s = sums[component[x]];
      for (int a = 0; a < 3; a++) s[a] += double(c[a]);
      s[3] += 1;
    }
    std::vector<std::array<std::int64_t, 3>> centres(count);
    for (std::size_t c = 0; c < count; c++)
      for (int a = 0; a < 3; a++) centres[c][a] = static_cast<std::int64_t>(sums[c][a] / sums[c][3]);
    const std::vector<bool> keep = trimNearby(smooth.data(), o, centres, rep.nearbyTrimmed);
    std::vector<std::uint64_t> kept;
    for (std::size_t x = 0; x < peaks.size(); x++)
      if (keep[component[x]]) kept.push_back(peaks[x]);
    peaks.swap(kept);
  }
  // Markers: the remaining peak voxels, 6-connected clusters numbered 1, 2, ...
  std::size_t markers = 0;
  std::vector<std::pair<std::uint64_t, std::int32_t>> markerVoxels;
  {
    const std::vector<std::int32_t> component = components(peaks, o, true, markers);
    if (markers >= std::size_t(std::numeric_limits<std::int32_t>::max()))
      rangeError("image", "has more pores than a 32-bit label can number");
    markerVoxels.reserve(peaks.size());
    for (std::size_t x = 0; x < peaks.size(); x++) markerVoxels.push_back({peaks[x], component[x] + 1});
    std::vector<std::uint64_t>().swap(peaks);
  }
  if (markers == 0) {
    // No peak at all: every pore voxel is within reach of solid that the filter
    // counts as higher (a pore space one or two voxels thin). Each connected
    // pore component then becomes one pore, flooded from its deepest voxel.
    std::vector<std::uint8_t> seen(voxels, 0);
    std::vector<std::uint64_t> stack;
    for (std::size_t start = 0; start < voxels; start++) {
      if (seen[start] || !(dt[start] > 0)) continue;
      checkCancel(options.cancel);
      std::uint64_t deepest = start;
      seen[start] = 1;
      stack.assign(1, start);
      while (!stack.empty()) {
        const std::uint64_t v = stack.back();
        stack.pop_back();
        if (smooth[v] > smooth[deepest] || (smooth[v] == smooth[deepest] && v < deepest)) deepest = v;
        forFaceNeighbours(o, v, [&](std::size_t u) {
          if (!seen[u] && dt[u] > 0) {
            seen[u] = 1;
            stack.push_back(u);
          }
        });
      }
      markerVoxels.push_back({deepest, static_cast<std::int32_t>(++markers)});
    }
  }
  rep.peaks = seconds(t0);

  stage(3);
  t0 = std::chrono::steady_clock::now();
  VoxelArray<std::int32_t> labels =
      options.priorityFlood ? watershed(smooth, dt.data(), markerVoxels, o, options.parallelFor, options.cancel)
                            : watershedBasins(smooth, dt.data(), markerVoxels, o, options.parallelFor, options.cancel);
  rep.watershed = seconds(t0);

  stage(4);
  t0 = std::chrono::steady_clock::now();
  Network net = buildNetwork(dt.data(), labels.data(), markers, o, options, options.cancel);
  net.porosity = double(pore) / double(voxels);
  net.regions = std::move(labels);
  rep.network = seconds(t0);
  return net;
}

}  // namespace peclet::pnm
