// `rocketstore inspect transactions`: the pending transaction halves, rebuilt from
// RMQ_SYS_TRANS_HALF_TOPIC and RMQ_SYS_TRANS_OP_HALF_TOPIC queue 0 the way the broker's
// TransactionService::Recover does (broker/transaction/transaction_service.h): a half is
// known by its first copy's queue offset (a renewed copy names it in
// TRAN_PREPARED_QUEUE_OFFSET), settled by an op record tagged "d" naming any copy; an op
// "c" without "d" is a commit the broker finishes at its next start.
#include <fmt/format.h>

#include <charconv>
#include <map>

#include "store/format/properties.h"
#include "tools/inspect/store_views.h"

namespace rocketstore::tools::inspect {

namespace {

constexpr std::string_view kHalfTopic = "RMQ_SYS_TRANS_HALF_TOPIC";
constexpr std::string_view kOpTopic = "RMQ_SYS_TRANS_OP_HALF_TOPIC";

std::optional<int64_t> ToInt(std::optional<std::string_view> s) {
  int64_t v = 0;
  if (!s || s->empty()) return std::nullopt;
  auto [end, ec] = std::from_chars(s->data(), s->data() + s->size(), v);
  if (ec != std::errc() || end != s->data() + s->size()) return std::nullopt;
  return v;
}

struct Pending {
  int64_t queue_offset = 0, commit_log_offset = 0, first_store_ms = 0;
  int64_t check_times = 0;
  std::string group, real_topic, real_queue, uniq;
  bool intent = false, done = false;
};

const Queue* FindQueue(const std::vector<std::unique_ptr<Queue>>& qs, std::string_view topic) {
  for (const auto& q : qs) {
    if (q->topic == topic && q->queue_id == 0) return q.get();
  }
  return nullptr;
}

void PrintPending(std::FILE* out, bool json, int64_t origin, const Pending& p) {
  if (!json) {
    fmt::print(out, "{:>8}  {:>8}  {:>12}  {:>6}  {:<16}  {:<20}  {:>4}  {:<23}  {}\n", origin,
               p.queue_offset, p.commit_log_offset, p.check_times, p.group,
               p.real_topic + ":" + p.real_queue, p.intent ? "yes" : "-",
               FormatMillis(p.first_store_ms), p.uniq);
    return;
  }
  JsonLine(out, [&](JsonWriter& w) {
    Key(w, "originQueueOffset");
    w.Int64(origin);
    Key(w, "queueOffset");
    w.Int64(p.queue_offset);
    Key(w, "commitLogOffset");
    w.Int64(p.commit_log_offset);
    Key(w, "checkTimes");
    w.Int64(p.check_times);
    Key(w, "producerGroup");
    w.String(p.group.c_str());
    Key(w, "realTopic");
    w.String(p.real_topic.c_str());
    Key(w, "realQueueId");
    w.String(p.real_queue.c_str());
    Key(w, "uniqKey");
    w.String(p.uniq.c_str());
    Key(w, "firstStoreMs");
    w.Int64(p.first_store_ms);
    Key(w, "commitIntent");
    w.Bool(p.intent);
  });
}

}  // namespace

int RunTransactions(FileSystem& fs, const InspectOptions& options, std::FILE* out, std::FILE* err) {
  auto log = LoadCommitLog(fs, options.store_dir);
  if (!log.ok()) return Fail(err, log.status());
  auto queues = LoadQueues(fs, options.store_dir);
  if (!queues.ok()) return Fail(err, queues.status());
  std::map<int64_t, Pending> halves;     // by origin
  std::map<int64_t, int64_t> origin_of;  // copy queue offset -> origin
  int unreadable = 0;
  if (const Queue* q = FindQueue(*queues, kHalfTopic)) {
    for (int64_t n = q->min_offset; n < q->max_offset; ++n) {
      auto u = q->Unit(n);
      if (!u || !u->IsValid()) continue;
      auto r = RecordAt(*log, u->offset.value());
      if (!r.ok()) {
        ++unreadable;
        continue;
      }
      auto prop = [&](std::string_view k) { return format::FindProperty(r->properties, k); };
      const int64_t origin = ToInt(prop("TRAN_PREPARED_QUEUE_OFFSET")).value_or(n);
      origin_of[n] = origin;
      auto [it, inserted] = halves.try_emplace(origin);
      Pending& p = it->second;
      if (inserted) {
        p.group = std::string(prop("PGROUP").value_or(""));
        p.real_topic = std::string(prop("REAL_TOPIC").value_or(""));
        p.real_queue = std::string(prop("REAL_QID").value_or(""));
        p.uniq = std::string(prop("UNIQ_KEY").value_or(""));
        p.first_store_ms = r->store_timestamp;
      }
      p.queue_offset = n;
      p.commit_log_offset = u->offset.value();
      p.check_times = ToInt(prop("TRANSACTION_CHECK_TIMES")).value_or(0);
    }
  }
  if (const Queue* q = FindQueue(*queues, kOpTopic)) {
    for (int64_t n = q->min_offset; n < q->max_offset; ++n) {
      auto u = q->Unit(n);
      if (!u || !u->IsValid()) continue;
      auto r = RecordAt(*log, u->offset.value());
      if (!r.ok()) continue;
      const auto copy = ToInt(r->body);
      if (!copy) continue;
      auto o = origin_of.find(*copy);
      auto it = halves.find(o != origin_of.end() ? o->second : *copy);
      if (it == halves.end()) continue;
      const auto tag = format::FindProperty(r->properties, "TAGS").value_or("");
      if (tag == "d") it->second.done = true;
      if (tag == "c") it->second.intent = true;
    }
  }
  size_t pending = 0;
  if (!options.json) {
    fmt::print(out, "{:>8}  {:>8}  {:>12}  {:>6}  {:<16}  {:<20}  {:>4}  {:<23}  {}\n", "origin",
               "queueOff", "commitLogOff", "checks", "group", "real topic:queue", "cmt",
               "first stored", "UNIQ_KEY");
  }
  for (const auto& [origin, p] : halves) {
    if (p.done) continue;
    ++pending;
    PrintPending(out, options.json, origin, p);
  }
  if (!options.json) {
    fmt::print(out, "{} pending of {} halves{}\n", pending, halves.size(),
               unreadable ? fmt::format(" ({} half records unreadable)", unreadable) : "");
  }
  return 0;
}

}  // namespace rocketstore::tools::inspect
