// File: broker/broker_options.h
//
// Everything that configures a Broker, with RocketMQ's defaults; broker.conf keys are
// applied by broker/broker_conf.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "net/remoting_server.h"
#include "store/store_options.h"

namespace rocketstore::broker {

struct BrokerOptions {
  StoreOptions store;
  net::ServerOptions server = DefaultServerOptions();
  std::vector<std::string> namesrv_addrs;  // "host:port"
  // The properties file the options were read from (Java's brokerConfigPath): keys
  // changed at run time (UPDATE_BROKER_CONFIG) are written back into it. Empty:
  // <storePathRootDir>/config/broker.properties (written, never read at start).
  std::string config_file_path;
  std::string cluster_name = "DefaultCluster";  // brokerClusterName
  std::string broker_name = "broker-a";         // brokerName
  // Address published to name servers and stamped as STOREHOST; default host:port.
  std::string advertised_addr;  // brokerIP1 (+ listenPort)
  // The Prometheus endpoint, GET /metrics (docs/observability.md): RocketMQ 5's
  // metricsPromExporterHost / metricsPromExporterPort. Port 0 turns it off; -1 picks a
  // free port (tests; read it back with Broker::metrics_port()). Off for an embedded
  // Broker; `rocketstore serve|broker` default to kDefaultMetricsPort.
  static constexpr int32_t kDefaultMetricsPort = 5557;
  std::string metrics_host = "127.0.0.1";  // metricsPromExporterHost
  int32_t metrics_port = 0;                // metricsPromExporterPort
  // Whether the message and rpc counters count at all (the benchmark's "metrics off");
  // off, the admin statistics and /metrics read zeros.
  bool metrics_counting = true;
  bool auto_create_topic = true;               // autoCreateTopicEnable
  bool auto_create_subscription_group = true;  // autoCreateSubscriptionGroup
  int32_t broker_permission = 6;               // brokerPermission (PermName bits)
  bool long_polling = true;                    // longPollingEnable
  bool enable_property_filter = true;          // enablePropertyFilter (SQL92; Java: false)
  int64_t short_polling_ms = 1000;             // shortPollingTimeMills
  int32_t default_topic_queue_nums = 8;        // defaultTopicQueueNums
  int64_t register_interval_ms = 30000;        // registerNameServerPeriod
  // Each name server's connect and REGISTER_BROKER during a registration round; a topic
  // change's admin answer waits for that round (broker/namesrv_registrar.h).
  int64_t register_timeout_ms = 6000;           // registerBrokerTimeoutMills
  int64_t offset_persist_interval_ms = 5000;    // flushConsumerOffsetInterval
  int64_t channel_expired_timeout_ms = 120000;  // CHANNEL_EXPIRED_TIMEOUT
  int64_t client_scan_interval_ms = 10000;      // ClientHousekeepingService period
  int64_t pull_hold_check_interval_ms = 100;    // how often held pulls' deadlines are checked
  // How long an orderly consumer's queue lock lives after its last renewal (Java: the
  // system property rocketmq.broker.rebalance.lockMaxLiveTime).
  int64_t rebalance_lock_max_live_ms = 60000;  // rebalanceLockMaxLiveTime
  // The topics every broker has (broker/default_topics.h): the cluster-name topic is
  // readable and writable when clusterTopicEnable, the broker-name one when
  // brokerTopicEnable (else INHERIT only); msgTraceTopicName exists when traceTopicEnable.
  bool cluster_topic_enable = true;                          // clusterTopicEnable
  bool broker_topic_enable = true;                           // brokerTopicEnable
  bool trace_topic_enable = false;                           // traceTopicEnable
  std::string msg_trace_topic_name = "RMQ_SYS_TRACE_TOPIC";  // msgTraceTopicName
  // The delay levels (broker/schedule/delay_level_table.h), and how often their progress
  // (config/delayOffset.json) is written.
  std::string message_delay_level =  // messageDelayLevel
      "1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h";
  int64_t flush_delay_offset_interval_ms = 10000;  // flushDelayOffsetInterval
  // Timer messages (docs/messaging.md, "Timer messages").
  bool timer_wheel_enable = true;                      // timerWheelEnable
  int64_t timer_precision_ms = 100;                    // timerPrecisionMs (RocketMQ: 1000)
  int64_t timer_max_delay_sec = int64_t{366} * 86400;  // timerMaxDelaySec (RocketMQ: 3 days)
  // Whether replies (SEND_REPLY_MESSAGE) are also stored in <cluster>_REPLY_TOPIC.
  bool store_reply_message = true;  // storeReplyMessageEnable
  // Transaction check-backs (broker/transaction/transaction_service.h).
  int64_t transaction_timeout_ms = 6000;          // transactionTimeOut
  int64_t transaction_check_interval_ms = 60000;  // transactionCheckInterval
  int32_t transaction_check_max = 15;             // transactionCheckMax

  static net::ServerOptions DefaultServerOptions() {
    net::ServerOptions o;
    o.port = 10911;
    return o;
  }
};

}  // namespace rocketstore::broker
