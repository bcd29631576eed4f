// One spelling per event, whichever tool printed it.
#ifndef TD_RUNTIME_UARCH_EVENT_NAMES_H_
#define TD_RUNTIME_UARCH_EVENT_NAMES_H_

#include <string>
#include <string_view>

namespace td {

// Lower case; "pmu/NAME,cmask=1,edge/u" -> "name:c1:e", "NAME,umask=0x80"
// and "NAME:u0x080" -> "name:u0x80"; perf's privilege modifiers (":u", ":k",
// ":ukp"…) dropped; td modifiers (":c4", ":e", ":i", ":t", ":u0x80") kept in
// a fixed order; spaces become '_';
// "topdown.slots" -> "slots", "cpu-cycles" -> "cycles".
std::string NormalizeEventName(std::string_view printed);

}  // namespace td

#endif  // TD_RUNTIME_UARCH_EVENT_NAMES_H_
