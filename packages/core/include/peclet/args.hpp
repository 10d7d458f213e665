// Reading arguments in bindings: each helper checks the type and throws a
// TypeError/RangeError that names the argument, so a binding reads like its
// documentation and bad input never reaches a kernel.
#pragma once

#include <napi.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace peclet {

/// True for a Float64Array.
inline bool isFloat64Array(const Napi::Value& value) {
  return value.IsTypedArray() && value.As<Napi::TypedArray>().TypedArrayType() == napi_float64_array;
}

/// Throws a TypeError (`isType`) or RangeError whose message starts with the
/// argument and the offending index (`points (index 3): ...`), and which
/// carries `argument` and `index` properties (index -1: not tied to one element).
[[noreturn]] inline void throwArgumentError(Napi::Env env, bool isType, const std::string& argument, std::int64_t index,
                                            const std::string& message) {
  std::string where = index >= 0 ? " (index " + std::to_string(index) + ")" : "";
  std::string text = argument + where + ": " + message;
  Napi::Error err =
      isType ? Napi::Error(Napi::TypeError::New(env, text)) : Napi::Error(Napi::RangeError::New(env, text));
  err.Set("argument", Napi::String::New(env, argument));
  err.Set("index", Napi::Number::New(env, static_cast<double>(index)));
  throw err;
}

/// A Float64Array argument, read in place. Prefer float64Vector(): a view can
/// change under the call (another thread writing a SharedArrayBuffer, or the
/// object's own zero-copy array whose memory the call moves).
inline Napi::Float64Array float64Array(Napi::Env env, const Napi::Value& value, const std::string& name) {
  if (!isFloat64Array(value)) throwArgumentError(env, true, name, -1, "must be a Float64Array");
  return value.As<Napi::Float64Array>();
}

/// A copy of a Float64Array argument, taken before anything else reads it:
/// validate and use the copy, never the caller's memory.
inline std::vector<double> float64Vector(Napi::Env env, const Napi::Value& value, const std::string& name) {
  Napi::Float64Array array = float64Array(env, value, name);
  const double* data = array.Data();
  return std::vector<double>(data, data + array.ElementLength());
}

/// A finite number; TypeError when it is not a number, RangeError when not finite.
inline double finiteNumber(Napi::Env env, const Napi::Value& value, const std::string& name) {
  if (!value.IsNumber()) throwArgumentError(env, true, name, -1, "must be a number");
  double v = value.As<Napi::Number>().DoubleValue();
  if (!std::isfinite(v)) throwArgumentError(env, false, name, -1, "must be finite, got " + std::to_string(v));
  return v;
}

/// Three finite numbers from an array or typed array: `[x, y, z]`, each read once.
inline std::array<double, 3> vector3(Napi::Env env, const Napi::Value& value, const std::string& name) {
  if (!value.IsArray() && !value.IsTypedArray()) throwArgumentError(env, true, name, -1, "must be [x, y, z]");
  Napi::Object a = value.As<Napi::Object>();
  Napi::Value length = a.Get("length");
  if (!length.IsNumber() || length.As<Napi::Number>().DoubleValue() != 3)
    throwArgumentError(env, true, name, -1, "must have 3 numbers");
  std::array<double, 3> out{};
  for (uint32_t i = 0; i < 3; i++) out[i] = finiteNumber(env, a.Get(i), name + "[" + std::to_string(i) + "]");
  return out;
}

}  // namespace peclet
