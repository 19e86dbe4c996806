// File: broker/broker.h
//
// Broker: a RocketMQ 4.x-compatible broker over a MessageStore (remoting-protocol.md
// §A.8). This class only wires the pieces and runs their lifecycle; the work is done by
//   broker/service/   transport-neutral services (send, pull + long-poll holds, clients
//                     and consumer groups, offsets, queries, topics)
//   broker/hooks/     the put pipeline every message passes before the store
//   broker/remoting/  the remoting front end: frame -> typed header -> service -> reply
//   broker/metadata.h topics.json, consumerOffset.json, subscriptionGroup.json
//   broker/namesrv_registrar.h  registration with the name servers
// docs/architecture.md ("The broker") has the picture and where each feature goes.
//
// Start(): opens the store (its directory lock makes a second broker on the same
// directory fail), loads the config files, creates TBW102 when autoCreateTopicEnable,
// starts the remoting server, then the background services (ServiceRunners, each a step
// function): registration with every name server (every 30 s and right after a topic
// change), config persistence (offsets every 5 s, topics and groups soon after a change),
// client expiry (120 s of silence) with the sweep of expired order locks, and the
// deadlines of held pulls. With BrokerOptions::metrics_port set, the Prometheus endpoint
// (broker/metrics/, docs/observability.md) starts with the server; a port it cannot bind
// fails the start.
// Stop(): stops the metrics endpoint first, then unregisters from the name servers, stops
// the services and the server (held pulls are dropped), persists the config files, closes
// the store. Returns the first
// error (a config file that could not be written, the store's close).
//
// Handlers never block an io thread on the disk: under SYNC_FLUSH a send is appended at
// once and answered by the thread that finishes the group commit covering it.
// Ownership: `fs` and `clock` must outlive the broker. Thread-safety: Start/Stop from
// one owner.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>

#include "base/clock.h"
#include "base/service_runner.h"
#include "broker/broker_options.h"
#include "broker/config/delay_offset_manager.h"
#include "broker/hooks/put_pipeline.h"
#include "broker/metadata.h"
#include "broker/metrics/broker_metrics.h"
#include "broker/metrics/metrics_http_server.h"
#include "broker/metrics/rpc_stats.h"
#include "broker/namesrv_registrar.h"
#include "broker/remoting/remoting_frontend.h"
#include "broker/schedule/delay_level_table.h"
#include "broker/schedule/schedule_delivery_service.h"
#include "broker/service/broker_permission.h"
#include "broker/service/reput.h"
#include "broker/service/timer_service.h"
#include "broker/stats/broker_stats.h"
#include "broker/stats/stats_sampler.h"
#include "broker/transaction/transaction_service.h"
#include "io/file_system.h"
#include "store/message_store.h"

namespace rocketstore::broker {

class Broker {
 public:
  explicit Broker(BrokerOptions options);
  Broker(BrokerOptions options, FileSystem& fs, Clock& clock);
  ~Broker();
  Broker(const Broker&) = delete;
  Broker& operator=(const Broker&) = delete;

  Status Start();
  Status Stop();
  uint16_t port() const { return server_ ? server_->port() : 0; }
  const std::string& address() const { return address_; }
  const BrokerOptions& options() const { return options_; }
  // The config persister's last write error (OK when every file's latest write worked).
  Status config_error() const { return persister_ ? persister_->last_error() : Status::OK(); }
  // Registers with all name servers now (blocking); OK if at least one accepted.
  Status RegisterAll() { return registrar_ ? registrar_->RegisterAll() : Status::OK(); }
  // The broker's configuration as UPDATE_BROKER_CONFIG left it (null before Start).
  BrokerConfigService* broker_config() { return broker_config_.get(); }

  TopicConfigManager& topics() { return *topics_; }
  ConsumerOffsetManager& offsets() { return *offsets_; }
  // Lag and consume statistics, as GET_CONSUME_STATS (208) answers them.
  const ConsumeStatsService& consume_stats() const { return *consume_stats_; }
  SubscriptionGroupManager& subscription_groups() { return *groups_; }
  ConsumerManager& consumers() { return *consumers_; }
  MessageStore& store() { return *store_; }
  RebalanceLockManager& locks() { return *locks_; }
  // Delay levels: their delivery (null before Start) and config/delayOffset.json.
  ScheduleDeliveryService* schedule() { return schedule_.get(); }
  DelayOffsetManager& delay_offsets() { return *delay_offsets_; }
  // Pending transaction halves and their check-backs (null before Start).
  TransactionService* transactions() { return transactions_.get(); }
  // The services an in-process reader (the web console) shares with the remoting front
  // end, so both give the same answers (null before Start).
  QueryService* query() { return query_.get(); }
  TopicService* topic_service() { return topic_service_.get(); }
  OffsetService* offset_service() { return offset_service_.get(); }
  const Reputter* reputter() const { return reput_.get(); }
  // INVOKE_BROKER_TO_RESET_OFFSET (222)'s service (pushes 220 to live clients) and
  // GET_BROKER_RUNTIME_INFO (28)'s table, for the console (null before Start).
  ClientAdminService* client_admin() { return client_admin_.get(); }
  const RuntimeInfoService* runtime_info() const { return runtime_info_.get(); }
  // The file system the store and the config files live on.
  FileSystem& fs() { return fs_; }
  // The message counters (puts, gets, send-backs) and their minute/hour/day windows,
  // sampled every second while the broker runs (null before Start).
  BrokerStats& stats() { return *stats_; }
  StatsSampler* stats_sampler() { return sampler_.get(); }
  // The Prometheus endpoint's port (0: off or not started) and one scrape's text
  // (broker/metrics/broker_metrics.h), the same the endpoint serves.
  uint16_t metrics_port() const { return metrics_server_ ? metrics_server_->port() : 0; }
  std::string RenderMetrics() const;
  const RpcStats& rpc_stats() const { return *rpc_stats_; }
  // The timer index (owned by the store; null before Start or with the timer wheel off).
  const timer::TimerIndex* timer_index() const { return timer_index_; }

 private:
  Status OpenStoreAndConfig();
  void BuildServices();
  void BuildAdminA(const RequestRegistration& register_and_wait);  // admin part A
  void StartRunners();
  void Post(std::function<void()> fn);
  Status StartMetricsServer();
  MetricsSources metrics_sources() const;

  BrokerOptions options_;
  FileSystem& fs_;
  Clock& clock_;
  std::string address_;
  std::unique_ptr<MessageStore> store_;
  std::unique_ptr<TopicConfigManager> topics_;
  // brokerPermission, read by send / pull / send-back / registration; set by 25.
  std::unique_ptr<BrokerPermission> permission_;
  std::unique_ptr<ConsumerOffsetManager> offsets_;
  std::unique_ptr<SubscriptionGroupManager> groups_;
  std::unique_ptr<DelayOffsetManager> delay_offsets_;
  std::optional<DelayLevelTable> delay_levels_;
  std::unique_ptr<ScheduleDeliveryService> schedule_;
  // What the store's arrival listener (registered before the service exists) wakes.
  std::atomic<ScheduleDeliveryService*> schedule_wake_{nullptr};
  PutPipeline pipeline_;
  std::unique_ptr<ConsumerManager> consumers_;
  std::unique_ptr<ProducerManager> producers_;
  std::unique_ptr<PullHoldService> holds_;
  std::unique_ptr<Reputter> reput_;           // the broker's own re-puts (send-back, due delays)
  std::unique_ptr<RetryService> retry_;       // send-back, %RETRY% / %DLQ% routing
  timer::TimerIndex* timer_index_ = nullptr;  // owned by the store (an extra sink)
  std::unique_ptr<TimerService> timer_service_;
  std::unique_ptr<ServiceRunner> timer_runner_;
  std::unique_ptr<BrokerStats> stats_ = std::make_unique<BrokerStats>();
  std::unique_ptr<StatsSampler> sampler_;
  std::unique_ptr<RpcStats> rpc_stats_ = std::make_unique<RpcStats>();  // the server's observer
  std::unique_ptr<MetricsHttpServer> metrics_server_;  // GET /metrics; stopped first
  std::unique_ptr<ServiceRunner> stats_runner_;
  std::unique_ptr<SendService> send_;
  std::unique_ptr<PullService> pull_;
  std::unique_ptr<ClientService> clients_;
  std::unique_ptr<OffsetService> offset_service_;
  std::unique_ptr<QueryService> query_;
  std::unique_ptr<TopicService> topic_service_;
  std::unique_ptr<RebalanceLockManager> locks_;  // orderly consumers' queue locks
  std::unique_ptr<ReplyService> reply_;          // request-reply (324 / 325)
  std::unique_ptr<TransactionService> transactions_;
  // admin part A
  std::unique_ptr<BrokerConfigFile> config_file_;  // broker.conf, rewritten by 25
  std::unique_ptr<BrokerConfigService> broker_config_;
  std::unique_ptr<RuntimeInfoService> runtime_info_;
  std::unique_ptr<RuntimeStats> runtime_stats_;  // 28's statistics keys
  std::unique_ptr<GroupAdminService> group_admin_;
  std::unique_ptr<StoreAdminService> store_admin_;
  BrokerServices::AdminA admin_a_;
  int64_t boot_ms_ = 0;
  // admin part B
  std::unique_ptr<ConsumeStatsService> consume_stats_;
  std::unique_ptr<ClientAdminService> client_admin_;
  std::unique_ptr<RemotingFrontend> frontend_;
  // Broker -> client requests awaiting answers: outlives the server (its io threads
  // deliver the answers), dies before the services its callbacks use.
  std::unique_ptr<ClientCalls> calls_;
  std::unique_ptr<net::RemotingServer> server_;
  std::unique_ptr<NamesrvRegistrar> registrar_;
  std::unique_ptr<ServiceRunner> registrar_runner_;
  std::unique_ptr<ConfigPersister> persister_;
  std::unique_ptr<ServiceRunner> client_runner_;
  std::unique_ptr<ServiceRunner> hold_runner_;
  bool started_ = false;
};

}  // namespace rocketstore::broker
