// File: testing/xorshift.h
//
// XorShift64: the small deterministic generator the randomised tests share (Marsaglia's
// xorshift64, shifts 13/7/17). A fixed seed gives the same sequence on every run and
// machine, so a failing iteration repeats. Not for anything but tests.
//
// Thread-safety: a value type; no internal synchronisation.
#pragma once

#include <cstdint>

namespace rocketstore::testing {

class XorShift64 {
 public:
  // `seed` must not be 0 (the generator would stay at 0).
  explicit XorShift64(uint64_t seed) : state_(seed) {}
  uint64_t operator()() {
    state_ ^= state_ << 13;
    state_ ^= state_ >> 7;
    state_ ^= state_ << 17;
    return state_;
  }

 private:
  uint64_t state_;
};

}  // namespace rocketstore::testing
