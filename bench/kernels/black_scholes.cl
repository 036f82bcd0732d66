// Black-Scholes European call and put prices, one option per work-item.
// The cumulative normal uses the Abramowitz-Stegun polynomial with a select.
static float cnd(float d) {
  const float a1 = 0.31938153f, a2 = -0.356563782f, a3 = 1.781477937f;
  const float a4 = -1.821255978f, a5 = 1.330274429f;
  float k = 1.0f / (1.0f + 0.2316419f * fabs(d));
  float poly = k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5))));
  float c = 0.398942280f * exp(-0.5f * d * d) * poly;
  return d > 0.0f ? 1.0f - c : c;
}

__kernel void black_scholes(__global float *call, __global float *put, __global const float *price,
                            __global const float *strike, __global const float *years,
                            float rate, float volatility) {
  int i = get_global_id(0);
  float s = price[i], x = strike[i], t = years[i];
  float sqrt_t = sqrt(t);
  float d1 = (log(s / x) + (rate + 0.5f * volatility * volatility) * t) / (volatility * sqrt_t);
  float d2 = d1 - volatility * sqrt_t;
  float discount = x * exp(-rate * t);
  float c1 = cnd(d1), c2 = cnd(d2);
  call[i] = s * c1 - discount * c2;
  put[i] = discount * (1.0f - c2) - s * (1.0f - c1);
}
