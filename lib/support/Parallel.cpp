//===- Parallel.cpp - Helper threads shared by every run of parts ---------===//
//
// A run posts a job: its parts and a counter of the next part to claim.
// Helpers attach to an open job under the lock, claim parts with the counter
// until none is left, and detach. The run's own thread claims parts too;
// once the counter is past the end it takes the job off the list (so nobody
// attaches again) and waits until every attached helper has detached.
//
// Helpers start one after another (each starts the next), so a run does not
// wait for a dozen thread starts; they spin briefly between runs, since the
// next run of a compile usually follows within microseconds, then sleep.
// After fork() the child has none of its parent's helpers: it starts afresh.
//
//===----------------------------------------------------------------------===//
#include "wirc/support/Parallel.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <system_error>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace wirc {
namespace {

/// Helpers beyond this are never started (parts past it wait their turn).
constexpr size_t kMaxHelpers = 255;
/// How long an idle helper, or a run waiting on its helpers, spins before it
/// sleeps.
constexpr auto kSpin = std::chrono::microseconds(300);

inline void pause() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

/// Spins until \p done() or kSpin has passed; returns done().
template <typename Done> bool spinUntil(Done &&done) {
  auto start = std::chrono::steady_clock::now();
  for (unsigned i = 1;; ++i) {
    if (done())
      return true;
    pause();
    if (i % 64 == 0 && std::chrono::steady_clock::now() - start > kSpin)
      return done();
  }
}

struct Job {
  size_t n;
  void (*body)(void *, size_t);
  void *context;
  std::atomic<size_t> next{1};
  std::atomic<unsigned> attached{0};

  /// Runs parts until none is left to claim.
  void claimAll() {
    for (size_t p; (p = next.fetch_add(1, std::memory_order_relaxed)) < n;)
      body(context, p);
  }
};

class Helpers {
public:
  static Helpers &get();

  void run(size_t n, void (*body)(void *, size_t), void *context) {
    Job job{n, body, context};
    bool wake;
    {
      std::lock_guard<std::mutex> guard(lock);
      open.push_back(&job);
      posted.fetch_add(1, std::memory_order_release);
      wake = sleeping > 0;
      want(n - 1);
    }
    if (wake)
      wakeUp.notify_all();
    body(context, 0);
    job.claimAll();
    {
      std::lock_guard<std::mutex> guard(lock);
      open.erase(std::find(open.begin(), open.end(), &job));
    }
    auto alone = [&] { return job.attached.load(std::memory_order_acquire) == 0; };
    if (!spinUntil(alone)) {
      std::unique_lock<std::mutex> guard(lock);
      detached.wait(guard, alone);
    }
  }

  void reserve(size_t count) {
    std::lock_guard<std::mutex> guard(lock);
    want(count);
  }

  size_t count() {
    std::lock_guard<std::mutex> guard(lock);
    return started;
  }

private:
  /// Under the lock: makes sure \p count helpers are started or starting.
  void want(size_t count) {
    wanted = std::max(wanted, std::min(count, kMaxHelpers));
    if (!spawning && started < wanted)
      spawnNext();
  }

  /// Under the lock: starts one more helper, which starts the next.
  void spawnNext() {
    try {
      std::thread([this] { work(); }).detach();
      ++started;
      spawning = true;
    } catch (const std::system_error &) {
      // No more threads to be had: runs make do with those there are.
      wanted = started;
      spawning = false;
    }
  }

  void work() {
    {
      std::lock_guard<std::mutex> guard(lock);
      spawning = false;
      if (started < wanted)
        spawnNext();
    }
    for (;;) {
      uint64_t seen = posted.load(std::memory_order_acquire);
      if (Job *job = attach()) {
        job->claimAll();
        // The run may return as soon as the count reaches zero: the job is
        // not touched after it, and the lock keeps a sleeping run from
        // missing the notification.
        std::lock_guard<std::mutex> guard(lock);
        if (job->attached.fetch_sub(1, std::memory_order_acq_rel) == 1)
          detached.notify_all();
        continue;
      }
      auto newJob = [&] { return posted.load(std::memory_order_acquire) != seen; };
      if (spinUntil(newJob))
        continue;
      std::unique_lock<std::mutex> guard(lock);
      ++sleeping;
      wakeUp.wait(guard, newJob);
      --sleeping;
    }
  }

  /// An open job with parts left, attached to; null if none.
  Job *attach() {
    std::lock_guard<std::mutex> guard(lock);
    for (Job *job : open)
      if (job->next.load(std::memory_order_relaxed) < job->n) {
        job->attached.fetch_add(1, std::memory_order_relaxed);
        return job;
      }
    return nullptr;
  }

  std::mutex lock;
  std::condition_variable wakeUp;   ///< helpers: a job was posted
  std::condition_variable detached; ///< runs: a job's last helper left
  std::vector<Job *> open;          ///< jobs posted and not yet closed
  std::atomic<uint64_t> posted{0};  ///< jobs ever posted
  size_t started = 0;               ///< helpers started (or starting)
  size_t wanted = 0;
  size_t sleeping = 0;
  bool spawning = false; ///< a helper is starting and will start the next
};

std::atomic<Helpers *> instance{nullptr};
std::once_flag registered;

Helpers &Helpers::get() {
  if (Helpers *helpers = instance.load(std::memory_order_acquire))
    return *helpers;
  std::call_once(registered, [] {
    // The helpers are never destroyed: they may still be waiting when the
    // process exits. A forked child has none of them, and its copy of the
    // lock may be held by a thread that is not there: it starts over.
    instance.store(new Helpers, std::memory_order_release);
    pthread_atfork(nullptr, nullptr,
                   [] { instance.store(new Helpers, std::memory_order_release); });
  });
  return *instance.load(std::memory_order_acquire);
}

} // namespace

namespace detail {
void runPartsOnHelpers(size_t n, void (*body)(void *, size_t), void *context) {
  if (n == 0)
    return;
  if (n == 1) {
    body(context, 0);
    return;
  }
  Helpers::get().run(n, body, context);
}
} // namespace detail

void reserveHelpers(size_t parts) {
  if (parts > 1)
    Helpers::get().reserve(parts - 1);
}

size_t helperCount() { return Helpers::get().count(); }

} // namespace wirc
