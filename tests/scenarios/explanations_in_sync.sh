#!/usr/bin/env bash
# docs/explanations.md is `td explain`'s output; this keeps the two equal.
# Usage: explanations_in_sync.sh TD_TOOL DOC
set -euo pipefail
if ! diff -u "$2" <("$1" explain); then
  echo "docs/explanations.md is stale: regenerate it with 'td explain > docs/explanations.md'" >&2
  exit 1
fi
echo "docs/explanations.md matches td explain"
