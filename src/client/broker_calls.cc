#include "client/broker_calls.h"

#include <utility>

#include "protocol/headers/consumer_headers.h"
#include "protocol/headers/query_headers.h"
#include "protocol/headers/send_headers.h"

namespace rocketstore::client {

using protocol::RemotingCommand;
using protocol::RequestCode;

Result<RemotingCommand> BrokerCall::Send(RemotingCommand req, const std::string& what) const {
  if (transport == nullptr || addr.empty()) {
    return FailedPrecondition(what + ": no broker address");
  }
  return transport->Invoke(addr, std::move(req), timeout_ms);
}

Status BrokerCall::Check(const RemotingCommand& resp, const std::string& what) const {
  if (resp.code == 0) return Status::OK();
  // kUnavailable (the CLI's "is it running and reachable" hint) only for a busy broker;
  // any other answer is a refusal of this request, for the reason in the remark.
  const bool not_found = resp.code == protocol::ToInt(protocol::ResponseCode::kQueryNotFound) ||
                         resp.code == protocol::ToInt(protocol::ResponseCode::kTopicNotExist);
  const bool busy = resp.code == protocol::ToInt(protocol::ResponseCode::kSystemBusy);
  const std::string_view name = protocol::ResponseCodeName(resp.code);
  return Status(not_found ? StatusCode::kNotFound
                : busy    ? StatusCode::kUnavailable
                          : StatusCode::kFailedPrecondition,
                what + " at " + addr + ": broker answered " +
                    (name.empty() ? "code " : std::string(name) + " ") + std::to_string(resp.code) +
                    (resp.remark ? " (" + *resp.remark + ")" : std::string()));
}

Result<RemotingCommand> BrokerCall::Call(RemotingCommand req, const std::string& what) const {
  RS_ASSIGN_OR_RETURN(RemotingCommand resp, Send(std::move(req), what));
  RS_RETURN_IF_ERROR(Check(resp, what));
  return resp;
}

namespace {
template <typename H>
void FillQueue(H& h, const MessageQueue& q) {
  h.topic = q.topic;
  h.queue_id = q.queue_id;
  h.broker_name = q.broker_name;
}
std::string QueueName(const MessageQueue& q) {
  return q.topic + "/" + q.broker_name + "/" + std::to_string(q.queue_id);
}
}  // namespace

Result<int64_t> BrokerCall::MaxOffset(const MessageQueue& q) const {
  RemotingCommand req = protocol::MakeRequest(RequestCode::kGetMaxOffset);
  protocol::GetMaxOffsetRequestHeader h;
  FillQueue(h, q);
  h.EncodeTo(req);
  RS_ASSIGN_OR_RETURN(RemotingCommand resp, Call(std::move(req), "max offset of " + QueueName(q)));
  RS_ASSIGN_OR_RETURN(auto rh, protocol::GetMaxOffsetResponseHeader::Decode(resp));
  return rh.offset;
}

Result<int64_t> BrokerCall::MinOffset(const MessageQueue& q) const {
  RemotingCommand req = protocol::MakeRequest(RequestCode::kGetMinOffset);
  protocol::GetMinOffsetRequestHeader h;
  FillQueue(h, q);
  h.EncodeTo(req);
  RS_ASSIGN_OR_RETURN(RemotingCommand resp, Call(std::move(req), "min offset of " + QueueName(q)));
  RS_ASSIGN_OR_RETURN(auto rh, protocol::GetMinOffsetResponseHeader::Decode(resp));
  return rh.offset;
}

Result<int64_t> BrokerCall::SearchOffset(const MessageQueue& q, int64_t timestamp_ms) const {
  RemotingCommand req = protocol::MakeRequest(RequestCode::kSearchOffsetByTimestamp);
  protocol::SearchOffsetRequestHeader h;
  FillQueue(h, q);
  h.timestamp = timestamp_ms;
  h.boundary_type = protocol::BoundaryType::kLower;
  h.EncodeTo(req);
  RS_ASSIGN_OR_RETURN(RemotingCommand resp,
                      Call(std::move(req), "offset by time of " + QueueName(q)));
  RS_ASSIGN_OR_RETURN(auto rh, protocol::SearchOffsetResponseHeader::Decode(resp));
  return rh.offset;
}

Result<int64_t> BrokerCall::EarliestStoreTime(const MessageQueue& q) const {
  RemotingCommand req = protocol::MakeRequest(RequestCode::kGetEarliestMsgStoretime);
  protocol::GetEarliestMsgStoretimeRequestHeader h;
  FillQueue(h, q);
  h.EncodeTo(req);
  RS_ASSIGN_OR_RETURN(RemotingCommand resp,
                      Call(std::move(req), "earliest store time of " + QueueName(q)));
  RS_ASSIGN_OR_RETURN(auto rh, protocol::GetEarliestMsgStoretimeResponseHeader::Decode(resp));
  return rh.timestamp;
}

Result<int64_t> BrokerCall::ConsumerOffset(const std::string& group, const MessageQueue& q) const {
  RemotingCommand req = protocol::MakeRequest(RequestCode::kQueryConsumerOffset);
  protocol::QueryConsumerOffsetRequestHeader h;
  h.consumer_group = group;
  h.topic = q.topic;
  h.queue_id = q.queue_id;
  h.broker_name = q.broker_name;
  // No offset must not read as a commit at 0: a new group's consume-from (latest, a
  // time) would never apply.
  h.set_zero_if_not_found = false;
  h.EncodeTo(req);
  RS_ASSIGN_OR_RETURN(RemotingCommand resp,
                      Call(std::move(req), "offset of group " + group + " on " + QueueName(q)));
  RS_ASSIGN_OR_RETURN(auto rh, protocol::QueryConsumerOffsetResponseHeader::Decode(resp));
  return rh.offset;
}

Status BrokerCall::UpdateConsumerOffset(const std::string& group, const MessageQueue& q,
                                        int64_t offset) const {
  RemotingCommand req = protocol::MakeRequest(RequestCode::kUpdateConsumerOffset);
  protocol::UpdateConsumerOffsetRequestHeader h;
  h.consumer_group = group;
  h.topic = q.topic;
  h.queue_id = q.queue_id;
  h.commit_offset = offset;
  h.broker_name = q.broker_name;
  h.EncodeTo(req);
  return Call(std::move(req), "commit of group " + group + " on " + QueueName(q)).status();
}

Result<std::vector<std::string>> BrokerCall::ConsumerIds(const std::string& group) const {
  RemotingCommand req = protocol::MakeRequest(RequestCode::kGetConsumerListByGroup);
  protocol::GetConsumerListByGroupRequestHeader h;
  h.consumer_group = group;
  h.EncodeTo(req);
  auto resp = Call(std::move(req), "members of group " + group);
  if (!resp.ok()) {
    // The broker answers SYSTEM_ERROR "no consumer for this group" when the group is empty.
    if (resp.status().message().find("code 1 ") != std::string::npos) {
      return std::vector<std::string>{};
    }
    return resp.status();
  }
  std::vector<uint8_t> body = resp->body.Flatten();
  RS_ASSIGN_OR_RETURN(auto list, protocol::ConsumerListBody::Decode(std::string_view(
                                     reinterpret_cast<const char*>(body.data()), body.size())));
  return list.consumer_id_list;
}

Result<MessageExt> BrokerCall::ViewMessage(int64_t commit_log_offset) const {
  RemotingCommand req = protocol::MakeRequest(RequestCode::kViewMessageById);
  protocol::ViewMessageRequestHeader h;
  h.offset = commit_log_offset;
  h.EncodeTo(req);
  const std::string what = "message at commit-log offset " + std::to_string(commit_log_offset);
  RS_ASSIGN_OR_RETURN(RemotingCommand resp, Send(std::move(req), what));
  // SYSTEM_ERROR is the broker's only "no" here: "can not find message by the offset"
  // (QueryMessageProcessor.viewMessageById).
  if (resp.code == protocol::ToInt(protocol::ResponseCode::kSystemError)) {
    return NotFound("no " + what + " on broker " + addr +
                    (resp.remark ? " (" + *resp.remark + ")" : std::string()));
  }
  RS_RETURN_IF_ERROR(Check(resp, what));
  std::vector<uint8_t> body = resp.body.Flatten();
  RS_ASSIGN_OR_RETURN(auto msgs, DecodeMessages(body, false));
  if (msgs.empty()) return NotFound("no message at offset " + std::to_string(commit_log_offset));
  return std::move(msgs.front());
}

Result<std::vector<MessageExt>> BrokerCall::QueryMessage(const std::string& topic,
                                                         const std::string& key, int32_t max_num,
                                                         int64_t begin_ms, int64_t end_ms,
                                                         bool unique_key) const {
  RemotingCommand req = protocol::MakeRequest(RequestCode::kQueryMessage);
  protocol::QueryMessageRequestHeader h;
  h.topic = topic;
  h.key = key;
  h.max_num = max_num;
  h.begin_timestamp = begin_ms;
  h.end_timestamp = end_ms;
  h.unique_key_query = unique_key;
  h.EncodeTo(req);
  RS_ASSIGN_OR_RETURN(RemotingCommand resp,
                      Call(std::move(req), "messages of " + topic + " with key " + key));
  std::vector<uint8_t> body = resp.body.Flatten();
  return DecodeMessages(body, false);
}

Status BrokerCall::SendBack(const std::string& group, const MessageExt& m, int32_t delay_level,
                            int32_t max_reconsume_times) const {
  RemotingCommand req = protocol::MakeRequest(RequestCode::kConsumerSendMsgBack);
  protocol::ConsumerSendMsgBackRequestHeader h;
  h.offset = m.commit_log_offset;
  h.group = group;
  h.delay_level = delay_level;
  h.origin_msg_id = m.msg_id;
  h.origin_topic = m.topic;
  h.max_reconsume_times = max_reconsume_times;
  h.EncodeTo(req);
  return Call(std::move(req), "send back of " + m.msg_id + " for group " + group).status();
}

Status BrokerCall::Heartbeat(const std::vector<uint8_t>& body) const {
  RemotingCommand req = protocol::MakeRequest(RequestCode::kHeartBeat);
  req.body.Assign(body);
  return Call(std::move(req), "heartbeat").status();
}

Status BrokerCall::CreateTopic(const std::string& topic, int32_t read_queues, int32_t write_queues,
                               int32_t perm, bool order) const {
  protocol::CreateTopicRequestHeader h;
  h.topic = topic;
  h.default_topic = "TBW102";
  h.read_queue_nums = read_queues;
  h.write_queue_nums = write_queues;
  h.perm = perm;
  h.topic_filter_type = "SINGLE_TAG";
  h.order = order;
  return CreateTopic(h);
}

Status BrokerCall::CreateTopic(const protocol::CreateTopicRequestHeader& h) const {
  RemotingCommand req = protocol::MakeRequest(RequestCode::kUpdateAndCreateTopic);
  h.EncodeTo(req);
  return Call(std::move(req), "create topic " + h.topic).status();
}

}  // namespace rocketstore::client
