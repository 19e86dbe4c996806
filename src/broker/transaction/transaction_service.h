// File: broker/transaction/transaction_service.h
//
// TransactionService: settles transaction half messages (RocketMQ 4.9.8
// EndTransactionProcessor, TransactionalMessageServiceImpl, TransactionalMessageCheckService,
// DefaultTransactionalMessageCheckListener). HalfMessageHook stores halves in
// RMQ_SYS_TRANS_HALF_TOPIC queue 0; this service keeps the table of the pending ones.
//
// Identity. A half is known by the queue offset of its first copy in the half topic (the
// "origin"). A check renews the half (a new copy at the end of the half topic carrying
// TRANSACTION_CHECK_TIMES and TRAN_PREPARED_QUEUE_OFFSET = the origin), so the copies of
// one transaction share the origin; END_TRANSACTION may name any copy.
//
// Op records (RMQ_SYS_TRANS_OP_HALF_TOPIC queue 0, Java's format: body = a half copy's
// queue offset in decimal text):
//   tag "d"  the half is settled (committed, rolled back or discarded). Java's REMOVETAG.
//   tag "c"  commit intent, written before the commit's re-put (rocketstore's own; a Java
//            broker logs and ignores unknown tags).
// Commit = "c", then the re-put to REAL_TOPIC / REAL_QID (sys flag COMMIT_TYPE, properties
// as the half's, preparedTransactionOffset = the named copy's commit-log offset, as Java),
// then "d". Exactly once: a repeated END_TRANSACTION finds the half settled and re-puts
// nothing; after a crash between "c" and "d" recovery looks in the real queue (from its
// end back to the intent's commit-log offset) for a COMMIT record whose
// preparedTransactionOffset is one of the half's copies, re-puts only when there is none,
// then writes "d". Rollback = "d" only. Every put goes through the pipeline
// (PutOrigin::kSystem) without waiting for the flush; the op records and the re-put are
// appended in this order to one commit log, so a crash keeps a prefix of them.
//
// END_TRANSACTION answers (Java's): a half that cannot be read at commitLogOffset (or is
// not in the half topic) kSystemError "Find prepared transaction message failed"; a wrong
// producer group / tranStateTableOffset / commitLogOffset kSystemError "The producer group
// wrong" / "The transaction state table offset wrong" / "The commit log offset wrong";
// commitOrRollback NOT_TYPE (UNKNOW): no answer at all (nullopt, as Java returns null).
// Already settled (Java would commit again): no effect, kOk when the decision is the same
// or no longer known, kSystemError "transaction already committed/rolled back" when it
// contradicts the recorded one.
//
// Checks, RunOnce(now_ms): a pending half is due when now - its first store time >= its
// immunity (CHECK_IMMUNITY_TIME_IN_SECONDS * 1000, else transaction_timeout_ms) and it was
// not checked in the last check_interval_ms. A due half checked check_max times already is
// put to TRANS_CHECK_MAX_TIME_TOPIC queue 0 and settled ("d"); otherwise, when its producer
// group has a live channel, it is renewed and CHECK_TRANSACTION_STATE is sent with the new
// copy's offsets (body: the copy, topic / queue shown as the real ones, as Java). No live
// channel: skipped and counted (no check consumed), tried again an interval later.
// Java measures immunity from the producer's born timestamp; rocketstore from the broker's
// store timestamp of the first copy (immune to producer clock skew).
//
// Recovery, Recover(): reads the whole half queue and op queue (from the retained start)
// and rebuilds the table; finishes commits left between "c" and "d". Call once, after the
// store was opened and before requests arrive. Afterwards new halves are learned from the
// half queue at every step (each tick_ms) and at once by END_TRANSACTION.
//
// Ownership: the store, reputter, producers, topics and clock must outlive the service.
// Thread-safety: every public method from any thread (one internal mutex; a step holds it
// while it puts and sends).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/clock.h"
#include "base/result.h"
#include "base/service_runner.h"
#include "broker/metadata.h"
#include "broker/service/producer_manager.h"
#include "broker/service/reput.h"
#include "broker/stats/broker_stats.h"
#include "store/message_store.h"

namespace rocketstore::broker {

struct EndTransactionRequest {
  std::string producer_group;
  int64_t tran_state_table_offset = 0;  // the named copy's queue offset in the half topic
  int64_t commit_log_offset = 0;        // the named copy's commit-log offset
  int32_t commit_or_rollback = 0;       // format::kTransaction{NotType,Commit,Rollback}
  bool from_transaction_check = false;
};

class TransactionService {
 public:
  struct Options {
    int64_t transaction_timeout_ms = 6000;  // transactionTimeOut
    int64_t check_interval_ms = 60000;      // transactionCheckInterval
    int32_t check_max = 15;                 // transactionCheckMax
    int64_t tick_ms = 1000;                 // how often the runner steps
    int max_checks_per_step = 2000;         // a step stays short under a backlog
  };

  // One pending half, as inspect and tests see it.
  struct PendingView {
    int64_t origin_queue_offset = 0;
    int64_t queue_offset = 0;       // of the latest copy
    int64_t commit_log_offset = 0;  // of the latest copy
    std::string producer_group, real_topic;
    int32_t real_queue_id = 0;
    int32_t check_times = 0;
    int64_t first_store_ms = 0;
    int64_t last_check_ms = 0;   // 0: never checked since the broker started
    bool commit_intent = false;  // a "c" was written but the commit is not finished
  };

  struct Counters {
    uint64_t committed = 0, rolled_back = 0, checks_sent = 0, skipped_no_producer = 0,
             discarded = 0, recovered_commits = 0, failed_puts = 0;
  };

  TransactionService(Options options, MessageStore& store, const Reputter& reputter,
                     ProducerManager& producers, TopicConfigManager* topics, Clock& clock);
  ~TransactionService() { Stop(); }
  TransactionService(const TransactionService&) = delete;
  TransactionService& operator=(const TransactionService&) = delete;

  // See the file comment. Errors: the store's (a record that cannot be read is skipped).
  Status Recover();
  // nullopt: no answer (commitOrRollback NOT_TYPE), else the answer's outcome and remark.
  std::optional<Verdict> EndTransaction(const EndTransactionRequest& request);
  // One check pass at wall time now_ms; returns the number of halves checked or discarded.
  int RunOnce(int64_t now_ms);

  void Start();
  void Stop();

  // Per-topic commit / rollback counting (rocketmq_commit_messages_total, ...); null: off.
  // Set before requests arrive; must outlive the service.
  void set_stats(BrokerStats* stats) { stats_ = stats; }

  std::vector<PendingView> Pending() const;
  // Pending halves per real topic (rocketmq_half_messages), sorted by topic: kept as the
  // halves are learned and settled, so reading it copies one entry per topic, not the
  // halves.
  std::vector<std::pair<std::string, int64_t>> PendingCountsByTopic() const;
  Counters counters() const;

 private:
  struct Entry {
    int64_t origin = 0;
    int64_t queue_offset = 0, commit_log_offset = 0;  // latest copy
    std::vector<int64_t> copy_commit_log_offsets;     // every copy seen, oldest first
    std::string group, real_topic;
    int32_t real_queue_id = 0;
    int32_t check_times = 0;
    int64_t first_store_ms = 0, immunity_ms = 0, last_check_ms = 0;
    bool intent = false;
  };
  enum class Settled { kCommitted, kRolledBack, kDiscarded };
  struct CopyRef {
    int64_t origin = 0, commit_log_offset = 0;
  };

  // All REQUIRES mu_.
  Status ScanHalves();  // reads the half queue from scan_next_ to its end
  void Learn(const format::RecordView& r, int64_t queue_offset);
  static int64_t OriginOf(const format::RecordView& r, int64_t queue_offset);
  Verdict ReputCommit(const format::RecordView& half);
  void FinishCommit(Entry& e, int64_t intent_copy, int64_t intent_offset,
                    const std::map<int64_t, CopyRef>& copies);
  Verdict WriteOp(std::string_view tag, int64_t copy_queue_offset);
  void Settle(int64_t origin, Settled how);
  void ErasePending(int64_t origin);  // and its topic's count
  Result<bool> CommittedCopyExists(const Entry& e, int64_t intent_offset);
  bool CheckOne(Entry& e, int64_t now_ms);  // false: stop the step (store failing)
  bool Discard(Entry& e);

  const Options options_;
  MessageStore& store_;
  const Reputter& reputter_;
  ProducerManager& producers_;
  TopicConfigManager* topics_;
  Clock& clock_;
  mutable std::mutex mu_;
  std::map<int64_t, Entry> pending_;                              // GUARDED_BY(mu_), by origin
  std::map<std::string, int64_t, std::less<>> pending_by_topic_;  // GUARDED_BY(mu_), > 0
  std::map<int64_t, Settled> settled_;                     // GUARDED_BY(mu_), the most recent ones
  int64_t scan_next_ = 0;                                  // GUARDED_BY(mu_)
  std::map<int64_t, CopyRef>* recovery_copies_ = nullptr;  // queue offset -> copy, in Recover
  Counters counters_;                                      // GUARDED_BY(mu_)
  BrokerStats* stats_ = nullptr;
  std::unique_ptr<ServiceRunner> runner_;
};

}  // namespace rocketstore::broker
