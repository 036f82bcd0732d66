// 2-D 5-point stencil on a w x h grid with a one-cell halo staged in
// __local memory: every work-item loads its cell, the work-items on the
// tile's edges also load the neighbouring cells beyond it (clamped to the
// grid), a barrier, then each work-item computes from the tile alone.
#define TX 32
#define TY 8
__kernel void stencil_halo(__global float *out, __global const float *in, int w, int h) {
  __local float tile[TY + 2][TX + 2];
  int lx = get_local_id(0), ly = get_local_id(1);
  int x = get_global_id(0), y = get_global_id(1);
  int xm = max(x - 1, 0), xp = min(x + 1, w - 1);
  int ym = max(y - 1, 0), yp = min(y + 1, h - 1);
  tile[ly + 1][lx + 1] = in[y * w + x];
  if (lx == 0)
    tile[ly + 1][0] = in[y * w + xm];
  if (lx == TX - 1)
    tile[ly + 1][TX + 1] = in[y * w + xp];
  if (ly == 0)
    tile[0][lx + 1] = in[ym * w + x];
  if (ly == TY - 1)
    tile[TY + 1][lx + 1] = in[yp * w + x];
  barrier(CLK_LOCAL_MEM_FENCE);
  float c = tile[ly + 1][lx + 1];
  float lap = tile[ly + 1][lx] + tile[ly + 1][lx + 2] + tile[ly][lx + 1] + tile[ly + 2][lx + 1] - 4.0f * c;
  out[y * w + x] = c + 0.125f * lap;
}
