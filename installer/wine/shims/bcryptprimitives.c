/* Wine lane stand-in: bcryptprimitives!ProcessPrng (Windows 10 and later). */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length); /* RtlGenRandom, advapi32 */

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE out, SIZE_T count)
{
    const SIZE_T step = 1u << 30;
    while (count > 0) {
        ULONG n = (ULONG)(count < step ? count : step);
        if (!SystemFunction036(out, n))
            return FALSE;
        out += n;
        count -= n;
    }
    return TRUE;
}
