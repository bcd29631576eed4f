/* tdsim's cache model: set-associative, least recently used replacement,
   allocate on every miss (reads and writes alike), no prefetching. */
#ifndef TD_TOOLS_TDSIM_TDSIM_CACHE_H_
#define TD_TOOLS_TDSIM_TDSIM_CACHE_H_

#include "pub_tool_basics.h"

typedef struct {
  UInt sets;
  UInt ways;
  UInt line_bits;   /* log2 of the line size */
  Bool sets_pow2;   /* index by mask; sysfs may give a set count that is not */
  Addr* lines;      /* sets × ways line numbers, each set most recent first */
} TdsimCache;

/* Sets the cache up from "BYTES,WAYS,LINE"; NULL, or why not. */
const HChar* tdsim_cache_init(TdsimCache* cache, const HChar* spec);

/* Touches line number `line` (address >> line_bits): True on a miss. */
static inline Bool tdsim_cache_miss(TdsimCache* cache, Addr line) {
  const UInt set = cache->sets_pow2 ? (UInt)(line & (cache->sets - 1)) : (UInt)(line % cache->sets);
  Addr* ways = cache->lines + (SizeT)set * cache->ways;
  if (ways[0] == line) return False;
  for (UInt w = 1; w < cache->ways; ++w) {
    if (ways[w] != line) continue;
    for (; w > 0; --w) ways[w] = ways[w - 1];
    ways[0] = line;
    return False;
  }
  for (UInt w = cache->ways - 1; w > 0; --w) ways[w] = ways[w - 1];
  ways[0] = line;
  return True;
}

#endif /* TD_TOOLS_TDSIM_TDSIM_CACHE_H_ */
