// Scatter with duplicate targets on the GPU (gblas/backend/scatter_cuda.py), for
// GrB_assign's region update w(accum)[I] << u on dense storage. The semiring functors
// gb_add<AOP, T> (gblas.semirings.codegen_cuda.functor_source) are prepended.
//
// Without an accumulator the last occurrence of a target decides: gb_scatter_lastpos takes
// the largest position per target (atomicMax), gb_scatter_last writes each target from it.
// With a monoid accumulator (order-free) gb_scatter_prep puts the monoid's identity into
// targets that have no entry yet and gb_scatter_fold folds every present u(p) into its
// target with a compare-and-swap loop (any element size; 1- and 2-byte elements swap the
// aligned 4-byte word that holds them).

template <typename T, int N> struct gb_word;
template <typename T> struct gb_word<T, 8> { typedef unsigned long long type; };
template <typename T> struct gb_word<T, 4> { typedef unsigned int type; };

template <int AOP, typename T>
__device__ __forceinline__ void gb_atomic_fold(T* addr, T val) {
  if constexpr (sizeof(T) == 8 || sizeof(T) == 4) {
    typedef typename gb_word<T, sizeof(T)>::type W;
    union { T t; W w; } cur, nxt;
    W* a = (W*)addr;
    W old = *a, assumed;
    do {
      assumed = old;
      cur.w = assumed;
      nxt.t = gb_add<AOP, T>(cur.t, val);
      if (nxt.w == assumed) break;
      old = atomicCAS(a, assumed, nxt.w);
    } while (old != assumed);
  } else {
    // 1 or 2 bytes: swap the aligned 32-bit word that holds the element
    typedef typename gb_word<T, 4>::type W;
    W* base = (W*)((unsigned long long)addr & ~3ULL);
    const unsigned shift = (unsigned)((unsigned long long)addr & 3ULL) * 8u;
    const W field = (sizeof(T) == 1 ? 0xffu : 0xffffu) << shift;
    W old = *base, assumed;
    do {
      assumed = old;
      union { T t; unsigned short s; unsigned char c; } cur, nxt;
      cur.s = 0;
      if (sizeof(T) == 1) cur.c = (unsigned char)((assumed & field) >> shift);
      else cur.s = (unsigned short)((assumed & field) >> shift);
      nxt.s = 0;
      nxt.t = gb_add<AOP, T>(cur.t, val);
      const W raw = sizeof(T) == 1 ? (W)nxt.c : (W)nxt.s;
      const W replaced = (assumed & ~field) | (raw << shift);
      if (replaced == assumed) break;
      old = atomicCAS(base, assumed, replaced);
    } while (old != assumed);
  }
}

__global__ void gb_scatter_lastpos(const long long* __restrict__ idx, long long k,
                                   long long* __restrict__ lastpos) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x; p < k; p += stride) {
    atomicMax(&lastpos[idx[p]], p);
  }
}

template <typename TU, typename TC>
__global__ void gb_scatter_last(long long n, const long long* __restrict__ lastpos,
                                const bool* __restrict__ ub, const TU* __restrict__ uv,
                                int u_full, bool* __restrict__ bits, TC* __restrict__ vals) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const long long p = lastpos[i];
    if (p < 0) continue;
    const bool present = u_full || ub[p];
    bits[i] = present;
    if (present) vals[i] = (TC)uv[p];
  }
}

template <typename TC>
__global__ void gb_scatter_prep(const long long* __restrict__ idx, long long k,
                                const bool* __restrict__ ub, int u_full,
                                const bool* __restrict__ bits, TC* __restrict__ vals,
                                TC ident) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x; p < k; p += stride) {
    if (!(u_full || ub[p])) continue;
    const long long i = idx[p];
    if (!bits[i]) vals[i] = ident;
  }
}

template <int AOP, typename TU, typename TC>
__global__ void gb_scatter_fold(const long long* __restrict__ idx, long long k,
                                const bool* __restrict__ ub, const TU* __restrict__ uv,
                                int u_full, bool* __restrict__ bits, TC* __restrict__ vals) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x; p < k; p += stride) {
    if (!(u_full || ub[p])) continue;
    const long long i = idx[p];
    gb_atomic_fold<AOP, TC>(&vals[i], (TC)uv[p]);
    bits[i] = true;
  }
}
