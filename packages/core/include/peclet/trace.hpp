// Teardown trace: one stderr line per release and per finalize when
// PECLET_TEARDOWN_TRACE=1. The format is documented in packages/core/README.md
// and shared with the TypeScript half.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace peclet {

/// True when PECLET_TEARDOWN_TRACE is set to a non-empty value other than "0".
/// Read once: tracing is decided at process start, never per call.
inline bool traceEnabled() noexcept {
  static const bool enabled = [] {
    const char* v = std::getenv("PECLET_TEARDOWN_TRACE");
    return v != nullptr && v[0] != '\0' && std::strcmp(v, "0") != 0;
  }();
  return enabled;
}

/// Writes one whole line with a single write so lines from threads and
/// processes sharing stderr never interleave mid-line.
inline void traceLine(const std::string& line) noexcept {
  std::string out = line;
  out.push_back('\n');
  std::fwrite(out.data(), 1, out.size(), stderr);
  std::fflush(stderr);
}

/// `peclet:<module> release <Class>#<id>`
inline void traceRelease(const std::string& module, const char* className, std::uint64_t id) noexcept {
  if (!traceEnabled()) return;
  traceLine("peclet:" + module + " release " + className + "#" + std::to_string(id));
}

/// `peclet:<module> finalize reason=<r> released=<n> live-bytes=<b>`
inline void traceFinalize(const std::string& module, const char* reason, std::size_t released,
                          std::size_t liveBytes) noexcept {
  if (!traceEnabled()) return;
  traceLine("peclet:" + module + " finalize reason=" + reason + " released=" + std::to_string(released) +
            " live-bytes=" + std::to_string(liveBytes));
}

}  // namespace peclet
