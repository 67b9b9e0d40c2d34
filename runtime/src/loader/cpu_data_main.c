/* graft_cpu_data_print: prints what graft_cpu_data detects on this CPU, for
 * the tests (tests/e2e/each-target/cpu_features.sh compares it with
 * /proc/cpuinfo on the host and with qemu's -cpu models for the other
 * targets):
 *
 *   arch x86_64
 *   features sse3 ssse3 sse4.1 ...      (LLVM names, in table order)
 *   cpu_data 0x... 0x... ...            (every word, hex)
 *
 * With --table it prints instead, for every registered ISA, the features
 * its arch file can detect ("table x86_64 sse3 ssse3 ..."), so the tests can
 * check that every feature a level of targets/<arch>.cpp requires is one
 * the runtime detects. It first asks the OS for every feature it must
 * grant (arch->enable_features: x86's AMX tile state), so that what it
 * prints is what this CPU and kernel allow, as /proc/cpuinfo lists it. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "loader.h"

static int print_tables(void) {
  for (size_t i = 0; i < graft_elf_arch_count(); ++i) {
    const graft_elf_arch_t* arch = graft_elf_arch_at(i);
    printf("table %s", arch->name);
    for (size_t f = 0; f < arch->cpu_feature_count; ++f) {
      printf(" %s", arch->cpu_features[f].name);
    }
    printf("\n");
  }
  return ferror(stdout) ? 1 : 0;
}

int main(int argc, char** argv) {
  if (argc == 2 && strcmp(argv[1], "--table") == 0) return print_tables();
  if (argc != 1) {
    fprintf(stderr, "usage: graft_cpu_data_print [--table]\n");
    return 2;
  }
  const graft_elf_arch_t* host = graft_elf_arch_host();
  if (host && host->enable_features) {
    const char* names[256];
    uint32_t count = 0;
    for (size_t i = 0; i < host->cpu_feature_count && count < 256; ++i) {
      names[count++] = host->cpu_features[i].name;
    }
    const char* refused = host->enable_features(names, count);
    if (refused) fprintf(stderr, "graft_cpu_data_print: %s\n", refused);
  }
  uint64_t fields[GRAFT_CPU_DATA_FIELD_COUNT];
  const graft_elf_arch_t* arch = graft_cpu_data(fields);
  if (!arch) {
    fprintf(stderr, "graft_cpu_data_print: graft has no target for this CPU\n");
    return 1;
  }
  printf("arch %s\nfeatures", arch->name);
  for (size_t i = 0; i < arch->cpu_feature_count; ++i) {
    if (graft_cpu_feature_test(&arch->cpu_features[i], fields)) {
      printf(" %s", arch->cpu_features[i].name);
    }
  }
  printf("\ncpu_data");
  for (size_t i = 0; i < GRAFT_CPU_DATA_FIELD_COUNT; ++i) {
    printf(" 0x%" PRIx64, fields[i]);
  }
  printf("\n");
  return ferror(stdout) ? 1 : 0;
}
