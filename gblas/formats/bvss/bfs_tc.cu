// The whole direction-optimising BFS in one persistent cooperative kernel, with BVSS pull
// levels (Blest: 1-bit Tensor Core MMAs over virtual slice sets) and the CSR push levels of
// the fused CSR kernel (gblas/formats/csr/bfs_common.cuh: state, push, direction rule).
// Vertex ids inside the kernel are BVSS positions (the reordered ids); the push reads the
// CSR of A permuted the same way, and the output pass maps every result back to the
// caller's ids (out[perm[p]] = result of p, parents through perm too).
//
// A pull level k (three phases, a grid sync after each):
//   1. frontier bytes: one lane per column block b, F_b = bits t with lvl[8b+t] == k-1 (a
//      coalesced 32-byte read per block); the VSSs of every block with F_b != 0 go to the
//      active queue (one atomic per warp): no warp ever works on a zero frontier byte. The
//      same lane writes byte b of the bitmaps vis and seen (lvl >= 0: visited before k);
//   2. the active VSSs, one warp each (bv_process): two 1-bit MMAs, lazy updates: a hit
//      row's bit is set in seen (a plain read first, an atomicOr only where the bit looked
//      clear), the lane that set it stores the row's candidate parent;
//   3. finalisation, coalesced over the bitmap words (a lane per word): new = seen & ~vis
//      get level k and their parent, go to the next push queue (so a push may follow
//      without a rebuild), and vis catches up with seen.
// Push levels are fb_push unchanged. The direction rule is fb_decide (LAGraph's).

#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#include "../csr/bfs_common.cuh"
#include "bvss_common.cuh"

struct BvPull {
  const long long* __restrict__ set_ptr;
  const long long* __restrict__ vss_ptr;
  const int* __restrict__ row_ids;
  const unsigned char* __restrict__ masks;
  long long nsets;
  longlong2* vq;                  // active VSS queue of the level (bv_enqueue's entries)
  unsigned long long* vq_len;     // [2]: queue lengths by level parity
  unsigned int* vis;              // bitmap: visited before the level (written in phase 1)
  unsigned int* seen;             // bitmap: vis plus the rows hit at the level (lazy)
  int* cand;                      // candidate parents (with parents)
};

// Phase 1 of pull level k: frontier bytes, the active queue, and the bitmaps' bytes
// (warp-uniform loop: every lane runs bv_enqueue's shuffles).
__device__ __forceinline__ void bv_frontier(const FbGraph& g, const BvPull& P, long long n,
                                            int k, unsigned long long* vq_len, long long tid,
                                            long long nthreads, int lane) {
  unsigned char* vis8 = reinterpret_cast<unsigned char*>(P.vis);
  unsigned char* seen8 = reinterpret_cast<unsigned char*>(P.seen);
  for (long long b0 = tid - lane; b0 < P.nsets; b0 += nthreads) {
    const long long b = b0 + lane;
    unsigned F = 0u, V = 0u;
    int cnt = 0;
    long long v0 = 0;
    if (b < P.nsets) {
      const long long c0 = 8 * b;
      int l[8];
      if (c0 + 8 <= n) {  // the 8 levels as two 16-byte loads
        const int4 l0 = __ldcg(reinterpret_cast<const int4*>(g.lvl + c0));
        const int4 l1 = __ldcg(reinterpret_cast<const int4*>(g.lvl + c0 + 4));
        l[0] = l0.x; l[1] = l0.y; l[2] = l0.z; l[3] = l0.w;
        l[4] = l1.x; l[5] = l1.y; l[6] = l1.z; l[7] = l1.w;
      } else {
#pragma unroll
        for (int t = 0; t < 8; ++t) l[t] = c0 + t < n ? __ldcg(&g.lvl[c0 + t]) : -1;
      }
#pragma unroll
      for (int t = 0; t < 8; ++t) {
        F |= (unsigned)(l[t] == k - 1) << t;
        V |= (unsigned)(l[t] >= 0) << t;
      }
      vis8[b] = (unsigned char)V;
      seen8[b] = (unsigned char)V;
      if (F) {
        v0 = P.set_ptr[b];
        cnt = (int)(P.set_ptr[b + 1] - v0);
      }
    }
    bv_enqueue(P.vss_ptr, v0, cnt, b, F, P.vq, vq_len, lane);
  }
}

// Phase 3 of pull level k: the vertices new in seen get level k (and their parent) and go
// to the next queue (hubs to the chunk list); a lane per bitmap word, one atomic per warp.
__device__ __forceinline__ void bv_finalise(const FbGraph& g, const BvPull& P,
                                            const FbLevel& L, long long nwords,
                                            unsigned long long& fe, long long gwarp,
                                            long long nwarps, int lane) {
  for (long long w0 = gwarp * 32; w0 < nwords; w0 += nwarps * 32) {
    const long long w = w0 + lane;
    unsigned fresh = 0u;
    if (w < nwords) {
      const unsigned sn = __ldcg(&P.seen[w]);
      fresh = sn & ~__ldcg(&P.vis[w]);
      if (fresh) P.vis[w] = sn;
    }
    fb_queue_word(g, L, w, fresh, lane, [&](int v, long long d) {
      g.lvl[v] = L.k;
      if (g.parents) g.par[v] = __ldcg(&P.cand[v]);
      fe += (unsigned long long)d;
    });
  }
}

// Results in the caller's ids (grid-stride): int64 levels (-1 unreached), reached bits,
// int64 parents.
__device__ __forceinline__ void bv_output(const FbGraph& g, long long n,
                                          const long long* __restrict__ perm, int use_perm,
                                          long long* out_levels, bool* out_bits,
                                          long long* out_parents, long long tid,
                                          long long nthreads) {
  for (long long v = tid; v < n; v += nthreads) {
    const int l = __ldcg(&g.lvl[v]);
    const long long o = use_perm ? perm[v] : v;
    out_levels[o] = (long long)l;
    out_bits[o] = l >= 0;
    if (g.parents) {
      const int p = __ldcg(&g.par[v]);
      out_parents[o] = l >= 0 ? (use_perm ? perm[p] : (long long)p) : -1LL;
    }
  }
}

template <bool TC>
__global__ void __launch_bounds__(FB_BLOCK, FB_MIN_BLOCKS)
bfs_bvss(const long long* __restrict__ a_ptr, const long long* __restrict__ a_idx,
         const long long* __restrict__ set_ptr,
         const long long* __restrict__ vss_ptr, const int* __restrict__ row_ids,
         const unsigned char* __restrict__ masks, long long nsets,
         const long long* __restrict__ perm, int use_perm,
         long long n, long long nnz, long long source, int mode, int want_parents,
         double alpha, double beta1, double beta2,
         int* lvl, int* par, int* q0, int* q1, long long* own0, long long* own1,
         unsigned int* vis0, unsigned int* vis1,
         longlong2* vq, int* cand,
         unsigned long long* ctr,  // 24 words, zero at launch (20..21: queue lengths)
         long long* out_levels, bool* out_bits, long long* out_parents, unsigned int* meta) {
  cg::grid_group grid = cg::this_grid();
  __shared__ int s_stage[FB_BLOCK / 32][FB_STAGE];
  __shared__ FbLoop st;
  const unsigned long long t_start = fb_clock();
  const int lane = threadIdx.x & 31;
  const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long nthreads = (long long)gridDim.x * blockDim.x;
  const long long gwarp = tid >> 5;
  const long long nwarps = nthreads >> 5;
  int* sbuf = s_stage[threadIdx.x >> 5];
  // t_ptr/t_idx/heavy are the CSR pull's; this kernel pulls through BVSS only
  const FbGraph g{a_ptr, a_idx, a_ptr, a_idx, nullptr, lvl, par, nullptr, want_parents, 1};
  const BvPull P{set_ptr, vss_ptr, row_ids, masks, nsets, vq, ctr + 20,
                 vis0, vis1, cand};  // fb_start clears both bitmaps
  const int src = (int)source;

  // ---- level 0 (no heavy-row list: that is the CSR pull's)
  fb_start(g, n, 0, src, q0, own0, vis0, vis1, ctr, tid, nthreads);
  if (threadIdx.x == 0) fb_loop_init(st, mode, n, nnz, fb_out_degree(g, src));
  grid.sync();
  if (threadIdx.x == 0) st.t_last = fb_clock();
  if (tid == 0) meta[3] = (unsigned int)(st.t_last - t_start);

  while (true) {
    if (threadIdx.x == 0) fb_decide(st, n, alpha, beta1, beta2);
    __syncthreads();
    if (st.done) break;
    const int k = (int)st.k;
    const bool do_push = st.do_push;
    FbLevel L = fb_level(k, q0, q1, own0, own1, ctr);
    if (tid == 0) {
      unsigned long long* clr = ctr + 4 * ((k + 1) % 3);
      clr[0] = clr[1] = clr[2] = clr[3] = 0ULL;
      P.vq_len[(k + 1) & 1] = 0ULL;  // last read by the pull of level k - 1, before a sync
    }
    unsigned long long acc = 0;  // out-degrees of the new vertices
    if (do_push) {
      fb_push(g, L, acc, sbuf, gwarp, nwarps, lane);
      fb_count(L, true, acc, lane);
    } else {
      unsigned long long* len = P.vq_len + (k & 1);
      bv_frontier(g, P, n, k, len, tid, nthreads, lane);
      grid.sync();
      const long long nq = (long long)__ldcg(len);
      if (want_parents) {
        bv_process<TC, true>(row_ids, masks, P.vq, nq, P.seen, cand, gwarp, nwarps, lane);
      } else {
        bv_process<TC, false>(row_ids, masks, P.vq, nq, P.seen, cand, gwarp, nwarps, lane);
      }
      grid.sync();
      bv_finalise(g, P, L, (n + 31) >> 5, acc, gwarp, nwarps, lane);
    }
    grid.sync();
    if (threadIdx.x == 0) {
      fb_finish(st, L.c_out, ctr, n, meta, tid == 0);
      st.queue_valid = 1;  // a BVSS pull level stages its new vertices like a push
    }
  }

  bv_output(g, n, perm, use_perm, out_levels, out_bits, out_parents, tid, nthreads);
  if (tid == 0) {
    meta[0] = (unsigned int)st.k;
    meta[1] = (unsigned int)st.nvisited;
    meta[2] = (unsigned int)st.steps;
    meta[4] = (unsigned int)(fb_clock() - st.t_last);
  }
}
