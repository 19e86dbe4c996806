// File: broker/remoting/remoting_frontend.h
//
// RemotingFrontend: the broker's remoting (TCP) front end — thin adapters from frames to
// the services. Each handler decodes the typed header (protocol/headers/*), calls one
// service, and encodes the service's answer; a header that fails to decode is answered
// SYSTEM_ERROR with the decoder's message ("the custom field <name> is null", as Java).
// No handler touches the store or the metadata directly, and none blocks on the disk or
// the network: sends under SYNC_FLUSH, held pulls and topic changes (17, 215, 25 with
// brokerPermission: after the registration round, broker/service/route_registration.h)
// answer later through Connection::SendResponse.
//
// Handlers (one file per family): send_handlers.cc (10, 310, 320), pull_handlers.cc
// (11), client_handlers.cc (34, 35, 38, 46), admin_handlers.cc (offsets 14/15, topics 17,
// queue metadata 29-32, queries 12/33, delay offsets 45), retry_handlers.cc (36),
// lock_handlers.cc (order locks 41, 42), timer_handlers.cc (recall 370), reply_handlers.cc
// (request-reply 324, 325), transaction_handlers.cc (37); admin part A:
// admin_config_handlers.cc (25, 26, 28), admin_topic_handlers.cc (21, 202, 215, 305),
// admin_group_handlers.cc (200, 201, 207, 43, 314), admin_store_handlers.cc (321, 306, 329).
// (request-reply 324, 325), transaction_handlers.cc (37); admin part B:
// admin_consumer_handlers.cc (203, 204, 328, 208, 317, 300, 303), admin_stats_handlers.cc
// (315), admin_client_handlers.cc (222, 223, 307, 309).
//
// Broker -> client requests that expect an answer go through BrokerServices::calls: each
// connection's channel is created with it before its first request is handled.
//
// Until SetReady(true) every request is answered SYSTEM_BUSY "broker is starting". The
// broker only starts serving once ready (it listens earlier, to learn its port, but
// accepts later: net::RemotingServer::Listen), so this is a guard, not a path clients see.
//
// Ownership: the services must outlive the server the handlers are registered with.
// Thread-safety: Register before the server starts; handlers run on io threads.
#pragma once

#include <atomic>
#include <functional>

#include "broker/config/delay_offset_manager.h"
#include "broker/remoting/client_calls.h"
#include "broker/service/broker_config_service.h"
#include "broker/service/client_admin_service.h"
#include "broker/service/client_service.h"
#include "broker/service/consume_stats_service.h"
#include "broker/service/group_admin_service.h"
#include "broker/service/offset_service.h"
#include "broker/service/pull_service.h"
#include "broker/service/query_service.h"
#include "broker/service/rebalance_lock_manager.h"
#include "broker/service/reply_service.h"
#include "broker/service/retry_service.h"
#include "broker/service/runtime_info_service.h"
#include "broker/service/runtime_stats.h"
#include "broker/service/send_service.h"
#include "broker/service/store_admin_service.h"
#include "broker/service/timer_service.h"
#include "broker/service/topic_service.h"
#include "broker/stats/broker_stats.h"
#include "broker/stats/stats_sampler.h"
#include "broker/transaction/transaction_service.h"
#include "net/remoting_server.h"
#include "protocol/headers/send_headers.h"

namespace rocketstore::broker {

struct BrokerServices {
  SendService* send = nullptr;
  PullService* pull = nullptr;
  ClientService* clients = nullptr;
  ConsumerManager* consumers = nullptr;
  ProducerManager* producers = nullptr;
  OffsetService* offsets = nullptr;
  QueryService* query = nullptr;
  TopicService* topics = nullptr;
  RetryService* retry = nullptr;
  RebalanceLockManager* locks = nullptr;
  DelayOffsetManager* delay_offsets = nullptr;  // GET_ALL_DELAY_OFFSET (45)
  TimerService* timers = nullptr;               // null: RECALL_MESSAGE is not registered
  ReplyService* reply = nullptr;                // 324 / 325 (registered when set)
  ClientCalls* calls = nullptr;                 // answers to broker -> client requests
  TransactionService* transactions = nullptr;   // END_TRANSACTION (37)
  BrokerStats* stats = nullptr;                 // message counters (admin, metrics)
  StatsSampler* stats_sampler = nullptr;        // their minute/hour/day windows
  // admin part A (registered when `admin` is set; every member below must then be set)
  struct AdminA {
    BrokerConfigService* config = nullptr;        // 25, 26
    RuntimeInfoService* runtime = nullptr;        // 28
    TopicConfigManager* topic_configs = nullptr;  // 21
    SubscriptionGroupManager* groups = nullptr;   // 201
    ConsumerOffsetManager* offsets = nullptr;     // 43
    GroupAdminService* group_admin = nullptr;     // 200, 207, 314
    StoreAdminService* store_admin = nullptr;     // 321, 306, 329
    std::string broker_name;                      // 202's MessageQueue keys
  };
  const AdminA* admin = nullptr;
  // end admin part A
  // admin part B (registered when set): 203 204 328 208 317 300 303 (consume_stats,
  // consumers, producers), 315 (stats_sampler), 222 223 307 309 (client_admin, query).
  ConsumeStatsService* consume_stats = nullptr;
  ClientAdminService* client_admin = nullptr;
  // end admin part B
};

class RemotingFrontend {
 public:
  explicit RemotingFrontend(BrokerServices services) : s_(services) {}

  void Register(net::RemotingServer& server);
  void SetReady(bool ready) { ready_.store(ready, std::memory_order_release); }
  // The server's close listener: the connection's channel leaves every group.
  void OnConnectionClosed(const net::ConnectionPtr& conn);

 private:
  using Reply = std::optional<protocol::RemotingCommand>;
  using Conn = net::ConnectionPtr;
  using Cmd = protocol::RemotingCommand;
  using Handler = std::function<Reply(const Conn&, Cmd&)>;

  Reply OnSend(const Conn& c, Cmd& r);
  Reply OnPull(const Conn& c, Cmd& r);
  Reply OnConsumerSendMsgBack(const Conn& c, Cmd& r);
  Reply OnHeartbeat(const Conn& c, Cmd& r);
  Reply OnUnregisterClient(const Conn& c, Cmd& r);
  Reply OnConsumerList(Cmd& r);
  Reply OnCheckClientConfig(Cmd& r);
  Reply OnQueryOffset(Cmd& r);
  Reply OnUpdateOffset(Cmd& r);
  Reply OnCreateTopic(const Conn& c, Cmd& r);
  Reply OnMaxOffset(Cmd& r);
  Reply OnMinOffset(Cmd& r);
  Reply OnEarliestStoreTime(Cmd& r);
  Reply OnSearchOffset(Cmd& r);
  Reply OnQueryMessage(Cmd& r);
  Reply OnViewMessage(Cmd& r);
  Reply OnLockBatch(Cmd& r);
  Reply OnUnlockBatch(Cmd& r);
  Reply OnGetAllDelayOffset(Cmd& r);
  Reply OnRecall(const Conn& c, Cmd& r);
  Reply OnSendReply(const Conn& c, Cmd& r);
  Reply OnEndTransaction(Cmd& r);
  // admin part A
  Reply OnUpdateBrokerConfig(const Conn& c, Cmd& r);
  Reply OnGetBrokerConfig(Cmd& r);
  Reply OnGetBrokerRuntimeInfo(Cmd& r);
  Reply OnGetAllTopicConfig(Cmd& r);
  Reply OnGetTopicStatsInfo(Cmd& r);
  Reply OnDeleteTopicInBroker(const Conn& c, Cmd& r);
  Reply OnGetSystemTopicList(Cmd& r);
  Reply OnUpdateAndCreateSubscriptionGroup(Cmd& r);
  Reply OnGetAllSubscriptionGroup(Cmd& r);
  Reply OnDeleteSubscriptionGroup(Cmd& r);
  Reply OnGetAllConsumerOffset(Cmd& r);
  Reply OnCloneGroupOffset(Cmd& r);
  Reply OnQueryConsumeQueue(Cmd& r);
  Reply OnCleanExpiredConsumeQueue(const Conn& c, Cmd& r);
  Reply OnDeleteExpiredCommitLog(Cmd& r);
  void RegisterAdminA(
      const std::function<void(protocol::RequestCode, Reply (RemotingFrontend::*)(Cmd&))>& reg,
      const std::function<void(protocol::RequestCode,
                               Reply (RemotingFrontend::*)(const Conn&, Cmd&))>& reg_with_conn);
  // end admin part A
  // admin part B: admin_consumer_handlers.cc, admin_stats_handlers.cc,
  // admin_client_handlers.cc
  void RegisterAdminPartB(const std::function<void(protocol::RequestCode, Handler)>& reg);
  Reply OnConsumerConnectionList(Cmd& r);
  Reply OnProducerConnectionList(Cmd& r);
  Reply OnAllProducerInfo(Cmd& r);
  Reply OnConsumeStats(Cmd& r);
  Reply OnBrokerConsumeStats(Cmd& r);
  Reply OnTopicConsumeByWho(Cmd& r);
  Reply OnConsumeTimeSpan(Cmd& r);
  Reply OnViewBrokerStatsData(Cmd& r);
  Reply OnInvokeResetOffset(Cmd& r);
  Reply OnInvokeConsumerStatus(const Conn& c, Cmd& r);
  Reply OnConsumerRunningInfo(const Conn& c, Cmd& r);
  Reply OnConsumeMessageDirectly(const Conn& c, Cmd& r);
  // end admin part B

  BrokerServices s_;
  std::atomic<bool> ready_{false};
};

// The request's header fields a later response needs (code, opaque, flag, serialize
// type, language, version), without its fields and body.
protocol::RemotingCommand RequestStub(const protocol::RemotingCommand& request);
RequestContext ContextOf(const net::ConnectionPtr& conn, const protocol::RemotingCommand& r);
// A send's typed request from its header (views into the header's command; no messages
// yet). Shared by SEND_MESSAGE(_V2), SEND_BATCH_MESSAGE and SEND_REPLY_MESSAGE(_V2).
SendRequest SendRequestOf(const protocol::SendMessageRequestView& h);

}  // namespace rocketstore::broker
