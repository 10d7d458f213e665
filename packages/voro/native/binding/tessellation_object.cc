#include "tessellation_object.hpp"

#include <cmath>
#include <peclet/runtime.hpp>
#include <string>

namespace peclet_voro {

namespace voro = peclet::voro;

namespace {

// The module pool lent to the kernel; `shouldStop` raises `cancel` (see peclet::lendPool).
voro::Execution poolExecution(const unsigned& threads, std::atomic<bool>& cancel,
                              const std::function<bool()>& shouldStop) {
  voro::Execution execution;
  execution.workers = peclet::runtime().pool().size();
  execution.cancel = &cancel;
  execution.shouldStop = shouldStop;  // polled inside the cells' searches too
  execution.parallelFor = peclet::lendPool(&threads, &cancel, &shouldStop);
  return execution;
}

}  // namespace

void TessellationState::account() {
  offsets32.resize(kernel.neighborOffsets().size());
  const auto& offsets = kernel.neighborOffsets();
  for (std::size_t i = 0; i < offsets.size(); i++) offsets32[i] = static_cast<std::int32_t>(offsets[i]);
  ledger.resize(kernel.memoryBytes() + offsets32.capacity() * sizeof(std::int32_t));
}

voro::Outcome TessellationState::run(const Request& request, std::atomic<bool>& cancel,
                                     std::function<bool()> shouldStop) {
  box = request.box;
  threads = request.threads;
  voro::Execution execution = poolExecution(threads, cancel, shouldStop);
  voro::Outcome outcome =
      kernel.compute(request.points.data(), request.points.size(), request.box,
                     request.hasRadii ? request.radii.data() : nullptr, request.radii.size(), execution);
  if (outcome.status == voro::Status::kOk) {
    if (kernel.neighbors().size() > static_cast<std::size_t>(INT32_MAX)) {
      outcome.status = voro::Status::kInvalid;
      outcome.error.kind = voro::ErrorKind::kRange;
      outcome.error.argument = "points";
      outcome.error.index = -1;
      outcome.error.message = "more than 2^31 - 1 faces in all: neighborOffsets would not fit an Int32Array";
      return outcome;
    }
    account();
  }
  return outcome;
}

voro::Outcome TessellationState::update(const double* points, std::atomic<bool>& cancel,
                                        std::function<bool()> shouldStop) {
  voro::Execution execution = poolExecution(threads, cancel, shouldStop);
  voro::Outcome outcome = kernel.update(points, execution);
  if (outcome.status == voro::Status::kOk) account();
  return outcome;
}

void throwInvalid(Napi::Env env, const voro::ValidationError& error) {
  peclet::throwArgumentError(env, error.kind == voro::ErrorKind::kType, error.argument, error.index, error.message);
}

namespace {

template <typename E>
Napi::Value exportVector(peclet::Object<Tessellation>& self, Napi::Env env,
                         const std::shared_ptr<TessellationState>& state, const std::vector<E>& v) {
  return self.exportArray<E>(env, state, const_cast<E*>(v.data()), v.size());
}

}  // namespace

Request readRequest(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Request request;
  request.points = peclet::float64Vector(env, info[0], "points");
  if (!info[1].IsObject()) throw Napi::TypeError::New(env, "options.box must be { min: [x, y, z], max: [x, y, z] }");
  Napi::Object box = info[1].As<Napi::Object>();
  const auto min = peclet::vector3(env, box.Get("min"), "box.min");
  const auto max = peclet::vector3(env, box.Get("max"), "box.max");
  std::copy(min.begin(), min.end(), request.box.min);
  std::copy(max.begin(), max.end(), request.box.max);
  if (!info[2].IsArray()) throw Napi::TypeError::New(env, "options.periodic must be [bool, bool, bool]");
  Napi::Array periodic = info[2].As<Napi::Array>();
  for (uint32_t i = 0; i < 3; i++) request.box.periodic[i] = periodic.Get(i).ToBoolean().Value();
  if (!info[3].IsUndefined() && !info[3].IsNull()) {
    request.radii = peclet::float64Vector(env, info[3], "options.radii");
    request.hasRadii = true;
  }
  if (info[4].IsNumber()) request.threads = info[4].As<Napi::Number>().Uint32Value();
  return request;
}

Napi::Function Tessellation::Init(Napi::Env env) {
  auto members = LifecycleMembers();
  members.push_back(Getter<&Tessellation::Size>("size"));
  members.push_back(ArrayGetter<&Tessellation::Volumes>("volumes"));
  members.push_back(ArrayGetter<&Tessellation::Centroids>("centroids"));
  members.push_back(ArrayGetter<&Tessellation::NeighborOffsets>("neighborOffsets"));
  members.push_back(ArrayGetter<&Tessellation::Neighbors>("neighbors"));
  members.push_back(ArrayGetter<&Tessellation::FaceAreas>("faceAreas"));
  members.push_back(Method<&Tessellation::Cell>("cell"));
  members.push_back(Method<&Tessellation::Update>("update"));
  members.push_back(Method<&Tessellation::Stats>("stats"));
  return DefineClass(env, "Tessellation", members);
}

Tessellation::Tessellation(const Napi::CallbackInfo& info) : peclet::Object<Tessellation>(info) {
  if (info.Length() < 1 || !info[0].IsExternal()) {
    throw Napi::TypeError::New(info.Env(), "Tessellation cannot be constructed directly: use tessellate()");
  }
  state_ = *info[0].As<Napi::External<std::shared_ptr<TessellationState>>>().Data();
}

Napi::Value Tessellation::Wrap(Napi::Env env, std::shared_ptr<TessellationState> state) {
  std::shared_ptr<TessellationState> holder = std::move(state);
  auto external = Napi::External<std::shared_ptr<TessellationState>>::New(env, &holder);
  return peclet::envState(env)->constructor("Tessellation").New({external});
}

Napi::Value Tessellation::Size(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), static_cast<double>(state_->kernel.pointCount()));
}
Napi::Value Tessellation::Volumes(const Napi::CallbackInfo& info) {
  return exportVector(*this, info.Env(), state_, state_->kernel.cellVolumes());
}
Napi::Value Tessellation::Centroids(const Napi::CallbackInfo& info) {
  return exportVector(*this, info.Env(), state_, state_->kernel.cellCentroids());
}
Napi::Value Tessellation::NeighborOffsets(const Napi::CallbackInfo& info) {
  return exportVector(*this, info.Env(), state_, state_->offsets32);
}
Napi::Value Tessellation::Neighbors(const Napi::CallbackInfo& info) {
  return exportVector(*this, info.Env(), state_, state_->kernel.neighbors());
}
Napi::Value Tessellation::FaceAreas(const Napi::CallbackInfo& info) {
  return exportVector(*this, info.Env(), state_, state_->kernel.faceAreas());
}

Napi::Value Tessellation::Cell(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsNumber()) throw Napi::TypeError::New(env, "cell(index): index must be a number");
  double index = info[0].As<Napi::Number>().DoubleValue();
  const double n = static_cast<double>(state_->kernel.pointCount());
  if (!(index >= 0 && index < n && index == std::floor(index))) {
    throw Napi::RangeError::New(
        env, "cell(index): index must be an integer in [0, " + std::to_string(state_->kernel.pointCount()) + ")");
  }
  voro::CellGeometry geometry;
  if (!state_->kernel.cell(static_cast<std::size_t>(index), geometry)) {
    throw Napi::Error::New(env, "cell(index): no valid tessellation");
  }
  Napi::Object result = Napi::Object::New(env);
  Napi::Float64Array vertices = Napi::Float64Array::New(env, geometry.vertices.size());
  std::copy(geometry.vertices.begin(), geometry.vertices.end(), vertices.Data());
  const std::size_t faces = geometry.faceNeighbors.size();
  Napi::Array faceList = Napi::Array::New(env, faces);
  Napi::Int32Array neighbors = Napi::Int32Array::New(env, faces);
  for (std::size_t f = 0; f < faces; f++) {
    const std::int32_t begin = geometry.faceOffsets[f], end = geometry.faceOffsets[f + 1];
    Napi::Int32Array loop = Napi::Int32Array::New(env, static_cast<std::size_t>(end - begin));
    std::copy(geometry.faceVertices.begin() + begin, geometry.faceVertices.begin() + end, loop.Data());
    faceList.Set(static_cast<uint32_t>(f), loop);
    neighbors[f] = geometry.faceNeighbors[f];
  }
  result.Set("vertices", vertices);
  result.Set("faces", faceList);
  result.Set("neighbors", neighbors);
  return result;
}

Napi::Value Tessellation::Update(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  // A copy, taken before any check: the caller's memory (a SharedArrayBuffer written by another
  // thread, or this object's own zero-copy arrays) cannot change between check and use.
  std::vector<double> points = peclet::float64Vector(env, info[0], "points");
  if (points.size() != 3 * state_->kernel.pointCount()) {
    throwInvalid(env, {voro::ErrorKind::kRange, "points", -1,
                       "must hold " + std::to_string(3 * state_->kernel.pointCount()) +
                           " coordinates (3 per point of the tessellation), got " + std::to_string(points.size())});
  }
  std::atomic<bool> cancel{false};
  auto& s = this->env();
  voro::Outcome outcome;
  try {
    outcome = state_->update(points.data(), cancel, [&s] { return s.exiting(); });
  } catch (...) {
    // Out of memory while reserving the results: they are intact, but a buffer may have moved.
    detachExports(env);
    throw;
  }
  // A refused or cancelled update changed nothing: arrays handed out stay valid.
  if (outcome.status == voro::Status::kInvalid) throwInvalid(env, outcome.error);
  if (outcome.status == voro::Status::kCancelled) throw Napi::Error::New(env, "update(): cancelled by finalize()");
  // Result buffers may have moved: arrays handed out before are detached, never left dangling.
  detachExports(env);
  return env.Undefined();
}

Napi::Value Tessellation::Stats(const Napi::CallbackInfo& info) {
  const auto& stats = state_->kernel.stats();
  Napi::Object o = Napi::Object::New(info.Env());
  o.Set("oneSidedFacesRemoved", static_cast<double>(stats.oneSidedFacesRemoved));
  o.Set("largestRemovedFaceArea", stats.largestRemovedFaceArea);
  o.Set("topologyDefects", static_cast<double>(stats.topologyDefects));
  o.Set("emptyCells", static_cast<double>(stats.emptyCells));
  o.Set("memoryBytes", static_cast<double>(state_->kernel.memoryBytes()));
  return o;
}

}  // namespace peclet_voro
