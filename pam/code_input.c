/* code_input.c: reading what the user typed (see code_input.h). */
#include "code_input.h"

#include <string.h>

static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_alnum(char c) { return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

int mfa_pam_totp_code(char *out, size_t out_size, const char *typed) {
    size_t n = 0;
    for (const char *p = typed; *p; p++) {
        if (*p == ' ') continue;
        if (!is_digit(*p) || n + 1 >= out_size || n == 8) return 0;
        out[n++] = *p;
    }
    if (n < 6) return 0;
    out[n] = '\0';
    return 1;
}

int mfa_pam_recovery_shape(const char *typed) {
    size_t n = 0;
    for (const char *p = typed; *p; p++) {
        if (*p == ' ' || *p == '-') continue;
        if (!is_alnum(*p) || ++n > 10) return 0;
    }
    return n == 10;
}

static int is_modhex(char c) {
    c = (char)(c | 0x20);
    return c != '\0' && strchr("cbdefghijklnrtuv", c) != NULL;
}

int mfa_pam_yubikey_shape(const char *typed) {
    size_t n = 0;
    for (const char *p = typed; *p; p++) {
        if (!is_modhex(*p) || ++n > 64) return 0;
    }
    return n >= 32 && n % 2 == 0;
}

/* Reads one group of 6 to 8 digits at *p into out; moves *p past it. */
static int digit_group(const char **p, char *out, size_t size) {
    size_t n = 0;
    while (is_digit(**p)) {
        if (n + 1 >= size || n == 8) return 0;
        out[n++] = **p;
        (*p)++;
    }
    out[n] = '\0';
    return n >= 6;
}

int mfa_pam_two_codes(char *first, char *second, size_t size, const char *typed) {
    const char *p = typed;
    if (size < 2) return 0;
    while (*p == ' ' || *p == '\t') p++;
    if (!digit_group(&p, first, size)) return 0;
    if (*p != ' ' && *p != '\t') return 0;
    while (*p == ' ' || *p == '\t') p++;
    if (!digit_group(&p, second, size)) return 0;
    while (*p == ' ' || *p == '\t') p++;
    return *p == '\0';
}

size_t mfa_pam_code_offset(const char *line, int recovery, int yubikey, size_t digits) {
    size_t len = strlen(line);
    if (yubikey && len >= MFA_PAM_YUBIKEY_OTP_LENGTH) {
        const char *otp = line + len - MFA_PAM_YUBIKEY_OTP_LENGTH;
        int shaped = 1;
        for (size_t i = 0; i < MFA_PAM_YUBIKEY_OTP_LENGTH; i++)
            if (!is_modhex(otp[i])) shaped = 0;
        if (shaped) return len - MFA_PAM_YUBIKEY_OTP_LENGTH;
    }
    if (recovery && len >= MFA_PAM_RECOVERY_TYPED_LENGTH) {
        const char *code = line + len - MFA_PAM_RECOVERY_TYPED_LENGTH;
        int shaped = 1;
        for (size_t i = 0; i < MFA_PAM_RECOVERY_TYPED_LENGTH; i++)
            if (i == 4 || i == 9 ? code[i] != '-' : !is_alnum(code[i])) shaped = 0;
        if (shaped) return len - MFA_PAM_RECOVERY_TYPED_LENGTH;
    }
    return len > digits ? len - digits : 0;
}
