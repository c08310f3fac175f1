#pragma once
// One line per setter in the validated builders (engine/*/params.h and friends): a setter stores
// its value and returns the builder for chaining, and writing both statements out in each of ~150
// setters made the builders the longest copies in the tree.
#include <utility>

namespace dpmix::core {

/// Stores `value` into `field` and returns `builder`, so a builder's setter reads
/// `Builder& epsilon(double v) { return core::setField(*this, p_.epsilon, v); }`.
template <class Builder, class Field, class Value>
Builder& setField(Builder& builder, Field& field, Value&& value) {
    field = std::forward<Value>(value);
    return builder;
}

}  // namespace dpmix::core
