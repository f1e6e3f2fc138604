/*
 * restrict_af.c - runs a command where socket() fails with EAFNOSUPPORT
 * for every address family but the ones named, as systemd's
 * RestrictAddressFamilies= does (a seccomp filter, inherited across exec):
 *
 *   restrict_af AF_INET,AF_INET6,AF_UNIX COMMAND [ARGS...]
 *
 * For the integration tests of the listen address under the unit's list
 * (test_listen): without AF_NETLINK, getifaddrs() fails, and
 * libwebsockets 4.1 then binds every address instead of the one asked.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define THIS_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define THIS_ARCH AUDIT_ARCH_AARCH64
#else
#define THIS_ARCH 0 /* not supported: refuses to run (see main) */
#endif

/* The low 32 bits of the first argument (the address family). */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ARG0_LO offsetof(struct seccomp_data, args[0])
#else
#define ARG0_LO (offsetof(struct seccomp_data, args[0]) + 4)
#endif

#define MAX_FAMILIES 8

static const struct {
    const char *name;
    int af;
} families[] = {
    {"AF_UNIX", AF_UNIX},     {"AF_INET", AF_INET},
    {"AF_INET6", AF_INET6},   {"AF_NETLINK", AF_NETLINK},
    {"AF_PACKET", AF_PACKET},
};

static int family(const char *name)
{
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
        if (!strcmp(families[i].name, name))
            return families[i].af;
    return -1;
}

int main(int argc, char **argv)
{
    struct sock_filter f[8 + MAX_FAMILIES];
    struct sock_fprog prog;
    int allowed[MAX_FAMILIES], n = 0, k = 0;
    char *list, *tok, *save;

    if (argc < 3) {
        fprintf(stderr, "usage: restrict_af FAMILY[,FAMILY...] COMMAND "
                        "[ARGS...]\n");
        return 2;
    }
    if (!THIS_ARCH) {
        fprintf(stderr, "restrict_af: this architecture is not supported\n");
        return 2;
    }
    list = argv[1];
    for (tok = strtok_r(list, ", ", &save); tok;
         tok = strtok_r(NULL, ", ", &save)) {
        if (n == MAX_FAMILIES || (allowed[n] = family(tok)) < 0) {
            fprintf(stderr, "restrict_af: unknown family or too many: %s\n",
                    tok);
            return 2;
        }
        n++;
    }
    f[k++] = (struct sock_filter)BPF_STMT(
        BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
    f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
                                          THIS_ARCH, 1, 0);
    f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
                                          SECCOMP_RET_KILL_PROCESS);
    f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
                                          offsetof(struct seccomp_data, nr));
    /* not socket(): allow (jump over the family tests and the errno) */
    f[k++] = (struct sock_filter)BPF_JUMP(
        BPF_JMP | BPF_JEQ | BPF_K, __NR_socket, 0, (unsigned char)(n + 2));
    f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG0_LO);
    /* an allowed family: jump to the final allow */
    for (int i = 0; i < n; i++)
        f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
                                              (unsigned)allowed[i],
                                              (unsigned char)(n - i), 0);
    f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
                                          SECCOMP_RET_ERRNO | EAFNOSUPPORT);
    f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    prog.len = (unsigned short)k;
    prog.filter = f;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0) {
        fprintf(stderr, "restrict_af: seccomp: %s\n", strerror(errno));
        return 2;
    }
    execvp(argv[2], argv + 2);
    fprintf(stderr, "restrict_af: %s: %s\n", argv[2], strerror(errno));
    return 127;
}
