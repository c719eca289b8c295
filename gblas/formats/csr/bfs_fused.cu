// The whole direction-optimising push-pull BFS in one persistent cooperative kernel
// (CuPy RawModule, enable_cooperative_groups=True, -std=c++17). The state, the phases and
// the direction rule are in bfs_common.cuh (shared with the level kernels of
// bfs_levels.cu); this file is the persistent loop: one phase per level, one grid sync
// between levels (two at a direction switch that needs a rebuild).
//
// Several launches: `stop` 1 returns before the first pull level, 2 before the first push
// level (either leaves the loop state in gst, its next direction taken, and writes no
// results); `resume` 1 starts from that state instead of level 0. The fused BFS runs a
// search as the push levels by a build of 64 registers (FB_MIN_BLOCKS 4), the pull levels
// by one of 32 (8 blocks an SM: a pull's long scans of in-rows are chains of dependent
// loads that want more warps; the pushes were slower so built), and the rest by the first
// build: launches (resume, stop) = (0, 1), (1, 2), (1, 0) on one stream. The pull launch's
// build (FB_PULL_ONLY, launched with resume 1 and stop 2 only) has no push code and no
// level 0: it returns before any push level, and without the push's registers live beside
// the pull's it spills 32 B at 32 registers, where the whole kernel spills 324.
//
// Block levels: a push level whose frontier has at most `small_edges` out-edges is run by
// block 0 alone, and so are the levels after it while that holds, each ended by a
// __syncthreads instead of a grid sync; the other blocks wait at one grid sync until the
// frontier grows again (or the search ends). A grid sync on the H100 plus the counters'
// round trip is most of a level with a tiny frontier (road networks: ~5.6 µs a level, one
// dependent chain of ~9 L2 accesses the rest); block 0 then publishes its copy of the loop
// state (gst, 16 words after the counters) and every block resumes from it.
//
// Eager grid levels: a push level of the whole grid from a queue (not right after a pull,
// whose frontier's edges are not counted) over at most `eager_edges` frontier edges claims
// its targets as block levels do (the CAS with the degree loaded alongside, no probe
// first): grids' and road networks' wide levels are a chain of dependent L2 accesses, one
// fewer this way; and a push of the grid reads its frontier's counts from the block's copy
// of the counters thread 0 read after the grid sync (s_cin), not from L2 again. Both: grid
// 2048² 5.35 -> 4.83 µs a level on an H200 (bfs_fused.py's EAGER_EDGES).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#include "bfs_common.cuh"

// Whether level st.k (its direction taken) runs as block levels: a push from a queue (not
// right after a pull) over at most small_edges frontier edges (0: never).
__device__ __forceinline__ bool fb_block_level(const FbLoop& st, long long small_edges) {
  return small_edges > 0 && st.do_push && st.queue_valid &&
         (long long)st.frontier_edges <= small_edges;
}

// Block 0 alone (every thread): push levels st.k, st.k + 1, ... with the block's warps, a
// __syncthreads after each, thread 0 folding the counters and taking the next direction, as
// long as the next level is a small push. The level counters live in the block's shared
// memory meanwhile (s_ctr, the same three slots as ctr): the frontier's slot is copied in
// first, and the last level's slot copied out with the grid's next two slots cleared, so
// the grid resumes exactly as after a grid level. Returns with the next level's direction
// taken (st.decided) or the search done. The other blocks are parked at a grid sync, so
// lvl, par, the queues and ctr are the block's alone.
__device__ __forceinline__ void fb_block_levels(const FbGraph& g, FbLoop& st, long long n,
                                                double alpha, double beta1, double beta2,
                                                long long small_edges, int* q0, int* q1,
                                                long long* own0, long long* own1,
                                                unsigned long long* ctr,
                                                unsigned long long* s_ctr, unsigned int* meta,
                                                int* sbuf, int lane) {
  const long long bwarp = threadIdx.x >> 5;
  if (threadIdx.x < 4) {
    const int k = (int)st.k;
    s_ctr[4 * ((k - 1) % 3) + threadIdx.x] = __ldcg(ctr + 4 * ((k - 1) % 3) + threadIdx.x);
    s_ctr[4 * (k % 3) + threadIdx.x] = 0ULL;
  }
  __syncthreads();
  int last;
  do {
    const FbLevel L = fb_level((int)st.k, q0, q1, own0, own1, s_ctr);
    last = L.k;
    if (threadIdx.x == 0) {
      unsigned long long* clr = s_ctr + 4 * ((L.k + 1) % 3);
      clr[0] = clr[1] = clr[2] = clr[3] = 0ULL;
    }
    unsigned long long acc = 0;
    fb_push<true>(g, L, acc, sbuf, bwarp, FB_BLOCK / 32, lane);
    fb_count(L, true, acc, lane);
    __syncthreads();
    if (threadIdx.x == 0) {
      fb_finish<true>(st, L.c_out, ctr, n, meta, true);
      fb_decide(st, n, alpha, beta1, beta2);
      st.decided = 1;
      meta[5] += 1u;  // steps run as block levels
    }
    __syncthreads();
  } while (!st.done && fb_block_level(st, small_edges));
  if (threadIdx.x < 4) {
    ctr[4 * (last % 3) + threadIdx.x] = s_ctr[4 * (last % 3) + threadIdx.x];
    ctr[4 * ((last + 1) % 3) + threadIdx.x] = 0ULL;
    ctr[4 * ((last + 2) % 3) + threadIdx.x] = 0ULL;
  }
}

// Whether push level st.k (its direction taken, not block levels) is a marked push: from a
// queue over at least mark_edges frontier edges (0: never), bfs_common.cuh's fb_push_mark.
__device__ __forceinline__ bool fb_mark_level(const FbLoop& st, long long mark_edges) {
  return mark_edges > 0 && st.queue_valid && (long long)st.frontier_edges >= mark_edges;
}

extern "C" __global__ void __launch_bounds__(FB_BLOCK, FB_MIN_BLOCKS)
bfs_fused(const long long* __restrict__ a_ptr, const fb_idx_t* __restrict__ a_idx,
          const long long* __restrict__ t_ptr, const fb_idx_t* __restrict__ t_idx,
          const unsigned int* __restrict__ dead,
          long long n, long long nnz, long long source, int mode, int want_parents, int sym,
          double alpha, double beta1, double beta2, long long small_edges,
          long long eager_edges, long long mark_edges, int pull_serial,
          long long nheavy, int resume, int stop,
          int* lvl, int* par, int* q0, int* q1, long long* own0, long long* own1,
          unsigned int* vis0, unsigned int* vis1, unsigned char* mark, long long* heavy,
          unsigned long long* ctr,  // 36 words, zero at launch (20 counters, gst)
          long long* out_levels, bool* out_bits, long long* out_parents,
          unsigned long long* out_count, unsigned int* meta) {
  // stop 3: launched after the barrier-free kernel (bfs_async.cu) on the same stream, it
  // runs the search (as stop 0) only where that one's queue overflowed (meta[7])
  if (stop == 3) {
    if (__ldcg(meta + 7) == 0u) return;
    stop = 0;
  }
  cg::grid_group grid = cg::this_grid();
  __shared__ FbLoop st;
  __shared__ int s_stop;  // this launch stops here (thread 0 decides)
#ifndef FB_PULL_ONLY
  __shared__ int s_stage[FB_BLOCK / 32][FB_WARP_STAGE];
  __shared__ unsigned long long s_ctr[12];  // block levels' counters
  // The counters of grid level s_cin_k as thread 0 read them after its grid sync: the next
  // level's push reads its frontier's size from here, not from L2 again (one round trip of
  // the chain a small level is). -1: none (launch start). Block levels leave it behind:
  // they advance st.k by at least one, so s_cin_k < k - 1 after them (one that found
  // nothing ends the search before a push could read it). Not in the pull build: no push
  // reads them there, and its pulls lost 13 % at urand:22 to the register allocation that
  // came with them (H200, 2026-11-29).
  __shared__ unsigned long long s_cin[4];
  __shared__ int s_cin_k;
#endif
  const unsigned long long t_start = fb_clock();
  const int lane = threadIdx.x & 31;
  const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long nthreads = (long long)gridDim.x * blockDim.x;
  const long long gwarp = tid >> 5;
  const long long nwarps = nthreads >> 5;
#ifndef FB_PULL_ONLY
  const long long nwords = (n + 31) >> 5;
  int* sbuf = s_stage[threadIdx.x >> 5];
#endif
  const FbGraph g{a_ptr, a_idx, t_ptr, t_idx, dead, lvl, par, heavy, want_parents, sym};

  FbLoop* gst = reinterpret_cast<FbLoop*>(ctr + 20);
#ifndef FB_PULL_ONLY
  if (threadIdx.x == 0) s_cin_k = -1;
#endif
#ifdef FB_PULL_ONLY
  if (!resume || stop != 2) __trap();  // (the host launches this build with both only)
  if (threadIdx.x == 0) fb_load_loop(st, gst);
#else
  if (resume) {  // the loop state as the launch before left it (its direction taken)
    if (threadIdx.x == 0) fb_load_loop(st, gst);
  } else {
    const int src = (int)source;
    // ---- level 0: the source, lvl and par, empty bitmaps, the heavy chunks' count
    fb_start(g, n, nheavy, src, q0, own0, vis0, vis1, ctr, tid, nthreads);
    if (threadIdx.x == 0) fb_loop_init(st, mode, n, nnz, fb_out_degree(g, src));
    grid.sync();
    if (threadIdx.x == 0) st.t_last = fb_clock();
    if (tid == 0) {
      meta[3] = (unsigned int)(st.t_last - t_start);
      meta[5] = 0u;
      meta[6] = 0u;  // steps run as marked pushes
    }
  }
#endif

  // ---- the level loop. Thread 0 of every block runs the direction rule on the counters
  // (the same arithmetic in every block, so every block takes the same decision) and keeps
  // the loop state in shared memory, out of the registers the phases need.
  while (true) {
    if (threadIdx.x == 0) {
      if (!st.decided) fb_decide(st, n, alpha, beta1, beta2);
      st.decided = 0;
      // a launch that stops before a pull (stop 1) or a push (stop 2) leaves the state,
      // its next direction taken, to the next launch; so does one whose search has ended
      s_stop = stop && (st.done || (stop == 1) != (bool)st.do_push);
#ifdef FB_PULL_ONLY
      s_stop = s_stop || st.do_push;  // (launched with stop 2 only)
#endif
    }
    __syncthreads();
    if (s_stop) {
      if (tid == 0) {  // (decided set first: when block levels have just published gst,
        st.decided = 1;  // other blocks may still be reading it, and these are its bytes)
        *gst = st;
      }
      return;
    }
    if (st.done) break;
#ifndef FB_PULL_ONLY
    if (fb_block_level(st, small_edges)) {  // the same decision in every block
      if (blockIdx.x == 0) {
        fb_block_levels(g, st, n, alpha, beta1, beta2, small_edges, q0, q1, own0, own1, ctr,
                        s_ctr, meta, sbuf, lane);
        if (threadIdx.x == 0) *gst = st;
      }
      grid.sync();
      if (threadIdx.x == 0 && blockIdx.x != 0) fb_load_loop(st, gst);
      continue;  // the next level's direction is taken (st.decided)
    }
#endif
    const int k = (int)st.k;
    const bool do_push = st.do_push;
    FbLevel L = fb_level(k, q0, q1, own0, own1, ctr);
#ifndef FB_PULL_ONLY
    if (s_cin_k == k - 1) L.c_in = s_cin;  // (a rebuilt queue's counters replace it below)
#endif
    if (tid == 0) {
      unsigned long long* clr = ctr + 4 * ((k + 1) % 3);
      clr[0] = clr[1] = clr[2] = clr[3] = 0ULL;
    }
    unsigned long long acc = 0;  // push: out-degrees of new vertices; pull: vertices found
#ifndef FB_PULL_ONLY
    bool marked = false;  // a marked push (it leaves the next pull's bitmap written)
    if (do_push) {
      if (!st.queue_valid) {  // after a pull: the frontier from the bitmaps, into slot 4
        FbLevel R = L;
        R.q_out = L.q_in;
        R.own_out = L.own_in;
        R.c_out = ctr + 16;
        fb_rebuild_queue(g, R, nwords, (k & 1) ? vis1 : vis0, (k & 1) ? vis0 : vis1, gwarp,
                         nwarps, lane);
        grid.sync();
        L.c_in = ctr + 16;
      }
      marked = fb_mark_level(st, mark_edges);  // the same decision in every block
      if (marked) {
        fb_push_mark(g, L, mark, g.parents, gwarp, nwarps, lane);
        grid.sync();
        fb_mark_finish(g, L, n, mark, (k & 1) ? vis0 : vis1, acc, sbuf, gwarp, nwarps, lane);
      } else {
        // (a push after a pull has no frontier_edges count, 0: it takes the probe)
        fb_push(g, L, acc, sbuf, gwarp, nwarps, lane,
                eager_edges > 0 && st.queue_valid &&
                    (long long)st.frontier_edges <= eager_edges);
      }
    } else
#endif
    {
      unsigned int* vis_in = (k & 1) ? vis1 : vis0;
      unsigned int* vis_out = (k & 1) ? vis0 : vis1;
      if (!st.vis_valid) {
        fb_rebuild_vis(g, n, vis_in, gwarp, nwarps, lane);
        grid.sync();
      }
      if (nheavy) fb_pull_heavy(g, L, nheavy, vis_in, vis_out, acc, gwarp, nwarps, lane);
      fb_pull(g, L, n, vis_in, vis_out, acc, gwarp, nwarps, lane, pull_serial);
    }
    fb_count(L, do_push, acc, lane);
    grid.sync();
#ifdef FB_PULL_ONLY
    if (threadIdx.x == 0) fb_finish(st, L.c_out, ctr, n, meta, tid == 0);
#else
    if (threadIdx.x == 0) {
#pragma unroll
      for (int i = 0; i < 4; ++i) s_cin[i] = __ldcg(L.c_out + i);
      s_cin_k = k;
      fb_finish<true>(st, s_cin, ctr, n, meta, tid == 0);
      if (marked) {
        st.vis_valid = 1;  // fb_mark_finish wrote the bitmap the next pull reads
        if (tid == 0) meta[6] += 1u;
      }
    }
#endif
    // no barrier needed here: the one at the top of the loop orders these writes
  }

  // ---- results
  fb_output(g, n, out_levels, out_bits, out_parents, tid, nthreads);
  if (tid == 0) {
    meta[0] = (unsigned int)st.k;
    meta[1] = (unsigned int)st.nvisited;
    *out_count = (unsigned long long)st.nvisited;  // the result's nvals, read if asked
    meta[2] = (unsigned int)st.steps;
    meta[4] = (unsigned int)(fb_clock() - st.t_last);  // the output pass (thread 0's share)
  }
}
