// Sparse matrix-vector product y = A x, A in CSR form: one row per work-item.
// Row lengths differ (divergent loop) and x is gathered through the column indices.
__kernel void spmv_csr(__global float *y, __global const int *row_ptr, __global const int *cols,
                       __global const float *vals, __global const float *x) {
  int row = get_global_id(0);
  float acc = 0.0f;
  for (int k = row_ptr[row]; k < row_ptr[row + 1]; k++)
    acc += vals[k] * x[cols[k]];
  y[row] = acc;
}
