# `cmake --install build [--prefix P]` and `cpack -G DEB` (scripts/build-deb.sh): what goes
# where, and what the Debian package needs on the machine it is installed on.
include(GNUInstallDirs)

# The man page and the bash completion come from the CLI's own option tree (cli/cli_docs.cpp),
# so they list exactly what --help does.
set(BPFBENCH_GEN_DIR ${CMAKE_BINARY_DIR}/doc)
add_custom_command(
  OUTPUT ${BPFBENCH_GEN_DIR}/bpfbench.1 ${BPFBENCH_GEN_DIR}/bpfbench.bash
  COMMAND ${CMAKE_COMMAND} -E make_directory ${BPFBENCH_GEN_DIR}
  COMMAND sh -c "\"$1\" --generate man > \"$2\" && \"$1\" --generate bash-completion > \"$3\"" sh
    $<TARGET_FILE:bpfbench> ${BPFBENCH_GEN_DIR}/bpfbench.1 ${BPFBENCH_GEN_DIR}/bpfbench.bash
  DEPENDS bpfbench
  COMMENT "Writing bpfbench.1 and the bash completion from the CLI"
  VERBATIM)
add_custom_target(bpfbench_docs ALL DEPENDS ${BPFBENCH_GEN_DIR}/bpfbench.1 ${BPFBENCH_GEN_DIR}/bpfbench.bash)

# The binary finds share/bpfbench/templates as ../share/bpfbench/templates from its own
# folder, so the two must stay siblings under one prefix (bin, share: not configurable).
install(TARGETS bpfbench RUNTIME DESTINATION bin)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/bpf_templates/ DESTINATION share/bpfbench/templates)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/examples DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${CMAKE_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${BPFBENCH_GEN_DIR}/bpfbench.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${BPFBENCH_GEN_DIR}/bpfbench.bash DESTINATION share/bash-completion/completions RENAME bpfbench)

# --- the Debian package ------------------------------------------------------------------
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME bpfbench)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "bpfbench maintainers <bpfbench@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "declarative BPF micro-benchmarks")
set(CPACK_PACKAGE_DESCRIPTION "A .bdsl file describes what to measure; bpfbench generates BPF C from family
templates, compiles it in process with clang/LLVM 19, loads and runs it with libbpf and
reports the numbers with confidence intervals.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# The shared libraries (libbpf1, libclang-cpp19, libllvm19, libfmt9, libstdc++6, libc6, ...)
# come from dpkg-shlibdeps on the binary.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# What the in-process compile reads at run time (tests/install/test_deb.sh): linux/bpf.h and
# asm/ (linux-libc-dev), bpf/bpf_helpers.h (libbpf-dev); without them no program compiles.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "linux-libc-dev, libbpf-dev")
# clang's own headers (-resource-dir /usr/lib/llvm-19/lib/clang/19: stdbool.h, stddef.h,
# stdarg.h) are not read by the shipped families (every example compiles with that folder
# hidden), only by a family of the user's that includes one.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libclang-common-19-dev")
# plot needs gnuplot; --kernel boots guests with qemu and a static busybox.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "gnuplot-nox, qemu-system-x86, busybox-static, xz-utils, zstd")
include(CPack)
