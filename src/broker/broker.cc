#include "broker/broker.h"

#include <algorithm>
#include <chrono>

#include "broker/default_topics.h"
#include "broker/hooks/delay_level_hook.h"
#include "broker/hooks/message_check_hook.h"
#include "broker/hooks/retry_topic_hook.h"
#include "broker/hooks/timer_hook.h"
#include "broker/remoting/remoting_channel.h"
#include "broker/system_topics.h"
#include "broker/transaction/half_message_hook.h"
#include "io/posix_file_system.h"
#include "log/log.h"
#include "store/layout/layout.h"
#include "timer/timer_index.h"

namespace rocketstore::broker {

Broker::Broker(BrokerOptions options)
    : Broker(std::move(options), PosixFileSystem::Default(), Clock::Real()) {}

Broker::Broker(BrokerOptions options, FileSystem& fs, Clock& clock)
    : options_(std::move(options)), fs_(fs), clock_(clock) {}

Broker::~Broker() { (void)Stop(); }

Status Broker::OpenStoreAndConfig() {
  const std::string& root = options_.store.root_dir;
  RS_RETURN_IF_ERROR(fs_.CreateDirs(layout::ConfigDir(root)));
  StoreOptions so = options_.store;
  // Long polling: a dispatched message wakes the pulls held for its queue.
  so.arrival_listeners.push_back(
      [holds = holds_.get()](std::string_view topic, int32_t queue_id, QueueOffset next) {
        holds->OnArrival(topic, queue_id, next.value());
      });
  // Delay levels: SCHEDULE_TOPIC_XXXX units carry their deliver time as tags code, and a
  // new one may wake the delivery service.
  auto levels = DelayLevelTable::Parse(options_.message_delay_level);
  if (!levels.ok()) return levels.status();
  delay_levels_ = *levels;
  so.tags_code_policy = [t = *levels](const DispatchRequest& r) { return t.TagsCode(r); };
  so.arrival_listeners.push_back([this](std::string_view topic, int32_t queue_id, QueueOffset) {
    if (topic != kScheduleTopic) return;
    if (ScheduleDeliveryService* s = schedule_wake_.load(std::memory_order_acquire)) {
      s->OnArrival(queue_id);
    }
  });
  if (options_.timer_wheel_enable) {
    so.extra_sinks.push_back([this](const SinkContext& c) -> Result<std::unique_ptr<DispatchSink>> {
      timer::TimerIndexOptions to;
      to.dir = JoinPath(c.root_dir, "timer");
      to.topic = std::string(kTimerTopic);
      auto index = std::make_unique<timer::TimerIndex>(c.fs, c.clock, std::move(to));
      timer_index_ = index.get();
      return std::unique_ptr<DispatchSink>(std::move(index));
    });
  }
  auto store = MessageStore::Open(so, fs_, clock_);
  if (!store.ok()) return store.status();
  store_ = std::move(store).value();
  using layout::ConfigFile;
  topics_ = std::make_unique<TopicConfigManager>(fs_, clock_,
                                                 layout::ConfigPath(root, ConfigFile::kTopics));
  permission_ = std::make_unique<BrokerPermission>(options_.broker_permission);
  offsets_ = std::make_unique<ConsumerOffsetManager>(
      fs_, clock_, layout::ConfigPath(root, ConfigFile::kConsumerOffset));
  groups_ = std::make_unique<SubscriptionGroupManager>(
      fs_, clock_, layout::ConfigPath(root, ConfigFile::kSubscriptionGroup));
  delay_offsets_ = std::make_unique<DelayOffsetManager>(
      fs_, clock_, layout::ConfigPath(root, ConfigFile::kDelayOffset));
  config_file_ = std::make_unique<BrokerConfigFile>(
      fs_, clock_,
      options_.config_file_path.empty() ? JoinPath(layout::ConfigDir(root), "broker.properties")
                                        : options_.config_file_path);
  RS_RETURN_IF_ERROR(config_file_->Load());
  for (ConfigManager* m :
       {static_cast<ConfigManager*>(topics_.get()), static_cast<ConfigManager*>(offsets_.get()),
        static_cast<ConfigManager*>(groups_.get()),
        static_cast<ConfigManager*>(delay_offsets_.get())}) {
    RS_RETURN_IF_ERROR(m->Load());
    if (m->load_report().source == ConfigLoadReport::Source::kBackup) {
      RS_LOG_WARN("broker: config file unreadable, loaded its backup report=\"{}\"",
                  m->load_report().ToString());
    }
  }
  // As RocketMQ's SubscriptionGroupManager: its default groups always exist (the file's
  // entries win).
  groups_->AddMissing(DefaultSubscriptionGroups());
  groups_->set_auto_create(options_.auto_create_subscription_group);
  // As RocketMQ's TopicConfigManager: its default topics always exist (a topics.json entry
  // wins) — among them the reply topic, so that a requester's route lookup finds it.
  topics_->AddMissing(DefaultTopics(options_));
  return Status::OK();
}

void Broker::Post(std::function<void()> fn) {
  if (server_) asio::post(server_->io_context(), std::move(fn));
}

void Broker::BuildServices() {
  using std::chrono::milliseconds;
  NamesrvRegistrar::Options ro;
  ro.namesrv_addrs = options_.namesrv_addrs;
  ro.cluster_name = options_.cluster_name;
  ro.broker_name = options_.broker_name;
  ro.interval_ms = options_.register_interval_ms;
  ro.timeout_ms = options_.register_timeout_ms;
  registrar_ = std::make_unique<NamesrvRegistrar>(ro, *topics_, permission_.get());
  registrar_runner_ =
      std::make_unique<ServiceRunner>("broker-register", milliseconds(1000), [this] {
        if (Status s = registrar_->RunOnce(clock_.MonotonicNanos() / 1000000); !s.ok()) {
          RS_LOG_WARN("broker: registration with the name servers failed error=\"{}\"",
                      s.ToString());
        }
      });
  registrar_->SetWake([r = registrar_runner_.get()] { r->Wake(); });
  // Topics and groups are written soon after a change, offsets every 5 s; a failed
  // write is retried at the next step (ConfigPersister::last_error says why).
  persister_ = std::make_unique<ConfigPersister>(clock_);
  persister_->Add(*topics_, 0);
  persister_->Add(*groups_, 0);
  persister_->Add(*offsets_, options_.offset_persist_interval_ms);
  persister_->Add(*delay_offsets_, options_.flush_delay_offset_interval_ms);
  persister_->Add(*config_file_, 0);
  auto request_registration = [r = registrar_.get()] { r->RequestNow(); };
  RequestRegistration register_and_wait = [r = registrar_.get()](RegistrationDone done) {
    r->RequestNow(std::move(done));
  };
  reput_ = std::make_unique<Reputter>(*store_, pipeline_);
  RetryService::Options rto;
  rto.permission = permission_.get();
  BrokerStats* counting = options_.metrics_counting ? stats_.get() : nullptr;
  rto.stats = counting;
  retry_ = std::make_unique<RetryService>(rto, *groups_, *topics_, *reput_, request_registration);
  pipeline_.Add(std::make_unique<MessageCheckHook>(options_.store.max_message_body_bytes));
  pipeline_.Add(std::make_unique<HalfMessageHook>());  // before the delay levels
  pipeline_.Add(std::make_unique<RetryTopicHook>(*retry_));
  TimerHookOptions th;
  th.enabled = options_.timer_wheel_enable;
  th.precision_ms = options_.timer_precision_ms;
  th.max_delay_sec = options_.timer_max_delay_sec;
  pipeline_.Add(std::make_unique<TimerHook>(clock_, th));
  pipeline_.Add(std::make_unique<DelayLevelHook>(*delay_levels_));
  SendService::Options so;
  so.cluster_name = options_.cluster_name;
  so.broker_name = options_.broker_name;
  so.auto_create_topic = options_.auto_create_topic;
  so.groups = groups_.get();
  so.stats = counting;
  so.permission = permission_.get();
  send_ = std::make_unique<SendService>(so, *store_, *topics_, pipeline_, request_registration);
  schedule_ = std::make_unique<ScheduleDeliveryService>(*delay_levels_, *store_, *reput_,
                                                        *delay_offsets_, clock_);
  schedule_wake_.store(schedule_.get(), std::memory_order_release);
  if (timer_index_) {
    TimerServiceOptions to;
    to.broker_name = options_.broker_name;
    to.max_delay_sec = options_.timer_max_delay_sec;
    to.stats = counting;
    to.started_at_offset = store_->MaxPhysicalOffset().value();
    const std::string log_dir = layout::CommitLogDir(options_.store.root_dir);
    timer_service_ = std::make_unique<TimerService>(
        clock_, *timer_index_, *reput_,
        [s = store_.get()] { return s->commit_log().FlushedOffset().value(); },
        [this, log_dir](int64_t now) {
          // Half the reserved time, as set now (fileReservedTime may change at run time).
          const int64_t roll_age = store_->retention_options().file_reserved_time_ms / 2;
          return CommitLogRollBoundary(fs_, log_dir, now, roll_age);
        },
        to);
    timer_service_->set_topic_exists(
        [t = topics_.get()](std::string_view n) { return t->Find(n).has_value(); });
  }
  TransactionService::Options to;
  to.transaction_timeout_ms = options_.transaction_timeout_ms;
  to.check_interval_ms = options_.transaction_check_interval_ms;
  to.check_max = options_.transaction_check_max;
  to.tick_ms = std::min<int64_t>(1000, std::max<int64_t>(1, to.check_interval_ms));
  transactions_ = std::make_unique<TransactionService>(to, *store_, *reput_, *producers_,
                                                       topics_.get(), clock_);
  transactions_->set_stats(counting);
  PullService::Options po;
  po.long_polling = options_.long_polling;
  po.short_polling_ms = options_.short_polling_ms;
  po.enable_property_filter = options_.enable_property_filter;
  po.stats = counting;
  po.permission = permission_.get();
  pull_ = std::make_unique<PullService>(po, clock_, *store_, *topics_, *groups_, *offsets_,
                                        *consumers_, *holds_);
  clients_ = std::make_unique<ClientService>(*consumers_, *producers_, *topics_, *groups_,
                                             request_registration);
  offset_service_ = std::make_unique<OffsetService>(*store_, *offsets_);
  query_ = std::make_unique<QueryService>(*store_);
  topic_service_ =
      std::make_unique<TopicService>(*topics_, register_and_wait, store_.get(), offsets_.get());
  topic_service_->AddSystemTopic(ReplyTopicOf(options_.cluster_name));
  // As Java's TopicConfigManager: the cluster and broker names are system topics.
  topic_service_->AddSystemTopic(options_.cluster_name);
  topic_service_->AddSystemTopic(options_.broker_name);
  if (options_.trace_topic_enable) topic_service_->AddSystemTopic(options_.msg_trace_topic_name);
  calls_ = std::make_unique<ClientCalls>(clock_);
  reply_ = std::make_unique<ReplyService>(ReplyService::Options{options_.store_reply_message},
                                          clock_, *send_, *producers_);
  locks_ = std::make_unique<RebalanceLockManager>(clock_, options_.rebalance_lock_max_live_ms);
  BuildAdminA(register_and_wait);
  BrokerServices services;
  services.send = send_.get();
  services.pull = pull_.get();
  services.clients = clients_.get();
  services.consumers = consumers_.get();
  services.producers = producers_.get();
  services.offsets = offset_service_.get();
  services.query = query_.get();
  services.topics = topic_service_.get();
  services.retry = retry_.get();
  services.locks = locks_.get();
  services.delay_offsets = delay_offsets_.get();
  services.timers = timer_service_.get();
  services.reply = reply_.get();
  services.calls = calls_.get();
  services.transactions = transactions_.get();
  sampler_ = std::make_unique<StatsSampler>(*stats_, options_.cluster_name);
  runtime_stats_ = std::make_unique<RuntimeStats>(*stats_, *sampler_);
  services.stats = stats_.get();
  services.stats_sampler = sampler_.get();
  services.admin = &admin_a_;
  // admin part B
  consume_stats_ =
      std::make_unique<ConsumeStatsService>(clock_, options_.broker_name, *store_, *topics_,
                                            *offsets_, *groups_, *consumers_, sampler_.get());
  client_admin_ = std::make_unique<ClientAdminService>(options_.broker_name, *store_, *topics_,
                                                       *offsets_, *consumers_);
  services.consume_stats = consume_stats_.get();
  services.client_admin = client_admin_.get();
  frontend_ = std::make_unique<RemotingFrontend>(services);
}

Status Broker::Start() {
  if (started_) return FailedPrecondition("broker already started");
  consumers_ = std::make_unique<ConsumerManager>(
      clock_,
      [](const std::string& group, const std::vector<ChannelPtr>& members) {
        for (const auto& m : members) m->NotifyConsumerIdsChanged(group);
      },
      options_.channel_expired_timeout_ms);
  producers_ = std::make_unique<ProducerManager>(clock_, options_.channel_expired_timeout_ms);
  holds_ = std::make_unique<PullHoldService>([this](std::function<void()> fn) { Post(fn); });
  if (Status s = OpenStoreAndConfig(); !s.ok()) {
    if (store_) (void)store_->Close();
    store_.reset();
    return s;
  }
  BuildServices();
  net::ServerOptions server_options = options_.server;
  server_options.thread_name = "broker-io";
  // Sends' one-letter header fields by position, not in a name index (SendV2Fields): every
  // reader of a send request goes through FindField / SendMessageRequestHeader::Decode.
  server_options.limits.send_fields_by_position = true;
  // Sends' bodies read in place from the connection's buffer: OnSend stores (copies) the
  // message before it returns, and the connection reads nothing more meanwhile.
  server_options.limits.borrow_send_bodies = true;
  if (options_.metrics_counting) server_options.rpc_observer = rpc_stats_.get();
  server_ = std::make_unique<net::RemotingServer>(std::move(server_options));
  frontend_->Register(*server_);
  server_->SetCloseListener(
      [this](const net::ConnectionPtr& c) { frontend_->OnConnectionClosed(c); });
  // Bound and listening (the port is needed below) but not serving until the broker is
  // ready: a client that connects now waits in the backlog instead of being answered
  // SYSTEM_BUSY, as a Java broker's port only opens once it has started.
  if (Status s = server_->Listen(); !s.ok()) {
    (void)store_->Close();
    store_.reset();
    return s;
  }
  address_ = options_.advertised_addr.empty()
                 ? options_.server.host + ":" + std::to_string(server_->port())
                 : options_.advertised_addr;
  consume_stats_->set_broker_addr(address_);  // admin part B: ConsumeStatsList.brokerAddr
  auto host = format::HostAddress::Parse(address_);
  const format::HostAddress store_host =
      host.ok() ? *host : format::HostAddress::V4(127, 0, 0, 1, server_->port());
  send_->set_store_host(store_host);
  reput_->set_store_host(store_host);
  reply_->set_store_host(store_host);
  {
    const std::string text = store_host.ToString();
    permission_->set_host(text.substr(0, text.rfind(':')));
  }
  // The pending halves, before any request can settle one (requests are answered
  // SYSTEM_BUSY until SetReady).
  if (Status s = transactions_->Recover(); !s.ok()) {
    server_->Stop();
    (void)store_->Close();
    store_.reset();
    return s;
  }
  if (Status s = StartMetricsServer(); !s.ok()) {
    server_->Stop();
    (void)store_->Close();
    store_.reset();
    return s;
  }
  registrar_->set_broker_addr(address_);
  frontend_->SetReady(true);
  if (Status s = server_->Start(); !s.ok()) {
    if (metrics_server_) metrics_server_->Stop();
    server_->Stop();
    (void)store_->Close();
    store_.reset();
    return s;
  }
  StartRunners();
  started_ = true;
  return Status::OK();
}

// admin part A
void Broker::BuildAdminA(const RequestRegistration& register_and_wait) {
  broker_config_ = std::make_unique<BrokerConfigService>(
      options_, clock_, config_file_.get(),
      [this](const BrokerOptions& o) {
        send_->set_auto_create_topic(o.auto_create_topic);
        groups_->set_auto_create(o.auto_create_subscription_group);
        pull_->set_long_polling(o.long_polling);
        pull_->set_short_polling_ms(o.short_polling_ms);
        store_->UpdateRetentionOptions(o.store.retention);
        // As Java: a new brokerPermission re-registers at once, under a new topic data
        // version so the name servers take the re-masked perms; the answer waits for it.
        if (!permission_->set(o.broker_permission)) return false;
        topics_->BumpDataVersion();
        return true;
      },
      register_and_wait);
  boot_ms_ = clock_.NowMillis();
  RuntimeInfoService::Sources rs;
  rs.store = store_.get();
  rs.fs = &fs_;
  rs.clock = &clock_;
  rs.delay_offsets = delay_offsets_.get();
  rs.root_dir = options_.store.root_dir;
  rs.boot_ms = boot_ms_;
  rs.stats = [this](RuntimeInfoService::Table& t) { runtime_stats_->Fill(t); };
  runtime_info_ = std::make_unique<RuntimeInfoService>(std::move(rs));
  group_admin_ = std::make_unique<GroupAdminService>(*groups_, *offsets_, *topics_, *consumers_);
  store_admin_ = std::make_unique<StoreAdminService>(*store_, *consumers_, *topics_);
  admin_a_.config = broker_config_.get();
  admin_a_.runtime = runtime_info_.get();
  admin_a_.topic_configs = topics_.get();
  admin_a_.groups = groups_.get();
  admin_a_.offsets = offsets_.get();
  admin_a_.group_admin = group_admin_.get();
  admin_a_.store_admin = store_admin_.get();
  admin_a_.broker_name = options_.broker_name;
}

void Broker::StartRunners() {
  using std::chrono::milliseconds;
  auto now_ms = [this] { return clock_.MonotonicNanos() / 1000000; };
  persister_->Start();
  client_runner_ = std::make_unique<ServiceRunner>(
      "broker-clients", milliseconds(options_.client_scan_interval_ms), [this] {
        consumers_->RunOnce(clock_.NowMillis());
        producers_->RunOnce(clock_.NowMillis());
        (void)locks_->RunOnce(locks_->NowMs());  // drops expired locks (no answer changes)
      });
  hold_runner_ = std::make_unique<ServiceRunner>(
      "broker-holds", milliseconds(options_.pull_hold_check_interval_ms), [this, now_ms] {
        holds_->RunOnce(now_ms());
        calls_->RunOnce(calls_->NowMs());
      });
  stats_runner_ = std::make_unique<ServiceRunner>("broker-stats", milliseconds(1000), [this] {
    sampler_->RunOnce(clock_.NowMillis());
    runtime_stats_->RunOnce(clock_.NowMillis());
  });
  for (ServiceRunner* r :
       {registrar_runner_.get(), client_runner_.get(), hold_runner_.get(), stats_runner_.get()}) {
    r->Start();
  }
  schedule_->Start();
  if (timer_service_) {
    timer_runner_ = std::make_unique<ServiceRunner>(
        // Twice per tick: a due timer waits at most half a tick for its step.
        "broker-timer", milliseconds(std::max<int64_t>(1, options_.timer_precision_ms / 2)),
        [this] {
          // A refused delivery stays pending and is retried at the next step.
          if (Status s = timer_service_->RunOnce(clock_.NowMillis()); !s.ok()) {
            RS_LOG_WARN("timer: delivery step failed, retried next step error=\"{}\"",
                        s.ToString());
          }
        });
    timer_runner_->Start();
  }
  transactions_->Start();
  registrar_->RequestNow();
}

MetricsSources Broker::metrics_sources() const {
  MetricsSources m;
  m.cluster = options_.cluster_name;
  m.node_id = options_.broker_name;
  m.stats = stats_.get();
  m.rpc = rpc_stats_.get();
  m.store = store_.get();
  m.offsets = offsets_.get();
  m.consume_stats = consume_stats_.get();
  m.consumers = consumers_.get();
  m.producers = producers_.get();
  m.topics = topics_.get();
  m.groups = groups_.get();
  m.permission = permission_.get();
  m.delay_offsets = delay_offsets_.get();
  m.delay_levels = delay_levels_ ? delay_levels_->max_level() : 0;
  m.transactions = transactions_.get();
  m.timers = timer_service_.get();
  m.timer_index = timer_index_;
  m.clock = &clock_;
  return m;
}

std::string Broker::RenderMetrics() const { return RenderBrokerMetrics(metrics_sources()); }

Status Broker::StartMetricsServer() {
  if (options_.metrics_port == 0) return Status::OK();
  if (options_.metrics_port < -1 || options_.metrics_port > 65535) {
    return InvalidArgument("metricsPromExporterPort must be a port in [0, 65535] (0 = off), got " +
                           std::to_string(options_.metrics_port));
  }
  metrics_server_ = std::make_unique<MetricsHttpServer>([this] { return RenderMetrics(); });
  const uint16_t port =
      options_.metrics_port < 0 ? 0 : static_cast<uint16_t>(options_.metrics_port);
  if (Status s = metrics_server_->Start(options_.metrics_host, port); !s.ok()) {
    metrics_server_.reset();
    return s;
  }
  return Status::OK();
}

Status Broker::Stop() {
  if (!started_) return Status::OK();
  started_ = false;
  if (metrics_server_) metrics_server_->Stop();  // no scrape reads the services below
  frontend_->SetReady(false);
  schedule_->Stop();
  transactions_->Stop();
  for (ServiceRunner* r :
       {registrar_runner_.get(), client_runner_.get(), hold_runner_.get(), stats_runner_.get()}) {
    r->Stop();
  }
  if (timer_runner_) timer_runner_->Stop();
  // Topic changes still waiting for a round are answered (the connections are still open).
  registrar_->AbandonPending(Unavailable("the broker is shutting down before registering"));
  registrar_->UnregisterAll();
  server_->Stop();
  holds_->Clear();
  persister_->Stop();
  // The store first: its clean close makes every delivered delay message durable, so the
  // delay levels' progress can be written in full.
  Status c = store_->Close();
  if (c.ok()) schedule_->CommitAllPending();
  schedule_wake_.store(nullptr, std::memory_order_release);
  Status s = persister_->PersistAll();
  return c.ok() ? s : c;
}

}  // namespace rocketstore::broker
