// Barrier-free BFS for graphs of low average degree (grids, meshes, road networks): one
// persistent cooperative kernel whose warps take vertices from one FIFO work queue and relax
// their out-edges, with no barrier between levels (CuPy RawModule, -std=c++17).
//
// Why: on such graphs a level of the fused kernel (bfs_fused.cu) is a few thousand vertices,
// and its time is a chain of dependent L2 accesses plus a grid barrier and the counters'
// round trip (~4.8 µs on an H200, docs/gpu_bfs_notes.md §6) repeated for thousands of
// levels. Here a vertex's out-edges are relaxed as soon as the vertex is taken from the
// queue: the search's time is its depth times one vertex's chain, with no barrier in it.
// The scheme is label-correcting (Atos: Chen et al., "Atos: A Task-Parallel GPU Scheduler for
// Graph Analytics", ICPP 2022, whose BFS is a persistent kernel over a shared queue):
//
//   lw[v]   one word a vertex: its best level so far (bits 0-30; 2^31 - 1: not reached) and
//           bit 31 set while v waits in the queue. A relaxation u -> v lowers the level by
//           atomicCAS and appends v when it was not waiting already; taking v from the queue
//           clears the bit with atomicAnd, which returns v's level at that moment (a later
//           improvement appends v again). With one word, the level and the "waiting" flag
//           change together: no fence between them.
//   aq      the queue: slots [0, cap) of vertex ids, -1 until written; `tail` counts the
//           reserved slots, `head` the claimed ones (an idle warp claims claim_lanes, 32 by
//           default, one a lane, and each lane waits for its slot to be written),
//           `finished` the slots whose vertex is done (its out-edges relaxed, what it
//           appended already reserved). The search is
//           over when finished == tail (read in that order, the first with acquire): every
//           reserved slot done, so nothing in flight can append more.
//
// Memory ordering of the termination test: a slot's reservation (lane 0's atomicAdd on tail)
// is ordered before the slot's write (another lane) by __syncwarp and a fence (a release
// pattern: fence, then the relaxed writes); the warp that polls the slot (a relaxed load
// and, once it finds a vertex, a fence: an acquire pattern) counts it done by lane 0's
// release add on finished in a later idle pass (the busy pass that took it ends with two
// __syncwarp); the quitting warp reads finished with acquire, then tail. So every
// reservation made before a counted completion is in the tail it reads: finished == tail
// means nothing is in flight (release/acquire at every link between warps, as the PTX
// memory model asks; reviewed 2026-11-29, docs/gpu_bfs_notes.md §7-8). The two links inside
// a warp (lane 0's reservation before another lane's fence; a lane's acquire before lane
// 0's count) rest on __syncwarp's memory ordering among its lanes, which the PTX text of
// bar.warp.sync and the CUDA Programming Guide state, not the PTX axioms' list of
// synchronizing operations.
//
// FIFO order keeps the tentative levels close to the final ones (a vertex reached by a
// longer path is corrected when the shorter one arrives, and appended again). The levels
// are exact when the queue drains. Parents are then one pass over the edges: for every
// u -> v with level(v) = level(u) + 1, atomicMin(par[v], u): the smallest-index vertex one
// level up, the CPU's parent. A queue of cap slots holds every append; a search that needs
// more (a pathological order) sets meta[7] and stops, and the fused kernel launched after
// this one on the same stream with stop 3 runs the search then (it returns at once when
// meta[7] is 0); so does a graph whose longest row is over row_limit, before anything runs.
//
// Outputs as bfs_fused.cu's (bfs_common.cuh): out_levels, out_bits, out_parents, out_count;
// meta[0] = levels, meta[1] = reached, meta[2] = steps (levels - 1, one more when some vertex
// is unreached: the fused kernel's count), meta[3] = ns of the start, meta[4] = ns of the
// output passes, meta[7] = 1 where the queue overflowed, meta[8] = ns of the queue's search
// (the other step times 0), and with log_steps meta[8 + FB_TLOG + i] = (vertices of level
// i + 1) << 1 | 1 (every step a push).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#include "bfs_common.cuh"

#define AB_QUEUED 0x80000000u
#define AB_LEVEL 0x7fffffffu  // the level bits; all set: not reached
#define AB_ROUND 1024         // out-edges of one row a lane takes per pass (hubs: several)
#define AB_PB 4               // edges a lane has in flight at once
#define AB_HBINS 4096         // the step log's histogram: levels counted in shared memory
#define AB_QUIT_EVERY 8       // idle passes of a warp per look at the termination counters
#define AB_PROF_WORDS 13      // ab_search's counters (fused_bfs(async_profile=True))
// The profile build (-DAB_PROFILE) counts them; the other builds have none of that code
// (its registers and speed are the measured ones), and `prof` is null there. The profile
// and look (-DAB_LOOK, ab_relax) builds ask for 1 block an SM, the blocks a graph of average
// degree below 8 is launched with (bfs_fused._default_blocks_per_sm), whose register budget
// keeps their counters and words out of local memory.
#ifdef AB_PROFILE
#define AB_PROF(...) __VA_ARGS__
#else
#define AB_PROF(...)
#endif
#if defined(AB_PROFILE) || defined(AB_LOOK)
#define AB_BOUNDS __launch_bounds__(FB_BLOCK, 1)
#else
#define AB_BOUNDS __launch_bounds__(FB_BLOCK)
#endif
// counter words (ctr, zero at launch and left zero): on different 128-byte lines where the
// fused kernel's 36 words allow, so the claims, appends and completions do not share one
#define AB_HEAD 0
#define AB_TAIL 16
#define AB_FINISHED 32
#define AB_OVERFLOW 8
#define AB_REACHED 9
#define AB_MAXLEVEL 10
#define AB_PUSHES 11

// a queue slot: written relaxed after one ab_fence_release of the writing lane (a release
// pattern, one fence for the lane's slots of a pass); polled relaxed, and a poll that finds a
// vertex is followed by ab_fence_acquire (an acquire pattern), so the idle polls, most of
// them, carry none. (sm_90: the release fence is a MEMBAR without the acq_rel fence's L1
// invalidate, the acquire fence an L1 invalidate without the MEMBAR.)
__device__ __forceinline__ int ab_poll(const int* p) {
  int v;
  asm volatile("ld.relaxed.gpu.global.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
// a vertex's word as the L2 holds it (the look build's read before its CAS; relaxed, so
// morally strong against the CASes it races with)
__device__ __forceinline__ unsigned int ab_word(const unsigned int* p) {
  unsigned int v;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p));
  return v;
}
// fence.release / fence.acquire: PTX ISA 8.7 (CUDA 12.8), sm_90; elsewhere fence.acq_rel
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && \
    (__CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 8))
#define AB_FENCE_REL "fence.release.gpu;"
#define AB_FENCE_ACQ "fence.acquire.gpu;"
#else
#define AB_FENCE_REL "fence.acq_rel.gpu;"
#define AB_FENCE_ACQ "fence.acq_rel.gpu;"
#endif
__device__ __forceinline__ void ab_fence_release() { asm volatile(AB_FENCE_REL ::: "memory"); }
__device__ __forceinline__ void ab_fence_acquire() { asm volatile(AB_FENCE_ACQ ::: "memory"); }
__device__ __forceinline__ void ab_put(int* p, int v) {
  asm volatile("st.relaxed.gpu.global.s32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ unsigned long long ab_load(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ unsigned long long ab_load_acquire(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
// (release: the slots this thread reserved before are counted in `tail` before this count)
__device__ __forceinline__ void ab_add_release(unsigned long long* p, unsigned long long v) {
  asm volatile("red.release.gpu.global.add.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

// Warp-synchronous: the entries [rb, rb + deg) of every lane's row laid end to end, AB_PB
// a lane at a time (row_list_batches: edge-balanced over the lanes' rows; where no row is
// longer than AB_PB, each lane its own row): f(ok, own, col), own[b] the lane whose row
// holds entry b (every lane calls f, the same number of times).
template <class F>
__device__ __forceinline__ void ab_edges(const fb_idx_t* __restrict__ idx, long long rb,
                                         int deg, int lane, F&& f) {
  if (__all_sync(FB_FULL, deg <= AB_PB)) {  // (grids, most road vertices) each lane its row
    bool ok[AB_PB];
    int own[AB_PB], col[AB_PB];
#pragma unroll
    for (int b = 0; b < AB_PB; ++b) {
      ok[b] = b < deg;
      own[b] = lane;
      col[b] = ok[b] ? (int)idx[rb + b] : -1;
    }
    f(ok, own, col);
    return;
  }
  row_list_batches<AB_PB>(lane, rb, deg, idx, lane, f);  // (uu: the owning lane)
}

// Relaxes v to level nl (AB_PB edges at once: the first CAS of each in flight together,
// with v's row bounds loaded alongside, so a vertex handed to a free lane starts with its
// row: one dependent access fewer a level); push[b]: v was lowered and was not waiting, so
// this lane appends it. The first CAS expects v unreached (eager), or in the look build
// (-DAB_LOOK, fused_bfs's default async_look=True) the word a relaxed load of it returned,
// and is skipped where that word's level is no higher than nl (on road networks most
// neighbours are reached already: 20-40 % faster there; on grids the load is one more
// round trip in the chain, 0-4 % slower: docs/gpu_bfs_notes.md §8-§9). A CAS that lost a
// race is retried while it would still lower v.
__device__ __forceinline__ void ab_relax(const long long* __restrict__ a_ptr, unsigned int* lw,
                                         const bool* ok, const int* col,
                                         const unsigned int* nl, bool* push, long long* vb,
                                         long long* ve) {
  unsigned int old[AB_PB];
#ifdef AB_LOOK
  unsigned int seen[AB_PB];
  bool go[AB_PB];
#pragma unroll
  for (int b = 0; b < AB_PB; ++b) {
    seen[b] = ok[b] ? ab_word(lw + col[b]) : AB_LEVEL;
    go[b] = ok[b] && (seen[b] & AB_LEVEL) > nl[b];
  }
#define AB_GO(b) go[b]
#define AB_EXPECT(b) seen[b]
#else
#define AB_GO(b) ok[b]
#define AB_EXPECT(b) AB_LEVEL
#endif
#pragma unroll
  for (int b = 0; b < AB_PB; ++b) {
    old[b] = AB_GO(b) ? atomicCAS(lw + col[b], AB_EXPECT(b), nl[b] | AB_QUEUED) : 0u;
    vb[b] = AB_GO(b) ? a_ptr[col[b]] : 0;
    ve[b] = AB_GO(b) ? a_ptr[col[b] + 1] : 0;
  }
#pragma unroll
  for (int b = 0; b < AB_PB; ++b) {
    const bool won = AB_GO(b) && old[b] == AB_EXPECT(b);  // (lowered, waiting or not)
    push[b] = won && !(AB_EXPECT(b) & AB_QUEUED);
    unsigned int w = old[b];
    while (AB_GO(b) && !won && (w & AB_LEVEL) > nl[b]) {  // a lost race
      const unsigned int o = atomicCAS(lw + col[b], w, nl[b] | AB_QUEUED);
      if (o == w) push[b] = !(w & AB_QUEUED);
      if (o == w) break;
      w = o;
    }
  }
#undef AB_GO
#undef AB_EXPECT
}

// Warp-synchronous: the lanes' pushed vertices, numbered in lane order from `*nloc` on:
// those numbered below nfree go to this warp's free lanes (number i to s_loc[i], its row
// bounds to s_row; the warp's i-th free lane takes it after the pass), the rest to the queue
// (one reservation for the warp, by lane 0: the release in ab_add_release orders it before
// the completion count). The numbering is a prefix count of AB_PB ballots (a lane pushes at
// most AB_PB: no chain of shuffles). Returns the pushes.
__device__ __forceinline__ int ab_place(int* aq, long long cap, unsigned long long* ctr,
                                        const bool* push, const int* col, const long long* vb,
                                        const long long* ve, int* s_loc, long long* s_row,
                                        unsigned int freem, int nfree, int* nloc, int lane) {
  int cnt = 0;
#pragma unroll
  for (int b = 0; b < AB_PB; ++b) cnt += push[b];
  const unsigned int below = (1u << lane) - 1u;
  int q = 0, total = 0;  // (q: this lane's first push, numbered in the warp's of this call)
#pragma unroll
  for (int k = 1; k <= AB_PB; ++k) {
    const unsigned int atleast = __ballot_sync(FB_FULL, cnt >= k);
    q += __popc(atleast & below);
    total += __popc(atleast);
  }
  if (total == 0) return 0;
  const int keep = max(0, min(total, nfree - *nloc));  // for this warp's free lanes
  unsigned long long base = 0;
  if (total > keep) {  // (warp-uniform) a reservation in the queue
    if (lane == 0) {
      base = atomicAdd(ctr + AB_TAIL, (unsigned long long)(total - keep));
      if (base + (total - keep) > (unsigned long long)cap) atomicExch(ctr + AB_OVERFLOW, 1ULL);
    }
    base = __shfl_sync(FB_FULL, base, 0);
    __syncwarp();  // (lane 0's reservation before the other lanes' fences)
    if (cnt > 0 && q + cnt > keep) ab_fence_release();  // this lane writes slots: released once
  }
#pragma unroll
  for (int b = 0; b < AB_PB; ++b) {
    if (push[b]) {
      if (q < keep) {
        const int to = *nloc + q;
        s_loc[to] = col[b];
        s_row[2 * to] = vb[b];
        s_row[2 * to + 1] = ve[b];
      } else if ((long long)base + (q - keep) < cap) {
        ab_put(aq + base + (q - keep), col[b]);
      }
      ++q;
    }
  }
  *nloc += keep;
  return total;
}

// The search (every warp until the queue drains or overflows). A lane relaxes one row at a
// time (up to AB_ROUND of its entries a pass): a vertex from its claimed slot of the queue,
// or one this warp's last pass pushed (local continuation: the next level of a vertex is
// relaxed by the warp that found it, without the queue's round trip, while the warp has free
// lanes; what does not fit goes to the queue for other warps). A warp claims claim_lanes
// slots (one a lane, from lane 0: lanes without a claim are free for its own pushes) only
// when it is idle and its claims are used up, and counts its slots finished only when it is
// idle (its local vertices descend from them), so finished == tail still means nothing is
// in flight. Returns the relaxations that lowered a level (pushes). With `prof` (else null)
// the warps add up AB_PROF_WORDS counters there: busy passes, idle passes, their clock64
// cycles (busy, idle), slots taken from the queue, vertices handed to free lanes, pushes,
// and a busy pass's cycles in six segments (AB_SEG: take, level, column ids, CASes, place,
// hand-over).
__device__ __forceinline__ unsigned long long ab_search(const long long* __restrict__ a_ptr,
                                                        const fb_idx_t* __restrict__ a_idx,
                                                        unsigned int* lw, int* aq,
                                                        long long cap,
                                                        unsigned long long* ctr,
                                                        int* s_loc, long long* s_row,
                                                        int claim_lanes,
                                                        int sleep_ns,
                                                        unsigned long long* prof, int lane) {
  unsigned long long claim = 0, pushes = 0;
  // (profile counters, the same in every lane: warp-uniform)
  AB_PROF(unsigned long long p_busy = 0, p_idle = 0, c_busy = 0, c_idle = 0, p_slots = 0,
          p_local = 0; unsigned long long c_seg[6] = {}; long long t_seg = 0;
          int p_sink = 0);
  // (a busy pass's segments, each ended by a warp vote on what it waited for: AB_SEG(i))
#define AB_SEG(i) AB_PROF({ const long long t_ = clock64(); c_seg[i] += t_ - t_seg; t_seg = t_; })
  unsigned int pend = 0;   // lanes whose claimed slot (claim + lane) is not read yet
  int held = 0;            // (lane 0) slots taken since this warp was last idle
  unsigned int idle = 0;   // (lane 0) idle passes
  bool act = false;        // this lane's row is being relaxed
  int got = -1;            // a vertex handed to this lane by the last pass
  long long rb = 0, re = 0, got_b = 0, got_e = 0;  // (got's row bounds)
  // the row's vertex's word as its atomicAnd returned it: its out-neighbours get its level
  // + 1, computed where the relaxation needs it, so the atomic's round trip overlaps the
  // column ids' loads (a use right after the atomic would wait for it there)
  unsigned int taken = 0;
  while (true) {
    AB_PROF(const long long t_pass = clock64(); t_seg = t_pass);
    bool took = false;
    int u = got;
    if (!act && u < 0 && (pend >> lane & 1u) && claim + lane < (unsigned long long)cap) {
      u = ab_poll(aq + claim + lane);
      took = u >= 0;
      if (took) ab_fence_acquire();
    }
    if (!act && u >= 0) {  // (the level read and the flag cleared with one atomic)
      act = true;
      taken = atomicAnd(lw + u, ~AB_QUEUED);
      rb = took ? a_ptr[u] : got_b;
      re = took ? a_ptr[u + 1] : got_e;
    }
    got = -1;
    const unsigned int tookm = __ballot_sync(FB_FULL, took);
    pend &= ~tookm;
    held += __popc(tookm);
    if (!__any_sync(FB_FULL, act)) {  // idle: count the slots done; over, or wait
      int quit = 0;
      if (lane == 0) {
        if (held) ab_add_release(ctr + AB_FINISHED, (unsigned long long)held);
        // (every AB_QUIT_EVERY idle passes: a thousand idle warps reading the counters'
        // lines at every pass slow the appends and completions on them)
        if (++idle % AB_QUIT_EVERY == 0) {
          const unsigned long long f = ab_load_acquire(ctr + AB_FINISHED);
          quit = f == ab_load(ctr + AB_TAIL) || ab_load(ctr + AB_OVERFLOW) != 0ULL;
        }
      }
      held = 0;
      AB_PROF(p_idle += 1; p_slots += __popc(tookm));
      if (__shfl_sync(FB_FULL, quit, 0)) {
#ifdef AB_PROFILE
        if (prof != nullptr && lane == 0) {
          atomicAdd(prof, p_busy);
          atomicAdd(prof + 1, p_idle);
          atomicAdd(prof + 2, c_busy);
          atomicAdd(prof + 3, c_idle);
          atomicAdd(prof + 4, p_slots);
          atomicAdd(prof + 5, p_local);
          atomicAdd(prof + 6, pushes);
          for (int i = 0; i < 6; ++i) atomicAdd(prof + 7 + i, c_seg[i]);
          // (always 0: added so the compiler keeps the votes that end the segments)
          atomicAdd(prof + 7, (unsigned long long)p_sink);
        }
#endif
        return pushes;
      }
      if (pend == 0) {  // lanes 0 .. claim_lanes - 1 take the next slots
        if (lane == 0) claim = atomicAdd(ctr + AB_HEAD, (unsigned long long)claim_lanes);
        claim = __shfl_sync(FB_FULL, claim, 0);
        pend = claim_lanes >= 32 ? FB_FULL : (1u << claim_lanes) - 1u;
      } else if (sleep_ns > 0) {
        __nanosleep((unsigned int)sleep_ns);
      }
      AB_PROF(c_idle += clock64() - t_pass);
      continue;
    }
    AB_PROF(p_slots += __popc(tookm));
    const int deg = act ? (int)min(re - rb, (long long)AB_ROUND) : 0;
    // free after this pass, and not waiting for a claimed slot: may take a pushed vertex
    const unsigned int freem = __ballot_sync(FB_FULL, !(act && rb + deg < re) &&
                                                          !(pend >> lane & 1u));
    const int nfree = __popc(freem);
    AB_SEG(0);  // took: its slot polled, its atomicAnd issued, its row bounds read
    int nloc = 0;
    ab_edges(a_idx, rb, deg, lane, [&](const bool* ok, const int* own, const int* col) {
      unsigned int lv[AB_PB];
      bool push[AB_PB];
      long long vb[AB_PB], ve[AB_PB];
#pragma unroll
      for (int b = 0; b < AB_PB; ++b) {
        lv[b] = (__shfl_sync(FB_FULL, taken, own[b]) & AB_LEVEL) + 1u;
      }
      AB_SEG(1);  // the level (the atomicAnd's return)
      AB_PROF(p_sink += __any_sync(FB_FULL, col[0] == -2 || col[AB_PB - 1] == -2));
      AB_SEG(2);  // the column ids
      ab_relax(a_ptr, lw, ok, col, lv, push, vb, ve);
      AB_PROF(p_sink += __any_sync(FB_FULL, push[0] && push[AB_PB - 1] && vb[0] == -2));
      AB_SEG(3);  // the CASes (and the children's row bounds)
      pushes += ab_place(aq, cap, ctr, push, col, vb, ve, s_loc, s_row, freem, nfree, &nloc,
                         lane);
      AB_SEG(4);  // placed: free lanes or the queue
    });
    rb += deg;
    act = act && rb < re;
    __syncwarp();
    if (freem >> lane & 1u) {  // the warp's i-th free lane takes the i-th local push
      const int i = __popc(freem & ((1u << lane) - 1u));
      if (i < nloc) {
        got = s_loc[i];
        got_b = s_row[2 * i];
        got_e = s_row[2 * i + 1];
      }
    }
    __syncwarp();
    AB_SEG(5);  // the hand-over to free lanes
    AB_PROF(p_busy += 1; c_busy += clock64() - t_pass; p_local += nloc);
  }
#undef AB_SEG
}

extern "C" __global__ void AB_BOUNDS
bfs_async(const long long* __restrict__ a_ptr, const fb_idx_t* __restrict__ a_idx,
          long long n, long long source, int want_parents, int log_steps, int claim_lanes,
          int sleep_ns,
          unsigned int* lw, int* par, int* aq, long long cap,
          const long long* max_row, long long row_limit,
          unsigned long long* prof,  // null, or AB_PROF_WORDS zero counters (ab_search)
          unsigned long long* ctr,  // zero at launch; left zero
          long long* out_levels, bool* out_bits, long long* out_parents,
          unsigned long long* out_count, unsigned int* meta) {
  // a row longer than row_limit (*max_row: the graph's longest, on the device, so the host
  // reads nothing to decide): the fused kernel launched next runs the search (its hubs are
  // split over the grid; here a hub's row would be a chain of passes of one warp)
  if (*max_row > row_limit) {
    if (blockIdx.x == 0 && threadIdx.x == 0) meta[7] = 1u;
    return;
  }
  cg::grid_group grid = cg::this_grid();
  __shared__ unsigned int s_hist[AB_HBINS];
  __shared__ int s_loc[FB_BLOCK];  // vertices handed to free lanes (ab_place)
  __shared__ long long s_row[2 * FB_BLOCK];  // and their row bounds
  const unsigned long long t_start = fb_clock();
  const int lane = threadIdx.x & 31;
  const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long nthreads = (long long)gridDim.x * blockDim.x;
  const int src = (int)source;

  // ---- start: every vertex unreached but the source (waiting in slot 0), empty slots
  for (long long v = tid; v < n; v += nthreads) {
    lw[v] = v == src ? AB_QUEUED : AB_LEVEL;
    if (want_parents) par[v] = v == src ? src : FB_INT_MAX;
  }
  for (long long i = tid; i < cap; i += nthreads) aq[i] = i == 0 ? src : -1;
  if (tid == 0) ctr[AB_TAIL] = 1ULL;
  grid.sync();
  const unsigned long long t_search = fb_clock();

  const unsigned long long pushes =
      ab_search(a_ptr, a_idx, lw, aq, cap, ctr, s_loc + (threadIdx.x & ~31),
                s_row + 2 * (threadIdx.x & ~31), claim_lanes,
                sleep_ns, prof, lane);
  if (lane == 0) atomicAdd(ctr + AB_PUSHES, pushes);
  grid.sync();
  const unsigned long long t_out = fb_clock();
  if (ctr[AB_OVERFLOW]) {  // the fused kernel launched next runs the search (meta[7])
    grid.sync();           // (every block has read the flag before it is cleared)
    if (tid == 0) {
      meta[7] = 1u;
      ctr[AB_HEAD] = ctr[AB_TAIL] = ctr[AB_FINISHED] = ctr[AB_OVERFLOW] = 0ULL;
      ctr[AB_PUSHES] = 0ULL;
    }
    return;
  }

  // ---- levels, reached count, deepest level; parents: atomicMin over the tree edges
  unsigned long long reached = 0;
  unsigned int deepest = 0;
  const long long gwarp = tid >> 5, nwarps = nthreads >> 5;
  for (long long w0 = gwarp * 32; w0 < n; w0 += nwarps * 32) {
    const long long u = w0 + lane;
    const unsigned int l = u < n ? lw[u] & AB_LEVEL : AB_LEVEL;
    const bool hit = l != AB_LEVEL;
    if (u < n) {
      out_levels[u] = hit ? (long long)l : -1LL;
      out_bits[u] = hit;
    }
    reached += hit;
    if (hit) deepest = max(deepest, l);
    if (!want_parents) continue;
    long long rb = hit ? a_ptr[u] : 0, re = hit ? a_ptr[u + 1] : 0;
    while (__any_sync(FB_FULL, rb < re)) {
      const int deg = (int)min(re - rb, (long long)AB_ROUND);
      ab_edges(a_idx, rb, deg, lane, [&](const bool* ok, const int* own, const int* col) {
#pragma unroll
        for (int b = 0; b < AB_PB; ++b) {
          const unsigned int lu = __shfl_sync(FB_FULL, l, own[b]);
          const int pu = (int)(w0 + own[b]);
          if (ok[b] && (__ldcg(lw + col[b]) & AB_LEVEL) == lu + 1u) atomicMin(par + col[b], pu);
        }
      });
      rb += deg;
    }
  }
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) {
    reached += __shfl_xor_sync(FB_FULL, reached, off);
    deepest = max(deepest, __shfl_xor_sync(FB_FULL, deepest, off));
  }
  if (lane == 0 && reached) {
    atomicAdd(ctr + AB_REACHED, reached);
    atomicMax(ctr + AB_MAXLEVEL, (unsigned long long)deepest);
  }
  grid.sync();
  const unsigned long long nreached = __ldcg(ctr + AB_REACHED);
  const long long levels = (long long)__ldcg(ctr + AB_MAXLEVEL) + 1;
  const long long steps = levels - 1 + ((long long)nreached < n);
  if (want_parents) {
    for (long long v = tid; v < n; v += nthreads) {
      out_parents[v] = (lw[v] & AB_LEVEL) != AB_LEVEL ? (long long)__ldcg(par + v) : -1LL;
    }
  }
  for (long long i = tid; i < min(steps, (long long)FB_TLOG); i += nthreads) {
    meta[8 + i] = i == 0 ? (unsigned int)(t_out - t_search) : 0u;
  }
  if (log_steps) {  // the vertices of each level, counted in shared memory first
    for (long long i = tid; i < steps; i += nthreads) meta[8 + FB_TLOG + i] = 1u;
    for (int i = threadIdx.x; i < AB_HBINS; i += blockDim.x) s_hist[i] = 0u;
    grid.sync();
    const long long per = (n + gridDim.x - 1) / gridDim.x;  // a block's run of vertices
    const long long v1 = min(n, per * (blockIdx.x + 1));
    for (long long v = per * blockIdx.x + threadIdx.x; v < v1; v += blockDim.x) {
      const unsigned int l = lw[v] & AB_LEVEL;
      if (l == AB_LEVEL || l == 0u) continue;
      if (l <= AB_HBINS) {
        atomicAdd(s_hist + l - 1, 1u);
      } else {
        atomicAdd(meta + 8 + FB_TLOG + l - 1, 2u);
      }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < AB_HBINS; i += blockDim.x) {
      if (s_hist[i]) atomicAdd(meta + 8 + FB_TLOG + i, 2u * s_hist[i]);
    }
  }
  if (tid == 0) {
    meta[0] = (unsigned int)levels;
    meta[1] = (unsigned int)nreached;
    meta[2] = (unsigned int)steps;
    meta[3] = (unsigned int)(t_search - t_start);
    meta[4] = (unsigned int)(fb_clock() - t_out);
    meta[5] = 0u;
    meta[6] = (unsigned int)min(__ldcg(ctr + AB_PUSHES), 0xffffffffULL);
    meta[7] = 0u;
    *out_count = nreached;
    // (every block read the counters after the grid sync above, before its own writes)
  }
  grid.sync();
  if (tid == 0) {
    ctr[AB_HEAD] = ctr[AB_TAIL] = ctr[AB_FINISHED] = 0ULL;
    ctr[AB_REACHED] = ctr[AB_MAXLEVEL] = ctr[AB_PUSHES] = 0ULL;
  }
}
