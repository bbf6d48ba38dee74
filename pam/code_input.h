/*
 * code_input.h: what the user typed at pam_mfa.so's prompt: a TOTP or HOTP
 * code (6 to 8 digits, spaces allowed), two HOTP codes (a resynchronization),
 * the OTP a YubiKey typed (modhex), or a recovery code (xxxx-xxxx-xx), and
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

/** Length of the OTP a YubiKey types with the usual 12-character public id. */
#define MFA_PAM_YUBIKEY_OTP_LENGTH 44

/**
 * 1 if `typed` has the shape of a Yubico OTP: 32 to 64 modhex characters
 * (cbdefghijklnrtuv, either case), an even number. A YubiKey's touch is told
 * from a typed code by this shape alone.
 */
int mfa_pam_yubikey_shape(const char *typed);

/**
 * If `typed` is two codes of 6 to 8 digits each, apart by spaces or tabs
 * (an HOTP token pressed twice, to resynchronize it), writes them to
 * `first` and `second` (`size` bytes each) and returns 1; else returns 0.
 */
int mfa_pam_two_codes(char *first, char *second, size_t size, const char *typed);

/**
 * forward_pass: the offset in `line` where the code starts. The code is the
 * last `digits` characters; when `recovery` is set and the line ends in
 * "xxxx-xxxx-xx", those last 12; when `yubikey` is set and the line ends in
 * 44 modhex characters, those last 44 (a YubiKey touched after the
 * password). A line shorter than a code is all code.
 */
size_t mfa_pam_code_offset(const char *line, int recovery, int yubikey, size_t digits);

#endif
