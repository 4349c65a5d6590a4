// Per-choice data of enum params (family.json): `presets`, the values other params of the
// family take at a point that chooses it, unless the .bdsl sets them, so one name stands
// for a whole scenario (`scenario tcp-v4-lru-hit` sets the packet, the map contents and
// the expectations of the xdp_lb family) and the table stays data in the manifest; and
// `choice_docs`, a line saying what each choice is (`bpfbench list`, `bench` reports).
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "compiler/family/manifest.hpp"
#include "compiler/family/manifest_fields.hpp"

namespace bpfbench {

// Reads the `presets` objects of the `params` array `params` into f.params, once every
// param is read (a preset may name params declared after it). Each value is checked as the
// param's `default` is (type, unit, range, choices, address); problems become diagnostics
// at their key or value.
void read_param_presets(ManifestFields &mf, const nlohmann::json &params, FamilyManifest &f);

// Reads `choice_docs` of enum param `p` (a JSON object) into spec.choice_docs: an object
// of strings whose keys are choices of the param.
void read_choice_docs(ManifestFields &mf, const nlohmann::json &p, const std::string &where, ParamSpec &spec);

// The values `choice` of enum param `spec` presets, or nullptr when it presets none.
const std::vector<std::pair<std::string, ParamValue>> *preset_of(const ParamSpec &spec, const std::string &choice);

}  // namespace bpfbench
