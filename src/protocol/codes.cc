#include <array>
#include <string>
#include <string_view>

#include "protocol/mq_version.h"
#include "protocol/request_code.h"
#include "protocol/response_code.h"

namespace rocketstore::protocol {

std::string_view RequestCodeName(int32_t code) {
  switch (static_cast<RequestCode>(code)) {
    // admin part A
    case RequestCode::kUpdateBrokerConfig:
      return "UPDATE_BROKER_CONFIG";
    case RequestCode::kGetBrokerConfig:
      return "GET_BROKER_CONFIG";
    case RequestCode::kGetBrokerRuntimeInfo:
      return "GET_BROKER_RUNTIME_INFO";
    case RequestCode::kGetAllTopicConfig:
      return "GET_ALL_TOPIC_CONFIG";
    case RequestCode::kGetAllConsumerOffset:
      return "GET_ALL_CONSUMER_OFFSET";
    case RequestCode::kUpdateAndCreateSubscriptionGroup:
      return "UPDATE_AND_CREATE_SUBSCRIPTIONGROUP";
    case RequestCode::kGetAllSubscriptionGroupConfig:
      return "GET_ALL_SUBSCRIPTIONGROUP_CONFIG";
    case RequestCode::kGetTopicStatsInfo:
      return "GET_TOPIC_STATS_INFO";
    case RequestCode::kDeleteSubscriptionGroup:
      return "DELETE_SUBSCRIPTIONGROUP";
    case RequestCode::kDeleteTopicInBroker:
      return "DELETE_TOPIC_IN_BROKER";
    case RequestCode::kGetSystemTopicListFromBroker:
      return "GET_SYSTEM_TOPIC_LIST_FROM_BROKER";
    case RequestCode::kCleanExpiredConsumeQueue:
      return "CLEAN_EXPIRED_CONSUMEQUEUE";
    case RequestCode::kCloneGroupOffset:
      return "CLONE_GROUP_OFFSET";
    case RequestCode::kQueryConsumeQueue:
      return "QUERY_CONSUME_QUEUE";
    case RequestCode::kDeleteExpiredCommitLog:
      return "DELETE_EXPIRED_COMMITLOG";
    // end admin part A
    case RequestCode::kSendMessage:
      return "SEND_MESSAGE";
    case RequestCode::kPullMessage:
      return "PULL_MESSAGE";
    case RequestCode::kQueryMessage:
      return "QUERY_MESSAGE";
    case RequestCode::kQueryConsumerOffset:
      return "QUERY_CONSUMER_OFFSET";
    case RequestCode::kUpdateConsumerOffset:
      return "UPDATE_CONSUMER_OFFSET";
    case RequestCode::kUpdateAndCreateTopic:
      return "UPDATE_AND_CREATE_TOPIC";
    case RequestCode::kSearchOffsetByTimestamp:
      return "SEARCH_OFFSET_BY_TIMESTAMP";
    case RequestCode::kGetMaxOffset:
      return "GET_MAX_OFFSET";
    case RequestCode::kGetMinOffset:
      return "GET_MIN_OFFSET";
    case RequestCode::kGetEarliestMsgStoretime:
      return "GET_EARLIEST_MSG_STORETIME";
    case RequestCode::kViewMessageById:
      return "VIEW_MESSAGE_BY_ID";
    case RequestCode::kHeartBeat:
      return "HEART_BEAT";
    case RequestCode::kUnregisterClient:
      return "UNREGISTER_CLIENT";
    case RequestCode::kConsumerSendMsgBack:
      return "CONSUMER_SEND_MSG_BACK";
    case RequestCode::kEndTransaction:
      return "END_TRANSACTION";
    case RequestCode::kGetConsumerListByGroup:
      return "GET_CONSUMER_LIST_BY_GROUP";
    case RequestCode::kCheckTransactionState:
      return "CHECK_TRANSACTION_STATE";
    case RequestCode::kNotifyConsumerIdsChanged:
      return "NOTIFY_CONSUMER_IDS_CHANGED";
    case RequestCode::kLockBatchMq:
      return "LOCK_BATCH_MQ";
    case RequestCode::kUnlockBatchMq:
      return "UNLOCK_BATCH_MQ";
    case RequestCode::kGetAllDelayOffset:
      return "GET_ALL_DELAY_OFFSET";
    case RequestCode::kCheckClientConfig:
      return "CHECK_CLIENT_CONFIG";
    case RequestCode::kPutKvConfig:
      return "PUT_KV_CONFIG";
    case RequestCode::kGetKvConfig:
      return "GET_KV_CONFIG";
    case RequestCode::kDeleteKvConfig:
      return "DELETE_KV_CONFIG";
    case RequestCode::kRegisterBroker:
      return "REGISTER_BROKER";
    case RequestCode::kUnregisterBroker:
      return "UNREGISTER_BROKER";
    case RequestCode::kGetRouteinfoByTopic:
      return "GET_ROUTEINFO_BY_TOPIC";
    case RequestCode::kGetBrokerClusterInfo:
      return "GET_BROKER_CLUSTER_INFO";
    case RequestCode::kWipeWritePermOfBroker:
      return "WIPE_WRITE_PERM_OF_BROKER";
    case RequestCode::kGetAllTopicListFromNameserver:
      return "GET_ALL_TOPIC_LIST_FROM_NAMESERVER";
    case RequestCode::kDeleteTopicInNamesrv:
      return "DELETE_TOPIC_IN_NAMESRV";
    case RequestCode::kGetKvlistByNamespace:
      return "GET_KVLIST_BY_NAMESPACE";
    case RequestCode::kGetTopicsByCluster:
      return "GET_TOPICS_BY_CLUSTER";
    case RequestCode::kGetSystemTopicListFromNs:
      return "GET_SYSTEM_TOPIC_LIST_FROM_NS";
    case RequestCode::kGetUnitTopicList:
      return "GET_UNIT_TOPIC_LIST";
    case RequestCode::kGetHasUnitSubTopicList:
      return "GET_HAS_UNIT_SUB_TOPIC_LIST";
    case RequestCode::kGetHasUnitSubUnunitTopicList:
      return "GET_HAS_UNIT_SUB_UNUNIT_TOPIC_LIST";
    case RequestCode::kUpdateNamesrvConfig:
      return "UPDATE_NAMESRV_CONFIG";
    case RequestCode::kGetNamesrvConfig:
      return "GET_NAMESRV_CONFIG";
    case RequestCode::kAddWritePermOfBroker:
      return "ADD_WRITE_PERM_OF_BROKER";
    case RequestCode::kRegisterTopicInNamesrv:
      return "REGISTER_TOPIC_IN_NAMESRV";
    case RequestCode::kResetConsumerClientOffset:
      return "RESET_CONSUMER_CLIENT_OFFSET";
    case RequestCode::kGetConsumerStatusFromClient:
      return "GET_CONSUMER_STATUS_FROM_CLIENT";
    case RequestCode::kGetConsumerRunningInfo:
      return "GET_CONSUMER_RUNNING_INFO";
    case RequestCode::kConsumeMessageDirectly:
      return "CONSUME_MESSAGE_DIRECTLY";
    case RequestCode::kSendMessageV2:
      return "SEND_MESSAGE_V2";
    case RequestCode::kSendBatchMessage:
      return "SEND_BATCH_MESSAGE";
    case RequestCode::kRecallMessage:
      return "RECALL_MESSAGE";
    case RequestCode::kSendReplyMessage:
      return "SEND_REPLY_MESSAGE";
    case RequestCode::kSendReplyMessageV2:
      return "SEND_REPLY_MESSAGE_V2";
    case RequestCode::kPushReplyMessageToClient:
      return "PUSH_REPLY_MESSAGE_TO_CLIENT";
    case RequestCode::kQueryDataVersion:
      return "QUERY_DATA_VERSION";
    case RequestCode::kBrokerHeartbeat:
      return "BROKER_HEARTBEAT";
    // admin part B
    case RequestCode::kGetConsumerConnectionList:
      return "GET_CONSUMER_CONNECTION_LIST";
    case RequestCode::kGetProducerConnectionList:
      return "GET_PRODUCER_CONNECTION_LIST";
    case RequestCode::kGetConsumeStats:
      return "GET_CONSUME_STATS";
    case RequestCode::kInvokeBrokerToResetOffset:
      return "INVOKE_BROKER_TO_RESET_OFFSET";
    case RequestCode::kInvokeBrokerToGetConsumerStatus:
      return "INVOKE_BROKER_TO_GET_CONSUMER_STATUS";
    case RequestCode::kQueryTopicConsumeByWho:
      return "QUERY_TOPIC_CONSUME_BY_WHO";
    case RequestCode::kQueryConsumeTimeSpan:
      return "QUERY_CONSUME_TIME_SPAN";
    case RequestCode::kViewBrokerStatsData:
      return "VIEW_BROKER_STATS_DATA";
    case RequestCode::kGetBrokerConsumeStats:
      return "GET_BROKER_CONSUME_STATS";
    case RequestCode::kGetAllProducerInfo:
      return "GET_ALL_PRODUCER_INFO";
  }
  return "";
}

std::string_view ResponseCodeName(int32_t code) {
  switch (static_cast<ResponseCode>(code)) {
    case ResponseCode::kSuccess:
      return "SUCCESS";
    case ResponseCode::kSystemError:
      return "SYSTEM_ERROR";
    case ResponseCode::kSystemBusy:
      return "SYSTEM_BUSY";
    case ResponseCode::kRequestCodeNotSupported:
      return "REQUEST_CODE_NOT_SUPPORTED";
    case ResponseCode::kTransactionFailed:
      return "TRANSACTION_FAILED";
    case ResponseCode::kFlushDiskTimeout:
      return "FLUSH_DISK_TIMEOUT";
    case ResponseCode::kSlaveNotAvailable:
      return "SLAVE_NOT_AVAILABLE";
    case ResponseCode::kFlushSlaveTimeout:
      return "FLUSH_SLAVE_TIMEOUT";
    case ResponseCode::kMessageIllegal:
      return "MESSAGE_ILLEGAL";
    case ResponseCode::kServiceNotAvailable:
      return "SERVICE_NOT_AVAILABLE";
    case ResponseCode::kVersionNotSupported:
      return "VERSION_NOT_SUPPORTED";
    case ResponseCode::kNoPermission:
      return "NO_PERMISSION";
    case ResponseCode::kTopicNotExist:
      return "TOPIC_NOT_EXIST";
    case ResponseCode::kTopicExistAlready:
      return "TOPIC_EXIST_ALREADY";
    case ResponseCode::kPullNotFound:
      return "PULL_NOT_FOUND";
    case ResponseCode::kPullRetryImmediately:
      return "PULL_RETRY_IMMEDIATELY";
    case ResponseCode::kPullOffsetMoved:
      return "PULL_OFFSET_MOVED";
    case ResponseCode::kQueryNotFound:
      return "QUERY_NOT_FOUND";
    case ResponseCode::kSubscriptionParseFailed:
      return "SUBSCRIPTION_PARSE_FAILED";
    case ResponseCode::kSubscriptionNotExist:
      return "SUBSCRIPTION_NOT_EXIST";
    case ResponseCode::kSubscriptionNotLatest:
      return "SUBSCRIPTION_NOT_LATEST";
    case ResponseCode::kSubscriptionGroupNotExist:
      return "SUBSCRIPTION_GROUP_NOT_EXIST";
    case ResponseCode::kFilterDataNotExist:
      return "FILTER_DATA_NOT_EXIST";
    case ResponseCode::kFilterDataNotLatest:
      return "FILTER_DATA_NOT_LATEST";
    case ResponseCode::kInvalidParameter:
      return "INVALID_PARAMETER";
    case ResponseCode::kTransactionShouldCommit:
      return "TRANSACTION_SHOULD_COMMIT";
    case ResponseCode::kTransactionShouldRollback:
      return "TRANSACTION_SHOULD_ROLLBACK";
    case ResponseCode::kTransactionStateUnknow:
      return "TRANSACTION_STATE_UNKNOW";
    case ResponseCode::kNoBuyerId:
      return "NO_BUYER_ID";
    case ResponseCode::kNotInCurrentUnit:
      return "NOT_IN_CURRENT_UNIT";
    case ResponseCode::kConsumerNotOnline:
      return "CONSUMER_NOT_ONLINE";
    case ResponseCode::kConsumeMsgTimeout:
      return "CONSUME_MSG_TIMEOUT";
    case ResponseCode::kNoMessage:
      return "NO_MESSAGE";
    case ResponseCode::kPollingFull:
      return "POLLING_FULL";
    case ResponseCode::kPollingTimeout:
      return "POLLING_TIMEOUT";
    case ResponseCode::kBrokerNotExist:
      return "BROKER_NOT_EXIST";
    case ResponseCode::kBrokerDispatchNotComplete:
      return "BROKER_DISPATCH_NOT_COMPLETE";
    case ResponseCode::kBroadcastConsumption:
      return "BROADCAST_CONSUMPTION";
    case ResponseCode::kFlowControl:
      return "FLOW_CONTROL";
    case ResponseCode::kNotLeaderForQueue:
      return "NOT_LEADER_FOR_QUEUE";
    case ResponseCode::kIllegalOperation:
      return "ILLEGAL_OPERATION";
    case ResponseCode::kGoAway:
      return "GO_AWAY";
  }
  return "";
}

namespace {
// MQVersion.Version of 4.9.8: 16 names of 3.0.0's pre-releases, then "<minor>.<patch>"
// pairs (SNAPSHOT first) over these blocks of 3.x, then 4.0.0 .. 5.9.9 in full, then
// HIGHER_VERSION.
constexpr std::array<std::string_view, 16> kV300Names = {
    "V3_0_0_SNAPSHOT", "V3_0_0_ALPHA1",         "V3_0_0_BETA1", "V3_0_0_BETA2",
    "V3_0_0_BETA3",    "V3_0_0_BETA4",          "V3_0_0_BETA5", "V3_0_0_BETA6_SNAPSHOT",
    "V3_0_0_BETA6",    "V3_0_0_BETA7_SNAPSHOT", "V3_0_0_BETA7", "V3_0_0_BETA8_SNAPSHOT",
    "V3_0_0_BETA8",    "V3_0_0_BETA9_SNAPSHOT", "V3_0_0_BETA9", "V3_0_0_FINAL"};
struct MinorBlock {
  int minor, first_patch, last_patch;
};
constexpr std::array<MinorBlock, 10> kV3Blocks = {{{0, 1, 15},
                                                   {1, 0, 9},
                                                   {2, 0, 9},
                                                   {3, 1, 9},
                                                   {4, 1, 9},
                                                   {5, 1, 9},
                                                   {6, 1, 9},
                                                   {7, 1, 9},
                                                   {8, 1, 9},
                                                   {9, 1, 9}}};
constexpr int32_t kV400Snapshot = 212;   // V4_0_0_SNAPSHOT
constexpr int32_t kHigherVersion = 612;  // HIGHER_VERSION, the enum's last

std::string Named(int major, int minor, int patch, bool snapshot) {
  return "V" + std::to_string(major) + "_" + std::to_string(minor) + "_" + std::to_string(patch) +
         (snapshot ? "_SNAPSHOT" : "");
}
}  // namespace

std::string VersionDesc(int32_t version) {
  if (version < 0) return "version ordinal " + std::to_string(version);
  if (version < static_cast<int32_t>(kV300Names.size())) {
    return std::string(kV300Names[static_cast<size_t>(version)]);
  }
  if (version >= kHigherVersion) return "HIGHER_VERSION";
  if (version >= kV400Snapshot) {
    const int k = (version - kV400Snapshot) / 2;  // 0 = 4.0.0, 100 = 5.0.0
    return Named(4 + k / 100, k % 100 / 10, k % 10, (version - kV400Snapshot) % 2 == 0);
  }
  int32_t at = static_cast<int32_t>(kV300Names.size());
  for (const MinorBlock& b : kV3Blocks) {
    const int32_t n = (b.last_patch - b.first_patch + 1) * 2;
    if (version < at + n) {
      return Named(3, b.minor, b.first_patch + (version - at) / 2, (version - at) % 2 == 0);
    }
    at += n;
  }
  return "version ordinal " + std::to_string(version);  // unreachable: the blocks end at 212
}

namespace {
constexpr std::array<std::string_view, 14> kLanguageNames = {
    "JAVA",  "CPP",  "DOTNET", "PYTHON", "DELPHI", "ERLANG", "RUBY",
    "OTHER", "HTTP", "GO",     "PHP",    "OMS",    "RUST",   "NODE_JS",
};
}  // namespace

std::string_view LanguageName(LanguageCode language) {
  const auto i = static_cast<size_t>(language);
  return i < kLanguageNames.size() ? kLanguageNames[i] : "OTHER";
}

LanguageCode LanguageFromName(std::string_view name) {
  for (size_t i = 0; i < kLanguageNames.size(); ++i) {
    if (kLanguageNames[i] == name) return static_cast<LanguageCode>(i);
  }
  return LanguageCode::kOther;
}

LanguageCode LanguageFromNumber(int64_t number) {
  if (number < 0 || number >= static_cast<int64_t>(kLanguageNames.size())) {
    return LanguageCode::kOther;
  }
  return static_cast<LanguageCode>(number);
}

}  // namespace rocketstore::protocol
