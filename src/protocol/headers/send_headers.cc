#include "protocol/headers/send_headers.h"

#include <cassert>
#include <charconv>
#include <cstring>
#include <string>

#include "base/coding.h"
#include "protocol/frame_codec.h"
#include "protocol/internal/header_codec.h"
#include "protocol/internal/header_fields.h"
#include "protocol/internal/json_bytes.h"
#include "protocol/request_code.h"

namespace rocketstore::protocol {

using internal::FieldReader;
using internal::PutOptional;

namespace {

// Wire names of SendMessageRequestHeader's fields: [0] long (V1), [1] short (V2).
struct SendNames {
  std::string_view producer_group[2] = {"producerGroup", "a"};
  std::string_view topic[2] = {"topic", "b"};
  std::string_view default_topic[2] = {"defaultTopic", "c"};
  std::string_view default_topic_queue_nums[2] = {"defaultTopicQueueNums", "d"};
  std::string_view queue_id[2] = {"queueId", "e"};
  std::string_view sys_flag[2] = {"sysFlag", "f"};
  std::string_view born_timestamp[2] = {"bornTimestamp", "g"};
  std::string_view flag[2] = {"flag", "h"};
  std::string_view properties[2] = {"properties", "i"};
  std::string_view reconsume_times[2] = {"reconsumeTimes", "j"};
  std::string_view unit_mode[2] = {"unitMode", "k"};
  std::string_view max_reconsume_times[2] = {"maxReconsumeTimes", "l"};
  std::string_view batch[2] = {"batch", "m"};
  std::string_view broker_name[2] = {"bname", "n"};
};
constexpr SendNames kSend;

}  // namespace

bool SendMessageRequestHeader::UsesShortNames(int32_t code) {
  return code == ToInt(RequestCode::kSendMessageV2) ||
         code == ToInt(RequestCode::kSendBatchMessage) ||
         code == ToInt(RequestCode::kSendReplyMessageV2);
}

Result<SendMessageRequestView> SendMessageRequestView::Decode(const RemotingCommand& cmd) {
  const int v = SendMessageRequestHeader::UsesShortNames(cmd.code) ? 1 : 0;
  SendMessageRequestView h;
  FieldReader r(cmd);
  r.Required(kSend.producer_group[v], &h.producer_group);
  r.Required(kSend.topic[v], &h.topic);
  r.Required(kSend.default_topic[v], &h.default_topic);
  r.Required(kSend.default_topic_queue_nums[v], &h.default_topic_queue_nums);
  r.Required(kSend.queue_id[v], &h.queue_id);
  r.Required(kSend.sys_flag[v], &h.sys_flag);
  r.Required(kSend.born_timestamp[v], &h.born_timestamp);
  r.Required(kSend.flag[v], &h.flag);
  r.Optional(kSend.properties[v], &h.properties);
  r.Optional(kSend.reconsume_times[v], &h.reconsume_times);
  r.OrKeep(kSend.unit_mode[v], &h.unit_mode);
  r.Optional(kSend.max_reconsume_times[v], &h.max_reconsume_times);
  r.OrKeep(kSend.batch[v], &h.batch);
  r.Optional(kSend.broker_name[v], &h.broker_name);
  if (!r.status().ok()) return r.status();
  return h;
}

Result<SendMessageRequestHeader> SendMessageRequestHeader::Decode(const RemotingCommand& cmd) {
  auto v = SendMessageRequestView::Decode(cmd);
  if (!v.ok()) return v.status();
  auto copy = [](std::optional<std::string_view> s) {
    return s ? std::optional<std::string>(*s) : std::nullopt;
  };
  SendMessageRequestHeader h;
  h.producer_group = std::string(v->producer_group);
  h.topic = std::string(v->topic);
  h.default_topic = std::string(v->default_topic);
  h.default_topic_queue_nums = v->default_topic_queue_nums;
  h.queue_id = v->queue_id;
  h.sys_flag = v->sys_flag;
  h.born_timestamp = v->born_timestamp;
  h.flag = v->flag;
  h.properties = copy(v->properties);
  h.reconsume_times = v->reconsume_times;
  h.unit_mode = v->unit_mode;
  h.max_reconsume_times = v->max_reconsume_times;
  h.batch = v->batch;
  h.broker_name = copy(v->broker_name);
  return h;
}

void SendMessageRequestHeader::EncodeTo(RemotingCommand& cmd, bool v2) const {
  const int v = v2 ? 1 : 0;
  cmd.SetField(kSend.producer_group[v], producer_group);
  cmd.SetField(kSend.topic[v], topic);
  cmd.SetField(kSend.default_topic[v], default_topic);
  cmd.SetIntField(kSend.default_topic_queue_nums[v], default_topic_queue_nums);
  cmd.SetIntField(kSend.queue_id[v], queue_id);
  cmd.SetIntField(kSend.sys_flag[v], sys_flag);
  cmd.SetIntField(kSend.born_timestamp[v], born_timestamp);
  cmd.SetIntField(kSend.flag[v], flag);
  PutOptional(cmd, kSend.properties[v], properties);
  PutOptional(cmd, kSend.reconsume_times[v], reconsume_times);
  cmd.SetBoolField(kSend.unit_mode[v], unit_mode);
  PutOptional(cmd, kSend.max_reconsume_times[v], max_reconsume_times);
  cmd.SetBoolField(kSend.batch[v], batch);
  PutOptional(cmd, kSend.broker_name[v], broker_name);
}

Result<SendMessageResponseHeader> SendMessageResponseHeader::Decode(const RemotingCommand& cmd) {
  SendMessageResponseHeader h;
  FieldReader r(cmd);
  r.Required("msgId", &h.msg_id);
  r.Required("queueId", &h.queue_id);
  r.Required("queueOffset", &h.queue_offset);
  r.Optional("transactionId", &h.transaction_id);
  r.Optional("recallHandle", &h.recall_handle);
  r.Optional("MSG_REGION", &h.msg_region);
  r.Optional("TRACE_ON", &h.trace_on);
  if (!r.status().ok()) return r.status();
  return h;
}

void SendMessageResponseHeader::EncodeTo(RemotingCommand& cmd) const {
  // By position (SendReplyFields, in this order), not in ext_fields' name index: the
  // broker's most frequent answer. Room for the values at most, in one allocation.
  auto size_of = [](const std::optional<std::string>& s) { return s ? s->size() : 0; };
  // Numbers and booleans are marked plain (no escape check when encoded); strings are
  // checked.
  SendReplyFields& f = cmd.send_reply;
  f.Reserve(size_of(transaction_id) + msg_id.size() + 11 + 20 + size_of(recall_handle) +
            size_of(msg_region) + 5);
  using Fields = SendReplyFields;
  constexpr auto kAt = [](std::string_view name) {
    for (size_t i = 0; i < SendReplySchema::kNames.size(); ++i) {
      if (SendReplySchema::kNames[i] == name) return static_cast<int>(i);
    }
    return -1;
  };
  static constexpr int kTransactionId = kAt("transactionId"), kMsgId = kAt("msgId"),
                       kQueueId = kAt("queueId"), kQueueOffset = kAt("queueOffset"),
                       kRecallHandle = kAt("recallHandle"), kRegion = kAt("MSG_REGION"),
                       kTraceOn = kAt("TRACE_ON");
  static_assert(kTransactionId >= 0 && kMsgId >= 0 && kQueueId >= 0 && kQueueOffset >= 0 &&
                kRecallHandle >= 0 && kRegion >= 0 && kTraceOn >= 0);
  bool ok = true;
  if (transaction_id) ok &= f.SetAt(kTransactionId, *transaction_id, Fields::kCheck);
  ok &= f.SetAt(kMsgId, msg_id, Fields::kCheck);
  ok &= f.SetIntAt(kQueueId, queue_id);
  ok &= f.SetIntAt(kQueueOffset, queue_offset);
  if (recall_handle) ok &= f.SetAt(kRecallHandle, *recall_handle, Fields::kCheck);
  if (msg_region) ok &= f.SetAt(kRegion, *msg_region, Fields::kCheck);
  if (trace_on) ok &= f.SetAt(kTraceOn, *trace_on ? "true" : "false", Fields::kPlain);
  assert(ok);  // every name is the schema's, and the block was reserved
  (void)ok;
}

SendMessageResponseHeader ResponseHeaderOf(const SendAnswerFrame& a) {
  auto copy = [](std::optional<std::string_view> s) {
    return s ? std::optional<std::string>(*s) : std::nullopt;
  };
  SendMessageResponseHeader h;
  h.msg_id = std::string(a.msg_id);
  h.queue_id = a.queue_id;
  h.queue_offset = a.queue_offset;
  h.transaction_id = copy(a.transaction_id);
  h.recall_handle = copy(a.recall_handle);
  h.msg_region = copy(a.msg_region);
  h.trace_on = a.trace_on;
  return h;
}

namespace {

bool JsonPlain(std::string_view v) {
  return internal::SkipJsonPlain(v.data(), v.data() + v.size()) == v.data() + v.size();
}

// EncodeSendAnswerFrame's writer: into `head` at `at`, which has room (the caller sized it).
struct AnswerWriter {
  char* at;
  template <size_t N>
  void Raw(const char (&text)[N]) {  // a literal: its size is known here
    std::memcpy(at, text, N - 1);
    at += N - 1;
  }
  void Raw(std::string_view text) {
    std::memcpy(at, text.data(), text.size());
    at += text.size();
  }
  void Number(int64_t v) { at = std::to_chars(at, at + 24, v).ptr; }
  void Quoted(std::string_view text) {
    *at++ = '"';
    Raw(text);
    *at++ = '"';
  }
};

// The answer the generic way: a command, its header, EncodeFrameInto.
Status EncodeSendAnswerFrameGeneric(const SendAnswerFrame& a, std::vector<uint8_t>* head) {
  RemotingCommand request;  // what MakeResponse reads of it: the opaque (JSON by default)
  request.opaque = a.opaque;
  RemotingCommand answer = MakeResponse(request, a.code);
  ResponseHeaderOf(a).EncodeTo(answer);
  EncodedFrame frame;
  frame.head = std::move(*head);
  Status s = EncodeFrameInto(answer, &frame);
  *head = std::move(frame.head);
  return s;
}

}  // namespace

namespace internal {

bool WriteSendAnswerFramePlain(const SendAnswerFrame& a, std::vector<uint8_t>* head) {
  const std::string_view tx = a.transaction_id.value_or(std::string_view());
  const std::string_view recall = a.recall_handle.value_or(std::string_view());
  const std::string_view region = a.msg_region.value_or(std::string_view());
  if (!JsonPlain(a.msg_id) || !JsonPlain(tx) || !JsonPlain(recall) || !JsonPlain(region)) {
    return false;
  }
  // The fields in SendReplySchema's order, as RemotingCommand::ForEachFieldByKind gives
  // them to the JSON encoder, each value quoted as is (none needs an escape).
  constexpr size_t kFixedBound = 256;  // every name and literal below, with room to spare
  constexpr size_t kNumbers = 6 * 24;  // code, queueId, queueOffset, flag, opaque, version
  const size_t bound =
      kFixedBound + kNumbers + a.msg_id.size() + tx.size() + recall.size() + region.size();
  // A header the frame cannot carry (a batch of ~500 k messages has a msgId that long)
  // is the generic encoder's to refuse.
  if (bound > kMaxHeaderLength || 4 + bound > kDefaultMaxFrameLength) return false;
  head->resize(kFrameHeaderPrefixSize + bound);
  AnswerWriter w{reinterpret_cast<char*>(head->data()) + kFrameHeaderPrefixSize};
  w.Raw("{\"code\":");
  w.Number(a.code);
  w.Raw(",\"extFields\":{");
  if (a.transaction_id) {
    w.Raw("\"transactionId\":");
    w.Quoted(tx);
    w.Raw(",");
  }
  w.Raw("\"msgId\":");
  w.Quoted(a.msg_id);
  w.Raw(",\"queueId\":\"");
  w.Number(a.queue_id);
  w.Raw("\",\"queueOffset\":\"");
  w.Number(a.queue_offset);
  w.Raw("\"");
  // `,"name":"value"` when the field is there (`name` a literal: `,"name":`).
  auto optional = [&w](const auto& name, const std::optional<std::string_view>& value) {
    if (!value) return;
    w.Raw(name);
    w.Quoted(*value);
  };
  optional(",\"recallHandle\":", a.recall_handle);
  optional(",\"MSG_REGION\":", a.msg_region);
  if (a.trace_on) w.Raw(*a.trace_on ? ",\"TRACE_ON\":\"true\"" : ",\"TRACE_ON\":\"false\"");
  // What every answer has around its opaque, written once: flag, language, version.
  static const std::string kBeforeOpaque =
      "},\"flag\":" + std::to_string(kFlagResponse) + ",\"language\":\"" +
      std::string(LanguageName(kLocalLanguage)) + "\",\"opaque\":";
  static const std::string kAfterOpaque =
      ",\"serializeTypeCurrentRPC\":\"JSON\",\"version\":" + std::to_string(kLocalVersion) + "}";
  w.Raw(kBeforeOpaque);
  w.Number(a.opaque);
  w.Raw(kAfterOpaque);
  const size_t header_length =
      static_cast<size_t>(w.at - reinterpret_cast<char*>(head->data())) - kFrameHeaderPrefixSize;
  head->resize(kFrameHeaderPrefixSize + header_length);
  EncodeFixed32BE(head->data(), static_cast<uint32_t>(4 + header_length));
  EncodeFixed32BE(head->data() + kLengthFieldSize, static_cast<uint32_t>(header_length));
  return true;
}

}  // namespace internal

Status EncodeSendAnswerFrame(const SendAnswerFrame& a, std::vector<uint8_t>* head) {
  if (internal::WriteSendAnswerFramePlain(a, head)) return Status::OK();
  return EncodeSendAnswerFrameGeneric(a, head);
}

Result<ConsumerSendMsgBackRequestHeader> ConsumerSendMsgBackRequestHeader::Decode(
    const RemotingCommand& cmd) {
  ConsumerSendMsgBackRequestHeader h;
  FieldReader r(cmd);
  r.Required("offset", &h.offset);
  r.Required("group", &h.group);
  r.Required("delayLevel", &h.delay_level);
  r.Optional("originMsgId", &h.origin_msg_id);
  r.Optional("originTopic", &h.origin_topic);
  r.OrKeep("unitMode", &h.unit_mode);
  r.Optional("maxReconsumeTimes", &h.max_reconsume_times);
  r.Optional("bname", &h.broker_name);
  if (!r.status().ok()) return r.status();
  return h;
}

void ConsumerSendMsgBackRequestHeader::EncodeTo(RemotingCommand& cmd) const {
  cmd.SetIntField("offset", offset);
  cmd.SetField("group", group);
  cmd.SetIntField("delayLevel", delay_level);
  PutOptional(cmd, "originMsgId", origin_msg_id);
  PutOptional(cmd, "originTopic", origin_topic);
  cmd.SetBoolField("unitMode", unit_mode);
  PutOptional(cmd, "maxReconsumeTimes", max_reconsume_times);
  PutOptional(cmd, "bname", broker_name);
}

Result<EndTransactionRequestHeader> EndTransactionRequestHeader::Decode(
    const RemotingCommand& cmd) {
  EndTransactionRequestHeader h;
  FieldReader r(cmd);
  r.Required("producerGroup", &h.producer_group);
  r.Required("tranStateTableOffset", &h.tran_state_table_offset);
  r.Required("commitLogOffset", &h.commit_log_offset);
  r.Required("commitOrRollback", &h.commit_or_rollback);
  r.OrKeep("fromTransactionCheck", &h.from_transaction_check);
  r.Required("msgId", &h.msg_id);
  r.Optional("transactionId", &h.transaction_id);
  r.Optional("bname", &h.broker_name);
  if (!r.status().ok()) return r.status();
  if (h.commit_or_rollback != kTransactionNotType &&
      h.commit_or_rollback != kTransactionCommitType &&
      h.commit_or_rollback != kTransactionRollbackType) {
    return InvalidArgument("commitOrRollback field wrong");
  }
  return h;
}

void EndTransactionRequestHeader::EncodeTo(RemotingCommand& cmd) const {
  cmd.SetField("producerGroup", producer_group);
  cmd.SetIntField("tranStateTableOffset", tran_state_table_offset);
  cmd.SetIntField("commitLogOffset", commit_log_offset);
  cmd.SetIntField("commitOrRollback", commit_or_rollback);
  cmd.SetBoolField("fromTransactionCheck", from_transaction_check);
  cmd.SetField("msgId", msg_id);
  PutOptional(cmd, "transactionId", transaction_id);
  PutOptional(cmd, "bname", broker_name);
}

Result<CheckTransactionStateRequestHeader> CheckTransactionStateRequestHeader::Decode(
    const RemotingCommand& cmd) {
  CheckTransactionStateRequestHeader h;
  FieldReader r(cmd);
  r.Required("tranStateTableOffset", &h.tran_state_table_offset);
  r.Required("commitLogOffset", &h.commit_log_offset);
  r.Optional("msgId", &h.msg_id);
  r.Optional("transactionId", &h.transaction_id);
  r.Optional("offsetMsgId", &h.offset_msg_id);
  r.Optional("bname", &h.broker_name);
  if (!r.status().ok()) return r.status();
  return h;
}

void CheckTransactionStateRequestHeader::EncodeTo(RemotingCommand& cmd) const {
  cmd.SetIntField("tranStateTableOffset", tran_state_table_offset);
  cmd.SetIntField("commitLogOffset", commit_log_offset);
  PutOptional(cmd, "msgId", msg_id);
  PutOptional(cmd, "transactionId", transaction_id);
  PutOptional(cmd, "offsetMsgId", offset_msg_id);
  PutOptional(cmd, "bname", broker_name);
}

Result<RecallMessageRequestHeader> RecallMessageRequestHeader::Decode(const RemotingCommand& cmd) {
  RecallMessageRequestHeader h;
  FieldReader r(cmd);
  r.Optional("producerGroup", &h.producer_group);
  r.Required("topic", &h.topic);
  r.Required("recallHandle", &h.recall_handle);
  if (!r.status().ok()) return r.status();
  return h;
}

void RecallMessageRequestHeader::EncodeTo(RemotingCommand& cmd) const {
  PutOptional(cmd, "producerGroup", producer_group);
  cmd.SetField("topic", topic);
  cmd.SetField("recallHandle", recall_handle);
}

Result<RecallMessageResponseHeader> RecallMessageResponseHeader::Decode(
    const RemotingCommand& cmd) {
  RecallMessageResponseHeader h;
  FieldReader r(cmd);
  r.Required("msgId", &h.msg_id);
  if (!r.status().ok()) return r.status();
  return h;
}

void RecallMessageResponseHeader::EncodeTo(RemotingCommand& cmd) const {
  cmd.SetField("msgId", msg_id);
}

}  // namespace rocketstore::protocol
