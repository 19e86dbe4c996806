// File: base/sanitizers.h
//
// ROCKETSTORE_ASAN: 1 when this translation unit is built with AddressSanitizer (GCC's
// __SANITIZE_ADDRESS__ or clang's __has_feature(address_sanitizer)), else 0. For checks
// that only make sense under it, such as net::Connection decoding each frame from its
// own heap copy so that a view kept past its request is reported.
//
// Thread-safety: a macro.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define ROCKETSTORE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ROCKETSTORE_ASAN 1
#endif
#endif
#ifndef ROCKETSTORE_ASAN
#define ROCKETSTORE_ASAN 0
#endif
