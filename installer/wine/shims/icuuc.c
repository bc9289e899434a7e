/* Wine lane stand-in: the ICU converter API Qt6Core.dll (Qt >= 6.10) imports from
   Windows' icuuc.dll. Opening a converter always fails, so Qt keeps to its own codecs. */
#include <stddef.h>
#include <stdint.h>

#define EXPORT __declspec(dllexport)
typedef int UErrorCode;
enum { FILE_ACCESS_ERROR = 4, UNSUPPORTED_ERROR = 16 };

static void set_error(UErrorCode *status, UErrorCode value)
{
    if (status != NULL && *status <= 0)
        *status = value;
}

static void clear2(void **a, const void **b)
{
    if (a != NULL) *a = NULL;
    if (b != NULL) *b = NULL;
}

EXPORT void *ucnv_open(const char *name, UErrorCode *st) { (void)name; set_error(st, FILE_ACCESS_ERROR); return NULL; }
EXPORT void ucnv_close(void *c) { (void)c; }
EXPORT void ucnv_reset(void *c) { (void)c; }
EXPORT int8_t ucnv_getMaxCharSize(const void *c) { (void)c; return 1; }
EXPORT const char *ucnv_getName(const void *c, UErrorCode *st) { (void)c; set_error(st, UNSUPPORTED_ERROR); return NULL; }
EXPORT void ucnv_getToUCallBack(const void *c, void **fn, const void **ctx) { (void)c; clear2(fn, ctx); }
EXPORT void ucnv_getFromUCallBack(const void *c, void **fn, const void **ctx) { (void)c; clear2(fn, ctx); }
EXPORT void ucnv_setToUCallBack(void *c, void *fn, const void *ctx, void **ofn, const void **octx, UErrorCode *st)
{ (void)c; (void)fn; (void)ctx; clear2(ofn, octx); set_error(st, UNSUPPORTED_ERROR); }
EXPORT void ucnv_setFromUCallBack(void *c, void *fn, const void *ctx, void **ofn, const void **octx, UErrorCode *st)
{ (void)c; (void)fn; (void)ctx; clear2(ofn, octx); set_error(st, UNSUPPORTED_ERROR); }
EXPORT void ucnv_cbToUWriteUChars(void *a, const void *s, int32_t n, int32_t o, UErrorCode *st)
{ (void)a; (void)s; (void)n; (void)o; set_error(st, UNSUPPORTED_ERROR); }
EXPORT void ucnv_cbFromUWriteUChars(void *a, const void **s, const void *e, int32_t o, UErrorCode *st)
{ (void)a; (void)s; (void)e; (void)o; set_error(st, UNSUPPORTED_ERROR); }
EXPORT void ucnv_toUnicode(void *c, void **t, const void *te, const char **s, const char *se, int32_t *o, int8_t f, UErrorCode *st)
{ (void)c; (void)t; (void)te; (void)s; (void)se; (void)o; (void)f; set_error(st, UNSUPPORTED_ERROR); }
EXPORT void ucnv_fromUnicode(void *c, char **t, const char *te, const void **s, const void *se, int32_t *o, int8_t f, UErrorCode *st)
{ (void)c; (void)t; (void)te; (void)s; (void)se; (void)o; (void)f; set_error(st, UNSUPPORTED_ERROR); }
EXPORT int32_t ucnv_toUCountPending(const void *c, UErrorCode *st) { (void)c; set_error(st, UNSUPPORTED_ERROR); return 0; }
EXPORT int32_t ucnv_fromUCountPending(const void *c, UErrorCode *st) { (void)c; set_error(st, UNSUPPORTED_ERROR); return 0; }
EXPORT const char *ucnv_getStandardName(const char *n, const char *s, UErrorCode *st) { (void)n; (void)s; set_error(st, UNSUPPORTED_ERROR); return NULL; }
EXPORT const char *ucnv_getAvailableName(int32_t i) { (void)i; return NULL; }
EXPORT int32_t ucnv_countAvailable(void) { return 0; }
EXPORT void UCNV_FROM_U_CALLBACK_SUBSTITUTE(const void *c, void *a, const void *u, int32_t l, int32_t cp, int r, UErrorCode *st)
{ (void)c; (void)a; (void)u; (void)l; (void)cp; (void)r; (void)st; }
EXPORT void UCNV_TO_U_CALLBACK_SUBSTITUTE(const void *c, void *a, const char *u, int32_t l, int r, UErrorCode *st)
{ (void)c; (void)a; (void)u; (void)l; (void)r; (void)st; }
