// File: broker/service/pull_service.h
//
// PullService: a consumer's pull (RocketMQ's PullMessageProcessor without the wire).
//
//   1. The subscription group must exist (SubscriptionGroupManager::FindOrAutoCreate: with
//      autoCreateSubscriptionGroup=false an unknown group answers SUBSCRIPTION_GROUP_NOT_EXIST
//      "subscription group [<g>] does not exist, <FAQ>", as 4.9.8) and allow consuming;
//      the topic must exist, be readable, and have the queue.
//   2. The subscription: the request's own (sysFlag bit 2, a pull consumer) or the one
//      the group's heartbeats registered (ConsumerManager: the group's table holds the
//      highest subVersion; a pull carrying a newer one than the broker knows answers
//      SUBSCRIPTION_NOT_LATEST until that heartbeat arrives).
//   3. MessageStore::GetMessage with the subscription's filter: TAG (tag hash), or SQL92
//      (broker/service/sql_filter.h; compiled once per subscription version). As 4.9.8:
//      an expression the request carries that does not compile answers
//      SUBSCRIPTION_PARSE_FAILED, a heartbeat subscription that does not compile
//      FILTER_DATA_NOT_EXIST, and SQL92 with enablePropertyFilter=false SYSTEM_ERROR
//      "The broker does not support consumer to filter message by SQL92". A batch whose
//      messages were all filtered out answers PULL_RETRY_IMMEDIATELY (NO_MATCHED_MESSAGE).
//      RocketMQ's status -> outcome table.
//   4. The commit offset (sysFlag bit 0) is stored on the first pass.
//   5. Nothing new and the suspend flag (bit 1): the pull parks in the PullHoldService for
//      suspendTimeoutMillis (1 s when longPollingEnable is off) and is answered when a
//      message arrives or the time is up.
//
// Ownership: everything passed to the constructor must outlive the service.
// Thread-safety: Pull from any number of threads.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "broker/metadata.h"
#include "broker/service/broker_permission.h"
#include "broker/service/client_channel.h"
#include "broker/service/consumer_manager.h"
#include "broker/service/outcome.h"
#include "broker/service/pull_hold_service.h"
#include "broker/service/sql_filter.h"
#include "broker/stats/broker_stats.h"
#include "store/message_store.h"

namespace rocketstore::broker {

// PULL_MESSAGE's sysFlag bits (PullSysFlag).
inline constexpr int32_t kPullCommitOffset = 1;
inline constexpr int32_t kPullSuspend = 2;
inline constexpr int32_t kPullSubscription = 4;

struct PullRequest {
  std::string consumer_group;
  std::string topic;
  int32_t queue_id = 0;
  int64_t queue_offset = 0;
  int32_t max_msg_nums = 32;
  int32_t sys_flag = 0;
  int64_t commit_offset = 0;
  int64_t suspend_timeout_millis = 0;
  std::string subscription = "*";  // with kPullSubscription
  int64_t sub_version = 0;
  std::string expression_type = "TAG";
};

struct PullResult {
  Verdict verdict;          // kOk = FOUND; kPull* for the other states
  std::string status_name;  // the store's GetMessageStatus name (the remark Java sends)
  int64_t next_begin_offset = 0;
  int64_t min_offset = 0;
  int64_t max_offset = 0;
  int64_t suggest_which_broker_id = 0;
  int32_t topic_sys_flag = 0;
  int32_t group_sys_flag = 0;
  std::vector<CommitLogBytes> messages;  // raw records, with kOk
};

class PullService {
 public:
  struct Options {
    bool long_polling = true;
    int64_t short_polling_ms = 1000;     // shortPollingTimeMills
    bool enable_property_filter = true;  // enablePropertyFilter (RocketMQ ships false)
    // When set, every pull that returns messages is counted (per topic and group). Must
    // outlive the service.
    BrokerStats* stats = nullptr;
    // brokerPermission (null: read and write): without read, every pull is refused
    // (broker/service/broker_permission.h). Must outlive the service.
    const BrokerPermission* permission = nullptr;
  };
  using Callback = std::function<void(PullResult)>;

  PullService(Options options, Clock& clock, MessageStore& store, TopicConfigManager& topics,
              SubscriptionGroupManager& groups, ConsumerOffsetManager& offsets,
              ConsumerManager& consumers, PullHoldService& holds);

  // The result when answered at once; nullopt when the pull was held: then `later` runs
  // exactly once with it, on the hold service's executor (never inside this call).
  std::optional<PullResult> Pull(const RequestContext& context, const PullRequest& request,
                                 Callback later);

  // CHECK_CLIENT_CONFIG (46) for one subscription (ClientManageProcessor.checkClientConfig):
  // TAG is always fine; otherwise SYSTEM_ERROR when property filters are off, and
  // SUBSCRIPTION_PARSE_FAILED with the parser's message when the expression does not
  // compile. Compiles through the same cache the pulls use.
  Verdict CheckSubscription(const std::string& group, const std::string& topic,
                            const std::string& expression_type, const std::string& expression,
                            int64_t sub_version);
  const SqlFilterCache& sql_filters() const { return sql_filters_; }
  // longPollingEnable / shortPollingTimeMills changed at run time (UPDATE_BROKER_CONFIG);
  // pulls arriving afterwards use them.
  void set_long_polling(bool on) { long_polling_.store(on, std::memory_order_relaxed); }
  void set_short_polling_ms(int64_t ms) { short_polling_ms_.store(ms, std::memory_order_relaxed); }

 private:
  // The subscription a pull filters by.
  struct Subscription {
    std::string expression;
    std::string type;
    int64_t version = 0;
    bool from_request = false;  // sysFlag bit 2: carried by the pull itself
  };
  // One pass; nullopt when the pull was parked (it answers later).
  std::optional<PullResult> PullOnce(const RequestContext& context, const PullRequest& request,
                                     bool first_pass, int64_t deadline_ms, const Callback& done);
  Verdict CheckAndFindSubscription(const PullRequest& request,
                                   const SubscriptionGroupConfig& group_config,
                                   Subscription* sub) const;
  // The SQL92 filter of `sub`, or the refusal Java answers.
  Result<CompiledSql> SqlFilterFor(const PullRequest& request, const Subscription& sub,
                                   Verdict* refusal);
  void Park(const RequestContext& context, PullRequest request, int64_t deadline_ms, Callback done);

  const Options options_;
  std::atomic<bool> long_polling_{options_.long_polling};
  std::atomic<int64_t> short_polling_ms_{options_.short_polling_ms};
  Clock& clock_;
  MessageStore& store_;
  TopicConfigManager& topics_;
  SubscriptionGroupManager& groups_;
  ConsumerOffsetManager& offsets_;
  ConsumerManager& consumers_;
  PullHoldService& holds_;
  SqlFilterCache sql_filters_;
};

}  // namespace rocketstore::broker
