/* graft_bench's OpenBLAS peer, openblas-sgemm: cblas_sgemm (row-major
 * C = A * B) into a buffer allocated once, then --post-ops as a separate
 * loop (BLAS has no epilogue).
 *
 * OpenBLAS picks its kernel for the CPU when it loads, unless
 * OPENBLAS_CORETYPE overrides it; run_bench.py removes that variable (and
 * OPENBLAS_L2_SIZE) from graft_bench's environment, and `graft_bench info`
 * reports the kernel that was picked (openblas_get_corename) and the build
 * (openblas_get_config), so an override cannot go unnoticed. */
#include <stdio.h>

#include "cblas.h"
#include "matmul_peer.h"
#include "modes.h"

void bench_describe_openblas(void) {
  static const char* const parallel[] = {"sequential", "pthreads", "openmp"};
  int p = openblas_get_parallel();
  printf("\"config\": \"%s\", \"corename\": \"%s\", \"parallel\": \"%s\"",
         openblas_get_config(), openblas_get_corename(),
         p >= 0 && p <= 2 ? parallel[p] : "unknown");
}

static graft_status_t sgemm_call(void* user) {
  bench_matmul_t* mm = user;
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (blasint)mm->m,
              (blasint)mm->n, (blasint)mm->k, 1.0f, mm->lhs.data,
              (blasint)mm->k, mm->rhs.data, (blasint)mm->n, 0.0f, mm->out.data,
              (blasint)mm->n);
  bench_matmul_apply_post_ops(mm);
  return NULL;
}

graft_status_t bench_run_openblas_sgemm(const bench_options_t* o) {
  bench_matmul_t mm;
  graft_status_t st = bench_matmul_open(o, &mm);
  if (st)
    return st;
  openblas_set_num_threads((int)o->threads);
  mm.threads = (uint32_t)openblas_get_num_threads();
  char extra[128];
  snprintf(extra, sizeof(extra), "\"kernel\": \"%s\"", openblas_get_corename());
  st = bench_matmul_measure(o, &mm, sgemm_call, &mm, "openblas-sgemm", extra);
  bench_matmul_close(&mm);
  return st;
}
