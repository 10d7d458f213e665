#include "network_object.hpp"

#include <array>
#include <cmath>
#include <cstring>
#include <peclet/memory.hpp>
#include <peclet/runtime.hpp>
#include <string>

#include "../errors.hpp"
#include "../transport.hpp"
#include "../voxel_diffusion.hpp"

namespace peclet_pnm {

namespace pnm = peclet::pnm;

namespace {

[[noreturn]] void throwPnmError(Napi::Env env, const pnm::PnmError& error) {
  peclet::throwArgumentError(env, error.kind() == pnm::ErrorKind::Type, error.argument(), -1, error.detail());
}

// The TypeScript layer checks and normalizes options; a missing field reads
// as NaN here and the kernel's validation names it.
double number(const Napi::Object& o, const char* key) {
  Napi::Value v = o.Get(key);
  return v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : std::nan("");
}

Napi::Object objectArgument(const Napi::CallbackInfo& info, std::size_t at, const char* name) {
  if (info.Length() <= at || !info[at].IsObject())
    throw Napi::TypeError::New(info.Env(), std::string(name) + " must be an object");
  return info[at].As<Napi::Object>();
}

template <typename E>
Napi::TypedArrayOf<E> copyOut(Napi::Env env, const std::vector<E>& v) {
  Napi::TypedArrayOf<E> array = Napi::TypedArrayOf<E>::New(env, v.size());
  if (!v.empty()) std::memcpy(array.Data(), v.data(), v.size() * sizeof(E));
  return array;
}

Napi::Object solveReport(Napi::Env env, const pnm::SolveReport& s) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("unknowns", double(s.unknowns));
  o.Set("iterations", double(s.iterations));
  o.Set("residual", s.residual);
  o.Set("tolerance", s.tolerance);
  o.Set("converged", s.converged);
  o.Set("cancelled", s.cancelled);
  o.Set("clusters", double(s.clusters));
  o.Set("excludedPores", double(s.excludedPores));
  return o;
}

pnm::SolveOptions solveOptions(const Napi::Object& o, const std::atomic<bool>* cancel) {
  pnm::SolveOptions s;
  s.tolerance = number(o, "tolerance");
  const double iterations = number(o, "maxIterations");
  s.maxIterations = iterations >= 0 && std::isfinite(iterations) ? std::size_t(iterations) : 0;
  s.cancel = cancel;
  return s;
}

// The network's arrays are writable zero-copy views in JS: the solvers
// trust nothing a user may have written into them.
void checkNetwork(Napi::Env env, const pnm::Network& k) {
  const std::size_t pores = k.poreCount();
  auto finite = [&](const std::vector<double>& v, const char* name) {
    for (std::size_t i = 0; i < v.size(); i++) {
      if (!(std::isfinite(v[i]) && v[i] >= 0))
        peclet::throwArgumentError(env, false, name, std::int64_t(i),
                                   "element " + std::to_string(i) + " is " + std::to_string(v[i]) +
                                       ", not a finite non-negative number (the array was written to)");
    }
  };
  finite(k.volume, "network.pores.volume");
  finite(k.inscribedDiameter, "network.pores.inscribedDiameter");
  finite(k.throatInscribedDiameter, "network.throats.inscribedDiameter");
  finite(k.throatArea, "network.throats.area");
  finite(k.throatPerimeter, "network.throats.perimeter");
  finite(k.throatLength, "network.throats.length");
  finite(k.throatTotalLength, "network.throats.totalLength");
  finite(k.equivalentDiameter, "network.pores.equivalentDiameter");
  for (std::size_t i = 0; i < k.coordinates.size(); i++) {
    if (!std::isfinite(k.coordinates[i]))
      peclet::throwArgumentError(env, false, "network.pores.coordinates", std::int64_t(i),
                                 "element " + std::to_string(i) + " is not finite (the array was written to)");
  }
  for (std::size_t i = 0; i < k.face.size(); i++) {
    if (k.face[i] < pnm::kInterior || k.face[i] > 5)
      peclet::throwArgumentError(env, false, "network.pores.face", std::int64_t(i),
                                 "element " + std::to_string(i) + " is " + std::to_string(int(k.face[i])) +
                                     ", not −1 or a face 0–5 (the array was written to)");
  }
  for (std::size_t t = 0; t < k.throatCount(); t++) {
    const std::int64_t a = k.conns[2 * t], b = k.conns[2 * t + 1];
    if (!(a >= 0 && b >= 0 && std::size_t(a) < pores && std::size_t(b) < pores && a != b))
      peclet::throwArgumentError(env, false, "network.throats.conns", std::int64_t(2 * t),
                                 "throat " + std::to_string(t) + " joins " + std::to_string(a) + " and " +
                                     std::to_string(b) + ", not two distinct pores of " + std::to_string(pores) +
                                     " (the array was written to)");
  }
}

// The image: info[0] the solid Uint8Array, options.shape its extents (as
// src/options.ts normalized them), checked against each other.
Napi::Uint8Array imageArgument(const Napi::CallbackInfo& info, const Napi::Object& o, std::array<std::size_t, 3>& shape,
                               double& voxels) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsTypedArray() ||
      info[0].As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array)
    peclet::throwArgumentError(env, true, "image.solid", -1, "must be a Uint8Array");
  Napi::Value extents = o.Get("shape");
  if (!extents.IsArray() || extents.As<Napi::Array>().Length() != 3)
    peclet::throwArgumentError(env, true, "image.shape", -1, "must be [n0, n1, n2]");
  voxels = 1;
  for (uint32_t a = 0; a < 3; a++) {
    const double n = extents.As<Napi::Array>().Get(a).ToNumber().DoubleValue();
    if (!(n >= 1 && n <= 4294967295.0 && std::floor(n) == n))
      peclet::throwArgumentError(env, false, "image.shape", a, "must be a positive integer");
    shape[a] = static_cast<std::size_t>(n);
    voxels *= n;
  }
  Napi::Uint8Array solid = info[0].As<Napi::Uint8Array>();
  if (double(solid.ElementLength()) != voxels)
    peclet::throwArgumentError(env, false, "image.solid", -1,
                               "holds " + std::to_string(solid.ElementLength()) + " voxels, the shape needs " +
                                   std::to_string(static_cast<std::uint64_t>(voxels)));
  return solid;
}

struct Request {
  std::vector<std::uint8_t> solid;
  pnm::ExtractOptions options;
  unsigned threads = 0;
};

// Reads (solid, options) as normalized by src/options.ts; copies the image
// before anything reads it (it may be a view of shared memory).
Request readRequest(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Request r;
  Napi::Object o = objectArgument(info, 1, "options");
  double voxels = 1;
  Napi::Uint8Array solid = imageArgument(info, o, r.options.shape, voxels);
  peclet::ensureAllocatable("image", "an extraction over " + std::to_string(std::uint64_t(voxels)) + " voxels",
                            pnm::extractBytes(voxels));
  r.solid.resize(solid.ElementLength());
  if (!r.solid.empty()) std::memcpy(r.solid.data(), solid.Data(), r.solid.size());
  r.options.voxelSize = number(o, "voxelSize");
  r.options.sigma = number(o, "sigma");
  const double rMax = number(o, "rMax");
  r.options.rMax = rMax >= 1 && rMax <= 64 ? static_cast<int>(rMax) : 0;
  Napi::Value faces = o.Get("boundaries");
  if (faces.IsArray()) {
    for (uint32_t f = 0; f < 6 && f < faces.As<Napi::Array>().Length(); f++)
      r.options.boundaries[f] = faces.As<Napi::Array>().Get(f).ToBoolean().Value();
  }
  r.options.priorityFlood = number(o, "watershed") == 1;
  const double threads = number(o, "threads");
  r.threads = threads >= 0 && std::isfinite(threads) ? static_cast<unsigned>(threads) : 0;
  return r;
}

// Runs the extraction into `state` on the module's pool.
void runExtraction(NetworkState& state, Request& request, std::atomic<bool>& cancel,
                   const std::function<bool()>& shouldStop, std::atomic<int>* stage) {
  request.options.parallelFor = peclet::lendPool(&request.threads, &cancel, &shouldStop);
  const unsigned pool = peclet::runtime().pool().size();
  request.options.workers = request.threads == 0 ? pool : std::min(request.threads, pool);
  request.options.cancel = &cancel;
  request.options.stage = stage;
  state.kernel = pnm::extract(std::move(request.solid), request.options, &state.report);
  state.conduitLengths = pnm::conduitLengths(state.kernel);
  state.account();
}

// One async extraction: the image copied on the JS thread, the network
// computed off it, wrapped as a Network back on it.
class ExtractWork : public peclet::TrackedWork {
 public:
  ExtractWork(Napi::Env env, Request request, std::shared_ptr<std::atomic<int>> stage)
      : TrackedWork(env, "extractAsync"),
        request_(std::move(request)),
        state_(std::make_shared<NetworkState>(peclet::envState(env)->id())),
        stage_(std::move(stage)) {}

 protected:
  void Run() override {
    try {
      runExtraction(
          *state_, request_, flag_, [this] { return cancelled(); }, stage_.get());
    } catch (const pnm::PnmError& e) {
      error_ = std::make_unique<pnm::PnmError>(e);
    } catch (const pnm::Cancelled&) {
      flag_ = true;  // settles as cancelled (cancelled() is true)
    }
    request_ = Request();
  }
  Napi::Value Result(Napi::Env env) override {
    if (error_) throwPnmError(env, *error_);
    return Network::Wrap(env, std::move(state_));
  }
  void releaseState() noexcept override {
    state_.reset();
    request_ = Request();
  }

 private:
  Request request_;
  std::shared_ptr<NetworkState> state_;
  std::shared_ptr<std::atomic<int>> stage_;
  std::atomic<bool> flag_{false};
  std::unique_ptr<pnm::PnmError> error_;
};

}  // namespace

Napi::Value Extract(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto envState = peclet::envState(env);
  if (envState->exiting()) throw envState->finalizedError("Network");
  Request request = readRequest(info);
  auto state = std::make_shared<NetworkState>(envState->id());
  std::atomic<bool> cancel{false};
  const std::function<bool()> stop = [&envState] { return envState->exiting(); };
  try {
    runExtraction(*state, request, cancel, stop, nullptr);
  } catch (const pnm::PnmError& e) {
    throwPnmError(env, e);
  } catch (const pnm::Cancelled&) {
    Napi::Error error = Napi::Error::New(env, "extract: cancelled by finalize()");
    error.Set("code", Napi::String::New(env, "PECLET_CANCELLED"));
    throw error;
  }
  return Network::Wrap(env, std::move(state));
}

Napi::Value FormationFactor(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto envState = peclet::envState(env);
  if (envState->exiting()) throw envState->finalizedError("formationFactor");
  Napi::Object o = objectArgument(info, 1, "options");
  pnm::VoxelDiffusionOptions options;
  double voxels = 1;
  Napi::Uint8Array solid = imageArgument(info, o, options.shape, voxels);
  // The index and concentration per voxel, and per pore voxel its 6 neighbours and 7 vectors.
  peclet::ensureAllocatable("image", "a diffusion solve over " + std::to_string(std::uint64_t(voxels)) + " voxels",
                            voxels * (1 + 1 + 4 + 8 + 8 + 24 + 7 * 8));
  // A copy: the solve reads the image from other threads while JS runs nothing, but the
  // array may be a view of memory another thread writes.
  std::vector<std::uint8_t> copy(solid.ElementLength());
  if (!copy.empty()) std::memcpy(copy.data(), solid.Data(), copy.size());
  options.axis = static_cast<int>(number(o, "axis"));
  options.tolerance = number(o, "tolerance");
  const double iterations = number(o, "maxIterations");
  options.maxIterations = iterations >= 1 && std::isfinite(iterations) ? static_cast<std::size_t>(iterations) : 0;
  const double threadsOption = number(o, "threads");
  unsigned threads = threadsOption >= 0 && std::isfinite(threadsOption) ? static_cast<unsigned>(threadsOption) : 0;
  std::atomic<bool> cancel{false};
  const std::function<bool()> stop = [&envState] { return envState->exiting(); };
  options.parallelFor = peclet::lendPool(&threads, &cancel, &stop);
  options.cancel = &cancel;
  pnm::VoxelDiffusionResult result;
  try {
    result = pnm::voxelDiffusion(copy.data(), options);
  } catch (const pnm::PnmError& e) {
    throwPnmError(env, e);
  }
  if (result.cancelled) {
    Napi::Error error = Napi::Error::New(env, "formationFactor: cancelled by finalize()");
    error.Set("code", Napi::String::New(env, "PECLET_CANCELLED"));
    throw error;
  }
  Napi::Object out = Napi::Object::New(env);
  out.Set("formationFactor", result.formationFactor);
  out.Set("tortuosity", result.tortuosity);
  out.Set("effectiveDiffusivity", result.effectiveDiffusivity);
  out.Set("porosity", result.porosity);
  out.Set("effectivePorosity", result.effectivePorosity);
  out.Set("inletRate", result.inletRate);
  out.Set("outletRate", result.outletRate);
  out.Set("concentration", copyOut(env, result.concentration));
  Napi::Object solve = Napi::Object::New(env);
  solve.Set("unknowns", double(result.unknowns));
  solve.Set("iterations", double(result.iterations));
  solve.Set("residual", result.residual);
  solve.Set("tolerance", options.tolerance);
  solve.Set("converged", result.converged);
  out.Set("solve", solve);
  return out;
}

Napi::Value ExtractAsync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Request request = readRequest(info);
  auto stage = std::make_shared<std::atomic<int>>(-1);
  Napi::Object handle = (new ExtractWork(env, std::move(request), stage))->Start();
  handle.Set("stage", Napi::Function::New(env, [stage](const Napi::CallbackInfo& i) {
               return Napi::Number::New(i.Env(), stage->load());
             }));
  return handle;
}

Napi::Function Network::Init(Napi::Env env) {
  auto members = LifecycleMembers();
  members.push_back(Getter<&Network::Counts>("counts"));
  members.push_back(Method<&Network::Arrays>("arrays"));
  members.push_back(Method<&Network::Regions>("regions"));
  members.push_back(Getter<&Network::Info>("info"));
  members.push_back(Method<&Network::SizeFactors>("sizeFactors"));
  members.push_back(Method<&Network::StokesFlow>("stokesFlow"));
  members.push_back(Method<&Network::Diffusion>("diffusion"));
  members.push_back(Method<&Network::Drainage>("drainage"));
  members.push_back(Method<&Network::InvasionPercolation>("invasionPercolation"));
  return DefineClass(env, "Network", members);
}

Network::Network(const Napi::CallbackInfo& info) : peclet::Object<Network>(info) {
  if (info.Length() < 1 || !info[0].IsExternal())
    throw Napi::TypeError::New(info.Env(), "Network cannot be constructed directly: use extract()");
  state_ = *info[0].As<Napi::External<std::shared_ptr<NetworkState>>>().Data();
}

Napi::Value Network::Wrap(Napi::Env env, std::shared_ptr<NetworkState> state) {
  std::shared_ptr<NetworkState> holder = std::move(state);
  auto external = Napi::External<std::shared_ptr<NetworkState>>::New(env, &holder);
  return peclet::envState(env)->constructor("Network").New({external});
}

Napi::Value Network::Counts(const Napi::CallbackInfo& info) {
  Napi::Array counts = Napi::Array::New(info.Env(), 2);
  counts.Set(0u, double(state_->kernel.poreCount()));
  counts.Set(1u, double(state_->kernel.throatCount()));
  return counts;
}

Napi::Value Network::Arrays(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  pnm::Network& k = state_->kernel;
  auto out = [&](auto& v) {
    using E = typename std::decay_t<decltype(v)>::value_type;
    return exportArray<E>(env, state_, v.data(), v.size());
  };
  Napi::Object pores = Napi::Object::New(env);
  pores.Set("coordinates", out(k.coordinates));
  pores.Set("volume", out(k.volume));
  pores.Set("inscribedDiameter", out(k.inscribedDiameter));
  pores.Set("equivalentDiameter", out(k.equivalentDiameter));
  pores.Set("surfaceArea", out(k.surfaceArea));
  pores.Set("label", out(k.label));
  pores.Set("face", out(k.face));
  Napi::Object throats = Napi::Object::New(env);
  throats.Set("conns", out(k.conns));
  throats.Set("inscribedDiameter", out(k.throatInscribedDiameter));
  throats.Set("area", out(k.throatArea));
  throats.Set("perimeter", out(k.throatPerimeter));
  throats.Set("length", out(k.throatLength));
  throats.Set("totalLength", out(k.throatTotalLength));
  throats.Set("conduitLengths", out(state_->conduitLengths));
  Napi::Object o = Napi::Object::New(env);
  o.Set("pores", pores);
  o.Set("throats", throats);
  return o;
}

Napi::Value Network::Regions(const Napi::CallbackInfo& info) {
  return exportArray<std::int32_t>(info.Env(), state_, state_->kernel.regions.data(), state_->kernel.regions.size());
}

Napi::Value Network::Info(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const pnm::Network& k = state_->kernel;
  const pnm::ExtractReport& r = state_->report;
  Napi::Object o = Napi::Object::New(env);
  Napi::Array shape = Napi::Array::New(env, 3);
  for (uint32_t a = 0; a < 3; a++) shape.Set(a, double(k.shape[a]));
  o.Set("shape", shape);
  o.Set("voxelSize", k.voxelSize);
  o.Set("porosity", k.porosity);
  o.Set("bytes", double(k.bytes()));
  Napi::Object timings = Napi::Object::New(env);
  timings.Set("distanceTransform", r.distanceTransform);
  timings.Set("smoothing", r.smoothing);
  timings.Set("peaks", r.peaks);
  timings.Set("watershed", r.watershed);
  timings.Set("network", r.network);
  o.Set("timings", timings);
  Napi::Object peaks = Napi::Object::New(env);
  peaks.Set("found", double(r.peaksFound));
  peaks.Set("saddles", double(r.saddlesTrimmed));
  peaks.Set("nearby", double(r.nearbyTrimmed));
  o.Set("peaks", peaks);
  return o;
}

namespace {

// The model named by options.model (checked by src/options.ts).
pnm::ConductanceModel conductanceModel(const Napi::Object& o) {
  const std::string name = o.Get("model").IsString() ? o.Get("model").As<Napi::String>().Utf8Value() : "";
  if (name == "shape-factor") return pnm::ConductanceModel::ShapeFactor;
  if (name == "pyramids-and-cuboids") return pnm::ConductanceModel::PyramidsAndCuboids;
  if (name == "cones-and-cylinders") return pnm::ConductanceModel::ConesAndCylinders;
  if (name == "spheres-and-cylinders") return pnm::ConductanceModel::SpheresAndCylinders;
  return pnm::ConductanceModel::HagenPoiseuille;
}

pnm::Spacing spacingOf(const Napi::Object& o) {
  const Napi::Value v = o.Get("spacing");
  return v.IsString() && v.As<Napi::String>().Utf8Value() == "direct-length" ? pnm::Spacing::DirectLength
                                                                             : pnm::Spacing::TotalLength;
}

}  // namespace

Napi::Value Network::SizeFactors(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  checkNetwork(env, state_->kernel);
  Napi::Object o = objectArgument(info, 0, "options");
  pnm::SizeFactors factors;
  try {
    factors = pnm::sizeFactors(state_->kernel, conductanceModel(o), spacingOf(o));
  } catch (const pnm::PnmError& e) {
    throwPnmError(env, e);
  }
  Napi::Object out = Napi::Object::New(env);
  out.Set("conduitLengths", copyOut(env, factors.lengths));
  out.Set("hydraulic", copyOut(env, factors.hydraulic));
  out.Set("diffusive", copyOut(env, factors.diffusive));
  return out;
}

Napi::Value Network::StokesFlow(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  checkNetwork(env, state_->kernel);
  Napi::Object o = objectArgument(info, 0, "options");
  pnm::StokesOptions options;
  options.axis = static_cast<int>(number(o, "axis"));
  options.viscosity = number(o, "viscosity");
  options.model = conductanceModel(o);
  options.spacing = spacingOf(o);
  options.inletPressure = number(o, "inletPressure");
  options.outletPressure = number(o, "outletPressure");
  options.entrance = o.Get("entrance").ToBoolean().Value();
  std::atomic<bool> cancel{false};
  options.solve = solveOptions(o, &cancel);
  pnm::StokesResult result;
  try {
    result = pnm::stokesFlow(state_->kernel, options);
  } catch (const pnm::PnmError& e) {
    throwPnmError(env, e);
  }
  Napi::Object out = Napi::Object::New(env);
  out.Set("permeability", result.permeability);
  out.Set("flowRate", result.flowRate);
  out.Set("pressure", copyOut(env, result.pressure));
  out.Set("throatFlow", copyOut(env, result.throatFlow));
  out.Set("conductance", copyOut(env, result.conductance));
  out.Set("solve", solveReport(env, result.solve));
  return out;
}

Napi::Value Network::Diffusion(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  checkNetwork(env, state_->kernel);
  Napi::Object o = objectArgument(info, 0, "options");
  pnm::DiffusionOptions options;
  options.axis = static_cast<int>(number(o, "axis"));
  options.model = conductanceModel(o);
  options.spacing = spacingOf(o);
  std::atomic<bool> cancel{false};
  options.solve = solveOptions(o, &cancel);
  pnm::DiffusionResult result;
  try {
    result = pnm::diffusion(state_->kernel, options);
  } catch (const pnm::PnmError& e) {
    throwPnmError(env, e);
  }
  Napi::Object out = Napi::Object::New(env);
  out.Set("formationFactor", result.formationFactor);
  out.Set("tortuosity", result.tortuosity);
  out.Set("effectiveDiffusivity", result.effectiveDiffusivity);
  out.Set("concentration", copyOut(env, result.concentration));
  out.Set("solve", solveReport(env, result.solve));
  return out;
}

namespace {

pnm::DrainageOptions drainageOptions(Napi::Env env, const Napi::Object& o) {
  pnm::DrainageOptions options;
  options.axis = static_cast<int>(number(o, "axis"));
  options.contactAngle = number(o, "contactAngle");
  options.surfaceTension = number(o, "surfaceTension");
  Napi::Value pressures = o.Get("pressures");
  if (!pressures.IsUndefined()) options.pressures = peclet::float64Vector(env, pressures, "pressures");
  return options;
}

}  // namespace

Napi::Value Network::Drainage(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  checkNetwork(env, state_->kernel);
  pnm::DrainageOptions options = drainageOptions(env, objectArgument(info, 0, "options"));
  pnm::DrainageResult result;
  try {
    result = pnm::drainage(state_->kernel, options);
  } catch (const pnm::PnmError& e) {
    throwPnmError(env, e);
  }
  Napi::Object out = Napi::Object::New(env);
  out.Set("pressure", copyOut(env, result.pressure));
  out.Set("saturation", copyOut(env, result.saturation));
  out.Set("poreEntry", copyOut(env, result.poreEntry));
  out.Set("throatEntry", copyOut(env, result.throatEntry));
  out.Set("poreInvaded", copyOut(env, result.poreInvaded));
  out.Set("throatInvaded", copyOut(env, result.throatInvaded));
  return out;
}

Napi::Value Network::InvasionPercolation(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  checkNetwork(env, state_->kernel);
  pnm::DrainageOptions options = drainageOptions(env, objectArgument(info, 0, "options"));
  pnm::InvasionResult result;
  try {
    result = pnm::invasionPercolation(state_->kernel, options);
  } catch (const pnm::PnmError& e) {
    throwPnmError(env, e);
  }
  Napi::Object out = Napi::Object::New(env);
  out.Set("poreSequence", copyOut(env, result.poreSequence));
  out.Set("throatSequence", copyOut(env, result.throatSequence));
  out.Set("pressure", copyOut(env, result.pressure));
  out.Set("saturation", copyOut(env, result.saturation));
  return out;
}

}  // namespace peclet_pnm
