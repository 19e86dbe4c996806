#include "store/consume_queue/consume_queue_table.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "store/format/message_record.h"
#include "store/layout/layout.h"

namespace rocketstore {
namespace {

// A queue directory name: the decimal form of a non-negative int32, exactly as
// std::to_string writes it (so the name maps back to the same directory).
bool ParseQueueId(const std::string& name, int32_t* id) {
  if (name.empty() || name.size() > 10) return false;
  int64_t v = 0;
  for (char c : name) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  if (v > std::numeric_limits<int32_t>::max()) return false;
  if (std::to_string(v) != name) return false;  // leading zeros
  *id = static_cast<int32_t>(v);
  return true;
}

bool IsDirectory(FileSystem& fs, const std::string& path) {
  Result<FileInfo> info = fs.Stat(path);
  return info.ok() && info->is_directory;
}

}  // namespace

ConsumeQueueTable::ConsumeQueueTable(FileSystem& fs, std::string root_dir,
                                     const ConsumeQueue::Options& options)
    : fs_(fs), root_dir_(std::move(root_dir)), options_(options) {}

Result<std::unique_ptr<ConsumeQueueTable>> ConsumeQueueTable::Open(
    FileSystem& fs, std::string root_dir, const ConsumeQueue::Options& options) {
  auto table =
      std::unique_ptr<ConsumeQueueTable>(new ConsumeQueueTable(fs, std::move(root_dir), options));
  RS_RETURN_IF_ERROR(table->LoadAll());
  return table;
}

Status ConsumeQueueTable::LoadAll() {
  const std::string base = layout::ConsumeQueueRootDir(root_dir_);
  RS_RETURN_IF_ERROR(fs_.CreateDirs(base));
  RS_ASSIGN_OR_RETURN(std::vector<std::string> topics, fs_.ListDir(base));
  std::map<std::string, QueueMap, std::less<>> loaded;
  for (const std::string& topic : topics) {
    const std::string topic_dir = layout::ConsumeQueueTopicDir(root_dir_, topic);
    if (!ValidateTopicDirName(topic).ok() || !IsDirectory(fs_, topic_dir)) continue;
    RS_ASSIGN_OR_RETURN(std::vector<std::string> ids, fs_.ListDir(topic_dir));
    for (const std::string& name : ids) {
      int32_t queue_id = 0;
      if (!ParseQueueId(name, &queue_id) || !IsDirectory(fs_, JoinPath(topic_dir, name))) continue;
      RS_ASSIGN_OR_RETURN(std::unique_ptr<ConsumeQueue> cq,
                          ConsumeQueue::Open(fs_, root_dir_, topic, queue_id, options_));
      loaded[topic][queue_id] = std::move(cq);
    }
  }
  std::unique_lock<std::shared_mutex> l(mu_);
  topics_ = std::move(loaded);
  return Status::OK();
}

std::shared_ptr<ConsumeQueue> ConsumeQueueTable::Find(std::string_view topic,
                                                      int32_t queue_id) const {
  std::shared_lock<std::shared_mutex> l(mu_);
  auto t = topics_.find(topic);
  if (t == topics_.end()) return nullptr;
  auto q = t->second.find(queue_id);
  return q == t->second.end() ? nullptr : q->second;
}

Result<std::shared_ptr<ConsumeQueue>> ConsumeQueueTable::FindOrCreate(std::string_view topic,
                                                                      int32_t queue_id) {
  if (auto cq = Find(topic, queue_id)) return cq;
  RS_RETURN_IF_ERROR(ValidateTopicDirName(topic));
  if (queue_id < 0) return InvalidArgument("negative queue id " + std::to_string(queue_id));
  std::lock_guard<std::mutex> create(create_mu_);
  if (auto cq = Find(topic, queue_id)) return cq;  // another thread created it meanwhile
  RS_ASSIGN_OR_RETURN(std::unique_ptr<ConsumeQueue> opened,
                      ConsumeQueue::Open(fs_, root_dir_, topic, queue_id, options_));
  std::shared_ptr<ConsumeQueue> cq = std::move(opened);
  if (cq->file_count() > 0) {
    // Files appeared that Open() at startup did not see (copied in by hand?): they must
    // be recovered before use, like every loaded queue.
    RS_RETURN_IF_ERROR(cq->Recover());
  }
  std::unique_lock<std::shared_mutex> l(mu_);
  auto t = topics_.find(topic);
  if (t == topics_.end()) t = topics_.emplace(std::string(topic), QueueMap()).first;
  t->second[queue_id] = cq;
  return cq;
}

Status ConsumeQueueTable::ForEach(const std::function<Status(ConsumeQueue&)>& fn) const {
  std::vector<std::shared_ptr<ConsumeQueue>> queues;
  {
    std::shared_lock<std::shared_mutex> l(mu_);
    for (const auto& [topic, by_id] : topics_) {
      for (const auto& [id, cq] : by_id) queues.push_back(cq);
    }
  }
  for (const auto& cq : queues) RS_RETURN_IF_ERROR(fn(*cq));
  return Status::OK();
}

Result<int> ConsumeQueueTable::RemoveTopic(std::string_view topic) {
  QueueMap removed;
  {
    std::lock_guard<std::mutex> create(create_mu_);
    std::unique_lock<std::shared_mutex> l(mu_);
    auto t = topics_.find(topic);
    if (t != topics_.end()) {
      removed = std::move(t->second);
      topics_.erase(t);
      generation_.fetch_add(1, std::memory_order_release);
    }
  }
  const std::string topic_dir = layout::ConsumeQueueTopicDir(root_dir_, topic);
  for (const auto& [id, cq] : removed) {
    RS_RETURN_IF_ERROR(cq->Destroy());
    const std::string dir = layout::ConsumeQueueDir(root_dir_, topic, id);
    if (Status s = fs_.RemoveDir(dir); !s.ok() && s.code() != StatusCode::kNotFound) {
      return s.WithContext("removing consume queue directory " + dir);
    }
  }
  if (!removed.empty() || IsDirectory(fs_, topic_dir)) {
    if (Status s = fs_.RemoveDir(topic_dir); !s.ok() && s.code() != StatusCode::kNotFound) {
      return s.WithContext("removing consume queue directory " + topic_dir);
    }
    RS_RETURN_IF_ERROR(fs_.SyncDir(JoinPath(root_dir_, layout::kConsumeQueueDir)));
  }
  return static_cast<int>(removed.size());
}

size_t ConsumeQueueTable::size() const {
  std::shared_lock<std::shared_mutex> l(mu_);
  size_t n = 0;
  for (const auto& [topic, by_id] : topics_) n += by_id.size();
  return n;
}

Status ConsumeQueueTable::RecoverAll() {
  return ForEach([](ConsumeQueue& cq) {
    return cq.Recover().WithContext("recover consume queue " + cq.dir());
  });
}

Status ConsumeQueueTable::TruncateDirtyAll(PhysicalOffset commit_log_end) {
  return ForEach([&](ConsumeQueue& cq) {
    return cq.TruncateDirty(commit_log_end).WithContext("truncate consume queue " + cq.dir());
  });
}

PhysicalOffset ConsumeQueueTable::MaxPhysicalEnd() const {
  int64_t max = 0;
  ForEach([&](ConsumeQueue& cq) {
    max = std::max(max, cq.LastPhysicalEnd().value());
    return Status::OK();
  }).IgnoreError();  // the visitor never fails
  return PhysicalOffset(max);
}

Status ConsumeQueueTable::FlushAll(int least_pages, FlushMethod method) {
  Status first_error;
  ForEach([&](ConsumeQueue& cq) {
    if (!cq.HasDirtyPages(least_pages)) return Status::OK();
    Result<PhysicalOffset> flushed = cq.Flush(method);
    if (!flushed.ok() && first_error.ok()) {
      first_error = flushed.status().WithContext("flush consume queue " + cq.dir());
    }
    return Status::OK();  // keep flushing the other queues
  }).IgnoreError();
  return first_error;
}

Result<PhysicalOffset> ConsumeQueueTable::Recover(const SinkRecoveryContext& ctx) {
  RS_RETURN_IF_ERROR(TruncateDirtyAll(ctx.commit_log_end));
  if (ctx.checkpoint_dispatched) return std::min(*ctx.checkpoint_dispatched, ctx.commit_log_end);
  if (ctx.last_run != LastRun::kClean) return std::min(ctx.scan_start, ctx.commit_log_end);
  return std::min(MaxPhysicalEnd(), ctx.commit_log_end);
}

Status ConsumeQueueTable::Dispatch(const DispatchRequest& request) {
  if (!format::TakesQueueOffset(request.sys_flag)) {
    return Status::OK();  // PREPARED and ROLLBACK records are not consumable
  }
  RS_ASSIGN_OR_RETURN(ConsumeQueue * cq, QueueForDispatch(request.topic, request.queue_id));
  return cq->PutUnit(request.commit_log_offset, request.size, request.tags_code,
                     request.queue_offset);
}

Result<ConsumeQueue*> ConsumeQueueTable::QueueForDispatch(std::string_view topic,
                                                          int32_t queue_id) {
  const uint64_t generation = generation_.load(std::memory_order_acquire);
  if (memo_.generation != generation || memo_.topics.size() >= kMemoTopics) {
    memo_.topics.clear();
    memo_.last_topic = nullptr;
    memo_.last_queues = nullptr;
    memo_.generation = generation;
  }
  MemoQueues* queues = nullptr;
  if (memo_.last_topic != nullptr && *memo_.last_topic == topic) {
    queues = memo_.last_queues;
  } else if (auto it = memo_.topics.find(topic); it != memo_.topics.end()) {
    queues = &it->second;
    memo_.last_topic = &it->first;
    memo_.last_queues = queues;
  }
  const auto at = static_cast<size_t>(queue_id);
  if (queues != nullptr && queue_id >= 0 && at < queues->size() && (*queues)[at] != nullptr) {
    return (*queues)[at].get();
  }
  RS_ASSIGN_OR_RETURN(std::shared_ptr<ConsumeQueue> cq, FindOrCreate(topic, queue_id));
  if (queue_id < kMemoQueues) {  // FindOrCreate refused a negative id
    if (queues == nullptr) {
      auto it = memo_.topics.try_emplace(std::string(topic)).first;
      queues = &it->second;
      memo_.last_topic = &it->first;
      memo_.last_queues = queues;
    }
    if (queues->size() <= at) queues->resize(at + 1);
    (*queues)[at] = cq;
  }
  memo_.held = std::move(cq);  // alive through the caller's PutUnit, whatever the id
  return memo_.held.get();
}

}  // namespace rocketstore
