// Work-group inclusive prefix sum of PER items per work-item (integers, so
// every order of additions gives the same bits): each work-item scans its
// own run sequentially, the group scans the runs' totals in __local memory
// (Hillis-Steele, double-buffered, a barrier per step), and each work-item
// adds the total of the runs before its own.
#define PER 8
#define WG 256
__kernel void prefix_sum(__global int *out, __global const int *in) {
  __local int sums[2][WG];
  int lid = get_local_id(0), lsz = get_local_size(0);
  int base = get_global_id(0) * PER;
  int run[PER];
  int acc = 0;
  for (int k = 0; k < PER; k++) {
    acc += in[base + k];
    run[k] = acc;
  }
  int cur = 0;
  sums[0][lid] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int off = 1; off < lsz; off <<= 1) {
    int v = sums[cur][lid];
    if (lid >= off)
      v += sums[cur][lid - off];
    sums[1 - cur][lid] = v;
    cur = 1 - cur;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  int before = lid > 0 ? sums[cur][lid - 1] : 0;
  for (int k = 0; k < PER; k++)
    out[base + k] = run[k] + before;
}
