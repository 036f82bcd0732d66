// Naive matrix multiply C = A * B (n x n, row major): one element per work-item.
__kernel void matmul(__global float *c, __global const float *a, __global const float *b, int n) {
  int col = get_global_id(0), row = get_global_id(1);
  float acc = 0.0f;
  for (int k = 0; k < n; k++)
    acc += a[row * n + k] * b[k * n + col];
  c[row * n + col] = acc;
}
