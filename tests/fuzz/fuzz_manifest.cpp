// libFuzzer target: the family.json reader (parse_manifest: JSON, every block reader, the
// template it names) on arbitrary bytes, as the family.json of a template folder the
// harness made. Beside the folder lies a secret file, and the folder holds links to it (a
// relative one climbing out, an absolute one) and one to a file inside: whatever the input
// names, the secret's text must never be read into a template or shown in an error, no
// error may carry nlohmann's exception text, and a manifest read without errors has its
// template inside the folder.
#include <stdlib.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "compiler/bdsl/diagnostics.hpp"
#include "compiler/family/manifest.hpp"
#include "compiler/family/manifest_json.hpp"

using namespace bpfbench;
namespace fs = std::filesystem;

namespace {

constexpr const char *kSecret = "BPFBENCH-FUZZ-SECRET";

[[noreturn]] void fail(const char *what, const std::string &text) {
  std::fprintf(stderr, "fuzz_manifest: %s\n%.4000s\n", what, text.c_str());
  std::abort();
}

void write(const fs::path &p, const std::string &text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
}

// The scratch template folder, made once (a static is fine in a fuzz harness): every
// shipped family's folder with its prog.bpf.c (so a seed passes the folder-name and
// function checks), and `fam/` with the links. Removed at a normal exit.
struct Scratch {
  fs::path top, root;  // root: canonical, as FamilyRegistry::load resolves it
  std::set<std::string> families;

  Scratch() {
    const char *tmpdir = std::getenv("TMPDIR");  // fuzz.sh: its work folder, kept on a finding
    std::string tmpl = std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/bpfbench-fuzz-manifest-XXXXXX";
    if (!::mkdtemp(tmpl.data())) fail("mkdtemp failed", tmpl);
    top = fs::canonical(tmpl);
    root = top / "tpl";
    std::error_code ec;
    for (const auto &dir : default_template_dirs())
      for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        if (fs::is_regular_file(it->path() / "prog.bpf.c")) {
          fs::create_directories(root / it->path().filename());
          fs::copy_file(it->path() / "prog.bpf.c", root / it->path().filename() / "prog.bpf.c");
          families.insert(it->path().filename().string());
        }
    if (families.empty()) fail("no shipped families found", "");
    write(top / "outside/secret.c", std::string(kSecret) + "\n");
    write(root / "fam/prog.bpf.c", "int bench_x(void *ctx) { return 0; }\n");
    fs::create_symlink("../../outside/secret.c", root / "fam/out.c");
    fs::create_symlink(top / "outside/secret.c", root / "fam/abs.c");
    fs::create_symlink("/proc/self/environ", root / "fam/env.c");
    fs::create_symlink("../trigger/prog.bpf.c", root / "fam/in.c");
    families.insert("fam");
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(top, ec);
  }
};

const Scratch &scratch() {
  static const Scratch s;
  return s;
}

// The folder the input is the family.json of: the one its "family" names, when the
// harness made it (seeds keep their own name), else `fam`.
std::string family_folder(const std::string &text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false, true);
  if (j.is_object())
    if (auto it = j.find("family"); it != j.end() && it->is_string())
      if (scratch().families.count(it->get<std::string>())) return it->get<std::string>();
  return "fam";
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  scratch();
  ::setenv("BPFBENCH_FUZZ_ENV", kSecret, 1);  // /proc/self/environ holds the secret too
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  const Scratch &s = scratch();
  std::string path = (s.root / family_folder(text) / "family.json").string();
  SourceManager sm;
  Diagnostics diags;
  std::optional<FamilyManifest> f = parse_manifest(path, text, sm, diags, s.root.string());
  std::string shown = render_all(diags, sm);
  // The renderer shows the input's own lines, and messages quote its strings: text the
  // input holds itself proves nothing.
  auto shown_from_elsewhere = [&](const char *needle) {
    return shown.find(needle) != std::string::npos && text.find(needle) == std::string::npos;
  };
  if (shown_from_elsewhere("json.exception")) fail("nlohmann's exception text in a message", shown);
  if (shown_from_elsewhere("cannot read manifest: ")) fail("an exception escaped a reader", shown);
  if (shown_from_elsewhere(kSecret)) fail("a secret from outside the folder is shown", shown);
  if (f) {
    if (diags.has_errors()) fail("a manifest with errors was returned", shown);
    if (f->template_text.find(kSecret) != std::string::npos) fail("the template is the secret", f->template_path);
    if (!f->template_path.starts_with(s.root.string() + "/")) fail("a template outside the folder", f->template_path);
  } else if (!diags.has_errors()) {
    fail("no manifest and no error", text);
  }
  return 0;
}
