// File: protocol/request_code.h
//
// Request codes, language codes and version ordinals of RocketMQ's remoting protocol
// (Apache RocketMQ RequestCode.java, LanguageCode.java, MQVersion.java; see
// remoting-protocol.md §A.4.1, §A.4.3, §A.4.4 and docs/protocol.md).
//
// Only the codes the spec lists are named here. The wire carries any int32: a
// RemotingCommand keeps the raw `code`, and a server answers a code it does not handle
// with REQUEST_CODE_NOT_SUPPORTED (see MakeRequestCodeNotSupportedResponse).
//
// Thread-safety: constants and pure functions.
#pragma once

#include <cstdint>
#include <string_view>

namespace rocketstore::protocol {

// RequestCode.java values. `→` notes who handles the request.
enum class RequestCode : int32_t {
  kSendMessage = 10,                   // → broker, long header field names
  kPullMessage = 11,                   // → broker
  kQueryMessage = 12,                  // → broker, by key / unique key
  kQueryConsumerOffset = 14,           // → broker
  kUpdateConsumerOffset = 15,          // → broker (Java sends it oneway)
  kUpdateAndCreateTopic = 17,          // → broker, admin
  kSearchOffsetByTimestamp = 29,       // → broker
  kGetMaxOffset = 30,                  // → broker
  kGetMinOffset = 31,                  // → broker
  kGetEarliestMsgStoretime = 32,       // → broker
  kViewMessageById = 33,               // → broker, by commit-log offset
  kHeartBeat = 34,                     // → broker
  kUnregisterClient = 35,              // → broker
  kConsumerSendMsgBack = 36,           // → broker
  kEndTransaction = 37,                // → broker (Java sends it oneway)
  kGetConsumerListByGroup = 38,        // → broker
  kCheckTransactionState = 39,         // → client (broker → producer, oneway)
  kNotifyConsumerIdsChanged = 40,      // → client (broker → consumer, oneway)
  kLockBatchMq = 41,                   // → broker
  kUnlockBatchMq = 42,                 // → broker
  kGetAllDelayOffset = 45,             // → broker, admin: config/delayOffset.json's body
  kCheckClientConfig = 46,             // → broker
  kPutKvConfig = 100,                  // → name server, admin only
  kGetKvConfig = 101,                  // → name server, admin only
  kDeleteKvConfig = 102,               // → name server, admin only
  kRegisterBroker = 103,               // → name server
  kUnregisterBroker = 104,             // → name server
  kGetRouteinfoByTopic = 105,          // → name server (ali-ons: GET_ROUTEINTO_BY_TOPIC)
  kGetBrokerClusterInfo = 106,         // → name server
  kRegisterTopicInNamesrv = 217,       // Java broker → name server
  kResetConsumerClientOffset = 220,    // → client, admin-triggered
  kGetConsumerStatusFromClient = 221,  // → client, admin-triggered
  kGetConsumerRunningInfo = 307,       // → client, admin-triggered
  kConsumeMessageDirectly = 309,       // → client, admin-triggered
  kSendMessageV2 = 310,                // → broker, short field names a..n
  kSendBatchMessage = 320,             // → broker, V2 header + batch body
  kRecallMessage = 370,                // → broker (5.3): cancel a pending timer message
  kSendReplyMessage = 324,             // → broker, request-reply: long header field names
  kSendReplyMessageV2 = 325,           // → broker, request-reply: short field names a..n
  kPushReplyMessageToClient = 326,     // → client (broker → requester, expects an answer)
  kQueryDataVersion = 322,             // Java broker → name server
  kBrokerHeartbeat = 904,              // Java broker → name server

  // → name server, admin (docs/protocol.md "Name server admin codes")
  kWipeWritePermOfBroker = 205,
  kGetAllTopicListFromNameserver = 206,
  kDeleteTopicInNamesrv = 216,
  kGetKvlistByNamespace = 219,
  kGetTopicsByCluster = 224,
  kGetSystemTopicListFromNs = 304,
  kGetUnitTopicList = 311,
  kGetHasUnitSubTopicList = 312,
  kGetHasUnitSubUnunitTopicList = 313,
  kUpdateNamesrvConfig = 318,
  kGetNamesrvConfig = 319,
  kAddWritePermOfBroker = 327,
  // admin part A (broker admin codes: config, topics, groups, offsets, store maintenance)
  kUpdateBrokerConfig = 25,
  kGetBrokerConfig = 26,
  kGetBrokerRuntimeInfo = 28,
  kGetAllTopicConfig = 21,
  kGetAllConsumerOffset = 43,
  kUpdateAndCreateSubscriptionGroup = 200,
  kGetAllSubscriptionGroupConfig = 201,
  kGetTopicStatsInfo = 202,
  kDeleteSubscriptionGroup = 207,
  kDeleteTopicInBroker = 215,
  kGetSystemTopicListFromBroker = 305,
  kCleanExpiredConsumeQueue = 306,
  kCloneGroupOffset = 314,
  kQueryConsumeQueue = 321,
  kDeleteExpiredCommitLog = 329,
  // end admin part A
  // admin part B: connections, consume stats, statistics, client calls
  kGetConsumerConnectionList = 203,        // → broker, admin: ConsumerConnection
  kGetProducerConnectionList = 204,        // → broker, admin: ProducerConnection
  kGetConsumeStats = 208,                  // → broker, admin: ConsumeStats (lag)
  kInvokeBrokerToResetOffset = 222,        // → broker, admin: pushes 220 to the group
  kInvokeBrokerToGetConsumerStatus = 223,  // → broker, admin: asks each client (221)
  kQueryTopicConsumeByWho = 300,           // → broker, admin: GroupList
  kQueryConsumeTimeSpan = 303,             // → broker, admin: QueryConsumeTimeSpanBody
  kViewBrokerStatsData = 315,              // → broker, admin: BrokerStatsData
  kGetBrokerConsumeStats = 317,            // → broker, admin: ConsumeStatsList
  kGetAllProducerInfo = 328,               // → broker, admin: ProducerTableInfo
  // end admin part B
};

constexpr int32_t ToInt(RequestCode code) { return static_cast<int32_t>(code); }

// The Java constant name ("GET_ROUTEINFO_BY_TOPIC") of a listed code, or "" for any other
// value.
std::string_view RequestCodeName(int32_t code);

// LanguageCode.java. JSON headers carry the name ("JAVA"), binary headers the number.
enum class LanguageCode : uint8_t {
  kJava = 0,
  kCpp = 1,
  kDotnet = 2,
  kPython = 3,
  kDelphi = 4,
  kErlang = 5,
  kRuby = 6,
  kOther = 7,
  kHttp = 8,
  kGo = 9,
  kPhp = 10,
  kOms = 11,
  kRust = 12,
  kNodeJs = 13,
};

// "JAVA", "CPP", ... "NODE_JS".
std::string_view LanguageName(LanguageCode language);
// Decoding is lenient, on purpose: a peer must not be disconnected for a language this
// table does not know. An unknown name (case-sensitive, like Java's valueOf) or number
// maps to kOther.
LanguageCode LanguageFromName(std::string_view name);
LanguageCode LanguageFromNumber(int64_t number);

// MQVersion ordinals (the `version` header field) that change broker behaviour.
inline constexpr int32_t kVersionV3_4_9 = 121;  // ali-ons 3.12.0; maxReconsumeTimes honoured
inline constexpr int32_t kVersionV4_9_4 = 401;  // routes in standard JSON from here on
inline constexpr int32_t kVersionV5_0_0 = 413;  // REGISTER_BROKER carries queue mappings
inline constexpr int32_t kVersionV5_3_3 = 479;  // MQVersion.CURRENT_VERSION of 5.3.x

// What this implementation writes into the commands it creates (MakeRequest,
// MakeResponse). The spec allows "JAVA" or "CPP"; version 479 tells Java clients the
// broker is current (they gate features such as SQL92 pulls on the broker's version).
inline constexpr LanguageCode kLocalLanguage = LanguageCode::kCpp;
inline constexpr int32_t kLocalVersion = kVersionV5_3_3;

}  // namespace rocketstore::protocol
