/* deny_openat2 ERRNO COMMAND [ARG...]: installs a seccomp filter that
 * answers every openat2(2) with ERRNO (EPERM, ENOSYS, E2BIG or EAGAIN),
 * as container profiles and sandboxes do, then execs COMMAND. The filter
 * is inherited by every child. Built by the tests with `cc ... -lseccomp`. */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: deny_openat2 EPERM|ENOSYS|E2BIG|EAGAIN command [arg...]\n");
    return 2;
  }
  int err;
  if (strcmp(argv[1], "EPERM") == 0) err = EPERM;
  else if (strcmp(argv[1], "ENOSYS") == 0) err = ENOSYS;
  else if (strcmp(argv[1], "E2BIG") == 0) err = E2BIG;
  else if (strcmp(argv[1], "EAGAIN") == 0) err = EAGAIN;
  else {
    fprintf(stderr, "deny_openat2: unknown errno %s\n", argv[1]);
    return 2;
  }
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (ctx == NULL) {
    fprintf(stderr, "deny_openat2: seccomp_init failed\n");
    return 3;
  }
  int rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(err), SCMP_SYS(openat2), 0);
  if (rc == 0) rc = seccomp_load(ctx);
  seccomp_release(ctx);
  if (rc != 0) {
    fprintf(stderr, "deny_openat2: cannot install the filter: %s\n", strerror(-rc));
    return 3;
  }
  execvp(argv[2], argv + 2);
  fprintf(stderr, "deny_openat2: exec %s: %s\n", argv[2], strerror(errno));
  return 127;
}
