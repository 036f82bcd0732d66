/* A small OpenCL C prelude for clang without its OpenCL headers (the clang in
 * the `ziglang` package ships none). It declares only what the benchmark
 * kernels use: scalar typedefs, the work-item queries (SPIR-mangled through
 * `overloadable`), single-precision math as LLVM intrinsics, and 32-bit global
 * atomics as `atomicrmw`. Math goes through clang builtins so that no runtime
 * library is needed and a vectorizer sees `llvm.sqrt.f32`, `llvm.exp.f32`...
 */
#ifndef VECZ_OPENCL_PRELUDE_H
#define VECZ_OPENCL_PRELUDE_H

typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;
typedef ulong size_t;
typedef long ptrdiff_t;
typedef long intptr_t;
typedef ulong uintptr_t;

#define __OVL __attribute__((overloadable))
#define __PURE __attribute__((overloadable, const, nothrow))
#define __MATH static inline __attribute__((overloadable, always_inline))

/* Work-item functions (OpenCL 1.2, 6.12.1). */
uint __PURE get_work_dim(void);
size_t __PURE get_global_size(uint dim);
size_t __PURE get_global_id(uint dim);
size_t __PURE get_local_size(uint dim);
size_t __PURE get_local_id(uint dim);
size_t __PURE get_num_groups(uint dim);
size_t __PURE get_group_id(uint dim);
size_t __PURE get_global_offset(uint dim);

/* Math (float only). */
__MATH float sqrt(float x) { return __builtin_sqrtf(x); }
__MATH float rsqrt(float x) { return 1.0f / __builtin_sqrtf(x); }
__MATH float exp(float x) { return __builtin_expf(x); }
__MATH float log(float x) { return __builtin_logf(x); }
__MATH float pow(float x, float y) { return __builtin_powf(x, y); }
__MATH float fabs(float x) { return __builtin_fabsf(x); }
__MATH float floor(float x) { return __builtin_floorf(x); }
__MATH float fmin(float x, float y) { return __builtin_fminf(x, y); }
__MATH float fmax(float x, float y) { return __builtin_fmaxf(x, y); }
__MATH float mad(float a, float b, float c) { return a * b + c; }
__MATH float clamp(float x, float lo, float hi) { return __builtin_fminf(__builtin_fmaxf(x, lo), hi); }
__MATH int min(int a, int b) { return a < b ? a : b; }
__MATH int max(int a, int b) { return a > b ? a : b; }
__MATH int clamp(int x, int lo, int hi) { return min(max(x, lo), hi); }
__MATH uint min(uint a, uint b) { return a < b ? a : b; }
__MATH uint max(uint a, uint b) { return a > b ? a : b; }

/* 32-bit global atomics (OpenCL 1.1+ names). Relaxed ordering. */
__MATH int atomic_add(volatile __global int *p, int v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }
__MATH uint atomic_add(volatile __global uint *p, uint v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }
__MATH int atomic_inc(volatile __global int *p) { return __atomic_fetch_add(p, 1, __ATOMIC_RELAXED); }
__MATH uint atomic_inc(volatile __global uint *p) { return __atomic_fetch_add(p, 1u, __ATOMIC_RELAXED); }

#endif
