// A histogram of doubles: a wrapped object with native bins exposed as a
// zero-copy Uint32Array, written the way an addon outside peclet would.
#include <cmath>
#include <memory>
#include <peclet/peclet.hpp>
#include <vector>

namespace {

struct Bins {
  Bins(std::uint64_t env, std::size_t n, double lo, double hi) : counts("Histogram.counts", env, n), lo(lo), hi(hi) {
    for (std::size_t i = 0; i < n; i++) counts[i] = 0;
  }
  peclet::Buffer<std::uint32_t> counts;
  double lo, hi;
};

class Histogram : public peclet::Object<Histogram> {
 public:
  static constexpr const char* ClassName = "Histogram";

  static Napi::Function Init(Napi::Env env) {
    auto members = LifecycleMembers();
    members.push_back(Method<&Histogram::Add>("add"));
    members.push_back(Getter<&Histogram::Counts>("counts"));
    return DefineClass(env, "Histogram", members);
  }

  explicit Histogram(const Napi::CallbackInfo& info) : peclet::Object<Histogram>(info) {
    if (info.Length() < 3 || !info[0].IsNumber() || !info[1].IsNumber() || !info[2].IsNumber()) {
      throw Napi::TypeError::New(info.Env(), "new Histogram(bins, min, max): numbers expected");
    }
    double n = info[0].As<Napi::Number>().DoubleValue();
    double lo = info[1].As<Napi::Number>().DoubleValue();
    double hi = info[2].As<Napi::Number>().DoubleValue();
    if (!(n >= 1 && n <= 1e7 && n == std::floor(n)))
      throw Napi::RangeError::New(info.Env(), "bins must be an integer in [1, 1e7]");
    if (!(hi > lo)) throw Napi::RangeError::New(info.Env(), "max must exceed min");
    bins_ = std::make_shared<Bins>(envId(), static_cast<std::size_t>(n), lo, hi);
  }

 protected:
  void dropNative() noexcept override { bins_.reset(); }

 private:
  Napi::Value Add(const Napi::CallbackInfo& info) {
    if (info.Length() < 1 || !info[0].IsTypedArray() ||
        info[0].As<Napi::TypedArray>().TypedArrayType() != napi_float64_array) {
      throw Napi::TypeError::New(info.Env(), "add(values): values must be a Float64Array");
    }
    auto values = info[0].As<Napi::Float64Array>();
    const std::size_t n = bins_->counts.size();
    for (std::size_t i = 0; i < values.ElementLength(); i++) {
      double t = (values[i] - bins_->lo) / (bins_->hi - bins_->lo);
      if (t >= 0 && t < 1) bins_->counts[static_cast<std::size_t>(t * static_cast<double>(n))]++;
    }
    return info.Env().Undefined();
  }

  Napi::Value Counts(const Napi::CallbackInfo& info) {
    return exportArray<std::uint32_t>(info.Env(), bins_, bins_->counts.data(), bins_->counts.size());
  }

  std::shared_ptr<Bins> bins_;
};

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  peclet::install(env, exports, {"histogram"});
  exports.Set("Histogram", Histogram::Init(env));
  return exports;
}

}  // namespace

NODE_API_MODULE(NODE_GYP_MODULE_NAME, Init)
