// HDR tone mapping of an RGB float image to 8-bit: Reinhard's operator on
// the luminance, a gamma curve (powr), a smoothstep vignette and rounding
// saturating conversions (convert_uchar_sat_rte). Scalar float builtins,
// only declared here, as clang declares them: the builtin library
// (vectorizer/builtins/library) defines them, the oracle's runtime links
// them into the scalar kernel and the vectorizer inlines them.
#define __CL __attribute__((overloadable, const, nothrow))
float __CL powr(float x, float y);
float __CL smoothstep(float e0, float e1, float x);
float __CL native_divide(float x, float y);
float __CL log1p(float x);
uchar __CL convert_uchar_sat_rte(float x);

__kernel void tonemap(__global uchar *rgb8, __global const float *hdr, int w, float exposure, float inv_gamma) {
  int i = get_global_id(0);
  float r = hdr[3 * i], g = hdr[3 * i + 1], b = hdr[3 * i + 2];
  float lum = 0.2126f * r + 0.7152f * g + 0.0722f * b;
  float l = lum * exposure;
  float mapped = native_divide(l * (1.0f + log1p(l) * 0.125f), 1.0f + l);
  float scale = native_divide(mapped, fmax(lum, 1.0e-6f));
  float x = (float)(i % w) / w - 0.5f, y = (float)(i / w) / w - 0.5f;
  float vignette = 1.0f - 0.6f * smoothstep(0.2f, 0.75f, sqrt(x * x + y * y));
  float k = scale * vignette;
  rgb8[3 * i] = convert_uchar_sat_rte(255.0f * powr(clamp(r * k, 0.0f, 1.0f), inv_gamma));
  rgb8[3 * i + 1] = convert_uchar_sat_rte(255.0f * powr(clamp(g * k, 0.0f, 1.0f), inv_gamma));
  rgb8[3 * i + 2] = convert_uchar_sat_rte(255.0f * powr(clamp(b * k, 0.0f, 1.0f), inv_gamma));
}
