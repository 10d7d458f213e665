// install(): the one call an addon's entry file makes. It creates the
// module's state for this env, exports `finalize` and `executionSpace`, and
// registers the env cleanup hook that is the backstop of every exit path.
#pragma once

#include <napi.h>

#include <memory>
#include <string>
#include <vector>

#include "env.hpp"
#include "errors.hpp"

// The version of the package an addon is built from, set by its binding.gyp
// (`PECLET_ADDON_VERSION="<version>"`) so that the loader can refuse a binary
// of another version; empty when a build does not set it.
#ifndef PECLET_ADDON_VERSION
#define PECLET_ADDON_VERSION ""
#endif

namespace peclet {

/// What an addon says about itself at install.
struct ModuleInfo {
  /// Module name in errors and the trace (`peclet:<name> ...`).
  std::string name;
  /// Where the module computes: "host" for the CPU thread pool.
  std::string executionSpace = "host";
};

namespace detail {

inline FinalizeReason parseReason(const Napi::Value& v) {
  if (!v.IsString()) return FinalizeReason::Explicit;
  std::string s = v.As<Napi::String>().Utf8Value();
  if (s == "exit") return FinalizeReason::Exit;
  if (s == "signal") return FinalizeReason::Signal;
  if (s == "cleanup") return FinalizeReason::Cleanup;
  return FinalizeReason::Explicit;
}

// Runs when the env is torn down (natural end, worker end or terminate).
// Releases native state only: no handle work, no JS (see DESIGN.md).
inline void cleanupHook(void* arg) noexcept {
  auto* holder = static_cast<std::shared_ptr<EnvState>*>(arg);
  (*holder)->enterCleanup();
  (*holder)->finalize(FinalizeReason::Cleanup, nullptr);
  delete holder;
}

}  // namespace detail

/// A free function of the addon, wrapped like the methods of peclet::Object:
/// C++ exceptions become JS errors (allocation failure a RangeError with
/// code PECLET_OUT_OF_MEMORY) and the native memory the env holds is
/// reported to V8 after the call. `name` must be a string literal.
///
/// ```cpp
/// exports.Set("tessellate", peclet::Function(env, "tessellate", Tessellate));
/// ```
inline Napi::Function Function(Napi::Env env, const char* name, Napi::Value (*callback)(const Napi::CallbackInfo&)) {
  return Napi::Function::New(
      env,
      [name, callback](const Napi::CallbackInfo& info) -> Napi::Value {
        std::shared_ptr<EnvState> state = envState(info.Env());
        struct Sync {
          EnvState& s;
          ~Sync() { s.syncExternalMemory(); }
        } sync{*state};
        try {
          return callback(info);
        } catch (...) {
          throwAsJs(info.Env(), name);
        }
      },
      name);
}

/// Sets up the module in this env and adds to `exports`:
/// - `finalize(reason?)` — idempotent; releases every object of this env,
///   stops work, and finalizes the runtime with the last env; returns the
///   number released;
/// - `executionSpace` — where the module computes;
/// - `__peclet` — the lifecycle handle the TypeScript half drives
///   (`configure`, `stats`, `teardownPending`, `armSignals`, `name`, and
///   `version`, the package version the binary was built from).
///
/// ```cpp
/// Napi::Object Init(Napi::Env env, Napi::Object exports) {
///   peclet::install(env, exports, {"mesh"});
///   exports.Set("Mesh", Mesh::Init(env));
///   return exports;
/// }
/// ```
inline std::shared_ptr<EnvState> install(Napi::Env env, Napi::Object exports, const ModuleInfo& info) {
  runtime().setName(info.name);
  auto state = std::make_shared<EnvState>(env, info.name, info.executionSpace);
  env.SetInstanceData<std::shared_ptr<EnvState>>(new std::shared_ptr<EnvState>(state));
  auto* hookArg = new std::shared_ptr<EnvState>(state);
  state->setCleanupHook(detail::cleanupHook, hookArg);
  napi_add_env_cleanup_hook(env, detail::cleanupHook, hookArg);

  exports.Set("finalize", Napi::Function::New(env, [](const Napi::CallbackInfo& info) -> Napi::Value {
                auto s = envState(info.Env());
                std::size_t also =
                    info.Length() > 1 && info[1].IsNumber() ? info[1].As<Napi::Number>().Uint32Value() : 0;
                bool already = s->finalized();
                std::size_t n = s->finalize(detail::parseReason(info[0]), info.Env(), also);
                return already ? info.Env().Undefined() : Napi::Number::New(info.Env(), static_cast<double>(n));
              }));
  exports.Set("executionSpace", Napi::String::New(env, info.executionSpace));

  Napi::Object lifecycle = Napi::Object::New(env);
  lifecycle.Set("name", Napi::String::New(env, info.name));
  lifecycle.Set("version", Napi::String::New(env, PECLET_ADDON_VERSION));
  lifecycle.Set("configure", Napi::Function::New(env, [](const Napi::CallbackInfo& info) -> Napi::Value {
                  auto s = envState(info.Env());
                  if (info.Length() < 1 || !info[0].IsObject())
                    throw Napi::TypeError::New(info.Env(), "configure(options)");
                  Napi::Object o = info[0].As<Napi::Object>();
                  Napi::Value threads = o.Get("threads");
                  if (threads.IsNumber()) runtime().pool().setSize(threads.As<Napi::Number>().Uint32Value());
                  Napi::Value cls = o.Get("releasedError");
                  if (cls.IsFunction()) s->setReleasedErrorClass(cls.As<Napi::Function>());
                  return info.Env().Undefined();
                }));
  // A teardown of every module of this thread starts (handleSignals()): libc exit() on
  // another thread waits for this env's finalize (exit_gate.hpp).
  lifecycle.Set("teardownPending", Napi::Function::New(env, [](const Napi::CallbackInfo& info) -> Napi::Value {
                  envState(info.Env())->markTeardownPending();
                  return info.Env().Undefined();
                }));
  // handleSignals() listens for these signal numbers on this thread (empty: no longer).
  lifecycle.Set("armSignals", Napi::Function::New(env, [](const Napi::CallbackInfo& info) -> Napi::Value {
                  std::vector<int> signals;
                  if (info.Length() > 0 && info[0].IsArray()) {
                    Napi::Array list = info[0].As<Napi::Array>();
                    for (std::uint32_t i = 0; i < list.Length(); i++) {
                      Napi::Value v = list.Get(i);
                      if (v.IsNumber()) signals.push_back(v.As<Napi::Number>().Int32Value());
                    }
                  }
                  envState(info.Env())->armSignals(signals);
                  return info.Env().Undefined();
                }));
  // Object ids are shared by both halves, so `<Class>#<id>` names one object per module.
  lifecycle.Set("nextId", Napi::Function::New(env, [](const Napi::CallbackInfo& info) -> Napi::Value {
                  return Napi::Number::New(info.Env(), static_cast<double>(runtime().nextObjectId()));
                }));
  lifecycle.Set("stats", Napi::Function::New(env, [](const Napi::CallbackInfo& info) -> Napi::Value {
                  auto s = envState(info.Env());
                  Napi::Object o = Napi::Object::New(info.Env());
                  LedgerCounts mine = ledger().forEnv(s->id());
                  LedgerCounts all = ledger().total();
                  o.Set("liveObjects", static_cast<double>(s->registry().size()));
                  // Zero-copy arrays: records the kernel keeps, and those whose array is alive.
                  s->pruneExports();
                  auto [kept, alive] = s->exportCounts();
                  o.Set("exportRecords", static_cast<double>(kept));
                  o.Set("liveExports", static_cast<double>(alive));
                  o.Set("liveAllocations", static_cast<double>(mine.liveAllocations));
                  o.Set("liveBytes", static_cast<double>(mine.liveBytes));
                  o.Set("moduleLiveBytes", static_cast<double>(all.liveBytes));
                  o.Set("threads", static_cast<double>(runtime().pool().size()));
                  o.Set("poolStarted", runtime().pool().started());
                  o.Set("envs", static_cast<double>(runtime().envCount()));
                  o.Set("workInFlight", static_cast<double>(runtime().workInFlight()));
                  o.Set("finalized", s->finalized());
                  o.Set("runtimeFinalized", runtime().finalized());
                  return o;
                }));
  // Whether the zero-copy getters hand out views (not copies): the JS half keeps only views.
  lifecycle.Set("zeroCopy", Napi::Function::New(env, [](const Napi::CallbackInfo& info) -> Napi::Value {
                  return Napi::Boolean::New(info.Env(), !envState(info.Env())->copiedExports());
                }));
  exports.Set("__peclet", lifecycle);
  return state;
}

}  // namespace peclet
