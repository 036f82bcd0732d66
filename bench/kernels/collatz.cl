// Collatz sequence lengths: a loop whose trip count depends on the work-item.
__kernel void collatz(__global uint *steps, uint start) {
  uint n = start + get_global_id(0);
  uint count = 0;
  while (n != 1u && count < 1000u) {
    n = (n & 1u) ? 3u * n + 1u : n >> 1;
    count++;
  }
  steps[get_global_id(0)] = count;
}
