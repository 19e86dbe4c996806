#include "broker/broker.h"

#include <chrono>

#include "broker/hooks/delay_level_hook.h"
#include "broker/hooks/message_check_hook.h"
#include "broker/hooks/retry_topic_hook.h"
#include "broker/remoting/remoting_channel.h"
#include "broker/system_topics.h"
#include "broker/transaction/half_message_hook.h"
#include "io/posix_file_system.h"
#include "log/log.h"
#include "store/layout/layout.h"

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
  auto store = MessageStore::Open(so, fs_, clock_);
  if (!store.ok()) return store.status();
  store_ = std::move(store).value();
  using layout::ConfigFile;
  topics_ = std::make_unique<TopicConfigManager>(fs_, clock_,
                                                 layout::ConfigPath(root, ConfigFile::kTopics));
  offsets_ = std::make_unique<ConsumerOffsetManager>(
      fs_, clock_, layout::ConfigPath(root, ConfigFile::kConsumerOffset));
  groups_ = std::make_unique<SubscriptionGroupManager>(
      fs_, clock_, layout::ConfigPath(root, ConfigFile::kSubscriptionGroup));
  delay_offsets_ = std::make_unique<DelayOffsetManager>(
      fs_, clock_, layout::ConfigPath(root, ConfigFile::kDelayOffset));
  for (ConfigManager* m :
       {static_cast<ConfigManager*>(topics_.get()), static_cast<ConfigManager*>(offsets_.get()),
        static_cast<ConfigManager*>(groups_.get()),
        static_cast<ConfigManager*>(delay_offsets_.get())}) {
    RS_RETURN_IF_ERROR(m->Load());
    if (m->load_report().source == ConfigLoadReport::Source::kBackup) {
      RS_LOG_WARN("config file unreadable, loaded its backup: {}", m->load_report().ToString());
    }
  }
  if (options_.auto_create_topic && !topics_->Find(kAutoCreateTemplateTopic)) {
    TopicConfig t;
    t.name = std::string(kAutoCreateTemplateTopic);
    t.read_queue_nums = t.write_queue_nums = options_.default_topic_queue_nums;
    t.perm = kPermRead | kPermWrite | kPermInherit;
    topics_->Upsert(t);
  }
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
  registrar_ = std::make_unique<NamesrvRegistrar>(ro, *topics_);
  registrar_runner_ =
      std::make_unique<ServiceRunner>("broker-register", milliseconds(1000), [this] {
        if (Status s = registrar_->RunOnce(clock_.MonotonicNanos() / 1000000); !s.ok()) {
          RS_LOG_WARN("registration with the name servers failed: {}", s.ToString());
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
  auto request_registration = [r = registrar_.get()] { r->RequestNow(); };
  reput_ = std::make_unique<Reputter>(*store_, pipeline_);
  RetryService::Options rto;
  rto.auto_create_subscription_group = options_.auto_create_subscription_group;
  rto.broker_permission = options_.broker_permission;
  retry_ = std::make_unique<RetryService>(rto, *groups_, *topics_, *reput_, request_registration);
  pipeline_.Add(std::make_unique<MessageCheckHook>(options_.store.max_message_body_bytes));
  pipeline_.Add(std::make_unique<HalfMessageHook>());  // before the delay levels
  pipeline_.Add(std::make_unique<RetryTopicHook>(*retry_));
  pipeline_.Add(std::make_unique<DelayLevelHook>(*delay_levels_));
  SendService::Options so;
  so.cluster_name = options_.cluster_name;
  so.auto_create_topic = options_.auto_create_topic;
  so.groups = groups_.get();
  send_ = std::make_unique<SendService>(so, *store_, *topics_, pipeline_, request_registration);
  schedule_ = std::make_unique<ScheduleDeliveryService>(*delay_levels_, *store_, *reput_,
                                                        *delay_offsets_, clock_);
  schedule_wake_.store(schedule_.get(), std::memory_order_release);
  TransactionService::Options to;
  to.transaction_timeout_ms = options_.transaction_timeout_ms;
  to.check_interval_ms = options_.transaction_check_interval_ms;
  to.check_max = options_.transaction_check_max;
  to.tick_ms = std::min<int64_t>(1000, std::max<int64_t>(1, to.check_interval_ms));
  transactions_ = std::make_unique<TransactionService>(to, *store_, *reput_, *producers_,
                                                       topics_.get(), clock_);
  PullService::Options po;
  po.long_polling = options_.long_polling;
  po.short_polling_ms = options_.short_polling_ms;
  pull_ = std::make_unique<PullService>(po, clock_, *store_, *topics_, *groups_, *offsets_,
                                        *consumers_, *holds_);
  clients_ = std::make_unique<ClientService>(*consumers_, *producers_, *topics_, *groups_,
                                             request_registration);
  offset_service_ = std::make_unique<OffsetService>(*store_, *offsets_, *groups_);
  query_ = std::make_unique<QueryService>(*store_);
  topic_service_ = std::make_unique<TopicService>(*topics_, request_registration);
  locks_ = std::make_unique<RebalanceLockManager>(clock_, options_.rebalance_lock_max_live_ms);
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
  services.transactions = transactions_.get();
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
  server_ = std::make_unique<net::RemotingServer>(std::move(server_options));
  frontend_->Register(*server_);
  server_->SetCloseListener(
      [this](const net::ConnectionPtr& c) { frontend_->OnConnectionClosed(c); });
  if (Status s = server_->Start(); !s.ok()) {
    (void)store_->Close();
    store_.reset();
    return s;
  }
  address_ = options_.advertised_addr.empty()
                 ? options_.server.host + ":" + std::to_string(server_->port())
                 : options_.advertised_addr;
  auto host = format::HostAddress::Parse(address_);
  const format::HostAddress store_host =
      host.ok() ? *host : format::HostAddress::V4(127, 0, 0, 1, server_->port());
  send_->set_store_host(store_host);
  reput_->set_store_host(store_host);
  // The pending halves, before any request can settle one (requests are answered
  // SYSTEM_BUSY until SetReady).
  if (Status s = transactions_->Recover(); !s.ok()) {
    server_->Stop();
    (void)store_->Close();
    store_.reset();
    return s;
  }
  registrar_->set_broker_addr(address_);
  frontend_->SetReady(true);
  StartRunners();
  started_ = true;
  return Status::OK();
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
  hold_runner_ = std::make_unique<ServiceRunner>("broker-holds",
                                                 milliseconds(options_.pull_hold_check_interval_ms),
                                                 [this, now_ms] { holds_->RunOnce(now_ms()); });
  for (ServiceRunner* r : {registrar_runner_.get(), client_runner_.get(), hold_runner_.get()}) {
    r->Start();
  }
  schedule_->Start();
  transactions_->Start();
  registrar_->RequestNow();
}

Status Broker::Stop() {
  if (!started_) return Status::OK();
  started_ = false;
  frontend_->SetReady(false);
  schedule_->Stop();
  transactions_->Stop();
  for (ServiceRunner* r : {registrar_runner_.get(), client_runner_.get(), hold_runner_.get()}) {
    r->Stop();
  }
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
