#include "compiler/bdsl/resolve_value.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "compiler/family/address.hpp"
#include "compiler/family/units.hpp"

namespace bpfbench {

namespace {

using ast::Value;

// Follows let references (bounded: a let can only name earlier lets, but be safe).
const Value &deref(const Value &v, const LetScope &lets) {
  const Value *cur = &v;
  for (int depth = 0; depth < 64 && cur->kind == Value::Kind::Ident; ++depth) {
    auto it = lets.find(cur->text);
    if (it == lets.end() || it->second == cur) break;
    cur = it->second;
  }
  return *cur;
}

std::vector<std::string> let_names(const LetScope &lets) {
  std::vector<std::string> out;
  for (const auto &[k, v] : lets) out.push_back(k);
  return out;
}

class Resolver {
 public:
  Resolver(const ParamSpec &spec, const LetScope &lets, Diagnostics &diags) : spec_(spec), lets_(lets), diags_(diags) {}

  bool scalar(const Value &written, ResolvedValues &out) {
    const Value &v = deref(written, lets_);
    switch (v.kind) {
    case Value::Kind::List:
    case Value::Kind::Range:
      diags_.error(written.range,
                   fmt::format("expected a single value for '{}', got a {}", spec_.name,
                               v.kind == Value::Kind::List ? "list" : "range"),
                   {"lists and ranges can't be nested"});
      return false;
    case Value::Kind::Int: return number(v, out);
    case Value::Kind::Ident:
    case Value::Kind::String: return word(written, v, out);
    case Value::Kind::Expr: return expression(written, v, out);
    }
    return false;
  }

  bool any(const Value &written, ResolvedValues &out) {
    const Value &v = deref(written, lets_);
    if (v.kind == Value::Kind::List) {
      out.is_list = true;
      if (v.items.empty()) {
        diags_.error(written.range, fmt::format("empty list for '{}'", spec_.name));
        return false;
      }
      bool ok = true;
      for (const auto &item : v.items) ok = scalar(item, out) && ok;
      return ok;
    }
    if (v.kind == Value::Kind::Range) {
      out.is_list = true;
      return range(v, out);
    }
    return scalar(written, out);
  }

 private:
  bool number(const Value &v, ResolvedValues &out) {
    if (v.decimals > 0) {
      diags_.error(v.range, fmt::format("'{}' takes whole numbers", spec_.name),
                   {"only 'until ci' takes a decimal percentage"});
      return false;
    }
    if (!is_numeric(spec_.type) && spec_.type != ParamType::Bool) {
      diags_.error(v.range, fmt::format("expected {} for '{}', got a number", type_noun(spec_.type), spec_.name),
                   choices_hint());
      return false;
    }
    if (spec_.type == ParamType::Bool) {
      if (!v.unit.empty() || (v.number != 0 && v.number != 1)) {
        diags_.error(v.range, fmt::format("expected true or false for '{}'", spec_.name));
        return false;
      }
      return push(v.number, v.range, out);
    }
    if (spec_.type == ParamType::Duration && v.unit.empty() && v.number != 0) {
      diags_.error(v.range, fmt::format("'{}' is a duration: {} needs a unit", spec_.name, v.number),
                   {duration_units_hint(v.number)});
      return false;
    }
    auto scaled = apply_unit(v.number, v.unit, spec_.type);
    if (!scaled) {
      diags_.error(v.range, fmt::format("bad value for '{}': {}", spec_.name, scaled.error().message));
      return false;
    }
    return check_bounds(*scaled, v.range) && push(*scaled, v.range, out);
  }

  // `expr` (when not null) computed x: the hints show its value and how to clamp it.
  bool check_bounds(int64_t x, const SourceRange &r, const ast::Value *expr = nullptr, const ExprValue *ev = nullptr) {
    if (x < spec_.min || x > spec_.max) {
      std::vector<std::string> hints;
      if (expr && ev) {
        std::string text = expr_text(*expr);
        std::vector<std::string> vars;
        for (const auto &[n, val] : ev->names) vars.push_back(fmt::format("{} = {}", n, val));
        hints.push_back(fmt::format("{} is {} here{}", text, ev->value,
                                    vars.empty() ? "" : fmt::format(" ({})", fmt::join(vars, ", "))));
        hints.push_back(x < spec_.min ? fmt::format("max({}, {}) keeps it at least {}", spec_.min, text, spec_.min)
                                      : fmt::format("min({}, {}) keeps it at most {}", spec_.max, text, spec_.max));
      }
      // Durations and sizes in the units one types ("value 10ms for 'duration' is below
      // the 1s minimum", "2K ... below the 4K minimum"), not in nanoseconds or bytes.
      hints.push_back(fmt::format("'{}' takes {} to {}", spec_.name, format_quantity(spec_.min, spec_.type),
                                  format_quantity(spec_.max, spec_.type)));
      diags_.error(r,
                   fmt::format("value {} for '{}' {}", format_quantity(x, spec_.type), spec_.name,
                               bound_phrase(x, spec_.min, spec_.max, spec_.type)),
                   hints);
      return false;
    }
    if (spec_.power_of_two && (x <= 0 || (x & (x - 1)) != 0)) {
      diags_.error(r, fmt::format("'{}' must be a power of two, got {}", spec_.name, format_quantity(x, spec_.type)));
      return false;
    }
    return true;
  }

  // An integer expression: computed, then taken like a number written without a unit
  // (for a duration an error, unless it is 0: no unit of time is allowed inside it).
  bool expression(const Value &written, const Value &v, ResolvedValues &out) {
    if (!is_numeric(spec_.type)) {
      diags_.error(written.range,
                   fmt::format("expected {} for '{}', got an expression", type_noun(spec_.type), spec_.name),
                   choices_hint());
      return false;
    }
    // From the written name when there is one, so a let that leads back to itself is
    // caught at its first repetition.
    auto ev = eval_int_expr(written, spec_.type, spec_.name, lets_, diags_);
    if (!ev) return false;
    if (spec_.type == ParamType::Duration && ev->value != 0) {
      diags_.error(written.range,
                   fmt::format("'{}' is a duration: an expression gives a number without a unit ({} here)", spec_.name,
                               ev->value),
                   {"write one value with its unit: s, ms, us or ns (1500ms, not 1s + 500ms)"});
      return false;
    }
    auto scaled = apply_unit(ev->value, "", spec_.type);
    if (!scaled) {
      diags_.error(written.range, fmt::format("bad value for '{}': {}", spec_.name, scaled.error().message));
      return false;
    }
    return check_bounds(*scaled, written.range, &v, &*ev) && push(*scaled, written.range, out);
  }

  bool word(const Value &written, const Value &v, ResolvedValues &out) {
    const std::string &w = v.text;
    if (spec_.type == ParamType::Bool && v.kind == Value::Kind::Ident && (w == "true" || w == "false"))
      return push(w == "true" ? 1 : 0, v.range, out);
    if (spec_.type == ParamType::Enum) {
      if (std::find(spec_.choices.begin(), spec_.choices.end(), w) != spec_.choices.end())
        return push_str(w, v.range, out);
      std::vector<std::string> hints;
      std::string close = did_you_mean(w, spec_.choices);
      if (!close.empty()) hints.push_back(fmt::format("did you mean '{}'?", close));
      hints.push_back(fmt::format("'{}' is one of: {}", spec_.name, fmt::join(spec_.choices, ", ")));
      diags_.error(v.range,
                   fmt::format("unknown {} '{}' for '{}'", spec_.name == "prog" ? "program" : "value", w, spec_.name),
                   hints);
      return false;
    }
    if (spec_.type == ParamType::Cpuset && v.kind == Value::Kind::String) {
      if (auto ok = check_cpuset(w); !ok) {
        diags_.error(v.range, fmt::format("bad CPU set for '{}': {}", spec_.name, ok.error().message));
        return false;
      }
      return push_str(w, v.range, out);
    }
    if (spec_.type == ParamType::Address && v.kind == Value::Kind::String) {
      if (auto a = parse_address(w); !a) {
        diags_.error(v.range, fmt::format("bad address for '{}': {}", spec_.name, a.error().message));
        return false;
      }
      return push_str(w, v.range, out);
    }
    std::vector<std::string> hints;
    if (v.kind == Value::Kind::Ident) {
      if (std::string dash = dash_name_hint(w, lets_); !dash.empty() && is_numeric(spec_.type)) hints.push_back(dash);
      else if (std::string close = did_you_mean(w, let_names(lets_)); !close.empty())
        hints.push_back(fmt::format("did you mean the let '{}'?", close));
    }
    if (spec_.type == ParamType::Cpuset) hints.push_back("write CPU sets as strings: \"0-3,8\"");
    if (spec_.type == ParamType::Address) hints.push_back("write addresses as strings: \"10.0.0.1\", \"fd00::1\"");
    diags_.error(written.range,
                 fmt::format("expected {} for '{}', got {} '{}'", type_noun(spec_.type), spec_.name,
                             v.kind == Value::Kind::Ident ? "identifier" : "string", w),
                 hints);
    return false;
  }

  bool bound(const Value &b, int64_t &x) {
    const Value &v = deref(b, lets_);
    if (v.kind == Value::Kind::Expr) {
      auto ev = eval_int_expr(b, is_numeric(spec_.type) ? spec_.type : ParamType::Int, spec_.name, lets_, diags_);
      if (!ev) return false;
      auto scaled = apply_unit(ev->value, "", is_numeric(spec_.type) ? spec_.type : ParamType::Int);
      if (!scaled) {
        diags_.error(b.range, fmt::format("bad range bound for '{}': {}", spec_.name, scaled.error().message));
        return false;
      }
      x = *scaled;
      return true;
    }
    if (v.kind != Value::Kind::Int) {
      std::vector<std::string> hints;
      if (v.kind == Value::Kind::Ident)
        if (std::string dash = dash_name_hint(v.text, lets_); !dash.empty()) hints.push_back(dash);
      diags_.error(b.range, "range bounds must be numbers", hints);
      return false;
    }
    auto scaled = apply_unit(v.number, v.unit, is_numeric(spec_.type) ? spec_.type : ParamType::Int);
    if (!scaled) {
      diags_.error(v.range, fmt::format("bad range bound for '{}': {}", spec_.name, scaled.error().message));
      return false;
    }
    x = *scaled;
    return true;
  }

  // A step is a quantity of the same kind as the bounds: [1ms..9ms step 2ms]. A duration's
  // step needs its unit like any duration (a plain one was nanoseconds, the bounds' unit).
  bool step_value(const Value &v, const SourceRange &by_r, int64_t &by) {
    if (!v.by || v.range_kind != ast::RangeKind::Step) return true;
    if (v.by_unit.empty()) {
      if (spec_.type != ParamType::Duration || *v.by == 0) return true;
      diags_.error(by_r, fmt::format("'{}' is a duration: the step {} needs a unit", spec_.name, *v.by),
                   {duration_units_hint(*v.by)});
      return false;
    }
    auto scaled = apply_unit(*v.by, v.by_unit, spec_.type);
    if (!scaled) {
      diags_.error(by_r, fmt::format("bad range step for '{}': {}", spec_.name, scaled.error().message));
      return false;
    }
    by = *scaled;
    return true;
  }

  bool range(const Value &v, ResolvedValues &out) {
    if (!is_numeric(spec_.type)) {
      diags_.error(v.range,
                   fmt::format("a range needs a numeric parameter, '{}' is {}", spec_.name, type_noun(spec_.type)));
      return false;
    }
    int64_t lo = 0, hi = 0;
    if (v.items.size() != 2 || !bound(v.items[0], lo) || !bound(v.items[1], hi)) return false;
    if (lo > hi) {
      diags_.error(v.range, fmt::format("reversed range: {} is greater than {}", lo, hi),
                   {fmt::format("write [{}..{}]", hi, lo)});
      return false;
    }
    std::vector<int64_t> xs;
    int64_t by = v.by.value_or(v.range_kind == ast::RangeKind::Step ? 1 : 0);
    SourceRange by_r = v.by_range.valid() ? v.by_range : v.range;
    if (!step_value(v, by_r, by)) return false;
    switch (v.range_kind) {
    case ast::RangeKind::Step:
      if (by <= 0) {
        diags_.error(by_r, by == 0 ? "range step is zero" : "range step must be positive");
        return false;
      }
      {
        // hi - lo can exceed int64 (e.g. [-9E18..9E18]); unsigned arithmetic cannot.
        uint64_t count = (static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo)) / static_cast<uint64_t>(by);
        if (count >= kMaxRangePoints) return too_many(v.range);
        for (uint64_t i = 0; i <= count; ++i) xs.push_back(lo + static_cast<int64_t>(i) * by);
      }
      break;
    case ast::RangeKind::Geometric:
      if (by < 2) {
        diags_.error(by_r, "geometric factor must be at least 2");
        return false;
      }
      if (lo < 1) {
        diags_.error(v.items[0].range, "a geometric range must start at 1 or more");
        return false;
      }
      for (int64_t x = lo; x <= hi;) {
        xs.push_back(x);
        if (__builtin_mul_overflow(x, by, &x)) break;
      }
      break;
    case ast::RangeKind::Log:
      if (by < 2) {
        diags_.error(by_r, "a log range needs at least 2 points");
        return false;
      }
      if (static_cast<size_t>(by) > kMaxRangePoints) return too_many(v.range);
      if (lo < 1) {
        diags_.error(v.items[0].range, "a log range must start at 1 or more");
        return false;
      }
      for (int64_t i = 0; i < by; ++i) {
        double f =
            std::exp(std::log(double(lo)) + (std::log(double(hi)) - std::log(double(lo))) * double(i) / double(by - 1));
        int64_t x = i == by - 1 ? hi : std::clamp<int64_t>(std::llround(f), lo, hi);
        if (xs.empty() || xs.back() != x) xs.push_back(x);
      }
      break;
    }
    bool ok = true;
    for (int64_t x : xs) ok = check_bounds(x, v.range) && push(x, v.range, out) && ok;
    return ok;
  }

  bool too_many(const SourceRange &r) {
    diags_.error(r, fmt::format("range expands to more than {} points", kMaxRangePoints));
    return false;
  }

  std::vector<std::string> choices_hint() const {
    if (spec_.choices.empty()) return {};
    return {fmt::format("'{}' is one of: {}", spec_.name, fmt::join(spec_.choices, ", "))};
  }

  bool push(int64_t x, const SourceRange &r, ResolvedValues &out) {
    out.values.push_back(ParamValue{true, x, {}});
    out.ranges.push_back(r);
    return true;
  }
  bool push_str(const std::string &s, const SourceRange &r, ResolvedValues &out) {
    out.values.push_back(ParamValue{false, 0, s});
    out.ranges.push_back(r);
    return true;
  }

  const ParamSpec &spec_;
  const LetScope &lets_;
  Diagnostics &diags_;
};

}  // namespace

std::optional<ResolvedValues> resolve_values(const ast::Value &v, const ParamSpec &spec, const LetScope &lets,
                                             Diagnostics &diags) {
  ResolvedValues out;
  if (!Resolver(spec, lets, diags).any(v, out)) return std::nullopt;
  return out;
}

std::optional<ResolvedValues> resolve_flag(const ast::Name &name, const ParamSpec &spec, Diagnostics &diags) {
  if (spec.type != ParamType::Bool) {
    diags.error(name.range, fmt::format("'{}' needs a value ({})", spec.name, type_noun(spec.type)));
    return std::nullopt;
  }
  ResolvedValues out;
  out.values.push_back(ParamValue{true, 1, {}});
  out.ranges.push_back(name.range);
  return out;
}

Result<> check_cpuset(const std::string &text) {
  if (text.empty()) return Error("empty CPU set");
  size_t i = 0;
  auto read_num = [&](int64_t &n) {
    if (i >= text.size() || !std::isdigit(static_cast<unsigned char>(text[i]))) return false;
    n = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      n = n * 10 + (text[i++] - '0');
      if (n > 4095) return false;
    }
    return true;
  };
  while (i < text.size()) {
    int64_t a = 0, b = 0;
    if (!read_num(a)) return Error(fmt::format("expected a CPU number (0-4095) at offset {}", i));
    b = a;
    if (i < text.size() && text[i] == '-') {
      ++i;
      if (!read_num(b)) return Error(fmt::format("expected a CPU number (0-4095) at offset {}", i));
      if (b < a) return Error(fmt::format("reversed CPU range {}-{}", a, b));
    }
    if (i < text.size()) {
      if (text[i] != ',') return Error(fmt::format("unexpected '{}' at offset {}", text[i], i));
      ++i;
      if (i == text.size()) return Error("trailing ','");
    }
  }
  return {};
}

const char *type_noun(ParamType t) {
  switch (t) {
  case ParamType::Int: return "an integer";
  case ParamType::Size: return "a size";
  case ParamType::Duration: return "a duration";
  case ParamType::Bool: return "true or false";
  case ParamType::Enum: return "a name";
  case ParamType::Cpuset: return "a CPU set";
  case ParamType::Address: return "an address";
  }
  return "a value";
}

}  // namespace bpfbench
