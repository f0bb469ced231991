//===- wirc.cpp - The wirc executable -------------------------------------===//
//
// The command line (Driver.cpp) on this process's standard streams, with the
// allocator settings of a process that compiles one graph and exits.
//
//===----------------------------------------------------------------------===//
#include "Driver.h"

#include <cstdio>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#ifdef WIRC_USE_JEMALLOC
#include <sched.h>

#include <cstdlib>
#include <cstring>

// A page the allocator hands back to the system costs a page fault when it
// is taken again, and at scale page faults were a third of a compile's time.
// So freed pages are kept (no decay) and handed back at one point, before
// emission (CompileRequest::releaseFreedMemory). Large blocks come from the
// same arenas as small ones and may be split for them, so the JSON
// document's arrays, freed after reading, serve the IR's allocations: on a
// million nodes that saves a quarter of the page faults, within the same
// peak (docs/performance.md, round 6).
//
// Where eight or more cores fault pages in at once, each fault costs more:
// there the allocator asks for transparent huge pages, a fault per 2 MiB
// instead of per 4 KiB (a million nodes on 16 cores: 0.67-0.69 s against
// 0.90-0.95 s, 14% more peak memory; docs/performance.md, round 29). On two
// cores the same setting was slower, so below eight it is left off.
// WIRC_HUGE_PAGES=always or never decides instead; MALLOC_CONF, read after
// this, overrides both.
#define WIRC_KEEP_FREED_PAGES                                                                  \
  "dirty_decay_ms:-1,muzzy_decay_ms:-1,oversize_threshold:0,lg_extent_max_active_fit:63"
extern "C" {
extern const char *malloc_conf;
const char *malloc_conf = WIRC_KEEP_FREED_PAGES;
int mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen);
}

namespace {
/// WIRC_HUGE_PAGES when it is none of always, never and auto (main warns).
const char *unknownHugePages = nullptr;

bool wantHugePages() {
  if (const char *choice = std::getenv("WIRC_HUGE_PAGES"); choice && *choice) {
    if (std::strcmp(choice, "always") == 0)
      return true;
    if (std::strcmp(choice, "never") == 0)
      return false;
    if (std::strcmp(choice, "auto") != 0)
      unknownHugePages = choice;
  }
  cpu_set_t cpus;
  return sched_getaffinity(0, sizeof(cpus), &cpus) == 0 && CPU_COUNT(&cpus) >= 8;
}
} // namespace

// Before any other initializer, and so before the allocator's first use:
// it reads its settings once. Nothing here allocates.
__attribute__((constructor(101))) static void chooseAllocatorSettings() {
  if (wantHugePages())
    malloc_conf = WIRC_KEEP_FREED_PAGES ",thp:always,metadata_thp:always";
}
#endif

static void writeTo(std::FILE *stream, std::string_view text) {
  std::fwrite(text.data(), 1, text.size(), stream);
}

int main(int argc, char **argv) {
#if defined(__GLIBC__) && !defined(WIRC_USE_JEMALLOC)
  // Large buffers (the input text, line vectors, the emitted text) come and
  // go between stages. A fixed mmap threshold gives them back to the system
  // when freed; glibc's adaptive one moved them onto the heap, where freed
  // space stayed resident and the peak depended on allocation order.
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
#ifdef WIRC_USE_JEMALLOC
  if (unknownHugePages)
    std::fprintf(stderr,
                 "wirc: warning: WIRC_HUGE_PAGES is '%.40s'; expected always, never or auto "
                 "(using auto)\n",
                 unknownHugePages);
#endif
  wirc::driver::DriverIO io;
  io.out = [](std::string text) { writeTo(stdout, text); };
  io.err = [](std::string_view text) { writeTo(stderr, text); };
  io.exitsAfter = true;
#ifdef WIRC_USE_JEMALLOC
  // Every arena: MALLCTL_ARENAS_ALL is 4096.
  io.releaseFreedMemory = [] { mallctl("arena.4096.purge", nullptr, nullptr, nullptr, 0); };
#endif
  return wirc::driver::runDriver(argc, argv, io);
}
