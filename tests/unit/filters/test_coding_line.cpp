// Python's coding declarations: which make the code Python runs differ from the text shown.
#include "filters/coding_line.hpp"

#include <doctest/doctest.h>

using ws::filters::recoding_declaration;

TEST_CASE("filters::recoding_declaration finds codecs that do not read ASCII as it is") {
  CHECK(recoding_declaration("# -*- coding: utf-7 -*-\nprint(1)\n"));
  CHECK(recoding_declaration("#!/usr/bin/env python3\n# coding=unicode_escape\n"));
  CHECK(recoding_declaration("# vim: set fileencoding=raw-unicode-escape :\n"));
  CHECK(recoding_declaration("  \t# coding: UTF_7\n"));
  CHECK(recoding_declaration("# coding: shift_jis\n")); // a trail byte may be a backslash
  CHECK(recoding_declaration("# coding: punycode\n"));
}

TEST_CASE("filters::recoding_declaration leaves UTF-8, ASCII and single-byte code pages") {
  CHECK_FALSE(recoding_declaration("# -*- coding: utf-8 -*-\n"));
  CHECK_FALSE(recoding_declaration("# coding=UTF8\n"));
  CHECK_FALSE(recoding_declaration("# coding: latin-1\n"));
  CHECK_FALSE(recoding_declaration("# coding: iso-8859-15\n"));
  CHECK_FALSE(recoding_declaration("# coding: cp1252\n"));
  CHECK_FALSE(recoding_declaration("# coding: ascii\n"));
  CHECK_FALSE(recoding_declaration("print(1)\n"));
  // Only the first two lines count, and only in a comment.
  CHECK_FALSE(recoding_declaration("import os\nx = 1\n# coding: utf-7\n"));
  CHECK_FALSE(recoding_declaration("s = '# coding: utf-7'\n"));
  CHECK_FALSE(recoding_declaration("# codings: utf-7\n"));
  // A UTF-8 byte order mark: Python refuses any other declaration.
  CHECK_FALSE(recoding_declaration("\xEF\xBB\xBF# coding: utf-7\n"));
}
