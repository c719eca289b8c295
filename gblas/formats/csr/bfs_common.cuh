// Shared device code of the two GPU BFS paths on CSR (CuPy RawModule, -std=c++17):
//   bfs_fused.cu   the whole search in one persistent cooperative kernel: every level is one
//                  phase (push or pull), separated from the next by cg::this_grid().sync();
//                  the host is involved only before the launch and once after it;
//   bfs_levels.cu  the same phases as ordinary launches (prep, phase, a 1-block step kernel
//                  that takes the per-level decision), one level body captured in a CUDA
//                  graph that the host replays K times between reads of the done flag.
// Both include this file; the Python side inlines it before compiling (so CuPy's compile
// cache keys the whole text), scripts/check_cuda.sh compiles it through the includes.
// Grids are sized by the host from the occupancy API times the SM count, and every loop is
// a grid-stride loop over its work (warp-strided where a warp cooperates), so the code is
// correct for any grid size.
//
// State (int32 vertex ids and levels, n < 2^31 - 1):
//   lvl[v]    level of v, -1 = not reached. Push claims a vertex with atomicCAS(-1 -> k).
//   par[v]    parent of v (INT_MAX until set). Push: atomicMin over every frontier vertex u
//             with an edge u -> v whose CAS failed or succeeded at this level (lvl[v] == k),
//             so the result is the smallest such u. Pull: the first in-neighbour of v in row
//             order that was visited before this level; rows are sorted, so that is also the
//             smallest. Both equal the CPU's parents.
//   q[2]      frontier queues (vertices of out-degree < FB_BIG), ping-pong by level parity.
//             Push appends through a per-warp staging buffer in shared memory: one global
//             atomicAdd on the queue tail per ~100 new vertices, not one per claim (a single
//             tail counter hit by every warp serialises in L2: that cost ~100 µs a level).
//   own[2]    chunk list of the frontier's big vertices (out-degree >= FB_BIG): one entry
//             (v << 32 | j) per FB_CHUNK edges, so any warp of the grid can take chunk j of
//             a hub: a hub never serialises one warp or one block.
//   vis[2]    visited bitmaps (1 bit per vertex) read by the pull step: vis[k & 1] holds
//             exactly the vertices with level <= k - 1 while level k runs (operand reuse:
//             "visited before this level"); the pull of level k writes vis[(k + 1) & 1] word
//             by word (each warp owns the 32 vertices of its word), so consecutive pull levels
//             need no extra pass. After a push level the bitmap is rebuilt from lvl (one pass
//             and one extra grid sync, only at a push -> pull switch).
//   heavy     chunk list of the rows of Aᵀ with in-degree >= FB_HEAVY (made once per Aᵀ,
//             on the host side: CSR.row_chunks).
//   ctr       per-level counters {queue size, big vertices, chunks, frontier edges} in three
//             slots (slot k % 3 collects level k; slot (k + 1) % 3 is cleared during level k,
//             it was last read before the previous grid sync, so one sync per level
//             suffices); ctr[12] = heavy chunks; ctr[16..19] the slot of a rebuilt queue.
//
// Push (level k, frontier = queue of level k - 1), edge u -> v: if lvl[v] == -1, CAS it to k;
// the winner stages v for the next queue. Every visit is warp-synchronous (all 32 lanes,
// some idle), which the staging needs, and a lane handles FB_PB edges at once (their loads
// and atomics overlap). Load balance, two tiers:
//   - big vertices (out-degree >= FB_BIG): chunks of FB_CHUNK edges, warp-strided over the
//     grid;
//   - the others (the queue): a warp takes G <= 32 of them, concatenates their rows (warp
//     prefix sum of the degrees, at most G * (FB_BIG - 1) edges) and the lanes take
//     consecutive edges of that list, each finding its row by a 5-step binary search over
//     the prefix sums held in the lanes (shuffles): edge-balanced within the warp. G = 32
//     when the queue fills every warp, else the smallest power of two that covers it (a
//     queue of 900 vertices of degree 32 is then 900 warps of one round, not 29 warps of
//     fifteen rounds each: urand:22's second level 48 -> 7 µs on an H100).
// Pull (level k): for every vertex v whose bit in vis[k & 1] is clear, scan its in-neighbours
// (row v of CSR(Aᵀ)) in row order and stop at the first one whose bit is set (early exit).
// A lane checks the first `serial` entries alone (FB_BATCH loads in flight; the fused
// kernel's argument, FB_SERIAL in the level kernels); longer rows
// then get the whole warp (32 entries a step, ballot picks the first hit in row order); rows
// of FB_HEAVY entries or more are split into chunks that any warp of the grid takes (so an
// unvisited vertex of huge in-degree, scanned to its end while none of its in-neighbours is
// visited, does not hold one warp for the whole level). A pull level only counts what it
// finds: its frontier is read back by a push level only after a switch back to push, and
// then the queue is rebuilt from the two bitmaps (new = vis[k & 1] & ~vis[(k - 1) & 1]).
//
// Direction: LAGraph's rule exactly as in algorithms/bfs.py (alpha, beta1, beta2; growing,
// edges_unexplored, any_pull, switch back when shrinking below n / beta2), bfs_rule.cuh;
// the end-of-level bookkeeping is fb_finish. The counters are accumulated with atomics
// during a level. Fused: thread 0 of every block reads them after the grid sync and runs
// the same arithmetic (double, as Python's int/float comparisons) on its shared-memory copy
// of the loop state, so all blocks take the same decision. Levels: one thread of the step
// kernel runs it on the one copy in device memory. mode: 0 auto, 1 push only, 2 pull only.
//
// Output (after the last level): out_levels[v] (int64), out_bits[v] (reached), and
// out_parents[v] (int64) when asked; meta[0] = levels, meta[1] = reached, meta[2] = steps,
// meta[3] = ns of the start (initialisation, one grid sync), meta[4] = ns of the output
// pass, meta[8 + i] = ns of step i (i < FB_TLOG; %globaltimer, thread 0),
// meta[8 + FB_TLOG + i] = (frontier size after step i) << 1 | (step i was push).
//
// Bytes per level: docs/gpu_bfs_notes.md.

// (included once by each .cu; no include guard needed)

#include "bfs_rule.cuh"
#include "edge_batches.cuh"

#define FB_FULL 0xffffffffu
#define FB_BLOCK 256
#ifndef FB_MIN_BLOCKS  // the fused kernel's knob min_blocks compiles with -DFB_MIN_BLOCKS=k
#define FB_MIN_BLOCKS 4  // 64 registers, no spills (ptxas -v): 1024 threads per SM
#endif
#define FB_BIG 256
#define FB_CHUNK 256
#define FB_STAGE 128   // push: per-warp staging buffer of the queue (ints, shared memory)
#ifndef FB_HSTAGE
#define FB_HSTAGE 64   // marked push: hubs a warp stages before it reserves their chunks
#endif
// a warp's staging in the fused kernel's shared memory: the queue's, then (the marked
// push's second pass) the hubs' ids and chunk counts
#define FB_WARP_STAGE (FB_STAGE + 2 * FB_HSTAGE)
#define FB_PB 2        // push: edges a lane has in flight at once (4 spills at 64 registers)
#ifndef FB_MPB
#define FB_MPB 4       // marked push: edges a lane has in flight at once (no claim chain)
#endif
#ifndef FB_MW
#define FB_MW 4        // marked push's second pass: words of 32 vertices a warp takes a round
#endif
#define FB_SERIAL 8    // pull (level kernels): in-neighbours a lane checks alone first
#define FB_BATCH 4     // pull: in-neighbours a lane loads at once
#define FB_HEAVY 1024  // pull: in-degree from which a row is split into chunks (phase A)
#define FB_HCHUNK 512  // entries per chunk of a heavy row
#define FB_TLOG 4096   // steps whose duration is logged (meta[8 + i], ns)
#define FB_INT_MAX 0x7fffffff

// Column ids: int32 where the module is compiled with FB_IDX32 (the fused kernel, when the
// matrix's ids fit: half the bytes of the rows a level reads), else int64.
#ifdef FB_IDX32
typedef int fb_idx_t;
#else
typedef long long fb_idx_t;
#endif

struct FbGraph {
  const long long* __restrict__ a_ptr;  // CSR of A (push: out-edges)
  const fb_idx_t* __restrict__ a_idx;
  const long long* __restrict__ t_ptr;  // CSR of Aᵀ (pull: in-edges); may alias A
  const fb_idx_t* __restrict__ t_idx;
  // bit v of word v / 32: v has no in-edges, so no pull finds it (CSR.empty_rows_bits of
  // Aᵀ; null: none marked). A pull level skips a word whose unvisited vertices are all such
  const unsigned int* __restrict__ dead;
  int* lvl;
  int* par;
  long long* heavy;  // chunk list of the heavy rows of Aᵀ (made once per Aᵀ, read only)
  int parents;
  int sym;  // t_* are A's own arrays: a pulled row's length is the out-degree
};

// Loop state of the level loop: fused, one copy per block in shared memory; levels, one copy
// in device memory written by the step kernel and read by the phase kernels. Every field is
// an 8-byte word so the host can read it as int64[FB_LOOP_WORDS] (word 0: done).
struct FbLoop {
  long long done, k, steps, push_pull, do_push, any_pull, vis_valid, queue_valid;
  long long edges_unexplored, nq, last_nq, nvisited;
  unsigned long long frontier_edges, t_start, t_last;
  long long decided;  // fused: the direction of level k is already taken (after block levels)
};
#define FB_LOOP_WORDS 16

// Per-level context: which buffers are read and written.
struct FbLevel {
  int k;  // the level being computed
  int* q_in;
  int* q_out;
  long long* own_in;
  long long* own_out;
  unsigned long long* c_in;   // counters of level k - 1 (the frontier)
  unsigned long long* c_out;  // counters of level k
};

__device__ __forceinline__ unsigned long long fb_clock() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// A pull's probe of the visited bitmap of the levels before (vis_in): through L1, as Blest
// reads its frontier bitmap (hot words: the hubs' neighbours). vis_in is not written during
// the level, and a level starts after a grid sync, whose acquire invalidates every SM's L1
// (CCTL.IVALL in the SASS), or in a kernel of its own: no stale line survives from the
// level that wrote it.
__device__ __forceinline__ bool fb_seen(const unsigned int* vis, int u) {
  return (__ldca(&vis[u >> 5]) >> (u & 31)) & 1u;
}

// A level counter: LOCAL = a generic volatile load, for a block's copy in shared memory (block
// levels' s_ctr, the fused kernel's s_cin) or the grid's counters (a volatile load of global
// memory is served by L2, not L1); else the grid's counters through L2 (__ldcg).
template <bool LOCAL>
__device__ __forceinline__ unsigned long long fb_ctr(const unsigned long long* c) {
  if constexpr (LOCAL) return *reinterpret_cast<const volatile unsigned long long*>(c);
  else return __ldcg(c);
}

// counter += v, returning the old value. LOCAL: the counter is in shared memory, where a
// 64-bit atomicAdd is a compare-and-swap loop that contending lanes retry (a level of a few
// hubs took twice as long); the queue, hub and chunk counters fit in 32 bits (n < 2^31, a
// level's chunks < nnz / FB_CHUNK + n), so their low word takes a native 32-bit add (the
// high word stays zero: the block's counters start at zero).
template <bool LOCAL>
__device__ __forceinline__ unsigned long long fb_ctr_add(unsigned long long* c,
                                                         unsigned long long v) {
  if constexpr (LOCAL) return atomicAdd(reinterpret_cast<unsigned int*>(c), (unsigned int)v);
  else return atomicAdd(c, v);
}

__device__ __forceinline__ long long fb_out_degree(const FbGraph& g, int v) {
  return g.a_ptr[v + 1] - g.a_ptr[v];
}

// The chunks of FB_CHUNK edges a big vertex of out-degree deg is pushed in.
__device__ __forceinline__ long long fb_nchunks(long long deg) {
  return (deg + FB_CHUNK - 1) / FB_CHUNK;
}

// Warp-synchronous (every lane calls it): the lanes' new big vertices (`big`: v of out-degree
// deg >= FB_BIG) go to the next level's chunk list, one entry per FB_CHUNK edges, with one
// add per counter for the warp (warp_append_chunks): kron:22's third level claims ~10^5.
template <bool LOCAL = false>
__device__ __forceinline__ void fb_enqueue_big(const FbLevel& L, bool big, int v, long long deg,
                                               int lane) {
  const unsigned nch = big ? (unsigned)fb_nchunks(deg) : 0u;
  warp_append_chunks(big, v, nch, L.own_out, lane,
                     [&](unsigned hubs, unsigned entries) {
                       fb_ctr_add<LOCAL>(L.c_out + 1, (unsigned long long)hubs);
                       return fb_ctr_add<LOCAL>(L.c_out + 2, (unsigned long long)entries);
                     });
}

// Warp-synchronous: copy the warp's staged vertices to the queue (one atomicAdd).
template <bool LOCAL>
__device__ __forceinline__ void fb_flush(const FbLevel& L, int* sbuf, int& fill, int lane) {
  __syncwarp();
  unsigned long long base = 0;
  if (lane == 0) base = fb_ctr_add<LOCAL>(L.c_out, (unsigned long long)fill);
  base = __shfl_sync(FB_FULL, base, 0);
  for (int i = lane; i < fill; i += 32) L.q_out[base + i] = sbuf[i];
  __syncwarp();
  fill = 0;
}

// Warp-synchronous: the warp's staged hubs into the level's chunk list (one add per counter
// for all of them), in staging order, 32 staged hubs a round by warp_write_chunks.
__device__ __forceinline__ void fb_flush_big(const FbLevel& L, int* sbuf, int& hfill,
                                             int lane) {
  __syncwarp();
  const int* hv = sbuf + FB_STAGE;
  const int* hn = hv + FB_HSTAGE;
  unsigned part = 0;
  for (int i = lane; i < hfill; i += 32) part += (unsigned)hn[i];
  const unsigned entries = warp_sum_u32(part);
  unsigned long long base = 0;
  if (lane == 0) {
    atomicAdd(L.c_out + 1, (unsigned long long)hfill);
    base = atomicAdd(L.c_out + 2, (unsigned long long)entries);
  }
  base = __shfl_sync(FB_FULL, base, 0);
  for (int h0 = 0; h0 < hfill; h0 += 32) {
    const int i = h0 + lane;
    const bool have = i < hfill;
    warp_write_chunks(__ballot_sync(FB_FULL, have), have ? hv[i] : 0,
                      have ? (unsigned)hn[i] : 0u, L.own_out, base, lane);
  }
  __syncwarp();
  hfill = 0;
}

// Warp-synchronous: stage the lanes' new hubs (`big`: v of out-degree deg >= FB_BIG) for
// the next level's chunk list (hfill is warp-uniform; the marked push's second pass).
// Staged, not appended at once: that pass meets a level's ~10^5 hubs within a few µs, and
// an add on the same two counters for each warp round that found one queued up at their
// L2 slice (kron:22's third level, H200: 372 -> 240 µs adding once per 8 words, 214
// staged). The claiming push appends per round (fb_enqueue_big): staging there measured
// no change, and its registers made the BVSS kernel, which shares fb_push, spill.
__device__ __forceinline__ void fb_stage_big(const FbLevel& L, bool big, int v, long long deg,
                                             int* sbuf, int& hfill, int lane) {
  const unsigned m = __ballot_sync(FB_FULL, big);
  if (m == 0) return;
  if (big) {
    const int at = hfill + __popc(m & ((1u << lane) - 1u));
    sbuf[FB_STAGE + at] = v;
    sbuf[FB_STAGE + FB_HSTAGE + at] = (int)fb_nchunks(deg);
  }
  hfill += __popc(m);
  if (hfill > FB_HSTAGE - 32) fb_flush_big(L, sbuf, hfill, lane);
}

// Warp-synchronous: stage the lanes' claimed vertices (fill is warp-uniform).
template <bool LOCAL>
__device__ __forceinline__ void fb_stage(const FbLevel& L, bool claim, int v, int* sbuf,
                                         int& fill, int lane) {
  const unsigned m = __ballot_sync(FB_FULL, claim);
  if (m == 0) return;
  if (claim) sbuf[fill + __popc(m & ((1u << lane) - 1u))] = v;
  fill += __popc(m);
  if (fill > FB_STAGE - 32) fb_flush<LOCAL>(L, sbuf, fill, lane);
}

// Warp-synchronous push of FB_PB edges per lane at once (u[b] -> v[b] where ok[b]): the
// lvl probes, the CASes and the degree loads of the FB_PB edges are issued together, so a
// lane has several memory accesses in flight instead of one dependent chain per edge.
// Claimed vertices of out-degree < FB_BIG are staged for the queue, bigger ones go to the
// chunk list; fe accumulates the out-degrees of the new vertices. LOCAL (block levels: a
// few hundred edges, latency-bound): no probe before the CAS, and every target's degree
// loaded alongside it, so the chain is edge -> CAS -> stage instead of edge -> probe ->
// CAS -> degree -> stage. `eager` takes that chain on a grid level too: the fused kernel's
// pushes of small frontiers (grids, road networks), whose time is the chain's latency and
// where the CASes on visited targets cost nothing measurable.
template <bool LOCAL>
__device__ __forceinline__ void fb_visit_batch(const FbGraph& g, const FbLevel& L,
                                               const bool (&ok)[FB_PB], const int (&u)[FB_PB],
                                               const int (&v)[FB_PB], unsigned long long& fe,
                                               int* sbuf, int& fill, int lane, bool eager) {
  int old[FB_PB];
  long long deg[FB_PB];
  if (LOCAL || eager) {
#pragma unroll
    for (int b = 0; b < FB_PB; ++b) deg[b] = ok[b] ? fb_out_degree(g, v[b]) : 0;
#pragma unroll
    for (int b = 0; b < FB_PB; ++b) old[b] = ok[b] ? atomicCAS(&g.lvl[v[b]], -1, L.k) : 0;
  } else {
#pragma unroll
    for (int b = 0; b < FB_PB; ++b) old[b] = ok[b] ? __ldcg(&g.lvl[v[b]]) : 0;
#pragma unroll
    for (int b = 0; b < FB_PB; ++b) {
      if (ok[b] && old[b] == -1) old[b] = atomicCAS(&g.lvl[v[b]], -1, L.k);
    }
#pragma unroll
    for (int b = 0; b < FB_PB; ++b)
      deg[b] = ok[b] && old[b] == -1 ? fb_out_degree(g, v[b]) : 0;
  }
#pragma unroll
  for (int b = 0; b < FB_PB; ++b) {
    bool claim = ok[b] && old[b] == -1;
    if (claim) fe += (unsigned long long)deg[b];
    const bool big = claim && deg[b] >= FB_BIG;
    fb_enqueue_big<LOCAL>(L, big, v[b], deg[b], lane);
    claim = claim && !big;
    // claimed at this level (by us or by another frontier vertex): keep the smallest parent
    if (g.parents && ok[b] && (old[b] == -1 || old[b] == L.k)) atomicMin(&g.par[v[b]], u[b]);
    fb_stage<LOCAL>(L, claim, v[b], sbuf, fill, lane);
  }
}

// Every edge of level L's frontier (its hubs' chunks, then its queue), PB ids a lane at a
// time: visit(ok, u, v), arrays of PB, warp-synchronous. The traversal of fb_push and
// fb_push_mark.
template <int PB, class Visit>
__device__ __forceinline__ void fb_push_edges(const FbGraph& g, const FbLevel& L,
                                              long long gwarp, long long nwarps, int lane,
                                              Visit&& visit) {
  // (a generic load: c_in may also be the fused kernel's shared copy of the grid's counters)
  const long long nreg = (long long)fb_ctr<true>(L.c_in);
  const long long nch = (long long)fb_ctr<true>(L.c_in + 2);
  // tier 1: chunks of big vertices, spread over every warp of the grid. Where the chunks
  // are few (a Kronecker graph's second level: a few hubs' rows, ~4 dependent rounds of
  // 32 * FB_PB edges a warp while most warps idle), each is split over 2 or 4 warps (parts
  // of FB_CHUNK >> lsplit edges; a part past its row's end is empty).
  int lsplit = 0;
  while (lsplit < 2 && (nch << (lsplit + 1)) <= nwarps) ++lsplit;
  const long long part = FB_CHUNK >> lsplit;
  for (long long c = gwarp; c < (nch << lsplit); c += nwarps) {
    const long long o = __ldcg(&L.own_in[c >> lsplit]);
    const int u = (int)(o >> 32);
    const long long s = g.a_ptr[u] + (o & 0xffffffffLL) * FB_CHUNK +
                        (c & ((1LL << lsplit) - 1)) * part;
    const long long e = min(s + part, g.a_ptr[u + 1]);
    edge_batches<PB>(u, s, e, g.a_idx, lane, visit);
  }
  // tier 2: the regular queue, G = grp vertices per warp round (32, or fewer when the queue is
  // short of 32 per warp); their rows (out-degree < FB_BIG) are concatenated (warp prefix sum
  // of the degrees) and the lanes take consecutive edges of that list, each finding its row
  // by a 5-step binary search over the prefix sums held in the lanes (shuffles): a warp's
  // edges are spread evenly over its lanes.
  int grp = 32;
  while (grp > 1 && (long long)(grp >> 1) * nwarps >= nreg) grp >>= 1;
  for (long long base = gwarp * grp; base < nreg; base += nwarps * grp) {
    const long long i = base + lane;
    int u = 0;
    long long s = 0;
    int d = 0;
    if (lane < grp && i < nreg) {
      u = __ldcg(&L.q_in[i]);
      s = g.a_ptr[u];
      d = (int)(g.a_ptr[u + 1] - s);
    }
    row_list_batches<PB>(u, s, d, g.a_idx, lane, visit);
  }
}

template <bool LOCAL = false>
__device__ __forceinline__ void fb_push(const FbGraph& g, const FbLevel& L,
                                        unsigned long long& fe, int* sbuf, long long gwarp,
                                        long long nwarps, int lane, bool eager = false) {
  int fill = 0;
  fb_push_edges<FB_PB>(g, L, gwarp, nwarps, lane, [&](const bool (&bok)[FB_PB],
                                                      const int (&bu)[FB_PB],
                                                      const int (&bv)[FB_PB]) {
    fb_visit_batch<LOCAL>(g, L, bok, bu, bv, fe, sbuf, fill, lane, eager);
  });
  if (fill) fb_flush<LOCAL>(L, sbuf, fill, lane);
}

// Marked push, first pass (a wide push level: docs/gpu_bfs_notes.md §11): every frontier
// edge u -> v sets v's byte in `mark` by a plain store (every writer stores the same 1), and
// with parents lowers par[v] to u (atomicMin, without a reply). No lane waits on an atomic
// or claims: the claim's CAS and the claimed vertex's degree load move to the second pass,
// one per new vertex and in vertex order. The pass is bound by its stores (12.4 M on one
// kron:22 level, ~160 µs on an H200 whatever the edges a lane has in flight, with or
// without a probe first); bits set by atomicOr cost the same. `probe` (with parents, so
// that par of a vertex visited before stays) reads lvl[v] first and marks only unvisited
// targets: lvl is not written during this pass, so -1 there means "not visited before".
__device__ __forceinline__ void fb_push_mark(const FbGraph& g, const FbLevel& L,
                                             unsigned char* mark, bool probe, long long gwarp,
                                             long long nwarps, int lane) {
  fb_push_edges<FB_MPB>(g, L, gwarp, nwarps, lane, [&](const bool (&ok)[FB_MPB],
                                                       const int (&u)[FB_MPB],
                                                       const int (&v)[FB_MPB]) {
    bool hit[FB_MPB];
    if (probe) {
      int l[FB_MPB];
#pragma unroll
      for (int b = 0; b < FB_MPB; ++b) l[b] = ok[b] ? __ldcg(&g.lvl[v[b]]) : 0;
#pragma unroll
      for (int b = 0; b < FB_MPB; ++b) hit[b] = ok[b] && l[b] == -1;
    } else {
#pragma unroll
      for (int b = 0; b < FB_MPB; ++b) hit[b] = ok[b];
    }
#pragma unroll
    for (int b = 0; b < FB_MPB; ++b) {
      if (!hit[b]) continue;
      mark[v[b]] = 1;
      if (g.parents) atomicMin(&g.par[v[b]], u[b]);
    }
  });
}

// Marked push, second pass (after a grid sync): the marked vertices not visited before are
// level L.k's: their lvl is written, they go to the queue or the chunk list as a claim's
// would, and fe gets their out-degrees. A warp takes FB_MW words of 32 vertices a round,
// a lane a vertex, every load of the round issued first (marks, lvl, then the new
// vertices' row bounds). It also writes vis_next (every vertex with a level: the bitmap a
// pull of level L.k + 1 reads, so that switch needs no rebuild of it) and clears `mark`.
__device__ __forceinline__ void fb_mark_finish(const FbGraph& g, const FbLevel& L, long long n,
                                               unsigned char* mark, unsigned int* vis_next,
                                               unsigned long long& fe, int* sbuf,
                                               long long gwarp, long long nwarps, int lane) {
  const long long nwords = (n + 31) >> 5;
  int fill = 0, hfill = 0;
  for (long long w0 = gwarp * FB_MW; w0 < nwords; w0 += nwarps * FB_MW) {
    bool m[FB_MW];
    int l[FB_MW];
#pragma unroll
    for (int j = 0; j < FB_MW; ++j) {
      const long long v = ((w0 + j) << 5) + lane;
      m[j] = v < n && __ldcg(&mark[v]) != 0;
      l[j] = v < n ? __ldcg(&g.lvl[v]) : -2;  // (past n: neither visited nor new)
    }
    bool fresh[FB_MW];
    long long deg[FB_MW];
#pragma unroll
    for (int j = 0; j < FB_MW; ++j) {
      const long long w = w0 + j;
      const long long v = (w << 5) + lane;
      fresh[j] = m[j] && l[j] == -1;
      const unsigned seen = __ballot_sync(FB_FULL, l[j] >= 0 || fresh[j]);
      if (lane == 0 && w < nwords) vis_next[w] = seen;
      if (m[j]) mark[v] = 0;
      deg[j] = fresh[j] ? fb_out_degree(g, (int)v) : 0;
    }
#pragma unroll
    for (int j = 0; j < FB_MW; ++j) {
      const int v = (int)(((w0 + j) << 5) + lane);
      if (fresh[j]) {
        g.lvl[v] = L.k;
        fe += (unsigned long long)deg[j];
      }
      const bool big = fresh[j] && deg[j] >= FB_BIG;
      fb_stage_big(L, big, v, deg[j], sbuf, hfill, lane);
      fb_stage<false>(L, fresh[j] && !big, v, sbuf, fill, lane);
    }
  }
  if (fill) fb_flush<false>(L, sbuf, fill, lane);
  if (hfill) fb_flush_big(L, sbuf, hfill, lane);
}

// Pull, phase A: the heavy rows' chunks; any warp takes any chunk of an unvisited heavy
// vertex. Each chunk reports its first hit (rows are sorted: its smallest visited
// in-neighbour); lvl is claimed by atomicCAS (the winner counts the vertex), the parent is
// the atomicMin over the chunks' hits, and the bit is set in vis_out with atomicOr. A chunk
// is skipped when its vertex was visited before this level, or already found at this level
// (levels only) or found through a smaller in-neighbour than the chunk's first (parents).
__device__ __forceinline__ void fb_pull_heavy(const FbGraph& g, const FbLevel& L,
                                              long long nheavy, const unsigned int* vis_in,
                                              unsigned int* vis_out, unsigned long long& nfound,
                                              long long gwarp, long long nwarps, int lane) {
  for (long long c = gwarp; c < nheavy; c += nwarps) {
    const long long o = __ldcg(&g.heavy[c]);
    const int v = (int)(o >> 32);
    const long long cs = g.t_ptr[v] + (o & 0xffffffffLL) * FB_HCHUNK;
    const long long ce = min(cs + (long long)FB_HCHUNK, g.t_ptr[v + 1]);
    int skip = 0;
    if (lane == 0) {
      skip = fb_seen(vis_in, v) ||
             (g.parents ? __ldcg(&g.par[v]) < (int)g.t_idx[cs] : __ldcg(&g.lvl[v]) == L.k);
    }
    if (__shfl_sync(FB_FULL, skip, 0)) continue;
    const int hit = warp_first_seen(g.t_idx, cs, ce, lane,
                                    [&](int u) { return fb_seen(vis_in, u); });
    if (hit >= 0 && lane == 0) {
      atomicOr(&vis_out[v >> 5], 1u << (v & 31));
      if (g.parents) atomicMin(&g.par[v], hit);
      if (atomicCAS(&g.lvl[v], -1, L.k) == -1) ++nfound;
    }
  }
}

// Pull, phase B (concurrent with A): every other unvisited vertex, one lane per vertex for
// the first `serial` in-neighbours (loaded FB_BATCH at a time, so the loads overlap),
// then the whole warp for the rest of a longer row. Each warp writes the vis_out word of
// its 32 vertices: a plain store, or atomicOr where phase A may set a bit of the word too
// (vis_out then holds an older, smaller visited set, so OR-ing is exact). `todo`: the
// word's vertices to scan (unvisited, with in-edges, below n).
__device__ __forceinline__ void fb_pull_word(const FbGraph& g, const FbLevel& L, long long base,
                                             unsigned word, unsigned todo_bits,
                                             const unsigned int* vis_in, unsigned int* vis_out,
                                             unsigned long long& nfound, int lane, int serial) {
  const long long v = base + lane;
  bool todo = (todo_bits >> lane) & 1u;
  long long s = 0, e = 0;
  if (todo) {
    s = g.t_ptr[v];
    e = g.t_ptr[v + 1];
  }
  const bool heavy = todo && e - s >= FB_HEAVY;  // phase A's
  if (heavy) todo = false;
  const long long head = todo ? min(e, s + (long long)serial) : s;
  int found = first_seen_batched<FB_BATCH>(g.t_idx, s, head,
                                           [&](int u) { return fb_seen(vis_in, u); });
  bool coop = todo && found < 0 && head < e;
  unsigned b;
  while ((b = __ballot_sync(FB_FULL, coop)) != 0) {  // the rest of a long row: whole warp
    const int ld = __ffs(b) - 1;
    const long long ss = __shfl_sync(FB_FULL, head, ld);
    const long long ee = __shfl_sync(FB_FULL, e, ld);
    const int hit = warp_first_seen(g.t_idx, ss, ee, lane,
                                    [&](int u) { return fb_seen(vis_in, u); });
    if (lane == ld) {
      found = hit;
      coop = false;
    }
  }
  const unsigned fmask = __ballot_sync(FB_FULL, found >= 0);
  const bool shared_word = __any_sync(FB_FULL, heavy);
  if (lane == 0) {
    if (shared_word) atomicOr(&vis_out[base >> 5], word | fmask);
    else vis_out[base >> 5] = word | fmask;
  }
  if (found >= 0) {
    g.lvl[v] = L.k;
    if (g.parents) g.par[v] = found;
    ++nfound;
  }
}

// The words of a warp come in the order of one word a warp at a time (word w to warp
// w mod nwarps, as balanced as that), but 32 of its words are loaded at once, a lane each:
// a late pull level, whose words are mostly visited or dead, then waits for one load per
// 32 words instead of one (and a row bound's) per word. A word with nothing to scan is
// copied to vis_out by its lane; the others are scanned one after another by the warp.
__device__ __forceinline__ void fb_pull(const FbGraph& g, const FbLevel& L, long long n,
                                        const unsigned int* vis_in, unsigned int* vis_out,
                                        unsigned long long& nfound, long long gwarp,
                                        long long nwarps, int lane, int serial) {
  const long long nwords = (n + 31) >> 5;
  for (long long w0 = gwarp; w0 < nwords; w0 += 32 * nwarps) {
    const long long w = w0 + lane * nwarps;
    unsigned word = 0, todo = 0;
    if (w < nwords) {
      word = __ldcg(&vis_in[w]);
      todo = ~word;
      if (g.dead) todo &= ~__ldg(&g.dead[w]);
      if (w == nwords - 1 && (n & 31)) todo &= (1u << (n & 31)) - 1u;  // none past n
      if (!todo) vis_out[w] = word;
    }
    for (unsigned mine = __ballot_sync(FB_FULL, todo != 0); mine; mine &= mine - 1) {
      const int j = __ffs(mine) - 1;
      fb_pull_word(g, L, (w0 + j * nwarps) << 5, __shfl_sync(FB_FULL, word, j),
                   __shfl_sync(FB_FULL, todo, j), vis_in, vis_out, nfound, lane, serial);
    }
  }
}

// vis[w] = the vertices of word w that have a level (all of them are < the next level).
__device__ __forceinline__ void fb_rebuild_vis(const FbGraph& g, long long n, unsigned int* vis,
                                               long long gwarp, long long nwarps, int lane) {
  for (long long base = gwarp * 32; base < n; base += nwarps * 32) {
    const long long v = base + lane;
    const bool seen = v < n && __ldcg(&g.lvl[v]) >= 0;
    const unsigned m = __ballot_sync(FB_FULL, seen);
    if (lane == 0) vis[base >> 5] = m;
  }
}

// Warp-synchronous (lane = word w): the new vertices `bits` of word w into level L's queue
// (out-degree < FB_BIG: one atomicAdd a warp) and chunk list (the rest), each handed to
// visit(v, out-degree) first. The queue rebuilt after a pull, and BVSS's finalisation.
template <class Visit>
__device__ __forceinline__ void fb_queue_word(const FbGraph& g, const FbLevel& L, long long w,
                                              unsigned bits, int lane, Visit&& visit) {
  unsigned reg = 0;
  for (unsigned rest = bits; __any_sync(FB_FULL, rest != 0u);) {  // a bit a lane a round
    const unsigned bit = rest & (0u - rest);
    rest ^= bit;
    const int v = bit ? (int)(w * 32 + __ffs(bit) - 1) : 0;
    long long d = 0;
    if (bit) {
      d = fb_out_degree(g, v);
      visit(v, d);
    }
    fb_enqueue_big(L, d >= FB_BIG, v, d, lane);
    if (d < FB_BIG) reg |= bit;
  }
  const int c = __popc(reg);
  const int incl = warp_inclusive_scan(c, lane);
  const int total = __shfl_sync(FB_FULL, incl, 31);
  unsigned long long at = 0;
  if (lane == 31 && total) at = atomicAdd(L.c_out, (unsigned long long)total);
  at = __shfl_sync(FB_FULL, at, 31) + (unsigned long long)(incl - c);
  for (unsigned b = reg; b; b &= b - 1) L.q_out[at++] = (int)(w * 32 + __ffs(b) - 1);
}

// The frontier found by a pull level, as a queue (+ big vertices' chunks) for the push that
// follows it: new = cur & ~prev, word by word (a lane per word, one atomic per warp round).
__device__ __forceinline__ void fb_rebuild_queue(const FbGraph& g, const FbLevel& R,
                                                 long long nwords, const unsigned int* cur,
                                                 const unsigned int* prev, long long gwarp,
                                                 long long nwarps, int lane) {
  for (long long w0 = gwarp * 32; w0 < nwords; w0 += nwarps * 32) {
    const long long w = w0 + lane;
    const unsigned bits = w < nwords ? __ldcg(&cur[w]) & ~__ldcg(&prev[w]) : 0u;
    fb_queue_word(g, R, w, bits, lane, [](int, long long) {});
  }
}

// ---- level 0 and the level loop's control, shared by both paths -----------------------

// Level 0 (grid-stride, every thread): lvl/par of every vertex, empty bitmaps (a subset of
// every visited set), ctr[12] = nheavy (the entries of the heavy rows' chunk list g.heavy,
// made once per Aᵀ on the host side: CSR.row_chunks; 0 where nothing pulls), and the
// source enqueued by thread 0 into queue 0 / counter slot 0 (its chunks if it is a hub).
__device__ __forceinline__ void fb_start(const FbGraph& g, long long n, long long nheavy,
                                         int src, int* q0, long long* own0,
                                         unsigned int* vis0, unsigned int* vis1,
                                         unsigned long long* ctr, long long tid,
                                         long long nthreads) {
  for (long long v = tid; v < n; v += nthreads) {
    g.lvl[v] = v == src ? 0 : -1;
    if (g.parents) g.par[v] = v == src ? src : FB_INT_MAX;
    if ((v & 31) == 0) vis0[v >> 5] = vis1[v >> 5] = 0u;
  }
  if (tid == 0) {
    ctr[12] = (unsigned long long)nheavy;
    const long long src_deg = fb_out_degree(g, src);
    if (src_deg < FB_BIG) {
      q0[0] = src;
      ctr[0] = 1ULL;
    } else {
      const long long nch = fb_nchunks(src_deg);
      for (long long j = 0; j < nch; ++j) own0[j] = ((long long)src << 32) | j;
      ctr[1] = 1ULL;
      ctr[2] = (unsigned long long)nch;
    }
  }
}

// The loop state before level 1 (one thread).
__device__ __forceinline__ void fb_loop_init(FbLoop& st, int mode, long long n, long long nnz,
                                             long long src_deg) {
  st.push_pull = mode == 0;
  st.do_push = mode != 2;
  st.any_pull = 0;
  st.vis_valid = 0;    // vis[k & 1] == {level <= k - 1} (only after a pull level)
  st.queue_valid = 1;  // the queue holds level k - 1 (not after a pull level)
  st.done = n <= 1;
  st.edges_unexplored = nnz;
  st.nq = 1;
  st.last_nq = 0;
  st.nvisited = 1;
  st.frontier_edges = (unsigned long long)src_deg;
  st.k = 1;
  st.steps = 0;
  st.decided = 0;
}

// The loop state from global memory (one thread): written by block 0 after block levels, or
// by the launch before at a stop (bfs_fused.cu).
__device__ __forceinline__ void fb_load_loop(FbLoop& st, const FbLoop* from) {
  const long long* f = reinterpret_cast<const long long*>(from);
  long long* to = reinterpret_cast<long long*>(&st);
  for (int i = 0; i < FB_LOOP_WORDS; ++i) to[i] = __ldcg(f + i);
}

// The direction of level st.k: LAGraph's rule (bfs_rule.cuh; one thread).
__device__ __forceinline__ void fb_decide(FbLoop& st, long long n, double alpha, double beta1,
                                          double beta2) {
  if (st.done) return;
  bfs_direction_rule(st.do_push, st.push_pull, st.any_pull, st.edges_unexplored, st.nq,
                     st.last_nq, (long long)st.frontier_edges, n, alpha, beta1, beta2);
}

// After level st.k (one thread per copy of the state): its counters c (nnew = queued + big
// vertices, frontier edges) into the loop state; done when nothing new was found or every
// vertex is reached. The writer (one thread of the grid) also logs the step (duration since
// st.t_last, frontier size, direction) and clears the rebuilt-queue slot ctr[16..19] once
// it has been read.
template <bool LOCAL = false>
__device__ __forceinline__ void fb_finish(FbLoop& st, const unsigned long long* c,
                                          unsigned long long* ctr, long long n,
                                          unsigned int* meta, bool writer) {
  const long long nnew = (long long)(fb_ctr<LOCAL>(c) + fb_ctr<LOCAL>(c + 1));
  if (writer) {
    const unsigned long long now = fb_clock();
    if (st.steps < FB_TLOG) meta[8 + st.steps] = (unsigned int)(now - st.t_last);
    st.t_last = now;
    meta[8 + FB_TLOG + st.steps] = ((unsigned int)nnew << 1) | (st.do_push ? 1u : 0u);
    if (st.do_push && !st.queue_valid) ctr[16] = ctr[17] = ctr[18] = ctr[19] = 0ULL;
  }
  st.frontier_edges = fb_ctr<LOCAL>(c + 3);
  st.vis_valid = !st.do_push;
  st.queue_valid = st.do_push;
  st.steps += 1;
  st.last_nq = st.nq;
  st.nq = nnew;
  if (nnew == 0) {
    st.done = 1;
  } else {
    st.nvisited += nnew;
    st.k += 1;
    st.done = st.nvisited >= n;
  }
}

// The buffers of level k: queues, chunk lists and counter slots by parity / k mod 3; after
// a pull level (queue_valid false) a push reads the queue rebuilt into slot ctr[16..19].
__device__ __forceinline__ FbLevel fb_level(int k, int* q0, int* q1, long long* own0,
                                            long long* own1, unsigned long long* ctr) {
  FbLevel L;
  L.k = k;
  L.q_in = (k & 1) ? q0 : q1;
  L.q_out = (k & 1) ? q1 : q0;
  L.own_in = (k & 1) ? own0 : own1;
  L.own_out = (k & 1) ? own1 : own0;
  L.c_in = ctr + 4 * ((k - 1) % 3);
  L.c_out = ctr + 4 * (k % 3);
  return L;
}

// One warp's count into the level's counters: the pull's vertices found (slot word 0), the
// push's frontier edges (word 3: LAGraph's rule reads it before any pull, the fused kernel's
// choice of block levels after every push; one atomic per warp and level).
__device__ __forceinline__ void fb_count(const FbLevel& L, bool do_push, unsigned long long acc,
                                         int lane) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) acc += __shfl_xor_sync(FB_FULL, acc, off);
  if (lane == 0 && acc) atomicAdd(L.c_out + (do_push ? 3 : 0), acc);
}

// Results (grid-stride): int64 levels (-1 where unreached), reached bits, int64 parents.
__device__ __forceinline__ void fb_output(const FbGraph& g, long long n, long long* out_levels,
                                          bool* out_bits, long long* out_parents,
                                          long long tid, long long nthreads) {
  for (long long v = tid; v < n; v += nthreads) {
    const int l = __ldcg(&g.lvl[v]);
    out_levels[v] = (long long)l;
    out_bits[v] = l >= 0;
    if (g.parents) out_parents[v] = l >= 0 ? (long long)__ldcg(&g.par[v]) : -1LL;
  }
}
