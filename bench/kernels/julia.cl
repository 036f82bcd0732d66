// Julia set z -> z^2 + c for a fixed c; the escape iteration is smoothed into
// a float shade, so the kernel stores floats after a divergent loop.
__kernel void julia(__global float *out, float x0, float y0, float step, float cr, float ci) {
  int px = get_global_id(0), py = get_global_id(1);
  float zr = x0 + px * step, zi = y0 + py * step;
  int n = 0;
  float r2 = zr * zr + zi * zi;
  while (n < 200 && r2 < 16.0f) {
    float t = zr * zr - zi * zi + cr;
    zi = 2.0f * zr * zi + ci;
    zr = t;
    r2 = zr * zr + zi * zi;
    n++;
  }
  float shade = n == 200 ? 0.0f : (float)n + 1.0f - log(log(sqrt(r2))) * 1.442695f;
  out[py * get_global_size(0) + px] = shade;
}
