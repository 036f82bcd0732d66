// N-body: the acceleration on body i from all n bodies (softened gravity),
// then a velocity update. The inner loop is uniform; its loads are uniform.
__kernel void nbody(__global float *vel, __global const float *pos, __global const float *mass,
                    int n, float dt, float soft) {
  int i = get_global_id(0);
  float xi = pos[3 * i], yi = pos[3 * i + 1], zi = pos[3 * i + 2];
  float ax = 0.0f, ay = 0.0f, az = 0.0f;
  for (int j = 0; j < n; j++) {
    float dx = pos[3 * j] - xi, dy = pos[3 * j + 1] - yi, dz = pos[3 * j + 2] - zi;
    float r2 = dx * dx + dy * dy + dz * dz + soft;
    float inv = rsqrt(r2);
    float f = mass[j] * inv * inv * inv;
    ax += f * dx; ay += f * dy; az += f * dz;
  }
  vel[3 * i] += dt * ax;
  vel[3 * i + 1] += dt * ay;
  vel[3 * i + 2] += dt * az;
}
