// File: console/assets.h
//
// The web console's front end (console/web/ in the source tree), embedded in the binary
// at build time by cmake/embed_assets.cmake, so the console needs no files and no
// network at run time. Thread-safety: immutable data.
#pragma once

#include <string_view>

namespace rocketstore::console {

struct Asset {
  std::string_view path;  // "/index.html", "/app.js", ...
  std::string_view content_type;
  std::string_view bytes;
};

// nullptr when no asset has this path.
const Asset* FindAsset(std::string_view path);

}  // namespace rocketstore::console
