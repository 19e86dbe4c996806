// File: store/consume_queue/consume_queue_table.h
//
// ConsumeQueueTable: every ConsumeQueue of one store (`<root>/consumequeue/<topic>/<id>/`),
// RocketMQ's consumeQueueTable, and the dispatcher target that builds them.
//
// Startup, in this order (spec §6.3/§6.4; no concurrent users until it is done; the store
// drives it through the DispatchSink interface):
//   Open()                 loads every `consumequeue/<topic>/<queueId>` directory whose
//                          topic is a valid name and whose queue id is a canonical
//                          non-negative decimal int ("7", not "07" or "x"); other entries
//                          are ignored. A queue whose files do not load fails the Open.
//   RecoverAll()           ConsumeQueue::Recover on every queue.
//   (commit-log recovery)
//   TruncateDirtyAll(end)  drops units that point at or past the recovered commit-log end.
//   MaxPhysicalEnd()       where dispatch must restart.
// Then the dispatcher thread calls Dispatch() for every commit-log record.
//
// Dispatch (spec §6.5): records of transaction type NOT (0) and COMMIT (8) become units
// (PutUnit); PREPARED (4) and ROLLBACK (12) records are skipped. The queue is created on
// first use. Dispatch remembers the queues it wrote to, by topic and queue id, so most
// records skip the table's lock and its two ordered lookups; RemoveTopic makes it forget
// them all (a generation count), and a removed topic's queues are released at the next
// Dispatch that writes a unit.
//
// Thread-safety: Find/FindOrCreate/ForEach/MaxPhysicalEnd/FlushAll may be called from any
// thread concurrently with Dispatch (lookups share a reader lock; creating a queue takes a
// separate creation lock for its I/O and the writer lock only to insert it). The
// per-queue rules of consume_queue.h apply to the queues handed out: Dispatch is the only
// writer. Queues leave the table only through RemoveTopic (an admin deleting a topic); a
// shared_ptr handed out stays valid (its files may be gone); it also keeps the queue
// alive after the table is gone.
// Ownership: `fs` must outlive the table and its queues.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/offsets.h"
#include "base/result.h"
#include "base/status.h"
#include "base/string_hash.h"
#include "io/file_system.h"
#include "store/consume_queue/consume_queue.h"
#include "store/dispatch/sink.h"
#include "store/segment/mapped_file.h"

namespace rocketstore {

class ConsumeQueueTable final : public DispatchSink {
 public:
  // Loads the queues under `<root_dir>/consumequeue/` (created if missing).
  static Result<std::unique_ptr<ConsumeQueueTable>> Open(FileSystem& fs, std::string root_dir,
                                                         const ConsumeQueue::Options& options);

  ConsumeQueueTable(const ConsumeQueueTable&) = delete;
  ConsumeQueueTable& operator=(const ConsumeQueueTable&) = delete;

  // The queue, or nullptr if it does not exist.
  std::shared_ptr<ConsumeQueue> Find(std::string_view topic, int32_t queue_id) const;
  // The queue, created (empty, ready for PutUnit) if it does not exist. InvalidArgument
  // for a bad topic name (ValidateTopicDirName) or a negative queue id.
  Result<std::shared_ptr<ConsumeQueue>> FindOrCreate(std::string_view topic, int32_t queue_id);

  // Visits every queue (in topic, queue-id order) until `fn` fails; returns that error.
  // Queues created meanwhile may or may not be visited.
  Status ForEach(const std::function<Status(ConsumeQueue&)>& fn) const;
  size_t size() const;

  // DELETE_TOPIC_IN_BROKER: takes the topic's queues out of the table, removes their files
  // and directories (`<root>/consumequeue/<topic>/`). Returns how many queues it removed
  // (0 for an unknown topic). A unit dispatched for the topic afterwards creates a fresh
  // queue. On an I/O error the queues are out of the table and the error names the
  // directory left behind (Open ignores nothing: it would load it again at restart).
  Result<int> RemoveTopic(std::string_view topic);

  Status RecoverAll();
  Status TruncateDirtyAll(PhysicalOffset commit_log_end);
  // The largest LastPhysicalEnd() over all queues, or 0 when no queue holds a unit
  // (RocketMQ's recoverConsumeQueue starts from 0).
  PhysicalOffset MaxPhysicalEnd() const;
  // Flushes every queue with at least `least_pages` dirty pages (every dirty queue when 0).
  // Tries all queues and returns the first error.
  Status FlushAll(int least_pages, FlushMethod method = FlushMethod::kMsync);

  // DispatchSink: PutUnit for NOT and COMMIT records, nothing for the others.
  std::string_view SinkName() const override { return "consume queues"; }
  Status Dispatch(const DispatchRequest& request) override;
  // RecoverAll().
  Status PrepareRecovery() override { return RecoverAll(); }
  // TruncateDirtyAll(end), then the resume offset: the checkpoint's dispatched offset when
  // it was verified; after a crash without it, where the commit-log walk started; after a
  // clean shutdown, MaxPhysicalEnd() (RocketMQ's rules).
  Result<PhysicalOffset> Recover(const SinkRecoveryContext& ctx) override;
  // FlushAll(0).
  Status FlushForCheckpoint() override { return FlushAll(0); }

 private:
  ConsumeQueueTable(FileSystem& fs, std::string root_dir, const ConsumeQueue::Options& options);
  Status LoadAll();

  FileSystem& fs_;
  const std::string root_dir_;
  const ConsumeQueue::Options options_;

  using QueueMap = std::map<int32_t, std::shared_ptr<ConsumeQueue>>;
  mutable std::shared_mutex mu_;
  std::map<std::string, QueueMap, std::less<>> topics_;  // GUARDED_BY(mu_)
  std::mutex create_mu_;  // one creator at a time (its I/O runs outside mu_)
  // Bumped (under mu_) each time queues leave the table: a memo of an older generation
  // may hold removed queues.
  std::atomic<uint64_t> generation_{0};

  // Dispatch's memo (the dispatcher thread's only: see sink.h): each topic it has written
  // to, with its queues by id as found in the table (ids below kMemoQueues), all found in
  // `generation`; the last topic's entry is looked at first. Forgotten as a whole when the
  // generation moves on or it holds kMemoTopics topics.
  static constexpr int32_t kMemoQueues = 1024;
  static constexpr size_t kMemoTopics = 4096;
  using MemoQueues = std::vector<std::shared_ptr<ConsumeQueue>>;
  struct DispatchMemo {
    std::unordered_map<std::string, MemoQueues, StringHash, std::equal_to<>> topics;
    uint64_t generation = 0;
    const std::string* last_topic = nullptr;  // a key of `topics` (nodes do not move)
    MemoQueues* last_queues = nullptr;
    std::shared_ptr<ConsumeQueue> held;  // the last one found in the table, whatever its id
  };
  DispatchMemo memo_;
  // The queue of (topic, queue_id) for Dispatch: from the memo, else FindOrCreate (then
  // remembered).
  Result<ConsumeQueue*> QueueForDispatch(std::string_view topic, int32_t queue_id);
};

}  // namespace rocketstore
