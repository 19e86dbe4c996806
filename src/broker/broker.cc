#include "broker/broker.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>

#include "base/coding.h"
#include "base/crc32.h"
#include "base/thread_name.h"
#include "io/posix_file_system.h"
#include "store/format/message_id.h"
#include "store/format/properties.h"

namespace rocketstore::broker {

using protocol::RemotingCommand;
using protocol::RequestCode;
using protocol::ResponseCode;
using Reply = std::optional<RemotingCommand>;

namespace {

RemotingCommand Resp(const RemotingCommand& req, ResponseCode code) {
  return protocol::MakeResponse(req, code);
}
RemotingCommand Resp(const RemotingCommand& req, ResponseCode code, std::string remark) {
  return protocol::MakeResponse(req, code, std::move(remark));
}

bool IsForbiddenTopic(std::string_view t) {
  return t == kAutoCreateTemplateTopic || t == "SCHEDULE_TOPIC_XXXX" ||
         t == "RMQ_SYS_TRANS_HALF_TOPIC" || t.starts_with("rmq_sys_");
}

std::string RandomHex32() {
  static thread_local std::mt19937_64 rng(std::random_device{}());
  uint8_t bytes[16];
  EncodeFixed64BE(bytes, rng());
  EncodeFixed64BE(bytes + 8, rng());
  return HexUpper(bytes, sizeof(bytes));
}

format::HostAddress HostOf(const net::Connection& c) {
  const uint32_t ip = c.remote_ipv4();
  return format::HostAddress::V4(static_cast<uint8_t>(ip >> 24), static_cast<uint8_t>(ip >> 16),
                                 static_cast<uint8_t>(ip >> 8), static_cast<uint8_t>(ip),
                                 c.remote_port());
}

ResponseCode MapPutStatus(PutMessageStatus s) {
  switch (s) {
    case PutMessageStatus::kPutOk:
      return ResponseCode::kSuccess;
    case PutMessageStatus::kFlushDiskTimeout:
      return ResponseCode::kFlushDiskTimeout;
    case PutMessageStatus::kFlushSlaveTimeout:
      return ResponseCode::kFlushSlaveTimeout;
    case PutMessageStatus::kSlaveNotAvailable:
      return ResponseCode::kSlaveNotAvailable;
    case PutMessageStatus::kServiceNotAvailable:
      return ResponseCode::kServiceNotAvailable;
    case PutMessageStatus::kMessageIllegal:
    case PutMessageStatus::kPropertiesSizeExceeded:
      return ResponseCode::kMessageIllegal;
    case PutMessageStatus::kOsPageCacheBusy:
      return ResponseCode::kSystemBusy;
    default:
      return ResponseCode::kSystemError;
  }
}

}  // namespace

Broker::Broker(BrokerOptions options) : options_(std::move(options)) {}

Broker::~Broker() { (void)Stop(); }

Status Broker::Start() {
  std::error_code fec;
  std::filesystem::create_directories(options_.store.root_dir + "/config", fec);
  if (fec) return Internal("cannot create " + options_.store.root_dir + "/config");
  auto store = MessageStore::Open(options_.store, PosixFileSystem::Default(), Clock::Real());
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
  store_->SetArrivalListener([this](std::string_view topic, int32_t queue_id, QueueOffset) {
    OnArrival(std::string(topic), queue_id);
  });
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

// ---------------------------------------------------------------- send

Reply Broker::OnSend(const net::ConnectionPtr& conn, RemotingCommand& r) {
  const bool v2 = r.code != ToInt(RequestCode::kSendMessage);
  auto F = [v2](std::string_view shortname, std::string_view longname) {
    return v2 ? shortname : longname;
  };
  if (Status s = r.RequireFields({F("a", "producerGroup"), F("b", "topic"), F("c", "defaultTopic"),
                                  F("d", "defaultTopicQueueNums"), F("e", "queueId"),
                                  F("f", "sysFlag"), F("g", "bornTimestamp"), F("h", "flag")});
      !s.ok()) {
    return protocol::MakeSystemErrorResponse(r, s);
  }
  const std::string topic(*r.FindField(F("b", "topic")));
  auto queue_nums = r.GetInt32(F("d", "defaultTopicQueueNums"));
  auto queue_id_in = r.GetInt32(F("e", "queueId"));
  auto sys_flag = r.GetInt32(F("f", "sysFlag"));
  auto born = r.GetInt(F("g", "bornTimestamp"));
  auto flag = r.GetInt32(F("h", "flag"));
  auto reconsume = r.GetInt32Or(F("j", "reconsumeTimes"), 0);
  for (const Status& s : {queue_nums.status(), queue_id_in.status(), sys_flag.status(),
                          born.status(), flag.status(), reconsume.status()}) {
    if (!s.ok()) return protocol::MakeSystemErrorResponse(r, s);
  }
  const bool batch =
      r.code == ToInt(RequestCode::kSendBatchMessage) || r.GetBoolOr(F("m", "batch"), false);
  if (!IsValidTopicName(topic)) {
    return Resp(r, ResponseCode::kInvalidParameter, "the specified topic is invalid: " + topic);
  }
  if (IsForbiddenTopic(topic)) {
    return Resp(r, ResponseCode::kNoPermission,
                "Sending message to topic[" + topic + "] is forbidden.");
  }
  auto config = topics_->Find(topic);
  if (!config) {
    const std::string def(r.FindField(F("c", "defaultTopic")).value_or(""));
    if (options_.auto_create_topic) config = topics_->CreateFromTemplate(topic, def, *queue_nums);
    if (!config && topic.starts_with("%RETRY%")) config = topics_->EnsureSystemTopic(topic, 1);
    if (!config) {
      return Resp(r, ResponseCode::kTopicNotExist,
                  "topic[" + topic + "] not exist, apply first please!");
    }
    RequestRegistration();
  }
  if ((config->perm & kPermWrite) == 0) {
    return Resp(r, ResponseCode::kNoPermission, "the topic[" + topic + "] sending is forbidden");
  }
  int32_t queue_id = *queue_id_in;
  if (queue_id >= std::max(config->write_queue_nums, config->read_queue_nums)) {
    return Resp(r, ResponseCode::kInvalidParameter,
                "request queueId[" + std::to_string(queue_id) + "] is illegal");
  }
  if (queue_id < 0) {
    static thread_local std::mt19937 rng(std::random_device{}());
    queue_id =
        static_cast<int32_t>(rng() % static_cast<uint32_t>(std::max(1, config->write_queue_nums)));
  }
  const std::string_view props_in = r.FindField(F("i", "properties")).value_or("");
  if (props_in.size() > 32767) {
    return Resp(r, ResponseCode::kMessageIllegal, "properties size exceeds 32767 bytes");
  }
  if (r.body.size() > options_.store.max_message_body_bytes) {
    return Resp(r, ResponseCode::kMessageIllegal,
                "message body size " + std::to_string(r.body.size()) + " exceeds " +
                    std::to_string(options_.store.max_message_body_bytes));
  }
  if (batch && topic.starts_with("%RETRY%")) {
    return Resp(r, ResponseCode::kMessageIllegal, "batch request does not support retry group");
  }
  const bool wait = format::FindProperty(props_in, "WAIT").value_or("true") != "false";
  int32_t stored_sys_flag = *sys_flag;
  if (config->filter_type == "MULTI_TAG") stored_sys_flag |= 0x2;

  const std::string_view body = r.body.owned_text();
  format::MessageToStore base;
  base.topic = topic;
  base.queue_id = queue_id;
  base.sys_flag = stored_sys_flag;
  base.born_timestamp = *born;
  base.born_host = HostOf(*conn);
  base.store_host = store_host_;
  base.reconsume_times = *reconsume;

  // What the reply needs, kept apart from the request so that the reply can be built on
  // the thread that finishes a group commit, after this handler has returned.
  SendReply reply;
  reply.request.code = r.code;
  reply.request.language = r.language;
  reply.request.version = r.version;
  reply.request.opaque = r.opaque;
  reply.request.flag = r.flag;
  reply.request.serialize_type = r.serialize_type;
  reply.batch = batch;
  reply.queue_id = queue_id;
  std::vector<format::MessageToStore> msgs;
  std::string props;
  if (batch) {
    const auto* p = reinterpret_cast<const uint8_t*>(body.data());
    size_t pos = 0;
    while (pos < body.size()) {
      if (body.size() - pos < 20) return Resp(r, ResponseCode::kMessageIllegal, "bad batch body");
      const int32_t total = DecodeInt32BE(p + pos);
      const int32_t mflag = DecodeInt32BE(p + pos + 12);
      const int32_t blen = DecodeInt32BE(p + pos + 16);
      if (total < 22 || static_cast<size_t>(total) > body.size() - pos || blen < 0 ||
          static_cast<size_t>(blen) + 22 > static_cast<size_t>(total)) {
        return Resp(r, ResponseCode::kMessageIllegal, "bad batch body");
      }
      const size_t pl_pos = pos + 20 + static_cast<size_t>(blen);
      const int32_t plen = DecodeInt16BE(p + pl_pos);
      if (plen < 0 || pl_pos + 2 + static_cast<size_t>(plen) > pos + static_cast<size_t>(total)) {
        return Resp(r, ResponseCode::kMessageIllegal, "bad batch body");
      }
      format::MessageToStore m = base;
      m.flag = mflag;
      m.body = body.substr(pos + 20, static_cast<size_t>(blen));
      m.properties = body.substr(pl_pos + 2, static_cast<size_t>(plen));
      msgs.push_back(m);
      pos += static_cast<size_t>(total);
    }
    if (msgs.empty()) return Resp(r, ResponseCode::kMessageIllegal, "empty batch");
    for (const auto& m : msgs) {
      reply.record_sizes.push_back(static_cast<int64_t>(format::EncodedRecordSize(m)));
    }
  } else {
    format::PropertiesBuilder b = format::PropertiesBuilder::FromString(props_in);
    b.Remove("WAIT");
    b.Put("CLUSTER", options_.cluster_name);
    if (auto u = b.Get("UNIQ_KEY")) {
      reply.uniq = std::string(*u);
    } else {
      reply.uniq = RandomHex32();
      b.Put("UNIQ_KEY", reply.uniq);
    }
    props = b.Build();
    base.flag = *flag;
    base.body = body;
    base.properties = props;
  }
  // Most puts are answered at once (ASYNC_FLUSH, or WAIT=false): reply inline.
  if (!store_->PutWaitsForFlush(wait)) {
    reply.put = batch ? store_->PutMessages(msgs, wait) : store_->PutMessage(base, wait);
    return BuildSendResponse(reply);
  }
  // SYNC_FLUSH with WAIT: the store answers from the thread that finished the group
  // commit, possibly before PutMessageAsync returns here. Whoever comes second sends the
  // reply: this handler (returning it) or the callback (SendResponse).
  enum : int { kInCall, kAnswered, kReturned };
  auto shared = std::make_shared<SendReply>(std::move(reply));
  auto state = std::make_shared<std::atomic<int>>(kInCall);
  auto done = [this, conn, shared, state](PutMessageResult put) {
    shared->put = std::move(put);
    if (state->exchange(kAnswered, std::memory_order_acq_rel) == kReturned) {
      conn->SendResponse(shared->request, BuildSendResponse(*shared));
    }
  };
  if (batch) {
    store_->PutMessagesAsync(msgs, wait, std::move(done));
  } else {
    store_->PutMessageAsync(base, wait, std::move(done));
  }
  if (state->exchange(kReturned, std::memory_order_acq_rel) == kAnswered) {
    return BuildSendResponse(*shared);
  }
  return std::nullopt;
}

RemotingCommand Broker::BuildSendResponse(const SendReply& reply) const {
  const PutMessageResult& put = reply.put;
  const ResponseCode code = MapPutStatus(put.status);
  if (put.status != PutMessageStatus::kPutOk && put.status != PutMessageStatus::kFlushDiskTimeout &&
      put.status != PutMessageStatus::kFlushSlaveTimeout &&
      put.status != PutMessageStatus::kSlaveNotAvailable) {
    return Resp(reply.request, code, "store rejected the message: " + put.error);
  }
  RemotingCommand resp = Resp(reply.request, code);
  resp.ext_fields.Reserve(6);  // the fields below: one allocation instead of four
  std::string msg_id;
  if (reply.batch) {
    int64_t off = put.first.offset.value();
    for (size_t i = 0; i < reply.record_sizes.size(); ++i) {
      if (i) msg_id.push_back(',');
      msg_id += format::EncodeOffsetMsgId(store_host_, off);
      off += reply.record_sizes[i];
    }
  } else {
    msg_id = format::EncodeOffsetMsgId(store_host_, put.first.offset.value());
    resp.SetField("transactionId", reply.uniq);
  }
  resp.SetField("msgId", msg_id);
  resp.SetIntField("queueId", reply.queue_id);
  resp.SetIntField("queueOffset", put.first.queue_offset.value());
  resp.SetField("MSG_REGION", "DefaultRegion");
  resp.SetField("TRACE_ON", "true");
  return resp;
}

// ---------------------------------------------------------------- pull

Reply Broker::OnPull(const net::ConnectionPtr& conn, RemotingCommand& r, bool first_pass) {
  if (Status s = r.RequireFields({"consumerGroup", "topic", "queueId", "queueOffset", "maxMsgNums",
                                  "sysFlag", "commitOffset", "suspendTimeoutMillis"});
      !s.ok()) {
    return protocol::MakeSystemErrorResponse(r, s);
  }
  const std::string group(*r.FindField("consumerGroup"));
  const std::string topic(*r.FindField("topic"));
  auto queue_id = r.GetInt32("queueId");
  auto offset = r.GetInt("queueOffset");
  auto max_nums = r.GetInt32("maxMsgNums");
  auto sys_flag = r.GetInt32("sysFlag");
  auto commit = r.GetInt("commitOffset");
  auto suspend = r.GetInt("suspendTimeoutMillis");
  for (const Status& s : {queue_id.status(), offset.status(), max_nums.status(), sys_flag.status(),
                          commit.status(), suspend.status()}) {
    if (!s.ok()) return protocol::MakeSystemErrorResponse(r, s);
  }
  groups_cfg_->FindOrCreate(group);
  auto config = topics_->Find(topic);
  if (!config) {
    return Resp(r, ResponseCode::kTopicNotExist,
                "topic[" + topic + "] not exist, apply first please!");
  }
  if ((config->perm & kPermRead) == 0) {
    return Resp(r, ResponseCode::kNoPermission, "the topic[" + topic + "] pulling is forbidden");
  }
  if (*queue_id < 0 || *queue_id >= config->read_queue_nums) {
    return Resp(r, ResponseCode::kInvalidParameter,
                "queueId[" + std::to_string(*queue_id) + "] is illegal");
  }
  std::string expression = "*";
  if (*sys_flag & 4) {
    if (r.FindField("expressionType").value_or("TAG") == "SQL92") {
      return Resp(r, ResponseCode::kSystemError,
                  "The broker does not support consumer to filter message by SQL92");
    }
    expression = std::string(r.FindField("subscription").value_or("*"));
  } else {
    std::lock_guard lock(clients_mu_);
    const Subscription* found = nullptr;
    auto g = consumer_groups_.find(group);
    if (g != consumer_groups_.end()) {
      for (auto& [id, client] : g->second.clients) {
        auto s = client.subscriptions.find(topic);
        if (s != client.subscriptions.end()) found = &s->second;
      }
    }
    if (!found) {
      return Resp(r, ResponseCode::kSubscriptionNotExist, "the consumer's subscription not exist");
    }
    if (found->sub_version <
        (r.GetIntOr("subVersion", 0).ok() ? *r.GetIntOr("subVersion", 0) : 0)) {
      return Resp(r, ResponseCode::kSubscriptionNotLatest,
                  "the consumer's subscription not latest");
    }
    expression = found->expression;
  }
  if (first_pass && (*sys_flag & 1)) offsets_->Commit(group, topic, *queue_id, *commit);

  TagFilter filter(expression);
  GetMessageRequest get;
  get.group = group;
  get.topic = topic;
  get.queue_id = *queue_id;
  get.offset = QueueOffset(*offset);
  get.max_msg_nums = std::clamp(*max_nums, 1, 1024);
  get.filter = filter.matches_all() ? nullptr : &filter;
  GetMessageResult got = store_->GetMessage(get);

  ResponseCode code = ResponseCode::kSystemError;
  switch (got.status) {
    case GetMessageStatus::kFound:
      code = ResponseCode::kSuccess;
      break;
    case GetMessageStatus::kNoMatchedMessage:
    case GetMessageStatus::kMessageWasRemoving:
    case GetMessageStatus::kOffsetFoundNull:
      code = ResponseCode::kPullRetryImmediately;
      break;
    case GetMessageStatus::kOffsetOverflowOne:
      code = ResponseCode::kPullNotFound;
      break;
    case GetMessageStatus::kOffsetOverflowBadly:
    case GetMessageStatus::kOffsetTooSmall:
      code = ResponseCode::kPullOffsetMoved;
      break;
    case GetMessageStatus::kNoMatchedLogicQueue:
    case GetMessageStatus::kNoMessageInQueue:
      code = *offset == 0 ? ResponseCode::kPullNotFound : ResponseCode::kPullOffsetMoved;
      break;
  }
  if (code == ResponseCode::kPullNotFound && first_pass && (*sys_flag & 2)) {
    const int64_t budget = options_.long_polling ? std::max<int64_t>(0, *suspend) : 1000;
    {
      std::lock_guard lock(held_mu_);
      held_[{topic, *queue_id}].push_back(HeldPull{conn, r, net::SteadyNowMillis() + budget});
    }
    // A message may have arrived between the read and the hold: re-check.
    if (store_->GetMaxOffsetInQueue(topic, *queue_id).value() > *offset) {
      OnArrival(topic, *queue_id);
    }
    return std::nullopt;
  }
  RemotingCommand resp = Resp(r, code, std::string(GetMessageStatusName(got.status)));
  resp.SetIntField("suggestWhichBrokerId", 0);
  resp.SetIntField("nextBeginOffset", got.next_begin_offset.value());
  resp.SetIntField("minOffset", got.min_offset.value());
  resp.SetIntField("maxOffset", got.max_offset.value());
  resp.SetIntField("topicSysFlag", config->sys_flag);
  resp.SetIntField("groupSysFlag", 0);
  if (code == ResponseCode::kSuccess) {
    for (auto& m : got.messages) resp.body.AppendExternal(m.bytes, m.file);
  }
  return resp;
}

void Broker::OnArrival(std::string topic, int32_t queue_id) {
  {
    std::lock_guard lock(held_mu_);
    auto it = held_.find({topic, queue_id});
    if (it == held_.end() || it->second.empty()) return;
  }
  if (!server_) return;
  asio::post(server_->io_context(), [this, topic = std::move(topic), queue_id] {
    std::vector<HeldPull> ready;
    {
      std::lock_guard lock(held_mu_);
      auto it = held_.find({topic, queue_id});
      if (it == held_.end()) return;
      ready = std::move(it->second);
      held_.erase(it);
    }
    for (auto& h : ready) {
      auto conn = h.conn.lock();
      if (!conn || conn->closed()) continue;
      Reply resp = OnPull(conn, h.request, false);
      if (!resp) continue;
      const bool nothing_for_it = resp->code == ToInt(ResponseCode::kPullRetryImmediately) ||
                                  resp->code == ToInt(ResponseCode::kPullNotFound);
      if (nothing_for_it && net::SteadyNowMillis() < h.deadline_ms) {
        // Only messages its filter skips arrived: keep holding, from past them (Java
        // checks the tag code before waking a held pull).
        const std::string next(resp->FindField("nextBeginOffset").value_or("0"));
        h.request.SetField("queueOffset", next);
        {
          std::lock_guard lock(held_mu_);
          held_[{topic, queue_id}].push_back(std::move(h));
        }
        const auto parsed = protocol::ParseJavaLong(next);
        if (parsed && store_->GetMaxOffsetInQueue(topic, queue_id).value() > *parsed) {
          OnArrival(topic, queue_id);
        }
        continue;
      }
      conn->SendResponse(h.request, std::move(*resp));
    }
  });
}

void Broker::CheckHeldPulls(int64_t now_ms) {
  std::vector<HeldPull> expired;
  {
    std::lock_guard lock(held_mu_);
    for (auto it = held_.begin(); it != held_.end();) {
      auto& v = it->second;
      for (auto h = v.begin(); h != v.end();) {
        auto conn = h->conn.lock();
        if (!conn || conn->closed()) {
          h = v.erase(h);
        } else if (h->deadline_ms <= now_ms) {
          expired.push_back(std::move(*h));
          h = v.erase(h);
        } else {
          ++h;
        }
      }
      it = v.empty() ? held_.erase(it) : std::next(it);
    }
  }
  if (expired.empty()) return;
  asio::post(server_->io_context(), [this, expired = std::move(expired)]() mutable {
    for (auto& h : expired) {
      auto conn = h.conn.lock();
      if (!conn || conn->closed()) continue;
      Reply resp = OnPull(conn, h.request, false);
      if (resp) conn->SendResponse(h.request, std::move(*resp));
    }
  });
}

// ---------------------------------------------------------------- clients

Reply Broker::OnHeartbeat(const net::ConnectionPtr& conn, RemotingCommand& r) {
  std::vector<uint8_t> body = r.body.Flatten();
  rapidjson::Document doc;
  doc.Parse(reinterpret_cast<const char*>(body.data()), body.size());
  if (doc.HasParseError() || !doc.IsObject()) {
    return Resp(r, ResponseCode::kSystemError, "heartbeat body is not valid JSON");
  }
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
