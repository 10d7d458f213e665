// Entry of @peclet/coupling's addon: registers exports only.
#include <peclet/peclet.hpp>

#include "coupler_object.hpp"

namespace {

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  auto state = peclet::install(env, exports, {"coupling"});
  Napi::Function coupler = peclet_coupling::Coupler::Init(env);
  state->setConstructor("Coupler", coupler);
  exports.Set("Coupler", coupler);
  exports.Set("dragCoefficient", peclet::Function(env, "dragCoefficient", peclet_coupling::DragCoefficient));
  exports.Set("latticeResponse", peclet::Function(env, "latticeResponse", peclet_coupling::LatticeResponse));
  return exports;
}

}  // namespace

NODE_API_MODULE(NODE_GYP_MODULE_NAME, Init)
