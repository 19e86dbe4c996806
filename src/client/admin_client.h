// File: client/admin_client.h
//
// AdminClient: typed calls of the admin protocol (issue #18 §1), what mqadmin's
// DefaultMQAdminExt sends, returning the decoded bodies of client/admin_types.h. Name
// server calls rotate over the configured name servers; broker calls name the broker's
// address (see Brokers()). A reply code other than SUCCESS is an error naming the request,
// the code and the remark; REQUEST_CODE_NOT_SUPPORTED (3) says the server lacks the code;
// TOPIC_NOT_EXIST / QUERY_NOT_FOUND / SUBSCRIPTION_GROUP_NOT_EXIST are kNotFound.
//
// Ownership: owns its connections. Thread-safety: any thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "client/admin_ops_types.h"
#include "client/admin_types.h"
#include "client/broker_calls.h"
#include "client/route.h"
#include "client/transport.h"

namespace rocketstore::client {

struct AdminOptions {
  std::vector<std::string> namesrv_addrs;
  int64_t timeout_ms = 3000;
};

class AdminClient {
 public:
  explicit AdminClient(AdminOptions options);

  // ---- name server ----
  Result<ClusterInfo> GetClusterInfo();                                          // 106
  Result<std::shared_ptr<const TopicRoute>> GetRoute(const std::string& topic);  // 105
  Result<TopicList> GetAllTopics();                                              // 206
  Result<TopicList> GetTopicsByCluster(const std::string& cluster);              // 224
  Result<TopicList> GetSystemTopics();                                           // 304
  Status DeleteTopicInNamesrv(const std::string& topic);                         // 216
  Status PutKvConfig(const std::string& ns, const std::string& key, const std::string& value);
  Result<std::string> GetKvConfig(const std::string& ns, const std::string& key);  // 101
  Status DeleteKvConfig(const std::string& ns, const std::string& key);            // 102
  Result<KvTable> GetKvList(const std::string& ns);                                // 219
  Result<std::map<std::string, std::string>> GetNamesrvConfig();                   // 319
  Status UpdateNamesrvConfig(const std::map<std::string, std::string>& changes);   // 318
  // To one name server (as mqadmin does per name server): the number of topics changed.
  Result<int32_t> WipeWritePermOfBroker(const std::string& namesrv_addr,
                                        const std::string& broker_name);  // 205
  Result<int32_t> AddWritePermOfBroker(const std::string& namesrv_addr,
                                       const std::string& broker_name);  // 327
  // What a broker asks before re-registering: has the name server a different version?
  Result<DataVersionAnswer> QueryDataVersion(const std::string& namesrv_addr,
                                             const std::string& cluster,
                                             const std::string& broker_name,
                                             const std::string& broker_addr, int64_t broker_id,
                                             const DataVersionValue& version);  // 322

  // ---- broker (addr = "ip:port") ----
  Result<KvTable> GetBrokerRuntimeInfo(const std::string& addr);                        // 28
  Result<std::map<std::string, std::string>> GetBrokerConfig(const std::string& addr);  // 26
  Status UpdateBrokerConfig(const std::string& addr,
                            const std::map<std::string, std::string>& changes);         // 25
  Result<TopicConfigTable> GetAllTopicConfig(const std::string& addr);                  // 21
  Result<TopicStats> GetTopicStats(const std::string& addr, const std::string& topic);  // 202
  // Sends every field of config (filter type "" = SINGLE_TAG, sys flag, order).
  Status CreateTopic(const std::string& addr, const TopicConfig& config);                 // 17
  Status DeleteTopicInBroker(const std::string& addr, const std::string& topic);          // 215
  Result<TopicList> GetSystemTopicsFromBroker(const std::string& addr);                   // 305
  Status CreateOrUpdateGroup(const std::string& addr, const SubscriptionGroupConfig& g);  // 200
  Result<SubscriptionGroupTable> GetAllGroups(const std::string& addr);                   // 201
  Status DeleteGroup(const std::string& addr, const std::string& group,
                     bool remove_offset = false);  // 207
  Result<ConsumerConnection> GetConsumerConnections(const std::string& addr,
                                                    const std::string& group);  // 203
  Result<ProducerConnection> GetProducerConnections(const std::string& addr,
                                                    const std::string& group);  // 204
  // topic "" = every topic of the group.
  Result<ConsumeStats> GetConsumeStats(const std::string& addr, const std::string& group,
                                       const std::string& topic);  // 208
  Result<std::vector<std::string>> QueryTopicConsumeByWho(const std::string& addr,
                                                          const std::string& topic);  // 300
  Result<QueueOffsets> ResetOffset(const std::string& addr, const std::string& topic,
                                   const std::string& group, int64_t timestamp_ms,
                                   bool force);  // 222
  Result<ConsumerStatusTable> GetConsumerStatus(const std::string& addr, const std::string& topic,
                                                const std::string& group);  // 223
  Result<std::string> GetConsumerRunningInfo(const std::string& addr, const std::string& group,
                                             const std::string& client_id);  // 307
  Result<ConsumeDirectlyResult> ConsumeMessageDirectly(const std::string& addr,
                                                       const std::string& group,
                                                       const std::string& client_id,
                                                       const std::string& msg_id,
                                                       const std::string& broker_name);  // 309
  Result<ConsumerOffsetTable> GetAllConsumerOffsets(const std::string& addr);            // 43
  Status CloneGroupOffset(const std::string& addr, const std::string& src_group,
                          const std::string& dest_group, const std::string& topic,
                          bool offline);                     // 314
  Status CleanExpiredConsumeQueue(const std::string& addr);  // 306
  Status DeleteExpiredCommitLog(const std::string& addr);    // 329
  Result<BrokerStatsData> ViewBrokerStats(const std::string& addr, const std::string& stats_name,
                                          const std::string& stats_key);                   // 315
  Result<ConsumeStatsList> GetBrokerConsumeStats(const std::string& addr, bool is_order);  // 317
  Result<ConsumeTimeSpans> QueryConsumeTimeSpan(const std::string& addr, const std::string& topic,
                                                const std::string& group);  // 303
  Result<ConsumeQueueView> QueryConsumeQueue(const std::string& addr, const std::string& topic,
                                             int32_t queue_id, int64_t index, int32_t count,
                                             const std::string& group);  // 321
  Result<ProducerTable> GetAllProducerInfo(const std::string& addr);     // 328

  BrokerCall Broker(const std::string& addr) const {
    return BrokerCall{transport_.get(), addr, options_.timeout_ms};
  }
  // The master addresses of every broker (cluster "" = all clusters).
  Result<std::vector<std::string>> MasterAddrs(const std::string& cluster = {});
  RouteCache& routes() { return *routes_; }
  Transport& transport() { return *transport_; }

  // A request with ext fields and body to a broker; SUCCESS or an error (see above).
  Result<protocol::RemotingCommand> CallBroker(
      const std::string& addr, int32_t code,
      const std::vector<std::pair<std::string, std::string>>& fields, std::string body = {});
  Result<protocol::RemotingCommand> CallNamesrv(
      int32_t code, const std::vector<std::pair<std::string, std::string>>& fields,
      std::string body = {});
  // To one given name server address (not rotated).
  Result<protocol::RemotingCommand> CallNamesrvAt(
      const std::string& namesrv_addr, int32_t code,
      const std::vector<std::pair<std::string, std::string>>& fields, std::string body = {});

 private:
  AdminOptions options_;
  std::unique_ptr<Transport> transport_;
  std::unique_ptr<RouteCache> routes_;
};

// The Java constant of an admin code ("GET_CONSUME_STATS"), or "request N".
std::string AdminCodeName(int32_t code);
// A reply's code checked: OK, or the error AdminClient returns (see the file comment).
Status CheckReply(const protocol::RemotingCommand& resp, int32_t request_code,
                  const std::string& where);

}  // namespace rocketstore::client
