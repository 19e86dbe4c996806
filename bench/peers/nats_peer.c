// bench/peers/nats_peer: the NATS JetStream side of `make bench-peers` (issue 20), on the
// C client libnats (Debian libnats-dev). Built by bench/peers/run_peers.py with
//   cc -O2 -o build/release/bench/peers/nats_peer bench/peers/nats_peer.c -lnats
//
//   nats_peer setup   --url nats://127.0.0.1:P
//       creates stream BENCH (subjects bench.>, file storage, 1 replica)
//   nats_peer produce --url U --shape CxD --seconds S [--size 1024] [--server-pid PID]
//       C connections (one thread each), each a jsCtx with PublishAsync.MaxPending = D:
//       js_PublishAsync blocks once D are unacknowledged, so each connection keeps D in
//       flight (the shape of rocketstore's pipelined rows). Publishes until S seconds,
//       then waits for every ack. Counts acknowledged messages.
//   nats_peer consume --url U --seconds S --durable NAME [--batch 32] [--server-pid PID]
//       a new pull consumer (deliver all, no acks) fetching `batch` per request on one
//       connection until the stream is drained or S seconds pass.
// Each mode prints one "RESULT ..." line (bench/peers/proc_cpu.h): messages, seconds of
// the measured window, and the server's CPU over that window, all threads.
#include <nats/nats.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "proc_cpu.h"

static const char* g_url = "nats://127.0.0.1:4222";
static int g_size = 1024;
static double g_seconds = 2;
static int g_server_pid = 0;

static double Now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void Die(const char* what, natsStatus s, jsErrCode jerr) {
  fprintf(stderr, "nats_peer: %s: %s (jetstream error %d)\n", what, natsStatus_GetText(s),
          (int)jerr);
  nats_PrintLastErrorStack(stderr);
  exit(1);
}

static void Connect(natsConnection** nc, jsCtx** js, int64_t max_pending, jsPubAckHandler ack,
                    void* closure) {
  natsStatus s = natsConnection_ConnectTo(nc, g_url);
  if (s != NATS_OK) Die("connect", s, 0);
  jsOptions o;
  jsOptions_Init(&o);
  if (max_pending > 0) {
    o.PublishAsync.MaxPending = max_pending;
    o.PublishAsync.StallWait = 30000;  // block (not fail) while the window is full
    o.PublishAsync.AckHandler = ack;
    o.PublishAsync.AckHandlerClosure = closure;
  }
  s = natsConnection_JetStream(js, *nc, &o);
  if (s != NATS_OK) Die("jetstream context", s, 0);
}

static int Setup(void) {
  natsConnection* nc = NULL;
  jsCtx* js = NULL;
  Connect(&nc, &js, 0, NULL, NULL);
  jsStreamConfig cfg;
  jsStreamConfig_Init(&cfg);
  const char* subjects[] = {"bench.>"};
  cfg.Name = "BENCH";
  cfg.Subjects = subjects;
  cfg.SubjectsLen = 1;
  cfg.Storage = js_FileStorage;
  cfg.Replicas = 1;
  jsErrCode jerr = 0;
  jsStreamInfo* si = NULL;
  natsStatus s = js_AddStream(&si, js, &cfg, NULL, &jerr);
  if (s != NATS_OK) Die("add stream BENCH", s, jerr);
  jsStreamInfo_Destroy(si);
  jsCtx_Destroy(js);
  natsConnection_Destroy(nc);
  return 0;
}

typedef struct {
  int index;
  int depth;
  double deadline;
  const char* body;
  long long published;
  long long acked;   // touched by the ack handler thread only
  long long failed;  // likewise
} Producer;

static void OnAck(jsCtx* js, natsMsg* msg, jsPubAck* pa, jsPubAckErr* pae, void* closure) {
  (void)js;
  Producer* p = (Producer*)closure;
  if (pa != NULL) {
    ++p->acked;
  } else {
    ++p->failed;
    if (pae != NULL && p->failed == 1) {
      fprintf(stderr, "nats_peer: publish failed: %s\n", pae->ErrText ? pae->ErrText : "?");
    }
  }
  natsMsg_Destroy(msg);
}

static void* ProduceThread(void* arg) {
  Producer* p = (Producer*)arg;
  natsConnection* nc = NULL;
  jsCtx* js = NULL;
  Connect(&nc, &js, p->depth, OnAck, p);
  char subject[32];
  snprintf(subject, sizeof(subject), "bench.q%d", p->index);
  while (Now() < p->deadline) {
    natsStatus s = js_PublishAsync(js, subject, p->body, g_size, NULL);
    if (s != NATS_OK) Die("publish async", s, 0);
    ++p->published;
  }
  jsPubOptions po;
  jsPubOptions_Init(&po);
  po.MaxWait = 60000;
  natsStatus s = js_PublishAsyncComplete(js, &po);
  if (s != NATS_OK) Die("publish async complete", s, 0);
  jsCtx_Destroy(js);  // waits for the ack handler to be done with the closure
  natsConnection_Destroy(nc);
  return NULL;
}

static int Produce(int connections, int depth) {
  char* body = malloc((size_t)g_size);
  memset(body, 'x', (size_t)g_size);
  Producer* ps = calloc((size_t)connections, sizeof(Producer));
  pthread_t* threads = calloc((size_t)connections, sizeof(pthread_t));
  // Warm-up: a few hundred messages so the stream's first block exists before the window.
  {
    natsConnection* nc = NULL;
    jsCtx* js = NULL;
    Connect(&nc, &js, 0, NULL, NULL);
    for (int i = 0; i < 200; ++i) {
      jsPubAck* pa = NULL;
      jsErrCode jerr = 0;
      natsStatus s = js_Publish(&pa, js, "bench.warmup", body, g_size, NULL, &jerr);
      if (s != NATS_OK) Die("warm-up publish", s, jerr);
      jsPubAck_Destroy(pa);
    }
    jsCtx_Destroy(js);
    natsConnection_Destroy(nc);
  }
  static PeerProcCpu before, after;
  PeerSampleCpu(g_server_pid, &before);
  const double start = Now();
  for (int i = 0; i < connections; ++i) {
    ps[i].index = i;
    ps[i].depth = depth;
    ps[i].deadline = start + g_seconds;
    ps[i].body = body;
    pthread_create(&threads[i], NULL, ProduceThread, &ps[i]);
  }
  long long acked = 0, failed = 0;
  for (int i = 0; i < connections; ++i) {
    pthread_join(threads[i], NULL);
    acked += ps[i].published - ps[i].failed;  // every publish was answered by Complete
    failed += ps[i].failed;
  }
  const double secs = Now() - start;
  PeerSampleCpu(g_server_pid, &after);
  // Connecting the C connections is inside the window (a few ms of a multi-second row).
  PeerPrintResult("produce", acked, secs, &before, &after);
  free(threads);
  free(ps);
  free(body);
  if (failed > 0) {
    fprintf(stderr, "nats_peer: %lld publishes failed\n", failed);
    return 1;
  }
  return 0;
}

static int Consume(const char* durable, int batch) {
  natsConnection* nc = NULL;
  jsCtx* js = NULL;
  Connect(&nc, &js, 0, NULL, NULL);
  jsErrCode jerr = 0;
  jsStreamInfo* si = NULL;
  natsStatus s = js_GetStreamInfo(&si, js, "BENCH", NULL, &jerr);
  if (s != NATS_OK) Die("stream info", s, jerr);
  const long long total = (long long)si->State.Msgs;
  jsStreamInfo_Destroy(si);
  jsSubOptions so;
  jsSubOptions_Init(&so);
  so.Config.DeliverPolicy = js_DeliverAll;
  so.Config.AckPolicy = js_AckNone;  // rocketstore's pulls ack nothing per message either
  so.Config.MaxRequestBatch = batch;
  natsSubscription* sub = NULL;
  s = js_PullSubscribe(&sub, js, "bench.>", durable, NULL, &so, &jerr);
  if (s != NATS_OK) Die("pull subscribe", s, jerr);
  static PeerProcCpu before, after;
  PeerSampleCpu(g_server_pid, &before);
  const double start = Now();
  const double deadline = start + g_seconds;
  long long got = 0;
  while (got < total && Now() < deadline) {
    natsMsgList list = {0};
    s = natsSubscription_Fetch(&list, sub, batch, 5000, &jerr);
    if (s == NATS_TIMEOUT) break;
    if (s != NATS_OK) Die("fetch", s, jerr);
    got += list.Count;
    natsMsgList_Destroy(&list);
  }
  const double secs = Now() - start;
  PeerSampleCpu(g_server_pid, &after);
  PeerPrintResult("consume", got, secs, &before, &after);
  natsSubscription_Unsubscribe(sub);
  natsSubscription_Destroy(sub);
  jsErrCode derr = 0;
  (void)js_DeleteConsumer(js, "BENCH", durable, NULL, &derr);
  jsCtx_Destroy(js);
  natsConnection_Destroy(nc);
  return got > 0 ? 0 : 1;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr,
            "usage: nats_peer setup|produce|consume [--url U] [--shape CxD] "
            "[--seconds S] [--size B] [--server-pid PID] [--durable NAME] [--batch N]\n");
    return 2;
  }
  const char* mode = argv[1];
  int connections = 1, depth = 256, batch = 32;
  const char* durable = "bench-consume";
  for (int i = 2; i + 1 < argc; i += 2) {
    const char* k = argv[i];
    const char* v = argv[i + 1];
    if (strcmp(k, "--url") == 0) {
      g_url = v;
    } else if (strcmp(k, "--shape") == 0) {
      if (sscanf(v, "%dx%d", &connections, &depth) != 2 || connections < 1 || depth < 1) {
        fprintf(stderr, "nats_peer: --shape CONNECTIONSxINFLIGHT, got '%s'\n", v);
        return 2;
      }
    } else if (strcmp(k, "--seconds") == 0) {
      g_seconds = atof(v);
    } else if (strcmp(k, "--size") == 0) {
      g_size = atoi(v);
    } else if (strcmp(k, "--server-pid") == 0) {
      g_server_pid = atoi(v);
    } else if (strcmp(k, "--durable") == 0) {
      durable = v;
    } else if (strcmp(k, "--batch") == 0) {
      batch = atoi(v);
    } else {
      fprintf(stderr, "nats_peer: unknown option '%s'\n", k);
      return 2;
    }
  }
  natsStatus s = nats_Open(-1);
  if (s != NATS_OK) Die("nats_Open", s, 0);
  int rc;
  if (strcmp(mode, "setup") == 0) {
    rc = Setup();
  } else if (strcmp(mode, "produce") == 0) {
    rc = Produce(connections, depth);
  } else if (strcmp(mode, "consume") == 0) {
    rc = Consume(durable, batch);
  } else {
    fprintf(stderr, "nats_peer: mode must be setup, produce or consume, got '%s'\n", mode);
    rc = 2;
  }
  nats_Close();
  return rc;
}
