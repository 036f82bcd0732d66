// Ray-sphere shading: a primary ray per pixel against a list of spheres;
// the nearest hit is shaded with a diffuse light, misses get a sky gradient.
// Divergent branches (hit or miss, nearer or not) inside a uniform loop.
__kernel void ray_sphere(__global float *rgb, __global const float *spheres, int count, int w, int h) {
  int px = get_global_id(0), py = get_global_id(1);
  float dx = (2.0f * px - w) / h, dy = (2.0f * py - h) / h, dz = 1.5f;
  float inv = rsqrt(dx * dx + dy * dy + dz * dz);
  dx *= inv; dy *= inv; dz *= inv;
  float best = 1.0e30f;
  int hit = -1;
  for (int s = 0; s < count; s++) {
    float cx = spheres[4 * s], cy = spheres[4 * s + 1], cz = spheres[4 * s + 2], r = spheres[4 * s + 3];
    float b = cx * dx + cy * dy + cz * dz;
    float c = cx * cx + cy * cy + cz * cz - r * r;
    float disc = b * b - c;
    if (disc > 0.0f) {
      float t = b - sqrt(disc);
      if (t > 0.0f && t < best) { best = t; hit = s; }
    }
  }
  float red, green, blue;
  if (hit >= 0) {
    float nx = (best * dx - spheres[4 * hit]) / spheres[4 * hit + 3];
    float ny = (best * dy - spheres[4 * hit + 1]) / spheres[4 * hit + 3];
    float nz = (best * dz - spheres[4 * hit + 2]) / spheres[4 * hit + 3];
    float lambert = fmax(0.0f, -0.577f * nx - 0.577f * ny - 0.577f * nz);
    red = 0.1f + 0.9f * lambert; green = 0.1f + 0.6f * lambert * (hit & 1); blue = 0.1f + 0.4f * lambert;
  } else {
    float sky = 0.5f * (dy + 1.0f);
    red = 1.0f - 0.5f * sky; green = 1.0f - 0.3f * sky; blue = 1.0f;
  }
  int o = 3 * (py * w + px);
  rgb[o] = red; rgb[o + 1] = green; rgb[o + 2] = blue;
}
