// CSR kernels for masked mxm on the GPU (CuPy RawModule, -std=c++17): dot products at the
// mask's entries, and the expansion step of the memory-bounded saxpy.
//
// The semiring functors gb_mult<MOP, TD, TZ> / gb_add<AOP, TZ> come from
// gblas.semirings.codegen_cuda.functor_source(), prepended by gblas/formats/csr/mxm_cuda.py
// (scripts/check_cuda.sh does the same for nvcc). Template arguments as in mxv.cu: MOP/AOP
// opcodes, TD the multiply domain (operands cast to it beforehand), TZ the output type,
// UL/UR whether the multiply reads A's / B's values (a structure-only semiring such as
// plus_pair reads no value array at all). Index arrays are int64; an iso operand passes one
// value and a flag. Positional multiplies get (i, k, j) of the product.

#define GB_MXM_FULL 0xffffffffu

// Largest r in [lo, hi) with ptr[r] <= p, for a sorted ptr with ptr[lo] <= p: the row of
// entry p in a CSR indptr (empty rows before it are skipped), or the entry of product p in
// a prefix of product counts.
__device__ __forceinline__ long long gb_last_le(const long long* __restrict__ ptr,
                                                long long lo, long long hi, long long p) {
  while (hi - lo > 1) {
    const long long mid = (lo + hi) >> 1;
    if (ptr[mid] <= p) lo = mid; else hi = mid;
  }
  return lo;
}

// First position in a[lo, hi) (sorted) whose value is >= x: galloping from lo, then a
// binary search (the CPU kernel's _lower_bound): O(log distance), not O(log length).
__device__ __forceinline__ long long gb_gallop(const long long* __restrict__ a, long long lo,
                                               long long hi, long long x) {
  long long step = 1;
  while (lo + step < hi && a[lo + step] < x) {
    lo += step;
    step <<= 1;
  }
  hi = min(hi, lo + step + 1);
  while (lo < hi) {
    const long long mid = (lo + hi) >> 1;
    if (a[mid] < x) lo = mid + 1; else hi = mid;
  }
  return lo;
}

// ---------------------------------------------------------------------------- dot, light
// T(i,j) = (+)_k A(i,k) (x) B(k,j) for each mask entry pm = (i, j): one thread per entry,
// intersecting row i of A with row j of Bᵀ exactly as the CPU kernel does (sorted merge, or
// galloping through the longer row when it is > 8x the shorter), products folded in k order,
// stopping at the first product (first_wins: any, first) or at the monoid's terminal.
// Entries whose rows are both longer than `heavy` are left to the warp kernel (state 2).
// state[pm]: 0 no common k, 1 a value, 2 deferred. Bytes per entry: 8 (j) + 32 (row
// bounds; the binary search for i hits cache) + 8 per index read of both rows [+ sizeof(TD)
// per product read] + 1 + sizeof(TZ) written.
template <int MOP, int AOP, typename TD, typename TZ, bool UL, bool UR>
__global__ void mxm_dot_thread(const long long* __restrict__ a_ptr,
                               const long long* __restrict__ a_idx,
                               const TD* __restrict__ avals, int a_iso,
                               const long long* __restrict__ bt_ptr,
                               const long long* __restrict__ bt_idx,
                               const TD* __restrict__ bvals, int b_iso,
                               const long long* __restrict__ m_ptr,
                               const long long* __restrict__ m_idx, long long nrows,
                               long long nnz_m, const TZ* __restrict__ params,
                               int has_term, int first_wins, long long heavy,
                               signed char* __restrict__ state, TZ* __restrict__ out_vals) {
  const TZ ident = params[0];
  const TZ term = params[1];
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long pm = (long long)blockIdx.x * blockDim.x + threadIdx.x; pm < nnz_m;
       pm += stride) {
    const long long i = gb_last_le(m_ptr, 0, nrows, pm);
    const long long j = m_idx[pm];
    long long pa = a_ptr[i], pb = bt_ptr[j];
    const long long ea = a_ptr[i + 1], eb = bt_ptr[j + 1];
    const long long la = ea - pa, lb = eb - pb;
    if (la > heavy && lb > heavy) {
      state[pm] = 2;
      continue;
    }
    // 0: merge; 1: row i is short, gallop in row j; 2: row j is short, gallop in row i
    const int mode = la * 8 < lb ? 1 : (lb * 8 < la ? 2 : 0);
    bool found = false;
    TZ acc = ident;
    while (pa < ea && pb < eb) {
      const long long ka = a_idx[pa], kb = bt_idx[pb];
      if (ka == kb) {
        TD a = TD(), b = TD();
        if constexpr (UL) a = a_iso ? avals[0] : avals[pa];
        if constexpr (UR) b = b_iso ? bvals[0] : bvals[pb];
        const TZ t = gb_mult<MOP, TD, TZ>(a, b, i, ka, j);
        acc = found ? gb_add<AOP, TZ>(acc, t) : t;
        found = true;
        if (first_wins || (has_term && acc == term)) break;
        ++pa;
        ++pb;
      } else if (ka < kb) {
        pa = mode == 2 ? gb_gallop(a_idx, pa + 1, ea, kb) : pa + 1;
      } else {
        pb = mode == 1 ? gb_gallop(bt_idx, pb + 1, eb, ka) : pb + 1;
      }
    }
    state[pm] = found ? 1 : 0;
    out_vals[pm] = acc;
  }
}

// ---------------------------------------------------------------------------- dot, heavy
// The deferred entries (both rows long; hub rows of skewed graphs): one warp per entry.
// The 32 lanes take 32 consecutive keys of the shorter row and gallop for each in the longer
// row, from the position the previous round's last lane reached (every later key is larger),
// so an entry costs about min(la, lb) / 32 rounds of O(log gap) probes instead of a merge of
// la + lb. Lanes fold their products (lane order is not k order: exact for every built-in
// monoid except floating-point plus/times, which may round differently), the warp stops
// when a lane holds the terminal value, and a first_wins monoid takes the first product in
// k order (lowest lane of the first round that has one, as the CPU). Bytes per entry: as
// the thread kernel, with the shorter row read once and about log2(gap) cached probes per
// key of it.
template <int MOP, int AOP, typename TD, typename TZ, bool UL, bool UR>
__global__ void mxm_dot_warp(const long long* __restrict__ a_ptr,
                             const long long* __restrict__ a_idx,
                             const TD* __restrict__ avals, int a_iso,
                             const long long* __restrict__ bt_ptr,
                             const long long* __restrict__ bt_idx,
                             const TD* __restrict__ bvals, int b_iso,
                             const long long* __restrict__ m_ptr,
                             const long long* __restrict__ m_idx, long long nrows,
                             const long long* __restrict__ list, long long nlist,
                             const TZ* __restrict__ params, int has_term, int first_wins,
                             signed char* __restrict__ state, TZ* __restrict__ out_vals) {
  const int lane = threadIdx.x & 31;
  const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
  const TZ ident = params[0];
  const TZ term = params[1];
  for (long long h = warp; h < nlist; h += nwarps) {
    const long long pm = list[h];
    const long long i = gb_last_le(m_ptr, 0, nrows, pm);
    const long long j = m_idx[pm];
    const long long pa = a_ptr[i], ea = a_ptr[i + 1], pb = bt_ptr[j], eb = bt_ptr[j + 1];
    const bool a_short = ea - pa <= eb - pb;
    const long long* __restrict__ sidx = a_short ? a_idx : bt_idx;
    const long long* __restrict__ lidx = a_short ? bt_idx : a_idx;
    const long long es = a_short ? ea : eb, el = a_short ? eb : ea;
    long long lo = a_short ? pb : pa;
    bool found = false;
    TZ acc = ident;
    for (long long base = a_short ? pa : pb; base < es && lo < el; base += 32) {
      const long long p = base + lane;
      bool have = false;
      TZ t = ident;
      long long q = el;
      if (p < es) {
        const long long k = sidx[p];
        q = gb_gallop(lidx, lo, el, k);
        if (q < el && lidx[q] == k) {
          TD a = TD(), b = TD();
          if constexpr (UL) a = a_iso ? avals[0] : avals[a_short ? p : q];
          if constexpr (UR) b = b_iso ? bvals[0] : bvals[a_short ? q : p];
          t = gb_mult<MOP, TD, TZ>(a, b, i, k, j);
          have = true;
        }
      }
      lo = __shfl_sync(GB_MXM_FULL, q, 31);
      if (first_wins) {
        const unsigned ballot = __ballot_sync(GB_MXM_FULL, have);
        if (ballot) {
          acc = __shfl_sync(GB_MXM_FULL, t, __ffs(ballot) - 1);
          found = true;
          break;
        }
        continue;
      }
      if (have) {
        acc = found ? gb_add<AOP, TZ>(acc, t) : t;
        found = true;
      }
      if (has_term && __any_sync(GB_MXM_FULL, found && acc == term)) break;
    }
    if (!first_wins) {
      for (int off = 16; off > 0; off >>= 1) {
        const TZ o = __shfl_down_sync(GB_MXM_FULL, acc, off);
        const bool of = __shfl_down_sync(GB_MXM_FULL, found, off);
        if (of) {
          acc = found ? gb_add<AOP, TZ>(acc, o) : o;
          found = true;
        }
      }
    }
    if (lane == 0) {
      state[pm] = found ? 1 : 0;
      out_vals[pm] = acc;
    }
  }
}

// ---------------------------------------------------------------------------- saxpy
// The mask rows [r0, r1) of a saxpy chunk as a bitmap: bit (i - r0) * ncols + j per entry.
// Bytes: the bitmap (zeroed by the caller) + 8 per mask entry (+ a cached row search).
__global__ void mxm_mask_bitmap(const long long* __restrict__ m_ptr,
                                const long long* __restrict__ m_idx, long long r0, long long r1,
                                long long ncols, unsigned int* __restrict__ bits) {
  const long long p0 = m_ptr[r0], n = m_ptr[r1] - p0;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < n; t += stride) {
    const long long p = p0 + t;
    const long long r = gb_last_le(m_ptr, r0, r1, p);
    const long long pos = (r - r0) * ncols + m_idx[p];
    atomicOr(&bits[pos >> 5], 1u << (unsigned)(pos & 31));
  }
}

// The products of one saxpy chunk: A's entries [e0, e1) in rows [r0, r1), `prefix[e]` the
// products before entry e (global), p0 = prefix[e0], nprod of them. Product t (in
// Gustavson's order: row, then k, then B's row) finds its entry e and row i by binary
// search (cached), reads j = B.indices[...], asks the mask (mask_mode 1: binary search in
// row i of the mask; 2: the chunk's bitmap; 0: no mask) and writes its local key
// (i - r0) * ncols + j and mult(a, b) at (i, k, j), or the key TK's maximum for a product
// the mask drops. `count` gets the number kept. Bytes per product: 8 (B index) [+ sizeof(TD)
// B value] + a mask probe + sizeof(TK) + sizeof(TZ) written.
template <int MOP, typename TD, typename TZ, bool UL, bool UR, typename TK>
__global__ void mxm_saxpy_expand(const long long* __restrict__ a_ptr,
                                 const long long* __restrict__ a_idx,
                                 const TD* __restrict__ avals, int a_iso,
                                 const long long* __restrict__ b_ptr,
                                 const long long* __restrict__ b_idx,
                                 const TD* __restrict__ bvals, int b_iso,
                                 const long long* __restrict__ prefix, long long e0,
                                 long long e1, long long r0, long long r1, long long p0,
                                 long long nprod, long long ncols,
                                 const long long* __restrict__ m_ptr,
                                 const long long* __restrict__ m_idx,
                                 const unsigned int* __restrict__ bits, int mask_mode,
                                 int mcomp, TK* __restrict__ keys, TZ* __restrict__ vals,
                                 unsigned long long* __restrict__ count) {
  const TK drop = sizeof(TK) == 4 ? (TK)0x7fffffffLL : (TK)0x7fffffffffffffffLL;
  const long long stride = (long long)gridDim.x * blockDim.x;
  unsigned long long kept = 0;
  for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < nprod;
       t += stride) {
    const long long g = p0 + t;
    const long long e = gb_last_le(prefix, e0, e1, g);
    const long long i = gb_last_le(a_ptr, r0, r1, e);
    const long long k = a_idx[e];
    const long long pb = b_ptr[k] + (g - prefix[e]);
    const long long j = b_idx[pb];
    if (mask_mode) {
      bool in;
      if (mask_mode == 2) {
        const long long pos = (i - r0) * ncols + j;
        in = (bits[pos >> 5] >> (unsigned)(pos & 31)) & 1u;
      } else {
        const long long hi = m_ptr[i + 1];
        long long lo = m_ptr[i], h = hi;
        while (lo < h) {
          const long long mid = (lo + h) >> 1;
          if (m_idx[mid] < j) lo = mid + 1; else h = mid;
        }
        in = lo < hi && m_idx[lo] == j;
      }
      if (in == (bool)mcomp) {
        keys[t] = drop;
        continue;
      }
    }
    TD a = TD(), b = TD();
    if constexpr (UL) a = a_iso ? avals[0] : avals[e];
    if constexpr (UR) b = b_iso ? bvals[0] : bvals[pb];
    keys[t] = (TK)((i - r0) * ncols + j);
    vals[t] = gb_mult<MOP, TD, TZ>(a, b, i, k, j);
    ++kept;
  }
  if (kept) atomicAdd(count, kept);
}
