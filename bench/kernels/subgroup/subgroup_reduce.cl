// Integer sum reduction with a sub-group reduction (cl_khr_subgroups): each
// work-item sums a grid-strided slice of the input, its sub-group adds the
// partial sums with sub_group_reduce_add, and the first work-item of each
// sub-group adds that to its work-group's total with one atomic. Integers,
// so every sub-group size and every order of additions gives the same bits.
int __OVL sub_group_reduce_add(int x);
uint __OVL get_sub_group_local_id(void);

__kernel void subgroup_reduce(__global int *sums, __global const int *in, int n) {
  int stride = get_global_size(0);
  int s = 0;
  for (int i = get_global_id(0); i < n; i += stride)
    s += in[i];
  int t = sub_group_reduce_add(s);
  if (get_sub_group_local_id() == 0)
    atomic_add(&sums[get_group_id(0)], t);
}
