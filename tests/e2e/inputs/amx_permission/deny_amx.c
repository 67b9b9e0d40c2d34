/* deny_amx MODE COMMAND [ARGS...]: runs COMMAND with Linux x86_64's request
 * for the AMX tile state (arch_prctl(ARCH_REQ_XCOMP_PERM, ...)) answered by
 * a seccomp filter: MODE "refuse" fails it with EPERM, as a kernel that
 * withholds the state does; "forbid" kills the process (SIGSYS) if it asks
 * at all. Every other system call runs as usual. For
 * tests/e2e/amx_permission.sh. */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc < 3 || (strcmp(argv[1], "refuse") != 0 && strcmp(argv[1], "forbid") != 0)) {
    fprintf(stderr, "usage: deny_amx refuse|forbid COMMAND [ARGS...]\n");
    return 2;
  }
  const unsigned action = strcmp(argv[1], "refuse") == 0
                              ? SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)
                              : SECCOMP_RET_KILL_PROCESS;
  enum { ARCH_REQ_XCOMP_PERM = 0x1023 };
  struct sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_arch_prctl, 0, 3),
      /* The low half of the first argument (little-endian). */
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH_REQ_XCOMP_PERM, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, action),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog program = {sizeof(filter) / sizeof(filter[0]), filter};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
      prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0) {
    fprintf(stderr, "deny_amx: cannot install the seccomp filter: %s\n", strerror(errno));
    return 2;
  }
  execvp(argv[2], argv + 2);
  fprintf(stderr, "deny_amx: cannot run %s: %s\n", argv[2], strerror(errno));
  return 2;
}
