// Field: a wrapped object owning a ledger-tracked array of doubles, with a
// zero-copy view, synchronous and async parallel work.
#pragma once

#include <memory>
#include <peclet/peclet.hpp>
#include <vector>

namespace peclet_test {

/// Native state of a Field, shared with in-flight work and exported arrays.
struct FieldState {
  FieldState(std::uint64_t env, std::size_t n) : values("Field.values", env, n), partial("Field.partial", env, 64) {}
  peclet::Buffer<double> values;
  peclet::Buffer<double> partial;  // per-worker partial sums
};

class Field : public peclet::Object<Field> {
 public:
  static constexpr const char* ClassName = "Field";
  static Napi::Function Init(Napi::Env env);
  explicit Field(const Napi::CallbackInfo& info);

 protected:
  void dropNative() noexcept override { state_.reset(); }

 private:
  Napi::Value Size(const Napi::CallbackInfo& info);
  Napi::Value Values(const Napi::CallbackInfo& info);
  Napi::Value Sum(const Napi::CallbackInfo& info);
  Napi::Value Fill(const Napi::CallbackInfo& info);
  Napi::Value RelaxAsync(const Napi::CallbackInfo& info);
  Napi::Value Scratch(const Napi::CallbackInfo& info);
  Napi::Value Planned(const Napi::CallbackInfo& info);

  std::shared_ptr<FieldState> state_;
};

/// A minimal registered object: the unit of the registration benchmark.
class Particle : public peclet::Object<Particle> {
 public:
  static constexpr const char* ClassName = "Particle";
  static Napi::Function Init(Napi::Env env);
  explicit Particle(const Napi::CallbackInfo& info);

 protected:
  void dropNative() noexcept override { mass_ = 0; }

 private:
  Napi::Value Mass(const Napi::CallbackInfo& info);
  double mass_ = 0;
};

/// The same object without the kernel: the benchmark's baseline.
class PlainParticle : public Napi::ObjectWrap<PlainParticle> {
 public:
  static Napi::Function Init(Napi::Env env);
  explicit PlainParticle(const Napi::CallbackInfo& info);

 private:
  Napi::Value Mass(const Napi::CallbackInfo& info);
  double mass_ = 0;
};

}  // namespace peclet_test
