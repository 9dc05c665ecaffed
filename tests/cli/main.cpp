// Main of the command-line tests: the ws binary as a person meets it, no mounts.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
