// File: broker/broker.cc
//
// The broker's lifecycle (start, stop, registration with the name servers, housekeeping)
// and its smaller handlers: consumer groups and heartbeats, offsets, topics, queue
// metadata and message queries. Sends are in broker_send.cc, pulls in broker_pull.cc.
#include "broker/broker.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "base/crc32.h"
#include "base/thread_name.h"
#include "broker/broker_internal.h"
#include "io/posix_file_system.h"
#include "store/format/message_id.h"

namespace rocketstore::broker {

using internal::Reply;
using internal::Resp;
using protocol::RemotingCommand;
using protocol::RequestCode;
using protocol::ResponseCode;

Broker::Broker(BrokerOptions options) : options_(std::move(options)) {}

Broker::~Broker() { (void)Stop(); }

Status Broker::Start() {
  std::error_code fec;
  std::filesystem::create_directories(options_.store.root_dir + "/config", fec);
  if (fec) return Internal("cannot create " + options_.store.root_dir + "/config");
  StoreOptions store_options = options_.store;  // arrivals reach held pulls (none until serving)
  store_options.arrival_listeners.push_back(
      [this](std::string_view topic, int32_t queue_id, QueueOffset) {
        OnArrival(std::string(topic), queue_id);
      });
  auto store = MessageStore::Open(store_options, PosixFileSystem::Default(), Clock::Real());
  if (!store.ok()) return store.status();
  store_ = std::move(store).value();
  const std::string cfg = options_.store.root_dir + "/config/";
  topics_ = std::make_unique<TopicConfigManager>(cfg + "topics.json");
  offsets_ = std::make_unique<ConsumerOffsetManager>(cfg + "consumerOffset.json");
  groups_cfg_ = std::make_unique<SubscriptionGroupManager>(cfg + "subscriptionGroup.json");
  for (Status s : {topics_->Load(), offsets_->Load(), groups_cfg_->Load()}) {
    if (!s.ok()) {
      (void)store_->Close();
      store_.reset();
      return s;
    }
  }
  if (options_.auto_create_topic && !topics_->Find(kAutoCreateTemplateTopic)) {
    TopicConfig t;
    t.name = std::string(kAutoCreateTemplateTopic);
    t.read_queue_nums = t.write_queue_nums = options_.default_topic_queue_nums;
    t.perm = kPermRead | kPermWrite | kPermInherit;
    topics_->Upsert(t);
  }
  net::ServerOptions server_options = options_.server;
  server_options.thread_name = "broker-io";
  server_ = std::make_unique<net::RemotingServer>(std::move(server_options));
  RegisterHandlers();
  server_->SetCloseListener([this](const net::ConnectionPtr& c) { OnConnectionClosed(c); });
  if (Status s = server_->Start(); !s.ok()) {
    (void)store_->Close();
    store_.reset();
    return s;
  }
  address_ = options_.advertised_addr.empty()
                 ? options_.server.host + ":" + std::to_string(server_->port())
                 : options_.advertised_addr;
  auto host = format::HostAddress::Parse(address_);
  store_host_ = host.ok() ? *host : format::HostAddress::V4(127, 0, 0, 1, server_->port());
  started_ = true;
  register_requested_ = true;
  hk_thread_ = std::thread([this] {
    SetCurrentThreadName("broker-hk");
    Housekeeping();
  });
  return Status::OK();
}

Status Broker::Stop() {
  if (!started_) return Status::OK();
  started_ = false;
  {
    std::lock_guard lock(hk_mu_);
    hk_stop_ = true;
  }
  hk_cv_.notify_all();
  if (hk_thread_.joinable()) hk_thread_.join();
  {
    // Tell name servers we are going away.
    std::lock_guard lock(reg_mu_);
    for (auto& [addr, client] : ns_clients_) {
      if (!client->connected()) continue;
      RemotingCommand req = protocol::MakeRequest(RequestCode::kUnregisterBroker);
      req.SetField("brokerName", options_.broker_name);
      req.SetField("brokerAddr", address_);
      req.SetField("clusterName", options_.cluster_name);
      req.SetIntField("brokerId", 0);
      (void)client->Invoke(std::move(req), 1000);
      client->Close();
    }
    ns_clients_.clear();
  }
  server_->Stop();
  {
    std::lock_guard lock(held_mu_);
    held_.clear();
  }
  Status s = offsets_->Persist();
  Status c = store_->Close();
  return c.ok() ? s : c;
}

void Broker::RegisterHandlers() {
  auto reg = [this](RequestCode code, auto fn) {
    server_->RegisterHandler(ToInt(code), std::move(fn));
  };
  auto send = [this](const net::ConnectionPtr& c, RemotingCommand& r) { return OnSend(c, r); };
  reg(RequestCode::kSendMessage, send);
  reg(RequestCode::kSendMessageV2, send);
  reg(RequestCode::kSendBatchMessage, send);
  reg(RequestCode::kPullMessage,
      [this](const net::ConnectionPtr& c, RemotingCommand& r) { return OnPull(c, r, true); });
  reg(RequestCode::kHeartBeat,
      [this](const net::ConnectionPtr& c, RemotingCommand& r) { return OnHeartbeat(c, r); });
  reg(RequestCode::kUnregisterClient,
      [this](const net::ConnectionPtr& c, RemotingCommand& r) { return OnUnregisterClient(c, r); });
  reg(RequestCode::kGetConsumerListByGroup,
      [this](const net::ConnectionPtr&, RemotingCommand& r) { return OnConsumerList(r); });
  reg(RequestCode::kQueryConsumerOffset,
      [this](const net::ConnectionPtr&, RemotingCommand& r) { return OnQueryOffset(r); });
  reg(RequestCode::kUpdateConsumerOffset,
      [this](const net::ConnectionPtr&, RemotingCommand& r) { return OnUpdateOffset(r); });
  reg(RequestCode::kUpdateAndCreateTopic,
      [this](const net::ConnectionPtr&, RemotingCommand& r) { return OnCreateTopic(r); });
  auto meta = [this](const net::ConnectionPtr&, RemotingCommand& r) { return OnQueueMeta(r); };
  reg(RequestCode::kGetMaxOffset, meta);
  reg(RequestCode::kGetMinOffset, meta);
  reg(RequestCode::kGetEarliestMsgStoretime, meta);
  reg(RequestCode::kSearchOffsetByTimestamp, meta);
  reg(RequestCode::kQueryMessage,
      [this](const net::ConnectionPtr&, RemotingCommand& r) { return OnQueryMessage(r); });
  reg(RequestCode::kViewMessageById,
      [this](const net::ConnectionPtr&, RemotingCommand& r) { return OnViewMessage(r); });
}

// ---------------------------------------------------------------- clients

Reply Broker::OnHeartbeat(const net::ConnectionPtr& conn, RemotingCommand& r) {
  std::vector<uint8_t> body = r.body.Flatten();
  rapidjson::Document parsed;
  parsed.Parse(reinterpret_cast<const char*>(body.data()), body.size());
  if (parsed.HasParseError() || !parsed.IsObject()) {
    return Resp(r, ResponseCode::kSystemError, "heartbeat body is not valid JSON");
  }
  // Read through const iterators: RapidJSON 1.1.0's mutable ones compare ambiguously
  // under C++20's reversed operators (clang rejects them).
  const rapidjson::Value& doc = parsed;
  auto cid = doc.FindMember("clientID");
  if (cid == doc.MemberEnd() || !cid->value.IsString()) {
    return Resp(r, ResponseCode::kSystemError, "the custom field clientID is null");
  }
  const std::string client_id = cid->value.GetString();
  const int64_t now = net::SteadyNowMillis();
  std::vector<std::string> changed;
  auto consumers = doc.FindMember("consumerDataSet");
  if (consumers != doc.MemberEnd() && consumers->value.IsArray()) {
    for (auto& c : consumers->value.GetArray()) {
      if (!c.IsObject() || !c.HasMember("groupName") || !c["groupName"].IsString()) continue;
      const std::string group = c["groupName"].GetString();
      SubscriptionGroupConfig gc = groups_cfg_->FindOrCreate(group);
      const std::string retry = "%RETRY%" + group;
      if (!topics_->Find(retry)) {
        topics_->EnsureSystemTopic(retry, std::max(1, gc.retry_queue_nums));
        RequestRegistration();
      }
      std::map<std::string, Subscription> subs;
      auto sds = c.FindMember("subscriptionDataSet");
      if (sds != c.MemberEnd() && sds->value.IsArray()) {
        for (auto& s : sds->value.GetArray()) {
          if (!s.IsObject() || !s.HasMember("topic") || !s["topic"].IsString()) continue;
          Subscription sub;
          if (s.HasMember("subString") && s["subString"].IsString()) {
            sub.expression = s["subString"].GetString();
          }
          if (s.HasMember("subVersion") && s["subVersion"].IsInt64()) {
            sub.sub_version = s["subVersion"].GetInt64();
          }
          subs[s["topic"].GetString()] = sub;
        }
      }
      std::lock_guard lock(clients_mu_);
      auto& info = consumer_groups_[group].clients;
      auto [it, inserted] = info.try_emplace(client_id);
      if (inserted || it->second.conn_id != conn->id()) changed.push_back(group);
      it->second.conn = conn;
      it->second.conn_id = conn->id();
      it->second.last_seen_ms = now;
      it->second.subscriptions = std::move(subs);
    }
  }
  auto producers = doc.FindMember("producerDataSet");
  if (producers != doc.MemberEnd() && producers->value.IsArray()) {
    std::lock_guard lock(clients_mu_);
    for (auto& p : producers->value.GetArray()) {
      if (!p.IsObject() || !p.HasMember("groupName") || !p["groupName"].IsString()) continue;
      auto& ci = producer_groups_[p["groupName"].GetString()].clients[client_id];
      ci.conn = conn;
      ci.conn_id = conn->id();
      ci.last_seen_ms = now;
    }
  }
  for (const auto& g : changed) NotifyConsumersChanged(g);
  return Resp(r, ResponseCode::kSuccess);
}

Reply Broker::OnUnregisterClient(const net::ConnectionPtr&, RemotingCommand& r) {
  auto cid = r.GetString("clientID");
  if (!cid.ok()) return protocol::MakeSystemErrorResponse(r, cid.status());
  bool notify = false;
  std::string cgroup(r.FindField("consumerGroup").value_or(""));
  {
    std::lock_guard lock(clients_mu_);
    if (auto pg = r.FindField("producerGroup")) {
      auto it = producer_groups_.find(std::string(*pg));
      if (it != producer_groups_.end()) it->second.clients.erase(std::string(*cid));
    }
    if (!cgroup.empty()) {
      auto it = consumer_groups_.find(cgroup);
      if (it != consumer_groups_.end()) notify = it->second.clients.erase(std::string(*cid)) > 0;
    }
  }
  if (notify) NotifyConsumersChanged(cgroup);
  return Resp(r, ResponseCode::kSuccess);
}

Reply Broker::OnConsumerList(RemotingCommand& r) {
  auto group = r.GetString("consumerGroup");
  if (!group.ok()) return protocol::MakeSystemErrorResponse(r, group.status());
  std::vector<std::string> ids;
  {
    std::lock_guard lock(clients_mu_);
    auto it = consumer_groups_.find(std::string(*group));
    if (it != consumer_groups_.end()) {
      for (auto& [id, info] : it->second.clients) ids.push_back(id);
    }
  }
  if (ids.empty()) {
    return Resp(r, ResponseCode::kSystemError,
                "no consumer for this group, " + std::string(*group));
  }
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  w.StartObject();
  w.Key("consumerIdList");
  w.StartArray();
  for (auto& id : ids) w.String(id.c_str(), static_cast<rapidjson::SizeType>(id.size()));
  w.EndArray();
  w.EndObject();
  RemotingCommand resp = Resp(r, ResponseCode::kSuccess);
  resp.body.Assign(std::string_view(sb.GetString(), sb.GetSize()));
  return resp;
}

void Broker::NotifyConsumersChanged(const std::string& group) {
  std::vector<net::ConnectionPtr> conns;
  {
    std::lock_guard lock(clients_mu_);
    auto it = consumer_groups_.find(group);
    if (it == consumer_groups_.end()) return;
    for (auto& [id, info] : it->second.clients) {
      if (auto c = info.conn.lock()) conns.push_back(c);
    }
  }
  for (auto& c : conns) {
    RemotingCommand n = protocol::MakeRequest(RequestCode::kNotifyConsumerIdsChanged);
    n.SetField("consumerGroup", group);
    n.MarkOneway();
    c->Send(std::move(n));
  }
}

void Broker::OnConnectionClosed(const net::ConnectionPtr& c) {
  const auto id = c->id();
  RemoveClientsIf([id](const ClientInfo& client) { return client.conn_id == id; });
}

void Broker::ExpireClients(int64_t now_ms) {
  RemoveClientsIf([&](const ClientInfo& client) {
    return now_ms - client.last_seen_ms > options_.channel_expired_timeout_ms;
  });
}

void Broker::RemoveClientsIf(const std::function<bool(const ClientInfo&)>& gone) {
  std::vector<std::string> changed;
  {
    std::lock_guard lock(clients_mu_);
    for (auto* table : {&consumer_groups_, &producer_groups_}) {
      for (auto& [name, group] : *table) {
        const size_t removed =
            std::erase_if(group.clients, [&](const auto& entry) { return gone(entry.second); });
        if (removed > 0 && table == &consumer_groups_) changed.push_back(name);
      }
    }
  }
  for (auto& g : changed) NotifyConsumersChanged(g);
}

// ---------------------------------------------------------------- offsets, topics, meta

Reply Broker::OnQueryOffset(RemotingCommand& r) {
  if (Status s = r.RequireFields({"consumerGroup", "topic", "queueId"}); !s.ok()) {
    return protocol::MakeSystemErrorResponse(r, s);
  }
  auto q = r.GetInt32("queueId");
  if (!q.ok()) return protocol::MakeSystemErrorResponse(r, q.status());
  const std::string_view group = *r.FindField("consumerGroup");
  const std::string_view topic = *r.FindField("topic");
  int64_t off = offsets_->Query(group, topic, *q);
  auto ok_with = [&](int64_t v) {
    RemotingCommand resp = Resp(r, ResponseCode::kSuccess);
    resp.SetIntField("offset", v);
    return resp;
  };
  if (off >= 0) return ok_with(off);
  const bool explicit_false =
      r.FindField("setZeroIfNotFound").has_value() && !r.GetBoolOr("setZeroIfNotFound", true);
  if (!explicit_false && store_->GetMinOffsetInQueue(topic, *q).value() <= 0 &&
      store_->GetMaxOffsetInQueue(topic, *q).value() > 0) {
    return ok_with(0);
  }
  return Resp(r, ResponseCode::kQueryNotFound,
              "Not found, V3_0_6_SNAPSHOT maybe this group consumer boot first");
}

Reply Broker::OnUpdateOffset(RemotingCommand& r) {
  if (Status s = r.RequireFields({"consumerGroup", "topic", "queueId", "commitOffset"}); !s.ok()) {
    return protocol::MakeSystemErrorResponse(r, s);
  }
  auto q = r.GetInt32("queueId");
  auto off = r.GetInt("commitOffset");
  if (!q.ok()) return protocol::MakeSystemErrorResponse(r, q.status());
  if (!off.ok()) return protocol::MakeSystemErrorResponse(r, off.status());
  const std::string_view group = *r.FindField("consumerGroup");
  const std::string_view topic = *r.FindField("topic");
  groups_cfg_->FindOrCreate(group);
  if (!topics_->Find(topic)) {
    return Resp(r, ResponseCode::kTopicNotExist,
                "topic[" + std::string(topic) + "] not exist, apply first please!");
  }
  offsets_->Commit(group, topic, *q, *off);
  return Resp(r, ResponseCode::kSuccess);
}

Reply Broker::OnCreateTopic(RemotingCommand& r) {
  if (Status s = r.RequireFields({"topic", "readQueueNums", "writeQueueNums", "perm"}); !s.ok()) {
    return protocol::MakeSystemErrorResponse(r, s);
  }
  TopicConfig c;
  c.name = std::string(*r.FindField("topic"));
  if (!IsValidTopicName(c.name)) {
    return Resp(r, ResponseCode::kInvalidParameter, "The specified topic is invalid: " + c.name);
  }
  auto rq = r.GetInt32("readQueueNums");
  auto wq = r.GetInt32("writeQueueNums");
  auto perm = r.GetInt32("perm");
  auto sf = r.GetInt32Or("topicSysFlag", 0);
  for (const Status& s : {rq.status(), wq.status(), perm.status(), sf.status()}) {
    if (!s.ok()) return protocol::MakeSystemErrorResponse(r, s);
  }
  if (*rq < 1 || *wq < 1 || *rq > 1024 || *wq > 1024) {
    return Resp(r, ResponseCode::kInvalidParameter, "queue numbers must be in [1, 1024]");
  }
  c.read_queue_nums = *rq;
  c.write_queue_nums = *wq;
  c.perm = *perm;
  c.sys_flag = *sf;
  c.filter_type = std::string(r.FindField("topicFilterType").value_or("SINGLE_TAG"));
  c.order = r.GetBoolOr("order", false);
  if (topics_->Upsert(c)) RequestRegistration();
  return Resp(r, ResponseCode::kSuccess);
}

Reply Broker::OnQueueMeta(RemotingCommand& r) {
  if (Status s = r.RequireFields({"topic", "queueId"}); !s.ok()) {
    return protocol::MakeSystemErrorResponse(r, s);
  }
  auto q = r.GetInt32("queueId");
  if (!q.ok()) return protocol::MakeSystemErrorResponse(r, q.status());
  const std::string_view topic = *r.FindField("topic");
  RemotingCommand resp = Resp(r, ResponseCode::kSuccess);
  if (r.code == ToInt(RequestCode::kGetMaxOffset)) {
    resp.SetIntField("offset", store_->GetMaxOffsetInQueue(topic, *q).value());
  } else if (r.code == ToInt(RequestCode::kGetMinOffset)) {
    resp.SetIntField("offset", store_->GetMinOffsetInQueue(topic, *q).value());
  } else if (r.code == ToInt(RequestCode::kGetEarliestMsgStoretime)) {
    auto t = store_->GetEarliestMessageTime(topic, *q);
    resp.SetIntField("timestamp", t.ok() ? *t : -1);
  } else {
    auto ts = r.GetInt("timestamp");
    if (!ts.ok()) return protocol::MakeSystemErrorResponse(r, ts.status());
    if (r.FindField("boundaryType").value_or("lower") == "upper") {
      // Largest offset stored at or before ts: one before the first one after it.
      auto after = store_->GetOffsetInQueueByTime(topic, *q, *ts + 1);
      const int64_t min = store_->GetMinOffsetInQueue(topic, *q).value();
      const int64_t max = store_->GetMaxOffsetInQueue(topic, *q).value();
      const int64_t v = after.ok() ? after->value() - 1 : 0;
      resp.SetIntField("offset", max == 0 ? 0 : std::clamp<int64_t>(v, min, max - 1));
    } else {
      auto off = store_->GetOffsetInQueueByTime(topic, *q, *ts);
      resp.SetIntField("offset", off.ok() ? off->value() : 0);
    }
  }
  return resp;
}

Reply Broker::OnQueryMessage(RemotingCommand& r) {
  if (Status s = r.RequireFields({"topic", "key", "maxNum", "beginTimestamp", "endTimestamp"});
      !s.ok()) {
    return protocol::MakeSystemErrorResponse(r, s);
  }
  auto max_num = r.GetInt32("maxNum");
  auto begin = r.GetInt("beginTimestamp");
  auto end = r.GetInt("endTimestamp");
  for (const Status& s : {max_num.status(), begin.status(), end.status()}) {
    if (!s.ok()) return protocol::MakeSystemErrorResponse(r, s);
  }
  int32_t n = *max_num;
  if (r.GetBoolOr("_UNIQUE_KEY_QUERY", false)) n = std::min(n, 32);
  auto result = store_->QueryMessage(*r.FindField("topic"), *r.FindField("key"), n, *begin, *end);
  if (!result.ok() || result->messages.empty()) {
    return Resp(r, ResponseCode::kQueryNotFound,
                "can not find message, maybe time range not correct");
  }
  RemotingCommand resp = Resp(r, ResponseCode::kSuccess);
  for (auto& m : result->messages) {
    auto bytes = store_->ReadRecord(m.offset);
    if (bytes.ok()) resp.body.AppendExternal(bytes->bytes, bytes->file);
  }
  resp.SetIntField("indexLastUpdateTimestamp", result->index_last_update_timestamp);
  resp.SetIntField("indexLastUpdatePhyoffset", result->index_last_update_phy_offset.value());
  return resp;
}

Reply Broker::OnViewMessage(RemotingCommand& r) {
  auto off = r.GetInt("offset");
  if (!off.ok()) return protocol::MakeSystemErrorResponse(r, off.status());
  auto bytes = store_->ReadRecord(PhysicalOffset(*off));
  if (!bytes.ok()) {
    return Resp(r, ResponseCode::kSystemError,
                "can not find message by the offset, " + std::to_string(*off));
  }
  RemotingCommand resp = Resp(r, ResponseCode::kSuccess);
  resp.body.AppendExternal(bytes->bytes, bytes->file);
  return resp;
}

// ---------------------------------------------------------------- housekeeping

void Broker::RequestRegistration() {
  {
    std::lock_guard lock(hk_mu_);
    register_requested_ = true;
  }
  hk_cv_.notify_all();
}

Status Broker::RegisterAll() {
  if (options_.namesrv_addrs.empty()) return Status::OK();
  const std::string body =
      "{\"filterServerList\":[],\"topicConfigSerializeWrapper\":" + topics_->ToJson() + "}";
  std::lock_guard lock(reg_mu_);
  Status last = Status::OK();
  int ok = 0;
  for (const auto& addr : options_.namesrv_addrs) {
    auto& client = ns_clients_[addr];
    if (!client) client = std::make_unique<net::RemotingClient>();
    if (!client->connected()) {
      if (Status s = client->Connect(addr, 3000); !s.ok()) {
        last = s;
        continue;
      }
    }
    RemotingCommand req = protocol::MakeRequest(RequestCode::kRegisterBroker);
    req.SetField("brokerName", options_.broker_name);
    req.SetField("brokerAddr", address_);
    req.SetField("clusterName", options_.cluster_name);
    req.SetField("haServerAddr", address_);
    req.SetIntField("brokerId", 0);
    req.SetIntField("heartbeatTimeoutMillis", 120000);
    req.SetBoolField("enableActingMaster", false);
    req.SetBoolField("compressed", false);
    req.SetIntField("bodyCrc32", RocketMqCrc32(body));
    req.body.Assign(body);
    auto resp = client->Invoke(std::move(req), 3000);
    if (!resp.ok()) {
      last = resp.status();
    } else if (resp->code != 0) {
      last = Unavailable("name server " + addr +
                         " refused registration: " + resp->remark.value_or(""));
    } else {
      ++ok;
    }
  }
  return ok > 0 ? Status::OK() : last;
}

void Broker::Housekeeping() {
  int64_t next_register = 0;
  int64_t next_persist = net::SteadyNowMillis() + options_.offset_persist_interval_ms;
  int64_t next_expire = net::SteadyNowMillis() + 10000;
  std::unique_lock lock(hk_mu_);
  while (!hk_stop_) {
    hk_cv_.wait_for(lock, std::chrono::milliseconds(200),
                    [this] { return hk_stop_ || register_requested_; });
    if (hk_stop_) break;
    const bool requested = std::exchange(register_requested_, false);
    lock.unlock();
    const int64_t now = net::SteadyNowMillis();
    if (requested || now >= next_register) {
      if (Status s = RegisterAll(); !s.ok()) {
        std::fprintf(stderr, "broker: registration failed: %s\n", s.message().c_str());
      }
      next_register = now + options_.register_interval_ms;
    }
    if (now >= next_persist) {
      if (Status s = offsets_->Persist(); !s.ok()) {
        std::fprintf(stderr, "broker: persisting offsets failed: %s\n", s.message().c_str());
      }
      next_persist = now + options_.offset_persist_interval_ms;
    }
    if (now >= next_expire) {
      ExpireClients(now);
      next_expire = now + 10000;
    }
    CheckHeldPulls(now);
    lock.lock();
  }
}

}  // namespace rocketstore::broker
