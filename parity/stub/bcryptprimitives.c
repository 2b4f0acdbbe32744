/* A stand-in for Windows' bcryptprimitives.dll, which Wine 8.0 lacks.
 *
 * Go >= 1.21.13 Windows binaries load ProcessPrng from
 * System32\bcryptprimitives.dll at start-up and stop with
 * "fatal error: bcryptprimitives.dll not found" when it is missing. The
 * parity rig builds this file with
 *   x86_64-w64-mingw32-gcc -shared -O1 -o bcryptprimitives.dll bcryptprimitives.c
 * and puts the result into its private Wine prefix's system32 only
 * (dml-under-wine.md, "A Go program built for Windows under Wine 8.0"). */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length); /* RtlGenRandom, advapi32 */

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
	while (len > 0) {
		ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
		if (!SystemFunction036(data, n))
			return FALSE;
		data += n;
		len -= n;
	}
	return TRUE;
}
