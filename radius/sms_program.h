/*
 * sms_program.h: rlm_mfa's SMS gateway: a program the operator names
 * (sms_program), run once per SMS.
 *
 * The program gets no arguments and a short environment (PATH only); its
 * standard input holds two lines, the number (strict E.164) and the message,
 * so neither shows in the process list. Exit status 0 means sent; anything
 * else, or no exit within the timeout (the program and its process group are
 * then killed), means not sent, and libmfa counts nothing. It runs in a
 * process group of its own, out of reach of FreeRADIUS's reaping of its own
 * children.
 */
#ifndef MFA_RADIUS_SMS_PROGRAM_H
#define MFA_RADIUS_SMS_PROGRAM_H

#include <stddef.h>

/**
 * Sends `message` to `number` through `program` (an absolute path), waiting
 * at most `timeout_ms`. Returns 0 if the program exited with status 0, else
 * -1 with the reason in `why` (never the number or the message).
 */
int mfa_radius_sms_program(const char *program, const char *number, const char *message, int timeout_ms,
                           char *why, size_t why_size);

#endif
