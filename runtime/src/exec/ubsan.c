/* See ubsan.h. A fatal check leaves the kernel with longjmp: the frames it
 * skips are the dispatch's and the kernel's, freestanding C that holds no
 * resource of the runtime (no lock, no allocation), so nothing is left
 * behind but what the kernel was computing. */
#include "exec/ubsan.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct ubsan_frame_t {
  jmp_buf exit;
  graft_ubsan_finding_t* finding;
} ubsan_frame_t;

/* The workgroup running on this thread, or NULL. */
static _Thread_local ubsan_frame_t* tls_frame;

void graft_ubsan_report(const char* check, const void* pc, int fatal) {
  ubsan_frame_t* frame = tls_frame;
  if (!frame) {
    /* Slice code running outside a dispatch (its query function): there is
     * no invocation to fail. */
    fprintf(stderr, "graft: ubsan: %s check failed at %p outside a dispatch\n",
            check, pc);
    abort();
  }
  if (!frame->finding->check) {
    frame->finding->check = check;
    frame->finding->pc = (uintptr_t)pc;
  }
  if (fatal) longjmp(frame->exit, 1);
}

int graft_ubsan_call(graft_dispatch_fn_t fn,
                     const graft_dispatch_state_v1_t* state,
                     const graft_workgroup_state_v1_t* workgroup,
                     graft_ubsan_finding_t* out) {
  out->check = NULL;
  out->pc = 0;
  ubsan_frame_t frame;
  frame.finding = out;
  ubsan_frame_t* previous = tls_frame;
  tls_frame = &frame;
  /* Written between setjmp and a longjmp back to it: volatile. */
  volatile int code = 0;
  if (setjmp(frame.exit) == 0) code = fn(state, workgroup);
  tls_frame = previous;
  return code;
}
