// `ab --floor-from FILE`: the noise floors of a control run (`ab --control --format json`).
// The file may come from anyone: read through the checked opener (a regular file of at most
// 16 MiB, never a FIFO or a device) and the bounded JSON reader (at most 64 levels deep);
// of the document only the fields the floors need are kept, the rest (its points) is read
// past without being built.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "util/error.hpp"

namespace bpfbench {

// Per "suite / label", and the overall one under the key "".
using FloorMap = std::map<std::string, double>;

// The floors of `path`; the error names the file: "cannot read c.json: is a FIFO, not a
// regular file", "c.json:3:1: not valid JSON: …", "c.json: floors["S / t"]: expected a
// number >= 0, got -3".
Result<FloorMap> read_floor_file(const std::string &path);
// The same from text in memory (`name` stands for the file in messages): the fuzz target.
Result<FloorMap> floors_from_text(std::string_view text, const std::string &name);

// The floors a control run's JSON holds; the error (with the JSON path) when it is not
// such a file, or a floor is not a number >= 0 (null: none).
Result<FloorMap> floors_from_control_json(const nlohmann::json &j);

}  // namespace bpfbench
