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
  // Wrapped: a refused allocation becomes a RangeError naming the argument (PECLET_OUT_OF_MEMORY).
  exports.Set("tessellate", peclet::Function(env, "tessellate", peclet_voro::Tessellate));
  exports.Set("tessellateAsync", peclet::Function(env, "tessellateAsync", peclet_voro::TessellateAsync));
  return exports;
}

}  // namespace

NODE_API_MODULE(NODE_GYP_MODULE_NAME, Init)
