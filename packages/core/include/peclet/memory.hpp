// What this process may still allocate, and refusing an allocation up front
// with the bytes it would need: a count or size from user input is checked
// here before anything is allocated, so it becomes a clear RangeError instead
// of an abort, a kill by the OOM killer, or minutes of swapping.
// Plain C++ (no Node-API): kernels and C++ unit tests can use it.
#pragma once

#include <sys/resource.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>

namespace peclet {

namespace detail {

// A number from a file, or `fallback` ("max" or anything unreadable).
inline double readNumberFile(const char* path, double fallback) noexcept {
  std::FILE* f = std::fopen(path, "r");
  if (f == nullptr) return fallback;
  char buffer[64] = {0};
  const std::size_t n = std::fread(buffer, 1, sizeof buffer - 1, f);
  std::fclose(f);
  if (n == 0 || std::strncmp(buffer, "max", 3) == 0) return fallback;
  char* end = nullptr;
  const double v = std::strtod(buffer, &end);
  return end == buffer ? fallback : v;
}

// A "Key:  <n> kB" line of /proc/self/status or /proc/meminfo, in bytes.
inline double readKilobytes(const char* path, const char* key, double fallback) noexcept {
  std::FILE* f = std::fopen(path, "r");
  if (f == nullptr) return fallback;
  char line[256];
  double value = fallback;
  const std::size_t keyLength = std::strlen(key);
  while (std::fgets(line, sizeof line, f) != nullptr) {
    if (std::strncmp(line, key, keyLength) == 0 && line[keyLength] == ':') {
      value = std::strtod(line + keyLength + 1, nullptr) * 1024.0;
      break;
    }
  }
  std::fclose(f);
  return value;
}

}  // namespace detail

/// Where the tightest limit on allocation comes from.
struct AllocationBudget {
  /// Bytes this process can still allocate, about (never more than 2^62).
  double bytes = 0;
  /// `address-space limit (ulimit -v)`, `cgroup memory.max`, or `available memory`.
  const char* source = "available memory";
};

/// The bytes this process may still allocate: the smallest of the headroom
/// under its address-space limit (RLIMIT_AS, `ulimit -v`), under its cgroup's
/// memory.max, and the system's available memory (MemAvailable + free swap).
/// Read fresh on each call (a few small file reads): call it before large
/// allocations, not in loops.
inline AllocationBudget allocationBudget() noexcept {
  AllocationBudget budget;
  budget.bytes = 4.6e18;  // 2^62: nothing is larger
#if defined(__linux__)
  const double available = detail::readKilobytes("/proc/meminfo", "MemAvailable", 4.6e18) +
                           detail::readKilobytes("/proc/meminfo", "SwapFree", 0.0);
  if (available < budget.bytes) {
    budget.bytes = available;
    budget.source = "available memory";
  }
  struct rlimit limit {};
  if (getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    const double used = detail::readKilobytes("/proc/self/status", "VmSize", 0.0);
    const double headroom = std::fmax(0.0, double(limit.rlim_cur) - used);
    if (headroom < budget.bytes) {
      budget.bytes = headroom;
      budget.source = "address-space limit (ulimit -v)";
    }
  }
  const double cgroupMax = detail::readNumberFile("/sys/fs/cgroup/memory.max", -1.0);
  if (cgroupMax > 0) {
    const double current = detail::readNumberFile("/sys/fs/cgroup/memory.current", 0.0);
    const double headroom = std::fmax(0.0, cgroupMax - current);
    if (headroom < budget.bytes) {
      budget.bytes = headroom;
      budget.source = "cgroup memory.max";
    }
  }
#endif
  return budget;
}

/// Bytes this process may still allocate (see allocationBudget()).
inline double allocatableBytes() noexcept { return allocationBudget().bytes; }

/// Bytes as a person reads them: `1.5 GB`, `312 kB`.
inline std::string formatBytes(double bytes) {
  char out[48];
  if (!std::isfinite(bytes)) return "an unbounded number of bytes";
  if (bytes >= 1e12)
    std::snprintf(out, sizeof out, "%.3g TB", bytes / 1e12);
  else if (bytes >= 1e9)
    std::snprintf(out, sizeof out, "%.3g GB", bytes / 1e9);
  else if (bytes >= 1e6)
    std::snprintf(out, sizeof out, "%.3g MB", bytes / 1e6);
  else if (bytes >= 1e3)
    std::snprintf(out, sizeof out, "%.3g kB", bytes / 1e3);
  else
    std::snprintf(out, sizeof out, "%.0f bytes", bytes);
  return out;
}

/// An allocation refused before it was tried: `argument` is the public
/// argument whose value asked for it (`count`, `points`). Derives from
/// std::bad_alloc so code that only knows allocation failure still handles
/// it; the kernel's method wrappers turn it into a RangeError naming the
/// argument, with code PECLET_OUT_OF_MEMORY.
class AllocationRefused : public std::bad_alloc {
 public:
  AllocationRefused(std::string argument, std::string message)
      : argument_(std::move(argument)), message_(std::move(message)) {}
  const char* what() const noexcept override { return message_.c_str(); }
  const std::string& argument() const noexcept { return argument_; }

 private:
  std::string argument_;
  std::string message_;
};

/// Refuses an allocation of `bytes` (a double, so an overflowing product of
/// user numbers stays visible as a huge or infinite value) when it is not
/// finite or exceeds what the process may allocate, with a message that says
/// what needed it, how much, and which limit is in the way.
///
/// ```cpp
/// peclet::ensureAllocatable("count", std::to_string(n) + " spheres", double(n) * bytesPerSphere);
/// ```
inline void ensureAllocatable(const std::string& argument, const std::string& what, double bytes) {
  if (bytes >= 0 && bytes < 64.0 * 1024 * 1024) return;  // small: not worth the file reads
  const AllocationBudget budget = allocationBudget();
  if (std::isfinite(bytes) && bytes >= 0 && bytes <= budget.bytes) return;
  throw AllocationRefused(argument, what + " would need about " + formatBytes(bytes) +
                                        ", but this process can allocate about " + formatBytes(budget.bytes) +
                                        " (limit: " + budget.source + ")");
}

}  // namespace peclet
