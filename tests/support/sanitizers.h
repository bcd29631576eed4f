// Which sanitizers the including file is built with: GCC says so with
// predefined macros, clang with __has_feature. Tests that sanitizers change
// (address-space limits, sizes, descriptors their own checks need) ask here.
#ifndef TD_TESTS_SUPPORT_SANITIZERS_H_
#define TD_TESTS_SUPPORT_SANITIZERS_H_

#if defined(__has_feature)
#define TD_TEST_HAS_FEATURE(feature) __has_feature(feature)
#else
#define TD_TEST_HAS_FEATURE(feature) 0
#endif

namespace td::sanitizers {

#if defined(__SANITIZE_ADDRESS__) || TD_TEST_HAS_FEATURE(address_sanitizer)
inline constexpr bool kAddress = true;
#else
inline constexpr bool kAddress = false;
#endif

#if defined(__SANITIZE_THREAD__) || TD_TEST_HAS_FEATURE(thread_sanitizer)
inline constexpr bool kThread = true;
#else
inline constexpr bool kThread = false;
#endif

// GCC defines no macro for UBSan; CI builds it only together with ASan.
#if TD_TEST_HAS_FEATURE(undefined_behavior_sanitizer)
inline constexpr bool kUndefinedBehavior = true;
#else
inline constexpr bool kUndefinedBehavior = kAddress;
#endif

inline constexpr bool kAny = kAddress || kThread || kUndefinedBehavior;

}  // namespace td::sanitizers

#undef TD_TEST_HAS_FEATURE

#endif  // TD_TESTS_SUPPORT_SANITIZERS_H_
