/*
 * The sanitizer build's positive control: a program with a deliberate error
 * in memory that libmfa handed out, which AddressSanitizer or LeakSanitizer
 * must report (the tests expect the report). It shows that the sanitizers
 * see libmfa's allocations, so that a clean run of the other tests means
 * something.
 *
 * usage: sanitizer_control leak|overflow
 */
#include <stdio.h>
#include <string.h>

#include "mfa.h"

int main(int argc, char **argv) {
    char *text = NULL;
    volatile char past;
    if (argc != 2 || mfa_base32_encode(&text, (const uint8_t *)"libmfa", 6, MFA_BASE32_NO_PADDING) != MFA_OK) {
        return 2;
    }
    if (strcmp(argv[1], "overflow") == 0) {
        past = text[strlen(text) + 1]; /* one byte past the allocation */
        (void)past;
    }
    printf("%s\n", text);
    text = NULL; /* the only pointer to it: a leak */
    return 0;
}
