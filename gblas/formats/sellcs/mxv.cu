// Sell-C-σ / SlimSell kernels for mxv on the GPU (CuPy RawModule, -std=c++17).
//
// The semiring functors gb_mult<MOP, TD, TZ> / gb_add<AOP, TZ> come from
// gblas.semirings.codegen_cuda.functor_source(), prepended by gblas/formats/sellcs/cuda.py
// (scripts/check_cuda.sh does the same). Template arguments as in csr/mxv.cu: MOP/AOP
// opcodes, TD the multiply domain, TZ the output type, UL/UR whether the multiply reads
// the matrix / vector values (SlimSell and structural semirings: UL = false, or the matrix
// value is the 1-element iso array).
//
// Layout (gblas/formats/sellcs/container.py): chunk c holds sorted rows c*C .. c*C+C-1;
// slot j of lane l is cell cs[c] + j*C + l (column-major), padding cells hold column -1;
// perm[r] is the original row of sorted row r (has_perm = 0: identity).
//
// Mapping: one thread per (piece, lane), i.e. per sorted row of a chunk. For C = 32 a warp
// is one chunk (one lane per row); for C < 32 a warp covers 32/C chunks, for C > 32 a chunk
// spans C/32 warps. The lanes of one slot are adjacent cells, so each step of the slot
// loop is one coalesced load of the warp. Every lane folds its own row in slot order (the
// CSR row order), which is what the CPU kernel does, and pieces are folded in piece order:
// for the same pieces the results equal the CPU's bit for bit. A chunk wider than
// cuda.SPLIT slots is cut into pieces on the GPU even without SlimChunk (a lane walking a
// hub row alone would serialise the launch), so a floating-point sum over such a row
// may round differently from the CPU's (association); other monoids are unaffected.
//
// SlimWork (SW = true): a lane whose output row the mask forbids reads nothing but its
// mask bit, so a warp whose 32 rows are all forbidden (a settled chunk for C = 32) leaves
// after its mask loads; a lane stops at its first padding cell (rows are left-packed: a
// row's cells are slots 0 .. deg-1, so -1 marks its end), at the monoid's terminal value
// (stop_term), or after its first product when the monoid keeps its first operand
// (first_wins, which is what defines `any`, so it holds in both variants). The warp
// leaves the slot loop when all its lanes stopped.
// SW = false (sellcs.cpu.slimwork(False), for measurements): no row is skipped. Every lane
// of every chunk reads its row to the padding (no terminal stop) and the mask is applied
// only when the result is written. Both variants give the same results.
//
// Work counters (read with the result count, no extra sync): work[0] (= `count`) rows
// found, work[1] lanes that read their row, work[2] warps that read no row at all.
//
// Bytes per live row: 8 (perm, if sorted) + 1 (mask) + per slot read 8 (column) + 1 (x bit)
// [+ sizeof(TD) matrix value if UL and not iso] [+ sizeof(TD) x value if UR];
// out 1 + sizeof(TZ). One flop (mult + add) per entry whose x(k) is present.

#define GB_FULL_MASK 0xffffffffu

// PIECES = false: one piece per chunk (slots [0, width[c])), results go straight to the
// original rows (out_pres/out_vals indexed by perm[r]) and `count` gets the number found.
// PIECES = true (SlimChunk): piece q covers slots [plo[q], phi[q]) of chunk pc[q]; the
// partial result of lane l goes to out_pres/out_vals[q*C + l] and sell_combine folds them.
// SW: SlimWork on (see above).
template <int MOP, int AOP, typename TD, typename TZ, bool UL, bool UR, bool PIECES, bool SW>
__global__ void sell_mxv(const long long* __restrict__ cs,
                         const long long* __restrict__ pc,
                         const long long* __restrict__ plo,
                         const long long* __restrict__ phi,  // width[c] when !PIECES
                         long long npieces, long long C, long long nrows,
                         const long long* __restrict__ cols,
                         const TD* __restrict__ mvals, int m_iso,
                         const long long* __restrict__ perm, int has_perm,
                         const bool* __restrict__ xpres,
                         const TD* __restrict__ xvals, int x_iso,
                         const bool* __restrict__ mask, int use_mask, int mcomp,
                         const TZ* __restrict__ params,  // identity, terminal
                         int stop_term, int first_wins,
                         bool* __restrict__ out_pres, TZ* __restrict__ out_vals,
                         unsigned long long* __restrict__ count) {  // work[3], see above
  const int wl = threadIdx.x & 31;
  const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
  const long long total = npieces * C;
  const TZ ident = params[0];
  const TZ term = params[1];
  unsigned long long nfound = 0, nread = 0, nidle = 0;
  // warp-uniform trip count (t0 steps by whole warps) so the ballots below are legal
  for (long long t0 = warp * 32; t0 < total; t0 += nwarps * 32) {
    const long long t = t0 + wl;
    const long long q = t / C;
    const long long lane = t - q * C;
    const long long c = PIECES ? (t < total ? pc[q] : 0) : q;
    const long long r = c * C + lane;
    long long i = r;
    const bool row = t < total && r < nrows;
    if (row && has_perm) i = perm[r];
    // SlimWork: the mask is checked before the row is read (masked rows cost one byte)
    bool allowed = row;
    if constexpr (SW) {
      if (row && use_mask && (bool)mask[i] == (bool)mcomp) allowed = false;
    }
    const bool live = SW ? allowed : row;
    const unsigned lb = __ballot_sync(GB_FULL_MASK, live);
    if (wl == 0) {
      nread += __popc(lb);
      nidle += lb == 0u;
    }
    bool found = false;
    TZ acc = ident;
    if (live) {
      const long long lo = PIECES ? plo[q] : 0;
      const long long hi = phi[q];
      const long long base = cs[c] + lane;
      for (long long j = lo; j < hi; ++j) {
        const long long cell = base + j * C;
        const long long k = cols[cell];
        if (k < 0) break;  // padding: the row ended (rows are left-packed)
        if (!xpres[k]) continue;
        TD a = TD(), b = TD();
        if constexpr (UL) a = m_iso ? mvals[0] : mvals[cell];
        if constexpr (UR) b = x_iso ? xvals[0] : xvals[k];
        const TZ p = gb_mult<MOP, TD, TZ>(a, b, i, k, 0LL);
        acc = found ? gb_add<AOP, TZ>(acc, p) : p;
        found = true;
        if (first_wins || (SW && stop_term && acc == term)) break;
      }
    }
    if constexpr (!SW) {
      // no SlimWork: the row was computed, the mask only decides whether it is written
      if (found && use_mask && (bool)mask[i] == (bool)mcomp) found = false;
    }
    if (t < total && (PIECES || r < nrows)) {
      const long long o = PIECES ? t : i;
      out_pres[o] = found;
      out_vals[o] = found ? acc : ident;
    }
    if (!PIECES) {
      const unsigned b = __ballot_sync(GB_FULL_MASK, found);
      if (wl == 0) nfound += __popc(b);
    }
  }
  if (wl == 0) {
    if (!PIECES && nfound) atomicAdd(count, nfound);
    if (nread) atomicAdd(count + 1, nread);
    if (nidle) atomicAdd(count + 2, nidle);
  }
}

// SlimChunk, phase 2: sorted row r (thread per row) folds the partial results of its
// chunk's pieces in piece order (= slot order, so `first` / `any` keep the row's first
// product, as on the CPU) and writes the original row perm[r].
template <int AOP, typename TZ>
__global__ void sell_combine(const long long* __restrict__ pstart, long long C,
                             long long nrows, const long long* __restrict__ perm,
                             int has_perm, const bool* __restrict__ pfnd,
                             const TZ* __restrict__ pacc,
                             const TZ* __restrict__ params, int stop_term, int first_wins,
                             bool* __restrict__ out_pres, TZ* __restrict__ out_vals,
                             unsigned long long* __restrict__ count) {
  const int wl = threadIdx.x & 31;
  const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
  const TZ ident = params[0];
  const TZ term = params[1];
  unsigned long long nfound = 0;
  for (long long r0 = warp * 32; r0 < nrows; r0 += nwarps * 32) {
    const long long r = r0 + wl;
    bool found = false;
    if (r < nrows) {
      const long long c = r / C;
      const long long lane = r - c * C;
      TZ acc = ident;
      for (long long q = pstart[c]; q < pstart[c + 1]; ++q) {
        const long long p = q * C + lane;
        if (!pfnd[p]) continue;
        acc = found ? gb_add<AOP, TZ>(acc, pacc[p]) : pacc[p];
        found = true;
        if (first_wins || (stop_term && acc == term)) break;
      }
      const long long i = has_perm ? perm[r] : r;
      out_pres[i] = found;
      out_vals[i] = found ? acc : ident;
    }
    const unsigned b = __ballot_sync(GB_FULL_MASK, found);
    if (wl == 0) nfound += __popc(b);
  }
  if (wl == 0 && nfound) atomicAdd(count, nfound);
}
