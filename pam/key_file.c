/* key_file.c: the master key file (see key_file.h). */
#define _GNU_SOURCE
#include "key_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Largest key file read: a few keys with ids and comments fit many times over. */
#define KEY_FILE_MAX_BYTES 8192

__attribute__((format(printf, 3, 4))) static int fail(char *why, size_t why_size, const char *format, ...) {
    va_list args;
    va_start(args, format);
    if (why && why_size) vsnprintf(why, why_size, format, args);
    va_end(args);
    return -1;
}

static int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* 64 hex characters into 32 bytes; 0 or -1. */
static int decode_hex_key(uint8_t out[MFA_MASTER_KEY_BYTES], const char *text, size_t len) {
    if (len != 2 * MFA_MASTER_KEY_BYTES) return -1;
    for (size_t i = 0; i < MFA_MASTER_KEY_BYTES; i++) {
        int high = hex_value(text[2 * i]), low = hex_value(text[2 * i + 1]);
        if (high < 0 || low < 0) return -1;
        out[i] = (uint8_t)(high << 4 | low);
    }
    return 0;
}

/* Printable ASCII without spaces, 1 to MFA_PAM_KEY_ID_MAX bytes. */
static int valid_key_id(const char *id, size_t len) {
    if (len == 0 || len > MFA_PAM_KEY_ID_MAX) return 0;
    for (size_t i = 0; i < len; i++)
        if (id[i] <= ' ' || id[i] > '~') return 0;
    return 1;
}

static int add_key(mfa_pam_keys *out, const char *id, size_t id_len, const char *hex, size_t hex_len,
                   size_t line, char *why, size_t why_size) {
    if (out->count == MFA_PAM_MAX_KEYS)
        return fail(why, why_size, "more than %d keys", MFA_PAM_MAX_KEYS);
    if (!valid_key_id(id, id_len))
        return fail(why, why_size, "line %zu: a key id is 1 to %d printable ASCII characters", line,
                    MFA_PAM_KEY_ID_MAX);
    for (size_t i = 0; i < out->count; i++)
        if (strlen(out->ids[i]) == id_len && memcmp(out->ids[i], id, id_len) == 0)
            return fail(why, why_size, "line %zu: the key id is used twice", line);
    if (decode_hex_key(out->bytes[out->count], hex, hex_len) != 0)
        return fail(why, why_size, "line %zu: a key is 64 hexadecimal characters", line);
    memcpy(out->ids[out->count], id, id_len);
    out->ids[out->count][id_len] = '\0';
    out->count++;
    return 0;
}

static int parse_text(mfa_pam_keys *out, const char *text, size_t len, const char *default_id, char *why,
                      size_t why_size) {
    size_t line = 0, pos = 0;
    while (pos < len) {
        size_t end = pos;
        while (end < len && text[end] != '\n') end++;
        line++;
        const char *start = text + pos;
        size_t n = end - pos;
        pos = end + 1;
        while (n && (start[n - 1] == '\r' || start[n - 1] == ' ' || start[n - 1] == '\t')) n--;
        while (n && (*start == ' ' || *start == '\t')) start++, n--;
        if (n == 0 || *start == '#') continue;
        if (memchr(start, '\0', n)) return fail(why, why_size, "line %zu: a NUL byte", line);
        size_t first = 0;
        while (first < n && start[first] != ' ' && start[first] != '\t') first++;
        if (first == n) {
            /* <hex>, or <id>:<hex> (mfactl's form; hex holds no colon, an id may). */
            const char *colon = NULL;
            for (size_t i = 0; i < n; i++)
                if (start[i] == ':') colon = start + i;
            int rc = colon ? add_key(out, start, (size_t)(colon - start), colon + 1, n - (size_t)(colon - start) - 1,
                                     line, why, why_size)
                           : add_key(out, default_id, strlen(default_id), start, n, line, why, why_size);
            if (rc != 0) return -1;
            continue;
        }
        size_t rest = first;
        while (rest < n && (start[rest] == ' ' || start[rest] == '\t')) rest++;
        if (add_key(out, start, first, start + rest, n - rest, line, why, why_size) != 0) return -1;
    }
    if (out->count == 0) return fail(why, why_size, "no key in the file");
    return 0;
}

int mfa_pam_keys_load(mfa_pam_keys *out, const char *path, const char *default_id, char *why, size_t why_size) {
    memset(out, 0, sizeof *out);
    if (!path || path[0] != '/') return fail(why, why_size, "key_file must be an absolute path");
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) {
        if (errno == ELOOP) return fail(why, why_size, "key file %s is a symbolic link", path);
        return fail(why, why_size, "cannot open key file %s: %s", path, strerror(errno));
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        close(fd);
        return fail(why, why_size, "cannot stat key file %s: %s", path, strerror(errno));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return fail(why, why_size, "key file %s is not a regular file", path);
    }
    if (st.st_uid != 0) {
        close(fd);
        return fail(why, why_size, "key file %s must be owned by root (it is owned by uid %lu)", path,
                    (unsigned long)st.st_uid);
    }
    if (st.st_mode & (S_IRWXG | S_IRWXO)) {
        close(fd);
        return fail(why, why_size, "key file %s must have mode 0600 or 0400 (it has %04o)", path,
                    (unsigned)(st.st_mode & 07777));
    }
    if (st.st_size <= 0 || st.st_size > KEY_FILE_MAX_BYTES) {
        close(fd);
        return fail(why, why_size, "key file %s is empty or larger than %d bytes", path, KEY_FILE_MAX_BYTES);
    }
    char buffer[KEY_FILE_MAX_BYTES];
    size_t len = 0;
    while (len < sizeof buffer) {
        ssize_t n = read(fd, buffer + len, sizeof buffer - len);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            close(fd);
            explicit_bzero(buffer, sizeof buffer);
            return fail(why, why_size, "cannot read key file %s: %s", path, strerror(errno));
        }
        if (n == 0) break;
        len += (size_t)n;
    }
    close(fd);
    char reason[200] = "";
    int status = mfa_pam_keys_parse(out, buffer, len, default_id, reason, sizeof reason);
    explicit_bzero(buffer, sizeof buffer);
    if (status != 0) return fail(why, why_size, "key file %s: %s", path, reason);
    return 0;
}

int mfa_pam_keys_parse(mfa_pam_keys *out, const char *data, size_t len, const char *default_id, char *why,
                       size_t why_size) {
    int status = 0;
    memset(out, 0, sizeof *out);
    if (len == MFA_MASTER_KEY_BYTES) {
        /* 32 raw bytes, under the default id. */
        size_t id_len = strlen(default_id);
        if (!valid_key_id(default_id, id_len)) {
            status = fail(why, why_size, "a key id is 1 to %d printable ASCII characters", MFA_PAM_KEY_ID_MAX);
        } else {
            memcpy(out->bytes[0], data, MFA_MASTER_KEY_BYTES);
            memcpy(out->ids[0], default_id, id_len + 1);
            out->count = 1;
        }
    } else if (len > KEY_FILE_MAX_BYTES) {
        status = fail(why, why_size, "larger than %d bytes", KEY_FILE_MAX_BYTES);
    } else {
        status = parse_text(out, data, len, default_id, why, why_size);
    }
    if (status != 0) {
        mfa_pam_keys_wipe(out);
        return -1;
    }
    for (size_t i = 0; i < out->count; i++) {
        out->keys[i].id = out->ids[i];
        out->keys[i].key = out->bytes[i];
    }
    return 0;
}

void mfa_pam_keys_wipe(mfa_pam_keys *keys) {
    if (keys) explicit_bzero(keys, sizeof *keys);
}
