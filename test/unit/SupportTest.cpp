//===- SupportTest.cpp - Names, diagnostics, JSON locations ---------------===//
#include "wirc/graph/JsonLocator.h"
#include "wirc/support/Diagnostics.h"
#include "wirc/support/Names.h"
#include "wirc/support/BuryPointer.h"
#include "wirc/support/Json.h"
#include "wirc/support/OutOfLine.h"
#include "wirc/support/PagePopulator.h"
#include "wirc/support/Parallel.h"
#include "wirc/support/Timing.h"

#include "../../lib/emit/FxNames.h"
#include "../../lib/emit/PythonText.h"
#include "TestUtil.h"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <cstring>
#include <random>

#include <string>
#include <type_traits>
#include <vector>

using namespace wirc;

TEST_CASE("indices in names have one spelling", "[names]") {
  CHECK(parseCanonicalIndex("0") == 0u);
  CHECK(parseCanonicalIndex("7") == 7u);
  CHECK(parseCanonicalIndex("4095", 4) == 4095u);
  CHECK(parseCanonicalIndex("999999999") == 999999999u);
  for (const char *bad : {"", "00", "07", "-1", "+1", "1a", " 1", "1 ", "1.0", "0x1"})
    CHECK_FALSE(parseCanonicalIndex(bad));
  CHECK_FALSE(parseCanonicalIndex("10000", 4));
  CHECK_FALSE(parseCanonicalIndex("1000000000"));
}

TEST_CASE("identifiers that may reach emitted code", "[names]") {
  CHECK_FALSE(checkIdentifier("buf0"));
  CHECK_FALSE(checkIdentifier("arg0_1"));
  CHECK_FALSE(checkIdentifier("_tensor_constant0"));
  CHECK_FALSE(checkIdentifier("triton_poi_fused_add_0"));
  CHECK(*checkIdentifier("") == "is empty");
  CHECK(checkIdentifier("0buf"));
  CHECK(checkIdentifier("buf-0"));
  CHECK(checkIdentifier("buf 0"));
  CHECK(checkIdentifier("buf'0"));
  CHECK(checkIdentifier("buf\n0"));
  CHECK(checkIdentifier("b\xc3\xa9"));
  CHECK(*checkIdentifier("lambda") == "is a Python keyword");
  CHECK(*checkIdentifier("None") == "is a Python keyword");
  CHECK(*checkIdentifier("namespace") == "is a C++ keyword");
  CHECK(*checkIdentifier("args") == "is reserved for the emitted wrapper's own names");
  CHECK(*checkIdentifier("stream0") == "is reserved for the emitted wrapper's own names");
  CHECK(checkIdentifier("__init__"));
  CHECK(checkIdentifier("wirc_tmp"));
  CHECK(checkIdentifier(std::string(300, 'a')));
  CHECK_FALSE(checkIdentifier(std::string(256, 'a')));
}

TEST_CASE("identifier rules hold on names with and without the common shape", "[names]") {
  // Over this alphabet no keyword or wrapper name can be spelled, so the rules
  // left are: non-empty, no leading digit, no '__' or 'wirc_' prefix. Names
  // starting with '_' or 'w' and ending in a letter take the full check, the
  // rest the shortcut for names like buf12: both must agree with the rules.
  const std::string alphabet = "abwirc_01";
  std::mt19937 rng(7);
  for (int n = 0; n < 20000; ++n) {
    static const char *const kPrefixes[] = {"", "", "wirc_", "__", "_", "w", "0"};
    std::string name = kPrefixes[rng() % std::size(kPrefixes)];
    size_t length = rng() % 9;
    for (size_t i = 0; i < length; ++i)
      name += alphabet[rng() % alphabet.size()];
    bool valid = !name.empty() && !(name[0] >= '0' && name[0] <= '9') &&
                 !name.starts_with("__") && !name.starts_with("wirc_");
    INFO(name);
    CHECK(!checkIdentifier(name) == valid);
    CHECK(!checkKeywordName(name) == (valid || name.starts_with("wirc_")));
  }
  CHECK(*checkIdentifier("wirc_buf0") == "starts with 'wirc_', which is reserved for wirc");
  CHECK(*checkIdentifier("__buf0") == "starts with '__', which is reserved");
  CHECK(*checkIdentifier("buf\x80" "0") == "is not an identifier ([A-Za-z_][A-Za-z0-9_]*)");
  CHECK(*checkIdentifier(std::string(257, 'b') + "0") == "is longer than 256 characters");
}

TEST_CASE("python string literals cannot be escaped from", "[names]") {
  CHECK(pythonStringLiteral("abc") == "'abc'");
  CHECK(pythonStringLiteral("it's") == "'it\\'s'");
  CHECK(pythonStringLiteral("a\\b") == "'a\\\\b'");
  CHECK(pythonStringLiteral("''') + os.system('x") == "'\\'\\'\\') + os.system(\\'x'");
  CHECK(pythonStringLiteral("line\nnext") == "'line\\nnext'");
  CHECK(pythonStringLiteral("\xc3\xa9") == "'\\xc3\\xa9'");
  CHECK(pythonStringLiteral(std::string("\0", 1)) == "'\\x00'");
}

TEST_CASE("kernel sources and comments escape like a byte-at-a-time escaper", "[names]") {
  // The escapers skip plain runs sixteen bytes at a time; the reference
  // looks at every byte. Every byte value is tried at every position of a
  // 16-byte block, after and before plain text, and at the end.
  auto sourceRef = [](std::string_view s) {
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
      unsigned char c = static_cast<unsigned char>(s[i]);
      if (c == '\\')
        out += "\\\\";
      else if (c == '\'')
        out += i + 1 == s.size() || s[i + 1] == '\'' ? "\\'" : "'";
      else if (c == '\r')
        out += "\\r";
      else if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
        out += fmt::format("\\x{:02x}", c);
      else
        out += static_cast<char>(c);
    }
    return out;
  };
  auto commentRef = [](std::string_view s) {
    std::string out;
    for (unsigned char c : s)
      if (c < 0x20 || c == 0x7f)
        out += fmt::format("\\x{:02x}", c);
      else
        out += static_cast<char>(c);
    return out;
  };
  const std::string plain = "tl.load(in_ptr0 + x0, xmask) # \xc3\xa9 done";
  for (unsigned b = 0; b < 256; ++b) {
    for (size_t at = 0; at < 40; ++at) {
      for (size_t tail : {size_t(0), size_t(1), size_t(17)}) {
        std::string text = plain.substr(0, std::min(at, plain.size()));
        text.append(at > plain.size() ? at - plain.size() : 0, 'x');
        text += static_cast<char>(b);
        text += plain.substr(0, tail);
        INFO("byte " << b << " at " << at << " before " << tail);
        REQUIRE(wirc::emit::tripleQuotedBody(text) == sourceRef(text));
        REQUIRE(wirc::emit::commentText(text) == commentRef(text));
        std::string appended = "# ";
        wirc::emit::appendCommentText(appended, text);
        REQUIRE(appended == "# " + commentRef(text));
      }
    }
  }
}

TEST_CASE("diagnostic formatting", "[diagnostics]") {
  Diagnostic d;
  d.file = "g.json";
  d.pos = {3, 7};
  d.pointer = "/nodes/0";
  d.message = "unknown kernel 'k'";
  CHECK(formatDiagnostic(d) == "g.json:3:7: error: unknown kernel 'k' (at /nodes/0)");
  d.pos = {};
  CHECK(formatDiagnostic(d) == "g.json: error: unknown kernel 'k' (at /nodes/0)");
  Diagnostic bare;
  bare.message = "cannot open 'x'";
  CHECK(formatDiagnostic(bare) == "wirc: error: cannot open 'x'");
}

TEST_CASE("diagnostic engine caps what it reports", "[diagnostics]") {
  unsigned reported = 0;
  DiagnosticEngine diag([&](const Diagnostic &) { ++reported; });
  for (int i = 0; i < 100; ++i)
    diag.error("", "bad");
  CHECK(diag.numErrors() == 100);
  CHECK(reported == DiagnosticEngine::kMaxReportedErrors);
}

TEST_CASE("JSON pointers resolve to line and column", "[locator]") {
  std::string text = "{\n  \"a\": [1, {\"b\": \"x\"}],\n  \"c~/d\": {\"e\": null}\n}\n";
  auto at = [&](std::string_view pointer) {
    SourcePos pos = graph::locateJsonPointer(text, pointer);
    return std::pair{pos.line, pos.column};
  };
  CHECK(at("") == std::pair{1u, 1u});
  CHECK(at("/a") == std::pair{2u, 8u});
  CHECK(at("/a/0") == std::pair{2u, 9u});
  CHECK(at("/a/1") == std::pair{2u, 12u});
  CHECK(at("/a/1/b") == std::pair{2u, 18u});
  CHECK(at("/c~0~1d/e") == std::pair{3u, 17u});
  // A missing member resolves to the deepest value that exists.
  CHECK(at("/a/7") == std::pair{2u, 8u});
  CHECK(at("/zzz/0") == std::pair{1u, 1u});
}

TEST_CASE("the locator terminates on any text", "[locator]") {
  for (std::string text : {"", "{", "[[[[", "{\"a\":", "\"unterminated", "{\"a\" 1}", "]]]]}}}}"}) {
    SourcePos pos = graph::locateJsonPointer(text, "/a/0/b");
    CHECK(pos.line >= 1);
  }
}

TEST_CASE("runParts runs every part once and rethrows the first part's failure", "[threads]") {
  for (size_t n : {0u, 1u, 2u, 7u}) {
    std::vector<std::atomic<int>> runs(n);
    runParts(n, [&](size_t p) { ++runs[p]; });
    for (size_t p = 0; p < n; ++p)
      CHECK(runs[p] == 1);
  }
  // Parts 1 and 3 throw; part 1's exception comes out, after every part ran.
  std::atomic<int> done{0};
  try {
    runParts(5, [&](size_t p) {
      ++done;
      if (p == 1 || p == 3)
        throw std::runtime_error("part " + std::to_string(p));
    });
    FAIL("no exception");
  } catch (const std::runtime_error &e) {
    CHECK(std::string(e.what()) == "part 1");
  }
  CHECK(done == 5);
}

TEST_CASE("members held out of line copy deeply and move without throwing", "[outofline]") {
  // Lines and nodes move inside vectors: a move that could throw would make
  // every reallocation copy them.
  STATIC_REQUIRE(std::is_nothrow_move_constructible_v<Boxed<std::string>>);
  STATIC_REQUIRE(std::is_nothrow_move_constructible_v<OutOfLine<std::string>>);

  Boxed<std::vector<int>> a;
  CHECK(a->empty()); // never empty: a default value is there
  a->push_back(1);
  Boxed<std::vector<int>> b = a;
  b->push_back(2);
  CHECK(*a == std::vector<int>{1});
  CHECK(*b == std::vector<int>{1, 2});
  a = b;
  b->push_back(3);
  CHECK(a->size() == 2);

  Boxed<std::vector<int>> c = std::move(b);
  CHECK(c->size() == 3);
  b = std::vector<int>{7}; // a moved-from box takes a value again
  CHECK(*b == std::vector<int>{7});
  const std::vector<int> &view = c;
  CHECK(view.size() == 3);

  OutOfLine<std::string> x, y;
  CHECK(x == y);
  x = std::string("grid");
  CHECK_FALSE(x == y);
  y = x;
  CHECK(x == y);
  *y += "s";
  CHECK(*x == "grid");
  CHECK_FALSE(x == y);
  y.reset();
  CHECK_FALSE(y.has_value());
}

TEST_CASE("the page populator faults pages in without touching their contents", "[populate]") {
  const size_t size = size_t(32) << 20;
  void *mapped = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(mapped != MAP_FAILED);
  auto *bytes = static_cast<unsigned char *>(mapped);
  const size_t filled = size_t(1) << 20;
  std::memset(bytes, 0xA5, filled);
  {
    PagePopulator populator(size_t(8) << 20);
    populator.report(0, bytes, filled, size);
    // Give it a moment; on a system without MADV_POPULATE_WRITE it does
    // nothing, which is allowed.
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (populator.populatedBytes() < (size_t(8) << 20) - 4096 &&
           std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    CHECK(populator.populatedBytes() <= (size_t(8) << 20)); // never past the window
    // The filler moves on; what it wrote and what it has not are as they were.
    std::memset(bytes + filled, 0x5A, filled);
    populator.report(0, bytes, 2 * filled, size);
  }
  auto all = [&](size_t from, size_t to, unsigned char value) {
    return std::all_of(bytes + from, bytes + to, [&](unsigned char b) { return b == value; });
  };
  CHECK(all(0, filled, 0xA5));
  CHECK(all(filled, 2 * filled, 0x5A));
  CHECK(all(2 * filled, size, 0));
  ::munmap(mapped, size);

  // Stopped before any report: nothing to join on but its own thread.
  PagePopulator idle(4096);
  CHECK(idle.populatedBytes() == 0);
}

TEST_CASE("a large document parses the same with its pages populated", "[populate][json]") {
  // Over the size from which the parser populates (16 MB).
  std::string text = "[";
  for (int i = 0; text.size() < (size_t(20) << 20); ++i)
    text += std::string(i ? "," : "") + R"({"op": "kernel_call", "args": [{"buffer": "buf)" +
            std::to_string(i) + R"("}, 1.5, null, true], "n": )" + std::to_string(i) + "}";
  text += "]";
  json::ParseError e1, e2;
  auto plain = json::Document::parse(text, 64, e1, false);
  auto populated = json::Document::parse(text, 64, e2, true);
  REQUIRE(plain);
  REQUIRE(populated);
  json::Value a = plain->root(), b = populated->root();
  REQUIRE(a.size() == b.size());
  REQUIRE(a.size() > 100000);
  for (size_t i = 0; i < a.size(); i += 997) {
    INFO(i);
    CHECK(a[i].find("n")->getInt() == static_cast<int64_t>(i));
    CHECK(b[i].find("n")->getInt() == static_cast<int64_t>(i));
    CHECK((*b[i].find("args"))[0].find("buffer")->str() == "buf" + std::to_string(i));
    CHECK((*b[i].find("args"))[1].getDouble() == 1.5);
  }
}

namespace {

/// Fails (with where) unless \p a and \p b hold the same values in the same
/// order: what the reader can see of a document.
void requireSameValue(json::Value a, json::Value b, const std::string &where = "") {
  INFO(where);
  REQUIRE(a.type() == b.type());
  REQUIRE(a.size() == b.size());
  switch (a.type()) {
  case json::Kind::array:
    for (size_t i = 0; i < a.size(); ++i)
      requireSameValue(a[i], b[i], where + "/" + std::to_string(i));
    break;
  case json::Kind::object:
    for (size_t i = 0; i < a.size(); ++i) {
      REQUIRE(a.member(i).key() == b.member(i).key());
      requireSameValue(a.member(i).value(), b.member(i).value(),
                       where + "/" + std::string(a.member(i).key()));
    }
    break;
  case json::Kind::boolean:
    REQUIRE(a.getBool() == b.getBool());
    break;
  case json::Kind::number_integer:
    REQUIRE(a.getInt() == b.getInt());
    REQUIRE(a.str() == b.str());
    break;
  case json::Kind::number_unsigned:
  case json::Kind::number_float:
    REQUIRE(a.getDouble() == b.getDouble());
    REQUIRE(a.str() == b.str());
    break;
  case json::Kind::string:
    REQUIRE(a.str() == b.str());
    break;
  case json::Kind::null:
    break;
  }
}

/// Parse options that split even a small text into parts of a few hundred
/// bytes, on \p threads threads.
json::ParseOptions inParts(unsigned threads, unsigned maxDepth = 64) {
  json::ParseOptions options;
  options.maxDepth = maxDepth;
  options.threads = threads;
  options.partsFrom = 0;
  options.minPartBytes = 200;
  return options;
}

/// A document of \p records records a line, in the shapes graph documents
/// have: nested arrays and objects, escapes, every kind of number; \p
/// indent puts members on lines of their own, so that parts also start in
/// arrays within records.
std::string recordLines(size_t records, bool indent, unsigned seed) {
  std::mt19937 random(seed);
  std::string nl = indent ? "\n  " : "";
  std::string text = "{\"format\": \"wirc.graph\",\n\"buffers\": [\n";
  for (size_t i = 0; i < records; ++i) {
    text += fmt::format("{{\"name\": \"buf{}\",{}\"size\": [{}, \"s0*{}\"],{}\"stride\": [{}, 1]}}",
                        i, nl, random() % 4096, i, nl, random() % 64);
    text += i + 1 < records ? ",\n" : "\n";
  }
  text += "],\n\"nodes\": [\n";
  for (size_t i = 0; i < records; ++i) {
    switch (random() % 4) {
    case 0:
      text += fmt::format("{{\"op\": \"kernel_call\",{}\"args\": [{}{{\"buffer\": \"buf{}\"}},{}"
                          "[[1, 2], [\"a\\n\\u00e9\"]], {}, -0.5e-3, 18446744073709551616, "
                          "true, null]}}",
                          nl, nl, i, nl, random(), nl);
      break;
    case 1:
      text += fmt::format("[{},\n[\n{{\"nested\": [\n[{}],\n[]\n]}}\n],\n{{}}]", i, i * 3);
      break;
    case 2:
      text += fmt::format("{{\"text\": \"line \\\"{}\\\" \\\\ end\", \"empty\": {{}}, "
                          "\"list\": []}}",
                          i);
      break;
    default:
      text += fmt::format("{{\"deep\": [[[[[[{}]]]]]]}}", i);
      break;
    }
    text += i + 1 < records ? ",\n" : "\n";
  }
  text += "],\n\"outputs\": [{\"buffer\": \"buf0\"}]\n}\n";
  return text;
}

} // namespace

TEST_CASE("a document parsed in parts is the one parsed on one thread", "[json][threads]") {
  for (bool indent : {false, true}) {
    for (unsigned seed : {1u, 2u}) {
      std::string text = recordLines(400, indent, seed);
      json::ParseError error;
      auto alone = json::Document::parse(text, 64, error);
      REQUIRE(alone);
      for (unsigned threads : {2u, 3u, 8u}) {
        INFO("indent " << indent << ", seed " << seed << ", " << threads << " threads");
        json::ParseError partedError;
        auto parted = json::Document::parse(text, inParts(threads), partedError);
        REQUIRE(parted);
        CHECK(parted->partCount() > 3); // parts were parsed elsewhere and taken in
        requireSameValue(alone->root(), parted->root());
      }
    }
  }
  // Below partsFrom, or with one thread, a document is one part.
  std::string text = recordLines(50, false, 3);
  json::ParseError error;
  json::ParseOptions options = inParts(1);
  CHECK(json::Document::parse(text, options, error)->partCount() == 1);
  options = inParts(4);
  options.partsFrom = text.size() + 1;
  CHECK(json::Document::parse(text, options, error)->partCount() == 1);
}

TEST_CASE("every fixture parses in parts as on one thread", "[json][threads]") {
  for (const std::filesystem::path &file : test::corpusFiles()) {
    INFO(file.filename().string());
    std::ifstream in(file, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    json::ParseError error;
    auto alone = json::Document::parse(text, 256, error);
    REQUIRE(alone);
    auto parted = json::Document::parse(text, inParts(3, 256), error);
    REQUIRE(parted);
    requireSameValue(alone->root(), parted->root());
  }
}

TEST_CASE("a malformed document in parts fails as on one thread", "[json][threads]") {
  // Each fault, at places spread over the text: the parse in parts reports
  // the offset and message of the parse on one thread, whichever part the
  // fault falls in.
  const std::string text = recordLines(300, false, 4);
  const std::vector<std::pair<std::string, std::string>> faults = {
      {"]", ""},                       // a bracket lost
      {",", ",,"},                     // an empty element
      {"\"op\"", "\"op\" \"op\""},     // a member without ':'
      {"\"name\"", "\"na\x01me\""},    // a control byte in a string
      {"[[[[[[", "[[[[[[[[[[[[[[[[[["}, // nesting past the limit
      {"\"args\"", "\"op\""},          // a duplicate member name
      {"true", "tru"},                 // a bad literal
      {"\\n", "\\q"},                  // a bad escape
      {"\n{", "\n{\n"},                // whitespace where a part would start
  };
  for (const auto &[from, to] : faults) {
    for (size_t at = text.find(from, 1000); at != std::string::npos && at < text.size() - 1000;
         at = text.find(from, at + text.size() / 7)) {
      std::string bad = text;
      bad.replace(at, from.size(), to);
      INFO("'" << from << "' -> '" << to << "' at " << at);
      json::ParseError alone, parted;
      auto a = json::Document::parse(bad, 12, alone);
      auto b = json::Document::parse(bad, inParts(3, 12), parted);
      REQUIRE(bool(a) == bool(b));
      if (!a) {
        CHECK(parted.offset == alone.offset);
        CHECK(parted.message == alone.message);
      } else {
        requireSameValue(a->root(), b->root());
      }
    }
  }
}

TEST_CASE("numbers keep their spelling for diagnostics", "[json]") {
  // Diagnostics quote a number as the document spells it.
  std::string text = R"([1.50, -0, 1E+3, 18446744073709551616, 12,"s", {"k": -7.25e-1}])";
  json::ParseError error;
  auto doc = json::Document::parse(text, 8, error);
  REQUIRE(doc);
  json::Value root = doc->root();
  CHECK(root[0].dump() == "1.50");
  CHECK(root[0].getDouble() == 1.5);
  CHECK(root[1].dump() == "-0");
  CHECK(root[1].getInt() == 0);
  CHECK(root[2].dump() == "1E+3");
  CHECK(root[3].dump() == "18446744073709551616");
  CHECK(root[3].is_number_float());
  CHECK(root[4].dump() == "12");
  CHECK(root[5].str() == "s");
  CHECK(root[6].find("k")->dump() == "-7.25e-1");
}

TEST_CASE("numbers are spelled in at most 65535 bytes", "[json]") {
  // A number keeps its spelling as an offset and a 16-bit length.
  std::string longest = "0." + std::string(65533, '0');
  json::ParseError error;
  std::string text = "[" + longest + "]"; // outlives the document
  auto doc = json::Document::parse(text, 8, error);
  REQUIRE(doc);
  CHECK(doc->root()[0].dump() == longest);
  CHECK(doc->root()[0].getDouble() == 0.0);
  auto tooLong = json::Document::parse("[" + longest + "0]", 8, error);
  CHECK_FALSE(tooLong);
  CHECK(error.message == "number is spelled in more than 65535 bytes");
  CHECK(error.offset == 1);
}

TEST_CASE("a text of 4 GiB or more is refused before it is read", "[json]") {
  // Address space only: the parser refuses before touching a byte.
  size_t bytes = size_t(UINT32_MAX) + 1;
  void *p = ::mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    WARN("cannot reserve 4 GiB of address space; not tested");
    return;
  }
  json::ParseError error;
  auto doc = json::Document::parse(std::string_view(static_cast<const char *>(p), bytes), 8,
                                   error);
  ::munmap(p, bytes);
  CHECK_FALSE(doc);
  CHECK(error.message == "the document is 4 GiB or larger");
}

TEST_CASE("a buried object stays reachable until exit", "[bury]") {
  // Under LeakSanitizer (the sanitizer build) this test fails at exit if the
  // graveyard lost the pointer.
  auto object = std::make_unique<std::vector<int>>(1000, 7);
  const std::vector<int> *raw = object.get();
  buryPointer(std::move(object));
  CHECK(raw->size() == 1000);
}

// FX node names: the set keeps numbered names as bits of their stem and the
// rest (leading zeros, long numbers, numbers past the bitmaps' budget) by
// text. Whatever store a name went to, taking it again must fail, and
// suffixes must follow torch.fx's rule; a plain set of strings is the model.
TEST_CASE("FX names stay unique across the set's stores", "[names][property]") {
  std::mt19937 rng(20261203);
  const char *stems[] = {"buf", "delete", "delete_", "x", "", "_", "buf1_view_buf1_", "a0b"};
  auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  for (int round = 0; round < 200; ++round) {
    // A small budget, so that numbers go to the other store and the
    // bitmaps grow past them later.
    wirc::emit::FxNames names(pick(2) ? 1 : 4096);
    names.reserve(pick(3) == 0 ? 0 : 64);
    std::set<std::string> taken;
    std::map<std::string, unsigned> next;
    std::vector<std::pair<std::string_view, std::string>> stored;
    for (int step = 0; step < 400; ++step) {
      std::string text = stems[pick(std::size(stems))];
      switch (pick(7)) {
      case 0: break;                                               // the stem alone
      case 1: text += std::to_string(pick(80)); break;             // in place
      case 2: text += std::to_string(64 + pick(300)); break;       // the high bitmap
      case 3: text += std::to_string(pick(2) ? 1000000000 + pick(9) : 999999999 - pick(3)); break;
      case 4: text += "0" + std::to_string(pick(20)); break;       // a leading zero
      case 5: text += std::to_string(64 * (1 + pick(40)) + pick(3)); break; // past the budget
      default: text += "_" + std::to_string(1 + pick(12)); break;  // looks suffixed
      }
      // Free: the name itself; taken: the next free `text_k`, counting on
      // per base.
      std::string expect = text;
      if (!taken.insert(text).second) {
        unsigned &k = next[text];
        do
          expect = text + "_" + std::to_string(++k);
        while (taken.count(expect));
        taken.insert(expect);
      }
      std::string_view got;
      if (pick(2)) {
        got = names.unique(text);
      } else {
        auto [name, fresh] = names.take(text);
        REQUIRE(fresh == (expect == text));
        got = fresh ? name : names.takeSuffixed(names.base(text));
      }
      REQUIRE(got == expect);
      stored.emplace_back(got, expect);
    }
    // Stored names do not move.
    for (const auto &[view, text] : stored)
      REQUIRE(view == text);
  }
}

// A TextBuffer over a string appends to it in place, through growth past the
// string's capacity, and gives it its length at the end; an owned buffer
// holds the same text.
TEST_CASE("a text buffer over a string appends in place", "[text]") {
  std::mt19937 rng(7);
  for (size_t prefix : {size_t(0), size_t(5), size_t(40)}) {
    std::string target(prefix, 'p');
    std::string expect = target;
    wirc::emit::TextBuffer owned;
    {
      wirc::emit::TextBuffer text(target);
      if (prefix == 5)
        text.reserveMore(100); // room only: the string's length stays
      CHECK(target.size() == prefix);
      for (int i = 0; i < 20000; ++i) {
        int64_t n = std::uniform_int_distribution<int64_t>(-1000000, 1000000)(rng);
        std::string piece(std::uniform_int_distribution<size_t>(0, 40)(rng), char('a' + i % 26));
        text += piece;
        text.appendInt(n);
        text += ',';
        owned += piece;
        owned.appendInt(n);
        owned += ',';
        expect += piece + std::to_string(n) + ",";
      }
      REQUIRE(text.view() == expect);
      text.truncate(expect.size() - 1);
      expect.pop_back();
      text.finish();
    }
    REQUIRE(target == expect);
    REQUIRE(owned.view() == expect.substr(prefix) + ",");
  }
  // Without finish(), the destructor sets the length.
  std::string target = "x";
  {
    wirc::emit::TextBuffer text(target);
    text += "yz";
  }
  REQUIRE(target == "xyz");
}

TEST_CASE("a timing row is what the clocks advanced by", "[timing]") {
  wirc::ClockReading begin{1000.0, 40.0, 10.0, 100};
  wirc::ClockReading end{1250.0, 340.0, 60.0, 350};
  wirc::TimingRow row = wirc::TimingRow::between("read:parse", begin, end);
  CHECK(row.name == "read:parse");
  CHECK(row.wallMs == 250.0);
  CHECK(row.userMs == 300.0);
  CHECK(row.systemMs == 50.0);
  CHECK(row.faults == 250);
  // Clocks that read lower at the end (CPU time is counted in ticks) give
  // an empty span, never a negative one or a wrapped count.
  wirc::TimingRow back = wirc::TimingRow::between("x", end, begin);
  CHECK(back.wallMs == 0.0);
  CHECK(back.userMs == 0.0);
  CHECK(back.systemMs == 0.0);
  CHECK(back.faults == 0);
}

TEST_CASE("the process's clocks move forward with work", "[timing]") {
  wirc::ClockReading before = wirc::ClockReading::now();
  // Touch fresh pages (mapped here: the allocator may hold pages already
  // touched) and spin, so that CPU time and faults both advance.
  const size_t bytes = size_t(8) << 20;
  void *mapped = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(mapped != MAP_FAILED);
  for (size_t i = 0; i < bytes; i += 4096)
    static_cast<volatile char *>(mapped)[i] = 1;
  munmap(mapped, bytes);
  volatile uint64_t sink = 0;
  auto cpuMs = [](const wirc::ClockReading &r) { return r.userMs + r.systemMs; };
  while (cpuMs(wirc::ClockReading::now()) < cpuMs(before) + 20)
    for (int i = 0; i < 100000; ++i)
      sink = sink + uint64_t(i);
  wirc::ClockReading after = wirc::ClockReading::now();
  CHECK(after.wallMs >= before.wallMs);
  CHECK(after.userMs + after.systemMs >= before.userMs + before.systemMs + 20);
  CHECK(after.faults >= before.faults + 1000); // 8 MiB is 2,048 pages
}

TEST_CASE("a timing report lists every row and sums them", "[timing]") {
  std::vector<wirc::TimingRow> rows = {{"parse", 300.0, 250.0, 150.0, 1200},
                                       {"emit", 100.0, 180.0, 20.0, 34}};
  std::string report = wirc::formatTimingReport("wirc phase timing report", "phase", rows);
  CHECK_THAT(report, Catch::Contains("  wirc phase timing report\n"));
  CHECK_THAT(report, Catch::Contains(" wall (ms)       %   user (ms)    sys (ms)     faults  phase\n"));
  CHECK_THAT(report, Catch::Contains("   300.000   75.0%     250.000     150.000       1200  parse\n"));
  CHECK_THAT(report, Catch::Contains("   100.000   25.0%     180.000      20.000         34  emit\n"));
  CHECK_THAT(report, Catch::Contains("   400.000  100.0%     430.000     170.000       1234  total\n"));
  // An empty report still has its total, at no share of nothing.
  CHECK_THAT(wirc::formatTimingReport("t", "pass", {}),
             Catch::Contains("     0.000  100.0%       0.000       0.000          0  total\n"));
}
