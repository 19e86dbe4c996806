// File: broker/service/reput.h
//
// Reputter: the broker putting again a message it already stores (RocketMQ builds a
// MessageExtBrokerInner from a MessageExt for this): a consumer's send-back to %RETRY% or
// %DLQ%, a delay level or a timer falling due, and later a committed transaction. The
// draft passes the put pipeline with PutContext::origin saying why (hooks tell a re-put
// from a client's send), then MessageStore::PutMessage without waiting for the flush — as
// RocketMQ's re-puts do (waitStoreMsgOK=false).
//
//   RS_ASSIGN_OR_RETURN(StoredMessage m, reputter.Read(offset));
//   DraftMessage d = DraftFromRecord(m.record);   // views into m: keep m alive
//   d.SetTopic(real_topic);
//   d.queue_id = real_queue_id;
//   ReputResult r = reputter.Put(PutOrigin::kScheduled, d);
//
// Ownership: the store and the pipeline must outlive the reputter.
// Thread-safety: Read and Put from any number of threads; set_store_host before the
// broker's services start.
#pragma once

#include <cstdint>
#include <string>

#include "base/offsets.h"
#include "base/result.h"
#include "broker/hooks/put_pipeline.h"
#include "broker/service/outcome.h"
#include "store/message_store.h"

namespace rocketstore::broker {

// A record read back from the commit log: `record`'s views point into `bytes`, which
// keeps the segment mapped.
struct StoredMessage {
  CommitLogBytes bytes;
  format::RecordView record;
};

// A draft that re-puts `r` as it was stored: topic, queue, flag, body, properties, sys
// flag, born timestamp and host, reconsume times. Views into `r`'s bytes.
DraftMessage DraftFromRecord(const format::RecordView& r);

struct ReputResult {
  Verdict verdict;  // a hook's refusal, or the store's answer mapped like a send's
  PutMessageResult put;
  bool stored() const;  // the store took it (kOk, or stored but not flushed in time)
};

class Reputter {
 public:
  Reputter(MessageStore& store, const PutPipeline& pipeline) : store_(store), pipeline_(pipeline) {}

  // The record at `commit_log_offset`. NotFound when that offset is no longer (or not
  // yet) in the commit log; Corruption when the bytes there are not a record.
  Result<StoredMessage> Read(int64_t commit_log_offset) const;

  // Runs the pipeline over `draft` (hooks may rewrite it) and appends it.
  ReputResult Put(PutOrigin origin, DraftMessage& draft) const;

  void set_store_host(const format::HostAddress& host) { store_host_ = host; }
  const format::HostAddress& store_host() const { return store_host_; }

 private:
  MessageStore& store_;
  const PutPipeline& pipeline_;
  format::HostAddress store_host_ = format::HostAddress::V4(127, 0, 0, 1, 10911);
};

// The Verdict a send reports for a store's put result (kOk, kFlushDiskTimeout, ... or an
// error with the store's reason).
Verdict VerdictOfPut(const PutMessageResult& put);

}  // namespace rocketstore::broker
