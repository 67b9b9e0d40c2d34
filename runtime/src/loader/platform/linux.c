/* Linux (and other POSIX systems with anonymous mmap): address-space
 * reservation with mmap(PROT_NONE), per-page protection with mprotect.
 * A reservation is fresh anonymous memory, so it reads as zeros: the loader
 * relies on that for .bss instead of clearing it. CPU features the kernel
 * reports come from the auxiliary vector and, on RISC-V, riscv_hwprobe. */
#define _DEFAULT_SOURCE 1
#include <errno.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "platform/platform.h"

size_t graft_platform_page_size(void) {
  long size = sysconf(_SC_PAGESIZE);
  /* sysconf cannot realistically fail here; 4 KiB is the smallest page of
   * every ISA graft supports. */
  return size > 0 ? (size_t)size : 4096;
}

graft_status_t graft_platform_reserve(size_t size, void** out_base) {
  *out_base = NULL;
  void* base = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) {
    return graft_status_make(GRAFT_RESOURCE_EXHAUSTED,
                             "cannot reserve %zu bytes for the slice image: %s",
                             size, strerror(errno));
  }
  *out_base = base;
  return NULL;
}

graft_status_t graft_platform_protect(void* addr, size_t size, uint32_t prot) {
  if ((prot & GRAFT_PROT_WRITE) && (prot & GRAFT_PROT_EXEC)) {
    return graft_status_make(GRAFT_INTERNAL,
                             "refusing writable and executable memory");
  }
  if (size == 0) return NULL;
  int native = PROT_NONE;
  if (prot & GRAFT_PROT_READ) native |= PROT_READ;
  if (prot & GRAFT_PROT_WRITE) native |= PROT_WRITE;
  if (prot & GRAFT_PROT_EXEC) native |= PROT_EXEC;
  if (mprotect(addr, size, native) != 0) {
    return graft_status_make(GRAFT_INTERNAL,
                             "mprotect of %zu bytes at %p failed: %s", size,
                             addr, strerror(errno));
  }
  return NULL;
}

void graft_platform_release(void* base, size_t size) {
  if (base) munmap(base, size);
}

/* The riscv_hwprobe value of IMA_EXT_0 (key 4), or 0 where the kernel (or
 * qemu-user) has no such system call. */
static uint64_t riscv_hwprobe_ima_ext_0(void) {
#if defined(__riscv)
#ifndef __NR_riscv_hwprobe
#define __NR_riscv_hwprobe 258
#endif
  struct {
    int64_t key;
    uint64_t value;
  } pair = {4, 0};
  if (syscall(__NR_riscv_hwprobe, &pair, 1, 0, NULL, 0) == 0 && pair.key == 4)
    return pair.value;
#endif
  return 0;
}

void graft_platform_hwcaps_detect(const graft_cpu_feature_t* features,
                                  size_t count,
                                  uint64_t fields[GRAFT_CPU_DATA_FIELD_COUNT]) {
  const uint64_t words[] = {
      [GRAFT_CPU_SOURCE_NONE] = 0,
      [GRAFT_AT_HWCAP] = getauxval(AT_HWCAP),
      [GRAFT_AT_HWCAP2] = getauxval(AT_HWCAP2),
      [GRAFT_HWPROBE_IMA_EXT_0] = riscv_hwprobe_ima_ext_0(),
  };
  for (size_t i = 0; i < count; ++i) {
    const graft_cpu_feature_t* f = &features[i];
    if (f->source < sizeof(words) / sizeof(words[0]) && f->source_bit < 64 &&
        ((words[f->source] >> f->source_bit) & 1u)) {
      graft_cpu_feature_set(f, fields);
    }
  }
}
