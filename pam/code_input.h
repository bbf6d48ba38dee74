/*
 * code_input.h: what the user typed at pam_mfa.so's prompt: a TOTP code
 * (6 to 8 digits, spaces allowed) or a recovery code (xxxx-xxxx-xx), and
 * with forward_pass, where the password ends and the code begins.
 */
#ifndef MFA_PAM_CODE_INPUT_H
#define MFA_PAM_CODE_INPUT_H

#include <stddef.h>

/** Digits of the TOTP code that forward_pass takes from the end of the line, unless digits= says otherwise. */
#define MFA_PAM_FORWARD_DIGITS 6
/** Length of a recovery code with its dashes, "xxxx-xxxx-xx". */
#define MFA_PAM_RECOVERY_TYPED_LENGTH 12

/**
 * If `typed` is 6 to 8 digits once spaces are removed, writes those digits
 * to `out` (`out_size` bytes) and returns 1; else returns 0.
 */
int mfa_pam_totp_code(char *out, size_t out_size, const char *typed);

/** 1 if `typed` can be a recovery code: ten letters or digits once dashes and spaces are removed. */
int mfa_pam_recovery_shape(const char *typed);

/**
 * forward_pass: the offset in `line` where the code starts. The code is the
 * last `digits` characters, or, when `recovery` is set and the line ends in
 * "xxxx-xxxx-xx", those last 12; a line shorter than a code is all code.
 */
size_t mfa_pam_code_offset(const char *line, int recovery, size_t digits);

#endif
