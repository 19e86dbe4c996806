#include "broker/service/outcome.h"

namespace rocketstore::broker {

std::string_view OutcomeName(Outcome o) {
  switch (o) {
    case Outcome::kOk:
      return "OK";
    case Outcome::kFlushDiskTimeout:
      return "FLUSH_DISK_TIMEOUT";
    case Outcome::kFlushSlaveTimeout:
      return "FLUSH_SLAVE_TIMEOUT";
    case Outcome::kSlaveNotAvailable:
      return "SLAVE_NOT_AVAILABLE";
    case Outcome::kInvalidArgument:
      return "INVALID_ARGUMENT";
    case Outcome::kMessageIllegal:
      return "MESSAGE_ILLEGAL";
    case Outcome::kTopicNotExist:
      return "TOPIC_NOT_EXIST";
    case Outcome::kNoPermission:
      return "NO_PERMISSION";
    case Outcome::kIllegalOperation:
      return "ILLEGAL_OPERATION";
    case Outcome::kSubscriptionGroupNotExist:
      return "SUBSCRIPTION_GROUP_NOT_EXIST";
    case Outcome::kSubscriptionNotExist:
      return "SUBSCRIPTION_NOT_EXIST";
    case Outcome::kSubscriptionNotLatest:
      return "SUBSCRIPTION_NOT_LATEST";
    case Outcome::kSubscriptionParseFailed:
      return "SUBSCRIPTION_PARSE_FAILED";
    case Outcome::kFilterDataNotExist:
      return "FILTER_DATA_NOT_EXIST";
    case Outcome::kQueryNotFound:
      return "QUERY_NOT_FOUND";
    case Outcome::kPullNotFound:
      return "PULL_NOT_FOUND";
    case Outcome::kPullRetryImmediately:
      return "PULL_RETRY_IMMEDIATELY";
    case Outcome::kPullOffsetMoved:
      return "PULL_OFFSET_MOVED";
    case Outcome::kConsumerNotOnline:
      return "CONSUMER_NOT_ONLINE";
    case Outcome::kConsumeMsgTimeout:
      return "CONSUME_MSG_TIMEOUT";
    case Outcome::kServiceNotAvailable:
      return "SERVICE_NOT_AVAILABLE";
    case Outcome::kSystemBusy:
      return "SYSTEM_BUSY";
    case Outcome::kSystemError:
      return "SYSTEM_ERROR";
  }
  return "UNKNOWN";
}

}  // namespace rocketstore::broker
