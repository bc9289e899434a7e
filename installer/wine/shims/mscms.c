/* Wine lane stand-in: the four mscms.dll functions Qt's qwindows.dll imports. No colour
   profile ever opens, so Qt keeps its default sRGB colour space. */
#include <windows.h>

#define EXPORT __declspec(dllexport)

EXPORT HANDLE WINAPI OpenColorProfileW(void *p, DWORD access, DWORD share, DWORD how)
{ (void)p; (void)access; (void)share; (void)how; SetLastError(ERROR_FILE_NOT_FOUND); return NULL; }
EXPORT BOOL WINAPI CloseColorProfile(HANDLE h) { (void)h; return TRUE; }
EXPORT BOOL WINAPI GetColorProfileFromHandle(HANDLE h, BYTE *buf, DWORD *size)
{ (void)h; (void)buf; if (size != NULL) *size = 0; SetLastError(ERROR_INVALID_HANDLE); return FALSE; }
EXPORT HANDLE WINAPI WcsCreateIccProfile(HANDLE h, DWORD options)
{ (void)h; (void)options; SetLastError(ERROR_NOT_SUPPORTED); return NULL; }
