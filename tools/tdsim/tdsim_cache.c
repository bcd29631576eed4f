#include "tools/tdsim/tdsim_cache.h"

#include "pub_tool_libcbase.h"
#include "pub_tool_mallocfree.h"

static Bool is_pow2(ULong n) { return n != 0 && (n & (n - 1)) == 0; }

/* Reads a decimal number and the separator after it (',' or the end). */
static Bool read_number(const HChar** text, ULong* value, HChar separator) {
  HChar* end = NULL;
  const Long n = VG_(strtoll10)(*text, &end);
  if (end == *text || n <= 0 || *end != separator) return False;
  *value = (ULong)n;
  *text = separator == '\0' ? end : end + 1;
  return True;
}

const HChar* tdsim_cache_init(TdsimCache* cache, const HChar* spec) {
  ULong bytes = 0, ways = 0, line = 0;
  if (!read_number(&spec, &bytes, ',') || !read_number(&spec, &ways, ',') || !read_number(&spec, &line, '\0')) {
    return "expected BYTES,WAYS,LINE (three positive numbers)";
  }
  if (!is_pow2(line)) return "the line size must be a power of two";
  if (bytes % (ways * line) != 0) return "BYTES must be a multiple of WAYS × LINE";
  if (ways > 1024 || bytes / (ways * line) > (1u << 26)) return "too many ways or sets";
  cache->ways = (UInt)ways;
  cache->sets = (UInt)(bytes / (ways * line));
  cache->sets_pow2 = is_pow2(cache->sets);
  cache->line_bits = 0;
  while ((1ull << cache->line_bits) < line) ++cache->line_bits;
  const SizeT slots = (SizeT)cache->sets * cache->ways;
  cache->lines = VG_(malloc)("tdsim.cache", slots * sizeof(Addr));
  for (SizeT i = 0; i < slots; ++i) cache->lines[i] = ~(Addr)0;  /* no line */
  return NULL;
}
