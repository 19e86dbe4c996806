// TransactionService: the check pass and recovery (see transaction_service.h).
#include "broker/system_topics.h"
#include "broker/transaction/transaction_service.h"
#include "log/log.h"
#include "store/format/message_id.h"
#include "store/format/properties.h"

namespace rocketstore::broker {

namespace {

constexpr int kScanBatch = 512;

std::string_view Prop(std::string_view props, std::string_view name) {
  return format::FindProperty(props, name).value_or(std::string_view());
}

std::optional<int64_t> ParseOffset(std::string_view s) {
  int64_t v = 0;
  if (s.empty()) return std::nullopt;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

// MessageDecoder.encode of a half copy as Broker2Client sends it (real topic and queue).
std::string EncodeForCheck(const DraftMessage& copy, const AppendedRecord& at,
                           const format::HostAddress& store_host, std::string_view real_topic,
                           int32_t real_queue_id, uint32_t body_crc) {
  format::MessageToStore m = copy.ToStore(store_host);
  m.topic = real_topic;
  m.queue_id = real_queue_id;
  std::string out(format::EncodedRecordSize(m), '\0');
  format::EncodeRecord(m, body_crc, at.queue_offset.value(), at.offset.value(), at.store_timestamp,
                       reinterpret_cast<uint8_t*>(out.data()));
  return out;
}

}  // namespace

int TransactionService::RunOnce(int64_t now_ms) {
  std::lock_guard lock(mu_);
  if (Status s = ScanHalves(); !s.ok()) {
    RS_LOG_WARN("transactions: reading the half queue failed error=\"{}\"", s.ToString());
  }
  int done = 0;
  for (auto it = pending_.begin(); it != pending_.end() && done < options_.max_checks_per_step;) {
    auto next = std::next(it);  // CheckOne may settle (erase) the entry
    Entry& e = it->second;
    const bool old_enough = now_ms - e.first_store_ms >= e.immunity_ms;
    const bool interval_passed =
        e.last_check_ms == 0 || now_ms - e.last_check_ms >= options_.check_interval_ms;
    if (old_enough && interval_passed) {
      ++done;
      if (!CheckOne(e, now_ms)) break;
    }
    it = next;
  }
  return done;
}

bool TransactionService::CheckOne(Entry& e, int64_t now_ms) {
  if (e.check_times >= options_.check_max) return Discard(e);
  ChannelPtr channel = producers_.AnyLiveChannel(e.group);
  if (!channel) {
    ++counters_.skipped_no_producer;
    e.last_check_ms = now_ms;
    return true;
  }
  auto half = reputter_.Read(e.commit_log_offset);
  if (!half.ok()) {
    RS_LOG_WARN("transactions: half unreadable, dropped half={} commitlog_offset={} error=\"{}\"",
                e.origin, e.commit_log_offset, half.status().ToString());
    ErasePending(e.origin);
    return true;
  }
  const format::RecordView& r = half->record;
  // Java's putBackHalfMsgQueue: a renewed copy with the check counted, then the check.
  format::PropertiesBuilder props = format::PropertiesBuilder::FromString(r.properties);
  props.Put(format::kPropertyTransactionCheckTimes, std::to_string(e.check_times + 1));
  props.Put(format::kPropertyTransactionPreparedQueueOffset, std::to_string(e.origin));
  DraftMessage copy = DraftFromRecord(r);
  copy.SetProperties(props.Build());
  ReputResult put = reputter_.Put(PutOrigin::kSystem, copy);
  if (!put.stored()) {
    ++counters_.failed_puts;
    RS_LOG_WARN("transactions: renewing a half failed half={} error=\"{}\"", e.origin,
                put.verdict.remark);
    return false;
  }
  e.queue_offset = put.put.first.queue_offset.value();
  e.commit_log_offset = put.put.first.offset.value();
  e.copy_commit_log_offsets.push_back(e.commit_log_offset);
  ++e.check_times;
  e.last_check_ms = now_ms;
  TransactionCheck check;
  check.tran_state_table_offset = e.queue_offset;
  check.commit_log_offset = e.commit_log_offset;
  check.msg_id = std::string(Prop(r.properties, format::kPropertyUniqKey));
  check.transaction_id = check.msg_id;
  check.offset_msg_id = format::EncodeOffsetMsgId(reputter_.store_host(), e.commit_log_offset);
  // renewHalfMessageInner shares the half's property map and sets WAIT=false on it after
  // the copy's string was built: the check message shows WAIT=false, the copy keeps the
  // half's WAIT.
  DraftMessage shown = copy;
  props.Put(format::kPropertyWait, "false");
  shown.SetProperties(props.Build());
  check.message = EncodeForCheck(shown, put.put.first, reputter_.store_host(), e.real_topic,
                                 e.real_queue_id, r.body_crc);
  channel->CheckTransactionState(check);
  ++counters_.checks_sent;
  return true;
}

bool TransactionService::Discard(Entry& e) {
  auto half = reputter_.Read(e.commit_log_offset);
  if (half.ok()) {
    if (topics_ && !topics_->Find(kTransCheckMaxTimeTopic)) {
      TopicConfig t;  // Java's createTopicOfTranCheckMaxTime(1, PERM_READ | PERM_WRITE)
      t.name = std::string(kTransCheckMaxTimeTopic);
      t.read_queue_nums = t.write_queue_nums = 1;
      t.perm = kPermRead | kPermWrite;
      topics_->Upsert(t);
    }
    DraftMessage d = DraftFromRecord(half->record);
    d.SetTopic(std::string(kTransCheckMaxTimeTopic));
    d.queue_id = 0;
    ReputResult put = reputter_.Put(PutOrigin::kSystem, d);
    if (!put.stored()) {
      ++counters_.failed_puts;
      RS_LOG_WARN("transactions: moving a half failed half={} topic={} error=\"{}\"", e.origin,
                  kTransCheckMaxTimeTopic, put.verdict.remark);
      return false;
    }
  }
  if (!WriteOp("d", e.queue_offset).ok()) return false;
  RS_LOG_WARN("transactions: half checked too often, moved half={} group={} checks={} topic={}",
              e.origin, e.group, e.check_times, kTransCheckMaxTimeTopic);
  ++counters_.discarded;
  Settle(e.origin, Settled::kDiscarded);
  return true;
}

Result<bool> TransactionService::CommittedCopyExists(const Entry& e, int64_t intent_offset) {
  // From the real queue's end back to the intent: the re-put follows its intent.
  int64_t end = store_.GetMaxOffsetInQueue(e.real_topic, e.real_queue_id).value();
  const int64_t min = store_.GetMinOffsetInQueue(e.real_topic, e.real_queue_id).value();
  while (end > min) {
    const int64_t from = std::max(min, end - kScanBatch);
    RS_ASSIGN_OR_RETURN(auto units,
                        store_.GetQueueUnits(e.real_topic, e.real_queue_id, QueueOffset(from),
                                             static_cast<int>(end - from)));
    for (auto u = units.rbegin(); u != units.rend(); ++u) {
      if (!u->IsValid() || u->IsBlank()) continue;
      if (u->offset.value() < intent_offset) return false;
      auto m = reputter_.Read(u->offset.value());
      if (!m.ok()) continue;
      if (m->record.TransactionType() != format::kTransactionCommit) continue;
      for (int64_t c : e.copy_commit_log_offsets) {
        if (m->record.prepared_transaction_offset == c) return true;
      }
    }
    end = from;
  }
  return false;
}

void TransactionService::FinishCommit(Entry& e, int64_t intent_copy, int64_t intent_offset,
                                      const std::map<int64_t, CopyRef>& copies) {
  e.intent = true;
  auto exists = CommittedCopyExists(e, intent_offset);
  if (!exists.ok()) {
    RS_LOG_WARN("transactions: looking for a half's commit failed half={} error=\"{}\"", e.origin,
                exists.status().ToString());
    return;
  }
  if (!*exists) {
    auto c = copies.find(intent_copy);
    auto half =
        reputter_.Read(c != copies.end() ? c->second.commit_log_offset : e.commit_log_offset);
    if (!half.ok() || !ReputCommit(half->record).ok()) {
      RS_LOG_WARN("transactions: finishing a commit failed, checked again later half={}", e.origin);
      return;
    }
  }
  (void)WriteOp("d", intent_copy);
  ++counters_.recovered_commits;
  Settle(e.origin, Settled::kCommitted);
}

Status TransactionService::Recover() {
  std::lock_guard lock(mu_);
  pending_.clear();
  pending_by_topic_.clear();
  settled_.clear();
  scan_next_ = 0;
  std::map<int64_t, CopyRef> copies;
  recovery_copies_ = &copies;
  Status scanned = ScanHalves();
  recovery_copies_ = nullptr;
  RS_RETURN_IF_ERROR(scanned);
  struct Ops {
    bool done = false, intent = false;
    int64_t intent_copy = 0, intent_offset = 0;
  };
  std::map<int64_t, Ops> ops;  // by origin
  int64_t q = store_.GetMinOffsetInQueue(kTransOpHalfTopic, 0).value();
  const int64_t max = store_.GetMaxOffsetInQueue(kTransOpHalfTopic, 0).value();
  while (q < max) {
    RS_ASSIGN_OR_RETURN(auto units,
                        store_.GetQueueUnits(kTransOpHalfTopic, 0, QueueOffset(q), kScanBatch));
    if (units.empty()) break;
    for (const format::ConsumeQueueUnit& u : units) {
      ++q;
      if (!u.IsValid() || u.IsBlank()) continue;
      auto op = reputter_.Read(u.offset.value());
      if (!op.ok()) continue;
      const auto copy = ParseOffset(op->record.body);
      if (!copy) continue;
      auto c = copies.find(*copy);
      const int64_t origin = c != copies.end() ? c->second.origin : *copy;
      const std::string_view tag = Prop(op->record.properties, format::kPropertyTags);
      if (tag == "d") {
        ops[origin].done = true;
      } else if (tag == "c") {
        Ops& o = ops[origin];
        o.intent = true;
        o.intent_copy = *copy;
        o.intent_offset = u.offset.value();
      }
    }
  }
  for (const auto& [origin, o] : ops) {
    if (o.done) {
      Settle(origin, o.intent ? Settled::kCommitted : Settled::kRolledBack);
      continue;
    }
    auto it = pending_.find(origin);
    if (o.intent && it != pending_.end()) {
      FinishCommit(it->second, o.intent_copy, o.intent_offset, copies);
    }
  }
  RS_LOG_INFO("transactions: recovered pending_halves={} settled={} commits_finished={}",
              pending_.size(), settled_.size(), counters_.recovered_commits);
  return Status::OK();
}

}  // namespace rocketstore::broker
