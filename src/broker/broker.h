// File: broker/broker.h
//
// Broker: a RocketMQ 4.x-compatible broker over a MessageStore (remoting-protocol.md §A.8).
//
// Start(): opens the store at options.store.root_dir (the store's own lock makes a second
// broker on the same directory fail), loads config/{topics,consumerOffset,
// subscriptionGroup}.json, creates TBW102 when auto_create_topic, starts the remoting
// server and a housekeeping thread that: registers with every name server every
// register_interval_ms and right after a topic change, persists consumer offsets every
// offset_persist_interval_ms, and expires clients silent for 120 s.
// Stop(): stops the server (held pulls are dropped), persists offsets, closes the store.
//
// Requests handled (codes in protocol/request_code.h): SEND_MESSAGE(10), SEND_MESSAGE_V2
// (310), SEND_BATCH_MESSAGE(320), PULL_MESSAGE(11, long polling woken by the store's
// arrival listener), QUERY_MESSAGE(12), QUERY_CONSUMER_OFFSET(14), UPDATE_CONSUMER_OFFSET
// (15), UPDATE_AND_CREATE_TOPIC(17), SEARCH_OFFSET_BY_TIMESTAMP(29), GET_MAX_OFFSET(30),
// GET_MIN_OFFSET(31), GET_EARLIEST_MSG_STORETIME(32), VIEW_MESSAGE_BY_ID(33), HEART_BEAT
// (34), UNREGISTER_CLIENT(35), GET_CONSUMER_LIST_BY_GROUP(38). Others:
// REQUEST_CODE_NOT_SUPPORTED. Membership changes send NOTIFY_CONSUMER_IDS_CHANGED (40,
// oneway) to every consumer connection of the group.
//
// Handlers run on the io threads and never block on the disk: under SYNC_FLUSH a send is
// appended at once and answered by the thread that finishes the group commit covering it
// (MessageStore::PutMessageAsync), so every producer waiting shares the next flush.
// Thread-safety: Start/Stop from one owner.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "broker/metadata.h"
#include "net/remoting_client.h"
#include "net/remoting_server.h"
#include "store/message_store.h"

namespace rocketstore::broker {

struct BrokerOptions {
  StoreOptions store;
  net::ServerOptions server = DefaultServerOptions();
  std::vector<std::string> namesrv_addrs;  // "host:port"
  std::string cluster_name = "DefaultCluster";
  std::string broker_name = "broker-a";
  // Address published to name servers and stamped as STOREHOST; default host:port.
  std::string advertised_addr;
  bool auto_create_topic = true;
  bool long_polling = true;
  int32_t default_topic_queue_nums = 8;
  int64_t register_interval_ms = 30000;
  int64_t offset_persist_interval_ms = 5000;
  int64_t channel_expired_timeout_ms = 120000;

  static net::ServerOptions DefaultServerOptions() {
    net::ServerOptions o;
    o.port = 10911;
    return o;
  }
};

class Broker {
 public:
  explicit Broker(BrokerOptions options);
  ~Broker();
  Status Start();
  Status Stop();
  uint16_t port() const { return server_ ? server_->port() : 0; }
  const std::string& address() const { return address_; }
  // Registers with all name servers now (blocking); OK if at least one accepted.
  Status RegisterAll();
  TopicConfigManager& topics() { return *topics_; }
  ConsumerOffsetManager& offsets() { return *offsets_; }
  MessageStore& store() { return *store_; }

 private:
  struct Subscription {
    std::string expression;
    int64_t sub_version = 0;
  };
  struct ClientInfo {
    std::weak_ptr<net::Connection> conn;
    uint64_t conn_id = 0;
    int64_t last_seen_ms = 0;
    std::map<std::string, Subscription> subscriptions;  // consumers only
  };
  struct Group {
    std::map<std::string, ClientInfo> clients;  // clientID → info
  };
  struct HeldPull {
    std::weak_ptr<net::Connection> conn;
    protocol::RemotingCommand request;
    int64_t deadline_ms = 0;
  };

  using Reply = std::optional<protocol::RemotingCommand>;
  void RegisterHandlers();
  Reply OnSend(const net::ConnectionPtr& c, protocol::RemotingCommand& r);
  Reply OnPull(const net::ConnectionPtr& c, protocol::RemotingCommand& r, bool first_pass);
  Reply OnHeartbeat(const net::ConnectionPtr& c, protocol::RemotingCommand& r);
  Reply OnUnregisterClient(const net::ConnectionPtr& c, protocol::RemotingCommand& r);
  Reply OnConsumerList(protocol::RemotingCommand& r);
  Reply OnQueryOffset(protocol::RemotingCommand& r);
  Reply OnUpdateOffset(protocol::RemotingCommand& r);
  Reply OnCreateTopic(protocol::RemotingCommand& r);
  Reply OnQueueMeta(protocol::RemotingCommand& r);
  Reply OnQueryMessage(protocol::RemotingCommand& r);
  Reply OnViewMessage(protocol::RemotingCommand& r);

  void NotifyConsumersChanged(const std::string& group);
  void OnConnectionClosed(const net::ConnectionPtr& c);
  void OnArrival(std::string topic, int32_t queue_id);
  // A send's reply, built once the store has answered (maybe on a flushing thread).
  struct SendReply {
    protocol::RemotingCommand request;  // header only: what MakeResponse copies
    bool batch = false;
    int32_t queue_id = 0;
    std::string uniq;                   // single messages: UNIQ_KEY (transactionId)
    std::vector<int64_t> record_sizes;  // batches: to derive every msgId
    PutMessageResult put;
  };
  protocol::RemotingCommand BuildSendResponse(const SendReply& reply) const;
  void CheckHeldPulls(int64_t now_ms);
  void Housekeeping();
  void RequestRegistration();
  void ExpireClients(int64_t now_ms);
  // Drops the clients `gone` selects from every group; consumer groups that lost one are
  // told (NOTIFY_CONSUMER_IDS_CHANGED).
  void RemoveClientsIf(const std::function<bool(const ClientInfo&)>& gone);

  BrokerOptions options_;
  std::string address_;
  format::HostAddress store_host_;
  std::unique_ptr<MessageStore> store_;
  std::unique_ptr<TopicConfigManager> topics_;
  std::unique_ptr<ConsumerOffsetManager> offsets_;
  std::unique_ptr<SubscriptionGroupManager> groups_cfg_;
  std::unique_ptr<net::RemotingServer> server_;

  std::mutex clients_mu_;
  std::map<std::string, Group> consumer_groups_;
  std::map<std::string, Group> producer_groups_;

  std::mutex held_mu_;
  std::map<std::pair<std::string, int32_t>, std::vector<HeldPull>> held_;

  std::mutex hk_mu_;
  std::condition_variable hk_cv_;
  bool hk_stop_ = false;
  bool register_requested_ = false;
  std::thread hk_thread_;
  std::mutex reg_mu_;
  std::map<std::string, std::unique_ptr<net::RemotingClient>> ns_clients_;
  bool started_ = false;
};

}  // namespace rocketstore::broker
