// An argument error raised by a plain C++ kernel (no Node-API in it): which
// argument is at fault, which element, and why. A binding that lets it escape
// through a peclet::Object method, peclet::Function or peclet::guard gets the
// TypeError or RangeError that throwArgumentError (args.hpp) makes, with the
// same `argument` and `index` properties; a C++ test catches it as is.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace peclet {

class KernelArgumentError : public std::invalid_argument {
 public:
  KernelArgumentError(bool isType, std::string argument, std::int64_t index, const std::string& detail)
      : std::invalid_argument(argument + ": " + detail),
        isType_(isType),
        argument_(std::move(argument)),
        index_(index),
        detail_(detail) {}
  /// TypeError (true) or RangeError (false).
  bool isType() const noexcept { return isType_; }
  /// The argument or option at fault, in the public API's words.
  const std::string& argument() const noexcept { return argument_; }
  /// The element at fault, or -1.
  std::int64_t index() const noexcept { return index_; }
  /// What is wrong, as a sentence without the argument name.
  const std::string& detail() const noexcept { return detail_; }

 private:
  bool isType_;
  std::string argument_;
  std::int64_t index_;
  std::string detail_;
};

/// Throws a KernelArgumentError that becomes a RangeError in JS.
[[noreturn]] inline void kernelRangeError(const std::string& argument, const std::string& detail,
                                          std::int64_t index = -1) {
  throw KernelArgumentError(false, argument, index, detail);
}

/// Throws a KernelArgumentError that becomes a TypeError in JS.
[[noreturn]] inline void kernelTypeError(const std::string& argument, const std::string& detail,
                                         std::int64_t index = -1) {
  throw KernelArgumentError(true, argument, index, detail);
}

}  // namespace peclet
