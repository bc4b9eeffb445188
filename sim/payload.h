#pragma once
// Payload: the body of a simulated message, any copyable type up to
// kCapacity bytes, stored inline.
//
// The kernel does not know the models' message types, yet must move messages
// through the network without a heap allocation per message. Payload is a
// small type-erased box: the value lives in an inline buffer, and a pointer to
// a per-type manager copies, moves and destroys it. Type checks compare the
// manager pointers for equality only, never their order.
//
// A trivially copyable value (most replies: flags, tokens, times) is copied
// and moved as bytes, inline, without the call through its manager: a
// message is moved several times on its way through the kernel, and that
// call was a large part of what a delivery cost.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

#include "assert.h"

namespace locksim::sim {

class Payload {
 public:
  static constexpr std::size_t kCapacity = 192;

  Payload() = default;

  template <class T, class Value = std::decay_t<T>,
            class = std::enable_if_t<!std::is_same_v<Value, Payload>>>
  Payload(T&& value) {  // NOLINT(google-explicit-constructor): a message body reads naturally as `send(to, Ping{})`
    static_assert(sizeof(Value) <= kCapacity, "message type too large for Payload::kCapacity");
    static_assert(alignof(Value) <= alignof(std::max_align_t), "message type over-aligned");
    static_assert(std::is_nothrow_move_constructible_v<Value>, "message types must move without throwing");
    static_assert(std::is_copy_constructible_v<Value>, "message types must be copyable (the network may duplicate)");
    ::new (static_cast<void*>(storage_)) Value(std::forward<T>(value));
    manager_ = &manage<Value>;
    trivial_size_ = std::is_trivially_copyable_v<Value> ? sizeof(Value) : 0;
  }

  Payload(const Payload& other) { copy_from(other); }
  Payload(Payload&& other) noexcept { move_from(std::move(other)); }
  Payload& operator=(const Payload& other) {
    if (this != &other) {
      reset();
      copy_from(other);
    }
    return *this;
  }
  Payload& operator=(Payload&& other) noexcept {
    if (this != &other) {
      reset();
      move_from(std::move(other));
    }
    return *this;
  }
  ~Payload() { reset(); }

  [[nodiscard]] bool empty() const { return manager_ == nullptr; }

  template <class T>
  [[nodiscard]] bool holds() const {
    return manager_ == &manage<T>;
  }

  // The value if it is a T, else nullptr.
  template <class T>
  [[nodiscard]] const T* get_if() const {
    return holds<T>() ? std::launder(reinterpret_cast<const T*>(storage_)) : nullptr;
  }
  template <class T>
  [[nodiscard]] T* get_if() {
    return holds<T>() ? std::launder(reinterpret_cast<T*>(storage_)) : nullptr;
  }

  // The value. Requires holds<T>(): a mismatch is a bug in a model.
  template <class T>
  [[nodiscard]] const T& get() const {
    const T* value = get_if<T>();
    LOCKSIM_ASSERT(value != nullptr, "message payload has a different type");
    return *value;
  }

  void reset() {
    if (manager_ != nullptr && trivial_size_ == 0) {
      manager_(Operation::kDestroy, this, nullptr);
    }
    manager_ = nullptr;
  }

 private:
  enum class Operation { kCopy, kMove, kDestroy };
  using Manager = void (*)(Operation, Payload* self, Payload* source);

  template <class T>
  static void manage(Operation operation, Payload* self, Payload* source) {
    switch (operation) {
      case Operation::kCopy:
        ::new (static_cast<void*>(self->storage_)) T(*std::launder(reinterpret_cast<const T*>(source->storage_)));
        break;
      case Operation::kMove:
        ::new (static_cast<void*>(self->storage_)) T(std::move(*std::launder(reinterpret_cast<T*>(source->storage_))));
        std::launder(reinterpret_cast<T*>(source->storage_))->~T();
        break;
      case Operation::kDestroy:
        std::launder(reinterpret_cast<T*>(self->storage_))->~T();
        break;
    }
  }

  // Values up to this size are copied as this many bytes: a copy of constant
  // size compiles to a few moves, where one of the value's size calls memcpy.
  static constexpr std::size_t kSmallValueBytes = 32;

  // Copies (or moves) the value of `other` into this empty Payload. A byte
  // copy creates the object: the value is trivially copyable.
  void copy_bytes_or_call(const Payload& other, Operation operation) {
    if (other.trivial_size_ != 0 && other.trivial_size_ <= kSmallValueBytes) {
      std::memcpy(storage_, other.storage_, kSmallValueBytes);
    } else if (other.trivial_size_ != 0) {
      std::memcpy(storage_, other.storage_, other.trivial_size_);
    } else {
      other.manager_(operation, this, const_cast<Payload*>(&other));
    }
    manager_ = other.manager_;
    trivial_size_ = other.trivial_size_;
  }
  void copy_from(const Payload& other) {
    if (other.manager_ != nullptr) {
      copy_bytes_or_call(other, Operation::kCopy);
    }
  }
  void move_from(Payload&& other) {
    if (other.manager_ != nullptr) {
      copy_bytes_or_call(other, Operation::kMove);
      other.manager_ = nullptr;
    }
  }

  alignas(std::max_align_t) std::byte storage_[kCapacity];
  Manager manager_ = nullptr;
  std::uint32_t trivial_size_ = 0;  // sizeof the value if it is trivially copyable, else 0 (use manager_)
};

}  // namespace locksim::sim
