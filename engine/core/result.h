#pragma once
// A value or an error message, for everything that validates user input.
// (C++20 has no std::expected; this is the small subset the engine needs.)
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

namespace dpmix {

struct Error {
    std::string message;
};

template <typename T>
class [[nodiscard]] Result {
public:
    Result(T value) : data_(std::move(value)) {}          // NOLINT(implicit)
    Result(Error error) : data_(std::move(error)) {}      // NOLINT(implicit)

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
