#include "lattice.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <limits>
#include <new>
#include <string>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "d3q19.hpp"

// The step's inner functions are forced inline so that the AVX2 copy of the
// step (stepChunksAvx2) compiles all of them for its target. The sanitized
// build (which checks memory, not speed) has neither: with them the step's
// instantiations took minutes to compile under ASan + UBSan.
#if defined(__SANITIZE_ADDRESS__)
#define PECLET_FLOW_INLINE inline
#else
#define PECLET_FLOW_INLINE inline __attribute__((always_inline))
#endif
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__SANITIZE_ADDRESS__)
#define PECLET_FLOW_X86 1
#else
#define PECLET_FLOW_X86 0
#endif

namespace peclet::flow {

namespace {

using namespace d3q19;

// A sparse pull source with this bit set bounces back from the node itself.
constexpr std::uint32_t kBounce = 0x80000000u;
constexpr double kMaxVoxels = 4294967295.0;  // voxel indices are 32-bit
constexpr double kMaxSparseNodes = 2147483647.0;

// Drag coefficient γ of a gray voxel of solid fraction s < 1: 2s/(1 − s), so
// that a uniform gray medium has the permeability ν(1 − s)/(2s) of partial
// bounce-back (Walsh, Burwinkle & Saar 2009) whatever drives the flow.
double grayDrag(double s) { return 2.0 * s / (1.0 - s); }

#if PECLET_FLOW_X86
bool cpuHasAvx2() {
  const char* isa = std::getenv("PECLET_FLOW_ISA");
  if (isa != nullptr && std::string(isa) == "sse2") return false;
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
#endif

std::size_t bytesOfPrecision(Precision p) { return p == Precision::F32 ? 4 : 8; }

// The populations' storage: aligned to 2 MiB and, on Linux, marked for transparent huge pages
// (where the system leaves them to madvise). A step streams 19 arrays in and 19 out, from up to
// 3 rows each: with 4 KiB pages that is more pages than the data TLB holds.
template <typename T>
struct PageAllocator {
  using value_type = T;
  static constexpr std::size_t kHuge = std::size_t(2) << 20;
  PageAllocator() = default;
  template <typename U>
  explicit PageAllocator(const PageAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    if (n > std::size_t(std::numeric_limits<std::ptrdiff_t>::max()) / 2 / sizeof(T)) throw std::bad_alloc();
    const std::size_t bytes = (n * sizeof(T) + kHuge - 1) / kHuge * kHuge;
    void* p = ::operator new(bytes, std::align_val_t(kHuge));
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (bytes >= 2 * kHuge) madvise(p, bytes, MADV_HUGEPAGE);
#endif
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t) noexcept { ::operator delete(p, std::align_val_t(kHuge)); }
  template <typename U>
  bool operator==(const PageAllocator<U>&) const noexcept {
    return true;
  }
  template <typename U>
  bool operator!=(const PageAllocator<U>&) const noexcept {
    return false;
  }
};

std::string str(double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.17g", v);
  return buffer;
}

// In place unless interpolated walls need the two-lattice scheme; the
// environment can ask for either (PECLET_FLOW_STREAMING, for comparisons).
bool streamsInPlace(Streaming requested, bool interpolated) {
  if (interpolated) return false;
  if (requested != Streaming::Auto) return requested == Streaming::InPlace;
  const char* env = std::getenv("PECLET_FLOW_STREAMING");
  return !(env != nullptr && std::string(env) == "two-lattice");
}

// Bytes held per voxel (dense) or fluid node (sparse): the populations (one
// copy in place, two otherwise), the solid mask, the pull table and node list.
double denseBytesPerVoxel(std::size_t t, bool inPlace) { return (inPlace ? 1.0 : 2.0) * Q * double(t) + 1.0; }
double sparseBytesPerNode(std::size_t t, bool inPlace) {
  return (inPlace ? 1.0 : 2.0) * Q * double(t) + 4.0 * (Q - 1) + 4.0;
}
// Bytes moved per update: 19 values read and 19 written, plus the mask
// (dense) or, sparse, the pull table (every step of two lattices, every odd
// step in place: half of it on average).
double denseBytesPerUpdate(std::size_t t) { return 2.0 * Q * double(t) + 1.0; }
double sparseBytesPerUpdate(std::size_t t, bool inPlace) {
  return 2.0 * Q * double(t) + (inPlace ? 0.5 : 1.0) * 4.0 * (Q - 1);
}

// The layout that moves fewer bytes per step.
Layout chooseLayout(Layout requested, std::size_t voxels, std::size_t fluid, std::size_t t, bool interpolated,
                    bool inPlace) {
  if (requested != Layout::Auto) return requested;
  if (interpolated) return Layout::Sparse;
  if (double(fluid) > kMaxSparseNodes) return Layout::Dense;
  return double(fluid) * sparseBytesPerUpdate(t, inPlace) < double(voxels) * denseBytesPerUpdate(t) ? Layout::Sparse
                                                                                                    : Layout::Dense;
}

std::size_t countFluid(const LatticeOptions& o, std::size_t voxels) {
  std::size_t fluid = 0;
  for (std::size_t v = 0; v < voxels; v++) {
    const bool solid = (!o.solid.empty() && o.solid[v] != 0) ||
                       (!o.solidFraction.empty() && o.solidFraction[v] >= 1.0) || (!o.sdf.empty() && !(o.sdf[v] > 0.0));
    fluid += solid ? 0 : 1;
  }
  return fluid;
}

double voxelCount(const std::array<std::size_t, 3>& shape) {
  return double(shape[0]) * double(shape[1]) * double(shape[2]);
}

void validate(const LatticeOptions& o) {
  for (std::size_t a = 0; a < 3; a++) {
    if (o.shape[a] < 1) rangeError("shape", "every extent must be at least 1");
  }
  const double voxels = voxelCount(o.shape);
  if (voxels > kMaxVoxels)
    rangeError("shape", "the image has " + str(voxels) + " voxels; a lattice holds at most " + str(kMaxVoxels));
  const auto n = static_cast<std::size_t>(voxels);
  if (!o.solid.empty() && o.solid.size() != n)
    throw FlowError(ErrorKind::Range, "solid",
                    "has " + std::to_string(o.solid.size()) + " voxels, the shape needs " + std::to_string(n));
  if (!o.solidFraction.empty()) {
    if (o.solidFraction.size() != n)
      throw FlowError(
          ErrorKind::Range, "solidFraction",
          "has " + std::to_string(o.solidFraction.size()) + " voxels, the shape needs " + std::to_string(n));
    for (std::size_t v = 0; v < n; v++) {
      const double s = o.solidFraction[v];
      if (!(s >= 0.0 && s <= 1.0))
        rangeError("solidFraction", "voxel " + std::to_string(v) + " is " + str(s) + "; solid fractions lie in [0, 1]");
    }
  }
  if (!o.sdf.empty()) {
    if (o.sdf.size() != n)
      throw FlowError(ErrorKind::Range, "sdf",
                      "has " + std::to_string(o.sdf.size()) + " voxels, the shape needs " + std::to_string(n));
    if (!o.solid.empty() || !o.solidFraction.empty())
      throw FlowError(ErrorKind::Type, "sdf", "give one of solid, solidFraction or sdf");
    if (o.layout == Layout::Dense) rangeError("layout", "a geometry given by sdf needs the sparse layout");
    for (std::size_t v = 0; v < n; v++) {
      if (std::isnan(o.sdf[v])) rangeError("sdf", "voxel " + std::to_string(v) + " is NaN");
    }
  }
  const Relaxation& r = o.relaxation;
  const char* tauName = r.model == CollisionModel::BGK ? "relaxation.tau" : "viscosity";
  if (!std::isfinite(r.tauPlus) || r.tauPlus <= 0.5 || r.tauPlus > 1e4)
    rangeError(tauName, "gives the relaxation time " + str(r.tauPlus) +
                            "; a stable lattice needs 0.5 < τ ≤ 10000 (viscosity 0 < ν ≤ 3333 in lattice units)");
  if (r.model == CollisionModel::TRT) {
    if (!std::isfinite(r.magic) || r.magic <= 0.0 || r.magic > 1e4)
      rangeError("relaxation.magic", "is " + str(r.magic) + "; the magic parameter Λ lies in (0, 10000]");
    const double tauMinus = 0.5 + r.magic / (r.tauPlus - 0.5);
    if (!std::isfinite(tauMinus) || tauMinus > 1e8)
      rangeError("relaxation.magic", "gives τ− = " + str(tauMinus) + " with τ+ = " + str(r.tauPlus) +
                                         ", outside the stable range; raise the viscosity or lower Λ");
  }
  for (std::size_t a = 0; a < 3; a++) {
    if (!std::isfinite(o.bodyForce[a]) || std::fabs(o.bodyForce[a]) > 1.0)
      rangeError("bodyForce", "component " + std::to_string(a) + " is " + str(o.bodyForce[a]) +
                                  "; a body force in lattice units must be finite and at most 1 in magnitude");
  }
  const PressureDrive& p = o.pressure;
  if (p.axis >= 0) {
    if (p.axis > 2) rangeError("pressure.axis", "must be 0, 1 or 2");
    if (o.periodic[std::size_t(p.axis)])
      rangeError("pressure.axis", "is periodic; a pressure drive needs an inlet and an outlet plane");
    if (o.shape[std::size_t(p.axis)] < 3)
      rangeError("shape", "a pressure drive needs at least 3 planes along its axis");
    for (double d : {p.inletDensity, p.outletDensity}) {
      if (!std::isfinite(d) || d <= 0.1 || d >= 10.0)
        rangeError("pressure", "densities must lie in (0.1, 10) in lattice units, got " + str(d));
    }
  }
  if (o.workers < 1) rangeError("threads", "must be at least 1");
}

template <typename T>
class LatticeImpl final : public Lattice {
  using Populations = std::vector<T, PageAllocator<T>>;

 public:
  explicit LatticeImpl(LatticeOptions&& o) : options_(std::move(o)) {
    shape_ = options_.shape;
    voxels_ = static_cast<std::size_t>(voxelCount(shape_));
    if (!options_.parallelFor)
      options_.parallelFor = [](std::size_t count, const peclet::ParallelBody& body) {
        if (count > 0) body(0, count, 0);
      };
    const Relaxation& r = options_.relaxation;
    tauPlus_ = r.tauPlus;
    tauMinus_ = r.model == CollisionModel::BGK ? r.tauPlus : 0.5 + r.magic / (r.tauPlus - 0.5);
    inPlace_ = streamsInPlace(options_.streaming, !options_.sdf.empty());
    setFaceTerms();
    buildGeometry();
    // Each population's array starts 3 cache lines further round a 4 KB page than the one
    // before: with a stride that is a multiple of 4 KB (a 256³ box) the 19 streams of a step
    // would fight for the same cache sets.
    const std::size_t page = 4096 / sizeof(T), line = 64 / sizeof(T);
    stride_ = (storage_ + page - 1) / page * page + 3 * line;
    if (layout_ == Layout::Sparse && inPlace_ && kappa_.empty() &&
        double(storage_) + double(stride_) < double(std::numeric_limits<std::int32_t>::max()))
      encodeOffsets();
    a_.assign(Q * stride_, T(0));
    if (!inPlace_) b_.assign(Q * stride_, T(0));
    const std::size_t offsets[3] = {shape_[1] * shape_[2], shape_[2], 1};
    for (std::size_t q = 0; q < Q; q++)
      offset_[q] = -(std::ptrdiff_t(cx[q]) * std::ptrdiff_t(offsets[0]) +
                     std::ptrdiff_t(cy[q]) * std::ptrdiff_t(offsets[1]) + std::ptrdiff_t(cz[q]));
    const std::size_t units = layout_ == Layout::Dense ? shape_[0] * shape_[1] : storage_;
    chunks_ = std::max<std::size_t>(1, std::min<std::size_t>(units, std::size_t(options_.workers) * 8));
    partial_.resize(chunks_);
    health_.assign(chunks_, 0.0);
    exceed_.assign(chunks_, 0.0);
    // The solid masks are no longer needed in the options.
    std::vector<std::uint8_t>().swap(options_.solid);
    std::vector<double>().swap(options_.solidFraction);
    std::vector<double>().swap(options_.sdf);
  }

  std::size_t step(std::size_t steps, const std::atomic<bool>* cancel, bool atomic, bool measure) override {
    // A step that would make the state non-finite is not taken: its output
    // stays in the second lattice. An atomic call of several steps also
    // keeps a copy of the state it started from, to go back to.
    const bool restore = atomic && steps > 1;
    const std::size_t startCount = stepCount_;
    if (restore) copyPopulations(a_, snapshot_);
    diverged_ = false;
    std::size_t done = 0;
    for (; done < steps; done++) {
      if (cancel && cancel->load(std::memory_order_relaxed)) break;
      // In place, a step overwrites the state it reads: whether it may be
      // taken is known before it starts (proved by the step before, or read).
      if (inPlace_ && !checkStep(false) && !checkStep(true)) {
        diverged_ = true;
        divergedAt_ = stepCount_ + 1;
        break;
      }
      checked_ = false;
      stepPass();
      if (!inPlace_) {
        if (!healthy()) {
          diverged_ = true;
          divergedAt_ = stepCount_ + 1;
          break;
        }
        a_.swap(b_);
      }
      stepCount_++;
      if (inPlace_) certify();
    }
    if (diverged_ && restore && done > 0) {
      a_.swap(snapshot_);
      stepCount_ = startCount;
      certified_ = checked_ = false;
      done = 0;
    }
    if (!measure) return done;
    // The moments of the state reached.
    pass(Mode::Measure);
    reduce();
    if (done > 0 && !velocity_.empty()) updateFields();
    return done;
  }

  bool diverged() const noexcept override { return diverged_; }
  std::size_t divergedAt() const noexcept override { return diverged_ ? divergedAt_ : 0; }
  double snapshotBytes() const noexcept override {
    return snapshot_.empty() ? double(a_.size()) * double(sizeof(T)) : 0.0;
  }

  const FlowMoments& moments() const noexcept override { return moments_; }

  // The storage range of a plane along axis 0: voxels in C order (dense),
  // or the fluid nodes, which are numbered in voxel order (sparse).
  std::pair<std::size_t, std::size_t> planeRange(std::size_t plane) const {
    const std::size_t n12 = shape_[1] * shape_[2];
    if (plane >= shape_[0]) rangeError("plane", "is past the lattice's " + std::to_string(shape_[0]) + " planes");
    if (layout_ == Layout::Dense) return {plane * n12, (plane + 1) * n12};
    const auto first = std::lower_bound(nodeOf_.begin(), nodeOf_.end(), std::uint32_t(plane * n12));
    const auto last = std::lower_bound(first, nodeOf_.end(), std::uint64_t((plane + 1) * n12),
                                       [](std::uint32_t v, std::uint64_t bound) { return v < bound; });
    return {std::size_t(first - nodeOf_.begin()), std::size_t(last - nodeOf_.begin())};
  }
  std::size_t haloSize(std::size_t plane) const override {
    const auto [begin, end] = planeRange(plane);
    return end - begin;
  }
  void copyHalo(std::size_t plane, int direction, void* buffer, bool pack) override {
    if (direction != 1 && direction != -1) rangeError("direction", "must be 1 or -1");
    const auto [begin, end] = planeRange(plane);
    const std::size_t n = end - begin;
    T* out = static_cast<T*>(buffer);
    const Form f = form();
    for (std::size_t q = 0; q < Q; q++) {
      if (cx[q] != direction) continue;
      T* column = a_.data() + (f == Form::Collided ? opposite(q) : q) * stride_ + begin;
      if (pack) {
        std::copy(column, column + n, out);
      } else if (f != Form::Streamed) {
        std::copy(out, out + n, column);
      } else {
        // What arrived from across the edge, where it came from a fluid
        // node: through a solid one the node took its own value back.
        for (std::size_t b = 0; b < n; b++)
          if (pulledFromFluid(begin + b, q)) column[b] = out[b];
      }
      out += n;
    }
    if (!pack) checked_ = false;
  }
  // Whether population q of node s (storage index) comes from a fluid node.
  bool pulledFromFluid(std::size_t s, std::size_t q) const {
    if (layout_ == Layout::Sparse && offsets_) {
      const auto entry = std::int32_t(sources_[(q - 1) * storage_ + s]);
      return entry >= 0 && std::size_t(entry) < storage_;
    }
    if (layout_ == Layout::Sparse) return (sources_[(q - 1) * storage_ + s] & kBounce) == 0;
    const std::size_t n12 = shape_[1] * shape_[2];
    const std::int64_t m = pullVoxel(s / n12, (s / shape_[2]) % shape_[1], s % shape_[2], q);
    return m >= 0 && mask_[std::size_t(m)] == 0;
  }
  void saveState() override {
    copyPopulations(a_, snapshot_);
    savedCount_ = stepCount_;
  }
  void restoreState() override {
    if (snapshot_.size() != a_.size()) rangeError("restoreState", "no state was saved");
    copyPopulations(snapshot_, a_);
    stepCount_ = savedCount_;
    certified_ = checked_ = false;
  }
  bool checkStep(bool read) override {
    // Proved by the last step: every value it wrote within the bound under
    // which a state meets the rule, the pressure drive no stronger since.
    if (!read) {
      if (checked_) return true;
      // The force bound now (with per-voxel arrays, a scan of them), kept for the step.
      stepForce_ = forceBound();
      return checked_ = inPlace_ && certified_ && certifiedBound_ <= certificateBound(stepForce_);
    }
    pass(Mode::Health);
    double bad = 0;
    for (double h : health_) bad += h;
    checked_ = bad == 0.0;
    return checked_;
  }

  void allocateFields() override {
    if (!velocity_.empty()) return;
    velocity_.assign(3 * voxels_, T(0));
    density_.assign(voxels_, T(0));
    updateFields();
  }
  void updateFields() override {
    if (!velocity_.empty()) pass(Mode::Fields);
  }
  void* velocityData() noexcept override { return velocity_.data(); }
  void* densityData() noexcept override { return density_.data(); }

  // Both per-voxel inputs are allocated together: the step reads both or neither.
  double* porosity() override {
    allocatePerVoxel();
    return porosity_.data();
  }
  double* force() override {
    allocatePerVoxel();
    return force_.data();
  }
  void allocatePerVoxel() {
    if (!porosity_.empty()) return;
    std::vector<double> porosity(voxels_, 1.0), force(3 * voxels_, 0.0);
    porosity_.swap(porosity);
    force_.swap(force);
  }

  void setBodyForce(const std::array<double, 3>& force) override {
    for (std::size_t a = 0; a < 3; a++) {
      if (!std::isfinite(force[a]) || std::fabs(force[a]) > 1.0)
        rangeError("bodyForce", "component " + std::to_string(a) + " is " + str(force[a]) +
                                    "; a body force in lattice units must be finite and at most 1 in magnitude");
    }
    options_.bodyForce = force;
  }
  const std::array<double, 3>& bodyForce() const noexcept override { return options_.bodyForce; }
  void setPressure(double inletDensity, double outletDensity) override {
    if (options_.pressure.axis < 0) rangeError("pressure", "this lattice has no pressure drive");
    for (double d : {inletDensity, outletDensity}) {
      if (!std::isfinite(d) || d <= 0.1 || d >= 10.0)
        rangeError("pressure", "densities must lie in (0.1, 10) in lattice units, got " + str(d));
    }
    options_.pressure.inletDensity = inletDensity;
    options_.pressure.outletDensity = outletDensity;
    setFaceTerms();
  }

  Layout layout() const noexcept override { return layout_; }
  Streaming streaming() const noexcept override { return inPlace_ ? Streaming::InPlace : Streaming::TwoLattice; }
  Precision precision() const noexcept override { return options_.precision; }
  std::size_t fluidNodes() const noexcept override { return fluid_; }
  std::size_t voxels() const noexcept override { return voxels_; }
  const std::array<std::size_t, 3>& shape() const noexcept override { return shape_; }
  double tauPlus() const noexcept override { return tauPlus_; }
  double tauMinus() const noexcept override { return tauMinus_; }
  std::size_t stepCount() const noexcept override { return stepCount_; }
  std::size_t bytes() const noexcept override {
    return (a_.capacity() + b_.capacity() + snapshot_.capacity() + gray_.capacity() + kappa_.capacity() +
            velocity_.capacity() + density_.capacity()) *
               sizeof(T) +
           mask_.capacity() + (sources_.capacity() + nodeOf_.capacity()) * 4 +
           (porosity_.capacity() + force_.capacity()) * sizeof(double);
  }
  double bytesPerUpdate() const noexcept override {
    const std::size_t t = sizeof(T);
    return layout_ == Layout::Sparse ? sparseBytesPerUpdate(t, inPlace_) : denseBytesPerUpdate(t);
  }

 private:
  enum class Mode { Measure, Fields, Health };

  // What the populations array holds now. Pulled: the post-collision values
  // of the last step at the nodes that made them (two lattices). In place
  // after an even number of steps, Collided: the same values, each in the
  // slot of the opposite direction (a step pulls them from its neighbours
  // and pushes its own back to them); after an odd number, Streamed: the
  // values that arrived at each node (a step reads its own node's). The
  // state at rest (all 0) is the same in every form, and what a pull takes
  // through a pressure face at the first step comes in as it would.
  enum class Form { Pulled, Streamed, Collided };
  Form form() const noexcept {
    if (!inPlace_) return Form::Pulled;
    return (stepCount_ & 1) != 0 ? Form::Streamed : Form::Collided;
  }
  // Where the post-collision values of each population lie (Pulled, Collided).
  void readColumns(const T** cols) const {
    const bool swapped = form() == Form::Collided;
    for (std::size_t q = 0; q < Q; q++) cols[q] = a_.data() + (swapped ? opposite(q) : q) * stride_;
  }

  // The bound M on |value| of every population stored under which the state
  // meets the rule of kHealthBound, given G, the largest force component a
  // fluid node sees: |δρ| <= 19M, |u_a| <= U = 10M + G/2, |F|² <= 3G² (gray
  // voxels' drag adds up to 2|u_a| to F_a: 3(G + 2U)²), and the rule's value
  // is at most 3U² + 10⁻⁴(19M)² + 10⁻²·3U²|F|²; M is halved from 1/2 until
  // that is at most 99 (G = 1: M = 1/2, 94; with gray voxels 1/4, 67). A
  // pressure face adds 2 w |ρ − 1| to a value read through it. 0: no proof.
  double pressureTerm() const {
    const PressureDrive& p = options_.pressure;
    if (p.axis < 0) return 0.0;
    return 2.0 * kWeightFace * std::max(std::fabs(p.inletDensity - 1.0), std::fabs(p.outletDensity - 1.0));
  }
  double certificateBound(double G) const {
    if (!(G >= 0.0 && G <= 1e3)) return 0.0;
    const bool gray = !gray_.empty();
    auto rule = [&](double M) {
      const double U = 10.0 * M + 0.5 * G;
      const double F2 = gray ? 3.0 * (G + 2.0 * U) * (G + 2.0 * U) : 3.0 * G * G;
      return 3.0 * U * U + 1e-4 * 361.0 * M * M + 1e-2 * 3.0 * U * U * F2;
    };
    double M = 0.5;
    while (M > 1e-6 && rule(M) > 99.0) M *= 0.5;
    return M > 1e-6 ? std::max(0.0, M - pressureTerm()) : 0.0;
  }
  // G: the body force's largest component, or with per-voxel porosity and
  // force the largest |ε g_a + f_a| over the fluid nodes (a scan of the arrays,
  // far lighter than a read of the state); NaN when a porosity lies outside
  // (0, 1] or a value is not finite (the rule then decides, reading the state).
  double forceBound() const {
    const std::array<double, 3>& g = options_.bodyForce;
    double G = std::max({std::fabs(g[0]), std::fabs(g[1]), std::fabs(g[2])});
    if (porosity_.empty()) return G;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (std::size_t s = 0; s < storage_; s++) {
      const std::size_t v = layout_ == Layout::Sparse ? nodeOf_[s] : s;
      if (layout_ == Layout::Dense && mask_[v]) continue;
      const double eps = porosity_[v];
      if (!(eps > 0.0 && eps <= 1.0)) return nan;
      for (std::size_t a = 0; a < 3; a++) {
        const double x = std::fabs(eps * g[a] + force_[3 * v + a]);
        if (!(x <= 1e300)) return nan;
        G = std::max(G, x);
      }
    }
    return G;
  }
  // After an in-place step: whether every value it wrote is within the bound.
  void certify() {
    double exceeded = 0;
    for (double e : exceed_) exceeded += e;
    certified_ = exceeded == 0.0 && stepBound_ > 0.0;
    certifiedBound_ = stepBound_;
  }
  // Sparse pull sources with kBounce set carry a link kind: halfway
  // bounce-back, anti-bounce-back through a pressure face, or (from
  // kFirstCutLink on) an interpolated link whose coefficient is in kappa_.
  static constexpr std::uint32_t kHalfwayLink = 0, kInletLink = 1, kOutletLink = 2, kFirstCutLink = 3;

  // Voxel index of (i, j, k) moved by -c_q; outside a face that is not
  // periodic: kWall, or kInlet / kOutlet across the faces of a pressure drive.
  static constexpr std::int64_t kWall = -1, kInlet = -2, kOutlet = -3;
  std::int64_t pullVoxel(std::size_t i, std::size_t j, std::size_t k, std::size_t q) const {
    const std::int64_t p[3] = {std::int64_t(i) - cx[q], std::int64_t(j) - cy[q], std::int64_t(k) - cz[q]};
    return locate(p, 3);
  }

  // Row index of (i, j) moved by -c_q on axes 0 and 1, or kWall/kInlet/kOutlet.
  std::int64_t sourceRow(std::size_t i, std::size_t j, std::size_t q) const {
    const std::int64_t p[2] = {std::int64_t(i) - cx[q], std::int64_t(j) - cy[q]};
    return locate(p, 2);
  }

  // C-order index of the point p over the first `axes` axes, wrapped on
  // periodic axes; kWall, kInlet or kOutlet past a face that is not.
  std::int64_t locate(const std::int64_t* p, std::size_t axes) const {
    std::int64_t index = 0, face = 0;
    for (std::size_t a = 0; a < axes; a++) {
      std::int64_t x = p[a];
      const auto n = std::int64_t(shape_[a]);
      if (x < 0 || x >= n) {
        if (!options_.periodic[a]) {
          // A link through a wall and a pressure face at once (an edge of
          // the box) bounces back: the wall wins.
          if (int(a) != options_.pressure.axis) return kWall;
          face = x < 0 ? kInlet : kOutlet;
          continue;
        }
        x = (x + n) % n;
      }
      index = index * n + x;
    }
    return face != 0 ? face : index;
  }

  bool voxelSolid(std::size_t v) const {
    return (!options_.solid.empty() && options_.solid[v] != 0) ||
           (!options_.solidFraction.empty() && options_.solidFraction[v] >= 1.0) ||
           (!options_.sdf.empty() && !(options_.sdf[v] > 0.0));
  }

  void buildGeometry() {
    fluid_ = countFluid(options_, voxels_);
    const std::size_t t = sizeof(T);
    layout_ = chooseLayout(options_.layout, voxels_, fluid_, t, !options_.sdf.empty(), inPlace_);
    if (layout_ == Layout::Sparse && double(fluid_) > kMaxSparseNodes)
      rangeError("layout", "sparse holds at most " + str(kMaxSparseNodes) + " fluid nodes");
    bool gray = false;
    for (double s : options_.solidFraction) gray = gray || (s > 0.0 && s < 1.0);
    if (layout_ == Layout::Dense) {
      storage_ = voxels_;
      mask_.resize(voxels_);
      rowHasSolid_.assign(shape_[0] * shape_[1], 0);
      for (std::size_t v = 0; v < voxels_; v++) {
        mask_[v] = voxelSolid(v) ? 1 : 0;
        rowHasSolid_[v / shape_[2]] |= mask_[v];
      }
      if (gray) {
        gray_.assign(voxels_, T(0));
        for (std::size_t v = 0; v < voxels_; v++)
          if (!mask_[v]) gray_[v] = T(grayDrag(options_.solidFraction[v]));
      }
      // Rows whose in-place steps pull and push directly: no solid in the row or in any of
      // the rows its links reach, and none of those across a face that is not periodic.
      rowDirect_.assign(shape_[0] * shape_[1], 0);
      for (std::size_t row = 0; row < rowDirect_.size(); row++) {
        bool direct = rowHasSolid_[row] == 0;
        for (std::size_t q = 1; q < Q && direct; q++) {
          const std::int64_t r = sourceRow(row / shape_[1], row % shape_[1], q);
          direct = r >= 0 && rowHasSolid_[std::size_t(r)] == 0;
        }
        rowDirect_[row] = direct ? 1 : 0;
      }
      return;
    }
    storage_ = fluid_;
    std::vector<std::uint32_t> storageOf(voxels_, kBounce);
    nodeOf_.resize(fluid_);
    std::size_t s = 0;
    for (std::size_t v = 0; v < voxels_; v++) {
      if (voxelSolid(v)) continue;
      storageOf[v] = std::uint32_t(s);
      nodeOf_[s++] = std::uint32_t(v);
    }
    if (gray) {
      gray_.assign(fluid_, T(0));
      for (std::size_t n = 0; n < fluid_; n++) gray_[n] = T(grayDrag(options_.solidFraction[nodeOf_[n]]));
    }
    sources_.resize((Q - 1) * fluid_);
    const std::size_t n12 = shape_[1] * shape_[2];
    const bool interpolated = !options_.sdf.empty();
    for (std::size_t n = 0; n < fluid_; n++) {
      const std::size_t v = nodeOf_[n];
      const std::size_t i = v / n12, j = (v / shape_[2]) % shape_[1], k = v % shape_[2];
      for (std::size_t q = 1; q < Q; q++) {
        const std::int64_t m = pullVoxel(i, j, k, q);
        std::uint32_t entry = m == kInlet    ? kBounce | kInletLink
                              : m == kOutlet ? kBounce | kOutletLink
                              : m < 0        ? kBounce | kHalfwayLink
                                             : storageOf[std::size_t(m)];
        if (interpolated && m >= 0 && entry == kBounce) {
          // The wall cuts the link from v towards m = v - c_q at the fraction
          // delta; CLI also reads the node at v + c_q, which must be fluid.
          const double dv = options_.sdf[v], dm = options_.sdf[std::size_t(m)];
          const double delta = std::clamp(dv / (dv - dm), 1e-3, 1.0);
          const std::int64_t across = pullVoxel(i, j, k, opposite(q));
          if (across >= 0 && storageOf[std::size_t(across)] != kBounce && kappa_.size() + kFirstCutLink < kBounce) {
            entry = kBounce | std::uint32_t(kappa_.size() + kFirstCutLink);
            kappa_.push_back(T((1.0 - 2.0 * delta) / (1.0 + 2.0 * delta)));
          }
        }
        sources_[(q - 1) * fluid_ + n] = entry;
      }
    }
  }

  // ---- The step: populations are pulled into a block of up to kBlock
  // nodes (contiguous copies in the dense layout, gathers in the sparse one),
  // then collided by a loop over the block that the compiler vectorizes.
  // 128 nodes: bursts of 1 KB (f64) per population stream, and the block's
  // buffers still within L1 and L2 (64 nodes was 11% slower, 256 no faster).
  static constexpr std::size_t kBlock = 128;
  // A node whose speed passes 10 lattice units (Mach 17) has diverged.
  static constexpr double kHealthBound = 100.0;

  void stepPass() {
    stepBound_ = certificateBound(stepForce_);
    const bool gray = !gray_.empty(), perVoxel = !porosity_.empty() || !force_.empty();
    const int key = (gray ? 4 : 0) | (perVoxel ? 2 : 0) | (options_.inertia ? 1 : 0);
    switch (key) {
#define PECLET_FLOW_CASE(k)                                \
  case k:                                                  \
    stepPassT<(k & 4) != 0, (k & 2) != 0, (k & 1) != 0>(); \
    break;
      PECLET_FLOW_CASE(0)
      PECLET_FLOW_CASE(1)
      PECLET_FLOW_CASE(2)
      PECLET_FLOW_CASE(3)
      PECLET_FLOW_CASE(4)
      PECLET_FLOW_CASE(5)
      PECLET_FLOW_CASE(6)
      PECLET_FLOW_CASE(7)
#undef PECLET_FLOW_CASE
    }
  }

  template <bool Gray, bool PerVoxel, bool Inertia>
  void stepPassT() {
    options_.parallelFor(chunks_, [&](std::size_t begin, std::size_t end, unsigned) {
#if PECLET_FLOW_X86
      if (avx2_) {
        stepChunksAvx2<Gray, PerVoxel, Inertia>(begin, end);
        return;
      }
#endif
      stepChunks<Gray, PerVoxel, Inertia>(begin, end);
    });
  }

#if PECLET_FLOW_X86
  // The same code compiled for AVX2 and FMA (4 doubles or 8 floats a
  // vector instead of SSE2's 2 or 4): stepChunks and everything it calls is
  // inlined into this function, so all of it takes the target's options.
  template <bool Gray, bool PerVoxel, bool Inertia>
  __attribute__((target("avx2,fma"))) void stepChunksAvx2(std::size_t begin, std::size_t end) {
    stepChunks<Gray, PerVoxel, Inertia>(begin, end);
  }
#endif

  // One step over chunks [begin, end). Two lattices: pull from a_ into b_.
  // In place, from the Streamed form (after an odd number of steps): each
  // node's own values in, collided, back into the opposite slots; from the
  // Collided form (after an even number): pulled from the neighbours' slots, collided into a block
  // buffer, and pushed back to them (scatter). Either way every value is read
  // and written by one node, so the chunks run in parallel.
  template <bool Gray, bool PerVoxel, bool Inertia>
  PECLET_FLOW_INLINE void stepChunks(std::size_t begin, std::size_t end) {
    alignas(64) T buffer[Q * kBlock];
    alignas(64) T post[Q * kBlock];
    const Form f = form();
    const T* cols[Q];
    readColumns(cols);
    T* wcols[Q];
    T* a = a_.data();
    for (std::size_t q = 0; q < Q; q++) {
      wcols[q] = f == Form::Pulled     ? b_.data() + q * stride_
                 : f == Form::Streamed ? a + opposite(q) * stride_
                                       : post + q * kBlock;
    }
    const T* rp[Q];
    T* wp[Q];
    const T bound = T(stepBound_);
    for (std::size_t c = begin; c < end; c++) {
      T check = 0, exceeded = 0;
      if (layout_ == Layout::Sparse) {
        const std::size_t from = c * storage_ / chunks_, to = (c + 1) * storage_ / chunks_;
        for (std::size_t s0 = from; s0 < to; s0 += kBlock) {
          const std::size_t count = std::min(kBlock, to - s0);
          if (f == Form::Streamed) {
            // Each node's values where they lie.
            for (std::size_t q = 0; q < Q; q++) rp[q] = a + q * stride_ + s0;
          } else {
            gatherSparse(buffer, cols, s0, count);
            blockColumns(buffer, rp);
          }
          check += collide<false, Gray, PerVoxel, Inertia>(rp, s0, count, nullptr, wcols, f == Form::Collided ? 0 : s0,
                                                           bound, exceeded);
          if (f == Form::Collided) scatterSparse(post, s0, count);
        }
      } else {
        const std::size_t rows = shape_[0] * shape_[1], n2 = shape_[2];
        const std::size_t from = c * rows / chunks_, to = (c + 1) * rows / chunks_;
        for (std::size_t row = from; row < to; row++) {
          for (std::size_t k0 = 0; k0 < n2; k0 += kBlock) {
            const std::size_t count = std::min(kBlock, n2 - k0);
            const std::size_t v0 = row * n2 + k0;
            const std::uint8_t* solid = mask_.data() + v0;
            if (f == Form::Streamed) {
              for (std::size_t q = 0; q < Q; q++) rp[q] = a + q * stride_ + v0;
              check += collide<true, Gray, PerVoxel, Inertia>(rp, v0, count, solid, wcols, v0, bound, exceeded);
              continue;
            }
            // A row of fluid whose neighbour rows are all fluid and inside the box: the
            // values are pulled from and pushed to their slots directly, but for the two
            // ends of the row (whose neighbours along z wrap round or are walls).
            std::size_t lo = 0, hi = 0;
            if (f == Form::Collided && rowDirect_[row]) {
              lo = k0 == 0 ? 1 : 0;
              hi = k0 + count == n2 ? count - 1 : count;
            }
            if (lo < hi) {
              const std::size_t i = row / shape_[1], j = row % shape_[1], k = k0 + lo;
              for (std::size_t q = 0; q < Q; q++) {
                const std::size_t o = opposite(q);
                const auto source = std::size_t(sourceRow(i, j, q)), target = std::size_t(sourceRow(i, j, o));
                rp[q] = a + o * stride_ + source * n2 + k - std::size_t(std::ptrdiff_t(cz[q]));
                wp[q] = a + q * stride_ + target * n2 + k + std::size_t(std::ptrdiff_t(cz[q]));
              }
              check += collide<true, Gray, PerVoxel, Inertia>(rp, v0 + lo, hi - lo, solid + lo, wp, 0, bound, exceeded);
            }
            // The rest through the block buffers: the whole block, or the ends of a direct row.
            const std::size_t parts[2][2] = {{0, lo < hi ? lo : count}, {lo < hi ? hi : count, count}};
            for (const auto& part : parts) {
              const std::size_t first = part[0], last = part[1];
              if (first >= last) continue;
              gatherDense(buffer, cols, row, k0 + first, last - first);
              blockColumns(buffer, rp);
              check += collide<true, Gray, PerVoxel, Inertia>(rp, v0 + first, last - first, solid + first, wcols,
                                                              f == Form::Collided ? 0 : v0 + first, bound, exceeded);
              if (f == Form::Collided) scatterDense(post, row, k0 + first, last - first);
            }
          }
        }
      }
      health_[c] = double(check);
      exceed_[c] = double(exceeded);
    }
  }

  // The columns of a block buffer (population q of node b at buffer[q kBlock + b]).
  static const T* const* blockColumns(const T* buffer, const T** rp) {
    for (std::size_t q = 0; q < Q; q++) rp[q] = buffer + q * kBlock;
    return rp;
  }

  // The hardware prefetchers do not follow 19 streams read (and 19 written)
  // in bursts of one block each: each burst asks for the lines a fixed
  // distance past the end of the block it reads or writes, where the next
  // block (or the next row, which follows in memory) will be.
  static constexpr std::size_t kPrefetchBytes = 1024;
  template <int Write>
  PECLET_FLOW_INLINE static void prefetch(const T* after, std::size_t count) {
    const char* ahead = reinterpret_cast<const char*>(after) + kPrefetchBytes;
    for (std::size_t l = 0; l < count * sizeof(T); l += 64) __builtin_prefetch(ahead + l, Write, 3);
  }

  // A population entering node s (storage index) through a link whose far
  // end is outside the fluid: bounce-back, anti-bounce-back or interpolated.
  // cols[q]: the post-collision values of population q, by node.
  PECLET_FLOW_INLINE T boundaryPull(const T* const* cols, std::size_t q, std::size_t s, std::uint32_t link) const {
    const std::size_t o = opposite(q);
    if (link == kHalfwayLink) return cols[o][s];
    if (link <= kOutletLink) return antiBounceBack(cols, q, s, link);
    const std::uint32_t behind = sources_[(o - 1) * storage_ + s];
    return cols[o][s] + kappa_[link - kFirstCutLink] * (cols[o][behind] - cols[q][s]);
  }

  // The populations of `count` nodes from storage index s0 as they lie at
  // the nodes (the Streamed form).
  PECLET_FLOW_INLINE void gatherLocal(T* buffer, std::size_t s0, std::size_t count) const {
    const T* a = a_.data();
    for (std::size_t q = 0; q < Q; q++) {
      const T* column = a + q * stride_ + s0;
      prefetch<0>(column + count, count);
      std::copy(column, column + count, buffer + q * kBlock);
    }
  }

  // In place (sparse, no interpolated wall), the pull table holds signed offsets from the
  // column that population q is read from (the Collided form's cols[q], slot opposite(q)):
  // the source node for a fluid one, and for a wall or a pressure face the offset that
  // reaches the node's own slot q, where the value that bounces back lies. A step then reads
  // and writes every value through one table with no branch; the links through pressure
  // faces (listed in faceLinks_) are corrected after.
  struct FaceLink {
    std::uint32_t node;
    std::uint8_t q, link;
  };
  void encodeOffsets() {
    const std::size_t S = storage_;
    for (std::size_t q = 1; q < Q; q++) {
      const auto shift = (std::int64_t(q) - std::int64_t(opposite(q))) * std::int64_t(stride_);
      for (std::size_t n = 0; n < S; n++) {
        std::uint32_t& entry = sources_[(q - 1) * S + n];
        if ((entry & kBounce) == 0) continue;
        const std::uint32_t link = entry & ~kBounce;
        if (link != kHalfwayLink) faceLinks_.push_back({std::uint32_t(n), std::uint8_t(q), std::uint8_t(link)});
        entry = std::uint32_t(std::int32_t(std::int64_t(n) + shift));
      }
    }
    std::sort(faceLinks_.begin(), faceLinks_.end(),
              [](const FaceLink& x, const FaceLink& y) { return x.node != y.node ? x.node < y.node : x.q < y.q; });
    offsets_ = true;
  }
  // The face links of nodes [s0, s0 + count).
  std::pair<const FaceLink*, const FaceLink*> faceLinksOf(std::size_t s0, std::size_t count) const {
    const auto first = std::lower_bound(faceLinks_.begin(), faceLinks_.end(), s0,
                                        [](const FaceLink& f, std::size_t n) { return f.node < n; });
    auto last = first;
    while (last != faceLinks_.end() && last->node < s0 + count) ++last;
    return {faceLinks_.data() + (first - faceLinks_.begin()), faceLinks_.data() + (last - faceLinks_.begin())};
  }

  PECLET_FLOW_INLINE void gatherSparse(T* buffer, const T* const* cols, std::size_t s0, std::size_t count) const {
    const std::size_t S = storage_;
    std::copy(cols[0] + s0, cols[0] + s0 + count, buffer);
    if (offsets_) {
      for (std::size_t q = 1; q < Q; q++) {
        T* __restrict out = buffer + q * kBlock;
        const auto* e = reinterpret_cast<const std::int32_t*>(sources_.data()) + (q - 1) * S + s0;
        const T* column = cols[q];
        for (std::size_t b = 0; b < count; b++) out[b] = column[e[b]];
      }
      // Anti-bounce-back: the value that came back, turned.
      const auto [first, last] = faceLinksOf(s0, count);
      for (const FaceLink* f = first; f != last; ++f) {
        T& v = buffer[f->q * kBlock + (f->node - s0)];
        v = pushBack(v, f->q, f->link);
      }
      return;
    }
    for (std::size_t q = 1; q < Q; q++) {
      T* out = buffer + q * kBlock;
      const std::uint32_t* e = sources_.data() + (q - 1) * S + s0;
      const T* column = cols[q];
      for (std::size_t b = 0; b < count; b++) {
        const std::uint32_t entry = e[b];
        out[b] = (entry & kBounce) ? boundaryPull(cols, q, s0 + b, entry & ~kBounce) : column[entry];
      }
    }
  }

  // The post-collision values of `count` nodes from storage index s0, pushed
  // to where the next step (from the Streamed form) reads them: population q of node x into
  // slot q of x + c_q, or, through a wall, back into slot opposite(q) of x
  // (through a pressure face, anti-bounce-back: the value that a pull would
  // compute when it reads it).
  PECLET_FLOW_INLINE void scatterSparse(const T* post, std::size_t s0, std::size_t count) {
    T* a = a_.data();
    const std::size_t S = storage_;
    std::copy(post, post + count, a + s0);
    if (offsets_) {
      // Population q goes where the link opposite(q) reads from: the slot q of the node
      // it flows into, or, back through a wall, this node's slot opposite(q).
      for (std::size_t q = 1; q < Q; q++) {
        const T* __restrict in = post + q * kBlock;
        const auto* e = reinterpret_cast<const std::int32_t*>(sources_.data()) + (opposite(q) - 1) * S + s0;
        T* column = a + q * stride_;
        for (std::size_t b = 0; b < count; b++) column[e[b]] = in[b];
      }
      const auto [first, last] = faceLinksOf(s0, count);
      for (const FaceLink* f = first; f != last; ++f) {
        const std::size_t b = f->node - s0;
        a[f->q * stride_ + f->node] = pushBack(post[opposite(f->q) * kBlock + b], f->q, f->link);
      }
      return;
    }
    for (std::size_t q = 1; q < Q; q++) {
      const std::size_t o = opposite(q);
      const T* in = post + q * kBlock;
      // The far end of the link q of x is the source of its link opposite(q).
      const std::uint32_t* e = sources_.data() + (o - 1) * S + s0;
      T* __restrict column = a + q * stride_;
      T* __restrict back = a + o * stride_ + s0;
      for (std::size_t b = 0; b < count; b++) {
        const std::uint32_t entry = e[b];
        if (!(entry & kBounce))
          column[entry] = in[b];
        else
          back[b] = pushBack(in[b], o, entry & ~kBounce);
      }
    }
  }

  // The value a population `value` leaving through a wall or a pressure face
  // comes back as, in direction o (halfway or anti-bounce-back).
  PECLET_FLOW_INLINE T pushBack(T value, std::size_t o, std::uint32_t link) const {
    if (link == kHalfwayLink) return value;
    return -value + faceTerm_[link == kInletLink ? 0 : 1][o];
  }
  // 2 w_q (ρ − 1) of each pressure face and direction, rounded once to T (so
  // that no compiler fuses it into the subtraction: the value does not
  // depend on where it is computed).
  void setFaceTerms() {
    const double rho[2] = {options_.pressure.inletDensity, options_.pressure.outletDensity};
    for (std::size_t f = 0; f < 2; f++)
      for (std::size_t q = 0; q < Q; q++) faceTerm_[f][q] = T(2.0 * weight(q) * (rho[f] - 1.0));
  }

  PECLET_FLOW_INLINE void scatterDense(const T* post, std::size_t row, std::size_t k0, std::size_t count) {
    T* a = a_.data();
    const std::size_t N = stride_, n2 = shape_[2];
    const std::size_t i = row / shape_[1], j = row % shape_[1];
    const std::size_t v0 = row * n2 + k0;
    const std::uint8_t* mask = mask_.data();
    const std::uint8_t* self = mask + v0;
    const bool rowSolid = rowHasSolid_[row] != 0;
    // Solid voxels push nothing (their values are 0 and their neighbours'
    // slots are their neighbours' own); the rest value stays.
    std::copy(post, post + count, a + v0);
    for (std::size_t q = 1; q < Q; q++) {
      const std::size_t o = opposite(q);
      const T* __restrict in = post + q * kBlock;
      T* __restrict back = a + o * N + v0;
      std::size_t lo = 0, hi = count;
      if (cz[q] == -1 && k0 == 0) lo = 1;
      if (cz[q] == 1 && k0 + count == n2) hi = count - 1;
      const std::int64_t target = sourceRow(i, j, o);
      if (target < 0) {
        const std::uint32_t link = target == kWall ? kHalfwayLink : target == kInlet ? kInletLink : kOutletLink;
        for (std::size_t b = lo; b < hi; b++)
          if (!self[b]) back[b] = pushBack(in[b], o, link);
      } else {
        const std::size_t start = std::size_t(target) * n2 + k0 + std::size_t(std::ptrdiff_t(cz[q]));
        T* __restrict pushed = a + q * N + start;
        prefetch<1>(pushed + count, count);
        if (!rowSolid && !rowHasSolid_[std::size_t(target)]) {
          for (std::size_t b = lo; b < hi; b++) pushed[b] = in[b];
        } else {
          const std::uint8_t* solid = mask + start;
          for (std::size_t b = lo; b < hi; b++) {
            if (self[b]) continue;
            if (solid[b])
              back[b] = in[b];
            else
              pushed[b] = in[b];
          }
        }
      }
      for (std::size_t b : {std::size_t(0), count - 1}) {
        if (((b == 0 && lo == 1) || (b == count - 1 && hi == count - 1)) && !self[b]) {
          const std::int64_t m = pullVoxel(i, j, k0 + b, o);
          if (m == kInlet || m == kOutlet)
            back[b] = pushBack(in[b], o, m == kInlet ? kInletLink : kOutletLink);
          else if (m < 0 || mask[m])
            back[b] = in[b];
          else
            a[q * N + std::size_t(m)] = in[b];
        }
      }
    }
  }

  PECLET_FLOW_INLINE void gatherDense(T* buffer, const T* const* cols, std::size_t row, std::size_t k0,
                                      std::size_t count) const {
    const std::size_t n2 = shape_[2];
    const std::size_t i = row / shape_[1], j = row % shape_[1];
    const std::size_t v0 = row * n2 + k0;
    std::copy(cols[0] + v0, cols[0] + v0 + count, buffer);
    const std::uint8_t* mask = mask_.data();
    for (std::size_t q = 1; q < Q; q++) {
      T* __restrict out = buffer + q * kBlock;
      const T* __restrict self = cols[opposite(q)] + v0;
      // Cells whose source lies past the ends of the row take the edge path.
      std::size_t lo = 0, hi = count;
      if (cz[q] == 1 && k0 == 0) lo = 1;
      if (cz[q] == -1 && k0 + count == n2) hi = count - 1;
      const std::int64_t source = sourceRow(i, j, q);
      if (source < 0) {
        for (std::size_t b = lo; b < hi; b++) {
          out[b] =
              source == kWall ? self[b] : antiBounceBack(cols, q, v0 + b, source == kInlet ? kInletLink : kOutletLink);
        }
      } else {
        const std::size_t start = std::size_t(source) * n2 + k0 - std::size_t(std::ptrdiff_t(cz[q]));
        const T* __restrict pulled = cols[q] + start;
        prefetch<0>(pulled + count, count);
        if (!rowHasSolid_[std::size_t(source)]) {
          for (std::size_t b = lo; b < hi; b++) out[b] = pulled[b];
        } else {
          const std::uint8_t* solid = mask + start;
          for (std::size_t b = lo; b < hi; b++) out[b] = solid[b] ? self[b] : pulled[b];
        }
      }
      for (std::size_t b : {std::size_t(0), count - 1}) {
        if ((b == 0 && lo == 1) || (b == count - 1 && hi == count - 1)) {
          const std::int64_t m = pullVoxel(i, j, k0 + b, q);
          const std::size_t v = v0 + b;
          out[b] = m == kInlet        ? antiBounceBack(cols, q, v, kInletLink)
                   : m == kOutlet     ? antiBounceBack(cols, q, v, kOutletLink)
                   : m < 0 || mask[m] ? cols[opposite(q)][v]
                                      : cols[q][std::size_t(m)];
        }
      }
    }
  }

  // Per-node moments of a block of pulled populations: δρ, the velocity u
  // (half the force added; gray voxels' drag implicit in it), the force F
  // (less the drag) and ι, 1/ε with inertia, 0 without.
  struct Moments {
    alignas(64) T dr[kBlock], u0[kBlock], u1[kBlock], u2[kBlock], f0[kBlock], f1[kBlock], f2[kBlock], iota[kBlock];
    alignas(64) T badPorosity[kBlock];  // per-voxel porosity only: 1 outside (0, 1] or NaN
  };

  template <bool Dense, bool Gray, bool PerVoxel, bool Inertia>
  PECLET_FLOW_INLINE void blockMoments(const T* const* rp, std::size_t base, std::size_t count, Moments& m) const {
    const double* __restrict porosity = PerVoxel ? porosity_.data() : nullptr;
    const double* __restrict force = PerVoxel ? force_.data() : nullptr;
    const T g0 = T(options_.bodyForce[0]), g1 = T(options_.bodyForce[1]), g2 = T(options_.bodyForce[2]);
    const T* __restrict gray = Gray ? gray_.data() + base : nullptr;
    T* __restrict dr = m.dr, * __restrict u0 = m.u0, * __restrict u1 = m.u1, * __restrict u2 = m.u2;
    T* __restrict f0 = m.f0, * __restrict f1 = m.f1, * __restrict f2 = m.f2, * __restrict iota = m.iota;
    // One simple loop each, so that every loop vectorizes.
    for (std::size_t b = 0; b < count; b++) {
      T d = 0, x = 0, y = 0, z = 0;
#pragma GCC unroll 19
      for (std::size_t q = 0; q < Q; q++) {
        const T h = rp[q][b];
        d += h;
        x += T(cx[q]) * h;
        y += T(cy[q]) * h;
        z += T(cz[q]) * h;
      }
      dr[b] = d, u0[b] = x, u1[b] = y, u2[b] = z;
    }
    for (std::size_t b = 0; b < count; b++) f0[b] = g0, f1[b] = g1, f2[b] = g2, iota[b] = Inertia ? T(1) : T(0);
    if constexpr (PerVoxel) {
      for (std::size_t b = 0; b < count; b++) {
        const std::size_t voxel = Dense ? base + b : nodeOf_[base + b];
        const T eps = T(porosity[voxel]);
        f0[b] = eps * g0 + T(force[3 * voxel]);
        f1[b] = eps * g1 + T(force[3 * voxel + 1]);
        f2[b] = eps * g2 + T(force[3 * voxel + 2]);
        iota[b] = Inertia ? T(1) / eps : T(0);
        m.badPorosity[b] = eps > T(0) && eps <= T(1) ? T(0) : T(1);
      }
    }
    for (std::size_t b = 0; b < count; b++) {
      u0[b] += T(0.5) * f0[b], u1[b] += T(0.5) * f1[b], u2[b] += T(0.5) * f2[b];
    }
    if constexpr (Gray) {
      // A Darcy drag -γu, implicit in the velocity (Guo & Zhao 2002).
      for (std::size_t b = 0; b < count; b++) {
        const T implicit = T(1) / (T(1) + T(0.5) * gray[b]);
        u0[b] *= implicit, u1[b] *= implicit, u2[b] *= implicit;
        f0[b] -= gray[b] * u0[b], f1[b] -= gray[b] * u1[b], f2[b] -= gray[b] * u2[b];
      }
    }
  }

  // Collides `count` nodes from storage index `base` (voxel index in the
  // dense layout, where `solid` masks the voxels whose populations stay 0),
  // writing population q of node b to wcols[q][wbase + b]. Adds to
  // `exceeded` how many values written are not within `bound` in magnitude.
  // Returns how many nodes of the block are out of bounds: |u|² + 10⁻⁴ δρ²
  // + 10⁻² (u·F)² above kHealthBound, or NaN, or a per-voxel porosity
  // outside (0, 1]. Within them, the populations
  // written are bounded combinations of the ones read and of these moments.
  template <bool Dense, bool Gray, bool PerVoxel, bool Inertia>
  PECLET_FLOW_INLINE T collide(const T* const* rp, std::size_t base, std::size_t count,
                               const std::uint8_t* __restrict solid, T* const* wcols, std::size_t wbase, T bound,
                               T& exceeded) {
    T keep[kBlock];
    if constexpr (Dense) {
      for (std::size_t b = 0; b < count; b++) keep[b] = solid[b] ? T(0) : T(1);
    }
    T over = 0;
    const T wp = T(1.0 / tauPlus_), wm = T(1.0 / tauMinus_);
    const T sp = T(1) - T(0.5) * wp, sm = T(1) - T(0.5) * wm;
    Moments m;
    blockMoments<Dense, Gray, PerVoxel, Inertia>(rp, base, count, m);
    const T *dr = m.dr, *u0 = m.u0, *u1 = m.u1, *u2 = m.u2, *f0 = m.f0, *f1 = m.f1, *f2 = m.f2, *iota = m.iota;
    alignas(64) T uu[kBlock], uf[kBlock];
    for (std::size_t b = 0; b < count; b++) {
      uu[b] = u0[b] * u0[b] + u1[b] * u1[b] + u2[b] * u2[b];
      uf[b] = u0[b] * f0[b] + u1[b] * f1[b] + u2[b] * f2[b];
    }
    // In place the rule is applied before the step (checkStep), not here.
    const T outOfBounds = inPlace_ ? T(0) : countOutOfBounds<Dense, PerVoxel>(m, uu, uf, keep, count);
    {
      const T w = T(kWeightRest);
      T* __restrict target = wcols[0] + wbase;
      const T* __restrict h = rp[0];
      for (std::size_t b = 0; b < count; b++) {
        const T eq = w * (dr[b] - iota[b] * T(1.5) * uu[b]);
        const T value = h[b] - wp * (h[b] - eq) + sp * w * iota[b] * (T(-3) * uf[b]);
        const T kept = Dense ? keep[b] * value : value;
        target[b] = kept;
        over += std::fabs(kept) <= bound ? T(0) : T(1);
      }
    }
#pragma GCC unroll 9
    for (std::size_t p = 1; p < Q; p += 2) {
      const T w = T(weight(p));
      const T ax = T(cx[p]), ay = T(cy[p]), az = T(cz[p]);
      const T* __restrict ha = rp[p];
      const T* __restrict hb = rp[p + 1];
      T* __restrict first = wcols[p] + wbase;
      T* __restrict second = wcols[p + 1] + wbase;
      prefetch<1>(first + count, count);
      prefetch<1>(second + count, count);
      for (std::size_t b = 0; b < count; b++) {
        const T cu = ax * u0[b] + ay * u1[b] + az * u2[b];
        const T cf = ax * f0[b] + ay * f1[b] + az * f2[b];
        const T eqp = w * (dr[b] + iota[b] * (T(4.5) * cu * cu - T(1.5) * uu[b]));
        const T eqm = w * T(3) * cu;
        const T hp = T(0.5) * (ha[b] + hb[b]), hm = T(0.5) * (ha[b] - hb[b]);
        const T np = hp - wp * (hp - eqp) + sp * w * iota[b] * (T(9) * cu * cf - T(3) * uf[b]);
        const T nm = hm - wm * (hm - eqm) + sm * w * T(3) * cf;
        const T one = Dense ? keep[b] * (np + nm) : np + nm;
        const T other = Dense ? keep[b] * (np - nm) : np - nm;
        first[b] = one;
        second[b] = other;
        over += (std::fabs(one) <= bound ? T(0) : T(1)) + (std::fabs(other) <= bound ? T(0) : T(1));
      }
    }
    exceeded += over;
    return outOfBounds;
  }

  // Nodes out of bounds (or NaN, which fails every comparison): |u|² +
  // 10⁻⁴ δρ² + 10⁻² (u·F)² above kHealthBound, or a per-voxel porosity outside
  // (0, 1]: the rule that keeps the populations a step writes finite. Solid
  // voxels of the dense layout (keep 0) do not count: they keep no state.
  template <bool Dense, bool PerVoxel>
  PECLET_FLOW_INLINE static T countOutOfBounds(const Moments& m, const T* uu, const T* uf, const T* keep,
                                               std::size_t count) {
    T outOfBounds = 0;
    for (std::size_t b = 0; b < count; b++) {
      const T x = uu[b] + T(1e-4) * m.dr[b] * m.dr[b] + T(1e-2) * uf[b] * uf[b];
      T bad = x <= T(kHealthBound) ? T(0) : T(1);
      if constexpr (PerVoxel) bad += m.badPorosity[b];
      outOfBounds += Dense ? keep[b] * bad : bad;
    }
    return outOfBounds;
  }

  // True when the last stepPass found no node out of bounds: the
  // populations it read and wrote are then finite.
  bool healthy() const {
    double sum = 0;
    for (double h : health_) sum += h;
    return sum == 0.0;
  }

  void copyPopulations(const Populations& from, Populations& to) {
    if (to.size() != from.size()) to.resize(from.size());
    const std::size_t n = from.size();
    options_.parallelFor(chunks_, [&](std::size_t begin, std::size_t end, unsigned) {
      const std::size_t lo = begin * n / chunks_, hi = end * n / chunks_;
      std::copy(from.data() + lo, from.data() + hi, to.data() + lo);
    });
  }

  // The moments of the state now (the populations pulled as a step pulls
  // them), summed or written into the fields.
  void pass(Mode mode) {
    if (mode == Mode::Health)
      for (double& h : health_) h = 0.0;
    const bool gray = !gray_.empty(), perVoxel = !porosity_.empty() || !force_.empty();
    if (gray && perVoxel) passT<true, true>(mode);
    if (gray && !perVoxel) passT<true, false>(mode);
    if (!gray && perVoxel) passT<false, true>(mode);
    if (!gray && !perVoxel) passT<false, false>(mode);
  }

  template <bool Gray, bool PerVoxel>
  void passT(Mode mode) {
    for (auto& p : partial_) p = FlowMoments{};
    const bool local = form() == Form::Streamed;
    const T* cols[Q];
    readColumns(cols);
    options_.parallelFor(chunks_, [&](std::size_t begin, std::size_t end, unsigned) {
      alignas(64) T buffer[Q * kBlock];
      const T* rp[Q];
      Moments m;
      for (std::size_t c = begin; c < end; c++) {
        FlowMoments& sums = partial_[c];
        T bad = 0;
        if (layout_ == Layout::Sparse) {
          const std::size_t from = c * storage_ / chunks_, to = (c + 1) * storage_ / chunks_;
          for (std::size_t s0 = from; s0 < to; s0 += kBlock) {
            const std::size_t count = std::min(kBlock, to - s0);
            if (local)
              gatherLocal(buffer, s0, count);
            else
              gatherSparse(buffer, cols, s0, count);
            blockMoments<false, Gray, PerVoxel, false>(blockColumns(buffer, rp), s0, count, m);
            if (mode == Mode::Health)
              bad += blockHealth<false, PerVoxel>(m, count, nullptr);
            else
              useMoments(mode, m, count, nodeOf_.data() + s0, 0, nullptr, sums);
          }
        } else {
          const std::size_t rows = shape_[0] * shape_[1];
          const std::size_t from = c * rows / chunks_, to = (c + 1) * rows / chunks_;
          for (std::size_t row = from; row < to; row++) {
            for (std::size_t k0 = 0; k0 < shape_[2]; k0 += kBlock) {
              const std::size_t count = std::min(kBlock, shape_[2] - k0);
              const std::size_t v0 = row * shape_[2] + k0;
              if (local)
                gatherLocal(buffer, v0, count);
              else
                gatherDense(buffer, cols, row, k0, count);
              blockMoments<true, Gray, PerVoxel, false>(blockColumns(buffer, rp), v0, count, m);
              if (mode == Mode::Health)
                bad += blockHealth<true, PerVoxel>(m, count, mask_.data() + v0);
              else
                useMoments(mode, m, count, nullptr, v0, mask_.data() + v0, sums);
            }
          }
        }
        health_[c] = double(bad);
      }
    });
  }

  // Nodes of a block out of bounds (the rule of countOutOfBounds).
  template <bool Dense, bool PerVoxel>
  static T blockHealth(const Moments& m, std::size_t count, const std::uint8_t* solid) {
    alignas(64) T uu[kBlock], uf[kBlock], keep[kBlock];
    for (std::size_t b = 0; b < count; b++) {
      uu[b] = m.u0[b] * m.u0[b] + m.u1[b] * m.u1[b] + m.u2[b] * m.u2[b];
      uf[b] = m.u0[b] * m.f0[b] + m.u1[b] * m.f1[b] + m.u2[b] * m.f2[b];
      keep[b] = Dense && solid[b] ? T(0) : T(1);
    }
    return countOutOfBounds<Dense, PerVoxel>(m, uu, uf, keep, count);
  }

  // Adds a block's moments to the sums, or writes them into the fields;
  // voxel of node b: nodes[b] (sparse) or first + b (dense, solid skipped).
  void useMoments(Mode mode, const Moments& m, std::size_t count, const std::uint32_t* nodes, std::size_t first,
                  const std::uint8_t* solid, FlowMoments& sums) {
    for (std::size_t b = 0; b < count; b++) {
      if (solid != nullptr && solid[b]) continue;
      const std::size_t voxel = nodes != nullptr ? nodes[b] : first + b;
      const T u[3] = {m.u0[b], m.u1[b], m.u2[b]};
      if (mode == Mode::Fields) {
        for (std::size_t a = 0; a < 3; a++) velocity_[3 * voxel + a] = u[a];
        density_[voxel] = T(1) + m.dr[b];
        continue;
      }
      for (std::size_t a = 0; a < 3; a++) sums.momentum[a] += double(u[a]);
      sums.speed += std::sqrt(double(u[0]) * u[0] + double(u[1]) * u[1] + double(u[2]) * u[2]);
      sums.mass += 1.0 + double(m.dr[b]);
    }
  }

  void reduce() {
    FlowMoments total;
    for (const FlowMoments& p : partial_) {
      for (std::size_t a = 0; a < 3; a++) total.momentum[a] += p.momentum[a];
      total.speed += p.speed;
      total.mass += p.mass;
    }
    total.finite = std::isfinite(total.momentum[0]) && std::isfinite(total.momentum[1]) &&
                   std::isfinite(total.momentum[2]) && std::isfinite(total.mass) && std::isfinite(total.speed);
    moments_ = total;
  }

  // Anti-bounce-back (Ginzburg 2005): the density of a pressure face halfway
  // outside the first or last plane, for the link entering through it:
  // f_q = -f*_q' + 2 e+_q(rho_face), the kinetic part of e+ neglected.
  PECLET_FLOW_INLINE T antiBounceBack(const T* const* cols, std::size_t q, std::size_t s, std::uint32_t link) const {
    return pushBack(cols[opposite(q)][s], q, link);
  }

  LatticeOptions options_;
  std::array<std::size_t, 3> shape_{};
  std::ptrdiff_t offset_[Q]{};
  T faceTerm_[2][Q]{};
  std::size_t voxels_ = 0, fluid_ = 0, storage_ = 0, stride_ = 0, chunks_ = 1, stepCount_ = 0, savedCount_ = 0;
  Layout layout_ = Layout::Dense;
  double tauPlus_ = 1.0, tauMinus_ = 1.0;
  std::vector<std::uint8_t> mask_, rowHasSolid_, rowDirect_;
  std::vector<std::uint32_t, PageAllocator<std::uint32_t>> sources_;
  std::vector<std::uint32_t> nodeOf_;
  std::vector<FaceLink> faceLinks_;
  bool offsets_ = false;  // sources_ holds signed offsets (encodeOffsets)
  Populations a_, b_;
  std::vector<T> gray_, velocity_, density_, kappa_;
  std::vector<double> porosity_, force_;
  std::vector<FlowMoments> partial_;
  std::vector<double> health_;  // per chunk: nodes out of bounds in the last stepPass
  std::vector<double> exceed_;  // per chunk: values the last in-place step wrote past stepBound_
  bool inPlace_ = true;
  // The last in-place step wrote every value within certifiedBound_;
  // checked_: checkStep() said yes for the state now.
  bool certified_ = false, checked_ = false;
  // The bound the last step's values were held to; the force bound found by the last
  // checkStep(false), and the bound the step it precedes holds its values to.
  double certifiedBound_ = 0.0, stepForce_ = std::numeric_limits<double>::quiet_NaN(), stepBound_ = 0.0;
  Populations snapshot_;  // the state at the start of an atomic step() call
  bool diverged_ = false;
  std::size_t divergedAt_ = 0;
#if PECLET_FLOW_X86
  // The CPU runs AVX2 and FMA (PECLET_FLOW_ISA=sse2 turns them off).
  const bool avx2_ = cpuHasAvx2();
#endif
  FlowMoments moments_;
};

}  // namespace

double plannedBytes(const LatticeOptions& o) {
  const double voxels = voxelCount(o.shape);
  if (voxels > kMaxVoxels) return voxels * 305.0;
  const auto n = static_cast<std::size_t>(voxels);
  const bool sized = (o.solid.empty() || o.solid.size() == n) &&
                     (o.solidFraction.empty() || o.solidFraction.size() == n) && (o.sdf.empty() || o.sdf.size() == n);
  const std::size_t fluid = sized ? countFluid(o, n) : n;
  const std::size_t t = bytesOfPrecision(o.precision);
  const bool inPlace = streamsInPlace(o.streaming, !o.sdf.empty());
  const Layout layout = chooseLayout(o.layout, n, fluid, t, !o.sdf.empty(), inPlace);
  double bytes = layout == Layout::Sparse
                     ? double(fluid) * sparseBytesPerNode(t, inPlace) + 4.0 * double(n)  // build table
                     : double(n) * denseBytesPerVoxel(t, inPlace);
  if (!o.solidFraction.empty()) bytes += double(layout == Layout::Sparse ? fluid : n) * double(t);
  return bytes;
}

std::unique_ptr<Lattice> makeLattice(LatticeOptions options) {
  validate(options);
  if (options.precision == Precision::F32) return std::make_unique<LatticeImpl<float>>(std::move(options));
  return std::make_unique<LatticeImpl<double>>(std::move(options));
}

namespace {
// Calls visit(m) for each voxel m that D3Q19 links to voxel v (18-connected), across the faces
// of the axes `wrap` marks periodic and inside the box on the others: the neighbourhood
// percolates() and labelPores() search.
template <typename Visit>
void forEachNeighbour(std::size_t v, const std::array<std::size_t, 3>& shape, const std::array<bool, 3>& wrap,
                      Visit&& visit) {
  const std::int64_t p[3] = {std::int64_t(v / (shape[1] * shape[2])), std::int64_t((v / shape[2]) % shape[1]),
                             std::int64_t(v % shape[2])};
  for (std::size_t q = 1; q < Q; q++) {
    std::int64_t c[3] = {p[0] + cx[q], p[1] + cy[q], p[2] + cz[q]};
    bool inside = true;
    for (int a = 0; a < 3 && inside; a++) {
      const auto n = std::int64_t(shape[a]);
      if (c[a] >= 0 && c[a] < n) continue;
      if (wrap[a])
        c[a] = (c[a] + n) % n;
      else
        inside = false;
    }
    if (!inside) continue;
    const std::size_t m = (std::size_t(c[0]) * shape[1] + std::size_t(c[1])) * shape[2] + std::size_t(c[2]);
    if (m != v) visit(m);
  }
}
}  // namespace

bool percolates(const std::uint8_t* solid, const std::array<std::size_t, 3>& shape, int axis,
                const std::array<bool, 3>& periodic) {
  if (axis < 0 || axis > 2) rangeError("axis", "must be 0, 1 or 2");
  // The path runs from face to face of `axis`: never across them.
  std::array<bool, 3> wrap = periodic;
  wrap[std::size_t(axis)] = false;
  const std::size_t n = shape[0] * shape[1] * shape[2];
  if (n == 0) return false;
  const auto a = std::size_t(axis);
  std::vector<std::uint8_t> seen(n, 0);
  std::deque<std::size_t> queue;
  auto coordinate = [&](std::size_t v, std::size_t d) {
    return d == 0 ? v / (shape[1] * shape[2]) : d == 1 ? (v / shape[2]) % shape[1] : v % shape[2];
  };
  for (std::size_t v = 0; v < n; v++) {
    if (coordinate(v, a) == 0 && !solid[v]) {
      seen[v] = 1;
      queue.push_back(v);
    }
  }
  while (!queue.empty()) {
    const std::size_t v = queue.front();
    queue.pop_front();
    if (coordinate(v, a) + 1 == shape[a]) return true;
    forEachNeighbour(v, shape, wrap, [&](std::size_t m) {
      if (seen[m] || solid[m]) return;
      seen[m] = 1;
      queue.push_back(m);
    });
  }
  return false;
}

std::size_t labelPores(const std::uint8_t* solid, const std::array<std::size_t, 3>& shape, std::int32_t* labels) {
  const std::size_t n = shape[0] * shape[1] * shape[2];
  for (std::size_t v = 0; v < n; v++) labels[v] = -1;
  std::vector<std::size_t> stack;
  std::size_t count = 0;
  for (std::size_t seed = 0; seed < n; seed++) {
    if (solid[seed] || labels[seed] >= 0) continue;
    if (count >= std::size_t(std::numeric_limits<std::int32_t>::max()))
      rangeError("solid", "has more pore components than a 32-bit label holds");
    const auto label = std::int32_t(count++);
    labels[seed] = label;
    stack.push_back(seed);
    while (!stack.empty()) {
      const std::size_t v = stack.back();
      stack.pop_back();
      forEachNeighbour(v, shape, {false, false, false}, [&](std::size_t m) {
        if (solid[m] || labels[m] >= 0) return;
        labels[m] = label;
        stack.push_back(m);
      });
    }
  }
  return count;
}

}  // namespace peclet::flow
