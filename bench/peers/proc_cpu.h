// File: bench/peers/proc_cpu.h — CPU time of another process, all its threads, from /proc.
//
// Used by the peer benchmark clients (bench/peers/*_peer.*) to charge the server for the
// measured window only: sample before the first timed request and after the last
// answer, subtract. Sums utime + stime of every /proc/<pid>/task/<tid>/stat (threads
// that exit inside the window lose their share; the servers measured keep their threads).
// Plain C (included by the C NATS client and the C++ rocketstore client); no state, so
// thread-safe. Clock ticks are converted with sysconf(_SC_CLK_TCK) (100 Hz on Linux: a
// 10 ms granularity per thread, so windows of a second or more).
#ifndef ROCKETSTORE_BENCH_PEERS_PROC_CPU_H_
#define ROCKETSTORE_BENCH_PEERS_PROC_CPU_H_

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PEER_MAX_THREADS 256

// One thread's CPU so far: its name (comm) and utime + stime in microseconds.
typedef struct {
  int tid;
  char name[32];
  long long cpu_us;
} PeerThreadCpu;

typedef struct {
  int count;  // threads found (at most PEER_MAX_THREADS)
  long long total_us;
  PeerThreadCpu threads[PEER_MAX_THREADS];
} PeerProcCpu;

// Fills `out` for `pid`; returns 0, or -1 when the process is gone (or pid <= 0).
static inline int PeerSampleCpu(int pid, PeerProcCpu* out) {
  memset(out, 0, sizeof(*out));
  if (pid <= 0) return -1;
  char path[64];
  snprintf(path, sizeof(path), "/proc/%d/task", pid);
  DIR* dir = opendir(path);
  if (dir == NULL) return -1;
  const long tick = sysconf(_SC_CLK_TCK);
  struct dirent* e;
  while ((e = readdir(dir)) != NULL && out->count < PEER_MAX_THREADS) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    char stat_path[320];
    snprintf(stat_path, sizeof(stat_path), "/proc/%d/task/%s/stat", pid, e->d_name);
    FILE* f = fopen(stat_path, "r");
    if (f == NULL) continue;  // the thread exited between readdir and open
    char buf[1024];
    const size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    // "tid (comm) state ppid ..." — comm may hold spaces or ')', so parse from the last ')'.
    char* open = strchr(buf, '(');
    char* close = strrchr(buf, ')');
    if (open == NULL || close == NULL || close < open) continue;
    PeerThreadCpu* t = &out->threads[out->count];
    t->tid = atoi(buf);
    size_t len = (size_t)(close - open - 1);
    if (len >= sizeof(t->name)) len = sizeof(t->name) - 1;
    memcpy(t->name, open + 1, len);
    t->name[len] = '\0';
    // After ") ": field 3 (state) ... utime is field 14, stime field 15.
    char* p = close + 2;
    int field = 3;
    unsigned long long utime = 0, stime = 0;
    while (*p != '\0' && field < 16) {
      if (field == 14) utime = strtoull(p, NULL, 10);
      if (field == 15) stime = strtoull(p, NULL, 10);
      while (*p != '\0' && *p != ' ') ++p;
      while (*p == ' ') ++p;
      ++field;
    }
    t->cpu_us = (long long)((utime + stime) * 1000000ULL / (unsigned long long)tick);
    out->total_us += t->cpu_us;
    ++out->count;
  }
  closedir(dir);
  return 0;
}

// Prints "RESULT msgs=N secs=S server_cpu_us=U threads=name:us,..." — the line the driver
// (bench/peers/run_peers.py) parses. Threads are the per-name sums of after - before.
static inline void PeerPrintResult(const char* what, long long msgs, double secs,
                                   const PeerProcCpu* before, const PeerProcCpu* after) {
  printf("RESULT what=%s msgs=%lld secs=%.4f server_cpu_us=%lld threads=", what, msgs, secs,
         after->total_us - before->total_us);
  // Per thread name (several threads may share one), summing the deltas by tid.
  char names[PEER_MAX_THREADS][32];
  long long sums[PEER_MAX_THREADS];
  int n = 0;
  for (int i = 0; i < after->count; ++i) {
    const PeerThreadCpu* a = &after->threads[i];
    long long base = 0;
    for (int j = 0; j < before->count; ++j) {
      if (before->threads[j].tid == a->tid) base = before->threads[j].cpu_us;
    }
    const long long d = a->cpu_us - base;
    // Thread names may hold ' ', ',' or ':'; map them to '_' for the one-line format.
    char name[32];
    snprintf(name, sizeof(name), "%s", a->name);
    for (char* c = name; *c; ++c) {
      if (*c == ',' || *c == ':' || *c == ' ' || *c == '=') *c = '_';
    }
    int k = 0;
    while (k < n && strcmp(names[k], name) != 0) ++k;
    if (k == n) {
      memcpy(names[n], name, sizeof(name));
      sums[n++] = 0;
    }
    sums[k] += d;
  }
  int first = 1;
  for (int k = 0; k < n; ++k) {
    if (sums[k] <= 0) continue;
    printf("%s%s:%lld", first ? "" : ",", names[k], sums[k]);
    first = 0;
  }
  printf("\n");
  fflush(stdout);
}

#endif  // ROCKETSTORE_BENCH_PEERS_PROC_CPU_H_
