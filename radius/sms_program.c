/* sms_program.c: the operator's SMS gateway program (see sms_program.h). */
#define _GNU_SOURCE
#include "sms_program.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Most bytes of the number and the message written to the program. */
#define INPUT_MAX 2048

static long long now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Writes all of `data`, or stops: a program that left without reading is judged by its exit status.
 * A socket, not a pipe, so that no SIGPIPE reaches the server. */
static void write_all(int fd, const char *data, size_t len) {
    while (len) {
        ssize_t n = send(fd, data, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        data += n;
        len -= (size_t)n;
    }
}

/* Waits for `pid` until `deadline` (monotonic ms); kills its group at the deadline. Its status, or -1. */
static int wait_until(pid_t pid, long long deadline, int *timed_out) {
    int status;
    *timed_out = 0;
    for (;;) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid) return status;
        if (r < 0 && errno != EINTR) return -1;
        if (now_ms() >= deadline) break;
        struct timespec pause = {0, 5 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    *timed_out = 1;
    kill(-pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return -1;
    return status;
}

int mfa_radius_sms_program(const char *program, const char *number, const char *message, int timeout_ms,
                           char *why, size_t why_size) {
    char input[INPUT_MAX];
    int n = snprintf(input, sizeof input, "%s\n%s\n", number, message);
    if (n < 0 || (size_t)n >= sizeof input) {
        snprintf(why, why_size, "the SMS is too long for sms_program");
        return -1;
    }
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
        snprintf(why, why_size, "sms_program: socketpair: %s", strerror(errno));
        explicit_bzero(input, sizeof input);
        return -1;
    }
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[0], 0);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    posix_spawnattr_init(&attributes);
    /* A process group of its own: FreeRADIUS reaps the children of its own group. Default signals. */
    sigset_t no_signals, all_signals;
    sigemptyset(&no_signals);
    sigfillset(&all_signals);
    posix_spawnattr_setsigmask(&attributes, &no_signals);
    posix_spawnattr_setsigdefault(&attributes, &all_signals);
    posix_spawnattr_setpgroup(&attributes, 0);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    char *argv[] = {(char *)program, NULL};
    char *envp[] = {"PATH=/usr/local/bin:/usr/bin:/bin", NULL};
    pid_t pid;
    int rc = posix_spawn(&pid, program, &actions, &attributes, argv, envp);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    close(fds[0]);
    if (rc != 0) {
        close(fds[1]);
        explicit_bzero(input, sizeof input);
        snprintf(why, why_size, "sms_program %s: %s", program, strerror(rc));
        return -1;
    }
    long long deadline = now_ms() + timeout_ms;
    write_all(fds[1], input, (size_t)n);
    explicit_bzero(input, sizeof input);
    close(fds[1]);
    int timed_out;
    int status = wait_until(pid, deadline, &timed_out);
    if (timed_out) {
        snprintf(why, why_size, "sms_program %s did not finish within %d ms", program, timeout_ms);
        return -1;
    }
    if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        if (status != -1 && WIFEXITED(status))
            snprintf(why, why_size, "sms_program %s exited with status %d", program, WEXITSTATUS(status));
        else
            snprintf(why, why_size, "sms_program %s ended abnormally", program);
        return -1;
    }
    return 0;
}
