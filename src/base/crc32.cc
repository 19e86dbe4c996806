#include "base/crc32.h"

#include <isa-l/crc.h>

namespace rocketstore {

uint32_t Crc32(const void* data, size_t n, uint32_t crc) {
  if (n == 0) return crc;
  // crc32_gzip_refl applies the init/xorout inversion itself: seed 0 == zlib's crc32(0, ...).
  return crc32_gzip_refl(crc, static_cast<const unsigned char*>(data), n);
}

}  // namespace rocketstore
