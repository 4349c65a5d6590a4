#include "runtime/producer_config.hpp"

#include "runtime/test_run_input.hpp"

namespace bpfbench {

namespace {

// An enum param's choice, or "" when the point has none (the family does not declare it).
std::string choice(const PlanPoint &p, const KindParam &k) {
  const ParamValue *v = p.param(k.name);
  return v && !v->is_int ? v->s : "";
}

// A positive integer param, or 0.
uint64_t positive(const PlanPoint &p, const KindParam &k) {
  const ParamValue *v = p.param(k.name);
  return v && v->is_int && v->i > 0 ? static_cast<uint64_t>(v->i) : 0;
}

// test_run: operations per call, the packet and, with `check_output`, what every call must return.
Result<> test_run_settings(const PlanPoint &p, ProducerConfig &pc) {
  if (uint64_t b = positive(p, kind_params::batch_iters)) pc.ops_per_run = b;
  auto input = test_run_input_for(p);
  if (!input) return input.error();
  pc.data_in = std::move(input->data_in);
  pc.repeat = input->repeat;
  if (const ParamValue *c = p.param(kind_params::check_output); c && c->is_int && c->i) {
    const ParamValue *retval = p.param(kind_params::expect_retval);
    if (!retval || !retval->is_int)
      return Error(std::string(kind_params::check_output.name) + " needs the param " + kind_params::expect_retval.name);
    pc.expected_retval = static_cast<uint32_t>(retval->i);
    auto out = expected_output_for(p, pc.data_in);
    if (!out) return out.error();
    pc.expected_out = std::move(*out);
  }
  return {};
}

}  // namespace

Result<ProducerConfig> producer_config_for(const PlanPoint &p, const FamilyManifest &f, const ProgramSpec &prog) {
  ProducerConfig pc;
  pc.kind = f.producer_of(prog);
  pc.producers = p.producers;
  if (std::string g = choice(p, kind_params::getpgid_arg); !g.empty()) pc.getpgid_self = g == "self";
  if (std::string c = choice(p, kind_params::op_count); !c.empty()) pc.atomic_count = c == "atomic";
  if (std::string c = choice(p, kind_params::comm); !c.empty()) pc.rename_main = c == "main";
  if (uint64_t b = positive(p, kind_params::batch_size)) pc.batch_size = static_cast<uint32_t>(b);
  if (uint64_t m = positive(p, kind_params::max_in_flight)) pc.max_in_flight = m;
  if (pc.kind == ProducerKind::TestRun) BB_TRY(test_run_settings(p, pc));
  return pc;
}

bool same_producer_settings(const ProducerConfig &a, const ProducerConfig &b) {
  return a.kind == b.kind && a.producers == b.producers && a.getpgid_self == b.getpgid_self &&
         a.atomic_count == b.atomic_count && a.rename_main == b.rename_main && a.batch_size == b.batch_size &&
         a.max_in_flight == b.max_in_flight && a.ops_per_run == b.ops_per_run && a.data_in == b.data_in &&
         a.repeat == b.repeat && a.expected_retval == b.expected_retval && a.expected_out == b.expected_out;
}

}  // namespace bpfbench
