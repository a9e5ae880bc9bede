/*
 * A stand-in for Windows' bcryptprimitives.dll, for running runway.exe under
 * Wine 8 in tests only. Go 1.24 and later read their random numbers from
 * ProcessPrng in that DLL, which Wine 8 does not have, so a Go program dies
 * before main. This one exports ProcessPrng on top of RtlGenRandom
 * (advapi32's SystemFunction036), which Wine has. Never shipped.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
	while (length > 0) {
		ULONG n = length > 0x40000000 ? 0x40000000 : (ULONG)length;
		if (!SystemFunction036(data, n))
			return FALSE;
		data += n;
		length -= n;
	}
	return TRUE;
}
