#pragma once
// Python's source coding declaration (PEP 263): a file whose first lines say
// `# -*- coding: utf-7 -*-` (or unicode_escape, raw_unicode_escape...) is decoded by Python
// through that codec, so `+AAo-` or `\n` inside a comment become line breaks and the code that
// runs is not the text a review shows. Only codecs under which every ASCII byte stands for
// itself keep the two the same.

#include <string_view>

namespace ws::filters {

/// True when the first two lines of `head` hold a coding declaration as Python's tokenizer
/// finds it (`^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)`) that names a codec other than UTF-8,
/// ASCII or a single-byte ISO 8859 or Windows code page.
bool recoding_declaration(std::string_view head);

} // namespace ws::filters
