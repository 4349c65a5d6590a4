// Text bpfbench writes into another language: one escaping function per target, here only.
// Every string that comes from a .bdsl, a results file or the command line (labels, suite
// titles, file names, params, reasons) goes through the function of the language it lands
// in. docs/security-output.md says what each one guarantees.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace bpfbench {

// `s` with every invalid UTF-8 sequence replaced by U+FFFD and every control character
// (C0, DEL; also \n and \t unless `keep_newlines`) replaced by a space. NUL included.
std::string printable_text(std::string_view s, bool keep_newlines = false);

// printable_text(…, keep_newlines) for text that arrives in pieces, as a stream writes it to
// a terminal (cli/text_output.hpp): a UTF-8 sequence cut between two pieces is held back
// until the next piece completes it, so it is neither split nor taken for invalid.
class TerminalText {
 public:
  std::string feed(std::string_view piece);
  // What is still held (an unfinished sequence at the end of the text), as U+FFFD.
  std::string finish();

 private:
  std::string held_;
};

// A gnuplot single-quoted string: no backslash escapes, no backquote or @ substitution
// inside; ' doubled. Newlines and control characters become spaces: a newline would end
// the command and start the next one (`system "…"`).
std::string gnuplot_string(std::string_view s);

// A double-quoted field of gnuplot inline data ('-'): data strings have no escapes at all,
// so " becomes ' and newlines (which would end the line, and an "e" line the data) spaces.
std::string gnuplot_data_field(std::string_view s);

// One Markdown table cell or heading text: \ | ` * _ [ ] escaped with a backslash,
// < > & as entities (no raw HTML), newlines as spaces.
std::string markdown_text(std::string_view s);

// One CSV field (RFC 4180): quoted when it holds , " CR or LF, " doubled. A text field
// that a spreadsheet would run as a formula (leading = + - @ tab or CR) gets a leading '
// and is quoted, so it reads as text. Numbers are not passed through here.
std::string csv_field(std::string_view s);

// JSON text that never throws: invalid UTF-8 in a string becomes U+FFFD (nlohmann's
// error_handler_t::replace). indent < 0: one line.
std::string json_text(const nlohmann::json &j, int indent = -1);

// A C string literal: " and \ escaped, every byte outside printable ASCII as a three-digit
// octal escape, so a newline in a file name cannot end a `#line` directive and start code.
std::string c_string_literal(std::string_view s);

// Text inside a C block comment: one line (printable_text), "*/" broken up as "* /".
std::string c_comment_text(std::string_view s);

// One POSIX sh word: single-quoted, ' as '\''. For the guest job script; command lines
// bpfbench runs itself are argv vectors (execve), never shell text.
std::string shell_word(std::string_view s);

}  // namespace bpfbench
