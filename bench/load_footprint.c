/*
 * What a program that uses only the SQLite store pays for loading libmfa:
 * loads the library given on the command line with dlopen, opens a context on
 * the SQLite store given (a file, or :memory:), and prints, on one line: the shared objects mapped into
 * the process, its resident memory in KiB, and the milliseconds dlopen and
 * mfa_open took. Run by bench/load_footprint.sh; not a test.
 *
 * Usage: load_footprint LIBMFA.so STORE [list]
 *   list: also print the paths of the mapped shared objects, one a line.
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mfa.h"

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* Distinct file-backed shared objects in /proc/self/maps; prints them if `list`. */
static int mapped_objects(int list) {
    char line[4096], seen[256][512];
    int count = 0;
    FILE *maps = fopen("/proc/self/maps", "r");
    if (!maps) return -1;
    while (fgets(line, sizeof line, maps)) {
        char *path = strchr(line, '/');
        int known = 0;
        if (!path || !strstr(path, ".so")) continue;
        path[strcspn(path, "\n")] = '\0';
        for (int i = 0; i < count && !known; i++) known = strcmp(seen[i], path) == 0;
        if (known || count == 256) continue;
        snprintf(seen[count++], sizeof seen[0], "%s", path);
        if (list) printf("  %s\n", path);
    }
    fclose(maps);
    return count;
}

static long resident_kib(void) {
    char line[256];
    long kib = -1;
    FILE *status = fopen("/proc/self/status", "r");
    if (!status) return -1;
    while (fgets(line, sizeof line, status)) {
        if (strncmp(line, "VmRSS:", 6) == 0) kib = atol(line + 6);
    }
    fclose(status);
    return kib;
}

int main(int argc, char **argv) {
    static const uint8_t key[MFA_MASTER_KEY_BYTES] = {1};
    int32_t (*options_init)(mfa_options *, uint32_t);
    int32_t (*open_ctx)(mfa_ctx **, const mfa_options *, char **);
    void (*close_ctx)(mfa_ctx *);
    mfa_options options;
    mfa_ctx *ctx = NULL;
    double t0, loaded, opened;
    void *library;

    if (argc < 3) {
        fprintf(stderr, "usage: %s LIBMFA.so STORE [list]\n", argv[0]);
        return 2;
    }
    t0 = now_ms();
    library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    loaded = now_ms() - t0;
    if (!library) {
        fprintf(stderr, "%s\n", dlerror());
        return 1;
    }
    *(void **)&options_init = dlsym(library, "mfa_options_init");
    *(void **)&open_ctx = dlsym(library, "mfa_open");
    *(void **)&close_ctx = dlsym(library, "mfa_close");
    if (!options_init || !open_ctx || !close_ctx || options_init(&options, MFA_OPTIONS_VERSION) != MFA_OK) return 1;
    options.store = argv[2];
    options.master_key.id = "footprint";
    options.master_key.key = key;
    t0 = now_ms();
    if (open_ctx(&ctx, &options, NULL) != MFA_OK) return 1;
    opened = now_ms() - t0;
    printf("%d %ld %.2f %.2f\n", mapped_objects(0), resident_kib(), loaded, opened);
    if (argc > 3) mapped_objects(1);
    close_ctx(ctx);
    return 0;
}
