#pragma once
/// \file
/// Structured errors of the pnm kernel: which argument is at fault and why,
/// mapped by the binding to a JavaScript TypeError (Type) or RangeError (Range).

#include <stdexcept>
#include <string>

namespace peclet::pnm {

enum class ErrorKind { Type, Range };

/// Thrown for invalid input; allocation failure is not wrapped (std::bad_alloc).
class PnmError : public std::runtime_error {
 public:
  PnmError(ErrorKind kind, std::string argument, const std::string& message)
      : std::runtime_error(argument + ": " + message), kind_(kind), argument_(std::move(argument)), message_(message) {}
  ErrorKind kind() const noexcept { return kind_; }
  /// The argument or option at fault, in the public API's words.
  const std::string& argument() const noexcept { return argument_; }
  /// What is wrong, as a sentence without the argument name.
  const std::string& detail() const noexcept { return message_; }

 private:
  ErrorKind kind_;
  std::string argument_;
  std::string message_;
};

[[noreturn]] inline void rangeError(const std::string& argument, const std::string& message) {
  throw PnmError(ErrorKind::Range, argument, message);
}

}  // namespace peclet::pnm
