# doctest's CMake helper (doctest_discover_tests), from Debian's doctest-dev.
include(/usr/lib/cmake/doctest/doctest.cmake)
