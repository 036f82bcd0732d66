// Work-group sum reduction: each work-item sums a grid-strided slice of the
// input, then the group adds its partial sums by a tree in __local memory
// (a kernel argument) and work-item 0 writes the group's sum.
__kernel void reduce(__global float *partial, __global const float *in, int n, __local float *scratch) {
  int lid = get_local_id(0);
  int stride = get_global_size(0);
  float s = 0.0f;
  for (int i = get_global_id(0); i < n; i += stride)
    s += in[i];
  scratch[lid] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int off = get_local_size(0) / 2; off > 0; off >>= 1) {
    if (lid < off)
      scratch[lid] += scratch[lid + off];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0)
    partial[get_group_id(0)] = scratch[0];
}
