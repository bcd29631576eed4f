/* A library the fault app loads and unloads (dlclose) while the region it
 * began is still open: td must not read the marker's record, which went
 * with the library. */
#include <td/td.h>

void fault_plugin_begin(void) { TD_REGION_BEGIN("plugin"); }
void fault_plugin_nested(void) { TD_REGION_BEGIN("plugin_inner"); }
