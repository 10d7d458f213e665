// Entry of @peclet/voro's addon: registers exports only.
#include <peclet/peclet.hpp>

#include "tessellate.hpp"
#include "tessellation_object.hpp"

namespace {

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  auto state = peclet::install(env, exports, {"voro"});
  Napi::Function tessellation = peclet_voro::Tessellation::Init(env);
  state->setConstructor("Tessellation", tessellation);
  exports.Set("Tessellation", tessellation);
  exports.Set("tessellate", Napi::Function::New(env, peclet_voro::Tessellate));
  exports.Set("tessellateAsync", Napi::Function::New(env, peclet_voro::TessellateAsync));
  return exports;
}

}  // namespace

NODE_API_MODULE(NODE_GYP_MODULE_NAME, Init)
