// SAXPY y = a x + y: the memory-bound baseline every vectorizer handles.
__kernel void saxpy(__global float *y, __global const float *x, float a) {
  int i = get_global_id(0);
  y[i] = a * x[i] + y[i];
}
