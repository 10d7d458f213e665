// Wrapped-object base: a JS class whose instances own native state, are
// registered in their env's registry, release it on `release()` or at
// finalize, and throw ReleasedError from every bound method afterwards.
#pragma once

#include <napi.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "env.hpp"
#include "errors.hpp"

namespace peclet {

/// Base for wrapped classes. Derive as `class Mesh : public peclet::Object<Mesh>`,
/// implement `className()` and `dropNative()`, and bind methods with
/// `Method<&Mesh::Volume>("volume")` so each call checks liveness first.
///
/// ```cpp
/// static Napi::Function Init(Napi::Env env) {
///   return DefineClass(env, "Mesh", {Method<&Mesh::Volume>("volume"), ReleaseMethod()});
/// }
/// ```
template <typename T>
class Object : public Napi::ObjectWrap<T>, public Releasable {
 public:
  using Callback = Napi::Value (T::*)(const Napi::CallbackInfo&);

  explicit Object(const Napi::CallbackInfo& info) : Napi::ObjectWrap<T>(info), state_(envState(info.Env())) {
    if (state_->exiting()) throw state_->finalizedError(T::ClassName);
    state_->add(this);
  }

  // Collected while live: the derived class's members free its native state
  // (no trace line: collection is not a release); only unlink here.
  ~Object() override {
    if (state_) state_->registry().remove(this);
  }

  const char* className() const noexcept override { return T::ClassName; }

  /// A bound method that throws ReleasedError once the object is released.
  /// C++ exceptions become JS errors (errors.hpp: allocation failure is a
  /// RangeError with code PECLET_OUT_OF_MEMORY), and the native memory the
  /// env holds is reported to V8 after each call. `name` must outlive the
  /// class (a string literal).
  template <Callback M>
  static Napi::ClassPropertyDescriptor<T> Method(const char* name, napi_property_attributes attributes = napi_default) {
    return Napi::ObjectWrap<T>::InstanceMethod(name, static_cast<Callback>(&Object::template Guarded<M>), attributes,
                                               const_cast<char*>(name));
  }
  /// A getter that throws ReleasedError once the object is released (and, like Method, never lets a
  /// C++ exception escape).
  template <Callback M>
  static Napi::ClassPropertyDescriptor<T> Getter(const char* name) {
    return Napi::ObjectWrap<T>::InstanceAccessor(name, static_cast<Callback>(&Object::template Guarded<M>), nullptr,
                                                 napi_enumerable, const_cast<char*>(name));
  }
  /// A getter of a zero-copy array (exportArray): configurable, so that the JS half can put the
  /// one-view-per-buffer cache of `PecletModule.zeroCopyView` in front of it.
  template <Callback M>
  static Napi::ClassPropertyDescriptor<T> ArrayGetter(const char* name) {
    return Napi::ObjectWrap<T>::InstanceAccessor(
        name, static_cast<Callback>(&Object::template Guarded<M>), nullptr,
        static_cast<napi_property_attributes>(napi_enumerable | napi_configurable), const_cast<char*>(name));
  }
  /// `release()` (idempotent) and `released`.
  static std::vector<Napi::ClassPropertyDescriptor<T>> LifecycleMembers() {
    return {
        Napi::ObjectWrap<T>::InstanceMethod("release", static_cast<Callback>(&Object::JsRelease)),
        Napi::ObjectWrap<T>::InstanceAccessor("released", static_cast<Callback>(&Object::JsReleased), nullptr),
        Napi::ObjectWrap<T>::InstanceAccessor("id", static_cast<Callback>(&Object::JsId), nullptr),
    };
  }

  /// Throws ReleasedError into JS if released; returns whether it is live.
  bool ensureLive(Napi::Env env) const {
    if (!released()) return true;
    throw state_->releasedError(T::ClassName, id(), releasedBy());
  }

  EnvState& env() const noexcept { return *state_; }
  std::uint64_t envId() const noexcept { return state_->id(); }

  /// Hands `length` elements at `data` to JS as a typed array without a copy.
  /// `owner` keeps the memory alive for as long as JS can reach it; release
  /// and finalize detach the array (length 0). Where external buffers are
  /// not allowed (or PECLET_NO_EXTERNAL_BUFFERS=1) it returns a copy.
  template <typename E>
  Napi::TypedArrayOf<E> exportArray(Napi::Env env, std::shared_ptr<const void> owner, E* data, std::size_t length) {
    auto record = state_->addExport();
    Napi::TypedArrayOf<E> array = makeArray<E>(env, std::move(owner), data, length, record);
    if (length > 0 && record->buffer == nullptr) state_->noteCopiedExport();
    // Arrays collected since are forgotten here too (amortized), so an object read in a loop
    // keeps what its live arrays need, not one entry per read.
    if (views_.size() >= viewsPruneAt_) {
      views_.erase(std::remove_if(views_.begin(), views_.end(),
                                  [](const std::weak_ptr<ExportRecord>& w) {
                                    auto e = w.lock();
                                    return !e || e->collected;
                                  }),
                   views_.end());
      viewsPruneAt_ = std::max<std::size_t>(16, views_.size() * 2);
    }
    views_.push_back(record);
    return array;
  }

  /// Detaches every array this object exported (call before reallocating
  /// memory that was exported).
  void detachExports(Napi::Env env) noexcept {
    for (auto& weak : views_) {
      if (auto e = weak.lock()) EnvState::detach(env, *e);
    }
    views_.clear();
  }

 protected:
  void detachViews(napi_env env) noexcept override { detachExports(Napi::Env(env)); }
  bool wrapperCollected(napi_env env) const noexcept override {
    napi_ref ref = static_cast<napi_ref>(static_cast<const Napi::Reference<Napi::Object>&>(*this));
    if (ref == nullptr) return false;
    napi_value value = nullptr;
    return napi_get_reference_value(env, ref, &value) == napi_ok && value == nullptr;
  }

 private:
  template <Callback M>
  Napi::Value Guarded(const Napi::CallbackInfo& info) {
    ensureLive(info.Env());
    std::shared_ptr<EnvState> state = state_;  // the call may release this object
    struct Sync {
      EnvState& s;
      ~Sync() { s.syncExternalMemory(); }
    } sync{*state};
    try {
      return (static_cast<T*>(this)->*M)(info);
    } catch (...) {
      const char* name = static_cast<const char*>(info.Data());
      throwAsJs(info.Env(), std::string(T::ClassName) + "#" + std::to_string(id()) + "." + (name ? name : "call"));
    }
  }
  Napi::Value JsRelease(const Napi::CallbackInfo& info) {
    state_->release(this, "release()", info.Env());
    state_->syncExternalMemory();
    return info.Env().Undefined();
  }
  Napi::Value JsReleased(const Napi::CallbackInfo& info) { return Napi::Boolean::New(info.Env(), released()); }
  Napi::Value JsId(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), static_cast<double>(id())); }

  static bool externalBuffersAllowed() {
    static const bool allowed = [] {
      const char* v = std::getenv("PECLET_NO_EXTERNAL_BUFFERS");
      return !(v != nullptr && v[0] == '1');
    }();
    return allowed;
  }

  template <typename E>
  static Napi::TypedArrayOf<E> makeArray(Napi::Env env, std::shared_ptr<const void> owner, E* data, std::size_t length,
                                         const std::shared_ptr<ExportRecord>& record) {
    const std::size_t bytes = length * sizeof(E);
    if (externalBuffersAllowed() && length > 0) {
      auto* hint = new std::shared_ptr<ExportRecord>(record);
      napi_value buffer = nullptr;
      napi_status status = napi_create_external_arraybuffer(
          env, data, bytes,
          [](napi_env, void*, void* h) {
            auto* held = static_cast<std::shared_ptr<ExportRecord>*>(h);
            (*held)->collected = true;
            (*held)->owner.reset();
            delete held;
          },
          hint, &buffer);
      if (status == napi_ok) {
        record->owner = std::move(owner);
        napi_create_reference(env, buffer, 0, &record->buffer);
        return Napi::TypedArrayOf<E>::New(env, length, Napi::ArrayBuffer(env, buffer), 0);
      }
      delete hint;
      // napi_no_external_buffers_allowed (and any other refusal): copy instead.
      bool pending = false;
      napi_is_exception_pending(env, &pending);
      if (pending) {
        napi_value ignored;
        napi_get_and_clear_last_exception(env, &ignored);
      }
    }
    Napi::ArrayBuffer copy = Napi::ArrayBuffer::New(env, bytes);
    if (bytes > 0) std::memcpy(copy.Data(), data, bytes);
    record->collected = true;  // nothing native to detach or keep alive
    return Napi::TypedArrayOf<E>::New(env, length, copy, 0);
  }

  std::shared_ptr<EnvState> state_;
  std::vector<std::weak_ptr<ExportRecord>> views_;
  std::size_t viewsPruneAt_ = 16;
};

}  // namespace peclet
