/* Sub-group builtins and work-group collectives (cl_khr_subgroups,
 * cl_khr_subgroup_shuffle(_relative), cl_khr_subgroup_ballot, OpenCL 2.0
 * work-group functions), for tests/oracle_harness/test_subgroups.py. */
typedef uint uint4 __attribute__((ext_vector_type(4)));
uint __OVL get_sub_group_size(void);
uint __OVL get_max_sub_group_size(void);
uint __OVL get_num_sub_groups(void);
uint __OVL get_sub_group_id(void);
uint __OVL get_sub_group_local_id(void);
void __OVL sub_group_barrier(uint flags);
int __OVL sub_group_all(int p);
int __OVL sub_group_any(int p);
int __OVL sub_group_broadcast(int x, uint id);
int __OVL sub_group_reduce_add(int x);
int __OVL sub_group_reduce_min(int x);
uint __OVL sub_group_reduce_max(uint x);
float __OVL sub_group_reduce_add(float x);
int __OVL sub_group_scan_inclusive_add(int x);
int __OVL sub_group_scan_exclusive_add(int x);
int __OVL sub_group_scan_inclusive_min(int x);
int __OVL sub_group_scan_exclusive_max(int x);
float __OVL sub_group_scan_inclusive_add(float x);
float __OVL sub_group_scan_exclusive_max(float x);
int __OVL sub_group_shuffle(int x, uint id);
int __OVL sub_group_shuffle_xor(int x, uint mask);
int __OVL sub_group_shuffle_up(int x, uint delta);
int __OVL sub_group_shuffle_down(int x, uint delta);
uint4 __OVL sub_group_ballot(int p);
int __OVL work_group_reduce_add(int x);
int __OVL work_group_scan_inclusive_add(int x);
int __OVL work_group_scan_exclusive_max(int x);
int __OVL work_group_all(int p);
int __OVL work_group_any(int p);
int __OVL work_group_broadcast(int x, size_t id);

/* Linear id in the NDRange (the tests use 1-D and 2-D ranges). */
static size_t gl(void) { return get_global_id(1) * get_global_size(0) + get_global_id(0); }

__kernel void queries(__global uint *out) {
  size_t g = gl();
  out[5 * g + 0] = get_sub_group_size();
  out[5 * g + 1] = get_max_sub_group_size();
  out[5 * g + 2] = get_num_sub_groups();
  out[5 * g + 3] = get_sub_group_id();
  out[5 * g + 4] = get_sub_group_local_id();
}

__kernel void reductions(__global int *out, __global float *fout, __global const int *in,
                         __global const float *fin) {
  size_t g = gl();
  int x = in[g];
  float f = fin[g];
  out[8 * g + 0] = sub_group_reduce_add(x);
  out[8 * g + 1] = sub_group_reduce_min(x);
  out[8 * g + 2] = (int)sub_group_reduce_max((uint)x);
  out[8 * g + 3] = sub_group_scan_inclusive_add(x);
  out[8 * g + 4] = sub_group_scan_exclusive_add(x);
  out[8 * g + 5] = sub_group_scan_inclusive_min(x);
  out[8 * g + 6] = sub_group_scan_exclusive_max(x);
  out[8 * g + 7] = sub_group_all(x > -900) + 2 * sub_group_any(x > 900);
  fout[3 * g + 0] = sub_group_reduce_add(f);
  fout[3 * g + 1] = sub_group_scan_inclusive_add(f);
  fout[3 * g + 2] = sub_group_scan_exclusive_max(f);
}

__kernel void shuffles(__global int *out, __global const int *in) {
  size_t g = gl();
  int x = in[g];
  uint l = get_sub_group_local_id(), n = get_sub_group_size();
  out[6 * g + 0] = sub_group_shuffle(x, (l + 1) % n);
  out[6 * g + 1] = sub_group_shuffle_xor(x, 1u);
  out[6 * g + 2] = sub_group_shuffle_up(x, 1u);
  out[6 * g + 3] = sub_group_shuffle_down(x, 2u);
  out[6 * g + 4] = sub_group_broadcast(x, 1u);
  out[6 * g + 5] = 0;
}

/* Sub-group members exchange values through __local memory. */
__kernel void exchange(__global int *out, __global const int *in, __local int *tmp) {
  size_t g = gl();
  size_t l = get_local_id(1) * get_local_size(0) + get_local_id(0);
  tmp[l] = in[g];
  sub_group_barrier(CLK_LOCAL_MEM_FENCE);
  uint first = l - get_sub_group_local_id();
  out[g] = tmp[first] + 1000 * (int)get_sub_group_local_id();
}

__kernel void group_collectives(__global int *out, __global const int *in) {
  size_t g = gl();
  int x = in[g];
  out[5 * g + 0] = work_group_reduce_add(x);
  out[5 * g + 1] = work_group_scan_inclusive_add(x);
  out[5 * g + 2] = work_group_scan_exclusive_max(x);
  out[5 * g + 3] = work_group_all(x > -900) + 2 * work_group_any(x > 900);
  out[5 * g + 4] = 0;
}

__kernel void group_broadcast(__global int *out, __global const int *in) {
  size_t g = gl();
  out[g] = work_group_broadcast(in[g], 3);
}

__kernel void ballot(__global uint *out, __global const int *in) {
  size_t g = gl();
  uint4 b = sub_group_ballot(in[g] & 1);
  out[g] = b.x;
}

/* Work-item 1 of every sub-group skips the reduction: the input's fault. */
__kernel void skipped(__global int *out, __global const int *in) {
  size_t g = gl();
  int x = in[g];
  if (get_sub_group_local_id() != 1)
    x = sub_group_reduce_add(x);
  out[g] = x;
}

/* A work-group broadcast from a 2-D local id. */
int __OVL work_group_broadcast(int x, size_t lx, size_t ly);
__kernel void group_broadcast_2d(__global int *out, __global const int *in) {
  size_t g = gl();
  out[g] = work_group_broadcast(in[g], 5, 1) + work_group_broadcast(in[g], 2, 0);
}

float __OVL work_group_reduce_add(float x);
float __OVL work_group_scan_inclusive_add(float x);
float __OVL work_group_scan_exclusive_add(float x);
float __OVL work_group_scan_inclusive_min(float x);
__kernel void group_float(__global float *out, __global const float *in) {
  size_t g = gl();
  float x = in[g];
  out[4 * g + 0] = work_group_reduce_add(x);
  out[4 * g + 1] = work_group_scan_inclusive_add(x);
  out[4 * g + 2] = work_group_scan_exclusive_add(x);
  out[4 * g + 3] = work_group_scan_inclusive_min(x);
}

uint __OVL sub_group_ballot_bit_count(uint4 v);
uint __OVL sub_group_ballot_inclusive_scan(uint4 v);
uint __OVL sub_group_ballot_exclusive_scan(uint4 v);
uint __OVL sub_group_ballot_find_lsb(uint4 v);
uint __OVL sub_group_ballot_find_msb(uint4 v);
int __OVL sub_group_inverse_ballot(uint4 v);
int __OVL sub_group_ballot_bit_extract(uint4 v, uint index);
__kernel void ballot_bits(__global uint *out, __global const int *in) {
  size_t g = gl();
  uint4 b = sub_group_ballot(in[g] & 1);
  out[7 * g + 0] = sub_group_ballot_bit_count(b);
  out[7 * g + 1] = sub_group_ballot_inclusive_scan(b);
  out[7 * g + 2] = sub_group_ballot_exclusive_scan(b);
  out[7 * g + 3] = sub_group_ballot_find_lsb(b);
  out[7 * g + 4] = sub_group_ballot_find_msb(b);
  out[7 * g + 5] = sub_group_inverse_ballot(b);
  out[7 * g + 6] = sub_group_ballot_bit_extract(b, 1u);
}

/* Collectives under branches and loops on sub-group-uniform values (a vote,
 * a reduction): the packet takes them as one. */
int __OVL sub_group_reduce_max(int x);
__kernel void uniform_flow(__global int *out, __global const int *in) {
  size_t g = gl();
  int x = in[g] % 1000;
  int r = 0;
  if (sub_group_any(x > 990)) {
    r = sub_group_reduce_max(x);
  } else {
    r = sub_group_broadcast(x, 0) + 7;
  }
  int m = sub_group_reduce_max(x);
  for (int i = 0; i < (m & 7); i++)
    r += sub_group_broadcast(x + i, 1);
  out[g] = r;
}
