#pragma once

namespace ws {

/// `ws __exec [--max-procs N] [--sync GO,READY] -- COMMAND...`: the first process (pid 1) of a `ws
/// run` sandbox, run by bwrap with --as-pid-1. It
///  - cannot be ptraced or stopped by the agent (not dumpable; as the namespace's init it
///    ignores every signal the agent may send it);
///  - tells ws run it runs (a byte on READY) and starts the agent only on ws run's word (a
///    byte on GO), so the network and the session record exist before the agent does;
///  - scopes the sandbox with Landlock (no abstract unix socket or signal outside);
///  - supervises the agent's connect/sendto/sendmsg/sendmmsg on a thread of its own
///    (socket_supervisor.hpp): no pathname unix socket made outside the sandbox;
///  - starts the agent in a session of its own, on the terminal it was given (the pty of
///    `ws run`) as its controlling terminal, with fds 0, 1, 2 and nothing else, every signal
///    at its default;
///  - forwards SIGINT, SIGTERM, SIGHUP, SIGQUIT from `ws run` to the agent's process group,
///    resumes the agent if it stops itself (nobody outside could), reaps orphans;
///  - exits with the agent's status (128+N if killed by signal N). Its exit ends the pid
///    namespace: every process the agent left behind dies with the session.
/// Returns the exit status; never returns normally from the child side.
int run_sandbox_init(int argc, char** argv);

} // namespace ws
