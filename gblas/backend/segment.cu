// Segmented reduction over a built-in monoid (gb_add<AOP> from the generated functors).
// Used by gblas.backend.keys.segment_reduce on CuPy arrays.

// ---------------------------------------------------------------------------- reduce
// out[s] = (+) of vals[starts[s] : starts[s+1]] (the last segment ends at n); one thread
// per segment, in order (non-commutative-safe). Logical monoids normalise a lone value to
// (x != 0), as NumPy's logical ufuncs do on the CPU. Bytes: 8 per segment + sizeof(TZ)
// per value.
template <int AOP, typename TZ>
__global__ void segment_reduce(const TZ* __restrict__ vals, long long n,
                               const long long* __restrict__ starts, long long nseg,
                               TZ* __restrict__ out) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long s = (long long)blockIdx.x * blockDim.x + threadIdx.x; s < nseg;
       s += stride) {
    const long long lo = starts[s], hi = s + 1 < nseg ? starts[s + 1] : n;
    TZ acc = vals[lo];
    if constexpr (AOP == GB_OP_LOR || AOP == GB_OP_LAND || AOP == GB_OP_LXOR ||
                  AOP == GB_OP_LXNOR || AOP == GB_OP_EQ) {
      acc = (TZ)(acc != (TZ)0);
    }
    for (long long p = lo + 1; p < hi; ++p) acc = gb_add<AOP, TZ>(acc, vals[p]);
    out[s] = acc;
  }
}
