// The read side of MessageStore: GetMessage (spec §9.2) and the queue queries.

#include <algorithm>

#include "base/coding.h"
#include "base/java_hash.h"
#include "store/message_store.h"

namespace rocketstore {
namespace {

// RocketMQ's defaults (spec §14): pull batch limits for data in memory / on disk.
constexpr int64_t kMaxTransferBytesInMemory = 256 * 1024;
constexpr int kMaxTransferCountInMemory = 32;
constexpr int64_t kMaxTransferBytesOnDisk = 64 * 1024;
constexpr int kMaxTransferCountOnDisk = 8;
// At most this many units are examined per call: max(16000, maxMsgNums * 20) bytes.
constexpr int kMaxFilterBytes = 16000;

bool ValidQueue(std::string_view topic, int32_t queue_id) {
  return queue_id >= 0 && ValidateTopicDirName(topic).ok();
}

}  // namespace

std::string_view GetMessageStatusName(GetMessageStatus s) {
  switch (s) {
    case GetMessageStatus::kFound:
      return "FOUND";
    case GetMessageStatus::kNoMatchedMessage:
      return "NO_MATCHED_MESSAGE";
    case GetMessageStatus::kMessageWasRemoving:
      return "MESSAGE_WAS_REMOVING";
    case GetMessageStatus::kOffsetFoundNull:
      return "OFFSET_FOUND_NULL";
    case GetMessageStatus::kOffsetOverflowBadly:
      return "OFFSET_OVERFLOW_BADLY";
    case GetMessageStatus::kOffsetOverflowOne:
      return "OFFSET_OVERFLOW_ONE";
    case GetMessageStatus::kOffsetTooSmall:
      return "OFFSET_TOO_SMALL";
    case GetMessageStatus::kNoMatchedLogicQueue:
      return "NO_MATCHED_LOGIC_QUEUE";
    case GetMessageStatus::kNoMessageInQueue:
      return "NO_MESSAGE_IN_QUEUE";
  }
  return "?";
}

TagFilter::TagFilter(std::string_view expression) {
  auto trim = [](std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
  };
  expression = trim(expression);
  if (expression.empty() || expression == "*") {
    all_ = true;
    return;
  }
  size_t pos = 0;
  while (pos <= expression.size()) {
    size_t bar = expression.find("||", pos);
    std::string_view part = trim(
        expression.substr(pos, bar == std::string_view::npos ? std::string_view::npos : bar - pos));
    if (!part.empty()) {
      tags_.emplace_back(part);
      codes_.insert(JavaStringHash(part));
    }
    if (bar == std::string_view::npos) break;
    pos = bar + 2;
  }
  if (tags_.empty()) all_ = true;
}

bool TagFilter::MatchesTagsCode(int64_t tags_code) const {
  if (all_) return true;
  // An ext-address tagsCode cannot be checked here: let the message through.
  if (format::IsConsumeQueueExtAddress(tags_code)) return true;
  return codes_.count(static_cast<int32_t>(tags_code)) > 0;
}

GetMessageResult MessageStore::GetMessage(const GetMessageRequest& req) const {
  GetMessageResult r;
  if (!ValidQueue(req.topic, req.queue_id)) {
    r.status = GetMessageStatus::kNoMatchedLogicQueue;
    return r;
  }
  std::shared_ptr<ConsumeQueue> cq = consume_queues_->Find(req.topic, req.queue_id);
  if (!cq) {
    r.status = GetMessageStatus::kNoMessageInQueue;  // RocketMQ creates it on lookup
    return r;
  }
  const QueueOffset min = cq->MinOffset();
  const QueueOffset max = cq->MaxOffset();
  r.min_offset = min;
  r.max_offset = max;
  const QueueOffset offset = req.offset;
  if (max.value() == 0) {
    r.status = GetMessageStatus::kNoMessageInQueue;
    r.next_begin_offset = QueueOffset(0);
    return r;
  }
  if (offset < min) {
    r.status = GetMessageStatus::kOffsetTooSmall;
    r.next_begin_offset = min;
    return r;
  }
  if (offset == max) {
    r.status = GetMessageStatus::kOffsetOverflowOne;
    r.next_begin_offset = offset;
    return r;
  }
  if (offset > max) {
    r.status = GetMessageStatus::kOffsetOverflowBadly;
    r.next_begin_offset = max;
    return r;
  }
  const int max_msgs = std::max(1, req.max_msg_nums);
  const int max_units = std::max(kMaxFilterBytes, max_msgs * 20) / 20;
  Result<ConsumeQueue::UnitRange> range = cq->GetUnits(offset, max_units);
  if (!range.ok()) {
    r.status = GetMessageStatus::kOffsetFoundNull;
    r.next_begin_offset = cq->RollNextFile(offset);
    return r;
  }

  r.status = GetMessageStatus::kNoMatchedMessage;
  const PhysicalOffset log_max = commit_log_->MaxOffset();
  const int64_t memory_limit = in_memory_bytes_;  // accessMessageInMemoryMaxRatio of RAM
  PhysicalOffset next_phy_file_start(0);
  int examined = 0;
  PhysicalOffset last_examined(0);
  for (int i = 0; i < range->size(); ++i) {
    const ConsumeQueue::Unit unit = (*range)[i];
    const bool in_disk = (log_max - unit.offset) > memory_limit;
    const int count = static_cast<int>(r.messages.size());
    if (count > 0) {  // a batch is never full before its first message
      const bool full =
          count >= max_msgs || (in_disk ? (r.total_bytes + unit.size > kMaxTransferBytesOnDisk ||
                                           count >= kMaxTransferCountOnDisk)
                                        : (r.total_bytes + unit.size > kMaxTransferBytesInMemory ||
                                           count >= kMaxTransferCountInMemory));
      if (full) break;
    }
    ++examined;
    last_examined = unit.offset;
    if (unit.offset < next_phy_file_start) continue;  // inside a removed segment
    if (req.filter && !req.filter->MatchesTagsCode(unit.tags_code)) continue;
    Result<CommitLogBytes> bytes = commit_log_->Read(unit.offset, unit.size);
    if (!bytes.ok()) {
      if (r.messages.empty()) r.status = GetMessageStatus::kMessageWasRemoving;
      next_phy_file_start = commit_log_->NextSegmentStart(unit.offset);
      continue;
    }
    if (req.filter && !req.filter->MatchesRecord(bytes->bytes)) continue;
    r.total_bytes += unit.size;
    r.queue_offsets.push_back(range->first + i);
    r.messages.push_back(std::move(bytes).value());
    r.status = GetMessageStatus::kFound;
  }
  r.next_begin_offset = offset + examined;
  r.suggest_pulling_from_slave = examined > 0 && (log_max - last_examined) > memory_limit;
  return r;
}

QueueOffset MessageStore::GetMinOffsetInQueue(std::string_view topic, int32_t queue_id) const {
  auto cq = consume_queues_->Find(topic, queue_id);
  return cq ? cq->MinOffset() : QueueOffset(0);
}

QueueOffset MessageStore::GetMaxOffsetInQueue(std::string_view topic, int32_t queue_id) const {
  auto cq = consume_queues_->Find(topic, queue_id);
  return cq ? cq->MaxOffset() : QueueOffset(0);
}

Result<std::vector<format::ConsumeQueueUnit>> MessageStore::GetQueueUnits(std::string_view topic,
                                                                          int32_t queue_id,
                                                                          QueueOffset from,
                                                                          int max_units) const {
  if (max_units <= 0) return InvalidArgument("max_units must be positive");
  std::vector<format::ConsumeQueueUnit> out;
  auto cq = consume_queues_->Find(topic, queue_id);
  if (!cq || from >= cq->MaxOffset()) return out;
  if (from < cq->MinOffset()) {
    return NotFound("queue " + std::string(topic) + ":" + std::to_string(queue_id) + " starts at " +
                    std::to_string(cq->MinOffset().value()) + ", not " +
                    std::to_string(from.value()));
  }
  RS_ASSIGN_OR_RETURN(ConsumeQueue::UnitRange range, cq->GetUnits(from, max_units));
  out.reserve(static_cast<size_t>(range.size()));
  for (int i = 0; i < range.size(); ++i) out.push_back(range[i]);
  return out;
}

Result<int64_t> MessageStore::GetEarliestMessageTime() const {
  const PhysicalOffset min = commit_log_->MinOffset();
  if (min.value() >= commit_log_->MaxOffset().value()) return NotFound("the commit log is empty");
  RS_ASSIGN_OR_RETURN(CommitLogBytes bytes, commit_log_->ReadRecord(min));
  format::DecodeResult d = format::DecodeRecord(bytes.bytes, false);
  if (d.outcome != format::DecodeOutcome::kRecord) {
    return Corruption("no record at commit log offset " + std::to_string(min.value()));
  }
  return d.record.store_timestamp;
}

Result<int64_t> MessageStore::StoreTimeAt(PhysicalOffset offset, int32_t size) const {
  RS_ASSIGN_OR_RETURN(CommitLogBytes bytes, commit_log_->Read(offset, size));  // kNotFound: gone
  format::DecodeResult d = format::DecodeRecord(bytes.bytes, false);
  if (d.outcome != format::DecodeOutcome::kRecord) {
    return Corruption("no record at commit log offset " + std::to_string(offset.value()));
  }
  return d.record.store_timestamp;
}

Result<MessageStore::Residency> MessageStore::CommitLogResidency(size_t max_files) const {
  const std::vector<std::shared_ptr<MappedFile>> files = commit_log_->segments().Files();
  Residency r;
  const size_t first = files.size() > max_files ? files.size() - max_files : 0;
  for (size_t i = first; i < files.size(); ++i) {
    RS_ASSIGN_OR_RETURN(size_t resident, files[i]->ResidentBytes());
    r.resident_bytes += static_cast<int64_t>(resident);
    r.examined_bytes += files[i]->file_size();
  }
  return r;
}

int64_t MessageStore::CommitLogFileBytes() const {
  return static_cast<int64_t>(commit_log_->segments().file_count()) *
         commit_log_->segments().file_size();
}

Result<int64_t> MessageStore::EarliestStoreTime() const {
  const PhysicalOffset min = commit_log_->MinOffset();
  if (min.value() >= commit_log_->MaxOffset().value()) return NotFound("the commit log is empty");
  RS_ASSIGN_OR_RETURN(CommitLogBytes bytes, commit_log_->ReadRecord(min));
  format::DecodeResult d = format::DecodeRecord(bytes.bytes, false);
  if (d.outcome != format::DecodeOutcome::kRecord) {
    return Corruption("no record at commit log offset " + std::to_string(min.value()));
  }
  return d.record.store_timestamp;
}

Result<QueueOffset> MessageStore::GetOffsetInQueueByTime(std::string_view topic, int32_t queue_id,
                                                         int64_t timestamp) const {
  auto cq = consume_queues_->Find(topic, queue_id);
  if (!cq) return QueueOffset(0);
  return cq->OffsetByTimeRocketMq498(
      timestamp, [this](PhysicalOffset o, int32_t size) { return StoreTimeAt(o, size); });
}

Result<QueueOffset> MessageStore::GetFirstOffsetInQueueAtOrAfter(std::string_view topic,
                                                                 int32_t queue_id,
                                                                 int64_t timestamp) const {
  auto cq = consume_queues_->Find(topic, queue_id);
  if (!cq) return QueueOffset(0);
  return cq->OffsetByTime(timestamp,
                          [this](PhysicalOffset o, int32_t size) { return StoreTimeAt(o, size); });
}

Result<int64_t> MessageStore::GetMessageStoreTime(std::string_view topic, int32_t queue_id,
                                                  QueueOffset offset) const {
  auto cq = consume_queues_->Find(topic, queue_id);
  if (!cq) return NotFound("no queue " + std::string(topic) + ":" + std::to_string(queue_id));
  RS_ASSIGN_OR_RETURN(ConsumeQueue::Unit unit, cq->GetUnit(offset));
  RS_ASSIGN_OR_RETURN(CommitLogBytes bytes, commit_log_->Read(unit.offset, unit.size));
  format::DecodeResult d = format::DecodeRecord(bytes.bytes, false);
  if (d.outcome != format::DecodeOutcome::kRecord) {
    return Corruption("no record at commit log offset " + std::to_string(unit.offset.value()));
  }
  return d.record.store_timestamp;
}

bool MessageStore::CheckInDiskByConsumeOffset(std::string_view topic, int32_t queue_id,
                                              QueueOffset offset) const {
  auto cq = consume_queues_->Find(topic, queue_id);
  if (!cq) return false;
  auto unit = cq->GetUnit(offset);
  if (!unit.ok()) return false;
  return (commit_log_->MaxOffset() - unit->offset) > in_memory_bytes_;
}

Result<int64_t> MessageStore::GetEarliestMessageTime(std::string_view topic,
                                                     int32_t queue_id) const {
  auto cq = consume_queues_->Find(topic, queue_id);
  if (!cq || cq->MinOffset() >= cq->MaxOffset()) {
    return NotFound("queue " + std::string(topic) + ":" + std::to_string(queue_id) +
                    " has no messages");
  }
  return GetMessageStoreTime(topic, queue_id, cq->MinOffset());
}

Result<QueryMessageResult> MessageStore::QueryMessage(std::string_view topic, std::string_view key,
                                                      int max_num, int64_t begin,
                                                      int64_t end) const {
  if (!index_) return FailedPrecondition("the message index is disabled (messageIndexEnable)");
  return rocketstore::QueryMessage(*index_, CommitLogRecordLoader(*commit_log_), topic, key,
                                   max_num, begin, end);
}

Result<LoadedRecord> MessageStore::LookMessageByMsgId(std::string_view msg_id) const {
  return LookupByOffsetMsgId(CommitLogRecordLoader(*commit_log_), msg_id);
}

}  // namespace rocketstore
