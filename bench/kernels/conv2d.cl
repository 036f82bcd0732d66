// 2-D convolution with a 5x5 filter, clamp-to-edge addressing.
#define R 2
__kernel void conv2d(__global float *out, __global const float *img, __constant float *filter, int w, int h) {
  int x = get_global_id(0), y = get_global_id(1);
  float acc = 0.0f;
  for (int fy = -R; fy <= R; fy++) {
    int yy = clamp(y + fy, 0, h - 1);
    for (int fx = -R; fx <= R; fx++) {
      int xx = clamp(x + fx, 0, w - 1);
      acc += filter[(fy + R) * (2 * R + 1) + fx + R] * img[yy * w + xx];
    }
  }
  out[y * w + x] = acc;
}
