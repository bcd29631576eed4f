#include "tools/td/program_signals.h"

#include <signal.h>

namespace td::tool {
namespace {

volatile sig_atomic_t g_program = 0;
volatile sig_atomic_t g_received = 0;

void Forward(int signal_number, siginfo_t* info, void*) {
  g_received = signal_number;
  // Sent by a process (kill, sigqueue): the program did not get it. From the
  // terminal (SI_KERNEL): the whole foreground group did.
  const bool from_a_process = info != nullptr && (info->si_code == SI_USER || info->si_code == SI_QUEUE);
  if (g_program > 0 && from_a_process) kill(static_cast<pid_t>(g_program), signal_number);
}

}  // namespace

ForwardSignalsToProgram::ForwardSignalsToProgram() {
  struct sigaction action = {};
  action.sa_sigaction = &Forward;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&action.sa_mask);
  for (int i = 0; i < 4; ++i) sigaction(kSignals[i], &action, &saved_[i]);
}

ForwardSignalsToProgram::~ForwardSignalsToProgram() {
  g_program = 0;
  for (int i = 0; i < 4; ++i) sigaction(kSignals[i], &saved_[i], nullptr);
}

void ForwardSignalsToProgram::SetProgram(pid_t program) { g_program = static_cast<sig_atomic_t>(program); }

int ForwardSignalsToProgram::Received() { return g_received; }

}  // namespace td::tool
