// Native failures as JS errors, in one voice: allocation failure becomes a
// RangeError with code PECLET_OUT_OF_MEMORY (naming the argument that asked
// for the memory when it is known, and what the module holds), any other C++
// exception an Error with its message. Nothing may escape into Node: an
// exception that is not a Napi::Error would end the process.
#pragma once

#include <napi.h>

#include <exception>
#include <new>
#include <string>

#include "args.hpp"
#include "kernel_error.hpp"
#include "ledger.hpp"
#include "memory.hpp"
#include "runtime.hpp"

namespace peclet {

/// What the module holds, for an out-of-memory message.
inline std::string holdingText() {
  const LedgerCounts held = ledger().total();
  const AllocationBudget budget = allocationBudget();
  return "module " + runtime().name() + " holds " + formatBytes(double(held.liveBytes)) + " in " +
         std::to_string(held.liveAllocations) + " native buffers; the process can allocate about " +
         formatBytes(budget.bytes) + " more (limit: " + budget.source + ")";
}

/// A RangeError with code PECLET_OUT_OF_MEMORY.
inline Napi::Error outOfMemoryError(Napi::Env env, const std::string& argument, const std::string& message) {
  Napi::Error err = Napi::RangeError::New(env, argument.empty() ? message : argument + ": " + message);
  err.Set("code", Napi::String::New(env, "PECLET_OUT_OF_MEMORY"));
  if (!argument.empty()) {
    err.Set("argument", Napi::String::New(env, argument));
    err.Set("index", Napi::Number::New(env, -1));
  }
  return err;
}

/// Rethrows the exception in flight as a JS error; `context` names the call
/// (`Simulation#3.addSpheres`, `tessellate`). Call only from a catch block.
[[noreturn]] inline void throwAsJs(Napi::Env env, const std::string& context) {
  try {
    throw;
  } catch (const Napi::Error&) {
    throw;
  } catch (const KernelArgumentError& e) {
    throwArgumentError(env, e.isType(), e.argument(), e.index(), e.detail());
  } catch (const AllocationRefused& e) {
    throw outOfMemoryError(env, e.argument(), e.what());
  } catch (const std::bad_alloc&) {
    throw outOfMemoryError(env, "", context + ": out of memory (" + holdingText() + ")");
  } catch (const std::exception& e) {
    throw Napi::Error::New(env, context + ": " + e.what());
  } catch (...) {
    throw Napi::Error::New(env, context + ": unknown native error");
  }
}

/// Runs `body`, turning any C++ exception into a JS error (see throwAsJs):
/// for the code a method wrapper does not cover, such as a wrapped class's
/// constructor body.
///
/// ```cpp
/// Mesh::Mesh(const Napi::CallbackInfo& info) : peclet::Object<Mesh>(info) {
///   state_ = peclet::guard(info.Env(), "new Mesh", [&] { return std::make_shared<State>(...); });
/// }
/// ```
template <typename Body>
auto guard(Napi::Env env, const std::string& context, Body&& body) -> decltype(body()) {
  try {
    return body();
  } catch (...) {
    throwAsJs(env, context);
  }
}

/// The same failure described for a later rejection (async work finishes
/// off the JS thread and settles on it).
struct NativeFailure {
  enum class Kind { None, OutOfMemory, Error } kind = Kind::None;
  std::string argument;
  std::string message;

  explicit operator bool() const noexcept { return kind != Kind::None; }

  /// Records the exception in flight. Call only from a catch block.
  void capture(const std::string& context) noexcept {
    try {
      throw;
    } catch (const AllocationRefused& e) {
      set(Kind::OutOfMemory, e.argument(), e.what());
    } catch (const std::bad_alloc&) {
      std::string held;
      try {
        held = holdingText();
      } catch (...) {
      }
      set(Kind::OutOfMemory, "", context + ": out of memory (" + held + ")");
    } catch (const std::exception& e) {
      set(Kind::Error, "", context + ": " + e.what());
    } catch (...) {
      set(Kind::Error, "", context + ": unknown native error");
    }
  }

  Napi::Error toJs(Napi::Env env) const {
    if (kind == Kind::OutOfMemory) return outOfMemoryError(env, argument, message);
    return Napi::Error::New(env, message);
  }

 private:
  void set(Kind k, const std::string& a, const std::string& m) noexcept {
    try {
      kind = k;
      argument = a;
      message = m;
    } catch (...) {
      kind = k;
    }
  }
};

}  // namespace peclet
