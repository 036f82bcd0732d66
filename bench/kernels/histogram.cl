// 256-bin histogram of bytes: each work-item classifies 4 input words
// (16 bytes) and increments bins with global atomics.
__kernel void histogram(__global uint *bins, __global const uint *data) {
  int i = get_global_id(0);
  for (int k = 0; k < 4; k++) {
    uint word = data[4 * i + k];
    for (int b = 0; b < 4; b++)
      atomic_inc(&bins[(word >> (8 * b)) & 255u]);
  }
}
