# What `cmake --install build [--prefix DIR]` puts where, and the .deb CPack makes of it
# (cpack --config build/CPackConfig.cmake). The man pages and shell completions are written
# by the ws just built, from the command line definition its parser uses (ws __man,
# ws __complete), so they cannot drift from what ws accepts.
include(GNUInstallDirs)

set(WS_GENERATED_DOCS ${PROJECT_BINARY_DIR}/share)
# (a sanitizer build's ws runs here too: leaks of one-shot generation are no build failure)
set(WS_RUN_BUILT ${CMAKE_COMMAND} -E env ASAN_OPTIONS=detect_leaks=0 $<TARGET_FILE:ws>)
add_custom_command(
  OUTPUT ${WS_GENERATED_DOCS}/man1/ws.1 ${WS_GENERATED_DOCS}/ws.bash ${WS_GENERATED_DOCS}/_ws
         ${WS_GENERATED_DOCS}/ws.fish
  COMMAND ${CMAKE_COMMAND} -E rm -rf ${WS_GENERATED_DOCS}/man1
  COMMAND ${WS_RUN_BUILT} __man ${WS_GENERATED_DOCS}/man1
  COMMAND ${WS_RUN_BUILT} __complete bash ${WS_GENERATED_DOCS}/ws.bash
  COMMAND ${WS_RUN_BUILT} __complete zsh ${WS_GENERATED_DOCS}/_ws
  COMMAND ${WS_RUN_BUILT} __complete fish ${WS_GENERATED_DOCS}/ws.fish
  DEPENDS ws
  COMMENT "Generating ws's man pages and shell completions"
  VERBATIM)
add_custom_target(ws_docs ALL
  DEPENDS ${WS_GENERATED_DOCS}/man1/ws.1 ${WS_GENERATED_DOCS}/ws.bash ${WS_GENERATED_DOCS}/_ws
          ${WS_GENERATED_DOCS}/ws.fish)

# ws-init beside ws: the sandbox's first process (ws falls back to itself without it);
# ws-fsmonitor beside ws: git's core.fsmonitor hook in a view (docs/fsmonitor.md).
install(TARGETS ws ws-init ws-fsmonitor RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${WS_GENERATED_DOCS}/man1 DESTINATION ${CMAKE_INSTALL_MANDIR}
        FILES_MATCHING PATTERN "*.1")
# bash-completion loads share/bash-completion/completions/ws on demand, also under
# ~/.local (its user directory) and next to the ws found in PATH.
install(FILES ${WS_GENERATED_DOCS}/ws.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME ws)
# zsh: Debian's zsh reads packages' completions from /usr/share/zsh/vendor-completions and
# local ones from /usr/local/share/zsh/site-functions; decided at install time, when the
# prefix is known (cmake --install --prefix, CPack's /usr).
install(CODE "set(WS_ZSH_DIR share/zsh/site-functions)
  if(CMAKE_INSTALL_PREFIX STREQUAL \"/usr\")
    set(WS_ZSH_DIR share/zsh/vendor-completions)
  endif()")
install(FILES ${WS_GENERATED_DOCS}/_ws DESTINATION \${WS_ZSH_DIR})
install(FILES ${WS_GENERATED_DOCS}/ws.fish
        DESTINATION ${CMAKE_INSTALL_DATADIR}/fish/vendor_completions.d)
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})

# The Debian package: runtime programs by name, shared libraries found by dpkg-shlibdeps.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME ws)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "hand a git project to an AI coding agent without handing over the project")
set(CPACK_PACKAGE_DESCRIPTION
    "ws gives an agent a copy-on-write FUSE view of a git project, confines it with\n\
bubblewrap, Landlock and seccomp, journals every write, and lands only what you\n\
reviewed in your real tree.")
set(CPACK_PACKAGE_CONTACT "ws maintainers <ws@localhost>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# fusermount3 (fuse3) mounts views for normal users; bwrap and slirp4netns build ws run's
# sandbox and its network; git is what the person and the agent work with.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "fuse3, bubblewrap, slirp4netns, git")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "bash-completion")
set(CPACK_STRIP_FILES ON)
include(CPack)
