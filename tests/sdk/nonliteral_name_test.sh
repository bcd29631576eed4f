#!/usr/bin/env bash
# TD_REGION_BEGIN/END and TD_SCOPE with a name held in a variable: the compiler
# stops with td's one message, which names td_region_begin_name() (not a bare
# "expected '}'"), in C11, C99 and C++; literal names still compile cleanly
# with every warning an error.
# Usage: nonliteral_name_test.sh CC CXX SDK_INCLUDE_DIR
set -euo pipefail
cc=$1 cxx=$2 include=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cat >"$work/variable.c" <<'C'
#include "td/td.h"
void step(const char* name) {
  TD_REGION_BEGIN(name);
  TD_REGION_END(name);
}
C
cp "$work/variable.c" "$work/variable.cc"
cat >"$work/scope.cc" <<'C'
#include "td/td.hpp"
void step(const char* name) { TD_SCOPE(name); }
C
cat >"$work/literal.c" <<'C'
#include "td/td.h"
#define NAME "copy"
void step(int i) {
  TD_REGION_BEGIN("multiply");
  TD_REGION_END("multiply");
  TD_REGION_BEGIN(NAME);
  TD_REGION_END(NAME);
  TD_REGION_BEGIN_P("sweep", i);
  TD_REGION_END_P("sweep", i);
}
C
cp "$work/literal.c" "$work/literal.cc"
cat >>"$work/literal.cc" <<'C'
#include "td/td.hpp"
void scoped(int i) { TD_SCOPE("a"); { TD_SCOPE_P("b", i); } }
C

message="the region name of TD_REGION_BEGIN, TD_REGION_END and TD_SCOPE must be a string literal; for a name held in a variable call td_region_begin_name(name) and td_region_end_name(name)"
# refused COMPILER FLAGS… FILE EXPECTED: compiling fails, every error line is EXPECTED.
refused() {
  local expected=${*: -1} log="$work/log"
  if "${@:1:$#-1}" -I"$include" -c -o "$work/out.o" >"$log" 2>&1; then fail "$* compiled"; fi
  local errors
  errors=$(grep ' error: ' "$log" || true)
  [ -n "$errors" ] || { cat "$log" >&2; fail "$*: no error line"; }
  if grep ' error: ' "$log" | grep -vqF -- "$expected"; then cat "$log" >&2; fail "$*: an error other than td's"; fi
}
refused "$cc" -std=c11 "$work/variable.c" "$message"
refused "$cc" -std=gnu17 "$work/variable.c" "$message"
refused "$cxx" -std=c++11 "$work/variable.cc" "$message"
refused "$cxx" -std=c++20 "$work/scope.cc" "$message"
# C99 has no _Static_assert: the bit-field that fails is named for the message.
refused "$cc" -std=c99 "$work/variable.c" "td_region_name_must_be_a_string_literal_else_call_td_region_begin_name"
[ "$(grep -c ' error: ' "$work/log")" -eq 2 ] || fail "C99: expected one error per marker"

for std in c99 c11; do
  "$cc" -std=$std -Wall -Wextra -pedantic -Werror -I"$include" -c "$work/literal.c" -o "$work/out.o" ||
    fail "literal names under -std=$std"
done
for std in c++11 c++20; do
  "$cxx" -std=$std -Wall -Wextra -pedantic -Werror -I"$include" -c "$work/literal.cc" -o "$work/out.o" ||
    fail "literal names under -std=$std"
done
echo "a non-literal name is refused with td's message in C11, C99 and C++; literals compile cleanly"
