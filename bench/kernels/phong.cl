// Phong-shaded spheres through OpenCL C's vector builtins: a primary ray per
// pixel (normalize), sphere hits (dot, sqrt), a diffuse and a specular term
// (dot, reflect by hand, powr), a sky gradient (mix), and RGBA8 output
// (convert_uchar4_sat). The builtins are only declared here, as clang
// declares them: the builtin library (vectorizer/builtins/library) defines
// them, the oracle's runtime links them into the scalar kernel and the
// vectorizer inlines them before packetization.
typedef float float4 __attribute__((ext_vector_type(4)));
typedef unsigned char uchar4 __attribute__((ext_vector_type(4)));
#define __CL __attribute__((overloadable, const, nothrow))
float4 __CL normalize(float4 v);
float __CL dot(float4 a, float4 b);
float __CL length(float4 v);
float4 __CL mix(float4 a, float4 b, float t);
float __CL powr(float x, float y);
float __CL native_recip(float x);
uchar4 __CL convert_uchar4_sat(float4 v);

__kernel void phong(__global uchar4 *img, __global const float4 *spheres, int count, int w, int h) {
  int px = get_global_id(0), py = get_global_id(1);
  float4 dir = normalize((float4)((2.0f * px - w) / h, (2.0f * py - h) / h, 1.5f, 0.0f));
  float best = 1.0e30f;
  int hit = -1;
  for (int s = 0; s < count; s++) {
    float4 c = spheres[s];
    float4 centre = (float4)(c.xyz, 0.0f);
    float b = dot(centre, dir);
    float disc = b * b - (dot(centre, centre) - c.w * c.w);
    if (disc > 0.0f) {
      float t = b - sqrt(disc);
      if (t > 0.0f && t < best) { best = t; hit = s; }
    }
  }
  float4 colour;
  if (hit >= 0) {
    float4 c = spheres[hit];
    float4 p = best * dir;
    float4 n = normalize(p - (float4)(c.xyz, 0.0f));
    float4 l = normalize((float4)(-4.0f, -4.0f, -2.0f, 0.0f) - p);
    float nl = dot(n, l);
    float diffuse = fmax(nl, 0.0f);
    float4 r = 2.0f * nl * n - l;
    float spec = powr(fmax(-dot(r, dir), 0.0f), 24.0f);
    float4 base = (float4)(0.9f, 0.35f + 0.5f * (hit & 1), 0.25f, 1.0f);
    float fade = native_recip(1.0f + 0.02f * length(p));
    colour = (base * (0.1f + 0.9f * diffuse) + spec) * fade;
    colour.w = 1.0f;
  } else {
    colour = mix((float4)(1.0f, 1.0f, 1.0f, 1.0f), (float4)(0.4f, 0.6f, 1.0f, 1.0f), 0.5f * (dir.y + 1.0f));
  }
  img[py * w + px] = convert_uchar4_sat(colour * 255.0f);
}
