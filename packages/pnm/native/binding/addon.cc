// Entry of @peclet/pnm's addon: registers exports only.
#include <peclet/peclet.hpp>

#include "network_object.hpp"

namespace {

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  auto state = peclet::install(env, exports, {"pnm"});
  Napi::Function network = peclet_pnm::Network::Init(env);
  state->setConstructor("Network", network);
  exports.Set("Network", network);
  exports.Set("extract", peclet::Function(env, "extract", peclet_pnm::Extract));
  exports.Set("extractAsync", peclet::Function(env, "extractAsync", peclet_pnm::ExtractAsync));
  exports.Set("formationFactor", peclet::Function(env, "formationFactor", peclet_pnm::FormationFactor));
  return exports;
}

}  // namespace

NODE_API_MODULE(NODE_GYP_MODULE_NAME, Init)
