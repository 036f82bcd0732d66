/* OpenCL C prelude for Csmith programs turned into kernels (fuzz.csmith).
 *
 * Force-included before every generated kernel. The clang of the `ziglang`
 * wheel ships no OpenCL headers, so this declares only what the kernels use:
 * the <stdint.h> names Csmith writes, the limits its safe-math wrappers test,
 * the macros csmith.h would define for them, and the work-item query the
 * kernel calls. Written for this project; not taken from CLsmith.
 */
#ifndef VECZ_CSMITH_PRELUDE_H
#define VECZ_CSMITH_PRELUDE_H

typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;
typedef ulong size_t;

/* OpenCL's long is 64 bits, like x86-64 C's int64_t; `long long` would be
 * 128 bits in clang's OpenCL mode, which is why the transform rewrites the
 * LL/ULL literal suffixes to L/UL. */
typedef char int8_t;
typedef uchar uint8_t;
typedef short int16_t;
typedef ushort uint16_t;
typedef int int32_t;
typedef uint uint32_t;
typedef long int64_t;
typedef ulong uint64_t;

/* Plain integer literals so that safe_math.h's `#if (INT8_MAX>=INT_MAX)`
 * guards can be evaluated by the preprocessor. */
#define CHAR_BIT 8
#define INT_MAX 2147483647
#define INT8_MIN (-128)
#define INT8_MAX 127
#define UINT8_MAX 255
#define INT16_MIN (-32767 - 1)
#define INT16_MAX 32767
#define UINT16_MAX 65535
#define INT32_MIN (-2147483647 - 1)
#define INT32_MAX 2147483647
#define UINT32_MAX 4294967295U
#define INT64_MIN (-9223372036854775807L - 1)
#define INT64_MAX 9223372036854775807L
#define UINT64_MAX 18446744073709551615UL

/* What csmith.h / random_inc.h define around safe_math.h (no wrapper
 * logging: UNDEFINED(x) just yields the fallback value). */
#define STATIC static
#define LOG_INDEX
#define LOG_EXEC
#define UNDEFINED(v) (v)
#define FUNC_NAME(x) (safe_##x)

/* Work-item query (OpenCL 1.2, 6.12.1), SPIR-mangled through overloadable. */
size_t __attribute__((overloadable, const, nothrow)) get_global_id(uint dim);

#endif /* VECZ_CSMITH_PRELUDE_H */
