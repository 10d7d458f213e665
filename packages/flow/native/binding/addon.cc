// Entry of @peclet/flow's addon: registers exports only.
#include <peclet/peclet.hpp>

#include "lattice_object.hpp"

namespace {

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  auto state = peclet::install(env, exports, {"flow"});
  Napi::Function lattice = peclet_flow::Lattice::Init(env);
  state->setConstructor("Lattice", lattice);
  exports.Set("Lattice", lattice);
  exports.Set("percolates", peclet::Function(env, "percolates", peclet_flow::Percolates));
  exports.Set("labelPores", peclet::Function(env, "labelPores", peclet_flow::LabelPores));
  return exports;
}

}  // namespace

NODE_API_MODULE(NODE_GYP_MODULE_NAME, Init)
