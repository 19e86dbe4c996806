#include "tools/cli/client_cli.h"

#include "tools/cli/cli_state.h"

namespace rocketstore::tools::cli {

namespace {
void AddGlobal(CLI::App* c, CliState& s) {
  c->add_option("--namesrv", s.g.namesrv,
                "Name servers HOST:PORT[;HOST:PORT] (default: $ROCKETSTORE_NAMESRV, else "
                "127.0.0.1:9876)");
  c->add_option("--format", s.g.format, "Output: table (for people) or json (stable, docs/cli.md)")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  c->add_option("--timeout", s.g.timeout_ms, "Request timeout in ms")->capture_default_str();
}
}  // namespace

ClientCli::ClientCli(CLI::App& app) : s_(std::make_unique<CliState>()) {
  CliState& s = *s_;
  // ---- topic ----
  CLI::App* topic = app.add_subcommand("topic",
                                       "Create, list, describe, alter and delete topics.\n"
                                       "Example: rocketstore topic create orders --queues 8");
  topic->require_subcommand(1);
  s.topic_create = topic->add_subcommand("create",
                                         "Create TOPIC on every master broker (of --cluster).\n"
                                         "Example: rocketstore topic create orders --queues 8");
  s.topic_create->add_option("TOPIC", s.topic, "Topic name")->required();
  s.topic_create->add_option("--queues", s.queues, "Read and write queues per broker")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  s.topic_create->add_option("--perm", s.perm, "Permission bits: 2 write, 4 read, 6 both")
      ->check(CLI::IsMember({2, 4, 6}))
      ->capture_default_str();
  s.topic_create->add_flag("--order", s.order,
                           "Mark the topic as ordered, and put its order conf (broker:queues) "
                           "on the name servers (ORDER_TOPIC_CONFIG, as mqadmin updateTopic -o)");
  s.topic_create->add_option("--cluster", s.cluster, "Only the brokers of this cluster");
  s.topic_list = topic->add_subcommand(
      "list",
      "List the topics the name server knows, each with its type: NORMAL, RETRY (%RETRY%), "
      "DLQ (%DLQ%) or SYSTEM (the brokers' and name servers' system topics: cluster and "
      "broker names, <cluster>_REPLY_TOPIC, TBW102, SCHEDULE_TOPIC_XXXX, ...).\n"
      "Examples: rocketstore topic list\n"
      "          rocketstore topic list --type normal --format json");
  s.topic_list->add_option("--cluster", s.cluster, "Only the topics of this cluster");
  s.topic_list->add_option("--type", s.topic_type, "Only the topics of this type (repeatable)")
      ->check(CLI::IsMember({"normal", "retry", "dlq", "system"}, CLI::ignore_case));
  s.topic_describe =
      topic->add_subcommand("describe",
                            "Routes, permissions and per-queue offsets of TOPIC.\n"
                            "Example: rocketstore topic describe orders --format json");
  s.topic_describe->add_option("TOPIC", s.topic, "Topic name")->required();
  s.topic_delete =
      topic->add_subcommand("delete",
                            "Delete TOPIC from every master broker and the name server.\n"
                            "Example: rocketstore topic delete orders");
  s.topic_delete->add_option("TOPIC", s.topic, "Topic name")->required();
  s.topic_delete->add_option("--cluster", s.cluster, "Only the brokers of this cluster");
  s.topic_alter = topic->add_subcommand(
      "alter",
      "Change the queue counts or permission of TOPIC on the brokers that have it.\n"
      "Example: rocketstore topic alter orders --write-queues 4 --perm 4");
  s.topic_alter->add_option("TOPIC", s.topic, "Topic name")->required();
  s.topic_alter->add_option("--read-queues", s.read_queues, "New readQueueNums (>= 1)")
      ->check(CLI::Range(1, 1024));
  s.topic_alter->add_option("--write-queues", s.write_queues, "New writeQueueNums (>= 1)")
      ->check(CLI::Range(1, 1024));
  s.topic_alter->add_option("--perm", s.perm, "New permission (2 write, 4 read, 6 both)")
      ->check(CLI::IsMember({2, 4, 6}));
  for (CLI::App* c :
       {s.topic_create, s.topic_list, s.topic_describe, s.topic_delete, s.topic_alter}) {
    AddGlobal(c, s);
  }

  // ---- group ----
  CLI::App* group = app.add_subcommand("group",
                                       "Consumer groups: list, describe (lag), seek, delete.\n"
                                       "Example: rocketstore group describe billing");
  group->require_subcommand(1);
  s.group_list = group->add_subcommand("list",
                                       "List the subscription groups of every broker.\n"
                                       "Example: rocketstore group list --format json");
  s.group_describe = group->add_subcommand(
      "describe",
      "Members and per-queue lag (broker offset - committed offset) of GROUP, with the store "
      "time of the last consumed message.\n"
      "Examples: rocketstore group describe billing\n"
      "          rocketstore group describe billing --topic orders");
  s.group_describe->add_option("GROUP", s.group, "Consumer group")->required();
  s.group_describe->add_option("--topic", s.topic, "Only this topic");
  s.group_seek = group->add_subcommand(
      "seek",
      "Move GROUP's committed offsets on TOPIC. When the group has live members the broker "
      "resets them too (INVOKE_BROKER_TO_RESET_OFFSET, as mqadmin resetOffsetByTime); "
      "--to-offset and --queue need the group stopped. A stopped group must exist (a "
      "subscription config or offsets on TOPIC): a seek never creates one.\n"
      "Examples: rocketstore group seek billing --topic orders --to-earliest --dry-run\n"
      "          rocketstore group seek billing --topic orders --to-time '2026-12-01 10:00'");
  s.group_seek->add_option("GROUP", s.group, "Consumer group")->required();
  s.group_seek->add_option("--topic", s.topic, "Topic")->required();
  auto* o1 = s.group_seek->add_option("--to-offset", s.to_offset,
                                      "This queue offset (in each queue's [min, max], else "
                                      "refused)");
  auto* o2 = s.group_seek->add_option("--to-time", s.to_time,
                                      "The first message stored at or after this time (epoch "
                                      "ms, 'YYYY-MM-DD HH:MM[:SS]' UTC, or -10m / -2h / -1d)");
  auto* o3 = s.group_seek->add_flag("--to-earliest", s.to_earliest, "The queue's min offset");
  auto* o4 = s.group_seek->add_flag("--to-latest", s.to_latest, "The queue's max offset");
  o1->excludes(o2)->excludes(o3)->excludes(o4);
  o2->excludes(o3)->excludes(o4);
  o3->excludes(o4);
  s.group_seek->add_option("--queue", s.queue_id, "Only this queue id");
  s.group_seek->add_flag("--dry-run", s.dry_run, "Show the new offsets, change nothing");
  s.group_delete = group->add_subcommand("delete",
                                         "Delete GROUP's subscription config on every "
                                         "broker, and its %RETRY% / %DLQ% topics.\n"
                                         "Example: rocketstore group delete old --remove-offset");
  s.group_delete->add_option("GROUP", s.group, "Consumer group")->required();
  s.group_delete->add_flag("--remove-offset", s.remove_offset,
                           "Also drop the group's committed offsets");
  for (CLI::App* c : {s.group_list, s.group_describe, s.group_seek, s.group_delete}) {
    AddGlobal(c, s);
  }

  // ---- produce ----
  s.produce = app.add_subcommand(
      "produce",
      "Send messages to TOPIC: each line of stdin is one message, or each --file is one.\n"
      "Examples: echo hello | rocketstore produce orders --key order-1 --tag created\n"
      "          rocketstore produce orders --file invoice.pdf --property source=cli\n"
      "          echo later | rocketstore produce orders --delay-sec 30");
  s.produce->add_option("TOPIC", s.topic, "Topic")->required();
  s.produce->add_option("--key,-k", s.keys, "A message key (KEYS); repeatable");
  s.produce->add_option("--tag,-t", s.tag, "The message tag (TAGS)");
  s.produce->add_option("--property,-p", s.props, "A user property NAME=VALUE; repeatable");
  s.produce->add_option("--delay-level", s.delay_level, "Delay level 1..18 (1s 5s 10s 30s 1m ..)")
      ->check(CLI::Range(0, 1000));
  s.produce->add_option("--delay-sec", s.delay_sec, "Deliver after this many seconds (timer)")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 40));
  s.produce->add_option("--deliver-at", s.deliver_at,
                        "Deliver at this time (timer; epoch ms or 'YYYY-MM-DD HH:MM[:SS]' UTC)");
  s.produce->add_option("--file,-f", s.files, "Send this file's content as one message")
      ->check(CLI::ExistingFile);
  s.produce->add_flag("--batch", s.batch, "Send all messages in one SEND_BATCH_MESSAGE");
  AddGlobal(s.produce, s);

  // ---- consume ----
  s.consume = app.add_subcommand(
      "consume",
      "Read messages of TOPIC: as a member of --group (committing its offsets), or raw from "
      "an offset or a time (nothing committed).\n"
      "Examples: rocketstore consume orders --group billing --count 10\n"
      "          rocketstore consume orders --from-time -1h --format json\n"
      "          rocketstore consume orders --from-offset 0 --queue 2 --follow");
  s.consume->add_option("TOPIC", s.topic, "Topic")->required();
  s.consume->add_option("--group,-g", s.group, "Consume as this group (commits offsets)");
  auto* c1 = s.consume->add_option("--from-offset", s.from_offset, "Raw: start at this offset");
  auto* c2 = s.consume->add_option(
      "--from-time", s.from_time,
      "Start at the first message stored at or after this time (with --group: where a new "
      "group starts)");
  auto* c3 = s.consume->add_flag(
      "--from-beginning", s.from_beginning,
      "Start at the min offset (the default; with --group: where a new group starts)");
  auto* c4 = s.consume->add_flag(
      "--from-latest", s.from_latest,
      "Start at the max offset, for new messages only (with --group: where a new group starts)");
  c1->excludes(c2)->excludes(c3)->excludes(c4);
  c2->excludes(c3)->excludes(c4);
  c3->excludes(c4);
  s.consume->add_option("--queue", s.queue_id, "Raw (without --group): only this queue id");
  s.consume
      ->add_option("--expression,-e", s.expression,
                   "Tag filter, with or without --group: * or 'TagA || TagB'")
      ->capture_default_str();
  s.consume->add_option("--count,-n", s.count, "Stop after this many messages");
  s.consume->add_flag("--follow,-F", s.follow, "Keep waiting for new messages");
  s.consume
      ->add_option("--idle-timeout", s.idle_timeout_ms,
                   "Without --follow: stop when nothing arrived for this many ms")
      ->capture_default_str();
  AddGlobal(s.consume, s);

  // ---- message ----
  CLI::App* message =
      app.add_subcommand("message",
                         "Look up single messages.\n"
                         "Example: rocketstore message find --topic orders --key order-1");
  message->require_subcommand(1);
  s.message_get = message->add_subcommand(
      "get",
      "Show the message MSGID: an offset message id (the broker's, from `produce`'s "
      "offsetMsgId) or, with --topic, a client message id (UNIQ_KEY). Says where it lives.\n"
      "Example: rocketstore message get 7F00000100002A9F0000000000000000");
  s.message_get->add_option("MSGID", s.msg_id, "Message id")->required();
  s.message_get->add_option("--topic", s.topic, "Topic (for a client message id)");
  s.message_find =
      message->add_subcommand("find",
                              "Find the messages of TOPIC with KEY (the broker's index).\n"
                              "Example: rocketstore message find --topic orders --key order-1");
  s.message_find->add_option("--topic", s.topic, "Topic")->required();
  s.message_find->add_option("--key", s.key, "A KEYS token")->required();
  s.message_find->add_option("--max", s.max_num, "At most this many")->capture_default_str();
  for (CLI::App* c : {s.message_get, s.message_find}) {
    c->add_option("--segment-size", s.segment_size,
                  "CommitLog segment size in bytes for the location (default: the broker's "
                  "mappedFileSizeCommitLog, asked with GET_BROKER_CONFIG)");
    AddGlobal(c, s);
  }

  // ---- cluster ----
  CLI::App* cluster = app.add_subcommand("cluster",
                                         "The cluster as the name server sees it.\n"
                                         "Example: rocketstore cluster status");
  cluster->require_subcommand(1);
  s.cluster_status =
      cluster->add_subcommand("status",
                              "Brokers per cluster with version, disk use and put/get rates.\n"
                              "Example: rocketstore cluster status");
  AddGlobal(s.cluster_status, s);

  // ---- bench ----
  CLI::App* bench = app.add_subcommand("bench",
                                       "Measure produce and consume throughput.\n"
                                       "Example: rocketstore bench produce bench --count 100000");
  bench->require_subcommand(1);
  s.bench_produce = bench->add_subcommand(
      "produce",
      "Send --count messages of --size bytes with --inflight async sends in flight; "
      "report msgs/s, MB/s and latency percentiles.\n"
      "Example: rocketstore bench produce bench --count 100000 --size 512");
  s.bench_consume = bench->add_subcommand(
      "consume",
      "Read --count messages of TOPIC from the beginning; report msgs/s and the "
      "end-to-end latency (now - born time) percentiles.\n"
      "Example: rocketstore bench consume bench --count 100000");
  for (CLI::App* c : {s.bench_produce, s.bench_consume}) {
    c->add_option("TOPIC", s.topic, "Topic")->required();
    c->add_option("--count,-n", s.bench_count, "Messages")->capture_default_str();
    c->add_flag("--no-progress", s.no_progress, "No progress bar on stderr");
    AddGlobal(c, s);
  }
  s.bench_produce->add_option("--size", s.bench_size, "Body bytes")
      ->check(CLI::Range(1, 4 << 20))
      ->capture_default_str();
  s.bench_produce->add_option("--inflight", s.bench_inflight, "Async sends in flight")
      ->check(CLI::Range(1, 10000))
      ->capture_default_str();
}

ClientCli::~ClientCli() = default;

int ClientCli::Run(FILE* out, FILE* err) {
  CliState& s = *s_;
  for (CLI::App* c :
       {s.topic_create, s.topic_list, s.topic_describe, s.topic_delete, s.topic_alter}) {
    if (c->parsed()) return RunTopic(s, out, err);
  }
  for (CLI::App* c : {s.group_list, s.group_describe, s.group_seek, s.group_delete}) {
    if (c->parsed()) return RunGroup(s, out, err);
  }
  if (s.produce->parsed()) return RunProduce(s, stdin, out, err);
  if (s.consume->parsed()) return RunConsume(s, out, err);
  if (s.message_get->parsed() || s.message_find->parsed()) return RunMessage(s, out, err);
  if (s.cluster_status->parsed()) return RunCluster(s, out, err);
  if (s.bench_produce->parsed() || s.bench_consume->parsed()) return RunBench(s, out, err);
  return -1;
}

}  // namespace rocketstore::tools::cli
