/* graft_cpu_data (loader.h): the running CPU's features, detected by the
 * host ISA's file under arch/. */
#include <string.h>

#include "loader.h"

const graft_elf_arch_t* graft_cpu_data(
    uint64_t out_fields[GRAFT_CPU_DATA_FIELD_COUNT]) {
  memset(out_fields, 0, sizeof(uint64_t) * GRAFT_CPU_DATA_FIELD_COUNT);
  const graft_elf_arch_t* host = graft_elf_arch_host();
  if (host) host->detect_cpu(out_fields);
  return host;
}
