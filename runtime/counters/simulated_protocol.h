/* What td and its Valgrind tool (tools/tdsim) say to each other: the client
   requests and the order of the counters. Plain C, because the tool is built
   as Valgrind tools are, in C against Valgrind's own headers. Both sides
   include this one file so that a counter can never mean one thing to the
   tool and another to the report. */
#ifndef TD_RUNTIME_COUNTERS_SIMULATED_PROTOCOL_H_
#define TD_RUNTIME_COUNTERS_SIMULATED_PROTOCOL_H_

/* VG_USERREQ_TOOL_BASE('T','D'), spelled out so that td builds without
   valgrind.h: Valgrind routes a request to the tool whose two letters sit in
   the top 16 bits. */
#define TDSIM_REQUEST_BASE 0x54440000u
/* args: buffer of uint64 words, its capacity in words. The tool copies the
   calling thread's counters (at most the capacity) and returns how many
   counters it keeps; 0 means no tdsim answered (not under Valgrind, or
   under another tool). */
#define TDSIM_REQUEST_READ (TDSIM_REQUEST_BASE + 1u)
/* args: buffer of chars, its capacity. The tool writes a NUL-terminated line
   that describes its cache and branch models with the sizes in use, and
   returns the line's length (0: no tdsim). */
#define TDSIM_REQUEST_DESCRIBE (TDSIM_REQUEST_BASE + 2u)

/* The counters, per guest thread, in this order. */
enum TdsimCounter {
  TDSIM_INSTRUCTIONS = 0,   /* guest instructions executed */
  TDSIM_LOADS,              /* memory reads in the IR (an instruction may do several) */
  TDSIM_STORES,             /* memory writes in the IR */
  TDSIM_BRANCHES,           /* conditional branches executed */
  TDSIM_BRANCH_MISSES,      /* of those, the predictor's wrong guesses */
  TDSIM_INDIRECT_BRANCHES,  /* jumps and calls to a computed address (not returns) */
  TDSIM_L1I_MISSES,
  TDSIM_L1D_MISSES,
  TDSIM_LL_MISSES,          /* last-level misses, instruction and data */
  /* IR operations by the width of their values: a floating-point scalar
     (including SSE's lowest-lane arithmetic), a 128-bit vector, a 256-bit
     vector (integer and floating-point SIMD, shuffles and lane moves alike). */
  TDSIM_FP_SCALAR_OPS,
  TDSIM_VECTOR128_OPS,
  TDSIM_VECTOR256_OPS,
  TDSIM_NUM_COUNTERS
};

/* The tool's defaults when td passes no geometry (--l1i, --l1d, --ll):
   bytes, ways, line bytes. */
#define TDSIM_DEFAULT_L1 "32768,8,64"
#define TDSIM_DEFAULT_LL "8388608,16,64"
/* The branch predictor: 2^TDSIM_PREDICTOR_BITS two-bit counters. */
#define TDSIM_PREDICTOR_BITS 14

#endif /* TD_RUNTIME_COUNTERS_SIMULATED_PROTOCOL_H_ */
