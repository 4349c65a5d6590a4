// Helpers of the kernel-matrix tests: synthetic kernel modules, temp folders, running bpfbench.
#pragma once

#include <elf.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "vm/process.hpp"

#include "../unit/scoped_env.hpp"
#include "../unit/temp_dir.hpp"

namespace bpfbench::test {

// A minimal ELF64 relocatable with a .modinfo section (what modinfo_depends reads).
inline std::string fake_module(const std::string &name, const std::string &depends) {
  std::string modinfo = "license=GPL" + std::string(1, '\0') + "depends=" + depends + std::string(1, '\0') +
                        "name=" + name + std::string(1, '\0');
  std::string shstr = std::string(1, '\0') + ".modinfo" + std::string(1, '\0') + ".shstrtab" + std::string(1, '\0');
  Elf64_Ehdr eh{};
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_type = ET_REL;
  eh.e_machine = EM_X86_64;
  eh.e_ehsize = sizeof eh;
  eh.e_shentsize = sizeof(Elf64_Shdr);
  eh.e_shnum = 3;
  eh.e_shstrndx = 2;
  size_t modinfo_at = sizeof eh, shstr_at = modinfo_at + modinfo.size();
  eh.e_shoff = shstr_at + shstr.size();
  Elf64_Shdr sh[3]{};
  sh[1].sh_name = 1;
  sh[1].sh_type = SHT_PROGBITS;
  sh[1].sh_offset = modinfo_at;
  sh[1].sh_size = modinfo.size();
  sh[2].sh_name = 10;
  sh[2].sh_type = SHT_STRTAB;
  sh[2].sh_offset = shstr_at;
  sh[2].sh_size = shstr.size();
  std::string out(reinterpret_cast<const char *>(&eh), sizeof eh);
  out += modinfo + shstr;
  out.append(reinterpret_cast<const char *>(sh), sizeof sh);
  return out;
}


inline std::string read_text(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace bpfbench::test
