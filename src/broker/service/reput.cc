#include "broker/service/reput.h"

namespace rocketstore::broker {

DraftMessage DraftFromRecord(const format::RecordView& r) {
  DraftMessage d;
  d.ViewTopic(r.topic);
  d.ViewProperties(r.properties);
  d.ViewBody(r.body);
  d.queue_id = r.queue_id;
  d.flag = r.flag;
  d.sys_flag = r.sys_flag;
  d.born_timestamp = r.born_timestamp;
  d.born_host = r.born_host;
  d.reconsume_times = r.reconsume_times;
  return d;
}

bool ReputResult::stored() const {
  switch (verdict.outcome) {
    case Outcome::kOk:
    case Outcome::kFlushDiskTimeout:
    case Outcome::kFlushSlaveTimeout:
    case Outcome::kSlaveNotAvailable:
      return true;
    default:
      return false;
  }
}

Verdict VerdictOfPut(const PutMessageResult& put) {
  switch (put.status) {
    case PutMessageStatus::kPutOk:
      return Verdict::Ok();
    case PutMessageStatus::kFlushDiskTimeout:
      return Verdict::Error(Outcome::kFlushDiskTimeout, "");
    case PutMessageStatus::kFlushSlaveTimeout:
      return Verdict::Error(Outcome::kFlushSlaveTimeout, "");
    case PutMessageStatus::kSlaveNotAvailable:
      return Verdict::Error(Outcome::kSlaveNotAvailable, "");
    case PutMessageStatus::kServiceNotAvailable:
      return Verdict::Error(Outcome::kServiceNotAvailable,
                            "store rejected the message: " + put.error);
    case PutMessageStatus::kMessageIllegal:
    case PutMessageStatus::kPropertiesSizeExceeded:
      return Verdict::Error(Outcome::kMessageIllegal, "store rejected the message: " + put.error);
    case PutMessageStatus::kOsPageCacheBusy:
      return Verdict::Error(Outcome::kSystemBusy, "store rejected the message: " + put.error);
    default:
      return Verdict::Error(Outcome::kSystemError, "store rejected the message: " + put.error);
  }
}

Result<StoredMessage> Reputter::Read(int64_t commit_log_offset) const {
  const PhysicalOffset offset(commit_log_offset);
  if (commit_log_offset < 0 || offset < store_.MinPhysicalOffset() ||
      offset >= store_.MaxPhysicalOffset()) {
    return NotFound("no message at commit-log offset " + std::to_string(commit_log_offset) +
                    " (the commit log holds " + std::to_string(store_.MinPhysicalOffset().value()) +
                    ".." + std::to_string(store_.MaxPhysicalOffset().value()) + ")");
  }
  StoredMessage m;
  RS_ASSIGN_OR_RETURN(m.bytes, store_.ReadRecord(offset));
  format::DecodeResult d = format::DecodeRecord(m.bytes.bytes, /*check_crc=*/false);
  if (d.outcome != format::DecodeOutcome::kRecord) {
    return Corruption("no message record at commit-log offset " +
                      std::to_string(commit_log_offset) +
                      (d.error.empty() ? std::string() : ": " + d.error));
  }
  m.record = d.record;
  return m;
}

ReputResult Reputter::Put(PutOrigin origin, DraftMessage& draft) const {
  ReputResult r;
  PutContext context;
  context.origin = origin;
  r.verdict = pipeline_.Run(context, std::span<DraftMessage>(&draft, 1));
  if (!r.verdict.ok()) return r;
  r.put = store_.PutMessage(draft.ToStore(store_host_), /*wait_for_flush=*/false);
  r.verdict = VerdictOfPut(r.put);
  return r;
}

}  // namespace rocketstore::broker
