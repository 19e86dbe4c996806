// rocketstore: one binary, many subcommands. `rocketstore --help` lists them.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>

#include "apps/serve.h"
#include "io/posix_file_system.h"
#include "tools/cli/client_cli.h"
#include "tools/demo.h"
#include "tools/inspect/inspect.h"

int main(int argc, char** argv) {
  CLI::App app{
      "rocketstore - a RocketMQ-compatible message store and broker.\n\n"
      "Messages of every topic are appended to the CommitLog, fixed-size segment files\n"
      "named by the offset of their first byte; consumers find them through per-queue\n"
      "ConsumeQueues; keys are found through IndexFiles. The files are byte-compatible\n"
      "with Apache RocketMQ's store.\n\n"
      "Start with `rocketstore demo` to watch messages land in segment files."};
  app.require_subcommand(1);
  app.set_version_flag("--version", "rocketstore 0.1.0");

  rocketstore::tools::DemoOptions demo;
  CLI::App* demo_cmd = app.add_subcommand(
      "demo",
      "Append a few messages to the CommitLog under --store, read each back by its physical "
      "offset, and show the segment file and position it landed in. Safe to run repeatedly: "
      "each run recovers the log's end and appends after it.");
  demo_cmd
      ->add_option("--store", demo.store_dir, "Store directory (commit log in <store>/commitlog)")
      ->capture_default_str();
  demo_cmd->add_option("--count", demo.count, "How many messages to append")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  demo_cmd
      ->add_option("--segment-size", demo.segment_size,
                   "CommitLog segment size in bytes (RocketMQ: mappedFileSizeCommitLog). "
                   "Must match the existing files of the store.")
      ->check(CLI::Range(int64_t{4096}, int64_t{1} << 31))
      ->capture_default_str();
  demo_cmd->add_option("--topic", demo.topic, "Topic of the demo messages")->capture_default_str();
  demo_cmd->add_option("--queues", demo.queues, "Messages are spread over this many queues")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();

  // ---- inspect ----
  namespace ins = rocketstore::tools::inspect;
  ins::InspectOptions io;
  CLI::App* inspect_cmd = app.add_subcommand(
      "inspect",
      "Read a store's files by hand, as a tool. Read-only: opens every file read-only, never "
      "takes the lock, so it works offline or beside a live broker, and on stores written by "
      "Apache RocketMQ 4.9.\n\n"
      "The three files:\n"
      "  commitlog/<20-digit offset>     every message of every topic, appended in order; a "
      "record is found by its physical offset (file = offset rounded down to the segment "
      "size, position = the rest). Every full segment ends with a BLANK record.\n"
      "  consumequeue/<topic>/<queue>/   one 20-byte unit per message of the queue: "
      "physical offset, size, tag hash. Unit n = queue offset n.\n"
      "  index/<yyyyMMddHHmmssSSS>       hash table: |hash(topic#key)| % slots -> newest entry; "
      "entries chain to older ones with the same slot.\n"
      "Plus `checkpoint` (flush/dispatch times), `abort` (present while running or after a "
      "crash) and `lock`.");
  inspect_cmd->require_subcommand(1);
  auto add_common = [&](CLI::App* c) {
    c->add_option("--store", io.store_dir, "Store root directory")->required();
    c->add_flag("--json", io.json, "JSON Lines instead of tables");
    c->add_option("--index-slots", io.index_slots,
                  "Hash slots per index file (writer's maxHashSlotNum; not stored in the file)")
        ->check(CLI::Range(1, 1 << 30))
        ->capture_default_str();
    c->add_option("--index-entries", io.index_entries,
                  "Entries per index file (writer's maxIndexNum; not stored in the file)")
        ->check(CLI::Range(2, 1 << 30))
        ->capture_default_str();
  };
  CLI::App* summary_cmd = inspect_cmd->add_subcommand(
      "summary",
      "Segments and their offset ranges, queues with min/max offsets, checkpoint values as "
      "dates, abort/lock state, index files with their time ranges, disk usage.");
  add_common(summary_cmd);

  int64_t cl_from = -1, cl_count = 20;
  CLI::App* cl_cmd = inspect_cmd->add_subcommand(
      "commitlog",
      "Decode CommitLog records from a physical offset: the fixed header (size, magic, CRC, "
      "queue, offsets, timestamps, hosts), topic, properties and body. BLANK records mark the "
      "end of a segment.");
  add_common(cl_cmd);
  cl_cmd->add_option("--from", cl_from, "Physical offset of a record (default: the first)");
  cl_cmd->add_option("--count", cl_count, "How many records (-1: all)")->capture_default_str();

  std::string cq_topic, key_topic, key_key, msg_id;
  int32_t cq_queue = 0;
  int64_t cq_from = -1, cq_count = 20;
  bool cq_follow = false;
  CLI::App* cq_cmd = inspect_cmd->add_subcommand(
      "cq",
      "Read ConsumeQueue units of TOPIC/QUEUE: queue offset n is the 20-byte unit at byte "
      "n*20 (physical offset, size, tagsCode = hash(TAGS)). --follow jumps to the record.");
  add_common(cq_cmd);
  cq_cmd->add_option("TOPIC", cq_topic, "Topic")->required();
  cq_cmd->add_option("QUEUE", cq_queue, "Queue id")->required();
  cq_cmd->add_option("--from", cq_from, "First queue offset (default: the queue's min)");
  cq_cmd->add_option("--count", cq_count, "How many units (-1: all)")->capture_default_str();
  cq_cmd->add_flag("--follow", cq_follow, "Decode the CommitLog record each unit points to");

  int64_t key_begin = 0, key_end = INT64_MAX;
  CLI::App* key_cmd = inspect_cmd->add_subcommand(
      "key",
      "Look up a key the way the broker does: hash topic#KEY, read its slot in each index "
      "file, follow the chain of entries (newest first), then read the matching records.");
  add_common(key_cmd);
  key_cmd->add_option("TOPIC", key_topic, "Topic")->required();
  key_cmd->add_option("KEY", key_key, "A KEYS token or the UNIQ_KEY")->required();
  key_cmd->add_option("--begin", key_begin, "Earliest store time, ms since the epoch");
  key_cmd->add_option("--end", key_end, "Latest store time, ms since the epoch");

  CLI::App* msgid_cmd = inspect_cmd->add_subcommand(
      "msgid",
      "Decode an offset message id (store host address + port + physical offset, in hex) "
      "and show the record it names.");
  add_common(msgid_cmd);
  msgid_cmd->add_option("ID", msg_id, "32 (IPv4) or 56 (IPv6) hex characters")->required();

  CLI::App* verify_cmd = inspect_cmd->add_subcommand(
      "verify",
      "Full consistency check: CRC of every record, BLANK lengths, CQ <-> CommitLog (offset, "
      "size, tag hash, contiguous queue offsets), index <-> CommitLog, checkpoint vs data. "
      "Each problem names the file and byte offset. Exit status 0 only when consistent.");
  add_common(verify_cmd);
  CLI::App* timers_cmd = inspect_cmd->add_subcommand(
      "timers",
      "Pending timer messages (<store>/timer/): count, next due, delivery progress, a per-day "
      "histogram and the bucket files (docs/format/timer.md).");
  add_common(timers_cmd);

  // ---- serve / namesrv / broker (src/apps/serve.h) ----
  rocketstore::apps::RunOptions run;
  auto add_run_common = [&](CLI::App* c) {
    c->add_option("--host", run.host,
                  "Address to listen on. Anything but loopback is explicit and logged")
        ->capture_default_str();
    c->add_option("--log-level", run.log_level, "trace, debug, info, warn, error or off")
        ->capture_default_str();
    c->add_option("--log-file", run.log_file,
                  "Log file, size-rotated (default for serve/broker: <store>/logs/"
                  "rocketstore.log; '-' = stderr only)");
  };
  auto add_broker_flags = [&](CLI::App* c) {
    c->add_option("--broker-port", run.broker_port, "Broker port")->capture_default_str();
    c->add_option("--store", run.store_dir,
                  "Store directory (commitlog, consumequeue, index, "
                  "config/*.json)")
        ->capture_default_str();
    c->add_option("--cluster", run.cluster_name, "brokerClusterName")->capture_default_str();
    c->add_option("--broker-name", run.broker_name, "brokerName")->capture_default_str();
    c->add_option("--auto-create-topic", run.auto_create_topic,
                  "autoCreateTopicEnable: create TBW102 and topics on first send")
        ->capture_default_str();
    c->add_flag("--sync-flush", run.sync_flush, "flushDiskType=SYNC_FLUSH (default ASYNC_FLUSH)");
    c->add_option("--config,-c", run.config_file,
                  "RocketMQ-style broker.conf (key=value); flags that differ from their "
                  "defaults override it")
        ->check(CLI::ExistingFile);
  };
  CLI::App* serve_cmd = app.add_subcommand(
      "serve",
      "Name server and broker in one process (the embedded default): 127.0.0.1:9876 and "
      "127.0.0.1:10911, store in ./data. SIGINT/SIGTERM shut down cleanly.");
  add_run_common(serve_cmd);
  serve_cmd
      ->add_option("--console-listen", run.console_listen,
                   "Web console address HOST:PORT or PORT (0 = off; no authentication, so "
                   "it binds loopback unless told)")
      ->capture_default_str();
  serve_cmd->add_flag("--console-read-only", run.console_read_only,
                      "Web console refuses every change (403): create/delete topic, reset "
                      "offset, resend");
  serve_cmd->add_option("--namesrv-port", run.namesrv_port, "Name server port")
      ->capture_default_str();
  add_broker_flags(serve_cmd);
  CLI::App* namesrv_cmd =
      app.add_subcommand("namesrv", "Run only the name server (default 127.0.0.1:9876).");
  add_run_common(namesrv_cmd);
  namesrv_cmd->add_option("--port,--namesrv-port", run.namesrv_port, "Name server port")
      ->capture_default_str();
  CLI::App* broker_cmd = app.add_subcommand(
      "broker", "Run only the broker; it registers with the name servers given by --namesrv.");
  add_run_common(broker_cmd);
  add_broker_flags(broker_cmd);
  broker_cmd->add_option("--namesrv", run.namesrv_addrs,
                         "Name servers: HOST:PORT[;HOST:PORT] (or namesrvAddr in --config)");

  CLI::App* delay_cmd = inspect_cmd->add_subcommand(
      "delay",
      "Delay levels: per level the SCHEDULE_TOPIC_XXXX queue (level - 1), the delivered "
      "offset from config/delayOffset.json, pending messages and the next deliver time.");
  add_common(delay_cmd);

  CLI::App* tx_cmd = inspect_cmd->add_subcommand(
      "transactions",
      "Pending transaction halves: latest copy offsets, check count, producer group, real "
      "topic and queue, commit intent (rebuilt from the half and op topics as the broker does).");
  add_common(tx_cmd);

  // ---- topic / group / produce / consume / message / cluster / bench (docs/cli.md) ----
  rocketstore::tools::cli::ClientCli client_cli(app);

  // Exit codes (docs/cli.md): 0 ok, 1 error, 2 usage, 3 not found.
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }
  if (int rc = client_cli.Run(stdout, stderr); rc >= 0) return rc;
  if (serve_cmd->parsed()) return rocketstore::apps::RunServe(run);
  if (namesrv_cmd->parsed()) return rocketstore::apps::RunNamesrv(run);
  if (broker_cmd->parsed()) return rocketstore::apps::RunBroker(run);
  if (demo_cmd->parsed()) return rocketstore::tools::RunDemo(demo);
  if (inspect_cmd->parsed()) {
    rocketstore::FileSystem& fs = rocketstore::PosixFileSystem::Default();
    if (summary_cmd->parsed()) return ins::RunSummary(fs, io, stdout, stderr);
    if (cl_cmd->parsed()) return ins::RunCommitLog(fs, io, cl_from, cl_count, stdout, stderr);
    if (cq_cmd->parsed()) {
      return ins::RunCq(fs, io, cq_topic, cq_queue, cq_from, cq_count, cq_follow, stdout, stderr);
    }
    if (key_cmd->parsed()) {
      return ins::RunKey(fs, io, key_topic, key_key, key_begin, key_end, stdout, stderr);
    }
    if (msgid_cmd->parsed()) return ins::RunMsgId(fs, io, msg_id, stdout, stderr);
    if (verify_cmd->parsed()) return ins::RunVerify(fs, io, stdout, stderr);
    if (delay_cmd->parsed()) return ins::RunDelay(fs, io, stdout, stderr);
    if (timers_cmd->parsed()) return ins::RunTimers(fs, io, stdout, stderr);
    if (tx_cmd->parsed()) return ins::RunTransactions(fs, io, stdout, stderr);
  }
  return 0;
}
