/*
 * errtext.c - see errtext.h.
 */
#include "lib/errtext.h"

#include <stdarg.h>
#include <stdio.h>

void errtext_set(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;

    if (!err || !len)
        return;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
}
