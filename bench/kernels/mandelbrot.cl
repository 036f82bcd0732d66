// Mandelbrot: one pixel per work-item, up to 256 iterations while |z|^2 < 4.
__kernel void mandelbrot(__global int *out, float x0, float y0, float step) {
  int px = get_global_id(0), py = get_global_id(1);
  float cr = x0 + px * step, ci = y0 + py * step, zr = 0.0f, zi = 0.0f;
  int n = 0;
  while (n < 256 && zr * zr + zi * zi < 4.0f) { float t = zr * zr - zi * zi + cr; zi = 2.0f * zr * zi + ci; zr = t; n++; }
  out[py * get_global_size(0) + px] = n;
}
