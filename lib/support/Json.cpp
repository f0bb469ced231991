//===- Json.cpp - A fast, strict JSON reader ------------------------------===//
#include "wirc/support/Json.h"
#include "wirc/support/PagePopulator.h"
#include "wirc/support/Parallel.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <optional>
#include <fmt/format.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace wirc::json {

using value_t = Value::value_t;

/// A part of a large document: elements of one array, from `start` on,
/// parsed on a thread of its own (see PartedParse).
struct Part {
  const char *commaEnd; ///< just past the comma before `start`
  const char *start;    ///< the first byte of the part's first element
  /// The part stops after the first comma of its array that ends at or
  /// past this (the next part's commaEnd), or at the array's ']'.
  uintptr_t stopAt = UINTPTR_MAX;
  enum State : uint8_t { Pending, Claimed, Parsed, Failed, Skipped };
  std::atomic<uint8_t> state{Pending};
  std::unique_ptr<detail::Segment> segment;
  // What a parsed part found:
  const char *resume = nullptr; ///< where it stopped: just past a comma, or at ']'
  bool closed = false;          ///< stopped at ']'
  size_t depth = 0;             ///< deepest nesting in it, the array counted
  uint32_t elementsBase = 0;    ///< its elements of the array, in segment->children
  uint32_t elementCount = 0;
};

class PartedParse;

/// Upper estimates of the records a text of \p bytes makes: untouched
/// capacity costs address space, not memory.
struct RecordEstimate {
  RecordEstimate() = default;
  explicit RecordEstimate(size_t bytes)
      : nodes(bytes / 8 + 16), members(bytes / 16 + 16), children(bytes / 32 + 16) {}
  size_t nodes = 0, members = 0, children = 0;
};

class Parser {
public:
  Parser(std::string_view text, unsigned maxDepth, detail::Segment &seg, bool populate)
      : begin(text.data()), end(text.data() + text.size()), p(text.data()),
        maxDepth(maxDepth), populate(populate), seg(seg),
        loadLimit(text.size() >= 16 ? reinterpret_cast<uintptr_t>(end - 16) : 0) {}

  /// Parses the whole text. With \p parted, parts that other threads parsed
  /// are taken in where this parse reaches them, and \p kept receives their
  /// segments.
  bool run(ParseError &error, PartedParse *parted = nullptr,
           std::vector<std::unique_ptr<detail::Segment>> *kept = nullptr,
           const char *firstPart = nullptr) {
    size_t bytes = static_cast<size_t>(end - begin);
    // Numbers keep their spelling as a 32-bit offset into the text.
    if (bytes > UINT32_MAX) {
      fail("the document is 4 GiB or larger");
      return report(error);
    }
    this->parted = parted;
    this->kept = kept;
    if (parted) {
      nextSplice();
      // Parts are parsed elsewhere: this parse reserves for what comes
      // before the first (an overrun grows the arrays).
      bytes = static_cast<size_t>(firstPart - begin);
    }
    seg.source = begin;
    const RecordEstimate estimate(bytes);
    seg.nodes.reserve(estimate.nodes);
    seg.members.reserve(estimate.members);
    seg.children.reserve(estimate.children);
    // Records of a large document are faulted in on another core, ahead of
    // the parser. Faulting in is slower than parsing, so the window is wide:
    // what the populator gets done at all, the parser need not.
    if (populate && !parted && bytes >= kPopulateFrom)
      populator.emplace(std::clamp<size_t>(bytes / 2, size_t(8) << 20, size_t(128) << 20));
    if (!scan<false>())
      return report(error);
    skipSpace();
    if (p != end) {
      fail("unexpected characters after the document");
      return report(error);
    }
    return true;
  }

  /// Parses \p part alone: false if it is malformed (or anything else goes
  /// wrong), which the whole parse then reports where it reaches it.
  bool runPart(Part &part) {
    p = part.start;
    stopAt = part.stopAt;
    seg.source = begin;
    if (!scan<true>())
      return false;
    part.resume = p;
    part.closed = partClosed;
    part.depth = deepest;
    part.elementsBase = partElementsBase;
    part.elementCount = partElementCount;
    return true;
  }

private:
  // One pointer walks the text; offsets are computed only for errors.
  const char *begin;
  const char *end;
  const char *p;
  unsigned maxDepth;
  bool populate;
  static constexpr size_t kPopulateFrom = size_t(16) << 20;
  detail::Segment &seg;
  /// The last address that sixteen bytes of the text can be loaded from.
  uintptr_t loadLimit;
  size_t errorPos = 0;
  std::string errorMessage;
  PodArray<uint32_t> scratch; ///< children of the containers being parsed
  PodArray<detail::MemberRef> memberScratch;

  bool report(ParseError &error) {
    error.offset = errorPos;
    error.message = errorMessage;
    return false;
  }

  bool fail(std::string message) {
    if (errorMessage.empty()) {
      errorPos = static_cast<size_t>(p - begin);
      errorMessage = std::move(message);
    }
    return false;
  }

  /// Eight bytes of the text from \p at, as a little-endian word.
  static uint64_t word(const char *at) {
    uint64_t w;
    std::memcpy(&w, at, 8);
    if constexpr (std::endian::native == std::endian::big)
      w = __builtin_bswap64(w);
    return w;
  }
  static constexpr uint64_t kOnes = 0x0101010101010101ULL;
  static constexpr uint64_t kHighs = 0x8080808080808080ULL;
  static constexpr uint64_t kLows = 0x7F7F7F7F7F7F7F7FULL;

  /// What a byte can start or be, so that the hot loops test one table
  /// entry instead of several comparisons.
  enum : uint8_t { kOther = 0, kSpace = 1, kDigit = 2 };
  static constexpr std::array<uint8_t, 256> kClass = [] {
    std::array<uint8_t, 256> cls{};
    cls[' '] = cls['\n'] = cls['\r'] = cls['\t'] = kSpace;
    for (unsigned c = '0'; c <= '9'; ++c)
      cls[c] = kDigit;
    return cls;
  }();
  static bool isSpace(char c) { return kClass[static_cast<unsigned char>(c)] == kSpace; }
  static bool isDigit(char c) { return kClass[static_cast<unsigned char>(c)] == kDigit; }

  void skipSpace() {
    if (p != end && isSpace(*p))
      p = skipSpaceRun(p);
  }

  /// The first byte after the whitespace at \p q that is not whitespace.
  [[gnu::noinline]] const char *skipSpaceRun(const char *q) const {
    // Compact documents have at most a newline between tokens; indented
    // ones a newline or a space and then spaces: take up to sixteen of those
    // in one step (eight without SSE2).
    ++q;
#ifdef __SSE2__
    if (end - q >= 16) {
      __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i *>(q));
      unsigned spaces =
          static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(' '))));
      q += std::countr_one(spaces); // 16 when all are spaces
    }
#else
    if (end - q >= 8) {
      uint64_t x = word(q) ^ (kOnes * ' ');
      // High bit of each byte that is not a space (exact, no borrows).
      uint64_t other = (((x & kLows) + kLows) | x) & kHighs;
      q += other ? std::countr_zero(other) / 8 : 8;
    }
#endif
    while (q != end && isSpace(*q))
      ++q;
    return q;
  }

#ifdef __SSE2__
  /// A bit for each of the sixteen bytes at \p at that a string does not
  /// copy as it is ('"', '\\', control bytes, non-ASCII). A signed compare
  /// below 0x20 also catches the non-ASCII bytes (0x80 and up are negative).
  static unsigned specialBytes(const char *at) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i *>(at));
    __m128i special = _mm_or_si128(_mm_cmplt_epi8(v, _mm_set1_epi8(0x20)),
                                   _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
                                                _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))));
    return static_cast<unsigned>(_mm_movemask_epi8(special));
  }
#endif

  /// The first byte at or after \p at that a string does not copy as it is
  /// ('"', '\\', control bytes, non-ASCII), or the end.
  [[gnu::always_inline]] const char *plainRun(const char *at) const {
#ifdef __SSE2__
    // Sixteen bytes a step.
    while (end - at >= 16) {
      if (unsigned mask = specialBytes(at))
        return at + std::countr_zero(mask);
      at += 16;
    }
#endif
    while (end - at >= 8) {
      uint64_t w = word(at);
      // SWAR: a high bit in each byte that is below 0x20, equal to '"' or
      // '\\', or non-ASCII (w itself has the high bit).
      auto zeroByte = [](uint64_t x) { return (x - kOnes) & ~x & kHighs; };
      uint64_t special = ((w - kOnes * 0x20) & ~w & kHighs) | zeroByte(w ^ (kOnes * '"')) |
                         zeroByte(w ^ (kOnes * '\\')) | (w & kHighs);
      if (special)
        return at + std::countr_zero(special) / 8;
      at += 8;
    }
    while (at != end && kPlain[static_cast<unsigned char>(*at)])
      ++at;
    return at;
  }

  detail::Node &newNode(value_t type) {
    detail::Node &node = seg.nodes.append();
    node.type = type;
    node.boolean = false;
    node.spellingSize = 0;
    node.count = 0;
    node.i = 0; // also clears `data`, which shares its bytes
    return node;
  }

  bool literal(std::string_view word) {
    if (static_cast<size_t>(end - p) < word.size() ||
        std::memcmp(p, word.data(), word.size()) != 0)
      return fail(fmt::format("invalid literal; expected '{}'", word));
    p += word.size();
    return true;
  }

  std::string describe() const {
    if (p == end)
      return "end of input";
    unsigned char c = static_cast<unsigned char>(*p);
    if (c >= 0x20 && c < 0x7f)
      return fmt::format("'{}'", static_cast<char>(c));
    return fmt::format("byte 0x{:02x}", c);
  }

  bool parseNumber() {
    const char *start = p;
    bool negative = *p == '-';
    if (negative)
      ++p;
    // Integers of up to 18 digits cannot overflow int64: accumulate them
    // here; longer ones and non-integers go through from_chars.
    uint64_t magnitude = 0;
    const char *digitsStart = p;
    if (p != end && *p == '0') {
      ++p;
    } else {
      while (p != end && isDigit(*p))
        magnitude = magnitude * 10 + static_cast<unsigned>(*p++ - '0');
      if (p == digitsStart)
        return fail("invalid number; expected a digit");
    }
    size_t intDigits = static_cast<size_t>(p - digitsStart);
    auto digits = [&] {
      const char *s = p;
      while (p != end && isDigit(*p))
        ++p;
      return p != s;
    };
    bool integral = true;
    if (p != end && *p == '.') {
      ++p;
      integral = false;
      if (!digits())
        return fail("invalid number; expected a digit after '.'");
    }
    if (p != end && (*p == 'e' || *p == 'E')) {
      ++p;
      integral = false;
      if (p != end && (*p == '+' || *p == '-'))
        ++p;
      if (!digits())
        return fail("invalid number; expected a digit in the exponent");
    }
    std::string_view spelling(start, static_cast<size_t>(p - start));
    if (spelling.size() > UINT16_MAX) {
      p = start;
      return fail("number is spelled in more than 65535 bytes");
    }
    detail::Node &node = newNode(value_t::number_float);
    node.setSpelling(static_cast<size_t>(start - begin), spelling.size());
    if (integral && intDigits <= 18) {
      node.type = value_t::number_integer;
      node.i = negative ? -static_cast<int64_t>(magnitude) : static_cast<int64_t>(magnitude);
      return true;
    }
    const char *first = spelling.data();
    const char *last = first + spelling.size();
    if (integral) {
      int64_t i = 0;
      auto [iend, iec] = std::from_chars(first, last, i);
      if (iec == std::errc() && iend == last) {
        node.type = value_t::number_integer;
        node.i = i;
        return true;
      }
      uint64_t u = 0;
      auto [uend, uec] = std::from_chars(first, last, u);
      if (uec == std::errc() && uend == last) {
        node.type = value_t::number_unsigned;
        node.u = u;
        return true;
      }
    }
    double d = 0;
    auto [dend, dec] = std::from_chars(first, last, d);
    if (dend != last || (dec != std::errc() && dec != std::errc::result_out_of_range))
      return fail("invalid number");
    if (dec == std::errc::result_out_of_range) {
      // from_chars leaves d alone: tell underflow (a zero or subnormal,
      // kept) from overflow (no double holds it, refused).
      d = std::strtod(std::string(spelling).c_str(), nullptr);
      if (std::isinf(d)) {
        p = start;
        return fail("number out of range of a double");
      }
    }
    node.d = d;
    return true;
  }

  static int hexValue(char c) {
    if (c >= '0' && c <= '9')
      return c - '0';
    if (c >= 'a' && c <= 'f')
      return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
      return c - 'A' + 10;
    return -1;
  }

  bool hex4(unsigned &code) {
    if (end - p < 4)
      return fail("incomplete \\u escape");
    code = 0;
    for (int i = 0; i < 4; ++i) {
      int h = hexValue(p[i]);
      if (h < 0)
        return fail("invalid \\u escape; expected 4 hex digits");
      code = code * 16 + static_cast<unsigned>(h);
    }
    p += 4;
    return true;
  }

  static void appendUtf8(std::string &out, unsigned code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }

  /// Length of the well-formed UTF-8 sequence at p, or 0.
  size_t utf8Length() const {
    auto byte = [&](size_t i) -> unsigned {
      return p + i < end ? static_cast<unsigned char>(p[i]) : 0u;
    };
    unsigned c = byte(0);
    auto cont = [&](size_t i) { return (byte(i) & 0xC0) == 0x80; };
    if (c >= 0xC2 && c <= 0xDF)
      return cont(1) ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
      unsigned c1 = byte(1);
      if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 > 0x9F)) // overlong, surrogate
        return 0;
      return cont(1) && cont(2) ? 3 : 0;
    }
    if (c >= 0xF0 && c <= 0xF4) {
      unsigned c1 = byte(1);
      if ((c == 0xF0 && c1 < 0x90) || (c == 0xF4 && c1 > 0x8F))
        return 0;
      return cont(1) && cont(2) && cont(3) ? 4 : 0;
    }
    return 0;
  }

  /// Printable ASCII other than '"' and '\\': bytes a string copies as is.
  static constexpr std::array<bool, 256> kPlain = [] {
    std::array<bool, 256> plain{};
    for (unsigned c = 0x20; c < 0x80; ++c)
      plain[c] = c != '"' && c != '\\';
    return plain;
  }();

  /// Parses a string at the opening quote. Strings without escapes stay
  /// views into the source.
  bool parseString(std::string_view &out) {
    ++p; // opening quote
    const char *start = p;
    std::string *decoded = nullptr;
    while (true) {
      // Most of a document is plain ASCII: skip runs of it in a tight loop
      // and copy them in one piece.
      const char *run = plainRun(p);
      if (decoded)
        decoded->append(p, static_cast<size_t>(run - p));
      p = run;
      if (p == end)
        return fail("unterminated string");
      unsigned char c = static_cast<unsigned char>(*p);
      if (c == '"')
        break;
      if (c < 0x20)
        return fail("control character in a string; it must be escaped");
      if (c == '\\') {
        if (!decoded) {
          seg.decoded.push_back(
              std::make_unique<std::string>(start, static_cast<size_t>(p - start)));
          decoded = seg.decoded.back().get();
        }
        ++p;
        if (p == end)
          return fail("unterminated string");
        char e = *p++;
        switch (e) {
        case '"': *decoded += '"'; break;
        case '\\': *decoded += '\\'; break;
        case '/': *decoded += '/'; break;
        case 'b': *decoded += '\b'; break;
        case 'f': *decoded += '\f'; break;
        case 'n': *decoded += '\n'; break;
        case 'r': *decoded += '\r'; break;
        case 't': *decoded += '\t'; break;
        case 'u': {
          unsigned code = 0;
          if (!hex4(code))
            return false;
          if (code >= 0xD800 && code <= 0xDBFF) {
            unsigned low = 0;
            if (end - p < 2 || p[0] != '\\' || p[1] != 'u')
              return fail("unpaired UTF-16 surrogate in a \\u escape");
            p += 2;
            if (!hex4(low))
              return false;
            if (low < 0xDC00 || low > 0xDFFF)
              return fail("unpaired UTF-16 surrogate in a \\u escape");
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
          } else if (code >= 0xDC00 && code <= 0xDFFF) {
            return fail("unpaired UTF-16 surrogate in a \\u escape");
          }
          appendUtf8(*decoded, code);
          break;
        }
        default:
          --p;
          return fail("invalid escape in a string");
        }
        continue;
      }
      if (c < 0x80) {
        if (decoded)
          *decoded += static_cast<char>(c);
        ++p;
        continue;
      }
      size_t length = utf8Length();
      if (length == 0)
        return fail("invalid UTF-8 in a string");
      if (decoded)
        decoded->append(p, length);
      p += length;
    }
    out = decoded ? std::string_view(*decoded)
                  : std::string_view(start, static_cast<size_t>(p - start));
    if (out.size() > UINT32_MAX)
      return fail("string is longer than 4 GiB");
    ++p; // closing quote
    return true;
  }

  /// A bit for a member name such that equal names have equal bits (from
  /// length, first and last byte, which tell the graph format's names in
  /// one object apart): an object whose names all have distinct bits has no
  /// duplicates, and most objects are checked by that alone.
  static uint64_t signatureBit(std::string_view k) {
    size_t sig = k.size();
    if (!k.empty())
      sig += (static_cast<unsigned char>(k[0]) + static_cast<unsigned char>(k.back())) * 3u;
    return uint64_t(1) << (sig & 63);
  }

  /// Fails on a name that occurs twice among the members from \p base on.
  /// Graph objects have a handful of members: compare pairs in place; sort a
  /// copy only for large objects, which keeps this O(n log n) for any size.
  [[gnu::noinline]] bool checkDuplicateKeys(size_t base) {
    size_t count = memberScratch.size() - base;
    if (count <= 16) {
      // Report the smallest duplicate name, as the sorted scan below does.
      const detail::MemberRef *m = memberScratch.data() + base;
      std::string_view duplicate;
      bool found = false;
      for (size_t i = 0; i < count; ++i)
        for (size_t j = i + 1; j < count; ++j)
          if (sameText(m[i].name(), m[j].name()) && (!found || m[i].name() < duplicate)) {
            duplicate = m[i].name();
            found = true;
          }
      if (found)
        return fail(fmt::format("duplicate member name \"{}\" in an object",
                                duplicate.substr(0, 60)));
      return true;
    }
    std::vector<std::string_view> keys;
    keys.reserve(count);
    for (size_t i = base; i < memberScratch.size(); ++i)
      keys.push_back(memberScratch[i].name());
    std::sort(keys.begin(), keys.end());
    for (size_t i = 1; i < keys.size(); ++i)
      if (keys[i] == keys[i - 1])
        return fail(fmt::format("duplicate member name \"{}\" in an object",
                                keys[i].substr(0, 60)));
    return true;
  }

  /// A string at \p q (its opening quote); \p q moves past it. Names and
  /// most values are short and plain: one load finds their closing quote in
  /// line. The rest take the long way, out of line.
  [[gnu::always_inline]] bool scanString(const char *&q, std::string_view &out) {
#ifdef __SSE2__
    const char *start = q + 1;
    if (reinterpret_cast<uintptr_t>(start) <= loadLimit) {
      if (unsigned mask = specialBytes(start)) {
        const char *at = start + std::countr_zero(mask);
        if (*at == '"') {
          out = std::string_view(start, static_cast<size_t>(at - start));
          q = at + 1;
          return true;
        }
      }
    }
#endif
    p = q;
    if (!longString())
      return false;
    q = p;
    out = parsed;
    return true;
  }

  /// The string at p into `parsed`.
  [[gnu::noinline]] bool longString() {
    std::string_view s;
    if (!parseString(s))
      return false;
    parsed = s;
    return true;
  }
  std::string_view parsed;

  /// Grows \p array, of which \p used records are in use, to twice that;
  /// sets \p capacity and returns where its records now are.
  template <typename T>
  [[gnu::noinline]] static T *grow(PodArray<T> &array, size_t used, size_t &capacity) {
    array.resize(used);
    array.reserve(std::max<size_t>(used * 2, 64));
    capacity = used + array.capacityLeft();
    return array.data();
  }
  // Capacities of the arrays that scan() appends to; its counts and
  // positions stay in locals.
  size_t nodeCapacity = 0;
  /// Where scan() next leaves its loop for the records: their capacity, or
  /// sooner where it reports its progress to the populator.
  size_t nodeLimit = 0;
  std::optional<PagePopulator> populator;
  static constexpr size_t kReportEvery = 16384; // records, 384 KB

  size_t nextLimit(size_t nodeCount) const {
    return populator ? std::min(nodeCapacity, nodeCount + kReportEvery) : nodeCapacity;
  }

  [[gnu::noinline]] detail::Node *limitReached(detail::Node *nodes, size_t nodeCount) {
    if (nodeCount == nodeCapacity)
      nodes = grow(seg.nodes, nodeCount, nodeCapacity);
    if (populator) {
      populator->report(0, nodes, nodeCount * sizeof(detail::Node),
                        nodeCapacity * sizeof(detail::Node));
      populator->report(1, seg.members.data(), seg.members.size() * sizeof(detail::MemberRef),
                        (seg.members.size() + seg.members.capacityLeft()) *
                            sizeof(detail::MemberRef));
      populator->report(2, seg.children.data(), seg.children.size() * sizeof(uint32_t),
                        (seg.children.size() + seg.children.capacityLeft()) * sizeof(uint32_t));
    }
    nodeLimit = nextLimit(nodeCount);
    return nodes;
  }
  size_t pendingCapacity = 0;
  size_t elementCapacity = 0;
  size_t stackCapacity = 0;

  bool tooDeep() {
    return fail(fmt::format("JSON nesting is deeper than the limit of {}", maxDepth));
  }

  /// Copies \p n records; most containers have a few, which a call to
  /// memcpy would cost more than.
  template <typename T>
  [[gnu::always_inline]] static void copySmall(T *to, const T *from, size_t n) {
    if (n * sizeof(T) > 128) {
      std::memcpy(static_cast<void *>(to), from, n * sizeof(T));
      return;
    }
    char *d = reinterpret_cast<char *>(to);
    const char *s = reinterpret_cast<const char *>(from);
    size_t bytes = n * sizeof(T);
    // Eight-byte words, the last one possibly overlapping (records are at
    // least four bytes; a single four-byte record is copied alone).
    if (bytes >= 8) {
      for (size_t i = 0; i + 8 < bytes; i += 8) {
        uint64_t w;
        std::memcpy(&w, s + i, 8);
        std::memcpy(d + i, &w, 8);
      }
      uint64_t w;
      std::memcpy(&w, s + bytes - 8, 8);
      std::memcpy(d + bytes - 8, &w, 8);
    } else if (bytes) {
      uint32_t w;
      std::memcpy(&w, s, 4);
      std::memcpy(d, &w, 4);
    }
  }

  /// An open array or object.
  struct Frame {
    uint32_t node; ///< the container's record
    uint32_t base; ///< its first entry in scratch or memberScratch
    bool object;
    /// Objects: two member names share a signature bit (see signatureBit);
    /// only then are names compared.
    bool collision;
    /// Arrays: parts parsed on other threads were taken in (see closeFar).
    bool far;
    uint64_t seen; ///< signature bits of the member names so far
  };
  PodArray<Frame> frames;

  // Taking in parts parsed on other threads (the whole parse only).
  PartedParse *parted = nullptr;
  std::vector<std::unique_ptr<detail::Segment>> *kept = nullptr;
  size_t nextPart = 0; ///< the first part not yet reached
  /// The next part's commaEnd, as an address: the scan checks at each
  /// array comma whether it has come that far.
  uintptr_t spliceAt = UINTPTR_MAX;
  /// Parts taken into the arrays being parsed: before the element at
  /// scratch index `at` (or at the end), in order.
  struct Splice {
    size_t at;
    const detail::Segment *segment;
    uint32_t elementsBase;
    uint32_t elementCount;
  };
  PodArray<Splice> splices;
  enum SpliceResult { kNothingTaken, kTakenGoOn, kTakenClosed };
  void nextSplice();
  SpliceResult trySplice(const char *&q, Frame *top, size_t elementCount, size_t depth);
  void closeFar(detail::Node &node, size_t base, const uint32_t *elements, size_t elementCount);

  // Parsing a part (runPart).
  uintptr_t stopAt = UINTPTR_MAX;
  size_t deepest = 0;
  bool partClosed = false;
  uint32_t partElementsBase = 0;
  uint32_t partElementCount = 0;

  /// What a byte can start.
  enum : uint8_t { kBad, kBlank, kObject, kArray, kString, kNumber, kLiteral };
  static constexpr std::array<uint8_t, 256> kStart = [] {
    std::array<uint8_t, 256> start{};
    start[' '] = start['\n'] = start['\r'] = start['\t'] = kBlank;
    start['{'] = kObject;
    start['['] = kArray;
    start['"'] = kString;
    start['-'] = kNumber;
    for (unsigned c = '0'; c <= '9'; ++c)
      start[c] = kNumber;
    start['t'] = start['f'] = start['n'] = kLiteral;
    return start;
  }();

  /// One pass over the document with an explicit stack of open containers.
  /// The position, the stack top and the ends of the arrays being appended
  /// to live in locals, so that stores into records do not make the compiler
  /// reload them, and no value costs a call. \p IsPart: a part's elements
  /// (runPart), under an array of its own that has no record.
  template <bool IsPart> bool scan() {
    const char *q = p;
    const char *const e = end;
    detail::Node *nodes = seg.nodes.data();
    size_t nodeCount = seg.nodes.size();
    nodeCapacity = nodeCount + seg.nodes.capacityLeft();
    nodeLimit = nextLimit(nodeCount);
    detail::MemberRef *pending = memberScratch.data();
    size_t pendingCount = memberScratch.size();
    pendingCapacity = pendingCount + memberScratch.capacityLeft();
    uint32_t *elements = scratch.data();
    size_t elementCount = scratch.size();
    elementCapacity = elementCount + scratch.capacityLeft();
    Frame *stack = frames.data();
    size_t depth = 0;
    stackCapacity = frames.capacityLeft();
    Frame *top = nullptr;

    // A new record, numbered in document order.
    auto newNode = [&](value_t type) __attribute__((always_inline)) -> detail::Node & {
      if (nodeCount == nodeLimit) [[unlikely]] {
        nodes = limitReached(nodes, nodeCount);
      }
      detail::Node &node = nodes[nodeCount++];
      node.type = type;
      node.boolean = false;
      node.spellingSize = 0;
      node.count = 0;
      node.i = 0; // also clears `data`, which shares its bytes
      return node;
    };
    // Between tokens there is mostly nothing or one byte (a space after ':',
    // a newline in compact documents): test those in line. Where a token
    // must follow, its byte is tested first and whitespace skipped only if
    // it is not there.
    auto space = [&]() __attribute__((always_inline)) {
      if (q != e && isSpace(*q)) {
        if (q + 1 != e && !isSpace(q[1]))
          ++q;
        else
          q = skipSpaceRun(q);
      }
    };
    auto open = [&](value_t type, size_t base) __attribute__((always_inline)) {
      if (depth == stackCapacity) [[unlikely]] {
        stack = grow(frames, depth, stackCapacity);
      }
      top = stack + depth++;
      *top = {static_cast<uint32_t>(nodeCount), static_cast<uint32_t>(base),
              type == value_t::object, false, false, 0};
      if constexpr (IsPart)
        deepest = std::max(deepest, depth);
      newNode(type);
      ++q;
    };
    auto close = [&]() __attribute__((always_inline)) {
      --depth;
      top = depth ? stack + depth - 1 : nullptr;
    };
    auto pushElement = [&]() __attribute__((always_inline)) {
      if (elementCount == elementCapacity) [[unlikely]] {
        elements = grow(scratch, elementCount, elementCapacity);
      }
      elements[elementCount++] = static_cast<uint32_t>(nodeCount);
    };

    if constexpr (IsPart) {
      // The part's array: depth 1, as the array is in the whole parse.
      if (stackCapacity == 0)
        stack = grow(frames, 0, stackCapacity);
      top = stack;
      depth = 1;
      deepest = 1;
      *top = {UINT32_MAX, static_cast<uint32_t>(elementCount), false, false, false, 0};
      pushElement();
    }

  value:
    // At a value or the whitespace before it.
    if (q == e) {
      p = q;
      return fail("unexpected end of input; expected a value");
    }
    switch (kStart[static_cast<unsigned char>(*q)]) {
    case kBlank:
      if (q + 1 != e && !isSpace(q[1]))
        ++q;
      else
        q = skipSpaceRun(q);
      goto value;
    case kObject:
      if (depth + 1 > maxDepth) {
        p = q;
        return tooDeep();
      }
      open(value_t::object, pendingCount);
      space();
      if (q != e && *q == '}') {
        ++q;
        close();
        goto next;
      }
      goto member;
    case kArray:
      if (depth + 1 > maxDepth) {
        p = q;
        return tooDeep();
      }
      open(value_t::array, elementCount);
      space();
      if (q != e && *q == ']') {
        ++q;
        close();
        goto next;
      }
      pushElement();
      goto value;
    case kString: {
      // Nothing else makes a record before the string's is complete.
      std::string_view s;
      if (!scanString(q, s))
        return false;
      newNode(value_t::string).setText(s);
      goto next;
    }
    case kLiteral: {
      detail::Node &node = newNode(*q == 'n' ? value_t::null : value_t::boolean);
      node.boolean = *q == 't';
      p = q;
      if (!literal(*q == 't' ? "true" : *q == 'f' ? "false" : "null"))
        return false;
      q = p;
      goto next;
    }
    case kNumber: {
      // Plain integers of up to 18 digits (no overflow) in line; the rest,
      // and every malformed number, through parseNumber.
      const char *start = q;
      const char *d = q + (*q == '-');
      if (d != e && isDigit(*d)) {
        uint64_t magnitude = 0;
        const char *t = d;
        if (*t == '0')
          ++t;
        else
          while (t != e && isDigit(*t))
            magnitude = magnitude * 10 + static_cast<unsigned>(*t++ - '0');
        if (t - d <= 18 && (t == e || (*t != '.' && *t != 'e' && *t != 'E'))) {
          detail::Node &node = newNode(value_t::number_integer);
          node.setSpelling(static_cast<size_t>(start - begin), static_cast<size_t>(t - start));
          node.i = *start == '-' ? -static_cast<int64_t>(magnitude)
                                 : static_cast<int64_t>(magnitude);
          q = t;
          goto next;
        }
      }
      // parseNumber appends its record through seg.nodes.
      seg.nodes.resize(nodeCount);
      p = q;
      if (!parseNumber())
        return false;
      q = p;
      nodes = seg.nodes.data();
      nodeCount = seg.nodes.size();
      nodeCapacity = nodeCount + seg.nodes.capacityLeft();
      nodeLimit = nextLimit(nodeCount);
      goto next;
    }
    default:
      p = q;
      return fail(fmt::format("unexpected {}; expected a value", describe()));
    }

  member:
    // At a member name, after '{' or ','.
    if (q == e || *q != '"')
      space();
    {
      if (q == e || *q != '"') {
        p = q;
        return fail(
            fmt::format("unexpected {}; expected a member name in quotes", describe()));
      }
      std::string_view key;
      if (!scanString(q, key))
        return false;
      if (q == e || *q != ':')
        space();
      if (q == e || *q != ':') {
        p = q;
        return fail(
            fmt::format("unexpected {}; expected ':' after a member name", describe()));
      }
      ++q;
      // The value is the next record; entries of objects inside it go after
      // this one in memberScratch and leave before the object closes.
      uint64_t bit = signatureBit(key);
      top->collision |= (top->seen & bit) != 0;
      top->seen |= bit;
      if (pendingCount == pendingCapacity) [[unlikely]] {
        pending = grow(memberScratch, pendingCount, pendingCapacity);
      }
      pending[pendingCount++] = {key.data(), static_cast<uint32_t>(key.size()),
                                 static_cast<uint32_t>(nodeCount)};
      // Most values are strings, followed at once by the next member;
      // indented documents put one space before them.
      if (q == e || *q != '"') {
        if (q != e && *q == ' ')
          ++q;
        if (q == e || *q != '"')
          goto value;
      }
      std::string_view s;
      if (!scanString(q, s))
        return false;
      newNode(value_t::string).setText(s);
      if (q != e && *q == ',') {
        ++q;
        goto member;
      }
      goto next;
    }

  next:
    // After a value: close containers or go on to the next entry.
    while (top) {
      space();
      if (top->object) {
        if (q != e && *q == ',') {
          ++q;
          goto member;
        }
        if (q == e || *q != '}') {
          p = q;
          return fail(
              fmt::format("unexpected {}; expected ',' or '}}' in an object", describe()));
        }
        ++q;
        // Duplicate names are ambiguous: reject them rather than pick one.
        if (top->collision) {
          p = q;
          memberScratch.resize(pendingCount);
          if (!checkDuplicateKeys(top->base))
            return false;
        }
        size_t count = pendingCount - top->base;
        detail::Node &node = nodes[top->node];
        node.first = static_cast<uint32_t>(seg.members.size());
        node.count = static_cast<uint32_t>(count);
        copySmall(seg.members.extend(count), pending + top->base, count);
        pendingCount = top->base;
      } else {
        if (q != e && *q == ',') {
          ++q;
          if constexpr (IsPart) {
            if (depth == 1 && reinterpret_cast<uintptr_t>(q) >= stopAt) [[unlikely]] {
              partClosed = false;
              break;
            }
          } else if (reinterpret_cast<uintptr_t>(q) >= spliceAt) [[unlikely]] {
            if (trySplice(q, top, elementCount, depth) == kTakenClosed)
              continue; // at the array's ']'
          }
          pushElement();
          goto value;
        }
        if (q == e || *q != ']') {
          p = q;
          return fail(
              fmt::format("unexpected {}; expected ',' or ']' in an array", describe()));
        }
        if constexpr (IsPart) {
          if (depth == 1) {
            partClosed = true; // the ']' is the whole parse's to read
            break;
          }
        }
        ++q;
        size_t count = elementCount - top->base;
        detail::Node &node = nodes[top->node];
        if constexpr (!IsPart) {
          if (top->far) [[unlikely]] {
            closeFar(node, top->base, elements, elementCount);
            elementCount = top->base;
            close();
            continue;
          }
        }
        node.first = static_cast<uint32_t>(seg.children.size());
        node.count = static_cast<uint32_t>(count);
        copySmall(seg.children.extend(count), elements + top->base, count);
        elementCount = top->base;
      }
      close();
    }
    seg.nodes.resize(nodeCount);
    memberScratch.resize(pendingCount);
    if constexpr (IsPart) {
      // The part's elements, where the whole parse can find them.
      partElementsBase = static_cast<uint32_t>(seg.children.size());
      partElementCount = static_cast<uint32_t>(elementCount);
      seg.children.append(elements, elementCount);
      elementCount = 0;
    }
    scratch.resize(elementCount);
    p = q;
    return true;
  }
};

/// A large document parsed on several threads. Raw newlines cannot occur in
/// a JSON string, so a line that starts with '{' or '[' after a line that
/// ends in ',' starts an element of some array. The text is split at such
/// lines into parts; other threads parse each part's elements on their own,
/// into segments of their own, while this thread parses the document from
/// the start. Where it comes to a part's first element, just past the comma
/// before it, the part's elements are what it would parse next: it takes
/// them in and goes on from where the part stopped. A part it does not come
/// to that way (a split inside something else), or one that failed, it
/// parses itself, so the document and its errors are those of a parse on
/// one thread.
class PartedParse {
public:
  PartedParse(std::string_view text, const ParseOptions &options)
      : text(text), maxDepth(options.maxDepth) {
    const char *begin = text.data();
    const char *end = begin + text.size();
    const size_t partBytes =
        std::max<size_t>(options.minPartBytes, text.size() / (size_t(options.threads) * 4));
    // Where a part may start: found near every partBytes-th byte, or not at
    // all for that stretch if no such line is near.
    constexpr size_t kSearch = size_t(64) << 10;
    std::vector<std::pair<const char *, const char *>> splits;
    for (const char *target = begin + partBytes; end - target > 0;) {
      const char *at = target;
      const char *limit = end - target > static_cast<ptrdiff_t>(kSearch) ? target + kSearch : end;
      bool found = false;
      while (at < limit) {
        const char *newline =
            static_cast<const char *>(std::memchr(at, '\n', static_cast<size_t>(limit - at)));
        if (!newline)
          break;
        const char *before = newline;
        while (before > begin && isBlank(before[-1]))
          --before;
        const char *after = newline + 1;
        while (after < end && isBlank(*after))
          ++after;
        if (before > begin && before[-1] == ',' && after < end && (*after == '{' || *after == '[')) {
          splits.emplace_back(before, after);
          found = true;
          at = after;
          break;
        }
        at = newline + 1;
      }
      if (end - at <= static_cast<ptrdiff_t>(partBytes))
        break;
      target = found ? at + partBytes : target + partBytes;
    }
    count = splits.size();
    parts = std::make_unique<Part[]>(count);
    // Each part's records (RecordEstimate), side by side in one block per
    // kind of record, which the thread that frees them reserves (an
    // allocator then finds their pages where it looks next).
    std::vector<RecordEstimate> estimates;
    estimates.reserve(count);
    RecordEstimate total;
    for (size_t i = 0; i < count; ++i) {
      Part &part = parts[i];
      part.commaEnd = splits[i].first;
      part.start = splits[i].second;
      const char *stop = i + 1 < count ? splits[i + 1].first : end;
      if (i + 1 < count)
        part.stopAt = reinterpret_cast<uintptr_t>(stop);
      const RecordEstimate &estimate =
          estimates.emplace_back(static_cast<size_t>(stop - part.start));
      total.nodes += estimate.nodes;
      total.members += estimate.members;
      total.children += estimate.children;
    }
    pool->nodes.reserve(total.nodes);
    pool->members.reserve(total.members);
    pool->children.reserve(total.children);
    size_t nodes = 0, members = 0, children = 0;
    for (size_t i = 0; i < count; ++i) {
      const RecordEstimate &estimate = estimates[i];
      detail::Segment &segment = *(parts[i].segment = std::make_unique<detail::Segment>());
      segment.nodes.borrow(pool->nodes.data() + nodes, estimate.nodes);
      segment.members.borrow(pool->members.data() + members, estimate.members);
      segment.children.borrow(pool->children.data() + children, estimate.children);
      nodes += estimate.nodes;
      members += estimate.members;
      children += estimate.children;
    }
  }

  /// Claims the next part no thread has and parses it; false once every part
  /// has been handed out.
  bool parseNext() {
    size_t k = nextClaim.fetch_add(1, std::memory_order_relaxed);
    if (k >= count)
      return false;
    uint8_t expected = Part::Pending;
    if (parts[k].state.compare_exchange_strong(expected, Part::Claimed,
                                                std::memory_order_acq_rel))
      parse(parts[k]);
    return true;
  }

  /// The whole parse has come to \p part: true if its elements are parsed
  /// and well-formed, false if they are for the whole parse to parse. A
  /// part nobody has started is parsed here, as a part (so that what is
  /// taken in does not depend on timing); while another thread has it,
  /// this one parses other parts.
  bool await(Part &part) {
    uint8_t state = Part::Pending;
    if (part.state.compare_exchange_strong(state, Part::Claimed, std::memory_order_acq_rel))
      parse(part);
    while ((state = part.state.load(std::memory_order_acquire)) == Part::Claimed)
      if (!parseNext())
        part.state.wait(Part::Claimed, std::memory_order_acquire);
    return state == Part::Parsed;
  }

  /// The whole parse has gone past \p part's start: nobody need parse it.
  void pass(Part &part) {
    uint8_t state = Part::Pending;
    if (!part.state.compare_exchange_strong(state, Part::Skipped, std::memory_order_acq_rel) &&
        state != Part::Claimed)
      part.segment.reset(); // parsed (or failed) for nothing: its memory goes now
  }

  /// The whole parse is over: parts not yet started are not needed.
  void finish() {
    for (size_t i = 0; i < count; ++i) {
      uint8_t state = Part::Pending;
      parts[i].state.compare_exchange_strong(state, Part::Skipped, std::memory_order_acq_rel);
    }
  }

  std::string_view text;
  unsigned maxDepth;
  std::unique_ptr<Part[]> parts;
  size_t count = 0;
  /// The blocks the parts' records are in; the document keeps them.
  std::unique_ptr<detail::Segment> pool = std::make_unique<detail::Segment>();

private:
  static bool isBlank(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

  /// Parses a part this thread has claimed.
  void parse(Part &part) {
    bool ok = false;
    try {
      Parser parser(text, maxDepth, *part.segment, false);
      ok = parser.runPart(part);
    } catch (...) {
      // Out of memory, say: the whole parse parses the part itself.
    }
    if (!ok)
      part.segment.reset();
    part.state.store(ok ? Part::Parsed : Part::Failed, std::memory_order_release);
    part.state.notify_all();
  }

  std::atomic<size_t> nextClaim{0};
};

void Parser::nextSplice() {
  spliceAt = nextPart < parted->count
                 ? reinterpret_cast<uintptr_t>(parted->parts[nextPart].commaEnd)
                 : UINTPTR_MAX;
}

/// At an array comma at or past the next part's commaEnd (q just past the
/// comma): takes in the parts that start here, one after another, and
/// moves q to where the last one stopped.
Parser::SpliceResult Parser::trySplice(const char *&q, Frame *top, size_t elementCount,
                                       size_t depth) {
  SpliceResult result = kNothingTaken;
  while (nextPart < parted->count) {
    Part &part = parted->parts[nextPart];
    if (part.commaEnd < q) {
      parted->pass(part);
      ++nextPart;
      continue;
    }
    if (part.commaEnd > q)
      break;
    ++nextPart;
    // Deeper than allowed, or malformed: parsed here, for the error.
    if (!parted->await(part) || depth - 1 + part.depth > maxDepth)
      break;
    top->far = true;
    splices.push_back({elementCount, part.segment.get(), part.elementsBase, part.elementCount});
    kept->push_back(std::move(part.segment));
    q = part.resume;
    if (part.closed) {
      result = kTakenClosed;
      break;
    }
    result = kTakenGoOn;
  }
  nextSplice();
  return result;
}

/// Closes an array that took in parts: its elements, this segment's and the
/// parts', become FarRefs in document order.
void Parser::closeFar(detail::Node &node, size_t base, const uint32_t *elements,
                      size_t elementCount) {
  // This array's splices are the last ones: an enclosing array's came
  // before its element that holds this one.
  size_t first = splices.size();
  while (first > 0 && splices[first - 1].at >= base)
    --first;
  size_t total = elementCount - base;
  for (size_t i = first; i < splices.size(); ++i)
    total += splices[i].elementCount;
  node.boolean = true;
  node.first = static_cast<uint32_t>(seg.far.size());
  node.count = static_cast<uint32_t>(total);
  detail::FarRef *out = seg.far.extend(total);
  size_t next = first;
  for (size_t i = base;; ++i) {
    for (; next < splices.size() && splices[next].at == i; ++next) {
      const Splice &splice = splices[next];
      const uint32_t *taken = splice.segment->children.data() + splice.elementsBase;
      for (uint32_t k = 0; k < splice.elementCount; ++k)
        *out++ = {splice.segment, taken[k]};
    }
    if (i == elementCount)
      break;
    *out++ = {&seg, elements[i]};
  }
  splices.resize(first);
}

std::unique_ptr<Document> Document::parse(std::string_view text, const ParseOptions &options,
                                          ParseError &error) {
  auto doc = std::make_unique<Document>();
  if (options.threads > 1 && text.size() >= options.partsFrom && text.size() <= UINT32_MAX) {
    PartedParse parted(text, options);
    if (parted.count > 0) {
      bool ok = false;
      runParts(std::min<size_t>(options.threads, parted.count + 1), [&](size_t t) {
        if (t != 0) {
          while (parted.parseNext()) {
          }
          return;
        }
        Parser parser(text, options.maxDepth, doc->main, false);
        ok = parser.run(error, &parted, &doc->parts, parted.parts[0].start);
        doc->pool = std::move(parted.pool);
        parted.finish();
      });
      if (!ok)
        return nullptr;
      return doc;
    }
  }
  Parser parser(text, options.maxDepth, doc->main, options.populate);
  if (!parser.run(error))
    return nullptr;
  return doc;
}

Value Value::farElement(size_t at) const {
  const detail::FarRef &far = seg->far[at];
  return Value(far.segment, far.index);
}

std::vector<Member> Value::items() const {
  std::vector<Member> out;
  const detail::Node &node = seg->nodes[index];
  if (node.type != value_t::object)
    return out;
  out.reserve(node.count);
  for (uint32_t i = 0; i < node.count; ++i) {
    const detail::MemberRef &m = seg->members[node.first + i];
    out.push_back({m.name(), Value(seg, m.value)});
  }
  return out;
}

double Value::getDouble() const {
  const detail::Node &node = seg->nodes[index];
  switch (node.type) {
  case value_t::number_integer:
    return static_cast<double>(node.i);
  case value_t::number_unsigned:
    return static_cast<double>(node.u);
  default:
    return node.d;
  }
}

std::string Value::dump() const {
  const detail::Node &node = seg->nodes[index];
  switch (node.type) {
  case value_t::null:
    return "null";
  case value_t::boolean:
    return node.boolean ? "true" : "false";
  case value_t::number_integer:
  case value_t::number_unsigned:
  case value_t::number_float:
    return std::string(str());
  case value_t::string:
    return fmt::format("\"{}\"", node.text().substr(0, 60));
  case value_t::array:
    return "[...]";
  case value_t::object:
    return "{...}";
  }
  return "";
}

} // namespace wirc::json
