// Sobel edge magnitude on a float image, clamping coordinates at the border.
__kernel void sobel(__global float *out, __global const float *img, int w, int h) {
  int x = get_global_id(0), y = get_global_id(1);
  int xm = max(x - 1, 0), xp = min(x + 1, w - 1), ym = max(y - 1, 0), yp = min(y + 1, h - 1);
  float a = img[ym * w + xm], b = img[ym * w + x], c = img[ym * w + xp];
  float d = img[y * w + xm], f = img[y * w + xp];
  float g = img[yp * w + xm], k = img[yp * w + x], l = img[yp * w + xp];
  float gx = (c + 2.0f * f + l) - (a + 2.0f * d + g);
  float gy = (g + 2.0f * k + l) - (a + 2.0f * b + c);
  out[y * w + x] = sqrt(gx * gx + gy * gy);
}
