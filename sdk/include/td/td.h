/* td — per-region Top-Down analysis.
 *
 * Public C interface (C99). Bracket a hotspot with
 *
 *     TD_REGION_BEGIN("multiply");
 *     ...
 *     TD_REGION_END("multiply");
 *
 * and link td (CMake: find_package(td CONFIG) + td::td; or pkg-config td).
 * The runtime starts on first use and writes its reports at normal exit.
 *
 * The macros need a string literal: each call site keeps a small static
 * record that caches the region's id after its first use, so later calls
 * do no string hashing, take no lock and allocate nothing. For names built
 * at run time use td_region_begin_name()/td_region_end_name(), which look
 * the name up on every call.
 *
 * Define TD_NO_INSTRUMENTATION before including this header to compile
 * every marker out; set TD_DISABLE=1 at run time to turn them into a
 * near-free check.
 */
#ifndef TD_TD_H_
#define TD_TD_H_

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define TD_API __attribute__((visibility("default")))
#else
#define TD_API
#endif

/* The two markers are called through the GOT rather than a PLT stub, which
 * is one jump less per call (GCC; other compilers use the PLT). */
#if defined(__has_attribute)
#if __has_attribute(noplt)
#define TD_MARKER_API_ TD_API __attribute__((noplt))
#endif
#endif
#ifndef TD_MARKER_API_
#define TD_MARKER_API_ TD_API
#endif

/* One per marker call site; zero-initialised apart from its first three
 * fields. The runtime owns every other field: do not touch them. */
typedef struct td_site {
  const char* name;
  const char* file;
  int line;
  int region_id_plus_one; /* 0 until the first call registers the name */
  int warned;             /* this site already printed its warning */
} td_site;

/* Nonzero once markers can have no effect (TD_DISABLE=1, or after
 * td_finalize()). The macros test it inline so that a disabled marker costs
 * one load and one branch, not a call. Written only by the runtime. */
TD_API extern int td_markers_off;

TD_MARKER_API_ void td_region_begin(td_site* site);
TD_MARKER_API_ void td_region_end(td_site* site);

/* A region with an integer parameter (a sweep: block size, offset, thread
 * count…): each value is its own region, named "name[value]", and reports
 * show one row per value. The value is looked up per thread with integer
 * hashing; only its first use on a thread builds the name. */
TD_API void td_region_begin_p(td_site* site, long long parameter);
TD_API void td_region_end_p(td_site* site, long long parameter);

/* Dynamic names: hashed on every call. Prefer the macros in loops. A NULL
 * name is ignored (one warning); "" is recorded as "(empty name)". */
TD_API void td_region_begin_name(const char* name);
TD_API void td_region_end_name(const char* name);

/* Hot, tiny regions: read the counters and the clock on one call of region
 * `name` in `every` (the 1st, the every+1st, ...) on each thread, count every
 * call exactly and scale the rest, as TD_SAMPLE=every does for all regions;
 * the report says so. every = 1 reads every call of this region whatever
 * TD_SAMPLE says. Call it before the region is first entered (e.g. at the
 * start of main); later it is ignored with one warning. Parameterised
 * regions "name[value]" follow their name. Ignored under TD_TRACE. */
TD_API void td_region_sample(const char* name, unsigned every);

/* Optional: the runtime initialises itself on first use. */
TD_API void td_init(void);
/* Writes the reports now; idempotent. Later markers are ignored. Safe while
 * other threads are recording: their open regions are reported as
 * unterminated, and their later markers do nothing. */
TD_API void td_finalize(void);
/* 1 while markers are being recorded, 0 when disabled or finalized. */
TD_API int td_is_active(void);
/* Names the program in the reports and in the JSON file's name
 * (td-NAME-PID.json) instead of the process's name: for an interpreter,
 * whose process is python3 or julia, the script's. Any time before the
 * reports are written, from any thread, without starting td; NULL or ""
 * goes back to the process's name. In the file's name, characters other
 * than [A-Za-z0-9._-] become '_', as for any program's name. */
TD_API void td_set_program_name(const char* name);

#ifdef __cplusplus
} /* extern "C" */
#endif

#if defined(TD_NO_INSTRUMENTATION)
#define TD_REGION_BEGIN(name) ((void)0)
#define TD_REGION_END(name) ((void)0)
#define TD_REGION_BEGIN_P(name, parameter) ((void)0)
#define TD_REGION_END_P(name, parameter) ((void)0)
#else
/* A site caches the id of the name it first saw, so a name held in a
 * variable would record every call under that first name: it is refused at
 * compile time, with a message naming the functions for run-time names. */
#define TD_NOT_A_LITERAL_                                                         \
  "td: the region name of TD_REGION_BEGIN, TD_REGION_END and TD_SCOPE must be a " \
  "string literal; for a name held in a variable call td_region_begin_name(name) " \
  "and td_region_end_name(name)"
#if defined(__GNUC__) && defined(__cplusplus)
namespace td {
namespace internal {
template <bool kLiteral>
constexpr int CheckLiteralName() {
  static_assert(kLiteral, TD_NOT_A_LITERAL_);
  return 0;
}
}  // namespace internal
}  // namespace td
#define TD_SITE_NAME_(name) ((void)::td::internal::CheckLiteralName<__builtin_constant_p(name)>(), name)
#define TD_CHECK_NAME_(name) ((void)0)
#elif defined(__GNUC__)
/* "" where the check below fails, so that its message is the only one. */
#define TD_SITE_NAME_(name) __builtin_choose_expr(__builtin_constant_p(name), name, "")
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define TD_CHECK_NAME_(name) _Static_assert(__builtin_constant_p(name), TD_NOT_A_LITERAL_)
#else /* C99: the bit-field's name is the message */
#define TD_CHECK_NAME_(name) \
  (void)sizeof(struct { int td_region_name_must_be_a_string_literal_else_call_td_region_begin_name : \
                        __builtin_constant_p(name) ? 1 : -1; })
#endif
#else
/* The empty literal in front makes any non-literal name a compile error. */
#define TD_SITE_NAME_(name) "" name
#define TD_CHECK_NAME_(name) ((void)0)
#endif
#define TD_SITE_INIT_(name) {TD_SITE_NAME_(name), __FILE__, __LINE__, 0, 0}
#if defined(__GNUC__)
#define TD_MARKERS_ON_() (!__atomic_load_n(&td_markers_off, __ATOMIC_RELAXED))
#else
#define TD_MARKERS_ON_() 1 /* the functions check again */
#endif
#define TD_REGION_BEGIN(name)                                 \
  do {                                                        \
    TD_CHECK_NAME_(name);                                     \
    static td_site td_site_begin_ = TD_SITE_INIT_(name);      \
    if (TD_MARKERS_ON_()) td_region_begin(&td_site_begin_);   \
  } while (0)
#define TD_REGION_END(name)                                   \
  do {                                                        \
    TD_CHECK_NAME_(name);                                     \
    static td_site td_site_end_ = TD_SITE_INIT_(name);        \
    if (TD_MARKERS_ON_()) td_region_end(&td_site_end_);       \
  } while (0)
#define TD_REGION_BEGIN_P(name, parameter)                                      \
  do {                                                                          \
    TD_CHECK_NAME_(name);                                                       \
    static td_site td_site_begin_ = TD_SITE_INIT_(name);                        \
    if (TD_MARKERS_ON_()) td_region_begin_p(&td_site_begin_, (long long)(parameter)); \
  } while (0)
#define TD_REGION_END_P(name, parameter)                                        \
  do {                                                                          \
    TD_CHECK_NAME_(name);                                                       \
    static td_site td_site_end_ = TD_SITE_INIT_(name);                          \
    if (TD_MARKERS_ON_()) td_region_end_p(&td_site_end_, (long long)(parameter)); \
  } while (0)
#endif

#endif /* TD_TD_H_ */
