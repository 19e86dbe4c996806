#include "broker/remoting/response_mapping.h"

namespace rocketstore::broker {

using protocol::ResponseCode;

protocol::ResponseCode ToResponseCode(Outcome outcome) {
  switch (outcome) {
    case Outcome::kOk:
      return ResponseCode::kSuccess;
    case Outcome::kFlushDiskTimeout:
      return ResponseCode::kFlushDiskTimeout;
    case Outcome::kFlushSlaveTimeout:
      return ResponseCode::kFlushSlaveTimeout;
    case Outcome::kSlaveNotAvailable:
      return ResponseCode::kSlaveNotAvailable;
    case Outcome::kInvalidArgument:
      return ResponseCode::kInvalidParameter;
    case Outcome::kMessageIllegal:
      return ResponseCode::kMessageIllegal;
    case Outcome::kTopicNotExist:
      return ResponseCode::kTopicNotExist;
    case Outcome::kNoPermission:
      return ResponseCode::kNoPermission;
    case Outcome::kIllegalOperation:
      return ResponseCode::kIllegalOperation;
    case Outcome::kSubscriptionGroupNotExist:
      return ResponseCode::kSubscriptionGroupNotExist;
    case Outcome::kSubscriptionNotExist:
      return ResponseCode::kSubscriptionNotExist;
    case Outcome::kSubscriptionNotLatest:
      return ResponseCode::kSubscriptionNotLatest;
    case Outcome::kSubscriptionParseFailed:
      return ResponseCode::kSubscriptionParseFailed;
    case Outcome::kFilterDataNotExist:
      return ResponseCode::kFilterDataNotExist;
    case Outcome::kQueryNotFound:
      return ResponseCode::kQueryNotFound;
    case Outcome::kPullNotFound:
      return ResponseCode::kPullNotFound;
    case Outcome::kPullRetryImmediately:
      return ResponseCode::kPullRetryImmediately;
    case Outcome::kPullOffsetMoved:
      return ResponseCode::kPullOffsetMoved;
    case Outcome::kConsumerNotOnline:
      return ResponseCode::kConsumerNotOnline;
    case Outcome::kConsumeMsgTimeout:
      return ResponseCode::kConsumeMsgTimeout;
    case Outcome::kServiceNotAvailable:
      return ResponseCode::kServiceNotAvailable;
    case Outcome::kSystemBusy:
      return ResponseCode::kSystemBusy;
    case Outcome::kSystemError:
      return ResponseCode::kSystemError;
  }
  return ResponseCode::kSystemError;
}

protocol::RemotingCommand ReplyTo(const protocol::RemotingCommand& request,
                                  const Verdict& verdict) {
  const ResponseCode code = ToResponseCode(verdict.outcome);
  if (verdict.remark.empty()) return protocol::MakeResponse(request, code);
  return protocol::MakeResponse(request, code, verdict.remark);
}

}  // namespace rocketstore::broker
