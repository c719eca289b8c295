// One pass over CSR arrays uploaded from the host (gblas/formats/csr/check_cuda.py): whether
// they are in SciPy's canonical form (row pointers non-decreasing, column ids strictly
// increasing within each row), the smallest and largest column id, and the ids widened to
// int64. Replaces a chain of CuPy reductions, each with its own allocation, read back and,
// for a new size class, NVRTC compile (docs/benchmarks.md, "The first BFS on a new graph").
//
// out[0]  entries e > 0 with idx[e] <= idx[e - 1] (descents);
// out[1]  rows r whose first entry s = ptr[r] (0 < s < nnz, row not empty) is a descent:
//         a descent at a row start is allowed, so the arrays are canonical iff
//         out[0] == out[1] and out[4] == 0;
// out[2]  the largest column id (out[2] starts at CK_LOWEST);
// out[3]  the smallest (starts at CK_HIGHEST);
// out[4]  rows with ptr[r + 1] < ptr[r].
// Counts are summed per warp before one atomic a warp.

#define CK_FULL 0xffffffffu
#define CK_HIGHEST 0x7fffffffffffffffLL
#define CK_LOWEST (-CK_HIGHEST - 1)

__device__ __forceinline__ long long ck_sum(long long x) {
  for (int o = 16; o; o >>= 1) x += __shfl_xor_sync(CK_FULL, x, o);
  return x;
}

__device__ __forceinline__ long long ck_max(long long x) {
  for (int o = 16; o; o >>= 1) x = max(x, (long long)__shfl_xor_sync(CK_FULL, x, o));
  return x;
}

__device__ __forceinline__ long long ck_min(long long x) {
  for (int o = 16; o; o >>= 1) x = min(x, (long long)__shfl_xor_sync(CK_FULL, x, o));
  return x;
}

template <class Idx>
__global__ void csr_check(const long long* __restrict__ ptr, long long nrows,
                          const Idx* __restrict__ idx, long long nnz, long long* wide,
                          long long* out) {
  const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long nth = (long long)gridDim.x * blockDim.x;
  const long long span = max(nnz, nrows);
  long long desc = 0, starts = 0, lo = CK_HIGHEST, hi = CK_LOWEST, back = 0;
  // every lane runs the same number of rounds, so the warp's shuffles line up
  for (long long base = tid - (threadIdx.x & 31); base < span; base += nth) {
    const long long e = base + (threadIdx.x & 31);
    if (e < nnz) {
      const long long v = (long long)idx[e];
      if (wide) wide[e] = v;
      lo = min(lo, v);
      hi = max(hi, v);
      if (e > 0 && v <= (long long)idx[e - 1]) ++desc;
    }
    if (e < nrows) {
      const long long s = ptr[e], t = ptr[e + 1];
      if (t < s) ++back;
      else if (t > s && s > 0 && s < nnz && (long long)idx[s] <= (long long)idx[s - 1])
        ++starts;
    }
  }
  desc = ck_sum(desc);
  starts = ck_sum(starts);
  back = ck_sum(back);
  lo = ck_min(lo);
  hi = ck_max(hi);
  if ((threadIdx.x & 31) == 0) {
    if (desc) atomicAdd((unsigned long long*)&out[0], (unsigned long long)desc);
    if (starts) atomicAdd((unsigned long long*)&out[1], (unsigned long long)starts);
    if (hi != CK_LOWEST) atomicMax(&out[2], hi);
    if (lo != CK_HIGHEST) atomicMin(&out[3], lo);
    if (back) atomicAdd((unsigned long long*)&out[4], (unsigned long long)back);
  }
}
