/* Work-group kernels for tests/oracle_harness/test_workgroups.py: barriers,
 * local memory (kernel arguments and arrays declared in the kernel), and
 * kernels that break the rules (barrier divergence, a race before a barrier).
 * The bench prelude declares no barriers: they are declared here. */

typedef enum memory_scope {
  memory_scope_work_item, memory_scope_work_group, memory_scope_device
} memory_scope;
void __attribute__((overloadable, convergent)) barrier(uint flags);
void __attribute__((overloadable, convergent)) work_group_barrier(uint flags);
void __attribute__((overloadable, convergent)) work_group_barrier(uint flags, memory_scope scope);
void __attribute__((overloadable)) mem_fence(uint flags);
void __attribute__((overloadable)) read_mem_fence(uint flags);
void __attribute__((overloadable)) write_mem_fence(uint flags);
#define CLK_LOCAL_MEM_FENCE 1
#define CLK_GLOBAL_MEM_FENCE 2

#define MAXL 64

/* Each work-item writes its slot of a local tile (a kernel argument) and,
 * after the barrier, reads the slot of its mirror image in the group. */
__kernel void tile_reverse(__global const int *in, __global int *out, __local int *tile) {
  size_t l = get_local_id(0), L = get_local_size(0), g = get_global_id(0);
  tile[l] = in[g];
  barrier(CLK_LOCAL_MEM_FENCE);
  out[g] = tile[L - 1 - l];
}

/* Tree reduction in a local array declared in the kernel (a module-level
 * addrspace(3) global); any local size up to MAXL. */
__kernel void reduce_sum(__global const int *in, __global int *out) {
  __local int s[MAXL];
  size_t l = get_local_id(0), L = get_local_size(0);
  s[l] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t st = 1; st < L; st *= 2) {
    if (l % (2 * st) == 0 && l + st < L)
      s[l] += s[l + st];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0)
    out[get_group_id(0)] = s[0];
}

/* Inclusive prefix sum (Hillis-Steele): two barriers per step. */
__kernel void prefix_sum(__global const int *in, __global int *out) {
  __local int s[MAXL];
  size_t l = get_local_id(0), L = get_local_size(0), g = get_global_id(0);
  s[l] = in[g];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t off = 1; off < L; off *= 2) {
    int v = l >= off ? s[l - off] : 0;
    work_group_barrier(CLK_LOCAL_MEM_FENCE);
    s[l] += v;
    work_group_barrier(CLK_LOCAL_MEM_FENCE, memory_scope_work_group);
  }
  out[g] = s[l];
}

/* Barriers inside a loop whose trip count is a kernel argument (uniform):
 * a ring of cells, each step mixing a cell with its neighbours. */
__kernel void ring_steps(__global const uint *in, __global uint *out, int steps) {
  __local uint a[MAXL];
  size_t l = get_local_id(0), L = get_local_size(0), g = get_global_id(0);
  a[l] = in[g];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int i = 0; i < steps; ++i) {
    uint left = a[l == 0 ? L - 1 : l - 1], right = a[l + 1 == L ? 0 : l + 1];
    barrier(CLK_LOCAL_MEM_FENCE);
    a[l] = left + 2u * a[l] + 3u * right;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  out[g] = a[l];
}

/* 3-D groups: a tile indexed by the local linear id, read back mirrored. */
__kernel void cube_mirror(__global const int *in, __global int *out) {
  __local int t[MAXL];
  size_t Lx = get_local_size(0), Ly = get_local_size(1), Lz = get_local_size(2);
  size_t lin = (get_local_id(2) * Ly + get_local_id(1)) * Lx + get_local_id(0);
  size_t gx = get_global_id(0) - get_global_offset(0);
  size_t gy = get_global_id(1) - get_global_offset(1);
  size_t gz = get_global_id(2) - get_global_offset(2);
  size_t gi = (gz * get_global_size(1) + gy) * get_global_size(0) + gx;
  t[lin] = in[gi];
  barrier(CLK_LOCAL_MEM_FENCE);
  out[gi] = t[Lx * Ly * Lz - 1 - lin];
}

/* Fences only: no barrier, so the plain work-item loops run it. */
__kernel void fences_only(__global const int *in, __global int *out) {
  size_t g = get_global_id(0);
  int v = in[g];
  mem_fence(CLK_GLOBAL_MEM_FENCE);
  read_mem_fence(CLK_GLOBAL_MEM_FENCE);
  write_mem_fence(CLK_GLOBAL_MEM_FENCE);
  out[g] = v + 1;
}

/* Barrier divergence: the first work-items return, the others wait. */
__kernel void diverge_return(__global int *out) {
  size_t l = get_local_id(0);
  if (l < 3)
    return;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = 1;
}

/* Barrier divergence: odd and even work-items wait at different barriers. */
__kernel void diverge_sites(__global int *out, __local int *t) {
  size_t l = get_local_id(0);
  if (l & 1) {
    t[l] = 1;
    barrier(CLK_LOCAL_MEM_FENCE);
  } else {
    t[l] = 2;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  out[get_global_id(0)] = t[l];
}

/* Barrier divergence in a loop: work-item l passes l barriers. */
__kernel void diverge_trips(__global int *out) {
  size_t l = get_local_id(0);
  for (size_t i = 0; i < l; ++i)
    barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = (int)l;
}

/* A race: the neighbour's slot is read before the barrier. */
__kernel void read_before_barrier(__global int *out, __local int *t) {
  size_t l = get_local_id(0), L = get_local_size(0);
  t[l] = (int)l + 1;
  int v = t[(l + 1) % L];
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = v;
}
