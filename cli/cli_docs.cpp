// Walks the CLI11 tree: each command's description and options, as --help shows them.
#include "cli/cli_docs.hpp"

#include <fmt/format.h>

#include <cstring>

#include "compiler/family/kinds_text.hpp"

namespace bpfbench::cli {

namespace {

// roff text: backslashes and dashes escaped, a leading '.' or '\'' not read as a request,
// and what is not ASCII (→, —) as \[uXXXX], which every troff reads without preconv.
std::string roff(const std::string &s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char ch = static_cast<unsigned char>(s[i]);
    if (ch == '\\') out += "\\e";
    else if (ch == '-') out += "\\-";
    else if (ch < 0x80) out += static_cast<char>(ch);
    else {
      int extra = ch >= 0xf0 ? 3 : ch >= 0xe0 ? 2 : 1;
      uint32_t cp = ch & (0x3f >> extra);
      for (int k = 0; k < extra && i + 1 < s.size(); ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[++i]) & 0x3f);
      out += fmt::format("\\[u{:04X}]", cp);
    }
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out.insert(0, "\\&");
  return out;
}

std::vector<const CLI::App *> commands(const CLI::App &app) {
  std::vector<const CLI::App *> out;
  for (const CLI::App *sub : app.get_subcommands([](const CLI::App *) { return true; })) out.push_back(sub);
  return out;
}

// Options --help lists (not the hidden ones, whose group is "", nor -h itself), positionals last.
std::vector<const CLI::Option *> shown_options(const CLI::App &cmd) {
  std::vector<const CLI::Option *> named, positional;
  for (const CLI::Option *o : cmd.get_options()) {
    if (o->get_group().empty() || o->check_lname("help")) continue;
    (o->nonpositional() ? named : positional).push_back(o);
  }
  named.insert(named.end(), positional.begin(), positional.end());
  return named;
}

bool takes_value(const CLI::Option *o) { return !o->nonpositional() || o->get_expected_min() > 0; }

// "DIR", "DURATION", "TEXT:{ast,plan,c}" -> "DIR", "DURATION", "ast|plan|c".
std::string value_name(const CLI::Option *o) {
  std::string t = o->get_type_name();
  size_t open = t.find('{'), close = t.rfind('}');
  if (open != std::string::npos && close != std::string::npos && close > open) {
    std::string choices = t.substr(open + 1, close - open - 1);
    for (char &ch : choices)
      if (ch == ',') ch = '|';
    return choices;
  }
  if (size_t colon = t.find(':'); colon != std::string::npos) t = t.substr(0, colon);
  return t.empty() ? "VALUE" : t;
}

std::string names_roff(const CLI::Option *o) {
  if (!o->nonpositional()) return "\\fI" + roff(o->get_name()) + "\\fR";
  std::vector<std::string> names;
  for (const auto &s : o->get_snames()) names.push_back("\\fB\\-" + roff(s) + "\\fR");
  for (const auto &l : o->get_lnames()) names.push_back("\\fB\\-\\-" + roff(l) + "\\fR");
  std::string out = fmt::format("{}", fmt::join(names, ", "));
  if (takes_value(o)) out += " \\fI" + roff(value_name(o)) + "\\fR";
  return out;
}

void man_command(std::string &out, const CLI::App &cmd) {
  std::string options, positionals;
  for (const CLI::Option *o : shown_options(cmd)) {
    if (o->nonpositional()) options = " [options]";
    else positionals += " " + o->get_name();
  }
  out += fmt::format(".SS \"{}\"\n", roff("bpfbench " + cmd.get_name() + options + positionals));
  out += roff(cmd.get_description()) + "\n";
  for (const CLI::Option *o : shown_options(cmd))
    out += fmt::format(".TP\n{}\n{}\n", names_roff(o), roff(o->get_description()));
}

constexpr const char *kManTail = R"(.SH ENVIRONMENT
.TP
.B BPFBENCH_TEMPLATE_PATH
Colon\-separated folders of extra families, searched after each \fB\-\-templates\fR
folder and the \fIbpf_templates\fR folder next to the file, and before the shipped ones. A
family is taken from the first folder that has it, like a command on \fB$PATH\fR: one of
the same name in a later folder is shadowed, with a note naming both.
.TP
.B BPFBENCH_VMLINUX_BTF
A raw BTF file read instead of \fI/sys/kernel/btf/vmlinux\fR when a template or inline C
includes \fIvmlinux.h\fR: its types are the ones the program compiles against (a test
hook; the program is still relocated against the running kernel when loaded).
.SH FILES
.TP
.I /sys/kernel/btf/vmlinux
The running kernel's BTF: \fIvmlinux.h\fR, the kernel's types for CO\-RE, is generated
from it for a template or inline C that includes it.
.TP
.I $XDG_CACHE_HOME/bpfbench
Compiled BPF objects and precompiled \fIvmlinux.h\fR files, one per kernel BTF (else
\fI~/.cache/bpfbench\fR).
.TP
.I <prefix>/share/bpfbench/templates
The shipped families (one folder each, with \fIfamily.json\fR and \fIprog.bpf.c\fR) and
\fIinclude/bpfbench_shared.h\fR. Found from the running binary's own path
(\fI<prefix>/bin/bpfbench\fR); a build\-tree binary uses the \fIbpf_templates\fR link
next to it.
.TP
.I <dir of FILE>/bpf_templates
Families written next to a .bdsl file are searched too, after the \fB\-\-templates\fR
folders and before \fBBPFBENCH_TEMPLATE_PATH\fR and the shipped families.
.TP
.I <prefix>/share/doc/bpfbench/examples
Example .bdsl files, one per shipped family.
.SH EXIT STATUS
.TP
.B 0
Success.
.TP
.B 1
A point failed an \fBexpect\fR, results files could not be written, or
\fBcompare \-\-fail\-on\-regression\fR found a regression.
.TP
.B 2
Bad input or an unusable environment: a usage error, a .bdsl file, family or results
file with errors, points that failed to load or run, or text that could not be written
to stdout or stderr (a full disk).
.TP
.B 130, 143
Interrupted by SIGINT or SIGTERM.
.SH EXAMPLES
.nf
bpfbench list
bpfbench check /usr/share/doc/bpfbench/examples/trigger.bdsl
sudo bpfbench run \-d 1s \-w 0 \-\-only tp /usr/share/doc/bpfbench/examples/trigger.bdsl
.fi
.SH SEE ALSO
.BR bpftool (8),
.BR bpf (2)
)";

// Which options of `cmd` take a folder, a file, a family/program/param name, or one of a
// fixed set of words; the rest that take a value get nothing offered (a number, a duration).
struct CompletionWords {
  std::vector<std::string> options, valued, dirs, files, families, names;
  std::vector<std::pair<std::string, std::string>> choices;  // option -> "ast plan c"
};

CompletionWords completion_words(const CLI::App &cmd) {
  CompletionWords w;
  for (const CLI::Option *o : shown_options(cmd)) {
    if (!o->nonpositional()) continue;
    std::vector<std::string> names;
    for (const auto &s : o->get_snames()) names.push_back("-" + s);
    for (const auto &l : o->get_lnames()) names.push_back("--" + l);
    w.options.insert(w.options.end(), names.begin(), names.end());
    if (!takes_value(o)) continue;
    std::string v = value_name(o);
    auto &kind = v == "DIR"     ? w.dirs
                 : v == "FILE"  ? w.files
                 : v == "BENCH" ? w.families
                 : v == "LABEL" ? w.names
                                : w.valued;
    kind.insert(kind.end(), names.begin(), names.end());
    if (v.find('|') != std::string::npos) {
      for (char &ch : v)
        if (ch == '|') ch = ' ';
      for (const auto &n : names) w.choices.emplace_back(n, v);
    }
  }
  return w;
}

// What the command's positionals name: a .bdsl FILE (or FILES: ab), .json results
// (compare, plot), a kernel bench name (bench NAME: `kbench`), or none (kernels NAME).
std::string positional_ext(const CLI::App &cmd) {
  for (const CLI::Option *o : shown_options(cmd)) {
    if (o->nonpositional()) continue;
    if (o->get_name() == "FILE" || o->get_name() == "FILES") return "bdsl";
    if (o->get_description().find("esult") != std::string::npos) return "json";
    if (cmd.get_name() == "bench" && o->get_name() == "NAME") return "kbench";
  }
  return "";
}

std::string words(const std::vector<std::string> &v) { return fmt::format("{}", fmt::join(v, " ")); }

constexpr const char *kCompletionBody = R"sh(  local choice=""
  case "$cmd $prev" in
@CHOICES@  esac
  if [[ -n $choice ]]; then COMPREPLY=($(compgen -W "$choice" -- "$cur")); return; fi
  if [[ " $dirs " == *" $prev "* ]]; then COMPREPLY=($(compgen -d -- "$cur")); return; fi
  if [[ " $files " == *" $prev "* ]]; then COMPREPLY=($(compgen -f -- "$cur")); return; fi
  # The families this command would see: the shipped ones, $BPFBENCH_TEMPLATE_PATH and
  # every --templates already typed.
  local t=() i
  for ((i = 2; i < COMP_CWORD - 1; i++)); do
    [[ ${COMP_WORDS[i]} == --templates ]] && t+=(--templates "${COMP_WORDS[i + 1]}")
  done
  # Family names (emit --bench), from `list --json`.
  if [[ " $families " == *" $prev "* ]]; then
    COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" list --json "${t[@]}" 2>/dev/null |
      sed -n 's/^ *"family": "\([^"]*\)".*/\1/p' | sort -u)" -- "$cur"))
    return
  fi
  # Point labels (--only): those of the first .bdsl file on the line (ab: A's), from its
  # `plan --json`; none before a file is typed.
  if [[ " $names " == *" $prev "* ]]; then
    local file=""
    for ((i = 2; i < ${#COMP_WORDS[@]}; i++)); do
      ((i == COMP_CWORD)) && continue
      [[ ${COMP_WORDS[i]} == *.bdsl && -f ${COMP_WORDS[i]/#\~/$HOME} ]] && { file=${COMP_WORDS[i]/#\~/$HOME}; break; }
    done
    [[ -n $file ]] && COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" plan --json "${t[@]}" "$file" 2>/dev/null |
      sed -n 's/^ *"label": "\([^"]*\)".*/\1/p' | sort -u)" -- "$cur"))
    return
  fi
  if [[ " $valued " == *" $prev "* ]]; then return; fi
  if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "$opts" -- "$cur")); return; fi
  # bench NAME: the kernel bench's names, from `bench --list`.
  if [[ $ext == kbench ]]; then
    COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" bench --list 2>/dev/null | sed -n 's/^- //p')" -- "$cur"))
  elif [[ -n $ext ]]; then
    COMPREPLY=($(compgen -f -X "!*.$ext" -- "$cur") $(compgen -d -- "$cur"))
  fi
}
complete -o filenames -F _bpfbench bpfbench
)sh";

// The KINDS section: the same rows and doc column as `bpfbench list --kinds`, kept as
// lines (no fill: the columns line up).
std::string man_kinds() {
  std::string out = ".SH KINDS\nWhat a template folder's family.json may name as its programs' producer, "
                    "consumer, attach and metric source, and the params each reads (also "
                    "\\fBbpfbench list \\-\\-kinds\\fR).\n.PP\n.nf\n";
  std::string text = kinds_reference();
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out += roff(text.substr(start, end - start)) + "\n";
    start = end + 1;
  }
  return out + ".fi\n";
}

}  // namespace

std::string man_page(const CLI::App &app, const std::string &version) {
  std::string out = fmt::format(".TH BPFBENCH 1 \"\" \"bpfbench {}\" \"User Commands\"\n", roff(version));
  out += ".SH NAME\nbpfbench \\- declarative BPF micro\\-benchmarks\n";
  out += ".SH SYNOPSIS\n.B bpfbench\n.I command\n[\\fIoptions\\fR] [\\fIFILE\\fR...]\n";
  out += ".br\n.B bpfbench\n[\\fB\\-\\-help\\fR | \\fB\\-\\-version\\fR]\n";
  out += ".SH DESCRIPTION\n" + roff(app.get_description()) + "\n.PP\n";
  out += "A .bdsl file names benchmark families and the values to sweep; bpfbench generates a BPF "
         "program per point, compiles it in process, loads and runs it, and reports the numbers. "
         "Every command takes \\fB\\-h\\fR, \\fB\\-\\-help\\fR.\n";
  out += ".SH COMMANDS\n";
  for (const CLI::App *cmd : commands(app)) man_command(out, *cmd);
  return out + man_kinds() + kManTail;
}

std::string bash_completion(const CLI::App &app) {
  std::vector<std::string> names;
  std::string cases, choices;
  for (const CLI::App *cmd : commands(app)) {
    names.push_back(cmd->get_name());
    CompletionWords w = completion_words(*cmd);
    cases +=
        fmt::format("    {}) opts='--help {}' valued='{}' dirs='{}' files='{}' families='{}' names='{}' ext='{}' ;;\n",
                    cmd->get_name(), words(w.options), words(w.valued), words(w.dirs), words(w.files),
                    words(w.families), words(w.names), positional_ext(*cmd));
    for (const auto &[opt, list] : w.choices)
      choices += fmt::format("    \"{} {}\") choice='{}' ;;\n", cmd->get_name(), opt, list);
  }
  std::string out = "# bash completion for bpfbench (written by `bpfbench --generate bash-completion`)\n";
  out += "_bpfbench() {\n";
  out += "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]} cmd=${COMP_WORDS[1]}\n";
  out += "  if ((COMP_CWORD == 1)); then\n";
  out +=
      fmt::format("    COMPREPLY=($(compgen -W '{} --help --version' -- \"$cur\"))\n    return\n  fi\n", words(names));
  out += "  local opts='' valued='' dirs='' files='' families='' names='' ext=''\n  case $cmd in\n" + cases;
  out += "    *) return ;;\n  esac\n";
  std::string body = kCompletionBody;
  body.replace(body.find("@CHOICES@"), 9, choices);
  return out + body;
}

std::optional<int> print_generated(const CLI::App &app, int argc, char **argv) {
  if (argc < 2 || std::strcmp(argv[1], "--generate") != 0) return std::nullopt;
  std::string what = argc == 3 ? argv[2] : "";
  if (what == "man") fmt::print("{}", man_page(app, BPFBENCH_VERSION));
  else if (what == "bash-completion") fmt::print("{}", bash_completion(app));
  else {
    fmt::print(stderr, "bpfbench: error: --generate takes man or bash-completion\n");
    return 2;
  }
  return 0;
}

}  // namespace bpfbench::cli
