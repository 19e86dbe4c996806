// File: broker/metadata.h
//
// The broker's persistent metadata under <store>/config/, in RocketMQ's JSON shapes:
//   topics.json            TopicConfigManager        (broker/config/topic_config_manager.h)
//   consumerOffset.json    ConsumerOffsetManager     (broker/config/consumer_offset_manager.h)
//   subscriptionGroup.json SubscriptionGroupManager  (broker/config/subscription_group_manager.h)
// all ConfigManagers (broker/config/config_manager.h: load with .bak fallback, mutations
// in memory only, Persist() atomic), written off the io threads by a ConfigPersister
// (broker/config/config_persister.h).
#pragma once

#include "broker/config/config_manager.h"
#include "broker/config/config_persister.h"
#include "broker/config/consumer_offset_manager.h"
#include "broker/config/subscription_group_manager.h"
#include "broker/config/topic_config_manager.h"
