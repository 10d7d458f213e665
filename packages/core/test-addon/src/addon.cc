// Entry of the kernel's test addon: registers exports only.
#include <peclet/peclet.hpp>

#include "field.hpp"

namespace {

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  auto state = peclet::install(env, exports, {PECLET_TEST_MODULE});
  Napi::Function field = peclet_test::Field::Init(env);
  Napi::Function particle = peclet_test::Particle::Init(env);
  state->setConstructor("Field", field);
  exports.Set("Field", field);
  exports.Set("Particle", particle);
  exports.Set("PlainParticle", peclet_test::PlainParticle::Init(env));
  return exports;
}

}  // namespace

NODE_API_MODULE(NODE_GYP_MODULE_NAME, Init)
