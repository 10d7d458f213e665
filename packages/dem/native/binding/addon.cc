// Entry of @peclet/dem's addon: registers exports only.
#include <peclet/peclet.hpp>

#include "simulation_object.hpp"

namespace {

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  auto state = peclet::install(env, exports, {"dem"});
  Napi::Function simulation = peclet_dem::Simulation::Init(env);
  state->setConstructor("Simulation", simulation);
  exports.Set("Simulation", simulation);
  return exports;
}

}  // namespace

NODE_API_MODULE(NODE_GYP_MODULE_NAME, Init)
