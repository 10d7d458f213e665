#include "simulation_object.hpp"

#include <cmath>
#include <peclet/kernel_error.hpp>
#include <peclet/memory.hpp>
#include <peclet/runtime.hpp>
#include <string>
#include <vector>

namespace peclet_dem {

namespace dem = peclet::dem;

namespace {

// The TypeScript layer checks shapes and types and fills defaults; here a
// missing or non-number field reads as NaN and the kernel's validation
// reports it by name.
double number(const Napi::Object& o, const char* key) {
  Napi::Value v = o.Get(key);
  return v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : dem::kUnset;
}

template <std::size_t N>
void numbers(const Napi::Object& o, const char* key, double* out) {
  Napi::Value v = o.Get(key);
  for (std::size_t i = 0; i < N; i++) out[i] = dem::kUnset;
  if (!v.IsArray()) return;
  Napi::Array a = v.As<Napi::Array>();
  for (uint32_t i = 0; i < N && i < a.Length(); i++) {
    Napi::Value x = a.Get(i);
    if (x.IsNumber()) out[i] = x.As<Napi::Number>().DoubleValue();
  }
}

template <std::size_t N>
void flags(const Napi::Object& o, const char* key, std::array<bool, N>& out) {
  Napi::Value v = o.Get(key);
  if (!v.IsArray()) return;
  Napi::Array a = v.As<Napi::Array>();
  for (uint32_t i = 0; i < N && i < a.Length(); i++) out[i] = a.Get(i).ToBoolean().Value();
}

std::size_t count(double value) { return value >= 0 && std::isfinite(value) ? static_cast<std::size_t>(value) : 0; }

const dem::Vec3& vec(const double* p, dem::Vec3& out) {
  out = {p[0], p[1], p[2]};
  return out;
}

// A Float64Array argument (or absent), copied into memory of our own before
// anything looks at it: the array may be a view of this simulation's own
// arrays (which move when they grow) or of a SharedArrayBuffer that another
// thread writes, so it is validated and used only as this copy.
struct Float64Copy {
  std::vector<double> values;
  bool present = false;
  const double* data() const { return present ? values.data() : nullptr; }
  std::size_t length() const { return values.size(); }
};
Float64Copy float64(Napi::Env env, const Napi::Value& value, const char* name, bool optional) {
  Float64Copy copy;
  if (optional && (value.IsUndefined() || value.IsNull())) return copy;
  Napi::Float64Array a = peclet::float64Array(env, value, name);
  const std::size_t length = a.ElementLength();
  peclet::ensureAllocatable(name, "a copy of " + std::to_string(length) + " numbers", 8.0 * double(length));
  copy.values.resize(length);
  // Element by element through a volatile read: a racing writer can change
  // what we copy, never what we validate afterwards.
  const volatile double* source = a.Data();
  for (std::size_t i = 0; i < length; i++) copy.values[i] = source[i];
  copy.present = true;
  return copy;
}

const char* statusName(dem::StepStatus status) {
  switch (status) {
    case dem::StepStatus::Cancelled:
      return "cancelled";
    case dem::StepStatus::Diverged:
      return "diverged";
    default:
      return "done";
  }
}

}  // namespace

void throwInvalid(Napi::Env env, const dem::ValidationError& error) {
  peclet::throwArgumentError(env, error.kind == dem::ErrorKind::Type, error.argument,
                             static_cast<std::int64_t>(error.index), error.message);
}

Napi::Object advanceResult(Napi::Env env, const AdvanceOutcome& outcome) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("status", statusName(outcome.report.status));
  o.Set("steps", static_cast<double>(outcome.report.steps));
  o.Set("clampedSpheres", static_cast<double>(outcome.report.clampedSpheres));
  o.Set("firstClampedSphere", static_cast<double>(outcome.report.firstClampedSphere));
  if (outcome.invalid) {
    // Refused before anything changed; the TypeScript layer throws it.
    o.Set("status", "invalid");
    o.Set("argument", outcome.invalid->argument);
    o.Set("index", static_cast<double>(outcome.invalid->index));
    o.Set("message", outcome.invalid->message);
    return o;
  }
  o.Set("settled", outcome.settled);
  o.Set("kineticEnergyPerSphere", outcome.kineticEnergyPerSphere);
  o.Set("meanOverlap", outcome.overlap.mean);
  o.Set("maxOverlap", outcome.overlap.max);
  if (outcome.report.status == dem::StepStatus::Diverged) {
    o.Set("diagnosis", outcome.report.diagnosis);
    o.Set("divergedSphere", static_cast<double>(outcome.report.divergedSphere));
  }
  return o;
}

void SimulationState::create(dem::SimulationOptions options) {
  options.parallelFor = peclet::lendPool(&threads, &cancel, &shouldStop);
  const unsigned pool = peclet::runtime().pool().size();
  options.workers = threads == 0 ? pool : std::min(threads, pool);
  kernel = std::make_unique<dem::Simulation>(std::move(options));
  account();
}

void SimulationState::account() {
  // Approximate: the kernel's per-sphere arrays (15 × 3N and 6 × N doubles,
  // N flags) plus about 8 neighbour pairs of 16 bytes per sphere.
  const std::size_t n = kernel ? kernel->sphereCount() : 0;
  ledger.resize(n * (15 * 3 * sizeof(double) + 6 * sizeof(double) + 1 + 8 * 16));
}

AdvanceOutcome SimulationState::advance(const AdvanceRequest& request, std::function<bool()> stop) {
  cancel = false;
  shouldStop = [this, stop = std::move(stop)] { return dropped.load() || stop(); };
  struct Reset {
    std::function<bool()>& f;
    ~Reset() { f = nullptr; }
  } reset{shouldStop};
  AdvanceOutcome outcome;
  const std::size_t n = kernel->sphereCount();
  const bool check = request.threshold >= 0.0 && request.checkInterval > 0 && n > 0;
  // One kernel call, so that a divergence anywhere in it restores the state
  // at the start of this call (the kernel checks the threshold in between).
  const dem::SettleCheck settle{request.threshold, request.checkInterval};
  try {
    outcome.report = kernel->step(request.steps, &cancel, check ? &settle : nullptr);
  } catch (const dem::DemError& e) {
    outcome.invalid = e.error();
    return outcome;
  }
  outcome.settled = outcome.report.settled;
  outcome.kineticEnergyPerSphere = kernel->meanTranslationalKineticEnergy();
  outcome.overlap = kernel->overlapStatistics();
  return outcome;
}

Napi::Function Simulation::Init(Napi::Env env) {
  auto members = LifecycleMembers();
  members.push_back(Method<&Simulation::AddSpheres>("addSpheres"));
  members.push_back(Method<&Simulation::Advance>("advance"));
  members.push_back(Method<&Simulation::AdvanceAsync>("advanceAsync"));
  members.push_back(Method<&Simulation::Deposit>("deposit"));
  members.push_back(Getter<&Simulation::SphereArray<&dem::Simulation::positions, 3>>("positions"));
  members.push_back(Getter<&Simulation::SphereArray<&dem::Simulation::velocities, 3>>("velocities"));
  members.push_back(Getter<&Simulation::SphereArray<&dem::Simulation::angularVelocities, 3>>("angularVelocities"));
  members.push_back(Getter<&Simulation::SphereArray<&dem::Simulation::forces, 3>>("forces"));
  members.push_back(Getter<&Simulation::SphereArray<&dem::Simulation::radii, 1>>("radii"));
  members.push_back(Getter<&Simulation::SphereCount>("sphereCount"));
  members.push_back(Method<&Simulation::Masses>("masses"));
  members.push_back(Method<&Simulation::KineticEnergy>("kineticEnergy"));
  members.push_back(Method<&Simulation::TranslationalKineticEnergy>("translationalKineticEnergy"));
  members.push_back(Method<&Simulation::ElasticEnergy>("elasticEnergy"));
  members.push_back(Method<&Simulation::Momentum>("momentum"));
  members.push_back(Method<&Simulation::Contacts>("contacts"));
  members.push_back(Method<&Simulation::CoordinationNumber>("coordinationNumber"));
  members.push_back(Method<&Simulation::PackingFraction>("packingFraction"));
  members.push_back(Method<&Simulation::Voxelize>("voxelize"));
  members.push_back(Getter<&Simulation::Timestep>("timestepReport"));
  members.push_back(Getter<&Simulation::Time>("time"));
  members.push_back(Getter<&Simulation::StepCount>("stepCount"));
  members.push_back(Getter<&Simulation::Busy>("busy"));
  members.push_back(Getter<&Simulation::ExternalForces>("externalForces"));
  members.push_back(Getter<&Simulation::Fixed>("fixed"));
  members.push_back(Method<&Simulation::OverlapStatistics>("overlapStatistics"));
  return DefineClass(env, "Simulation", members);
}

// new Simulation(options): `options` as normalized by the TypeScript layer.
Simulation::Simulation(const Napi::CallbackInfo& info) : peclet::Object<Simulation>(info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsObject()) throw Napi::TypeError::New(env, "options must be an object");
  Napi::Object o = info[0].As<Napi::Object>();
  dem::SimulationOptions options;
  numbers<3>(o, "boxMin", options.box.min.data());
  numbers<3>(o, "boxMax", options.box.max.data());
  flags<3>(o, "periodic", options.periodic);
  flags<6>(o, "walls", options.walls);
  numbers<3>(o, "gravity", options.gravity.data());
  options.timestep = number(o, "timestep");
  options.contact.model = number(o, "model") == 1 ? dem::ContactModelKind::Linear : dem::ContactModelKind::HertzMindlin;
  options.contact.youngsModulus = number(o, "youngsModulus");
  options.contact.poissonRatio = number(o, "poissonRatio");
  options.contact.stiffness = number(o, "stiffness");
  options.contact.tangentialStiffnessRatio = number(o, "tangentialStiffnessRatio");
  options.contact.restitution = number(o, "restitution");
  options.contact.friction = number(o, "friction");
  options.skin = number(o, "skin");
  options.rotation = o.Get("rotation").ToBoolean().Value();
  options.impactVelocity = number(o, "impactVelocity");
  auto state = std::make_shared<SimulationState>(envId());
  state->threads = count(number(o, "threads"));
  try {
    state->create(std::move(options));
  } catch (const dem::DemError& e) {
    throwInvalid(env, e.error());
  } catch (...) {
    peclet::throwAsJs(env, "new Simulation");  // the constructor has no method wrapper
  }
  state_ = std::move(state);
}

void Simulation::dropNative() noexcept {
  if (!state_) return;
  state_->dropped = true;  // work in flight stops at its next step
  state_->cancel = true;
  state_.reset();
}

void Simulation::ensureIdle(Napi::Env env, const char* what) const {
  if (state_->busy) {
    throw Napi::TypeError::New(env, std::string(what) + ": Simulation#" + std::to_string(id()) +
                                        " is running (await run() or abort it first)");
  }
}

Napi::Value Simulation::AddSpheres(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ensureIdle(env, "addSpheres");
  const Float64Copy positions = float64(env, info[0], "positions", false);
  const Float64Copy radii = float64(env, info[1], "radii", false);
  const Float64Copy velocities = float64(env, info[3], "velocities", true);
  // Fixed flags: a Uint8Array (or absent), copied like the other arrays.
  std::vector<std::uint8_t> fixed;
  const bool hasFixed = !info[4].IsUndefined() && !info[4].IsNull();
  if (hasFixed) {
    if (!info[4].IsTypedArray() || info[4].As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array)
      throw Napi::TypeError::New(env, "fixed must be a Uint8Array");
    Napi::Uint8Array a = info[4].As<Napi::Uint8Array>();
    const volatile std::uint8_t* source = a.Data();
    fixed.resize(a.ElementLength());
    for (std::size_t i = 0; i < fixed.size(); i++) fixed[i] = source[i];
  }
  peclet::ensureAllocatable("radii", std::to_string(radii.length()) + " spheres",
                            double(radii.length()) * dem::Simulation::kBytesPerSphere);
  dem::SphereBatch batch;
  batch.positions = positions.data();
  batch.positionsLength = positions.length();
  batch.radii = radii.data();
  batch.radiiLength = radii.length();
  batch.density = info[2].IsNumber() ? info[2].As<Napi::Number>().DoubleValue() : dem::kUnset;
  batch.velocities = velocities.data();
  batch.velocitiesLength = velocities.length();
  batch.fixed = hasFixed ? fixed.data() : nullptr;
  batch.fixedLength = fixed.size();
  // The kernel's arrays may move: arrays handed out before are detached.
  detachExports(env);
  // All or nothing: on any exception (allocation included, turned into a
  // RangeError by the method wrapper) the kernel is as it was.
  try {
    state_->kernel->addSpheres(batch);
  } catch (const dem::DemError& e) {
    throwInvalid(env, e.error());
  }
  state_->account();
  return env.Undefined();
}

// advance(steps, threshold, checkInterval) → report
Napi::Value Simulation::Advance(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ensureIdle(env, "step");
  AdvanceRequest request{count(info[0].ToNumber().DoubleValue()), info[1].ToNumber().DoubleValue(),
                         count(info[2].ToNumber().DoubleValue())};
  auto& s = this->env();
  AdvanceOutcome outcome = state_->advance(request, [&s] { return s.exiting(); });
  return advanceResult(env, outcome);
}

Napi::Value Simulation::AdvanceAsync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ensureIdle(env, "run");
  AdvanceRequest request{count(info[0].ToNumber().DoubleValue()), info[1].ToNumber().DoubleValue(),
                         count(info[2].ToNumber().DoubleValue())};
  auto compute = [request](SimulationState& state, const std::function<bool()>& cancelled) {
    return state.advance(request, cancelled);
  };
  return (new peclet::StateWork<SimulationState, AdvanceOutcome>(env, "run", state_, compute, advanceResult))->Start();
}

// deposit(options) → report; options as normalized by the TypeScript layer.
Napi::Value Simulation::Deposit(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ensureIdle(env, "deposit");
  if (!info[0].IsObject()) throw Napi::TypeError::New(env, "deposit(options): options must be an object");
  Napi::Object o = info[0].As<Napi::Object>();
  dem::DepositOptions d;
  d.count = count(number(o, "count"));
  const std::string kind = o.Get("kind").ToString().Utf8Value();
  d.radius.kind = kind == "uniform"     ? dem::RadiusDistributionKind::Uniform
                  : kind == "lognormal" ? dem::RadiusDistributionKind::LogNormal
                                        : dem::RadiusDistributionKind::Fixed;
  d.radius.radius = number(o, "radius");
  d.radius.minRadius = number(o, "minRadius");
  d.radius.maxRadius = number(o, "maxRadius");
  d.radius.medianRadius = number(o, "medianRadius");
  d.radius.logStandardDeviation = number(o, "logStandardDeviation");
  d.density = number(o, "density");
  d.seed = static_cast<std::uint64_t>(count(number(o, "seed")));
  d.regionBottom = number(o, "regionBottom");
  d.regionTop = number(o, "regionTop");
  d.maxAttemptsPerSphere = count(number(o, "maxAttemptsPerSphere"));
  d.kineticEnergyThreshold = number(o, "kineticEnergyThreshold");
  d.checkInterval = count(number(o, "checkInterval"));
  d.maxSteps = count(number(o, "maxSteps"));
  // Refused up front when the spheres (and the copy that makes the call
  // all-or-nothing) cannot fit.
  if (d.count >= 1 && d.count <= (std::size_t(1) << 30))
    peclet::ensureAllocatable(
        "count", std::to_string(d.count) + " spheres",
        (double(d.count) + double(state_->kernel->sphereCount())) * dem::Simulation::kBytesPerSphere);
  auto& s = this->env();
  SimulationState& state = *state_;
  state.cancel = false;
  state.shouldStop = [&s, &state] { return state.dropped.load() || s.exiting(); };
  struct Reset {
    SimulationState& state;
    ~Reset() {
      state.shouldStop = nullptr;
      state.account();
    }
  } reset{state};
  detachExports(env);
  dem::DepositReport report;
  try {
    report = state.kernel->deposit(d, &state.cancel);
  } catch (const dem::DemError& e) {
    throwInvalid(env, e.error());
  }
  // The settling threshold that was used (the kernel's default when unset):
  // 1e-5 × mean mass × |g| × mean diameter of the inserted spheres.
  double threshold = d.kineticEnergyThreshold;
  if (std::isnan(threshold)) {
    const std::size_t n = state.kernel->sphereCount();
    const double* r = state.kernel->radii();
    double mass = 0.0, diameter = 0.0;
    for (std::size_t i = n - report.inserted; i < n; i++) {
      mass += d.density * 4.0 / 3.0 * 3.14159265358979323846 * r[i] * r[i] * r[i];
      diameter += 2.0 * r[i];
    }
    const double inserted = double(report.inserted);
    threshold = 1e-5 * (mass / inserted) * std::fabs(state.kernel->options().gravity[2]) * (diameter / inserted);
  }
  if (report.inserted == 0) threshold = 0.0;  // cancelled before insertion
  AdvanceOutcome outcome{report.stepping, report.settled, report.kineticEnergyPerSphere,
                         state.kernel->overlapStatistics(), std::nullopt};
  Napi::Object result = advanceResult(env, outcome);
  result.Set("inserted", static_cast<double>(report.inserted));
  result.Set("kineticEnergyThreshold", threshold);
  return result;
}

template <Simulation::ArrayAccessor Accessor, std::size_t PerSphere>
Napi::Value Simulation::SphereArray(const Napi::CallbackInfo& info) {
  ensureIdle(info.Env(), "arrays");
  const dem::Simulation& kernel = *state_->kernel;
  return exportArray<double>(info.Env(), state_, const_cast<double*>((kernel.*Accessor)()),
                             kernel.sphereCount() * PerSphere);
}

Napi::Value Simulation::SphereCount(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), static_cast<double>(state_->kernel->sphereCount()));
}
Napi::Value Simulation::KineticEnergy(const Napi::CallbackInfo& info) {
  ensureIdle(info.Env(), "kineticEnergy");
  return Napi::Number::New(info.Env(), state_->kernel->kineticEnergy());
}
Napi::Value Simulation::TranslationalKineticEnergy(const Napi::CallbackInfo& info) {
  ensureIdle(info.Env(), "translationalKineticEnergy");
  return Napi::Number::New(info.Env(), state_->kernel->translationalKineticEnergy());
}
Napi::Value Simulation::ElasticEnergy(const Napi::CallbackInfo& info) {
  ensureIdle(info.Env(), "elasticEnergy");
  return Napi::Number::New(info.Env(), state_->kernel->elasticEnergy());
}
Napi::Value Simulation::Momentum(const Napi::CallbackInfo& info) {
  ensureIdle(info.Env(), "momentum");
  const dem::Vec3 p = state_->kernel->momentum();
  Napi::Array a = Napi::Array::New(info.Env(), 3);
  for (uint32_t i = 0; i < 3; i++) a.Set(i, p[i]);
  return a;
}

Napi::Value Simulation::Contacts(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ensureIdle(env, "contacts");
  const std::vector<dem::Contact> contacts = state_->kernel->contacts();
  Napi::Uint32Array pairs = Napi::Uint32Array::New(env, 2 * contacts.size());
  Napi::Float64Array overlaps = Napi::Float64Array::New(env, contacts.size());
  for (std::size_t c = 0; c < contacts.size(); c++) {
    pairs[2 * c] = static_cast<uint32_t>(contacts[c].first);
    pairs[2 * c + 1] = static_cast<uint32_t>(contacts[c].second);
    overlaps[c] = contacts[c].overlap;
  }
  Napi::Object o = Napi::Object::New(env);
  o.Set("pairs", pairs);
  o.Set("overlaps", overlaps);
  return o;
}

Napi::Value Simulation::CoordinationNumber(const Napi::CallbackInfo& info) {
  ensureIdle(info.Env(), "coordinationNumber");
  return Napi::Number::New(info.Env(), state_->kernel->coordinationNumber());
}

// packingFraction(min, max), both [x, y, z] checked by the TypeScript layer.
Napi::Value Simulation::PackingFraction(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ensureIdle(env, "packingFraction");
  const Float64Copy min = float64(env, info[0], "min", false), max = float64(env, info[1], "max", false);
  if (min.length() != 3 || max.length() != 3)
    throw Napi::TypeError::New(env, "packingFraction: min and max must be [x, y, z]");
  dem::Vec3 a, b;
  return Napi::Number::New(env, state_->kernel->packingFraction(vec(min.data(), a), vec(max.data(), b)));
}

// voxelize(min, shape, voxelSize) → Uint8Array of shape[0]·shape[1]·shape[2]
// bytes (1 solid, 0 pore), as checked by the TypeScript layer.
Napi::Value Simulation::Voxelize(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ensureIdle(env, "voxelize");
  const Float64Copy min = float64(env, info[0], "region", false), shape = float64(env, info[1], "shape", false);
  if (min.length() != 3 || shape.length() != 3)
    throw Napi::TypeError::New(env, "voxelize: region.min and shape must be [x, y, z]");
  std::size_t n[3];
  double voxels = 1;
  for (int a = 0; a < 3; a++) {
    const double x = shape.data()[a];
    if (!(x >= 1 && x <= 1e9 && x == std::floor(x))) peclet::kernelRangeError("shape", "must be whole numbers >= 1", a);
    n[a] = std::size_t(x);
    voxels *= x;
  }
  const double voxel = info[2].IsNumber() ? info[2].As<Napi::Number>().DoubleValue() : std::nan("");
  if (!(voxel > 0 && std::isfinite(voxel))) peclet::kernelRangeError("voxelSize", "must be a positive number");
  if (voxels > 4e9) peclet::kernelRangeError("voxelSize", "makes more than 4e9 voxels");
  peclet::ensureAllocatable("voxelSize", "an image of " + std::to_string(std::uint64_t(voxels)) + " voxels", voxels);
  Napi::Uint8Array solid = Napi::Uint8Array::New(env, std::size_t(voxels));
  dem::Vec3 origin;
  state_->kernel->voxelize(vec(min.data(), origin), n, voxel, solid.Data());
  return solid;
}

Napi::Value Simulation::Timestep(const Napi::CallbackInfo& info) {
  const dem::TimestepReport& t = state_->kernel->timestep();
  Napi::Object o = Napi::Object::New(info.Env());
  o.Set("timestep", t.timestep);
  o.Set("contactTime", t.contactTime);
  o.Set("stabilityLimit", t.stabilityLimit);
  o.Set("automatic", t.automatic);
  return o;
}
Napi::Value Simulation::Time(const Napi::CallbackInfo& info) {
  ensureIdle(info.Env(), "time");
  return Napi::Number::New(info.Env(), state_->kernel->time());
}
Napi::Value Simulation::StepCount(const Napi::CallbackInfo& info) {
  ensureIdle(info.Env(), "stepCount");
  return Napi::Number::New(info.Env(), static_cast<double>(state_->kernel->stepCount()));
}
Napi::Value Simulation::Busy(const Napi::CallbackInfo& info) { return Napi::Boolean::New(info.Env(), state_->busy); }

// Writable: the kernel reads it at the start of every call.
Napi::Value Simulation::ExternalForces(const Napi::CallbackInfo& info) {
  ensureIdle(info.Env(), "externalForces");
  dem::Simulation& kernel = *state_->kernel;
  return exportArray<double>(info.Env(), state_, kernel.externalForces(), 3 * kernel.sphereCount());
}

// A copy: the flags never change once spheres are added.
Napi::Value Simulation::Fixed(const Napi::CallbackInfo& info) {
  ensureIdle(info.Env(), "fixed");
  const dem::Simulation& kernel = *state_->kernel;
  const std::size_t n = kernel.sphereCount();
  Napi::Uint8Array flags = Napi::Uint8Array::New(info.Env(), n);
  for (std::size_t i = 0; i < n; i++) flags[i] = kernel.fixed()[i];
  return flags;
}

Napi::Value Simulation::OverlapStatistics(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ensureIdle(env, "overlapStatistics");
  const dem::OverlapStatistics stats = state_->kernel->overlapStatistics();
  Napi::Object o = Napi::Object::New(env);
  o.Set("meanOverlap", stats.mean);
  o.Set("maxOverlap", stats.max);
  return o;
}

// masses() → Float64Array(N), a copy in the order spheres were added.
Napi::Value Simulation::Masses(const Napi::CallbackInfo& info) {
  ensureIdle(info.Env(), "masses");
  const std::size_t n = state_->kernel->sphereCount();
  Napi::Float64Array out = Napi::Float64Array::New(info.Env(), n);
  if (n > 0) state_->kernel->copyMasses(out.Data());
  return out;
}

}  // namespace peclet_dem
