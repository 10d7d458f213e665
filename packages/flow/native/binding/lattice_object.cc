#include "lattice_object.hpp"

#include <cmath>
#include <cstring>
#include <peclet/memory.hpp>
#include <peclet/runtime.hpp>
#include <string>
#include <vector>

namespace peclet_flow {

namespace flow = peclet::flow;

namespace {

// The TypeScript layer checks and normalizes the options; here a missing or
// non-number field reads as NaN and the kernel's validation names it.
double number(const Napi::Object& o, const char* key) {
  Napi::Value v = o.Get(key);
  return v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : std::nan("");
}

std::string text(const Napi::Object& o, const char* key) {
  Napi::Value v = o.Get(key);
  return v.IsString() ? v.As<Napi::String>().Utf8Value() : std::string();
}

std::size_t count(double value) { return value >= 0 && std::isfinite(value) ? static_cast<std::size_t>(value) : 0; }

// A Uint8Array argument copied before anything reads it (it may be a view
// of shared memory another thread writes).
std::vector<std::uint8_t> bytesCopy(Napi::Env env, const Napi::Value& value, const char* name) {
  if (!value.IsTypedArray() || value.As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array)
    peclet::throwArgumentError(env, true, name, -1, "must be a Uint8Array");
  Napi::Uint8Array a = value.As<Napi::Uint8Array>();
  peclet::ensureAllocatable(name, "a copy of " + std::to_string(a.ElementLength()) + " voxels",
                            double(a.ElementLength()));
  std::vector<std::uint8_t> copy(a.ElementLength());
  if (!copy.empty()) std::memcpy(copy.data(), a.Data(), copy.size());
  return copy;
}

flow::LatticeOptions readOptions(Napi::Env env, const Napi::Object& o) {
  flow::LatticeOptions options;
  Napi::Value shape = o.Get("shape");
  if (!shape.IsArray() || shape.As<Napi::Array>().Length() != 3)
    peclet::throwArgumentError(env, true, "shape", -1, "must be [n0, n1, n2]");
  for (uint32_t a = 0; a < 3; a++) {
    const double n = shape.As<Napi::Array>().Get(a).ToNumber().DoubleValue();
    if (!(n >= 1 && n <= 4294967295.0 && std::floor(n) == n))
      peclet::throwArgumentError(env, false, "shape", a, "must be a positive integer");
    options.shape[a] = static_cast<std::size_t>(n);
  }
  Napi::Value solid = o.Get("solid");
  Napi::Value fraction = o.Get("solidFraction");
  const double voxels = double(options.shape[0]) * double(options.shape[1]) * double(options.shape[2]);
  options.precision = text(o, "precision") == "f32" ? flow::Precision::F32 : flow::Precision::F64;
  const std::string layout = text(o, "layout");
  options.layout = layout == "dense"    ? flow::Layout::Dense
                   : layout == "sparse" ? flow::Layout::Sparse
                                        : flow::Layout::Auto;
  // Refused before anything is copied or allocated: the lattice at its
  // densest (an upper bound), then the exact plan once the solid is known.
  {
    flow::LatticeOptions bound;
    bound.shape = options.shape;
    bound.precision = options.precision;
    bound.layout = flow::Layout::Dense;
    peclet::ensureAllocatable("shape", "a lattice of " + std::to_string(std::size_t(voxels)) + " voxels",
                              std::min(flow::plannedBytes(bound), voxels * 400.0));
  }
  if (!solid.IsUndefined()) options.solid = bytesCopy(env, solid, "solid");
  if (!fraction.IsUndefined()) options.solidFraction = peclet::float64Vector(env, fraction, "solidFraction");
  Napi::Value sdf = o.Get("sdf");
  if (!sdf.IsUndefined()) options.sdf = peclet::float64Vector(env, sdf, "sdf");
  Napi::Value periodic = o.Get("periodic");
  if (periodic.IsArray()) {
    for (uint32_t a = 0; a < 3 && a < periodic.As<Napi::Array>().Length(); a++)
      options.periodic[a] = periodic.As<Napi::Array>().Get(a).ToBoolean().Value();
  }
  options.relaxation.model = text(o, "model") == "bgk" ? flow::CollisionModel::BGK : flow::CollisionModel::TRT;
  options.relaxation.tauPlus = number(o, "tau");
  options.relaxation.magic = number(o, "magic");
  Napi::Value force = o.Get("bodyForce");
  if (force.IsArray()) options.bodyForce = peclet::vector3(env, force, "bodyForce");
  options.inertia = o.Get("inertia").ToBoolean().Value();
  const double axis = number(o, "pressureAxis");
  if (std::isfinite(axis)) {
    options.pressure.axis = static_cast<int>(axis);
    options.pressure.inletDensity = number(o, "inletDensity");
    options.pressure.outletDensity = number(o, "outletDensity");
  }
  peclet::ensureAllocatable("shape", "a lattice of " + std::to_string(std::size_t(voxels)) + " voxels",
                            flow::plannedBytes(options));
  return options;
}

}  // namespace

void throwFlowError(Napi::Env env, const flow::FlowError& error) {
  peclet::throwArgumentError(env, error.kind() == flow::ErrorKind::Type, error.argument(), -1, error.detail());
}

Napi::Object stepResult(Napi::Env env, const StepOutcome& outcome) {
  Napi::Object o = Napi::Object::New(env);
  const bool diverged = outcome.diverged || !outcome.moments.finite;
  o.Set("status", diverged ? "diverged" : outcome.cancelled ? "cancelled" : "done");
  o.Set("steps", static_cast<double>(outcome.steps));
  if (outcome.divergedAt > 0) o.Set("divergedAt", static_cast<double>(outcome.divergedAt));
  Napi::Array momentum = Napi::Array::New(env, 3);
  for (uint32_t a = 0; a < 3; a++) momentum.Set(a, outcome.moments.momentum[a]);
  o.Set("momentum", momentum);
  o.Set("speed", outcome.moments.speed);
  o.Set("mass", outcome.moments.mass);
  return o;
}

StepOutcome LatticeState::advance(std::size_t steps, std::function<bool()> stop, bool atomic, bool measure) {
  cancel = false;
  shouldStop = [this, stop = std::move(stop)] { return dropped.load() || stop(); };
  struct Reset {
    std::function<bool()>& f;
    ~Reset() { f = nullptr; }
  } reset{shouldStop};
  StepOutcome outcome;
  outcome.steps = kernel->step(steps, &cancel, atomic, measure);
  outcome.diverged = kernel->diverged();
  outcome.divergedAt = kernel->divergedAt();
  outcome.cancelled = !outcome.diverged && outcome.steps < steps;
  if (measure) outcome.moments = kernel->moments();
  return outcome;
}

Napi::Function Lattice::Init(Napi::Env env) {
  auto members = LifecycleMembers();
  members.push_back(Method<&Lattice::Step>("step"));
  members.push_back(Method<&Lattice::StepAsync>("stepAsync"));
  members.push_back(Getter<&Lattice::Velocity>("velocity"));
  members.push_back(Getter<&Lattice::Density>("density"));
  members.push_back(Getter<&Lattice::Porosity>("porosity"));
  members.push_back(Getter<&Lattice::Force>("force"));
  members.push_back(Method<&Lattice::SetBodyForce>("setBodyForce"));
  members.push_back(Method<&Lattice::SetPressure>("setPressure"));
  members.push_back(Getter<&Lattice::Info>("info"));
  members.push_back(Getter<&Lattice::Busy>("busy"));
  members.push_back(Method<&Lattice::HaloSize>("haloSize"));
  members.push_back(Method<&Lattice::PackHalo>("packHalo"));
  members.push_back(Method<&Lattice::UnpackHalo>("unpackHalo"));
  members.push_back(Method<&Lattice::RefreshFields>("refreshFields"));
  members.push_back(Method<&Lattice::SaveState>("saveState"));
  members.push_back(Method<&Lattice::RestoreState>("restoreState"));
  members.push_back(Method<&Lattice::CheckStep>("checkStep"));
  return DefineClass(env, "Lattice", members);
}

// new Lattice(options): `options` as normalized by the TypeScript layer.
Lattice::Lattice(const Napi::CallbackInfo& info) : peclet::Object<Lattice>(info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsObject()) throw Napi::TypeError::New(env, "options must be an object");
  auto state = std::make_shared<LatticeState>(envId());
  try {
    flow::LatticeOptions options = readOptions(env, info[0].As<Napi::Object>());
    state->threads = static_cast<unsigned>(count(number(info[0].As<Napi::Object>(), "threads")));
    options.parallelFor = peclet::lendPool(&state->threads, &state->cancel, &state->shouldStop);
    const unsigned pool = peclet::runtime().pool().size();
    options.workers = state->threads == 0 ? pool : std::min(state->threads, pool);
    state->kernel = flow::makeLattice(std::move(options));
    state->account();
  } catch (const flow::FlowError& e) {
    throwFlowError(env, e);
  } catch (const Napi::Error&) {
    throw;
  } catch (...) {
    peclet::throwAsJs(env, "new Lattice");  // the constructor has no method wrapper
  }
  state_ = std::move(state);
}

void Lattice::dropNative() noexcept {
  if (!state_) return;
  state_->dropped = true;  // work in flight stops at its next step
  state_->cancel = true;
  state_.reset();
}

void Lattice::ensureIdle(Napi::Env env, const char* what) const {
  if (state_->busy) {
    throw Napi::TypeError::New(
        env, std::string(what) + ": Lattice#" + std::to_string(id()) + " is running (await run() or abort it first)");
  }
}

Napi::Value Lattice::Step(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ensureIdle(env, "step");
  auto& s = this->env();
  const std::size_t steps = count(info[0].ToNumber().DoubleValue());
  // step(n, false): one step of a distributed lattice, no moments and no
  // fields (its halo is exchanged after it, then it measures its own planes).
  if (info.Length() > 1 && info[1].IsBoolean() && !info[1].As<Napi::Boolean>().Value()) {
    StepOutcome outcome = state_->advance(
        steps, [&s] { return s.exiting(); }, false, false);
    return stepResult(env, outcome);
  }
  if (steps > 1) {
    peclet::ensureAllocatable("steps", "a copy of the lattice's state to restore if a step diverges",
                              state_->kernel->snapshotBytes());
  }
  StepOutcome outcome = state_->advance(
      steps, [&s] { return s.exiting(); }, true);
  state_->account();
  return stepResult(env, outcome);
}

Napi::Value Lattice::StepAsync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ensureIdle(env, "run");
  auto compute = [steps = count(info[0].ToNumber().DoubleValue())](LatticeState& state,
                                                                   const std::function<bool()>& cancelled) {
    return state.advance(steps, cancelled, false);
  };
  return (new peclet::StateWork<LatticeState, StepOutcome>(env, "run", state_, compute, stepResult))->Start();
}

Napi::Value Lattice::field(Napi::Env env, void* data, std::size_t length) {
  if (state_->kernel->precision() == flow::Precision::F32)
    return exportArray<float>(env, state_, static_cast<float*>(data), length);
  return exportArray<double>(env, state_, static_cast<double*>(data), length);
}

Napi::Value Lattice::Velocity(const Napi::CallbackInfo& info) {
  ensureIdle(info.Env(), "velocity");
  state_->kernel->allocateFields();
  state_->account();
  return field(info.Env(), state_->kernel->velocityData(), 3 * state_->kernel->voxels());
}

Napi::Value Lattice::Density(const Napi::CallbackInfo& info) {
  ensureIdle(info.Env(), "density");
  state_->kernel->allocateFields();
  state_->account();
  return field(info.Env(), state_->kernel->densityData(), state_->kernel->voxels());
}

Napi::Value Lattice::Porosity(const Napi::CallbackInfo& info) {
  ensureIdle(info.Env(), "porosity");
  double* data = state_->kernel->porosity();
  state_->account();
  return exportArray<double>(info.Env(), state_, data, state_->kernel->voxels());
}

Napi::Value Lattice::Force(const Napi::CallbackInfo& info) {
  ensureIdle(info.Env(), "force");
  double* data = state_->kernel->force();
  state_->account();
  return exportArray<double>(info.Env(), state_, data, 3 * state_->kernel->voxels());
}

Napi::Value Lattice::SetBodyForce(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ensureIdle(env, "bodyForce");
  const std::array<double, 3> force = peclet::vector3(env, info[0], "bodyForce");
  try {
    state_->kernel->setBodyForce(force);
  } catch (const flow::FlowError& e) {
    throwFlowError(env, e);
  }
  return env.Undefined();
}

Napi::Value Lattice::SetPressure(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ensureIdle(env, "pressure");
  const double inlet = peclet::finiteNumber(env, info[0], "inletDensity");
  const double outlet = peclet::finiteNumber(env, info[1], "outletDensity");
  try {
    state_->kernel->setPressure(inlet, outlet);
  } catch (const flow::FlowError& e) {
    throwFlowError(env, e);
  }
  return env.Undefined();
}

Napi::Value Lattice::Info(const Napi::CallbackInfo& info) {
  const flow::Lattice& k = *state_->kernel;
  Napi::Object o = Napi::Object::New(info.Env());
  o.Set("layout", k.layout() == flow::Layout::Sparse ? "sparse" : "dense");
  o.Set("streaming", k.streaming() == flow::Streaming::InPlace ? "in-place" : "two-lattice");
  o.Set("precision", k.precision() == flow::Precision::F32 ? "f32" : "f64");
  o.Set("fluidNodes", static_cast<double>(k.fluidNodes()));
  o.Set("voxels", static_cast<double>(k.voxels()));
  o.Set("tauPlus", k.tauPlus());
  o.Set("tauMinus", k.tauMinus());
  o.Set("stepCount", static_cast<double>(k.stepCount()));
  o.Set("bytes", static_cast<double>(k.bytes()));
  o.Set("bytesPerUpdate", k.bytesPerUpdate());
  Napi::Array force = Napi::Array::New(info.Env(), 3);
  for (uint32_t a = 0; a < 3; a++) force.Set(a, k.bodyForce()[a]);
  o.Set("bodyForce", force);
  return o;
}

Napi::Value Lattice::Busy(const Napi::CallbackInfo& info) { return Napi::Boolean::New(info.Env(), state_->busy); }

namespace {
std::size_t planeArgument(Napi::Env env, const Napi::Value& value, const flow::Lattice& kernel) {
  const double plane = value.IsNumber() ? value.As<Napi::Number>().DoubleValue() : -1.0;
  if (!(plane >= 0 && std::floor(plane) == plane && plane < double(kernel.shape()[0])))
    peclet::throwArgumentError(env, false, "plane", -1,
                               "must be an integer in [0, " + std::to_string(kernel.shape()[0]) + ")");
  return static_cast<std::size_t>(plane);
}
}  // namespace

Napi::Value Lattice::HaloSize(const Napi::CallbackInfo& info) {
  const std::size_t plane = planeArgument(info.Env(), info[0], *state_->kernel);
  return Napi::Number::New(info.Env(), double(state_->kernel->haloSize(plane)) * 5.0);
}

void Lattice::halo(const Napi::CallbackInfo& info, bool pack) {
  Napi::Env env = info.Env();
  ensureIdle(env, pack ? "packHalo" : "unpackHalo");
  flow::Lattice& k = *state_->kernel;
  const std::size_t plane = planeArgument(env, info[0], k);
  const double direction = info[1].IsNumber() ? info[1].As<Napi::Number>().DoubleValue() : 0.0;
  if (direction != 1 && direction != -1) peclet::throwArgumentError(env, false, "direction", -1, "must be 1 or -1");
  const bool f32 = k.precision() == flow::Precision::F32;
  const napi_typedarray_type type = f32 ? napi_float32_array : napi_float64_array;
  if (!info[2].IsTypedArray() || info[2].As<Napi::TypedArray>().TypedArrayType() != type)
    peclet::throwArgumentError(
        env, true, "halo", -1,
        std::string("must be a ") + (f32 ? "Float32Array" : "Float64Array") + " (the lattice's precision)");
  Napi::TypedArray array = info[2].As<Napi::TypedArray>();
  const std::size_t needed = k.haloSize(plane) * 5;
  if (array.ElementLength() != needed)
    peclet::throwArgumentError(env, false, "halo", -1,
                               "has " + std::to_string(array.ElementLength()) + " values, plane " +
                                   std::to_string(plane) + " needs " + std::to_string(needed));
  void* data = static_cast<std::uint8_t*>(array.ArrayBuffer().Data()) + array.ByteOffset();
  k.copyHalo(plane, static_cast<int>(direction), data, pack);
}

Napi::Value Lattice::PackHalo(const Napi::CallbackInfo& info) {
  halo(info, true);
  return info.Env().Undefined();
}

Napi::Value Lattice::UnpackHalo(const Napi::CallbackInfo& info) {
  halo(info, false);
  return info.Env().Undefined();
}

Napi::Value Lattice::RefreshFields(const Napi::CallbackInfo& info) {
  ensureIdle(info.Env(), "fields");
  state_->kernel->allocateFields();
  state_->kernel->updateFields();
  state_->account();
  return info.Env().Undefined();
}

Napi::Value Lattice::SaveState(const Napi::CallbackInfo& info) {
  ensureIdle(info.Env(), "step");
  peclet::ensureAllocatable("steps", "a copy of the lattice's state to restore if a step diverges",
                            state_->kernel->snapshotBytes());
  state_->kernel->saveState();
  state_->account();
  return info.Env().Undefined();
}

Napi::Value Lattice::CheckStep(const Napi::CallbackInfo& info) {
  ensureIdle(info.Env(), "step");
  return Napi::Boolean::New(info.Env(), state_->kernel->checkStep(info[0].ToBoolean().Value()));
}

Napi::Value Lattice::RestoreState(const Napi::CallbackInfo& info) {
  ensureIdle(info.Env(), "step");
  try {
    state_->kernel->restoreState();
  } catch (const flow::FlowError& e) {
    throwFlowError(info.Env(), e);
  }
  return info.Env().Undefined();
}

namespace {
// The (solid, shape) arguments of percolates() and labelPores(): the solid copied, the shape checked against it.
std::array<std::size_t, 3> imageShape(Napi::Env env, const std::vector<std::uint8_t>& solid, const Napi::Value& shape) {
  if (!shape.IsArray() || shape.As<Napi::Array>().Length() != 3)
    peclet::throwArgumentError(env, true, "shape", -1, "must be [n0, n1, n2]");
  std::array<std::size_t, 3> n{};
  double voxels = 1;
  for (uint32_t a = 0; a < 3; a++) {
    const double v = shape.As<Napi::Array>().Get(a).ToNumber().DoubleValue();
    if (!(v >= 1 && std::floor(v) == v && v <= 4294967295.0))
      peclet::throwArgumentError(env, false, "shape", a, "must be a positive integer");
    n[a] = static_cast<std::size_t>(v);
    voxels *= v;
  }
  if (voxels != double(solid.size()))
    peclet::throwArgumentError(env, false, "solid", -1,
                               "has " + std::to_string(solid.size()) + " voxels, the shape needs " +
                                   std::to_string(static_cast<double>(voxels)));
  return n;
}
}  // namespace

Napi::Value Percolates(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const std::vector<std::uint8_t> solid = bytesCopy(env, info[0], "solid");
  const std::array<std::size_t, 3> n = imageShape(env, solid, info[1]);
  const double axis = info[2].ToNumber().DoubleValue();
  if (!(axis == 0 || axis == 1 || axis == 2)) peclet::throwArgumentError(env, false, "axis", -1, "must be 0, 1 or 2");
  peclet::ensureAllocatable("shape", "a search over " + std::to_string(solid.size()) + " voxels",
                            double(solid.size()) * 9.0);
  std::array<bool, 3> periodic{false, false, false};
  if (info.Length() > 3 && info[3].IsArray()) {
    const Napi::Array flags = info[3].As<Napi::Array>();
    for (std::uint32_t d = 0; d < 3 && d < flags.Length(); d++) periodic[d] = flags.Get(d).ToBoolean().Value();
  }
  return Napi::Boolean::New(env, flow::percolates(solid.data(), n, static_cast<int>(axis), periodic));
}

}  // namespace peclet_flow

namespace peclet_flow {

Napi::Value LabelPores(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const std::vector<std::uint8_t> solid = bytesCopy(env, info[0], "solid");
  const std::array<std::size_t, 3> n = imageShape(env, solid, info[1]);
  peclet::ensureAllocatable("shape", "the labels of " + std::to_string(solid.size()) + " voxels",
                            double(solid.size()) * 12.0);
  Napi::Int32Array labels = Napi::Int32Array::New(env, solid.size());
  try {
    flow::labelPores(solid.data(), n, labels.Data());
  } catch (const flow::FlowError& e) {
    throwFlowError(env, e);
  }
  return labels;
}

}  // namespace peclet_flow
