// The direction-optimising push-pull BFS as ordinary (non-cooperative) kernel launches, one
// level body = bfs_lv_prep -> bfs_lv_phase -> bfs_lv_step, captured once in a CUDA graph and
// replayed by the host K times between reads of the done flag (bfs_levels.py). The phases,
// the direction rule and the state are those of the fused kernel (bfs_common.cuh); the
// kernel boundaries take the place of its grid syncs.
//
// The loop state (FbLoop) lives in device memory, written only by the 1-block kernels
// (bfs_lv_begin before level 1, bfs_lv_step after every level); the grid kernels read it at
// their start and return at once when the search is done (a replay after the end is a
// no-op) or when they have nothing to do at this level:
//   bfs_lv_prep   the rebuild a direction switch needs before the phase: the visited bitmap
//                 from lvl (pull after push), or the queue from the two bitmaps (push after
//                 pull); returns at once on every other level;
//   bfs_lv_phase  push or pull of level st.k, by st.do_push;
//   bfs_lv_step   (1 block) level st.k's counters into the state (fb_finish), the step log,
//                 then the direction of the next level (fb_decide) and its counter slot
//                 cleared.

#include "bfs_common.cuh"

#define FB_GRID_ARGS                                                                        \
  const long long *__restrict__ a_ptr, const long long *__restrict__ a_idx,                 \
      const long long *__restrict__ t_ptr, const long long *__restrict__ t_idx,             \
      const unsigned int *__restrict__ dead, long long n,                                   \
      int want_parents, int sym, int *lvl, int *par, int *q0, int *q1, long long *own0,      \
      long long *own1, unsigned int *vis0, unsigned int *vis1, long long *heavy,             \
      unsigned long long *ctr, FbLoop *state

#define FB_GRAPH FbGraph{a_ptr, a_idx, t_ptr, t_idx, dead, lvl, par, heavy, want_parents, sym}

// Level 0 (grid-stride): as the fused kernel's start; ctr must be zero.
extern "C" __global__ void __launch_bounds__(FB_BLOCK)
bfs_lv_init(FB_GRID_ARGS, long long source, long long nheavy) {
  const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (tid == 0) state->t_start = fb_clock();
  const FbGraph g = FB_GRAPH;
  fb_start(g, n, nheavy, (int)source, q0, own0, vis0, vis1, ctr, tid,
           (long long)gridDim.x * blockDim.x);
}

// The loop state before level 1 and level 1's direction (one thread).
extern "C" __global__ void bfs_lv_begin(const long long* __restrict__ a_ptr, long long n,
                                        long long nnz, long long source, int mode,
                                        double alpha, double beta1, double beta2,
                                        FbLoop* state, unsigned int* meta) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  FbLoop st;
  const unsigned long long t0 = state->t_start;
  fb_loop_init(st, mode, n, nnz, a_ptr[source + 1] - a_ptr[source]);
  fb_decide(st, n, alpha, beta1, beta2);
  st.t_start = t0;
  st.t_last = fb_clock();
  meta[3] = (unsigned int)(st.t_last - t0);
  *state = st;
}

// The rebuild before a phase that changes direction (grid-stride), or nothing.
extern "C" __global__ void __launch_bounds__(FB_BLOCK) bfs_lv_prep(FB_GRID_ARGS) {
  const FbLoop* st = state;
  if (st->done) return;
  const bool do_push = st->do_push;
  if (do_push ? st->queue_valid : st->vis_valid) return;
  const int k = (int)st->k;
  const FbGraph g = FB_GRAPH;
  const int lane = threadIdx.x & 31;
  const long long gwarp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
  if (do_push) {  // after a pull: the frontier from the bitmaps, into slot 4
    FbLevel R = fb_level(k, q0, q1, own0, own1, ctr);
    R.q_out = R.q_in;
    R.own_out = R.own_in;
    R.c_out = ctr + 16;
    fb_rebuild_queue(g, R, (n + 31) >> 5, (k & 1) ? vis1 : vis0, (k & 1) ? vis0 : vis1, gwarp,
                     nwarps, lane);
  } else {
    fb_rebuild_vis(g, n, (k & 1) ? vis1 : vis0, gwarp, nwarps, lane);
  }
}

// Push or pull of level st.k.
extern "C" __global__ void __launch_bounds__(FB_BLOCK, FB_MIN_BLOCKS) bfs_lv_phase(FB_GRID_ARGS) {
  __shared__ int s_stage[FB_BLOCK / 32][FB_STAGE];
  const FbLoop* st = state;
  if (st->done) return;
  const int k = (int)st->k;
  const bool do_push = st->do_push;
  const FbGraph g = FB_GRAPH;
  const int lane = threadIdx.x & 31;
  const long long gwarp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
  FbLevel L = fb_level(k, q0, q1, own0, own1, ctr);
  unsigned long long acc = 0;  // push: out-degrees of new vertices; pull: vertices found
  if (do_push) {
    if (!st->queue_valid) L.c_in = ctr + 16;  // the queue bfs_lv_prep rebuilt
    fb_push(g, L, acc, s_stage[threadIdx.x >> 5], gwarp, nwarps, lane);
  } else {
    unsigned int* vis_in = (k & 1) ? vis1 : vis0;
    unsigned int* vis_out = (k & 1) ? vis0 : vis1;
    const long long nheavy = (long long)ctr[12];
    if (nheavy) fb_pull_heavy(g, L, nheavy, vis_in, vis_out, acc, gwarp, nwarps, lane);
    fb_pull(g, L, n, vis_in, vis_out, acc, gwarp, nwarps, lane, FB_SERIAL);
  }
  fb_count(L, do_push, acc, lane);
}

// After level st.k (one thread): finish it, decide the next level's direction, clear the
// next level's counter slot (last used by level k - 2; the phase of level k + 1 adds to it).
extern "C" __global__ void bfs_lv_step(long long n, double alpha, double beta1, double beta2,
                                       unsigned long long* ctr, FbLoop* state,
                                       unsigned int* meta) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  FbLoop st = *state;
  if (st.done) return;
  fb_finish(st, ctr + 4 * (st.k % 3), ctr, n, meta, true);
  fb_decide(st, n, alpha, beta1, beta2);
  if (!st.done) {
    unsigned long long* clr = ctr + 4 * (st.k % 3);
    clr[0] = clr[1] = clr[2] = clr[3] = 0ULL;
  }
  *state = st;
}

// Results (grid-stride) and the header of meta: levels, reached, steps, output-pass ns.
extern "C" __global__ void __launch_bounds__(FB_BLOCK)
bfs_lv_output(FB_GRID_ARGS, long long* out_levels, bool* out_bits, long long* out_parents,
              unsigned int* meta) {
  const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const FbGraph g = FB_GRAPH;
  fb_output(g, n, out_levels, out_bits, out_parents, tid, (long long)gridDim.x * blockDim.x);
  if (tid == 0) {
    const FbLoop* st = state;
    meta[0] = (unsigned int)st->k;
    meta[1] = (unsigned int)st->nvisited;
    meta[2] = (unsigned int)st->steps;
    meta[4] = (unsigned int)(fb_clock() - st->t_last);
  }
}
