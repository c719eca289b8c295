// CSR kernels for mxv on the GPU (CuPy RawModule, -std=c++17).
//
// The semiring functors gb_mult<MOP, TD, TZ> / gb_add<AOP, TZ> come from
// gblas.semirings.codegen_cuda.functor_source(), prepended to this file by
// gblas/formats/csr/cuda.py (scripts/check_cuda.sh does the same for nvcc).
// Template arguments: MOP/AOP opcodes, TD the multiply domain (operands are cast to it
// beforehand), TZ the output type, UL/UR whether the multiply reads the matrix / vector
// values (a structure-only semiring, e.g. any_pair, instantiates UL = UR = false and
// reads no value array at all).
//
// Index arrays are int64 (long long), as in the CSR container; the pull kernels take the
// column indices as TI: int (a 32-bit copy cached with the representation, half the bytes
// of the largest array) when they fit, else long long. Presence/mask arrays are bool (1
// byte).

#define GB_FULL_MASK 0xffffffffu
#define GB_LONG_BLOCK 512  // threads of mxv_pull_long (a block per hub row)
#define GB_LONG_UNROLL 4   // entries a thread of mxv_pull_long loads per step
#define GB_TILE 1024       // entries + rows a tile of mxv_pull_tiles starts (CSR.row_tiles)
#define GB_TILE_CAP 2048   // entries a tile stages (its last row may run past GB_TILE)
#define GB_TILE_BLOCK 256  // threads of mxv_pull_tiles
#define GB_TILE_UNROLL 8   // GB_TILE_CAP / GB_TILE_BLOCK: one staging step per tile
#define GB_SEG 8192        // entries of a hub-row segment of mxv_pull_segs (CSR.hub_segments)

// Loads of the pulls that stream the matrix: x through the read-only path (__ldg) and the
// column indices with the evict-first hint (__ldcs), so that the index stream (read once,
// 4 bytes an entry) does not push x's lines out of L2 (one product, H100: kron:22
// 1.337 -> 1.305 ms, urand:22 1.695 -> 1.621 ms; either hint alone gained nothing).
template <typename T>
__device__ __forceinline__ T gb_ld_x(const T* p) { return __ldg(p); }
template <>
__device__ __forceinline__ bool gb_ld_x<bool>(const bool* p) {
  return __ldg(reinterpret_cast<const unsigned char*>(p)) != 0;
}
template <typename T>
__device__ __forceinline__ T gb_ld_stream(const T* p) { return __ldcs(p); }

// The write of output row i: T(i) = v where a product was found, absent elsewhere; or, with
// an accumulator (ACC >= 0, an opcode of gb_mult), C(i) = C(i) ACC v in place in out_pres /
// out_vals, which then hold C: a row without a product (or masked out) leaves C(i) as it is
// (the C API's write-back of C<M>(accum) without replace). CFULL: every C(i) is present,
// and no presence byte is read or written.
// gb_put_old: the same with C(i) (c_old, c_has) loaded beforehand.
template <int ACC, bool CFULL, typename TZ>
__device__ __forceinline__ void gb_put_old(bool* __restrict__ pres, TZ* __restrict__ vals,
                                           long long i, bool found, TZ v, TZ ident, TZ c_old,
                                           bool c_has) {
  if constexpr (ACC < 0) {
    pres[i] = found;
    vals[i] = found ? v : ident;
  } else {
    if (!found) return;
    if (CFULL || c_has) {
      vals[i] = gb_mult<ACC, TZ, TZ>(c_old, v, i, 0LL, 0LL);
    } else {
      vals[i] = v;
      pres[i] = true;
    }
  }
}

template <int ACC, bool CFULL, typename TZ>
__device__ __forceinline__ void gb_put(bool* __restrict__ pres, TZ* __restrict__ vals,
                                       long long i, bool found, TZ v, TZ ident) {
  if constexpr (ACC < 0) {
    gb_put_old<ACC, CFULL, TZ>(pres, vals, i, found, v, ident, ident, false);
  } else {
    if (!found) return;
    gb_put_old<ACC, CFULL, TZ>(pres, vals, i, true, v, ident, vals[i], CFULL || pres[i]);
  }
}

// ---------------------------------------------------------------------------- pull
// T(i) = (+)_k M(i,k) (x) x(k) over rows i of CSR(M), one warp per row (grid-stride
// over warps). A row the (complemented) mask forbids is skipped before its column indices
// are read. Lanes stride over the row, 32 consecutive entries per step (coalesced);
// after each step the warp stops if a lane holds the monoid's terminal value, or, for
// the `any` monoid (is_any: also any monoid that keeps its first operand), as soon as a
// lane found a present x(k): the lowest such lane wins, so the result is the first product
// in row order, as on the CPU.
// Rows longer than long_row are left to mxv_pull_long (one warp would walk a hub row of a
// power-law graph alone: on kron:20 a row of 64 K entries made the whole SpMV 2.3 ms).
// x_full: every x(k) is present, so the presence byte is not read (the gather of x(k)
// then follows the index load directly: half the dependent loads per entry; PageRank's
// product on kron:22, H100, 2.72 -> 1.79 ms).
// Bytes per row visited: 16 (indptr) + 1 (mask) + per entry read 8 (index) + 1 (x bit,
// unless x_full)
// [+ sizeof(TD) matrix value if UL] [+ sizeof(TD) x value if UR]; out 1 + sizeof(TZ).
// One flop (mult + add) per entry whose x(k) is present.
template <int MOP, int AOP, typename TD, typename TZ, bool UL, bool UR, typename TI,
          int ACC = -1, bool CFULL = false>
__global__ void mxv_pull(const long long* __restrict__ indptr,
                         const TI* __restrict__ indices,
                         const TD* __restrict__ mvals, int m_iso,
                         const bool* __restrict__ xpres, int x_full,
                         const TD* __restrict__ xvals, int x_iso,
                         const bool* __restrict__ mask, int use_mask, int mcomp,
                         long long nrows, const TZ* __restrict__ params,  // identity, terminal
                         int has_term, int is_any, long long long_row,
                         bool* __restrict__ out_pres, TZ* __restrict__ out_vals,
                         unsigned long long* __restrict__ count) {
  const int lane = threadIdx.x & 31;
  const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
  const TZ ident = params[0];
  const TZ term = params[1];
  unsigned long long nfound = 0;
  for (long long i = warp; i < nrows; i += nwarps) {
    if (use_mask && (bool)mask[i] == (bool)mcomp) {
      if (lane == 0) gb_put<ACC, CFULL, TZ>(out_pres, out_vals, i, false, ident, ident);
      continue;
    }
    const long long start = indptr[i], end = indptr[i + 1];
    if (end - start > long_row) continue;  // a hub row: mxv_pull_long, a block per row
    bool found = false;
    TZ acc = ident;
    for (long long base = start; base < end; base += 32) {
      const long long p = base + lane;
      bool have = false;
      TZ t = ident;
      if (p < end) {
        const long long k = (long long)indices[p];
        if (x_full || xpres[k]) {
          TD a = TD(), b = TD();
          if constexpr (UL) a = m_iso ? mvals[0] : mvals[p];
          if constexpr (UR) b = x_iso ? xvals[0] : xvals[k];
          t = gb_mult<MOP, TD, TZ>(a, b, i, k, 0LL);
          have = true;
        }
      }
      if (is_any) {
        const unsigned ballot = __ballot_sync(GB_FULL_MASK, have);
        if (ballot) {
          const int src = __ffs(ballot) - 1;
          acc = __shfl_sync(GB_FULL_MASK, t, src);
          found = true;
          break;
        }
        continue;
      }
      if (have) {
        acc = found ? gb_add<AOP, TZ>(acc, t) : t;
        found = true;
      }
      if (has_term && __any_sync(GB_FULL_MASK, found && acc == term)) break;
    }
    if (!is_any) {
      // fold the 32 partial results (lanes without a product hold none)
      for (int off = 16; off > 0; off >>= 1) {
        const TZ o = __shfl_down_sync(GB_FULL_MASK, acc, off);
        const bool of = __shfl_down_sync(GB_FULL_MASK, found, off);
        if (of) {
          acc = found ? gb_add<AOP, TZ>(acc, o) : o;
          found = true;
        }
      }
    }
    if (lane == 0) {
      gb_put<ACC, CFULL, TZ>(out_pres, out_vals, i, found, acc, ident);
      nfound += found ? 1 : 0;
    }
  }
  if (lane == 0 && nfound) atomicAdd(count, nfound);
}

// The rows longer than long_row, a whole block per row: each block scans a slice of the
// rows in chunks of blockDim.x (one row per thread), queues the long ones (not masked
// out: mxv_pull wrote those) in shared memory, then walks each queued row with every
// thread striding over its entries, and folds the threads' partials in shared memory.
// For `any` (is_any: first wins) the row is read chunk by chunk and stops at the first
// chunk with a product, whose smallest position wins: the first product in row order, as
// on the CPU. The terminal value stops the row (block-wide vote) as in mxv_pull.
template <int MOP, int AOP, typename TD, typename TZ, bool UL, bool UR, typename TI,
          int ACC = -1, bool CFULL = false>
__global__ void mxv_pull_long(const long long* __restrict__ indptr,
                              const TI* __restrict__ indices,
                              const TD* __restrict__ mvals, int m_iso,
                              const bool* __restrict__ xpres, int x_full,
                              const TD* __restrict__ xvals, int x_iso,
                              const bool* __restrict__ mask, int use_mask, int mcomp,
                              long long nrows, const TZ* __restrict__ params,
                              int has_term, int is_any, long long long_row,
                              bool* __restrict__ out_pres, TZ* __restrict__ out_vals,
                              unsigned long long* __restrict__ count) {
  __shared__ long long s_rows[GB_LONG_BLOCK];
  __shared__ int s_n;
  __shared__ bool s_found[GB_LONG_BLOCK];
  __shared__ TZ s_acc[GB_LONG_BLOCK];
  __shared__ long long s_at[GB_LONG_BLOCK];
  const int t = threadIdx.x;
  const TZ ident = params[0];
  const TZ term = params[1];
  unsigned long long nfound = 0;
  for (long long chunk = (long long)blockIdx.x * blockDim.x; chunk < nrows;
       chunk += (long long)gridDim.x * blockDim.x) {
    if (t == 0) s_n = 0;
    __syncthreads();
    const long long r = chunk + t;
    if (r < nrows && indptr[r + 1] - indptr[r] > long_row &&
        !(use_mask && (bool)mask[r] == (bool)mcomp)) {
      s_rows[atomicAdd(&s_n, 1)] = r;
    }
    __syncthreads();
    const int nlong = s_n;
    for (int q = 0; q < nlong; ++q) {
      const long long i = s_rows[q];
      const long long start = indptr[i], end = indptr[i + 1];
      bool found = false;
      TZ acc = ident;
      long long at = end;
      // GB_LONG_UNROLL entries per thread per step, their loads issued together (one round
      // of memory latency per step instead of one per entry), in increasing position
      const long long step = (long long)GB_LONG_UNROLL * blockDim.x;
      for (long long base = start; base < end; base += step) {
        long long kk[GB_LONG_UNROLL];
        bool pr[GB_LONG_UNROLL];
#pragma unroll
        for (int u = 0; u < GB_LONG_UNROLL; ++u) {
          const long long p = base + (long long)u * blockDim.x + t;
          kk[u] = p < end ? (long long)gb_ld_stream(&indices[p]) : -1;
        }
#pragma unroll
        for (int u = 0; u < GB_LONG_UNROLL; ++u) pr[u] = kk[u] >= 0 && (x_full || xpres[kk[u]]);
        TZ v[GB_LONG_UNROLL];
#pragma unroll
        for (int u = 0; u < GB_LONG_UNROLL; ++u) {
          v[u] = ident;
          if (pr[u]) {
            const long long p = base + (long long)u * blockDim.x + t;
            TD a = TD(), b = TD();
            if constexpr (UL) a = m_iso ? mvals[0] : mvals[p];
            if constexpr (UR) b = x_iso ? xvals[0] : gb_ld_x(&xvals[kk[u]]);
            v[u] = gb_mult<MOP, TD, TZ>(a, b, i, kk[u], 0LL);
          }
        }
        if (is_any) {
          bool have = false;
#pragma unroll
          for (int u = 0; u < GB_LONG_UNROLL; ++u) {
            if (pr[u] && !have) {
              have = true; found = true; acc = v[u];
              at = base + (long long)u * blockDim.x + t;
            }
          }
          if (__syncthreads_or(have)) break;
          continue;
        }
#pragma unroll
        for (int u = 0; u < GB_LONG_UNROLL; ++u) {
          if (pr[u]) {
            acc = found ? gb_add<AOP, TZ>(acc, v[u]) : v[u];
            found = true;
          }
        }
        if (has_term && __syncthreads_or(found && acc == term)) break;
      }
      s_found[t] = found;
      s_acc[t] = acc;
      s_at[t] = at;
      __syncthreads();
      for (int off = blockDim.x / 2; off > 0; off >>= 1) {
        if (t < off && s_found[t + off]) {
          if (!s_found[t]) {
            s_found[t] = true; s_acc[t] = s_acc[t + off]; s_at[t] = s_at[t + off];
          } else if (is_any) {
            if (s_at[t + off] < s_at[t]) { s_acc[t] = s_acc[t + off]; s_at[t] = s_at[t + off]; }
          } else {
            s_acc[t] = gb_add<AOP, TZ>(s_acc[t], s_acc[t + off]);
          }
        }
        __syncthreads();
      }
      if (t == 0) {
        gb_put<ACC, CFULL, TZ>(out_pres, out_vals, i, s_found[0], s_acc[0], ident);
        nfound += s_found[0] ? 1 : 0;
      }
      __syncthreads();
    }
  }
  if (t == 0 && nfound) atomicAdd(count, nfound);
}

// Rows by tiles of entries (CSR-Adaptive: J. L. Greathouse, M. Daga, "Efficient sparse
// matrix-vector multiplication on GPUs using the CSR storage format", SC'14). Tile t holds
// the rows r with indptr[r] + r in [t·GB_TILE, (t+1)·GB_TILE) (fewer than GB_TILE rows,
// whose entries start fewer than GB_TILE apart; row_tile[t] is the first of them, computed
// once per representation: CSR.row_tiles). A block stages every product
// of its tile in shared memory, each thread loading GB_TILE_UNROLL entries at once (a warp
// per row of ~30 entries keeps a few loads in flight; here every thread does), then folds
// each row from shared memory: a thread per row of at most 32 entries, in row order, and
// a warp per longer row (lane partials, then the shuffle fold of mxv_pull).
// For x full, monoids without first-wins order and non-positional multiplies (the planner
// checks); the terminal value does not stop a row (the fold over the rest keeps it).
// Rows longer than long_row are left to mxv_pull_long; a tile spanning more than
// GB_TILE_CAP entries (it holds such a row) folds its other rows from global memory, a
// warp per row.
// Bytes per entry: sizeof(TI) (index) [+ sizeof(TD) matrix value if UL] [+ sizeof(TD)
// x value if UR]; per row 8 (indptr, read twice: cached) + 1 (mask) + 1 + sizeof(TZ) out.
template <int MOP, int AOP, typename TD, typename TZ, bool UL, bool UR, typename TI,
          int ACC = -1, bool CFULL = false>
__global__ void mxv_pull_tiles(const long long* __restrict__ indptr,
                               const TI* __restrict__ indices,
                               const TD* __restrict__ mvals, int m_iso,
                               const TD* __restrict__ xvals, int x_iso,
                               const bool* __restrict__ mask, int use_mask, int mcomp,
                               const long long* __restrict__ row_tile, long long ntiles,
                               const TZ* __restrict__ params, long long long_row,
                               bool* __restrict__ out_pres, TZ* __restrict__ out_vals,
                               unsigned long long* __restrict__ count) {
  __shared__ TZ s_prod[GB_TILE_CAP];
  __shared__ long long s_queue[GB_TILE_CAP / 32];
  __shared__ TZ s_qc[ACC >= 0 ? GB_TILE_CAP / 32 : 1];  // C(i) of the queued rows
  __shared__ bool s_qh[ACC >= 0 ? GB_TILE_CAP / 32 : 1];
  __shared__ int s_nq;
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
  const int nwarps = blockDim.x >> 5;
  const TZ ident = params[0];
  unsigned long long nfound = 0;
  for (long long tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
    const long long r0 = row_tile[tile], r1 = row_tile[tile + 1];
    const long long lo = indptr[r0], hi = indptr[r1];
    if (hi - lo > GB_TILE_CAP) {  // holds a hub row: the others a warp each, from memory
      for (long long i = r0 + warp; i < r1; i += nwarps) {
        const long long start = indptr[i], end = indptr[i + 1];
        const bool allowed = !(use_mask && (bool)mask[i] == (bool)mcomp);
        // a hub row is left to the hub kernels, unless masked out: that is written here
        // (they skip masked rows)
        if (allowed && end - start > long_row) continue;
        TZ acc = ident;
        for (long long p = start + lane; allowed && p < end; p += 32) {
          const long long k = (long long)indices[p];
          TD a = TD(), b = TD();
          if constexpr (UL) a = m_iso ? mvals[0] : mvals[p];
          if constexpr (UR) b = x_iso ? xvals[0] : xvals[k];
          const TZ v = gb_mult<MOP, TD, TZ>(a, b, i, k, 0LL);
          acc = p == start + lane ? v : gb_add<AOP, TZ>(acc, v);
        }
        const int have = (int)min((long long)32, max(0LL, end - start));
        for (int off = 16; off > 0; off >>= 1) {
          const TZ o = __shfl_down_sync(GB_FULL_MASK, acc, off);
          if (lane + off < have) acc = gb_add<AOP, TZ>(acc, o);
        }
        if (lane == 0) {
          const bool found = allowed && end > start;
          gb_put<ACC, CFULL, TZ>(out_pres, out_vals, i, found, acc, ident);
          nfound += found ? 1 : 0;
        }
      }
      continue;  // uniform over the block: no barrier is skipped by part of it
    }
    if (t == 0) s_nq = 0;
    // with an accumulator, C(i) of the thread's first row is loaded here, before the
    // staging: its latency then hides behind the products' instead of adding a round of
    // memory latency to the fold (a tile of a Kronecker graph holds ~30-60 rows, so
    // most rows are a thread's first; the others read C(i) in the fold)
    TZ c_first = ident;
    bool c_has = CFULL;
    if constexpr (ACC >= 0) {
      if (r0 + t < r1) {
        c_first = out_vals[r0 + t];
        if constexpr (!CFULL) c_has = out_pres[r0 + t];
      }
    }
    // stage: every product of the tile, GB_TILE_UNROLL loads in flight per thread
    for (long long base = lo; base < hi; base += (long long)GB_TILE_UNROLL * blockDim.x) {
      TI k[GB_TILE_UNROLL];
      TD a[GB_TILE_UNROLL];
#pragma unroll
      for (int u = 0; u < GB_TILE_UNROLL; ++u) {
        const long long p = base + (long long)u * blockDim.x + t;
        k[u] = p < hi ? gb_ld_stream(&indices[p]) : TI(0);
        a[u] = TD();
        if constexpr (UL) a[u] = m_iso ? mvals[0] : (p < hi ? mvals[p] : TD());
      }
#pragma unroll
      for (int u = 0; u < GB_TILE_UNROLL; ++u) {
        const long long p = base + (long long)u * blockDim.x + t;
        if (p < hi) {
          TD b = TD();
          if constexpr (UR) b = x_iso ? xvals[0] : gb_ld_x(&xvals[k[u]]);
          s_prod[p - lo] = gb_mult<MOP, TD, TZ>(a[u], b, 0LL, (long long)k[u], 0LL);
        }
      }
    }
    __syncthreads();
    // fold: short rows a thread each, in row order; longer ones queued for the warps
    for (long long i = r0 + t; i < r1; i += blockDim.x) {
      const long long s = indptr[i] - lo, e = indptr[i + 1] - lo;
      const bool allowed = !(use_mask && (bool)mask[i] == (bool)mcomp);
      // a hub row (longer than long_row, not masked out) is the hub kernels' alone: written
      // twice, an accumulator would fold T(i) into C(i) twice
      if (allowed && e - s > long_row) continue;
      const bool first = i == r0 + t;
      if (allowed && e - s > 32) {
        const int slot = atomicAdd(&s_nq, 1);
        s_queue[slot] = i;
        if constexpr (ACC >= 0) {
          s_qc[slot] = first ? c_first : out_vals[i];
          s_qh[slot] = first ? c_has : (CFULL || out_pres[i]);
        }
        continue;
      }
      const bool found = allowed && e > s;
      TZ acc = ident;
      if (found) {
        acc = s_prod[s];
        for (long long p = s + 1; p < e; ++p) acc = gb_add<AOP, TZ>(acc, s_prod[p]);
      }
      if (first) {
        gb_put_old<ACC, CFULL, TZ>(out_pres, out_vals, i, found, acc, ident, c_first, c_has);
      } else {
        gb_put<ACC, CFULL, TZ>(out_pres, out_vals, i, found, acc, ident);
      }
      nfound += found ? 1 : 0;
    }
    __syncthreads();
    for (int q = warp; q < s_nq; q += nwarps) {
      const long long i = s_queue[q];
      const long long s = indptr[i] - lo, e = indptr[i + 1] - lo;
      TZ acc = s_prod[s + lane];  // e - s > 32: every lane has a first product
      for (long long p = s + lane + 32; p < e; p += 32) acc = gb_add<AOP, TZ>(acc, s_prod[p]);
      for (int off = 16; off > 0; off >>= 1) {
        acc = gb_add<AOP, TZ>(acc, __shfl_down_sync(GB_FULL_MASK, acc, off));
      }
      if (lane == 0) {
        if constexpr (ACC >= 0) {
          gb_put_old<ACC, CFULL, TZ>(out_pres, out_vals, i, true, acc, ident, s_qc[q], s_qh[q]);
        } else {
          gb_put<ACC, CFULL, TZ>(out_pres, out_vals, i, true, acc, ident);
        }
        nfound += 1;
      }
    }
    __syncthreads();  // the next tile reuses s_prod and s_nq
  }
  // every thread gets here (the tile loop is uniform over the block): one atomic a warp
  const unsigned found_warp = __reduce_add_sync(GB_FULL_MASK, (unsigned)nfound);
  if (lane == 0 && found_warp) atomicAdd(count, (unsigned long long)found_warp);
}

// Hub rows by segments, after mxv_pull_tiles (x full) or after the warp kernel mxv_pull (x a
// bitmap: SSSP's frontier; x_full 0, a product only where xpres), for monoids without
// first-wins order, and without early exit (a terminal value is still the fold's value, read
// to the end). A block per segment of at most GB_SEG entries of one hub row
// (CSR.hub_segments: a row's segments are consecutive, in row order) folds it in a fixed
// order: each thread its strided positions in increasing order, GB_LONG_UNROLL loads in
// flight, then a tree over the threads in shared memory; seg_part/seg_found hold the
// results. mxv_pull_seg_fold then folds each row's segments in order, a thread per row.
// A block per whole row (mxv_pull_long) left the largest rows of a Kronecker graph (163 K
// entries at scale 22, 89 steps of a block) to a few blocks at the end of the kernel;
// segments keep every block's work under GB_SEG.
// Bytes per entry as mxv_pull_tiles; per segment 8 + 1 + sizeof(TZ) (partial), re-read
// once by the fold.
template <int MOP, int AOP, typename TD, typename TZ, bool UL, bool UR, typename TI>
__global__ void mxv_pull_segs(const TI* __restrict__ indices,
                              const TD* __restrict__ mvals, int m_iso,
                              const bool* __restrict__ xpres, int x_full,
                              const TD* __restrict__ xvals, int x_iso,
                              const long long* __restrict__ seg_row,
                              const long long* __restrict__ seg_lo,
                              const long long* __restrict__ seg_hi, long long nseg,
                              const bool* __restrict__ mask, int use_mask, int mcomp,
                              const TZ* __restrict__ params, TZ* __restrict__ seg_part,
                              bool* __restrict__ seg_found) {
  __shared__ bool s_found[GB_LONG_BLOCK];
  __shared__ TZ s_acc[GB_LONG_BLOCK];
  const int t = threadIdx.x;
  const TZ ident = params[0];
  for (long long sg = blockIdx.x; sg < nseg; sg += gridDim.x) {
    const long long i = seg_row[sg], lo = seg_lo[sg], hi = seg_hi[sg];
    const bool allowed = !(use_mask && (bool)mask[i] == (bool)mcomp);
    bool found = false;
    TZ acc = ident;
    const long long step = (long long)GB_LONG_UNROLL * blockDim.x;
    for (long long base = lo; allowed && base < hi; base += step) {
      TI kk[GB_LONG_UNROLL];
      TD a[GB_LONG_UNROLL];
#pragma unroll
      for (int u = 0; u < GB_LONG_UNROLL; ++u) {
        const long long p = base + (long long)u * blockDim.x + t;
        kk[u] = p < hi ? gb_ld_stream(&indices[p]) : TI(0);
        a[u] = TD();
        if constexpr (UL) a[u] = m_iso ? mvals[0] : (p < hi ? mvals[p] : TD());
      }
#pragma unroll
      for (int u = 0; u < GB_LONG_UNROLL; ++u) {
        const long long p = base + (long long)u * blockDim.x + t;
        if (p < hi && (x_full || gb_ld_x(&xpres[kk[u]]))) {
          TD b = TD();
          if constexpr (UR) b = x_iso ? xvals[0] : gb_ld_x(&xvals[kk[u]]);
          const TZ v = gb_mult<MOP, TD, TZ>(a[u], b, i, (long long)kk[u], 0LL);
          acc = found ? gb_add<AOP, TZ>(acc, v) : v;
          found = true;
        }
      }
    }
    s_found[t] = found;
    s_acc[t] = acc;
    __syncthreads();
    for (int off = blockDim.x / 2; off > 0; off >>= 1) {
      if (t < off && s_found[t + off]) {
        s_acc[t] = s_found[t] ? gb_add<AOP, TZ>(s_acc[t], s_acc[t + off]) : s_acc[t + off];
        s_found[t] = true;
      }
      __syncthreads();
    }
    if (t == 0) {
      seg_part[sg] = s_acc[0];
      seg_found[sg] = s_found[0];
    }
    __syncthreads();  // the next segment reuses s_found and s_acc
  }
}

template <int AOP, typename TZ, int ACC = -1, bool CFULL = false>
__global__ void mxv_pull_seg_fold(const long long* __restrict__ hub_row,
                                  const long long* __restrict__ hub_seg, long long nhub,
                                  const TZ* __restrict__ seg_part,
                                  const bool* __restrict__ seg_found,
                                  const bool* __restrict__ mask, int use_mask, int mcomp,
                                  const TZ* __restrict__ params, bool* __restrict__ out_pres,
                                  TZ* __restrict__ out_vals,
                                  unsigned long long* __restrict__ count) {
  const long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  bool found = false;
  if (r < nhub) {
    const long long i = hub_row[r];
    TZ acc = params[0];
    if (!(use_mask && (bool)mask[i] == (bool)mcomp)) {  // a masked row: the tiles wrote it
      for (long long sg = hub_seg[r]; sg < hub_seg[r + 1]; ++sg) {
        if (seg_found[sg]) {
          acc = found ? gb_add<AOP, TZ>(acc, seg_part[sg]) : seg_part[sg];
          found = true;
        }
      }
      gb_put<ACC, CFULL, TZ>(out_pres, out_vals, i, found, acc, params[0]);
    }
  }
  const unsigned found_warp = __reduce_add_sync(GB_FULL_MASK, found ? 1u : 0u);
  if ((threadIdx.x & 31) == 0 && found_warp) atomicAdd(count, (unsigned long long)found_warp);
}

// ---------------------------------------------------------------------------- push
// The frontier position of edge slot e of a push: the largest p with scan[p] <= e (scan:
// the running sum of the frontier's out-degrees, so thread e takes one edge of the
// frontier's rows laid end to end and a hub vertex is spread over many threads).
__device__ __forceinline__ long long gb_frontier_pos(const long long* __restrict__ scan,
                                                     long long nf, long long e) {
  long long lo = 0, hi = nf;
  while (hi - lo > 1) {
    const long long mid = (lo + hi) >> 1;
    if (scan[mid] <= e) lo = mid; else hi = mid;
  }
  return lo;
}

// Phase 1 (any monoid): scatter the frontier x (sorted indices xi, nf of them) over rows
// of CSR(Mᵀ), edge-parallel: scan[p] = edges of the first p frontier vertices (scan[nf]
// = total, read on the device: no host sync before the launch); thread e finds its
// frontier position by binary search in scan, so a hub vertex is spread over many
// threads (load-balanced like merge-path). claim[j] = min frontier position p that reaches
// j (atomicMin); the thread that claims j first counts it and, when write_list is set,
// appends j to out_list (no duplicates).
// Bytes per frontier edge: 8 (index) + 1 (mask bit) + 4 (claim read / atomic) +
// ~8*log2(nf) (scan search, cached); per new vertex 8 (list) + 8 (counter atomic,
// warp-aggregated by the hardware).
__global__ void mxv_push_claim(const long long* __restrict__ indptr,
                               const long long* __restrict__ indices,
                               const long long* __restrict__ xi, long long nf,
                               const long long* __restrict__ scan,
                               const bool* __restrict__ mask, int use_mask, int mcomp,
                               int* __restrict__ claim, long long* __restrict__ out_list,
                               int write_list, unsigned long long* __restrict__ count) {
  const long long total = scan[nf];
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total;
       e += stride) {
    const long long lo = gb_frontier_pos(scan, nf, e);
    const long long k = xi[lo];
    const long long j = indices[indptr[k] + (e - scan[lo])];
    if (use_mask && (bool)mask[j] == (bool)mcomp) continue;
    const int p = (int)lo;
    if (*((volatile int*)&claim[j]) <= p) continue;  // already claimed by an earlier one
    const int old = atomicMin(&claim[j], p);
    if (old == 0x7fffffff) {
      const unsigned long long slot = atomicAdd(count, 1ULL);
      if (write_list) out_list[slot] = j;
    }
  }
}

// Phase 2: value of each output j (sorted) from its winning frontier position:
// T(j) = mult(Mᵀ(k, j), x(k)) with k = xi[claim[j]] (the first product, as on the CPU).
// The matrix value is found by binary search in row k of Mᵀ (only when UL).
// Bytes per output: 8 (j) + 4 (claim) + 8 (xi) [+ log-search over row k + sizeof(TD)]
// [+ sizeof(TD)] + sizeof(TZ).
template <int MOP, typename TD, typename TZ, bool UL, bool UR>
__global__ void mxv_push_values(const long long* __restrict__ indptr,
                                const long long* __restrict__ indices,
                                const TD* __restrict__ mvals, int m_iso,
                                const long long* __restrict__ xi,
                                const TD* __restrict__ xvals, int x_iso,
                                const int* __restrict__ claim,
                                const long long* __restrict__ out_idx, long long nout,
                                TZ* __restrict__ out_vals) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < nout;
       t += stride) {
    const long long j = out_idx[t];
    const int p = claim[j];
    const long long k = xi[p];
    TD a = TD(), b = TD();
    if constexpr (UL) {
      if (m_iso) {
        a = mvals[0];
      } else {
        long long lo = indptr[k], hi = indptr[k + 1];
        while (lo < hi) {
          const long long mid = (lo + hi) >> 1;
          if (indices[mid] < j) lo = mid + 1; else hi = mid;
        }
        a = mvals[lo];
      }
    }
    if constexpr (UR) b = x_iso ? xvals[0] : xvals[p];
    out_vals[t] = gb_mult<MOP, TD, TZ>(a, b, j, k, 0LL);
  }
}

// Phase 2, dense: T as a bitmap over all n outputs (no list, so no count read on the host
// to size it): output j is present iff some frontier position claimed it; its value is
// the product with the winning position, as in mxv_push_values.
// Bytes per output: 4 (claim) + 1 + sizeof(TZ) out; per present output as mxv_push_values.
template <int MOP, typename TD, typename TZ, bool UL, bool UR>
__global__ void mxv_push_values_dense(const long long* __restrict__ indptr,
                                      const long long* __restrict__ indices,
                                      const TD* __restrict__ mvals, int m_iso,
                                      const long long* __restrict__ xi,
                                      const TD* __restrict__ xvals, int x_iso,
                                      const int* __restrict__ claim, long long n,
                                      bool* __restrict__ out_pres, TZ* __restrict__ out_vals) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += stride) {
    const int p = claim[j];
    if (p == 0x7fffffff) {
      out_pres[j] = false;
      continue;
    }
    const long long k = xi[p];
    TD a = TD(), b = TD();
    if constexpr (UL) {
      if (m_iso) {
        a = mvals[0];
      } else {
        long long lo = indptr[k], hi = indptr[k + 1];
        while (lo < hi) {
          const long long mid = (lo + hi) >> 1;
          if (indices[mid] < j) lo = mid + 1; else hi = mid;
        }
        a = mvals[lo];
      }
    }
    if constexpr (UR) b = x_iso ? xvals[0] : xvals[p];
    out_pres[j] = true;
    out_vals[j] = gb_mult<MOP, TD, TZ>(a, b, j, k, 0LL);
  }
}

// raw[0] = 0 and raw[t + 1] = the out-degree of frontier vertex xi[t]: its running sum is
// the frontier's edge scan of the pushes (one launch where indexing and subtracting in
// CuPy took four). Bytes per frontier vertex: 8 (xi) + 16 (indptr) + 8.
__global__ void frontier_degrees(const long long* __restrict__ indptr,
                                 const long long* __restrict__ xi, long long nf,
                                 long long* __restrict__ raw) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t <= nf; t += stride) {
    if (t == 0) {
      raw[0] = 0;
    } else {
      const long long k = xi[t - 1];
      raw[t] = indptr[k + 1] - indptr[k];
    }
  }
}

// ---------------------------------------------------------------------------- atomic push
// Monoids whose fold does not depend on the order of its operands: min and max (every
// type) and plus on integers (wrapping). The push over a sparse frontier then folds each
// output with one 64-bit atomic a product, with no sort and no count read on the host
// (mxv_push_atomic, then mxv_push_atomic_out decodes the keys in place).
// The key of a value is an unsigned integer in the value's order: integers widened (signed
// ones with the sign bit flipped); floats by their bits (negative ones inverted, positive
// ones with the sign bit set), NaN below every key for max and above every key for min, so
// that a NaN product is kept only where every product is NaN (the CPU's fold ignores NaN
// the same way). -0.0 orders below +0.0: where both meet, min gives -0.0 and max +0.0
// (equal values; the CPU's sequential fold keeps the later one of the two).
__device__ __forceinline__ unsigned long long gb_key(double v, bool nan_high) {
  if (v != v) return nan_high ? ~0ULL : 0ULL;
  const unsigned long long u = (unsigned long long)__double_as_longlong(v);
  return (u >> 63) ? ~u : (u | 0x8000000000000000ULL);
}
__device__ __forceinline__ unsigned long long gb_key(float v, bool nan_high) {
  if (v != v) return nan_high ? ~0ULL : 0ULL;
  const unsigned u = __float_as_uint(v);
  return (unsigned long long)((u >> 31) ? ~u : (u | 0x80000000u));
}
template <typename T>
__device__ __forceinline__ unsigned long long gb_key(T v, bool) {
  if (T(-1) < T(0)) return (unsigned long long)(long long)v ^ 0x8000000000000000ULL;
  return (unsigned long long)v;
}
__device__ __forceinline__ void gb_unkey(unsigned long long k, bool nan_high, double& v) {
  if (k == (nan_high ? ~0ULL : 0ULL)) {
    v = __longlong_as_double(0x7ff8000000000000LL);
    return;
  }
  v = __longlong_as_double((long long)((k >> 63) ? (k & 0x7fffffffffffffffULL) : ~k));
}
__device__ __forceinline__ void gb_unkey(unsigned long long k, bool nan_high, float& v) {
  if (k == (nan_high ? ~0ULL : 0ULL)) {
    v = __uint_as_float(0x7fc00000u);
    return;
  }
  const unsigned u = (unsigned)k;
  v = __uint_as_float((u >> 31) ? (u & 0x7fffffffu) : ~u);
}
template <typename T>
__device__ __forceinline__ void gb_unkey(unsigned long long k, bool, T& v) {
  if (T(-1) < T(0)) k ^= 0x8000000000000000ULL;
  v = (T)(long long)k;
}

// keys[j] = the fold (AOP: min, max or plus on the keys) of mult(Mᵀ(k, j), x(k)) over the
// frontier's k; out_pres[j] set by any product. Edge-balanced like mxv_push_claim (thread
// e finds its frontier position by binary search in scan). keys start at the fold's
// neutral key (all ones for min, 0 for max and plus); a min/max reads the key first and
// skips the atomic when it cannot change it. For plus the key is the value itself.
// Bytes per frontier edge: 8 (index) [+ sizeof(TD) value] + 1 (mask) + 8 (key, atomic)
// + 1 (presence) + ~8*log2(nf) (scan search, cached).
template <int MOP, int AOP, typename TD, typename TZ, bool UL, bool UR>
__global__ void mxv_push_atomic(const long long* __restrict__ indptr,
                                const long long* __restrict__ indices,
                                const TD* __restrict__ mvals, int m_iso,
                                const long long* __restrict__ xi, long long nf,
                                const long long* __restrict__ scan,
                                const TD* __restrict__ xvals, int x_iso,
                                const bool* __restrict__ mask, int use_mask, int mcomp,
                                unsigned long long* __restrict__ keys,
                                bool* __restrict__ out_pres) {
  const long long total = scan[nf];
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total;
       e += stride) {
    const long long lo = gb_frontier_pos(scan, nf, e);
    const long long k = xi[lo];
    const long long p = indptr[k] + (e - scan[lo]);
    const long long j = indices[p];
    if (use_mask && (bool)mask[j] == (bool)mcomp) continue;
    TD a = TD(), b = TD();
    if constexpr (UL) a = m_iso ? mvals[0] : mvals[p];
    if constexpr (UR) b = x_iso ? xvals[0] : xvals[lo];
    const TZ t = gb_mult<MOP, TD, TZ>(a, b, j, k, 0LL);
    out_pres[j] = true;
    if constexpr (AOP == GB_OP_MIN) {
      const unsigned long long key = gb_key(t, true);
      if (*((volatile unsigned long long*)&keys[j]) > key) atomicMin(&keys[j], key);
    } else if constexpr (AOP == GB_OP_MAX) {
      const unsigned long long key = gb_key(t, false);
      if (*((volatile unsigned long long*)&keys[j]) < key) atomicMax(&keys[j], key);
    } else {
      atomicAdd(&keys[j], (unsigned long long)(long long)t);
    }
  }
}

// out_vals[j] = the value of keys[j] where out_pres[j] (a plus key is the sum itself; keys
// may be out_vals' own memory: each thread reads its key before it writes the value);
// count += the present outputs.
template <int AOP, typename TZ>
__global__ void mxv_push_atomic_out(const unsigned long long* keys, long long n,
                                    const bool* __restrict__ out_pres, TZ* out_vals,
                                    unsigned long long* __restrict__ count) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  unsigned found = 0;
  for (long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += stride) {
    if (!out_pres[j]) continue;
    TZ v;
    if constexpr (AOP == GB_OP_PLUS) {
      v = (TZ)(long long)keys[j];  // the 64-bit sum wraps to TZ's width, as TZ's own sum
    } else {
      gb_unkey(keys[j], AOP == GB_OP_MIN, v);
    }
    out_vals[j] = v;
    ++found;
  }
  found = __reduce_add_sync(GB_FULL_MASK, found);
  if ((threadIdx.x & 31) == 0 && found) atomicAdd(count, (unsigned long long)found);
}

// ---------------------------------------------------------------------------- products
// out[t] = mult(a[t], b[t]) at (i[t], k[t], 0): the multiply of an expanded product list
// (push for monoids other than `any`, before the segmented fold). Bytes per product:
// 16 (i, k) [+ sizeof(TD) each for a, b] + sizeof(TZ).
template <int MOP, typename TD, typename TZ, bool UL, bool UR>
__global__ void mult_products(const TD* __restrict__ a, const TD* __restrict__ b,
                              const long long* __restrict__ i, const long long* __restrict__ k,
                              long long n, TZ* __restrict__ out) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < n; t += stride) {
    TD av = TD(), bv = TD();
    if constexpr (UL) av = a[t];
    if constexpr (UR) bv = b[t];
    out[t] = gb_mult<MOP, TD, TZ>(av, bv, i[t], k[t], 0LL);
  }
}
