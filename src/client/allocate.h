// File: client/allocate.h
//
// AllocateAveragely: RocketMQ's AllocateMessageQueueAveragely. Queues and consumer ids are
// sorted first (queues by topic, broker name, queue id; ids as strings), as the Java
// rebalance does before calling the strategy, so every member computes the same split:
// member i of n gets a contiguous range, the first (queues % n) members one queue more.
// A consumer id not in the list gets nothing.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "client/message.h"

namespace rocketstore::client {

bool QueueLess(const MessageQueue& a, const MessageQueue& b);

std::vector<MessageQueue> AllocateAveragely(std::vector<MessageQueue> all_queues,
                                            std::vector<std::string> all_consumer_ids,
                                            const std::string& consumer_id);

}  // namespace rocketstore::client
