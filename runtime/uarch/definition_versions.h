// Two versions of one key's formulas in one tree: a newer vendor tree
// (`td import-metrics --supersede`) laid over td's own definitions of the key.
// The newer formula of a node comes first; the older one stays behind it as a
// fallback, so a recording made with the older formula's events still gets
// that formula's value, labelled with its version.
#ifndef TD_RUNTIME_UARCH_DEFINITION_VERSIONS_H_
#define TD_RUNTIME_UARCH_DEFINITION_VERSIONS_H_

#include <string>
#include <vector>

#include "runtime/uarch/definitions.h"

namespace td {

// Lays `newer` over `older` (both of one key). A newer entry whose name, or
// one of whose former names, is an older entry's name takes that entry's
// place: its alternatives first, then the older ones, which say
// `older_version`; a renamed node's older descendants move under its new name
// and keep the old one as a former name. Older tree nodes the newer tree does
// not hold stay, their formulas labelled `older_version`.
void LayNewerFormulas(std::vector<FormulaDefinition> newer, const std::string& older_version,
                      std::vector<FormulaDefinition>* older);

}  // namespace td

#endif  // TD_RUNTIME_UARCH_DEFINITION_VERSIONS_H_
