// File: console/where_it_lives.h
//
// Where a stored message lives, for the console's message detail: the commit-log segment
// file and the position in it, the consume-queue unit (file, position, and whether that
// unit points back at this record), and for each indexed key (KEYS tokens, UNIQ_KEY) the
// index walk — hash, slot, per index file the slot's value and the chain of entries —
// produced by `rocketstore inspect key` itself (tools/inspect, JSON Lines), so the
// browser shows the inspector's explanation, step for step.
//
// Reads the store's files read-only beside the running broker (as `inspect` does).
// Thread-safety: any thread.
#pragma once

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdint>

#include "store/format/message_record.h"
#include "store/message_store.h"

namespace rocketstore::console {

// Writes the members "commitLog", "consumeQueue" and "index" of the explanation of
// record `r` (stored at `r.physical_offset`) into the object `w` is in.
void WriteWhereItLives(rapidjson::Writer<rapidjson::StringBuffer>& w, MessageStore& store,
                       const format::RecordView& r);

}  // namespace rocketstore::console
