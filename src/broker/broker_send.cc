// File: broker/broker_send.cc
//
// SEND_MESSAGE (10), SEND_MESSAGE_V2 (310) and SEND_BATCH_MESSAGE (320): RocketMQ's checks,
// the message (or batch) built for the store, and the reply — inline, or under SYNC_FLUSH
// from the thread that finished the group commit covering the message.
#include <atomic>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "base/coding.h"
#include "broker/broker.h"
#include "broker/broker_internal.h"
#include "store/format/message_id.h"
#include "store/format/properties.h"

namespace rocketstore::broker {

using internal::Reply;
using internal::Resp;
using protocol::RemotingCommand;
using protocol::RequestCode;
using protocol::ResponseCode;

namespace {

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

}  // namespace rocketstore::broker
