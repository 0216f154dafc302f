/* Forced into every libunwind source by libunwind.sh: the declarations in which bionic, the C
 * library libunwind runs against on Android, differs from the musl headers it compiles against.
 * libunwind.sh lists the functions libunwind calls and why each is ABI-compatible. */
#ifndef SPARSETABLE_BIONIC_SHIM_H
#define SPARSETABLE_BIONIC_SHIM_H
/* The assembly sources are forced through this header too: they need none of it. */
#ifndef __ASSEMBLER__
#include <stdint.h>

/* errno: bionic's accessor is __errno(), with musl's signature (int *(void)). Defined before
 * <errno.h> is read, so its declaration and its errno macro both use bionic's name. */
#define __errno_location __errno

#if defined(__arm__)
/* 32-bit ARM: bionic's <link.h> declares the EHABI table lookup; musl has no such function. */
typedef uintptr_t _Unwind_Ptr;
#ifdef __cplusplus
extern "C"
#endif
_Unwind_Ptr dl_unwind_find_exidx(_Unwind_Ptr pc, int *pcount);
#endif

#endif /* __ASSEMBLER__ */
#endif
