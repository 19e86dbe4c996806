#include "broker/remoting/remoting_frontend.h"

#include "broker/remoting/remoting_channel.h"
#include "broker/remoting/response_mapping.h"

namespace rocketstore::broker {

using protocol::RemotingCommand;
using protocol::RequestCode;

RemotingCommand RequestStub(const RemotingCommand& r) {
  RemotingCommand stub;
  stub.code = r.code;
  stub.language = r.language;
  stub.version = r.version;
  stub.opaque = r.opaque;
  stub.flag = r.flag;
  stub.serialize_type = r.serialize_type;
  stub.received_nanos = r.received_nanos;  // the deferred answer's latency (rocketmq_rpc_latency)
  return stub;
}

RequestContext ContextOf(const net::ConnectionPtr& conn, const RemotingCommand& r) {
  RequestContext ctx;
  ctx.channel = ChannelOf(conn);
  ctx.language = static_cast<int32_t>(r.language);
  ctx.version = r.version;
  ctx.born_host = HostOf(*conn);
  return ctx;
}

void RemotingFrontend::Register(net::RemotingServer& server) {
  auto reg = [this, &server](RequestCode code, auto fn) {
    server.RegisterHandler(ToInt(code),
                           [this, fn](const net::ConnectionPtr& c, RemotingCommand& r) -> Reply {
                             if (!ready_.load(std::memory_order_acquire)) {
                               return protocol::MakeResponse(r, protocol::ResponseCode::kSystemBusy,
                                                             "broker is starting, try again");
                             }
                             // The channel, created knowing where answers go.
                             if (s_.calls != nullptr && !c->attachment()) {
                               (void)ChannelOf(c, s_.calls);
                             }
                             return fn(c, r);
                           });
  };
  auto with_conn = [this](Reply (RemotingFrontend::*m)(const Conn&, Cmd&)) {
    return [this, m](const Conn& c, Cmd& r) { return (this->*m)(c, r); };
  };
  auto plain = [this](Reply (RemotingFrontend::*m)(Cmd&)) {
    return [this, m](const Conn&, Cmd& r) { return (this->*m)(r); };
  };
  reg(RequestCode::kSendMessage, with_conn(&RemotingFrontend::OnSend));
  reg(RequestCode::kSendMessageV2, with_conn(&RemotingFrontend::OnSend));
  reg(RequestCode::kSendBatchMessage, with_conn(&RemotingFrontend::OnSend));
  reg(RequestCode::kPullMessage, with_conn(&RemotingFrontend::OnPull));
  if (s_.retry) {
    reg(RequestCode::kConsumerSendMsgBack, with_conn(&RemotingFrontend::OnConsumerSendMsgBack));
  }
  reg(RequestCode::kHeartBeat, with_conn(&RemotingFrontend::OnHeartbeat));
  reg(RequestCode::kUnregisterClient, with_conn(&RemotingFrontend::OnUnregisterClient));
  reg(RequestCode::kGetConsumerListByGroup, plain(&RemotingFrontend::OnConsumerList));
  reg(RequestCode::kCheckClientConfig, plain(&RemotingFrontend::OnCheckClientConfig));
  reg(RequestCode::kQueryConsumerOffset, plain(&RemotingFrontend::OnQueryOffset));
  reg(RequestCode::kUpdateConsumerOffset, plain(&RemotingFrontend::OnUpdateOffset));
  reg(RequestCode::kUpdateAndCreateTopic, with_conn(&RemotingFrontend::OnCreateTopic));
  reg(RequestCode::kGetMaxOffset, plain(&RemotingFrontend::OnMaxOffset));
  reg(RequestCode::kGetMinOffset, plain(&RemotingFrontend::OnMinOffset));
  reg(RequestCode::kGetEarliestMsgStoretime, plain(&RemotingFrontend::OnEarliestStoreTime));
  reg(RequestCode::kSearchOffsetByTimestamp, plain(&RemotingFrontend::OnSearchOffset));
  reg(RequestCode::kQueryMessage, plain(&RemotingFrontend::OnQueryMessage));
  reg(RequestCode::kViewMessageById, plain(&RemotingFrontend::OnViewMessage));
  if (s_.locks != nullptr) {
    reg(RequestCode::kLockBatchMq, plain(&RemotingFrontend::OnLockBatch));
    reg(RequestCode::kUnlockBatchMq, plain(&RemotingFrontend::OnUnlockBatch));
  }
  if (s_.transactions) {
    reg(RequestCode::kEndTransaction, plain(&RemotingFrontend::OnEndTransaction));
  }
  if (s_.delay_offsets) {
    reg(RequestCode::kGetAllDelayOffset, plain(&RemotingFrontend::OnGetAllDelayOffset));
  }
  if (s_.timers) reg(RequestCode::kRecallMessage, with_conn(&RemotingFrontend::OnRecall));
  if (s_.reply != nullptr) {
    reg(RequestCode::kSendReplyMessage, with_conn(&RemotingFrontend::OnSendReply));
    reg(RequestCode::kSendReplyMessageV2, with_conn(&RemotingFrontend::OnSendReply));
  }
  // admin part A
  if (s_.admin != nullptr) {
    RegisterAdminA(
        [&](RequestCode code, Reply (RemotingFrontend::*m)(Cmd&)) { reg(code, plain(m)); },
        [&](RequestCode code, Reply (RemotingFrontend::*m)(const Conn&, Cmd&)) {
          reg(code, with_conn(m));
        });
  }
  // end admin part A
  // admin part B
  RegisterAdminPartB([&reg](RequestCode code, Handler fn) { reg(code, std::move(fn)); });
}

// admin part B: the codes served when their services are set.
void RemotingFrontend::RegisterAdminPartB(
    const std::function<void(protocol::RequestCode, Handler)>& reg) {
  auto with_conn = [this](Reply (RemotingFrontend::*m)(const Conn&, Cmd&)) -> Handler {
    return [this, m](const Conn& c, Cmd& r) { return (this->*m)(c, r); };
  };
  auto plain = [this](Reply (RemotingFrontend::*m)(Cmd&)) -> Handler {
    return [this, m](const Conn&, Cmd& r) { return (this->*m)(r); };
  };
  if (s_.consume_stats != nullptr) {
    reg(RequestCode::kGetConsumerConnectionList,
        plain(&RemotingFrontend::OnConsumerConnectionList));
    reg(RequestCode::kGetProducerConnectionList,
        plain(&RemotingFrontend::OnProducerConnectionList));
    reg(RequestCode::kGetAllProducerInfo, plain(&RemotingFrontend::OnAllProducerInfo));
    reg(RequestCode::kGetConsumeStats, plain(&RemotingFrontend::OnConsumeStats));
    reg(RequestCode::kGetBrokerConsumeStats, plain(&RemotingFrontend::OnBrokerConsumeStats));
    reg(RequestCode::kQueryTopicConsumeByWho, plain(&RemotingFrontend::OnTopicConsumeByWho));
    reg(RequestCode::kQueryConsumeTimeSpan, plain(&RemotingFrontend::OnConsumeTimeSpan));
  }
  if (s_.stats_sampler != nullptr) {
    reg(RequestCode::kViewBrokerStatsData, plain(&RemotingFrontend::OnViewBrokerStatsData));
  }
  if (s_.client_admin != nullptr && s_.consume_stats != nullptr) {
    reg(RequestCode::kInvokeBrokerToResetOffset, plain(&RemotingFrontend::OnInvokeResetOffset));
    reg(RequestCode::kInvokeBrokerToGetConsumerStatus,
        with_conn(&RemotingFrontend::OnInvokeConsumerStatus));
    reg(RequestCode::kGetConsumerRunningInfo, with_conn(&RemotingFrontend::OnConsumerRunningInfo));
    reg(RequestCode::kConsumeMessageDirectly,
        with_conn(&RemotingFrontend::OnConsumeMessageDirectly));
  }
}

// admin part A
void RemotingFrontend::RegisterAdminA(
    const std::function<void(RequestCode, Reply (RemotingFrontend::*)(Cmd&))>& reg,
    const std::function<void(RequestCode, Reply (RemotingFrontend::*)(const Conn&, Cmd&))>&
        reg_with_conn) {
  using F = RemotingFrontend;
  reg_with_conn(RequestCode::kUpdateBrokerConfig, &F::OnUpdateBrokerConfig);
  reg(RequestCode::kGetBrokerConfig, &F::OnGetBrokerConfig);
  reg(RequestCode::kGetBrokerRuntimeInfo, &F::OnGetBrokerRuntimeInfo);
  reg(RequestCode::kGetAllTopicConfig, &F::OnGetAllTopicConfig);
  reg(RequestCode::kGetTopicStatsInfo, &F::OnGetTopicStatsInfo);
  reg_with_conn(RequestCode::kDeleteTopicInBroker, &F::OnDeleteTopicInBroker);
  reg(RequestCode::kGetSystemTopicListFromBroker, &F::OnGetSystemTopicList);
  reg(RequestCode::kUpdateAndCreateSubscriptionGroup, &F::OnUpdateAndCreateSubscriptionGroup);
  reg(RequestCode::kGetAllSubscriptionGroupConfig, &F::OnGetAllSubscriptionGroup);
  reg(RequestCode::kDeleteSubscriptionGroup, &F::OnDeleteSubscriptionGroup);
  reg(RequestCode::kGetAllConsumerOffset, &F::OnGetAllConsumerOffset);
  reg(RequestCode::kCloneGroupOffset, &F::OnCloneGroupOffset);
  reg(RequestCode::kQueryConsumeQueue, &F::OnQueryConsumeQueue);
  reg_with_conn(RequestCode::kCleanExpiredConsumeQueue, &F::OnCleanExpiredConsumeQueue);
  reg(RequestCode::kDeleteExpiredCommitLog, &F::OnDeleteExpiredCommitLog);
}
// end admin part A

void RemotingFrontend::OnConnectionClosed(const net::ConnectionPtr& conn) {
  s_.consumers->OnChannelClosed(conn->id());
  s_.producers->OnChannelClosed(conn->id());
  if (s_.calls != nullptr) s_.calls->OnConnectionClosed(conn->id());
}

}  // namespace rocketstore::broker
