// Tiled matrix multiply C = A * B (n x n, row major, n a multiple of TS):
// each work-group stages TS x TS tiles of A and B in __local memory, with a
// barrier after loading a tile and another before overwriting it.
#define TS 16
__kernel void matmul_tiled(__global float *c, __global const float *a, __global const float *b, int n) {
  __local float ta[TS][TS];
  __local float tb[TS][TS];
  int lx = get_local_id(0), ly = get_local_id(1);
  int col = get_global_id(0), row = get_global_id(1);
  float acc = 0.0f;
  for (int t = 0; t < n; t += TS) {
    ta[ly][lx] = a[row * n + t + lx];
    tb[ly][lx] = b[(t + ly) * n + col];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < TS; k++)
      acc += ta[ly][k] * tb[k][lx];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  c[row * n + col] = acc;
}
