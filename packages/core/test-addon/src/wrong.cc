// A deliberately wrong addon: it keeps a ledger-tracked buffer in a static,
// so the buffer is freed by a static destructor after the module finalized.
// The ledger must report it (and abort under PECLET_STRICT=1).
#include <memory>
#include <peclet/peclet.hpp>

namespace {

std::unique_ptr<peclet::Buffer<double>>& leakedBuffer() {
  static std::unique_ptr<peclet::Buffer<double>> held;
  return held;
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  auto state = peclet::install(env, exports, {"wrong"});
  std::uint64_t envId = state->id();
  exports.Set("holdBufferPastFinalize", Napi::Function::New(env, [envId](const Napi::CallbackInfo& info) {
                leakedBuffer() = std::make_unique<peclet::Buffer<double>>("Wrong.heldPastFinalize", envId, 1000);
                return info.Env().Undefined();
              }));
  return exports;
}

}  // namespace

NODE_API_MODULE(NODE_GYP_MODULE_NAME, Init)
