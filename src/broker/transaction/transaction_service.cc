#include "broker/transaction/transaction_service.h"

#include <charconv>
#include <chrono>

#include "broker/system_topics.h"
#include "log/log.h"
#include "store/format/message_id.h"
#include "store/format/properties.h"

namespace rocketstore::broker {

namespace {

constexpr size_t kSettledCap = 100000;
constexpr int kScanBatch = 512;

std::optional<int64_t> ParseInt64(std::string_view s) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

std::string_view Prop(std::string_view props, std::string_view name) {
  return format::FindProperty(props, name).value_or(std::string_view());
}

Verdict NotFoundHalf() {
  return Verdict::Error(Outcome::kSystemError, "Find prepared transaction message failed");
}

}  // namespace

TransactionService::TransactionService(Options options, MessageStore& store,
                                       const Reputter& reputter, ProducerManager& producers,
                                       TopicConfigManager* topics, Clock& clock)
    : options_(options),
      store_(store),
      reputter_(reputter),
      producers_(producers),
      topics_(topics),
      clock_(clock) {}

void TransactionService::Start() {
  if (!runner_) {
    runner_ = std::make_unique<ServiceRunner>("broker-tx-check",
                                              std::chrono::milliseconds(options_.tick_ms),
                                              [this] { (void)RunOnce(clock_.NowMillis()); });
  }
  runner_->Start();
}

void TransactionService::Stop() {
  if (runner_) runner_->Stop();
}

int64_t TransactionService::OriginOf(const format::RecordView& r, int64_t queue_offset) {
  const auto origin =
      ParseInt64(Prop(r.properties, format::kPropertyTransactionPreparedQueueOffset));
  return origin ? *origin : queue_offset;
}

void TransactionService::Learn(const format::RecordView& r, int64_t queue_offset) {
  const int64_t origin = OriginOf(r, queue_offset);
  if (settled_.count(origin)) return;
  auto [it, inserted] = pending_.try_emplace(origin);
  Entry& e = it->second;
  if (inserted) {
    e.origin = origin;
    e.group = std::string(Prop(r.properties, format::kPropertyProducerGroup));
    e.real_topic = std::string(Prop(r.properties, format::kPropertyRealTopic));
    e.real_queue_id = static_cast<int32_t>(
        ParseInt64(Prop(r.properties, format::kPropertyRealQueueId)).value_or(0));
    ++pending_by_topic_[e.real_topic];
    e.first_store_ms = r.store_timestamp;
    e.immunity_ms = options_.transaction_timeout_ms;
    if (auto s = ParseInt64(Prop(r.properties, format::kPropertyCheckImmunityTimeInSeconds))) {
      e.immunity_ms = *s * 1000;  // Java's getImmunityTime
    }
  }
  for (int64_t c : e.copy_commit_log_offsets) {
    if (c == r.physical_offset) return;
  }
  e.copy_commit_log_offsets.push_back(r.physical_offset);
  if (inserted || queue_offset >= e.queue_offset) {
    e.queue_offset = queue_offset;
    e.commit_log_offset = r.physical_offset;
    e.check_times = static_cast<int32_t>(
        ParseInt64(Prop(r.properties, format::kPropertyTransactionCheckTimes)).value_or(0));
  }
}

Status TransactionService::ScanHalves() {
  const int64_t min = store_.GetMinOffsetInQueue(kTransHalfTopic, 0).value();
  if (scan_next_ < min) scan_next_ = min;
  while (scan_next_ < store_.GetMaxOffsetInQueue(kTransHalfTopic, 0).value()) {
    auto units = store_.GetQueueUnits(kTransHalfTopic, 0, QueueOffset(scan_next_), kScanBatch);
    if (!units.ok()) return units.status();
    if (units->empty()) break;
    for (const format::ConsumeQueueUnit& u : *units) {
      const int64_t q = scan_next_++;
      if (!u.IsValid() || u.IsBlank()) continue;
      auto half = reputter_.Read(u.offset.value());
      if (!half.ok()) {
        RS_LOG_WARN("transactions: half unreadable, skipped queue_offset={} error=\"{}\"", q,
                    half.status().ToString());
        continue;
      }
      if (recovery_copies_) (*recovery_copies_)[q] = {OriginOf(half->record, q), u.offset.value()};
      Learn(half->record, q);
    }
  }
  return Status::OK();
}

void TransactionService::ErasePending(int64_t origin) {
  auto it = pending_.find(origin);
  if (it == pending_.end()) return;
  auto count = pending_by_topic_.find(it->second.real_topic);
  if (count != pending_by_topic_.end() && --count->second <= 0) pending_by_topic_.erase(count);
  pending_.erase(it);
}

void TransactionService::Settle(int64_t origin, Settled how) {
  ErasePending(origin);
  settled_[origin] = how;
  while (settled_.size() > kSettledCap && settled_.begin()->first < scan_next_) {
    settled_.erase(settled_.begin());
  }
}

Verdict TransactionService::WriteOp(std::string_view tag, int64_t copy_queue_offset) {
  format::PropertiesBuilder props;
  props.Put(format::kPropertyTags, tag);
  props.Put(format::kPropertyWait, "false");
  const std::string body = std::to_string(copy_queue_offset);
  DraftMessage d;
  d.ViewTopic(kTransOpHalfTopic);
  d.queue_id = 0;
  d.SetProperties(props.Build());
  d.ViewBody(body);
  d.born_timestamp = clock_.NowMillis();
  d.born_host = reputter_.store_host();
  ReputResult r = reputter_.Put(PutOrigin::kSystem, d);
  if (r.stored()) return Verdict::Ok();
  ++counters_.failed_puts;
  RS_LOG_WARN("transactions: op record not stored tag={} half_queue_offset={} error=\"{}\"", tag,
              copy_queue_offset, r.verdict.remark);
  return r.verdict;
}

Verdict TransactionService::ReputCommit(const format::RecordView& half) {
  const std::string_view topic = Prop(half.properties, format::kPropertyRealTopic);
  const auto queue = ParseInt64(Prop(half.properties, format::kPropertyRealQueueId));
  if (topic.empty() || !queue) {
    return Verdict::Error(Outcome::kSystemError,
                          "the half message has no usable REAL_TOPIC / REAL_QID");
  }
  DraftMessage d = DraftFromRecord(half);
  d.SetTopic(std::string(topic));
  d.queue_id = static_cast<int32_t>(*queue);
  d.sys_flag = (half.sys_flag & ~format::kSysFlagTransactionMask) | format::kTransactionCommit;
  d.prepared_transaction_offset = half.physical_offset;
  ReputResult r = reputter_.Put(PutOrigin::kSystem, d);
  if (r.stored()) return Verdict::Ok();
  ++counters_.failed_puts;
  return r.verdict;
}

std::optional<Verdict> TransactionService::EndTransaction(const EndTransactionRequest& req) {
  const bool commit = req.commit_or_rollback == format::kTransactionCommit;
  if (!commit && req.commit_or_rollback != format::kTransactionRollback) return std::nullopt;
  std::lock_guard lock(mu_);
  if (Status s = ScanHalves(); !s.ok()) {
    RS_LOG_WARN("transactions: reading the half queue failed error=\"{}\"", s.ToString());
  }
  auto half = reputter_.Read(req.commit_log_offset);
  if (!half.ok() || half->record.topic != kTransHalfTopic) return NotFoundHalf();
  const format::RecordView& r = half->record;
  if (Prop(r.properties, format::kPropertyProducerGroup) != req.producer_group) {
    return Verdict::Error(Outcome::kSystemError, "The producer group wrong");
  }
  if (r.queue_offset != req.tran_state_table_offset) {
    return Verdict::Error(Outcome::kSystemError, "The transaction state table offset wrong");
  }
  const int64_t origin = OriginOf(r, r.queue_offset);
  if (auto s = settled_.find(origin); s != settled_.end()) {
    const bool was_commit = s->second == Settled::kCommitted;
    if (s->second == Settled::kDiscarded || was_commit == commit) return Verdict::Ok();
    return Verdict::Error(Outcome::kSystemError, was_commit ? "transaction already committed"
                                                            : "transaction already rolled back");
  }
  auto it = pending_.find(origin);
  if (it == pending_.end()) {
    // Below the scanned end and not pending: settled before the settled table's memory.
    if (r.queue_offset < scan_next_ && origin < scan_next_) return Verdict::Ok();
    Learn(r, r.queue_offset);
    it = pending_.find(origin);
    if (it == pending_.end()) return NotFoundHalf();
  }
  if (!commit) {
    Verdict v = WriteOp("d", r.queue_offset);
    if (!v.ok()) return v;
    if (stats_ != nullptr) stats_->OnTransactionEnd(it->second.real_topic, /*committed=*/false);
    Settle(origin, Settled::kRolledBack);
    ++counters_.rolled_back;
    return Verdict::Ok();
  }
  if (Verdict v = WriteOp("c", r.queue_offset); !v.ok()) return v;
  it->second.intent = true;
  if (Verdict v = ReputCommit(r); !v.ok()) return v;  // still pending, with its intent
  // A lost "d" is finished by recovery (the intent and the committed copy are stored).
  (void)WriteOp("d", r.queue_offset);
  if (stats_ != nullptr) stats_->OnTransactionEnd(it->second.real_topic, /*committed=*/true);
  Settle(origin, Settled::kCommitted);
  ++counters_.committed;
  return Verdict::Ok();
}

std::vector<std::pair<std::string, int64_t>> TransactionService::PendingCountsByTopic() const {
  std::lock_guard lock(mu_);
  return {pending_by_topic_.begin(), pending_by_topic_.end()};
}

std::vector<TransactionService::PendingView> TransactionService::Pending() const {
  std::lock_guard lock(mu_);
  std::vector<PendingView> out;
  out.reserve(pending_.size());
  for (const auto& [origin, e] : pending_) {
    PendingView v;
    v.origin_queue_offset = origin;
    v.queue_offset = e.queue_offset;
    v.commit_log_offset = e.commit_log_offset;
    v.producer_group = e.group;
    v.real_topic = e.real_topic;
    v.real_queue_id = e.real_queue_id;
    v.check_times = e.check_times;
    v.first_store_ms = e.first_store_ms;
    v.last_check_ms = e.last_check_ms;
    v.commit_intent = e.intent;
    out.push_back(std::move(v));
  }
  return out;
}

TransactionService::Counters TransactionService::counters() const {
  std::lock_guard lock(mu_);
  return counters_;
}

}  // namespace rocketstore::broker
