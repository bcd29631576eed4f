// PAPI_EVENTS / LIKWID_EVENTS -> TD_EVENTS (compat_events.cc).
#ifndef TD_BINDINGS_COMMON_COMPAT_EVENTS_H_
#define TD_BINDINGS_COMMON_COMPAT_EVENTS_H_

#include <string>
#include <vector>

namespace td::compat {

struct Translation {
  std::vector<std::string> events;   // td spellings, each once, in the order given
  std::vector<std::string> ignored;  // items with no td equivalent, as given
};

Translation TranslatePapiEvents(const std::string& value);
Translation TranslateLikwidEvents(const std::string& value);

}  // namespace td::compat

#endif  // TD_BINDINGS_COMMON_COMPAT_EVENTS_H_
