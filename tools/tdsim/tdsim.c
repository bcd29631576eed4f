/* tdsim: td's Valgrind tool. It counts, per guest thread, what a PMU would
   count but exactly and the same on every run: instructions, loads, stores,
   conditional and indirect branches, the misses of a simple branch predictor
   and of LRU instruction, data and last-level caches. td reads a thread's
   counters with a client request at every region marker (TD_BACKEND=simulate,
   runtime/counters/simulated_backend.cc); docs/simulate.md describes the
   models. Valgrind runs one guest thread at a time, so the caches and the
   predictor are one shared model, and the counters of the running thread
   live in one global array that the instrumented code bumps directly. */
#include "pub_tool_basics.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_vki.h"
#include "valgrind.h"

#include "runtime/counters/simulated_protocol.h"
#include "tools/tdsim/tdsim_cache.h"

/* The running thread's counters. The instrumentation adds to these words by
   address, which is why they are not reached through a per-thread pointer;
   a thread switch swaps them with the thread's saved copy. */
static ULong running[TDSIM_NUM_COUNTERS];
static ThreadId running_tid = VG_INVALID_THREADID;
static ULong (*saved)[TDSIM_NUM_COUNTERS];  /* VG_N_THREADS rows */

static const HChar* clo_l1i = TDSIM_DEFAULT_L1;
static const HChar* clo_l1d = TDSIM_DEFAULT_L1;
static const HChar* clo_ll = TDSIM_DEFAULT_LL;
static TdsimCache l1i, l1d, ll;

/* Two-bit saturating counters (0, 1: predict not taken; 2, 3: taken),
   indexed by the low bits of the branch's address. */
static UChar predictor[1u << TDSIM_PREDICTOR_BITS];

static void switch_to(ThreadId tid, ULong blocks_dispatched) {
  (void)blocks_dispatched;
  if (tid == running_tid) return;
  if (running_tid != VG_INVALID_THREADID) VG_(memcpy)(saved[running_tid], running, sizeof running);
  VG_(memcpy)(running, saved[tid], sizeof running);
  running_tid = tid;
}

/* A ThreadId is reused once its thread has gone: the new thread starts at 0. */
static void thread_created(ThreadId parent, ThreadId child) {
  (void)parent;
  VG_(memset)(saved[child], 0, sizeof saved[child]);
  if (child == running_tid) VG_(memset)(running, 0, sizeof running);
}

/* One data access: every line it touches goes to L1D, L1D's misses to LL. */
static void data_access(Addr addr, UWord size) {
  if (size == 0) return;
  const Addr first = addr >> l1d.line_bits;
  const Addr last = (addr + size - 1) >> l1d.line_bits;
  for (Addr line = first; line <= last; ++line) {
    if (!tdsim_cache_miss(&l1d, line)) continue;
    ++running[TDSIM_L1D_MISSES];
    if (tdsim_cache_miss(&ll, (line << l1d.line_bits) >> ll.line_bits)) ++running[TDSIM_LL_MISSES];
  }
}

static VG_REGPARM(2) void on_load(Addr addr, UWord size) {
  ++running[TDSIM_LOADS];
  data_access(addr, size);
}

static VG_REGPARM(2) void on_store(Addr addr, UWord size) {
  ++running[TDSIM_STORES];
  data_access(addr, size);
}

/* An instruction fetch of the lines [addr, addr + size). */
static VG_REGPARM(2) void on_fetch(Addr addr, UWord size) {
  const Addr first = addr >> l1i.line_bits;
  const Addr last = (addr + size - 1) >> l1i.line_bits;
  for (Addr line = first; line <= last; ++line) {
    if (!tdsim_cache_miss(&l1i, line)) continue;
    ++running[TDSIM_L1I_MISSES];
    if (tdsim_cache_miss(&ll, (line << l1i.line_bits) >> ll.line_bits)) ++running[TDSIM_LL_MISSES];
  }
}

/* `exit_taken` is the IR exit's guard; `inverted` says the exit leads to the
   guest instruction's fall-through (VEX may flip a branch's sense), so the
   guest branch was taken when the exit was not. */
static VG_REGPARM(3) void on_branch(Addr pc, UWord exit_taken, UWord inverted) {
  const Bool taken = (exit_taken != 0) != (inverted != 0);
  UChar* counter = &predictor[pc & ((1u << TDSIM_PREDICTOR_BITS) - 1)];
  ++running[TDSIM_BRANCHES];
  if ((*counter >= 2) != taken) ++running[TDSIM_BRANCH_MISSES];
  if (taken && *counter < 3) ++*counter;
  if (!taken && *counter > 0) --*counter;
}

static Bool is_float(IRType t) {
  return t == Ity_F16 || t == Ity_F32 || t == Ity_F64 || t == Ity_F128 || t == Ity_D32 || t == Ity_D64 ||
         t == Ity_D128;
}

/* The width counter an IR operation adds to, or TDSIM_NUM_COUNTERS. SSE's
   scalar arithmetic (addsd, sqrtss, ...) is a V128 operation on the lowest
   lane in the IR: it counts as the scalar it is. */
static enum TdsimCounter width_of(IROp op) {
  if ((op >= Iop_Add32F0x4 && op <= Iop_RSqrtEst32F0x4) || (op >= Iop_Add64F0x2 && op <= Iop_Sqrt64F0x2)) {
    return TDSIM_FP_SCALAR_OPS;
  }
  IRType types[5];
  typeOfPrimop(op, &types[0], &types[1], &types[2], &types[3], &types[4]);
  Bool v256 = False, v128 = False, fp = False;
  for (Int k = 0; k < 5; ++k) {
    v256 |= types[k] == Ity_V256;
    v128 |= types[k] == Ity_V128;
    fp |= is_float(types[k]);
  }
  return v256 ? TDSIM_VECTOR256_OPS : v128 ? TDSIM_VECTOR128_OPS : fp ? TDSIM_FP_SCALAR_OPS : TDSIM_NUM_COUNTERS;
}

/* The operation an IR expression applies, or Iop_INVALID. */
static IROp op_of(const IRExpr* e) {
  switch (e->tag) {
    case Iex_Unop: return e->Iex.Unop.op;
    case Iex_Binop: return e->Iex.Binop.op;
    case Iex_Triop: return e->Iex.Triop.details->op;
    case Iex_Qop: return e->Iex.Qop.details->op;
    default: return Iop_INVALID;
  }
}

/* Adds `amount` to running[which] inline: cheaper than a helper call for
   counts known when translating. */
static void add_count(IRSB* out, enum TdsimCounter which, ULong amount) {
  if (amount == 0) return;
  IRExpr* where = mkIRExpr_HWord((HWord)&running[which]);
  IRTemp old = newIRTemp(out->tyenv, Ity_I64);
  IRTemp sum = newIRTemp(out->tyenv, Ity_I64);
  addStmtToIRSB(out, IRStmt_WrTmp(old, IRExpr_Load(Iend_LE, Ity_I64, where)));
  addStmtToIRSB(out, IRStmt_WrTmp(sum, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(old), IRExpr_Const(IRConst_U64(amount)))));
  addStmtToIRSB(out, IRStmt_Store(Iend_LE, where, IRExpr_RdTmp(sum)));
}

/* Adds what `pending` holds and clears it. */
static void add_pending(IRSB* out, ULong* pending) {
  for (Int k = 0; k < TDSIM_NUM_COUNTERS; ++k) {
    add_count(out, (enum TdsimCounter)k, pending[k]);
    pending[k] = 0;
  }
}

/* A call of `fn` with (addr, size), only when `guard` holds (NULL: always). */
static void add_access(IRSB* out, const HChar* name, void* fn, IRExpr* addr, Int size, IRExpr* guard) {
  IRDirty* call = unsafeIRDirty_0_N(2, name, VG_(fnptr_to_fnentry)(fn),
                                    mkIRExprVec_2(addr, mkIRExpr_HWord((HWord)size)));
  if (guard != NULL) call->guard = guard;
  addStmtToIRSB(out, IRStmt_Dirty(call));
}

#define ADD_LOAD(out, addr, size, guard) add_access(out, "tdsim_load", on_load, addr, size, guard)
#define ADD_STORE(out, addr, size, guard) add_access(out, "tdsim_store", on_store, addr, size, guard)

static IRSB* instrument(VgCallbackClosure* closure, IRSB* in, const VexGuestLayout* layout,
                        const VexGuestExtents* extents, const VexArchInfo* host, IRType guest_word,
                        IRType host_word) {
  (void)closure; (void)layout; (void)extents; (void)host; (void)host_word;
  if (guest_word != Ity_I64) VG_(tool_panic)("tdsim: 64-bit guests only");
  IRSB* out = deepCopyIRSBExceptStmts(in);
  Int i = 0;
  for (; i < in->stmts_used && in->stmts[i]->tag != Ist_IMark; ++i) addStmtToIRSB(out, in->stmts[i]);

  /* Counts known when translating (instructions, operations by width) are
     added in bulk wherever control may leave: before each side exit and at
     the end, so a count never includes an instruction that did not run. */
  ULong pending[TDSIM_NUM_COUNTERS] = {0};
  Addr pc = 0;
  UInt length = 0;
  Addr last_fetched_line = ~(Addr)0;
  for (; i < in->stmts_used; ++i) {
    IRStmt* st = in->stmts[i];
    switch (st->tag) {
      case Ist_IMark: {
        ++pending[TDSIM_INSTRUCTIONS];
        pc = st->Ist.IMark.addr;
        length = st->Ist.IMark.len;
        /* Within a superblock, an instruction on the line the previous one
           was fetched from always hits and changes no LRU order (only data
           accesses ran in between, and they do not touch L1I): skip it. */
        const Addr first = pc >> l1i.line_bits;
        const Addr last = (pc + (length ? length : 1) - 1) >> l1i.line_bits;
        if (first != last_fetched_line || last != first) {
          add_access(out, "tdsim_fetch", on_fetch, mkIRExpr_HWord(pc), length ? length : 1, NULL);
        }
        last_fetched_line = last;
        addStmtToIRSB(out, st);
        break;
      }
      case Ist_WrTmp:
        if (op_of(st->Ist.WrTmp.data) != Iop_INVALID) {
          const enum TdsimCounter width = width_of(op_of(st->Ist.WrTmp.data));
          if (width != TDSIM_NUM_COUNTERS) ++pending[width];
        }
        if (st->Ist.WrTmp.data->tag == Iex_Load) {
          const IRExpr* load = st->Ist.WrTmp.data;
          ADD_LOAD(out, load->Iex.Load.addr, sizeofIRType(load->Iex.Load.ty), NULL);
        }
        addStmtToIRSB(out, st);
        break;
      case Ist_Store:
        ADD_STORE(out, st->Ist.Store.addr, sizeofIRType(typeOfIRExpr(in->tyenv, st->Ist.Store.data)), NULL);
        addStmtToIRSB(out, st);
        break;
      case Ist_StoreG: {
        const IRStoreG* g = st->Ist.StoreG.details;
        ADD_STORE(out, g->addr, sizeofIRType(typeOfIRExpr(in->tyenv, g->data)), g->guard);
        addStmtToIRSB(out, st);
        break;
      }
      case Ist_LoadG: {
        const IRLoadG* g = st->Ist.LoadG.details;
        IRType loaded = Ity_INVALID, widened = Ity_INVALID;
        typeOfIRLoadGOp(g->cvt, &widened, &loaded);
        ADD_LOAD(out, g->addr, sizeofIRType(loaded), g->guard);
        addStmtToIRSB(out, st);
        break;
      }
      case Ist_CAS: {
        /* A compare-and-swap reads, and writes when it succeeds; counted as
           both, like the locked instruction it comes from. */
        const IRCAS* cas = st->Ist.CAS.details;
        const Int size = sizeofIRType(typeOfIRExpr(in->tyenv, cas->dataLo)) * (cas->dataHi != NULL ? 2 : 1);
        ADD_LOAD(out, cas->addr, size, NULL);
        ADD_STORE(out, cas->addr, size, NULL);
        addStmtToIRSB(out, st);
        break;
      }
      case Ist_Dirty: {
        /* Helpers that touch guest memory (x87 state, cpuid leaves...) say
           where and how much. */
        const IRDirty* d = st->Ist.Dirty.details;
        if (d->mFx == Ifx_Read || d->mFx == Ifx_Modify) ADD_LOAD(out, d->mAddr, d->mSize, NULL);
        if (d->mFx == Ifx_Write || d->mFx == Ifx_Modify) ADD_STORE(out, d->mAddr, d->mSize, NULL);
        addStmtToIRSB(out, st);
        break;
      }
      case Ist_Exit: {
        add_pending(out, pending);
        if (st->Ist.Exit.jk == Ijk_Boring) {
          const Addr target = (Addr)st->Ist.Exit.dst->Ico.U64;
          IRTemp taken = newIRTemp(out->tyenv, Ity_I64);
          addStmtToIRSB(out, IRStmt_WrTmp(taken, IRExpr_Unop(Iop_1Uto64, st->Ist.Exit.guard)));
          IRDirty* call = unsafeIRDirty_0_N(
              3, "tdsim_branch", VG_(fnptr_to_fnentry)(on_branch),
              mkIRExprVec_3(mkIRExpr_HWord(pc), IRExpr_RdTmp(taken), mkIRExpr_HWord(target == pc + length)));
          addStmtToIRSB(out, IRStmt_Dirty(call));
        }
        addStmtToIRSB(out, st);
        break;
      }
      default:  /* Ist_LLSC is load-linked/store-conditional, which amd64 has not */
        addStmtToIRSB(out, st);
        break;
    }
  }
  add_pending(out, pending);
  if (in->next->tag != Iex_Const && (in->jumpkind == Ijk_Boring || in->jumpkind == Ijk_Call)) {
    add_count(out, TDSIM_INDIRECT_BRANCHES, 1);
  }
  return out;
}

static Bool client_request(ThreadId tid, UWord* args, UWord* ret) {
  if (!VG_IS_TOOL_USERREQ('T', 'D', args[0])) return False;
  switch (args[0]) {
    case TDSIM_REQUEST_READ: {
      const UWord words = args[2] < TDSIM_NUM_COUNTERS ? args[2] : TDSIM_NUM_COUNTERS;
      /* td passes its own buffer, but a bad pointer must not bring the
         program down: then the answer is "nothing copied". */
      if (words != 0 && !VG_(am_is_valid_for_client)(args[1], words * sizeof(ULong), VKI_PROT_WRITE)) {
        *ret = 0;
        return True;
      }
      const ULong* source = tid == running_tid ? running : saved[tid];
      VG_(memcpy)((void*)args[1], source, words * sizeof(ULong));
      *ret = TDSIM_NUM_COUNTERS;
      return True;
    }
    case TDSIM_REQUEST_DESCRIBE: {
      HChar line[512];
      VG_(snprintf)(line, sizeof line,
                    "Valgrind tdsim: LRU caches L1I %s, L1D %s, LL %s (bytes,ways,line; LL unified, fed by L1 misses); "
                    "branch predictor: %u two-bit counters indexed by the branch address",
                    clo_l1i, clo_l1d, clo_ll, 1u << TDSIM_PREDICTOR_BITS);
      const UWord length = VG_(strlen)(line);
      if (args[2] <= length || !VG_(am_is_valid_for_client)(args[1], length + 1, VKI_PROT_WRITE)) {
        *ret = 0;
        return True;
      }
      VG_(memcpy)((void*)args[1], line, length + 1);
      *ret = length;
      return True;
    }
    default:
      return False;
  }
}

static Bool process_option(const HChar* arg) {
  if VG_STR_CLO(arg, "--l1i", clo_l1i) {
  } else if VG_STR_CLO(arg, "--l1d", clo_l1d) {
  } else if VG_STR_CLO(arg, "--ll", clo_ll) {
  } else {
    return False;
  }
  return True;
}

static void print_usage(void) {
  VG_(printf)("    --l1i=BYTES,WAYS,LINE     L1 instruction cache [%s]\n"
              "    --l1d=BYTES,WAYS,LINE     L1 data cache [%s]\n"
              "    --ll=BYTES,WAYS,LINE      last-level cache [%s]\n",
              TDSIM_DEFAULT_L1, TDSIM_DEFAULT_L1, TDSIM_DEFAULT_LL);
}

static void print_debug_usage(void) { VG_(printf)("    (none)\n"); }

static void setup_cache(TdsimCache* cache, const HChar* option, const HChar* spec) {
  const HChar* error = tdsim_cache_init(cache, spec);
  if (error != NULL) VG_(fmsg_bad_option)(option, "%s: %s\n", spec, error);
}

static void post_clo_init(void) {
  setup_cache(&l1i, "--l1i", clo_l1i);
  setup_cache(&l1d, "--l1d", clo_l1d);
  setup_cache(&ll, "--ll", clo_ll);
  saved = VG_(calloc)("tdsim.threads", VG_N_THREADS, sizeof saved[0]);
  VG_(memset)(predictor, 1, sizeof predictor);  /* weakly not taken */
}

static void fini(Int exit_code) { (void)exit_code; }

static void pre_clo_init(void) {
  VG_(details_name)("tdsim");
  VG_(details_version)("0.1");
  VG_(details_description)("td's simulated counters: instructions, branches, caches");
  VG_(details_copyright_author)("td authors");
  VG_(details_bug_reports_to)("td's issue tracker");
  VG_(details_avg_translation_sizeB)(400);
  VG_(basic_tool_funcs)(post_clo_init, instrument, fini);
  VG_(needs_command_line_options)(process_option, print_usage, print_debug_usage);
  VG_(needs_client_requests)(client_request);
  VG_(track_start_client_code)(switch_to);
  VG_(track_pre_thread_ll_create)(thread_created);
}

VG_DETERMINE_INTERFACE_VERSION(pre_clo_init)
