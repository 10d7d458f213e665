#include "field.hpp"

#include <cmath>
#include <numeric>

#include "field_kernel.hpp"

namespace peclet_test {

namespace {

double requireNumber(const Napi::CallbackInfo& info, std::size_t i, const char* name) {
  if (info.Length() <= i || !info[i].IsNumber()) {
    throw Napi::TypeError::New(info.Env(), std::string(name) + " must be a number");
  }
  double v = info[i].As<Napi::Number>().DoubleValue();
  if (!std::isfinite(v)) throw Napi::RangeError::New(info.Env(), std::string(name) + " must be finite");
  return v;
}

// Sums in fixed chunks so the result does not depend on the thread count.
double chunkedSum(peclet::ThreadPool& pool, const double* values, std::size_t n, const std::function<bool()>& cancel,
                  bool* completed) {
  const std::size_t grain = 4096;
  std::vector<double> partial((n + grain - 1) / grain, 0.0);
  *completed = pool.parallelFor(
      n, grain,
      [&](std::size_t begin, std::size_t end, unsigned) {
        double s = 0;
        for (std::size_t i = begin; i < end; i++) s += values[i];
        partial[begin / grain] = s;
      },
      0, cancel);
  return std::accumulate(partial.begin(), partial.end(), 0.0);
}

class RelaxWork : public peclet::TrackedWork {
 public:
  RelaxWork(Napi::Env env, std::shared_ptr<FieldState> state, unsigned rounds)
      : TrackedWork(env, "Field.relaxAsync"), state_(std::move(state)), rounds_(rounds) {}

 protected:
  void Run() override {
    double* v = state_->values.data();
    const std::size_t n = state_->values.size();
    // Chunks of about 1e6 square roots: cancellation is noticed within milliseconds.
    const std::size_t grain = std::max<std::size_t>(1, 1000000 / std::max(1u, rounds_));
    if (!parallelFor(n, grain, [&](std::size_t b, std::size_t e, unsigned) {
          for (std::size_t i = b; i < e; i++) v[i] = relax(v[i], rounds_);
        })) {
      return;  // cancelled: the promise rejects
    }
    bool done = false;
    sum_ = chunkedSum(
        peclet::runtime().pool(), v, n, [this] { return cancelled(); }, &done);
  }
  Napi::Value Result(Napi::Env env) override { return Napi::Number::New(env, sum_); }
  void releaseState() noexcept override { state_.reset(); }

 private:
  std::shared_ptr<FieldState> state_;
  unsigned rounds_;
  double sum_ = 0;
};

}  // namespace

Napi::Function Field::Init(Napi::Env env) {
  std::vector<Napi::ClassPropertyDescriptor<Field>> members = LifecycleMembers();
  members.push_back(Getter<&Field::Size>("size"));
  members.push_back(Getter<&Field::Values>("values"));
  members.push_back(Method<&Field::Sum>("sum"));
  members.push_back(Method<&Field::Fill>("fill"));
  members.push_back(Method<&Field::RelaxAsync>("relaxAsync"));
  members.push_back(Method<&Field::Scratch>("scratch"));
  members.push_back(Method<&Field::Planned>("planned"));
  return DefineClass(env, "Field", members);
}

Field::Field(const Napi::CallbackInfo& info) : peclet::Object<Field>(info) {
  double n = requireNumber(info, 0, "length");
  if (n < 0 || n != std::floor(n) || n > 1e10) {
    throw Napi::RangeError::New(info.Env(), "length must be a non-negative integer");
  }
  try {
    state_ = std::make_shared<FieldState>(envId(), static_cast<std::size_t>(n));
  } catch (const std::bad_alloc&) {
    throw Napi::RangeError::New(info.Env(), "Field: cannot allocate " + std::to_string(n) + " doubles");
  }
  fillRamp(state_->values.data(), 0, state_->values.size(), 0.0, 1.0);
  env().syncExternalMemory();  // constructors are not wrapped: report the new buffer to V8 here
}

// scratch(n): allocates n doubles with no check first; allocation failure
// must reach JS as a RangeError (code PECLET_OUT_OF_MEMORY), never an abort.
Napi::Value Field::Scratch(const Napi::CallbackInfo& info) {
  const double n = requireNumber(info, 0, "n");
  std::vector<double> scratch(static_cast<std::size_t>(n), 1.0);
  return Napi::Number::New(info.Env(), std::accumulate(scratch.begin(), scratch.end(), 0.0));
}

// planned(n): refuses up front what cannot be allocated, naming the argument.
Napi::Value Field::Planned(const Napi::CallbackInfo& info) {
  const double n = requireNumber(info, 0, "n");
  peclet::ensureAllocatable("n", std::to_string(n) + " doubles", n * sizeof(double));
  return Napi::Boolean::New(info.Env(), true);
}

Napi::Value Field::Size(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), static_cast<double>(state_->values.size()));
}

Napi::Value Field::Values(const Napi::CallbackInfo& info) {
  return exportArray<double>(info.Env(), state_, state_->values.data(), state_->values.size());
}

Napi::Value Field::Sum(const Napi::CallbackInfo& info) {
  auto& s = env();
  bool done = false;
  double sum = chunkedSum(
      peclet::runtime().pool(), state_->values.data(), state_->values.size(), [&s] { return s.exiting(); }, &done);
  return Napi::Number::New(info.Env(), sum);
}

Napi::Value Field::Fill(const Napi::CallbackInfo& info) {
  double start = requireNumber(info, 0, "start");
  double step = info.Length() > 1 ? requireNumber(info, 1, "step") : 0.0;
  double* v = state_->values.data();
  auto& s = env();
  peclet::runtime().pool().parallelFor(
      state_->values.size(), 8192, [&](std::size_t b, std::size_t e, unsigned) { fillRamp(v, b, e, start, step); }, 0,
      [&s] { return s.exiting(); });
  return info.Env().Undefined();
}

Napi::Value Field::RelaxAsync(const Napi::CallbackInfo& info) {
  double rounds = requireNumber(info, 0, "rounds");
  if (rounds < 0 || rounds > 1e9) throw Napi::RangeError::New(info.Env(), "rounds must be in [0, 1e9]");
  return (new RelaxWork(info.Env(), state_, static_cast<unsigned>(rounds)))->Start();
}

Napi::Function Particle::Init(Napi::Env env) {
  std::vector<Napi::ClassPropertyDescriptor<Particle>> members = LifecycleMembers();
  members.push_back(Method<&Particle::Mass>("mass"));
  return DefineClass(env, "Particle", members);
}

Particle::Particle(const Napi::CallbackInfo& info) : peclet::Object<Particle>(info) {
  mass_ = info.Length() > 0 && info[0].IsNumber() ? info[0].As<Napi::Number>().DoubleValue() : 1.0;
}

Napi::Value Particle::Mass(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), mass_); }

Napi::Function PlainParticle::Init(Napi::Env env) {
  return DefineClass(env, "PlainParticle", {InstanceMethod<&PlainParticle::Mass>("mass")});
}

PlainParticle::PlainParticle(const Napi::CallbackInfo& info) : Napi::ObjectWrap<PlainParticle>(info) {
  mass_ = info.Length() > 0 && info[0].IsNumber() ? info[0].As<Napi::Number>().DoubleValue() : 1.0;
}

Napi::Value PlainParticle::Mass(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), mass_); }

}  // namespace peclet_test
