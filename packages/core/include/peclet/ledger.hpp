// Allocation ledger: every native buffer of a module is labelled and counted,
// so finalize can prove nothing is left and a free after finalize (an ordering
// bug) is reported instead of hiding as a use-after-free.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

#include "trace.hpp"

namespace peclet {

/// Counts of one ledger scope (the whole module, or one env).
struct LedgerCounts {
  std::size_t liveAllocations = 0;
  std::size_t liveBytes = 0;
};

/// Thread-safe ledger of a module's native allocations. Allocations are not on
/// hot paths (buffers are allocated once and reused), so one mutex suffices.
class Ledger {
 public:
  /// True when PECLET_STRICT=1: a free after finalize aborts with its label.
  static bool strict() noexcept {
    static const bool value = [] {
      const char* v = std::getenv("PECLET_STRICT");
      return v != nullptr && std::strcmp(v, "1") == 0;
    }();
    return value;
  }

  void setModuleName(const std::string& name) {
    std::lock_guard<std::mutex> lock(mutex_);
    module_ = name;
  }

  /// Records `bytes` under `envId` in the current generation; returns the generation.
  std::uint64_t add(std::uint64_t envId, std::size_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& env = perEnv_[envId];
    env.liveAllocations++;
    env.liveBytes += bytes;
    total_.liveAllocations++;
    total_.liveBytes += bytes;
    return generation_;
  }

  /// Adjusts the byte count of a live allocation (a buffer that was resized).
  void resize(std::uint64_t envId, std::size_t oldBytes, std::size_t newBytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& env = perEnv_[envId];
    env.liveBytes = env.liveBytes - oldBytes + newBytes;
    total_.liveBytes = total_.liveBytes - oldBytes + newBytes;
  }

  /// Removes an allocation. A free of an allocation whose generation was
  /// already finalized is an ordering bug: reported, and fatal in strict mode.
  void remove(std::uint64_t envId, std::size_t bytes, std::uint64_t generation, const char* label) noexcept {
    std::string module;
    bool late = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = perEnv_.find(envId);
      if (it != perEnv_.end()) {
        it->second.liveAllocations--;
        it->second.liveBytes -= bytes;
        if (it->second.liveAllocations == 0) perEnv_.erase(it);
      }
      total_.liveAllocations--;
      total_.liveBytes -= bytes;
      late = finalizedThrough_ != 0 && generation <= finalizedThrough_;
      module = module_;
    }
    if (late) {
      std::string line =
          "peclet:" + module + " ledger: " + label + " (" + std::to_string(bytes) + " bytes) freed after finalize";
      traceLine(line);
      if (strict()) std::abort();
    }
  }

  LedgerCounts total() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return total_;
  }

  LedgerCounts forEnv(std::uint64_t envId) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = perEnv_.find(envId);
    return it == perEnv_.end() ? LedgerCounts{} : it->second;
  }

  /// Marks the current generation finalized and opens the next one.
  void finalizeGeneration() {
    std::lock_guard<std::mutex> lock(mutex_);
    finalizedThrough_ = generation_;
    generation_++;
  }

 private:
  mutable std::mutex mutex_;
  std::string module_ = "addon";
  std::map<std::uint64_t, LedgerCounts> perEnv_;
  LedgerCounts total_;
  std::uint64_t generation_ = 1;
  std::uint64_t finalizedThrough_ = 0;
};

/// The ledger of this addon. Each addon is built with hidden visibility, so
/// this static is private to it: modules never share a ledger.
inline Ledger& ledger() {
  // Never destroyed: buffers freed during exit() (by static destructors or
  // threads left running) still find it.
  static Ledger* instance = new Ledger();
  return *instance;
}

/// RAII entry in the ledger for memory owned elsewhere (a kernel's
/// std::vector, say): construct with its size, resize when it grows.
class LedgerEntry {
 public:
  LedgerEntry() = default;
  LedgerEntry(const char* label, std::uint64_t envId, std::size_t bytes)
      : label_(label), envId_(envId), bytes_(bytes), generation_(ledger().add(envId, bytes)), active_(true) {}
  LedgerEntry(const LedgerEntry&) = delete;
  LedgerEntry& operator=(const LedgerEntry&) = delete;
  LedgerEntry(LedgerEntry&& other) noexcept { *this = std::move(other); }
  LedgerEntry& operator=(LedgerEntry&& other) noexcept {
    if (this != &other) {
      reset();
      label_ = other.label_;
      envId_ = other.envId_;
      bytes_ = other.bytes_;
      generation_ = other.generation_;
      active_ = other.active_;
      other.active_ = false;
    }
    return *this;
  }
  ~LedgerEntry() { reset(); }

  void resize(std::size_t bytes) {
    if (!active_) return;
    ledger().resize(envId_, bytes_, bytes);
    bytes_ = bytes;
  }
  void reset() noexcept {
    if (!active_) return;
    active_ = false;
    ledger().remove(envId_, bytes_, generation_, label_);
  }
  std::size_t bytes() const noexcept { return active_ ? bytes_ : 0; }

 private:
  const char* label_ = "";
  std::uint64_t envId_ = 0;
  std::size_t bytes_ = 0;
  std::uint64_t generation_ = 0;
  bool active_ = false;
};

/// A ledger-tracked array of trivially copyable T, allocated once.
/// Allocation failure throws std::bad_alloc (bindings turn it into a JS error).
template <typename T>
class Buffer {
 public:
  Buffer(const char* label, std::uint64_t envId, std::size_t length)
      : data_(static_cast<T*>(allocate(length))), length_(length), entry_(label, envId, length * sizeof(T)) {}
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() { std::free(data_); }

  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return length_; }
  T& operator[](std::size_t i) noexcept { return data_[i]; }

 private:
  static void* allocate(std::size_t length) {
    if (length > SIZE_MAX / sizeof(T)) throw std::bad_alloc();
    void* p = std::malloc(length == 0 ? 1 : length * sizeof(T));
    if (p == nullptr) throw std::bad_alloc();
    return p;
  }
  T* data_;
  std::size_t length_;
  LedgerEntry entry_;
};

}  // namespace peclet
