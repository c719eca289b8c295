// Element-wise union (ewise_add) and intersection (ewise_mult) of two CSR matrices of one
// shape: each row pair merged by one thread (both rows sorted), in two passes: count, then
// fill columns and values into rows sized by the scan of the counts. Bytes: A's and B's
// indices and values read once (twice for the indices), the result written once; a
// thread per row, so a row of length L costs one thread L steps (hub rows of skewed
// graphs: ~100 K steps, a millisecond, against tens of ms for sorted global keys).

// counts[i] = entries of row i of A ∪ B (UNION) or A ∩ B
template <bool UNION>
__global__ void csr_merge_count(const long long n, const long long* __restrict__ a_ptr,
                                const long long* __restrict__ a_idx,
                                const long long* __restrict__ b_ptr,
                                const long long* __restrict__ b_idx,
                                long long* __restrict__ counts) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    long long p = a_ptr[i], pe = a_ptr[i + 1], q = b_ptr[i], qe = b_ptr[i + 1], c = 0;
    while (p < pe && q < qe) {
      const long long ja = a_idx[p], jb = b_idx[q];
      c += (ja == jb) || UNION;
      p += (ja <= jb);
      q += (jb <= ja);
    }
    if (UNION) c += (pe - p) + (qe - q);
    counts[i] = c;
  }
}

// op(a, b) in the domain TD -> TZ: POS 0 the operator OP, 1 the row + OFF, 2 the column
// + OFF (positional operators: firsti/secondi, firstj/secondj)
template <int OP, int POS, int OFF, typename TD, typename TZ>
__device__ __forceinline__ TZ gb_ewise(TD a, TD b, long long i, long long j) {
  if constexpr (POS == 1) return (TZ)(i + OFF);
  else if constexpr (POS == 2) return (TZ)(j + OFF);
  else return gb_mult<OP, TD, TZ>(a, b, i, j, j);
}

// the merge again, writing each entry's column and value at o_ptr[i]...; an entry only in
// A (B) takes A's (B's) own value cast to TZ, one in both op(a, b)
template <bool UNION, int OP, int POS, int OFF, typename TA, typename TB, typename TD,
          typename TZ>
__global__ void csr_merge_fill(const long long n, const long long* __restrict__ a_ptr,
                               const long long* __restrict__ a_idx, const TA* __restrict__ av,
                               const long long* __restrict__ b_ptr,
                               const long long* __restrict__ b_idx, const TB* __restrict__ bv,
                               const long long* __restrict__ o_ptr,
                               long long* __restrict__ o_idx, TZ* __restrict__ o_val) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    long long p = a_ptr[i], pe = a_ptr[i + 1], q = b_ptr[i], qe = b_ptr[i + 1], o = o_ptr[i];
    while (p < pe && q < qe) {
      const long long ja = a_idx[p], jb = b_idx[q];
      if (ja == jb) {
        o_idx[o] = ja;
        o_val[o++] = gb_ewise<OP, POS, OFF, TD, TZ>((TD)av[p], (TD)bv[q], i, ja);
        ++p;
        ++q;
      } else if (ja < jb) {
        if (UNION) { o_idx[o] = ja; o_val[o++] = (TZ)av[p]; }
        ++p;
      } else {
        if (UNION) { o_idx[o] = jb; o_val[o++] = (TZ)bv[q]; }
        ++q;
      }
    }
    if (UNION) {
      for (; p < pe; ++p) { o_idx[o] = a_idx[p]; o_val[o++] = (TZ)av[p]; }
      for (; q < qe; ++q) { o_idx[o] = b_idx[q]; o_val[o++] = (TZ)bv[q]; }
    }
  }
}
