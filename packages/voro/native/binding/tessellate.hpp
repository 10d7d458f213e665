// tessellate() and tessellateAsync(): one synchronous call, one tracked async work.
#pragma once

#include <napi.h>

namespace peclet_voro {

/// tessellate(points, box, periodic, radii, threads) → Tessellation
Napi::Value Tessellate(const Napi::CallbackInfo& info);
/// tessellateAsync(points, box, periodic, radii, threads) → { promise, cancel }
Napi::Value TessellateAsync(const Napi::CallbackInfo& info);

}  // namespace peclet_voro
