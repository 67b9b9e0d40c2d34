/* Choosing which ISA variant of a slice runs (graft_variant_v1_t, abi.h).
 *
 * A variant needs CPU features by their LLVM names; the host ISA's feature
 * table (arch/<arch>.c) says where each is in the cpu_data words that
 * graft_cpu_data() detects. A name the table does not know counts as
 * missing: this runtime cannot tell whether the CPU has it. Without a
 * request the last variant whose features are all present runs (variants
 * go from the lowest level to the highest); a requested level must exist
 * in the slice and be supported, else the error names what is wrong.
 * A variant that lacks only features the OS grants on request (x86's AMX
 * tile state) asks for them first (arch->enable_features), so a process
 * asks only for what the variant it runs needs; refused, the variant is
 * skipped (requested: the error says the OS refused). */
#include <stdio.h>
#include <string.h>

#include "loader.h"
#include "variant.h"

/* Appends |text| to |buffer| (NUL-terminated, |size| bytes), truncating. */
static void append(char* buffer, size_t size, const char* text) {
  size_t used = strlen(buffer);
  if (used + 1 < size) snprintf(buffer + used, size - used, "%s", text);
}

/* Writes the features of |variant| this CPU lacks to |missing| as
 * "avx512f, avx512bw" and returns how many there are. */
static uint32_t missing_features(const graft_variant_v1_t* variant,
                                 const graft_elf_arch_t* arch,
                                 const uint64_t cpu[GRAFT_CPU_DATA_FIELD_COUNT],
                                 char* missing, size_t size) {
  uint32_t count = 0;
  if (size) missing[0] = '\0';
  for (uint32_t i = 0; i < variant->cpu_feature_count; ++i) {
    const char* name = variant->cpu_features[i];
    const graft_cpu_feature_t* feature =
        arch ? graft_cpu_feature_lookup(arch, name) : NULL;
    if (feature && graft_cpu_feature_test(feature, cpu)) continue;
    if (count++) append(missing, size, ", ");
    append(missing, size, name);
    if (!feature) append(missing, size, " (unknown to this runtime)");
  }
  return count;
}

/* "x86-64-v2, x86-64-v3, x86-64-v4" */
static void level_names(const graft_library_v1_t* lib, char* out,
                        size_t size) {
  out[0] = '\0';
  for (uint32_t i = 0; i < lib->variant_count; ++i) {
    if (i) append(out, size, ", ");
    append(out, size, lib->variants[i].level);
  }
}

void graft_library_variant_view(const graft_library_v1_t* lib,
                                const graft_variant_v1_t* variant,
                                graft_library_v1_t* out_view) {
  *out_view = *lib;
  out_view->dispatch_count = variant->dispatch_count;
  out_view->dispatches = variant->dispatches;
  out_view->dispatch_attrs = variant->dispatch_attrs;
  out_view->function_count = variant->function_count;
  out_view->functions = variant->functions;
}

/* Whether |variant| can run: the features it lacks (in |missing|, their
 * count returned), after asking the OS for those it must grant first
 * (arch->enable_features; |cpu| detected again after a request). A
 * refusal's reason goes to |*refused| (else NULL). */
static uint32_t check_variant(const graft_variant_v1_t* variant,
                              const graft_elf_arch_t* arch,
                              uint64_t cpu[GRAFT_CPU_DATA_FIELD_COUNT],
                              char* missing, size_t size,
                              const char** refused) {
  *refused = NULL;
  uint32_t count = missing_features(variant, arch, cpu, missing, size);
  if (!count || !arch || !arch->enable_features) return count;
  *refused = arch->enable_features(variant->cpu_features,
                                   variant->cpu_feature_count);
  graft_cpu_data(cpu);
  return missing_features(variant, arch, cpu, missing, size);
}

graft_status_t graft_library_select_variant(const graft_library_v1_t* lib,
                                            const char* requested,
                                            graft_library_v1_t* out_view,
                                            const char** out_level) {
  uint64_t cpu[GRAFT_CPU_DATA_FIELD_COUNT];
  const graft_elf_arch_t* arch = graft_cpu_data(cpu);
  char missing[512], names[512];
  const char* refused = NULL;
  if (requested && !requested[0]) requested = NULL;
  if (lib->variant_count == 0) {
    if (requested) {
      return graft_status_make(GRAFT_INVALID_ARGUMENT,
                               "ISA level '%.64s' was requested, but the "
                               "slice has no ISA variants",
                               requested);
    }
    *out_view = *lib;
    *out_level = "";
    return NULL;
  }
  if (requested) {
    for (uint32_t i = 0; i < lib->variant_count; ++i) {
      const graft_variant_v1_t* v = &lib->variants[i];
      if (strcmp(v->level, requested) != 0) continue;
      if (check_variant(v, arch, cpu, missing, sizeof(missing), &refused)) {
        if (refused) {
          return graft_status_make(GRAFT_FAILED_PRECONDITION,
                                   "ISA level '%s' cannot run: %s", v->level,
                                   refused);
        }
        return graft_status_make(GRAFT_FAILED_PRECONDITION,
                                 "ISA level '%s' cannot run on this CPU: it "
                                 "lacks %s",
                                 v->level, missing);
      }
      graft_library_variant_view(lib, v, out_view);
      *out_level = v->level;
      return NULL;
    }
    level_names(lib, names, sizeof(names));
    return graft_status_make(GRAFT_INVALID_ARGUMENT,
                             "unknown ISA level '%.64s'; the slice has %s",
                             requested, names);
  }
  for (uint32_t i = lib->variant_count; i-- > 0;) {
    const graft_variant_v1_t* v = &lib->variants[i];
    if (check_variant(v, arch, cpu, missing, sizeof(missing), &refused)) {
      continue;
    }
    graft_library_variant_view(lib, v, out_view);
    *out_level = v->level;
    return NULL;
  }
  check_variant(&lib->variants[0], arch, cpu, missing, sizeof(missing),
                &refused);
  if (refused) {
    return graft_status_make(GRAFT_FAILED_PRECONDITION,
                             "no ISA variant of the slice runs here: its "
                             "lowest, %s, needs %s: %s",
                             lib->variants[0].level, missing, refused);
  }
  return graft_status_make(GRAFT_FAILED_PRECONDITION,
                           "no ISA variant of the slice runs on this CPU: its "
                           "lowest, %s, needs %s",
                           lib->variants[0].level, missing);
}
