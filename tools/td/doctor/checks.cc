#include "tools/td/doctor/checks.h"

#include <errno.h>

#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "runtime/counters/availability.h"

namespace td::doctor {
namespace {

constexpr char kParanoidLift[] =
    "sudo sysctl -w kernel.perf_event_paranoid=2   (own threads, user space; 1 adds kernel time; "
    "persist it in /etc/sysctl.d/)";
constexpr char kContainerLift[] =
    "in a container: docker/podman run --cap-add PERFMON (kernel 5.8 or later; before: --cap-add SYS_ADMIN), "
    "or a seccomp profile that allows perf_event_open";
constexpr char kVmLift[] =
    "a virtual machine: the host must offer a virtual PMU (QEMU/KVM: -cpu host,pmu=on; libvirt: <pmu "
    "state='on'/>; VMware: \"virtualize CPU performance counters\"; clouds: an instance type that passes "
    "the PMU through, often bare-metal or whole-host sizes)";

bool HasCorePmu(const Facts& f) {
  for (const SysfsPmu& p : f.pmus) {
    if (p.kind == "core") return true;
  }
  return false;
}

bool PermissionError(int err) { return err == EACCES || err == EPERM; }

std::string HypervisorName(const Facts& f) {
  const std::string& s = f.hypervisor_signature;
  if (s == "KVMKVMKVM") return "KVM";
  if (s == "Microsoft Hv") return "Hyper-V";
  if (s == "VMwareVMware") return "VMware";
  if (s == "XenVMMXenVMM") return "Xen";
  if (s.rfind("TCGTCGTCG", 0) == 0) return "QEMU (emulated)";
  if (s == "ACRNACRNACRN") return "ACRN";
  return s.empty() ? "a hypervisor" : "\"" + s + "\"";
}

Finding Cpu(const Facts& f) {
  Finding r{"cpu", State::kOk, "", {}, {}};
  const MachineInfo& m = f.machine;
  r.summary = absl::StrFormat("%s (%s family %d model %d stepping %d): key %s%s", m.cpu_model_name,
                              m.cpu_vendor, m.cpu_family, m.cpu_model, m.cpu_stepping, f.uarch,
                              f.tma_version.empty() ? "" : ", TMA " + f.tma_version);
  if (f.uarch == "generic" || f.uarch.empty()) {
    r.state = State::kLimited;
    r.details.push_back(
        "td has no Top-Down definitions for this model: it computes Level 1 from the kernel's generic "
        "topdown events where they exist");
    r.lift.push_back("TD_UARCH=KEY when this CPU is a variant of one td knows (td uarchs lists them)");
    r.lift.push_back("td import-metrics with perf's metric files for this CPU");
  }
  return r;
}

Finding Hypervisor(const Facts& f) {
  Finding r{"hypervisor", State::kInfo, "", {}, {}};
  if (!f.hypervisor) {
    r.summary = "none seen (bare metal, or a hypervisor that hides itself)";
    return r;
  }
  r.summary = "a virtual machine under " + HypervisorName(f) +
              ": the host decides which counters and events the guest sees";
  return r;
}

Finding PerfEvents(const Facts& f) {
  Finding r{"perf_events", State::kOk, "perf_event_open works (task-clock opened)", {}, {}};
  if (f.software_errno == 0) return r;
  r.state = State::kBlocked;
  const int err = f.software_errno;
  if (err == ENOSYS) {
    r.summary = "perf_event_open is missing (ENOSYS): a kernel without perf events, or a seccomp filter";
    r.lift.push_back(kContainerLift);
  } else if (PermissionError(err) && f.paranoid >= 3 && !f.privileged) {
    r.summary = absl::StrFormat("perf_event_open refused (%s): kernel.perf_event_paranoid=%d forbids it",
                                ErrnoName(err), f.paranoid);
    r.lift.push_back(kParanoidLift);
    r.lift.push_back("or give the program CAP_PERFMON: sudo setcap cap_perfmon+ep PROGRAM");
  } else if (PermissionError(err)) {
    r.summary = absl::StrFormat(
        "perf_event_open refused (%s) although kernel.perf_event_paranoid=%d allows it: a seccomp filter "
        "(a container's default profile) blocks the call",
        ErrnoName(err), f.paranoid);
    r.lift.push_back(kContainerLift);
  } else {
    r.summary = absl::StrFormat("perf_event_open(task-clock) failed with %s", ErrnoName(err));
  }
  r.details.push_back("without it td measures wall time and calls only");
  return r;
}

Finding Paranoid(const Facts& f) {
  Finding r{"paranoid", State::kOk, "", {}, {}};
  const int p = f.paranoid;
  std::string allows;
  if (p < 0 && p != -1) {
    allows = "unreadable";
  } else if (p == -1) {
    allows = "everything, for every user";
  } else if (p == 0) {
    allows = "own threads with kernel time, and CPU-wide counting (memory controllers)";
  } else if (p == 1) {
    allows = "own threads with kernel time; no CPU-wide counting without CAP_PERFMON";
  } else if (p == 2) {
    allows = "own threads, user space only: time in system calls is not in the tree";
  } else {
    allows = "nothing for unprivileged users";
  }
  r.summary = absl::StrFormat("kernel.perf_event_paranoid=%d: %s", p, allows);
  if (f.privileged) {
    r.details.push_back("this process holds CAP_PERFMON or CAP_SYS_ADMIN: the setting does not limit it");
    return r;
  }
  if (p >= 3) {
    r.state = State::kBlocked;
    r.lift.push_back(kParanoidLift);
  } else if (p == 2) {
    r.state = State::kInfo;
  }
  return r;
}

Finding Seccomp(const Facts& f) {
  Finding r{"seccomp", State::kOk, "", {}, {}};
  if (f.seccomp <= 0) {
    r.summary = f.seccomp == 0 ? "no seccomp filter" : "seccomp state unreadable";
    r.state = f.seccomp == 0 ? State::kOk : State::kInfo;
    return r;
  }
  r.summary = absl::StrFormat("seccomp mode %d with %d filter(s)", f.seccomp, std::max(f.seccomp_filters, 0));
  if (f.software_errno == 0) {
    r.summary += ": perf_event_open passes it";
    return r;
  }
  if (f.software_errno == ENOSYS || PermissionError(f.software_errno)) {
    r.state = State::kBlocked;
    r.summary += ": it probably blocks perf_event_open";
    r.lift.push_back(kContainerLift);
  }
  return r;
}

Finding CorePmu(const Facts& f) {
  Finding r{"core_pmu", State::kOk, "the core PMU counts (cycles opened)", {}, {}};
  if (f.hardware_errno == 0) return r;
  if (f.software_errno != 0) {
    r.state = State::kBlocked;
    r.summary = "not tried: perf_event_open itself fails (see perf_events)";
    return r;
  }
  const int err = f.hardware_errno;
  r.state = State::kBlocked;
  if (PermissionError(err)) {
    r.summary = absl::StrFormat("hardware counters refused (%s)", ErrnoName(err));
    r.lift.push_back(kParanoidLift);
    return r;
  }
  if (!HasCorePmu(f)) {
    r.summary = absl::StrFormat(
        "no core PMU: perf_event_open(cycles) fails with %s and /sys/bus/event_source/devices has no cpu PMU",
        ErrnoName(err));
  } else {
    r.summary = absl::StrFormat("perf_event_open(cycles) fails with %s", ErrnoName(err));
  }
  if (f.perfmon_version == 0) {
    r.details.push_back(
        "CPUID leaf 0xA reports no architectural performance monitoring (version 0, 0 counters): the CPU as "
        "this system sees it offers no counters, so the kernel loads no PMU driver");
  }
  if (f.hypervisor) {
    r.details.push_back("usual in virtual machines: " + HypervisorName(f) + " gives this guest no virtual PMU");
    r.lift.push_back(kVmLift);
  } else if (!HasCorePmu(f)) {
    r.details.push_back("on bare metal this means the kernel has no PMU driver for this CPU model");
    r.lift.push_back("a kernel that knows this CPU (often a newer one)");
  }
  r.details.push_back("td still measures wall time, calls, task-clock, page faults, context switches and CPU "
                      "migrations per region");
  return r;
}

Finding Counters(const Facts& f) {
  Finding r{"counters", State::kOk, "", {}, {}};
  std::string cpuid;
  if (f.perfmon_version > 0) {
    cpuid = absl::StrFormat("; CPUID leaf 0xA: version %d, %d general, %d fixed", f.perfmon_version,
                            f.cpuid_general_counters, f.cpuid_fixed_counters);
  }
  if (f.probed_general_counters < 0) {
    r.state = f.hardware_errno == 0 ? State::kInfo : State::kBlocked;
    r.summary = "not probed: no hardware counter opens" + cpuid;
    return r;
  }
  r.summary = absl::StrFormat("%d general-purpose counters per thread (probed: the largest group the kernel "
                              "accepts)%s",
                              f.probed_general_counters, cpuid);
  if (f.model_general_counters > 0) {
    absl::StrAppendFormat(&r.summary, "; %s's definitions say %d", f.uarch, f.model_general_counters);
    if (f.probed_general_counters < f.model_general_counters) {
      r.state = State::kLimited;
      r.details.push_back(
          "fewer counters than the CPU has: a hypervisor offers only part of the PMU; td plans its groups "
          "for the counters that exist, so more groups share them in turn (multiplexing) or need passes");
      r.lift.push_back("td run --passes auto: one pass per group, nothing multiplexed");
      if (f.hypervisor) r.lift.push_back(kVmLift);
    }
  }
  return r;
}

Finding NmiWatchdog(const Facts& f) {
  Finding r{"nmi_watchdog", State::kOk, "", {}, {}};
  if (f.nmi_watchdog != 1) {
    r.summary = f.nmi_watchdog == 0 ? "off" : "unknown (no /proc/sys/kernel/nmi_watchdog)";
    return r;
  }
  r.summary = "on";
  const bool x86 = f.machine.architecture == "x86_64" || f.machine.architecture == "i686";
  if (!x86 || f.hardware_errno != 0) {
    r.state = State::kInfo;
    r.summary += x86 ? ": no hardware counters to share" : ": on this architecture it holds no counter";
    return r;
  }
  r.state = State::kLimited;
  r.summary += ": it holds one general-purpose counter while td runs, so groups get one fewer";
  r.lift.push_back("sudo sysctl -w kernel.nmi_watchdog=0   (back with =1; boot: nmi_watchdog=0)");
  return r;
}

Finding Rdpmc(const Facts& f) {
  Finding r{"rdpmc", State::kOk, "", {}, {}};
  if (f.rdpmc < 0) {
    r.state = State::kInfo;
    r.summary = f.hardware_errno == 0 ? "no rdpmc setting in sysfs: markers read counters with read()"
                                      : "not applicable: no core PMU";
    return r;
  }
  if (f.rdpmc == 0) {
    r.state = State::kLimited;
    r.summary = "rdpmc=0: user-space counter reads are off, so every marker reads its groups with read() (a "
                "system call, about a microsecond) instead of rdpmc";
    r.lift.push_back("echo 1 | sudo tee /sys/bus/event_source/devices/cpu/rdpmc   (cpu_core and cpu_atom on "
                     "hybrid parts)");
    return r;
  }
  r.summary = absl::StrFormat("rdpmc=%d: markers read counters in user space", f.rdpmc);
  return r;
}

std::string ErrnoMeaning(int err) {
  switch (err) {
    case ENOENT: return "the kernel's PMU driver does not know the event, or the host hides it";
    case EOPNOTSUPP: return "the PMU lacks a feature the event needs (PEBS, topdown metrics) — common in VMs";
    case EINVAL: return "the kernel rejects the encoding: a newer kernel may accept it";
    case EACCES:
    case EPERM: return "refused by kernel.perf_event_paranoid or a missing capability";
    case EBUSY: return "another user holds the counter it needs";
    default: return "";
  }
}

Finding Events(const Facts& f) {
  Finding r{"events", State::kOk, "", {}, {}};
  if (f.events.empty()) {
    r.state = State::kInfo;
    r.summary = "no Top-Down events to try for key " + f.uarch;
    return r;
  }
  std::map<int, std::vector<std::string>> failed;
  int opened = 0;
  for (const EventOpenResult& e : f.events) {
    if (e.err == 0) {
      ++opened;
    } else {
      failed[e.err].push_back(e.name);
    }
  }
  const int total = static_cast<int>(f.events.size());
  r.summary = absl::StrFormat("%d of %d events of %s's Level 1-%d tree open here, each alone", opened, total,
                              f.uarch, f.events_level);
  if (opened == total) return r;
  r.state = opened == 0 ? State::kBlocked : State::kLimited;
  for (const auto& [err, names] : failed) {
    std::string meaning = ErrnoMeaning(err);
    r.details.push_back(absl::StrFormat("%s (%d): %s%s", ErrnoName(err), names.size(),
                                        absl::StrJoin(names.begin(), names.begin() + std::min<size_t>(names.size(), 8), ", "),
                                        names.size() > 8 ? ", …" : ""));
    if (!meaning.empty()) r.details.back() += " — " + meaning;
  }
  if (opened > 0) {
    r.details.push_back("td computes every node whose events open and names the missing event on the others");
  }
  return r;
}

Finding Hybrid(const Facts& f) {
  Finding r{"hybrid", State::kInfo, "", {}, {}};
  std::vector<std::string> types;
  for (const SysfsPmu& p : f.pmus) {
    if (p.name == "cpu_core" || p.name == "cpu_atom") types.push_back(absl::StrFormat("%s (type %d)", p.name, p.type));
  }
  if (types.size() < 2) {
    r.summary = "not a hybrid part: one core type";
    return r;
  }
  r.summary = "hybrid: " + absl::StrJoin(types, " and ") +
              "; td opens each core type's events on its own PMU and reports the types apart";
  return r;
}

Finding Memory(const Facts& f) {
  Finding r{"memory", State::kOk, "", {}, {}};
  std::vector<std::string> controllers;
  for (const SysfsPmu& p : f.pmus) {
    if (p.kind == "memory") controllers.push_back(p.name);
  }
  const bool permitted = f.privileged || (f.paranoid <= 0 && f.paranoid >= -1);
  if (controllers.empty() && f.hardware_errno != 0) {
    r.state = State::kBlocked;
    r.summary = "no memory-controller PMU, and no core PMU for the per-thread estimate: no memory traffic is "
                "measured";
    return r;
  }
  if (controllers.empty()) {
    r.state = State::kLimited;
    r.summary = "no memory-controller PMU in sysfs: bandwidth per region is estimated from last-level-cache "
                "misses (per thread)";
    r.details.push_back("virtual machines rarely expose uncore PMUs; on bare metal a newer kernel may");
    return r;
  }
  const std::string list = controllers.size() > 3
                               ? absl::StrFormat("%s … %s (%d)", controllers.front(), controllers.back(),
                                                 controllers.size())
                               : absl::StrJoin(controllers, ", ");
  if (!permitted) {
    r.state = State::kLimited;
    r.summary = "memory controllers present (" + list +
                ") but counting them is CPU-wide, which perf_event_paranoid=" + std::to_string(f.paranoid) +
                " forbids: bandwidth is estimated from cache misses";
    r.lift.push_back("sudo sysctl -w kernel.perf_event_paranoid=0, or CAP_PERFMON for the program (sudo setcap "
                     "cap_perfmon+ep PROGRAM)");
    return r;
  }
  r.summary = "memory controllers " + list + ": DRAM bandwidth per region, counted socket-wide";
  return r;
}

Finding Papi(const Facts& f) {
  Finding r{"papi", State::kOk, "", {}, {}};
  r.details = f.papi_components;
  if (f.papi.empty() && f.hardware_errno != 0) {
    r.state = State::kInfo;
    r.summary = "PAPI's perf_event component is enabled, but with no core PMU TD_BACKEND=papi counts no more than "
                "td's own backend";
    return r;
  }
  if (f.papi.empty()) {
    r.summary = "PAPI counts CPU events here (TD_BACKEND=papi)";
    return r;
  }
  r.state = State::kInfo;
  r.summary = "TD_BACKEND=papi cannot count CPU events here: " + f.papi;
  return r;
}

Finding OtherPmus(const Facts& f) {
  Finding r{"other_pmus", State::kInfo, "", {}, {}};
  std::vector<std::string> names;
  for (const SysfsPmu& p : f.pmus) names.push_back(absl::StrFormat("%s (%d)", p.name, p.type));
  r.summary = names.empty() ? "none listed in /sys/bus/event_source/devices"
                            : absl::StrJoin(names, ", ");
  return r;
}

}  // namespace

const char* StateName(State state) {
  switch (state) {
    case State::kOk: return "ok";
    case State::kLimited: return "limited";
    case State::kBlocked: return "blocked";
    case State::kInfo: return "info";
  }
  return "info";
}

const std::vector<Check>& Checks() {
  static const std::vector<Check> checks = {
      {"cpu", "CPU",
       "The report shows a generic tree, or names no microarchitecture key.",
       "td picks the formulas of the Top-Down tree by the CPU's vendor, family and model. A model it has no "
       "definitions for gets the generic Level 1 that the kernel's topdown events allow.",
       "Set `TD_UARCH=KEY` when the CPU is a variant of one `td uarchs` lists, or import perf's metric files "
       "for it with `td import-metrics`.",
       &Cpu},
      {"hypervisor", "hypervisor",
       "A cloud or desktop VM measures less than the same CPU on bare metal.",
       "In a virtual machine the host decides which counters and events the guest sees: often none, sometimes "
       "the architectural events only, or fewer counters.",
       "Ask for a virtual PMU: QEMU/KVM `-cpu host,pmu=on`, libvirt `<pmu state='on'/>`, VMware's "
       "\"virtualize CPU performance counters\"; on clouds an instance type that passes the PMU through.",
       &Hypervisor},
      {"perf_events", "perf events",
       "The report has wall time and calls only, no task-clock.",
       "td counts through perf_event_open. A kernel without perf events, a seccomp filter (the default "
       "profile of containers) or kernel.perf_event_paranoid=3 or more refuses even the software events.",
       "`sudo sysctl -w kernel.perf_event_paranoid=2`; in a container `--cap-add PERFMON` (kernel 5.8 or "
       "later; `SYS_ADMIN` before) or a seccomp profile that allows perf_event_open.",
       &PerfEvents},
      {"paranoid", "perf_event_paranoid",
       "Kernel time is missing from the tree, or nothing is counted for unprivileged users.",
       "kernel.perf_event_paranoid decides what an unprivileged process may count: 2 its own threads in user "
       "space, 1 with kernel time, 0 also CPU-wide (memory controllers), -1 everything; Debian and Ubuntu "
       "kernels refuse everything at 3 or more.",
       "`sudo sysctl -w kernel.perf_event_paranoid=N` (persist in /etc/sysctl.d/), or give the program "
       "CAP_PERFMON: `sudo setcap cap_perfmon+ep PROGRAM`.",
       &Paranoid},
      {"seccomp", "seccomp",
       "perf_event_open fails with EPERM or ENOSYS although perf_event_paranoid allows it.",
       "A seccomp filter blocks system calls before the kernel's perf code sees them; container runtimes "
       "install one by default.",
       "Run the container with `--cap-add PERFMON` (Docker's default profile then allows perf_event_open) or "
       "with a profile that allows it.",
       &Seccomp},
      {"core_pmu", "core PMU",
       "\"hardware counters unavailable: no hardware PMU is exposed to this machine\".",
       "Without a core PMU there are no cycles, instructions or Top-Down events. In a VM the hypervisor offers "
       "none (on x86, CPUID leaf 0xA then reports version 0); on bare metal the kernel lacks a driver for the "
       "model.",
       "In a VM, a virtual PMU from the host (see hypervisor); on bare metal, a kernel that knows the CPU.",
       &CorePmu},
      {"counters", "counters",
       "Nodes are multiplexed (coverage under 100 %) or `td run --passes auto` needs more passes than on "
       "another machine with the same CPU.",
       "td plans its counter groups for the counters that exist, learned by opening ever larger groups (the "
       "kernel refuses a group that cannot fit). A VM may offer fewer than the CPU has.",
       "`td run --passes auto` gives each group a pass of its own; a host can offer the full PMU.",
       &Counters},
      {"nmi_watchdog", "NMI watchdog",
       "One group fewer fits than the CPU's counters allow, on x86.",
       "The kernel's NMI watchdog keeps a cycles counter busy on every CPU.",
       "`sudo sysctl -w kernel.nmi_watchdog=0` while measuring (back with `=1`), or boot with "
       "`nmi_watchdog=0`.",
       &NmiWatchdog},
      {"rdpmc", "rdpmc",
       "Each marker costs about a microsecond more than `docs/performance.md` says.",
       "With /sys/bus/event_source/devices/cpu/rdpmc at 0 user space may not read counters, so every marker "
       "reads its groups with a read() system call.",
       "`echo 1 | sudo tee /sys/bus/event_source/devices/cpu/rdpmc`.",
       &Rdpmc},
      {"events", "Top-Down events",
       "A node says which event it lacked instead of a value.",
       "td opens each event of the key's Level 1-3 tree alone and plans only those that open: a hypervisor may "
       "hide events (ENOENT), a PMU may lack a feature such as PEBS or topdown metrics (EOPNOTSUPP), or an "
       "older kernel may reject an encoding (EINVAL).",
       "A host that passes the whole PMU through; a newer kernel for EINVAL.",
       &Events},
      {"hybrid", "core types",
       "The report shows cpu_core and cpu_atom apart.",
       "Hybrid parts have two core types with different PMUs and trees; td opens each type's events on its own "
       "PMU and analyses each apart.",
       "Nothing to lift; pin a run to one core type with taskset to see one tree.",
       &Hybrid},
      {"memory", "memory bandwidth",
       "Bandwidth is labelled \"estimated from last-level-cache misses\".",
       "Memory controllers (Intel uncore_imc, AMD data fabric, Arm CMN) count a whole socket, CPU-wide, which "
       "needs perf_event_paranoid 0 or CAP_PERFMON; VMs rarely expose them.",
       "`sudo sysctl -w kernel.perf_event_paranoid=0` or CAP_PERFMON for the program.",
       &Memory},
      {"papi", "PAPI",
       "TD_BACKEND=papi says PAPI cannot count here.",
       "PAPI counts CPU events through its perf_event component, which it disables when the kernel refuses "
       "them.",
       "What lifts the core PMU's limits lifts PAPI's.",
       &Papi},
      {"other_pmus", "PMUs in sysfs", "", "", "", &OtherPmus},
  };
  return checks;
}

std::vector<Finding> Examine(const Facts& facts) {
  std::vector<Finding> findings;
  for (const Check& check : Checks()) findings.push_back(check.examine(facts));
  return findings;
}

std::string ChecksMarkdown() {
  std::string out;
  for (const Check& check : Checks()) {
    if (*check.symptom == '\0') continue;
    absl::StrAppendFormat(&out, "- **%s** %s *To lift it:* %s (check `%s`)\n", check.symptom, check.why, check.lift,
                          check.id);
  }
  return out;
}

}  // namespace td::doctor
