// Binomial (Cox-Ross-Rubinstein) European call, one option per work-item,
// 64 time steps over a private array: uniform loops, private memory.
#define STEPS 64
__kernel void binomial(__global float *value, __global const float *price, __global const float *strike,
                       float years, float rate, float volatility) {
  int i = get_global_id(0);
  float s = price[i], x = strike[i];
  float dt = years / STEPS;
  float u = exp(volatility * sqrt(dt)), d = 1.0f / u;
  float growth = exp(rate * dt);
  float pu = (growth - d) / (u - d), pd = 1.0f - pu;
  float disc = 1.0f / growth;
  float v[STEPS + 1];
  for (int k = 0; k <= STEPS; k++) {
    float st = s * pow(u, (float)(2 * k - STEPS));
    v[k] = fmax(st - x, 0.0f);
  }
  for (int n = STEPS; n > 0; n--)
    for (int k = 0; k < n; k++)
      v[k] = disc * (pu * v[k + 1] + pd * v[k]);
  value[i] = v[0];
}
