#include "compiler/bpf/object_check.hpp"

#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>

#include "compiler/family/manifest_fields.hpp"

namespace bpfbench {

namespace {

// Whether `ref` is read by the points of `program` (runtime/run_point.cpp: the effective
// metrics, the family's and the program's setup actions, map_size params, per_cpu).
bool applies(const ObjectRef &ref, const FamilyManifest &f, const std::string &program) {
  if (!ref.program.empty()) return ref.program == program;
  if (ref.metric.empty()) return true;
  const ProgramSpec *p = f.program(program);
  return !p || !p->metric_sources.count(ref.metric);
}

// Where the runtime looks: counters in .bss (runtime/counters.cpp), maps by name among the
// object's maps, which libbpf makes of the `.maps` section's symbols.
const char *section_of(ObjectRef::Kind k) { return k == ObjectRef::Kind::Counter ? ".bss" : ".maps"; }

}  // namespace

Result<std::map<std::string, std::string>> read_object_globals(const std::vector<uint8_t> &elf) {
  llvm::MemoryBufferRef buf(llvm::StringRef(reinterpret_cast<const char *>(elf.data()), elf.size()), "bpf object");
  auto obj = llvm::object::ObjectFile::createObjectFile(buf);
  if (!obj) return Error(llvm::toString(obj.takeError()));
  std::map<std::string, std::string> out;
  for (const llvm::object::SymbolRef &sym : (*obj)->symbols()) {
    auto type = sym.getType();
    auto name = sym.getName();
    auto sec = sym.getSection();
    if (!type || !name || !sec) {  // a symbol LLVM cannot read is none the runtime finds
      if (!type) llvm::consumeError(type.takeError());
      if (!name) llvm::consumeError(name.takeError());
      if (!sec) llvm::consumeError(sec.takeError());
      continue;
    }
    if (*type == llvm::object::SymbolRef::ST_Function || *type == llvm::object::SymbolRef::ST_File ||
        *type == llvm::object::SymbolRef::ST_Debug || name->empty() || *sec == (*obj)->section_end())
      continue;
    auto sec_name = (*sec)->getName();
    if (!sec_name) {
      llvm::consumeError(sec_name.takeError());
      continue;
    }
    out.emplace(name->str(), sec_name->str());
  }
  return out;
}

void ObjectRefChecker::check(const FamilyManifest &f, const std::string &program, const std::vector<uint8_t> &elf,
                             const std::string &object_name) {
  auto globals = read_object_globals(elf);
  if (!globals) {
    diags_.error(SourceRange{},
                 "cannot read the symbols of the compiled object " + object_name + ": " + globals.error().message);
    return;
  }
  for (size_t i = 0; i < f.object_refs.size(); ++i) {
    const ObjectRef &ref = f.object_refs[i];
    if (!applies(ref, f, program) || reported_.count({f.name, i})) continue;
    auto it = globals->find(ref.name);
    if (it != globals->end() && it->second == section_of(ref.kind)) continue;
    reported_.insert({f.name, i});
    report(f, i, *globals, object_name);
  }
}

void ObjectRefChecker::report(const FamilyManifest &f, size_t i, const std::map<std::string, std::string> &globals,
                              const std::string &object_name) {
  const ObjectRef &ref = f.object_refs[i];
  // The manifest joins the sources the first time one of its names is reported (a clean
  // load does not keep it there).
  auto file = files_.find(f.name);
  if (file == files_.end()) file = files_.emplace(f.name, sources_.add(f.manifest_path, f.manifest_text)).first;
  SourceRange at = ref.at;
  at.file = file->second;

  const bool counter = ref.kind == ObjectRef::Kind::Counter;
  const std::string what = counter ? "counter" : "map";
  const std::string sec = section_of(ref.kind);
  std::string msg = ref.where + ": ";
  std::vector<std::string> candidates;
  for (const auto &[name, s] : globals)
    if (s == sec) candidates.push_back(name);
  auto it = globals.find(ref.name);
  if (it != globals.end())
    msg += what + " '" + ref.name + "' is in " + it->second + ", not " + sec +
           (counter ? " (a counter is a zero-initialized `struct bb_counter` array)" : "");
  else if (counter)
    msg += "no counter '" + ref.name + "' in the compiled object " + object_name + " (no such global in its .bss)";
  else msg += "no map '" + ref.name + "' in the compiled object " + object_name;
  // Hints only for a name that is nowhere: the nearest one, or the few there are.
  std::vector<std::string> hints;
  const bool nowhere = it == globals.end();
  const std::string close = nowhere ? did_you_mean(ref.name, candidates) : "";
  if (!close.empty()) hints.push_back("did you mean '" + close + "'?");
  else if (nowhere && !candidates.empty() && candidates.size() <= 8)
    hints.push_back("its " + sec + " " + (counter ? "globals" : "maps") + ": " + join_names(candidates, ", "));
  diags_.error(at, msg, hints);
}

}  // namespace bpfbench
