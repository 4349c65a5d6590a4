// Checked command-line values: every option value goes through one ValueParser, which
// returns the value or says why not, in the units and with the text the user typed.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace bpfbench::cli {

// Parses one option value; on failure returns nullopt and sets *why ("500ms is below the
// 1s minimum"), without the option name (CLI11 puts it in front).
template <typename T>
using ValueParser = std::function<std::optional<T>(const std::string &text, std::string *why)>;

// "500ms", "2s" within [min_ns, max_ns] (a bare number is an error with the units to choose
// from, but for 0; `bench -w/-d` take the kernel bench's plain seconds instead); the ns
// arithmetic is overflow-checked, so "9223372037s" is too large, not a negative duration.
ValueParser<int64_t> duration_in(int64_t min_ns, int64_t max_ns);
// A signed decimal integer within [min, max] ("-1" is below 0, never 18446744073709551615).
ValueParser<int64_t> integer_in(int64_t min, int64_t max);
// A finite number within [min, max]; `open` excludes both ends (NaN and inf never pass).
ValueParser<double> number_in(double min, double max, bool open = false);
// "1%", "0.5%" or "2" within [min, max] percent.
ValueParser<double> percent_in(double min, double max);
// Any text but the empty one (a file name, a kernel name); `what` names it in the message.
ValueParser<std::string> non_empty(const std::string &what);

// The CLI11 validator of a parser (for options bound to plain variables). It has a name
// but no description, so --help shows the option's own type name once ("FILE", not "FILE:FILE").
template <typename T>
CLI::Validator checked(ValueParser<T> parse, const std::string &name) {
  return CLI::Validator(
      [parse](std::string &s) {
        std::string why;
        return parse(s, &why) ? std::string() : why;
      },
      "", name);
}

// Adds option `name` whose value is parsed once by `parse`: a bad value is a CLI11
// validation error (exit 2, "--name: why"), a good one is handed to `store`.
template <typename T>
CLI::Option *add_value(CLI::App *cmd, const std::string &name, ValueParser<T> parse, std::function<void(T)> store,
                       const std::string &help, const std::string &type_name) {
  return cmd
      ->add_option_function<std::string>(
          name,
          [parse, store](const std::string &s) {
            std::string why;
            if (auto v = parse(s, &why)) store(*v);
          },
          help)
      ->check(checked(parse, type_name))
      ->type_name(type_name);
}

// The range of a builtin setting (warmup, duration, producers, ...), so that an option
// accepts exactly what the same setting accepts in a .bdsl file.
std::pair<int64_t, int64_t> builtin_range(const std::string &name);

}  // namespace bpfbench::cli
