/* A small OpenCL C prelude for clang without its OpenCL headers (the clang in
 * the `ziglang` package ships none). It declares only what the benchmark
 * kernels use: scalar typedefs, the work-item queries (SPIR-mangled through
 * `overloadable`), single-precision math, and 32-bit global atomics as
 * `atomicrmw`.
 *
 * Math: the operations that are exact per lane (sqrt, fabs, floor, fmin,
 * fmax...) are clang builtins, i.e. LLVM intrinsics that every vector width
 * lowers to one instruction. exp, log and pow are a small library written
 * here in OpenCL C, as an OpenCL implementation links its builtin library
 * into the kernel before vectorizing it: always inlined, branch-free (special
 * cases are selects), and built only from +, -, *, /, explicit fma
 * (`__builtin_fmaf`, exact on every width) and integer bit manipulation, with
 * contraction off inside them. So the vectorizer widens them like any other
 * code, and the scalar kernel and every vector width compute bit-identical
 * results. Accuracy is within OpenCL 1.2's full profile (exp, log <= 3 ulp;
 * pow <= 16 ulp); tests/test_bench_math.py measures it (exp 0.94 and log
 * 0.84 ulp at most over all floats, pow about 5.6; see docs/bench.md).
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

/* Synchronisation (OpenCL 1.2, 6.12.8): a barrier is a call the kernel
 * cannot see through, so clang keeps it where the source put it. */
#define CLK_LOCAL_MEM_FENCE 1
#define CLK_GLOBAL_MEM_FENCE 2
void __OVL barrier(uint flags);

/* Math (float only). */
__MATH float sqrt(float x) { return __builtin_sqrtf(x); }
__MATH float rsqrt(float x) { return 1.0f / __builtin_sqrtf(x); }
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

/* exp, log, pow: the library described at the top of this file.
 *
 * exp: x = k ln2 + r with k = round(x / ln2) and |r| <= ln2/2 (Cody-Waite with
 * a two-part ln2; the first step is exact), e^r by its Taylor polynomial of
 * degree 7 (truncation about 2^-27 relative), then times 2^k built from the
 * exponent bits, as 2^(k/2) * 2^(k - k/2) so that overflowing and subnormal
 * results come from a single rounding.
 * log: x = 2^k (1 + f) with 1 + f in [sqrt(1/2), sqrt(2)) read from the bits
 * (subnormals scaled by 2^23 first); log(1 + f) = 2 atanh(s), s = f / (2 + f),
 * by the atanh series to s^11, arranged so that f enters exactly.
 * pow: |x|^y = e^(y log|x|) with log|x| in two floats (hi + lo, s to twice
 * the precision), y log|x| split exactly by fma and the low part fed to exp's
 * reduction; then the C99 / OpenCL special cases (zeros, infinities, NaNs,
 * negative x) by selects.
 *
 * Every a*b+c is an explicit fma or deliberately two roundings: contraction
 * is off in these functions, so no `llvm.fmuladd` (fused or not depending on
 * the target and the width) can appear. Integer bit manipulation is unsigned
 * where it could wrap (never undefined behaviour, even on NaN inputs whose
 * lanes are discarded by a select). */
#define __MATH_IMPL static inline __attribute__((always_inline))
#define __FMA __builtin_fmaf
#define __INF __builtin_inff()

#define __LN2_HI 0x1.62e43p-1f     /* ln 2 rounded to float */
#define __LN2_LO -0x1.05c61p-29f   /* ln 2 - __LN2_HI, rounded */
#define __LOG2_E 0x1.715476p+0f    /* 1 / ln 2 */
#define __ROUND_MAGIC 0x1.8p23f    /* adding it rounds |v| < 2^22 to an integer */

/* 2^k for -126 <= k <= 127, from the exponent bits. */
__MATH_IMPL float __cl_pow2i(int k) { return __builtin_astype((uint)(k + 127) << 23, float); }

/* e^(x + xlo), xlo a low-order correction (|xlo| <= ulp(x)); NaN x gives a
 * meaningless finite number (callers select). */
__MATH_IMPL float __cl_exp(float x, float xlo) {
#pragma OPENCL FP_CONTRACT OFF
  /* exp(89) overflows and exp(-104) rounds to +0, so clamping changes no
   * result; the correction is dropped when x was clamped (or is NaN). */
  float xc = x < 89.0f ? x : 89.0f;
  xc = xc > -104.0f ? xc : -104.0f;
  float lo = xc == x ? xlo : 0.0f;
  /* k = round(x / ln2), as a float and as the integer in the low bits of t. */
  float t = __FMA(xc, __LOG2_E, __ROUND_MAGIC);
  float kf = t - __ROUND_MAGIC;
  int k = (int)(__builtin_astype(t, uint) - __builtin_astype(__ROUND_MAGIC, uint));
  /* r = x - k ln2: the first fma is exact (|r| < 1/2 on a grid of 2^-25). */
  float r = __FMA(-kf, __LN2_HI, xc);
  r = r + __FMA(-kf, __LN2_LO, lo);
  /* e^r, Taylor to r^7 / 7!, Horner. */
  float p = 0x1.a01a02p-13f;
  p = __FMA(p, r, 0x1.6c16c2p-10f);
  p = __FMA(p, r, 0x1.111112p-7f);
  p = __FMA(p, r, 0x1.555556p-5f);
  p = __FMA(p, r, 0x1.555556p-3f);
  p = __FMA(p, r, 0x1.0p-1f);
  p = __FMA(p, r, 1.0f);
  p = __FMA(p, r, 1.0f);
  /* k in [-150, 128]: two factors, each a normal power of two; p * 2^k1 is
   * exact, so the result is rounded once even when subnormal. */
  int k1 = k >> 1;
  return p * __cl_pow2i(k1) * __cl_pow2i(k - k1);
}

/* log x = k ln2 + log(1 + f) for finite x >= 0 (subnormals too), and
 * s = f / (2 + f), z = s^2: log(1 + f) = 2 atanh(s) = 2s + s z Q(z). */
typedef struct { float k, f, s, z; } __cl_logparts;

__MATH_IMPL __cl_logparts __cl_log_parts(float x) {
#pragma OPENCL FP_CONTRACT OFF
  __cl_logparts v;
  int sub = x < 0x1p-126f;
  float xs = sub ? x * 0x1p23f : x;
  /* Move the binade boundary to sqrt(1/2): adding 1 - sqrt(1/2) in bits
   * carries into the exponent exactly when the mantissa is >= sqrt(2). */
  uint ix = __builtin_astype(xs, uint) + (0x3f800000u - 0x3f3504f3u);
  v.k = (float)((int)(ix >> 23) - 127 - (sub ? 23 : 0));
  v.f = __builtin_astype((ix & 0x007fffffu) + 0x3f3504f3u, float) - 1.0f; /* exact */
  v.s = v.f / (2.0f + v.f);
  v.z = v.s * v.s;
  return v;
}

/* Q(z) = 2/3 + 2/5 z + 2/7 z^2 + 2/9 z^3 + 2/11 z^4, the atanh series
 * (z <= 0.0295: the next term is below 2^-30 of log(1 + f)). */
__MATH_IMPL float __cl_atanh_q(float z) {
#pragma OPENCL FP_CONTRACT OFF
  float q = __FMA(z, 0x1.745d18p-3f, 0x1.c71c72p-3f);
  q = __FMA(z, q, 0x1.24924ap-2f);
  q = __FMA(z, q, 0x1.99999ap-2f);
  return __FMA(z, q, 0x1.555556p-1f);
}

__MATH float exp(float x) {
  float r = __cl_exp(x, 0.0f);
  return x != x ? x + x : r; /* NaN, quieted */
}

__MATH float log(float x) {
#pragma OPENCL FP_CONTRACT OFF
  __cl_logparts v = __cl_log_parts(x);
  /* log(1 + f) = f - (f^2/2 - s (f^2/2 + z Q)): f enters exactly. */
  float hfsq = 0.5f * v.f * v.f;
  float t = __FMA(v.s, hfsq + v.z * __cl_atanh_q(v.z), v.k * __LN2_LO);
  float r = __FMA(v.k, __LN2_HI, v.f - (hfsq - t));
  r = x == 0.0f ? -__INF : r;
  r = x == __INF ? x : r;
  return x >= 0.0f ? r : __builtin_nanf(""); /* x < 0 or NaN */
}

__MATH float pow(float x, float y) {
#pragma OPENCL FP_CONTRACT OFF
  float ax = __builtin_fabsf(x), ay = __builtin_fabsf(y);
  __cl_logparts v = __cl_log_parts(ax);
  /* log|x| = k ln2 + 2s + s z Q(z) in two floats, hi + lo (about 2^-29
   * relative), since y log|x| can reach 104 and every bit of it counts.
   * s to twice the precision: d = 2 + f exactly as d + d_lo, then the
   * residual f - s (d + d_lo) (the first fma is exact) over d. */
  float d = 2.0f + v.f, d_lo = v.f - (d - 2.0f);
  float rho = __FMA(-v.s, d_lo, __FMA(-v.s, d, v.f));
  float s_lo = rho / d;
  float tail = v.s * v.z * __cl_atanh_q(v.z);
  /* k ln2_hi exactly as a + a_lo; a + 2s by a fast two-sum (|a| >= 2|s|
   * or a = 0), then the small terms. */
  float a = v.k * __LN2_HI, a_lo = __FMA(v.k, __LN2_HI, -a);
  float s2 = 2.0f * v.s;
  float hi = a + s2, hi_err = s2 - (hi - a);
  float small = (tail + 2.0f * s_lo) + (__FMA(v.k, __LN2_LO, a_lo) + hi_err);
  float lh = hi + small, ll = small - (lh - hi);
  /* y log|x| = th + tl, exact up to the rounding of y * ll. */
  float th = y * lh;
  float tl = __FMA(y, ll, __FMA(y, lh, -th));
  float mag = __cl_exp(th, tl);

  /* |x| or |y| zero or infinite: the magnitude is 0 or +inf. */
  float edge = (ax < 1.0f) == (y < 0.0f) ? __INF : 0.0f;
  mag = (ax == 0.0f) | (ax == __INF) | (ay == __INF) ? edge : mag;
  /* Sign: negative x (or -0) to an odd integer power (2^24 and above are
   * even; so are the infinities, which truncate to themselves). */
  int yint = __builtin_truncf(y) == y;
  int odd = yint & (int)(ay < 0x1p24f ? y : 0.0f) & 1;
  float r = odd & (__builtin_astype(x, int) < 0) ? -mag : mag;
  /* Finite negative x to a non-integer power, and NaN inputs: NaN. */
  r = ((x < 0.0f) & (x > -__INF) & !yint) | (x != x) | (y != y) ? __builtin_nanf("") : r;
  /* pow(x, +-0) = 1 for any x, pow(1, y) = 1 for any y, pow(-1, +-inf) = 1. */
  return (y == 0.0f) | (x == 1.0f) | ((x == -1.0f) & (ay == __INF)) ? 1.0f : r;
}

#undef __MATH_IMPL
#undef __FMA
#undef __INF
#undef __LN2_HI
#undef __LN2_LO
#undef __LOG2_E
#undef __ROUND_MAGIC

/* 32-bit global atomics (OpenCL 1.1+ names). Relaxed ordering. */
__MATH int atomic_add(volatile __global int *p, int v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }
__MATH uint atomic_add(volatile __global uint *p, uint v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }
__MATH int atomic_inc(volatile __global int *p) { return __atomic_fetch_add(p, 1, __ATOMIC_RELAXED); }
__MATH uint atomic_inc(volatile __global uint *p) { return __atomic_fetch_add(p, 1u, __ATOMIC_RELAXED); }

#endif
