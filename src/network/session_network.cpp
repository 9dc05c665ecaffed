// One session's proxied network (session_network.hpp).
#include "src/network/session_network.hpp"

#include "fuse/journal.hpp"
#include "src/network/netns_sockets.hpp"

#include <unistd.h>

namespace ws::network {

namespace {
/// The journal takes at most this many records of one session's network; the summary still
/// counts every one. An agent that loops on a refused host cannot grow the journal forever.
constexpr size_t k_max_records = 10000;
} // namespace

SessionNetwork::SessionNetwork(const NetworkChoice& choice, ResolveOverride resolve,
                               std::filesystem::path journal_db)
    : m_choice(choice), m_journal_db(std::move(journal_db)) {
  m_policy.off = choice.mode == NetworkMode::Off;
  m_policy.allow = choice.allow;
  m_policy.resolve = std::move(resolve);
}

SessionNetwork::~SessionNetwork() {
  stop();
}

std::vector<std::pair<std::string, std::string>> SessionNetwork::environment() const {
  std::string url = "http://127.0.0.1:" + std::to_string(EgressProxy::k_port);
  std::string local = "localhost,127.0.0.1,::1";
  return {{"HTTPS_PROXY", url}, {"https_proxy", url}, {"HTTP_PROXY", url},
          {"http_proxy", url},  {"NO_PROXY", local},  {"no_proxy", local}};
}

void SessionNetwork::start(pid_t sandbox_pid, uint64_t pidns) {
  m_pidns = pidns;
  NamespaceSockets sockets = open_in_network_of(sandbox_pid, EgressProxy::k_port, true);
  m_proxy = std::make_unique<EgressProxy>(std::move(sockets.proxy), std::move(sockets.dns),
                                          m_policy, [this](const ProxyEvent& e) { record(e); });
}

void SessionNetwork::stop() {
  m_proxy.reset(); // joins the proxy's thread: no record comes after this
  if (m_journal) {
    m_journal->flush();
    m_journal.reset();
  }
}

void SessionNetwork::record(const ProxyEvent& e) {
  std::lock_guard lock(m_mutex);
  m_tally.add(e);
  if (!m_journal && !m_journal_failed) {
    // Opened with the first record (on the proxy's thread), not before the agent starts.
    try {
      m_journal = std::make_unique<fuse::JournalWriter>(m_journal_db);
    } catch (const std::exception&) {
      m_journal_failed = true; // the records still reach the summary
    }
  }
  if (!m_journal || m_recorded > k_max_records) {
    return;
  }
  fuse::JournalEntry j;
  j.time_ns = fuse::now_ns();
  j.uid = ::getuid();
  j.comm = "ws-proxy";
  j.pidns = m_pidns;
  if (++m_recorded > k_max_records) {
    j.op = "refuse";
    j.path = "?";
    j.detail = "more than " + std::to_string(k_max_records) +
               " requests this session: the rest are not journaled (the summary counts them)";
  } else {
    j.op = journal_op(e.outcome);
    j.path = e.target();
    j.detail = (e.method.empty() ? std::string() : e.method + ": ") + e.detail;
  }
  m_journal->record(std::move(j));
}

std::vector<std::string> SessionNetwork::summary() const {
  std::lock_guard lock(m_mutex);
  return network_summary(m_tally, m_policy);
}

size_t SessionNetwork::allowed() const {
  std::lock_guard lock(m_mutex);
  return m_tally.allowed();
}

} // namespace ws::network
