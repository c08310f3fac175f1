#pragma once
// A value or an error message, for everything that validates user input.
// (C++20 has no std::expected; this is the small subset the engine needs.)
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

namespace dpmix {

struct Error {
    std::string message;
    // The option a validation message is about, as the engine's options name it ("epsilon",
    // "stages", "canary-examples"); the message then begins with it. Empty for other errors.
    // Each front end words it its own way (the CLI: "--epsilon = …"; docs/ARCHITECTURE.md).
    std::string field;
};

/// Success without a value, or the error: the one spelling of "did it work" (an engaged Status
/// is the failure, so `if (auto e = step()) return e;` reads as "on error, pass it on").
using Status = std::optional<Error>;

template <typename T>
class [[nodiscard]] Result {
public:
    Result(T value) : data_(std::move(value)) {}      // NOLINT(implicit)
    Result(Error error) : data_(std::move(error)) {}  // NOLINT(implicit)

    bool ok() const { return std::holds_alternative<T>(data_); }
    explicit operator bool() const { return ok(); }

    const T& value() const& {
        if (!ok()) throw std::logic_error("Result::value() on an error: " + error().message);
        return std::get<T>(data_);
    }
    // A temporary Result hands out its value, not a reference into itself: `for (auto& x :
    // *makeResult())` would otherwise iterate a container destroyed before the loop starts.
    T value() && {
        if (!ok()) throw std::logic_error("Result::value() on an error: " + error().message);
        return std::get<T>(std::move(data_));
    }
    const T& operator*() const& { return value(); }
    T operator*() && { return std::move(*this).value(); }
    const T* operator->() const { return &value(); }
    const Error& error() const { return std::get<Error>(data_); }

private:
    std::variant<T, Error> data_;
};

}  // namespace dpmix
