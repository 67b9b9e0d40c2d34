/* Guarded buffers and their fault report (see guard.h).
 *
 * The report is written from a signal handler, so it uses only
 * async-signal-safe calls (write, sigaction) and formats numbers itself.
 * It reads only the faulting thread's own watch, which its invocation keeps
 * alive until every workgroup of the dispatch has returned. */
#define _GNU_SOURCE 1
#include "exec/guard.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define CANARY 0xcbu
#define ALIGNMENT 64u

static size_t page_size(void) {
  long size = sysconf(_SC_PAGESIZE);
  return size > 0 ? (size_t)size : 4096;
}

graft_status_t graft_guard_region_create(uint32_t mode, uint64_t size,
                                         graft_guard_region_t* out) {
  memset(out, 0, sizeof(*out));
  size_t page = page_size();
  uint64_t padded = (size + ALIGNMENT - 1) & ~(uint64_t)(ALIGNMENT - 1);
  uint64_t data_pages = (padded + page - 1) / page * page;
  if (data_pages == 0) data_pages = page;
  if (padded < size || data_pages > SIZE_MAX - 2 * page)
    return graft_status_make(GRAFT_RESOURCE_EXHAUSTED,
                             "cannot guard a buffer of %llu bytes",
                             (unsigned long long)size);
  size_t total = (size_t)data_pages + 2 * page;
  void* mapping = mmap(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
                       -1, 0);
  if (mapping == MAP_FAILED)
    return graft_status_make(GRAFT_RESOURCE_EXHAUSTED,
                             "cannot map %zu bytes for a guarded buffer: %s",
                             total, strerror(errno));
  uint8_t* data_begin = (uint8_t*)mapping + page;
  if (mprotect(data_begin, (size_t)data_pages, PROT_READ | PROT_WRITE) != 0) {
    graft_status_t status = graft_status_make(
        GRAFT_INTERNAL, "mprotect of a guarded buffer failed: %s",
        strerror(errno));
    munmap(mapping, total);
    return status;
  }
  out->mapping = mapping;
  out->mapping_size = total;
  out->size = size;
  out->data = mode == GRAFT_RUNTIME_GUARD_UNDERFLOW
                  ? data_begin
                  : data_begin + data_pages - padded;
  memset(data_begin, CANARY, (size_t)data_pages);
  memset(out->data, 0, (size_t)size);
  return NULL;
}

graft_status_t graft_guard_region_seal(graft_guard_region_t* region) {
  size_t page = page_size();
  if (mprotect(region->mapping + page, region->mapping_size - 2 * page,
               PROT_READ) != 0)
    return graft_status_make(GRAFT_INTERNAL,
                             "mprotect of a guarded buffer failed: %s",
                             strerror(errno));
  region->read_only = 1;
  return NULL;
}

uint64_t graft_guard_region_check(const graft_guard_region_t* region,
                                  int64_t* out_offset) {
  if (!region->mapping) return 0;
  size_t page = page_size();
  const uint8_t* begin = region->mapping + page;
  const uint8_t* end = region->mapping + region->mapping_size - page;
  const uint8_t* data_end = region->data + region->size;
  uint64_t changed = 0;
  for (const uint8_t* p = begin; p < end; ++p) {
    if (p == region->data) p = data_end;
    if (p >= end) break;
    if (*p == CANARY) continue;
    if (changed++ == 0) *out_offset = (int64_t)(p - region->data);
  }
  return changed;
}

void graft_guard_region_release(graft_guard_region_t* region) {
  if (region->mapping) munmap(region->mapping, region->mapping_size);
  memset(region, 0, sizeof(*region));
}

/*===--- the fault report -------------------------------------------------===*/

static _Thread_local const graft_guard_watch_t* tls_watch;
static _Thread_local uint64_t tls_workgroup;

void graft_guard_enter(const graft_guard_watch_t* watch, uint64_t index) {
  tls_workgroup = index;
  tls_watch = watch;
}

/* A fixed buffer filled with async-signal-safe appends. */
typedef struct line_t {
  char text[512];
  size_t length;
} line_t;

static void put(line_t* l, const char* s) {
  while (*s && l->length + 1 < sizeof(l->text)) l->text[l->length++] = *s++;
}

/* |v| in |base| (10 or 16), most significant digit first. */
static void put_unsigned(line_t* l, uint64_t v, unsigned base) {
  char digits[24];
  size_t n = 0;
  do {
    digits[n++] = "0123456789abcdef"[v % base];
    v /= base;
  } while (v);
  while (n && l->length + 1 < sizeof(l->text))
    l->text[l->length++] = digits[--n];
}

static void put_u64(line_t* l, uint64_t v) { put_unsigned(l, v, 10); }

static void put_i64(line_t* l, int64_t v) {
  if (v < 0) {
    put(l, "-");
    put_u64(l, (uint64_t)0 - (uint64_t)v);
  } else {
    put_u64(l, (uint64_t)v);
  }
}

static void put_hex(line_t* l, uintptr_t v) {
  put(l, "0x");
  put_unsigned(l, v, 16);
}

/* "buffer 2 (result 0, 64 bytes)" or "buffer 0 (argument 0 %x, 24 bytes)". */
static void put_buffer(line_t* l, const graft_function_v1_t* f, uint32_t b,
                       uint64_t size) {
  const graft_buffer_v1_t* buffer = &f->buffers[b];
  static const char* const kKinds[GRAFT_BUFFER_KIND_COUNT_] = {
      "argument", "temporary", "result", "constant", "alias", "temporary"};
  put(l, "buffer ");
  put_u64(l, b);
  put(l, " (");
  put(l, kKinds[buffer->kind]);
  if (buffer->kind == GRAFT_BUFFER_ARG || buffer->kind == GRAFT_BUFFER_RESULT) {
    put(l, " ");
    put_u64(l, buffer->index);
  }
  if (buffer->kind == GRAFT_BUFFER_ARG && f->args[buffer->index].name[0]) {
    put(l, " %");
    put(l, f->args[buffer->index].name);
  }
  put(l, ", ");
  put_u64(l, size);
  put(l, " bytes)");
}

/* "dispatch 'f_dispatch_0_k' (f.graph:3:8) of function 'f'". */
static void put_dispatch(line_t* l, const graft_guard_watch_t* w) {
  put(l, "dispatch '");
  put(l, w->dispatch->name);
  put(l, "'");
  if (w->dispatch->source[0]) {
    put(l, " (");
    put(l, w->dispatch->source);
    put(l, ")");
  }
  put(l, " of function '");
  put(l, w->function->name);
  put(l, "'");
}

graft_status_t graft_guard_check_dispatch(const graft_guard_watch_t* w) {
  for (uint32_t b = 0; b < w->function->buffer_count; ++b) {
    const graft_guard_region_t* r = &w->regions[b];
    int64_t offset = 0;
    uint64_t changed = graft_guard_region_check(r, &offset);
    if (!changed) continue;
    line_t l;
    l.length = 0;
    put_dispatch(&l, w);
    put(&l, " wrote byte ");
    put_i64(&l, offset);
    put(&l, " of ");
    put_buffer(&l, w->function, b, r->size);
    put(&l, offset < 0 ? ", before its start" : ", past its end");
    put(&l, " (found in the padding after the dispatch, so the workgroup is "
            "unknown; ");
    put_u64(&l, changed);
    put(&l, changed == 1 ? " byte" : " bytes");
    put(&l, " changed)");
    l.text[l.length] = 0;
    return graft_status_make(GRAFT_ABORTED, "guard: %s", l.text);
  }
  return NULL;
}

/* Describes |address| relative to the buffers of |w|; 0 if in none. */
static int put_access(line_t* l, const graft_guard_watch_t* w,
                      uintptr_t address) {
  const graft_function_v1_t* f = w->function;
  for (uint32_t b = 0; b < f->buffer_count; ++b) {
    const graft_guard_region_t* r = &w->regions[b];
    uintptr_t begin = (uintptr_t)r->mapping;
    if (!r->mapping || address < begin || address >= begin + r->mapping_size)
      continue;
    int64_t offset = (int64_t)(address - (uintptr_t)r->data);
    int inside = offset >= 0 && (uint64_t)offset < r->size;
    /* A fault inside the data is a write to a sealed buffer. */
    put(l, inside ? "wrote byte " : "accessed byte ");
    put_i64(l, offset);
    put(l, " of ");
    put_buffer(l, f, b, r->size);
    if (inside) {
      put(l, ", which is read-only");
    } else if (offset < 0) {
      put(l, ", before its start");
    } else {
      put(l, ", past its end");
    }
    return 1;
  }
  return 0;
}

static struct sigaction g_previous;

/* Hands the signal on as if graft had not been there. */
static void chain(int sig, siginfo_t* info, void* context) {
  if ((g_previous.sa_flags & SA_SIGINFO) && g_previous.sa_sigaction) {
    g_previous.sa_sigaction(sig, info, context);
    return;
  }
  if (!(g_previous.sa_flags & SA_SIGINFO) && g_previous.sa_handler != SIG_DFL &&
      g_previous.sa_handler != SIG_IGN) {
    g_previous.sa_handler(sig);
    return;
  }
  /* Default action: returning re-runs the faulting access, which now ends
   * the process with SIGSEGV. */
  struct sigaction fallback;
  memset(&fallback, 0, sizeof(fallback));
  fallback.sa_handler = SIG_DFL;
  sigaction(sig, &fallback, NULL);
}

static void on_fault(int sig, siginfo_t* info, void* context) {
  const graft_guard_watch_t* w = tls_watch;
  if (w) {
    int saved_errno = errno;
    line_t l;
    l.length = 0;
    uint64_t x = w->workgroup_count[0], y = w->workgroup_count[1];
    put(&l, "graft: guard: ");
    put_dispatch(&l, w);
    put(&l, " workgroup (");
    put_u64(&l, tls_workgroup % x);
    put(&l, ",");
    put_u64(&l, tls_workgroup / x % y);
    put(&l, ",");
    put_u64(&l, tls_workgroup / (x * y));
    put(&l, ") ");
    uintptr_t address = (uintptr_t)info->si_addr;
    if (!put_access(&l, w, address)) {
      put(&l, "faulted at address ");
      put_hex(&l, address);
      put(&l, ", which is in none of its buffers");
    }
    put(&l, "\n");
    ssize_t ignored = write(STDERR_FILENO, l.text, l.length);
    (void)ignored;
    errno = saved_errno;
    tls_watch = NULL; /* report once, even if the previous handler returns */
  }
  chain(sig, info, context);
}

static pthread_once_t g_install_once = PTHREAD_ONCE_INIT;
static int g_install_errno;

static void install(void) {
  struct sigaction action;
  memset(&action, 0, sizeof(action));
  action.sa_sigaction = on_fault;
  action.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  if (sigaction(SIGSEGV, &action, &g_previous) != 0) g_install_errno = errno;
}

graft_status_t graft_guard_install_handler(void) {
  pthread_once(&g_install_once, install);
  if (g_install_errno)
    return graft_status_make(GRAFT_INTERNAL,
                             "cannot install the guard's SIGSEGV handler: %s",
                             strerror(g_install_errno));
  return NULL;
}
