/* A stand-in for Windows' bcryptprimitives.dll, which Wine 8 lacks: Rust's
 * std imports ProcessPrng from it (Windows 10 and later). This one export
 * fills the buffer from RtlGenRandom (advapi32's SystemFunction036), which
 * Wine has. Built by scripts/windows with mingw and put beside the test
 * executables; never shipped. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
  while (len > 0) {
    ULONG chunk = len > 0x10000000 ? 0x10000000 : (ULONG)len;
    if (!SystemFunction036(data, chunk)) return FALSE;
    data += chunk;
    len -= chunk;
  }
  return TRUE;
}
