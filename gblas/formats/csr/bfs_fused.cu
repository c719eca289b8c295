// Direction-optimising push-pull BFS on CSR in one persistent cooperative kernel
// (CuPy RawModule, enable_cooperative_groups=True, -std=c++17).
//
// The whole search runs inside one launch: every level is one phase (push or pull),
// separated from the next by cg::this_grid().sync(); the host is involved only before the
// launch and once after it. The grid is sized by the host from the occupancy API times the
// SM count, and every loop is a grid-stride loop over its work (warp-strided where a warp
// cooperates), so the kernel is correct for any grid size CuPy launches.
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
//   heavy     chunk list of the rows of Aᵀ with in-degree >= FB_HEAVY (built at the start).
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
//   - the others (the queue): a warp takes 32 of them, concatenates their rows (warp prefix
//     sum of the degrees, at most 32 * (FB_BIG - 1) edges) and the lanes take consecutive
//     edges of that list, each finding its row by a 5-step binary search over the prefix
//     sums held in the lanes (shuffles): edge-balanced within the warp.
// Pull (level k): for every vertex v whose bit in vis[k & 1] is clear, scan its in-neighbours
// (row v of CSR(Aᵀ)) in row order and stop at the first one whose bit is set (early exit).
// A lane checks the first FB_SERIAL entries alone (FB_BATCH loads in flight); longer rows
// then get the whole warp (32 entries a step, ballot picks the first hit in row order); rows
// of FB_HEAVY entries or more are split into chunks that any warp of the grid takes (so an
// unvisited vertex of huge in-degree, scanned to its end while none of its in-neighbours is
// visited, does not hold one warp for the whole level). A pull level only counts what it
// finds: its frontier is read back by a push level only after a switch back to push, and
// then the queue is rebuilt from the two bitmaps (new = vis[k & 1] & ~vis[(k - 1) & 1]).
//
// Direction: LAGraph's rule exactly as in algorithms/bfs.py (alpha, beta1, beta2; growing,
// edges_unexplored, any_pull, switch back when shrinking below n / beta2). The counters are
// accumulated with atomics during a level and read by thread 0 of every block after the grid
// sync; every block runs the same arithmetic (double, as Python's int/float comparisons), so
// all blocks take the same decision. mode: 0 auto, 1 push only, 2 pull only.
//
// Output (after the last level): out_levels[v] (int64), out_bits[v] (reached), and
// out_parents[v] (int64) when asked; meta[0] = levels, meta[1] = reached, meta[2] = steps,
// meta[3] = ns of the start (initialisation, one grid sync), meta[4] = ns of the output
// pass, meta[8 + i] = ns of step i (i < FB_TLOG; %globaltimer, thread 0),
// meta[8 + FB_TLOG + i] = (frontier size after step i) << 1 | (step i was push).
//
// Bytes per level: docs/gpu_bfs_notes.md.

#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define FB_FULL 0xffffffffu
#define FB_BLOCK 256
#define FB_MIN_BLOCKS 4  // 64 registers, no spills (ptxas -v): 1024 threads per SM
#define FB_BIG 256
#define FB_CHUNK 256
#define FB_STAGE 128   // push: per-warp staging buffer (ints, shared memory)
#define FB_PB 2        // push: edges a lane has in flight at once (4 spills at 64 registers)
#define FB_SERIAL 8    // pull: in-neighbours a lane checks alone before its warp helps
#define FB_BATCH 4     // pull: in-neighbours a lane loads at once
#define FB_HEAVY 1024  // pull: in-degree from which a row is split into chunks (phase A)
#define FB_HCHUNK 512  // entries per chunk of a heavy row
#define FB_TLOG 4096   // steps whose duration is logged (meta[8 + i], ns)
#define FB_INT_MAX 0x7fffffff

struct FbGraph {
  const long long* __restrict__ a_ptr;  // CSR of A (push: out-edges)
  const long long* __restrict__ a_idx;
  const long long* __restrict__ t_ptr;  // CSR of Aᵀ (pull: in-edges); may alias A
  const long long* __restrict__ t_idx;
  int* lvl;
  int* par;
  long long* heavy;  // chunk list of the heavy rows of Aᵀ (built once, at the start)
  int parents;
  int sym;  // t_* are A's own arrays: a pulled row's length is the out-degree
};

// Loop state of the level loop (one copy per block, in shared memory).
struct FbLoop {
  bool push_pull, do_push, any_pull, vis_valid, queue_valid, done;
  long long edges_unexplored, nq, last_nq, nvisited;
  unsigned long long frontier_edges;
  int k, steps;
};

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

__device__ __forceinline__ bool fb_seen(const unsigned int* vis, int u) {
  return (__ldcg(&vis[u >> 5]) >> (u & 31)) & 1u;
}

__device__ __forceinline__ long long fb_out_degree(const FbGraph& g, int v) {
  return g.a_ptr[v + 1] - g.a_ptr[v];
}

// A new big vertex: its chunks go to the next level's chunk list (rare: direct atomics).
__device__ __forceinline__ void fb_enqueue_big(const FbLevel& L, int v, long long deg) {
  atomicAdd(L.c_out + 1, 1ULL);
  const long long nch = (deg + FB_CHUNK - 1) / FB_CHUNK;
  const unsigned long long base = atomicAdd(L.c_out + 2, (unsigned long long)nch);
  for (long long j = 0; j < nch; ++j) L.own_out[base + j] = ((long long)v << 32) | j;
}

// Warp-synchronous: copy the warp's staged vertices to the queue (one atomicAdd).
__device__ __forceinline__ void fb_flush(const FbLevel& L, int* sbuf, int& fill, int lane) {
  __syncwarp();
  unsigned long long base = 0;
  if (lane == 0) base = atomicAdd(L.c_out, (unsigned long long)fill);
  base = __shfl_sync(FB_FULL, base, 0);
  for (int i = lane; i < fill; i += 32) L.q_out[base + i] = sbuf[i];
  __syncwarp();
  fill = 0;
}

// Warp-synchronous: stage the lanes' claimed vertices (fill is warp-uniform).
__device__ __forceinline__ void fb_stage(const FbLevel& L, bool claim, int v, int* sbuf,
                                         int& fill, int lane) {
  const unsigned m = __ballot_sync(FB_FULL, claim);
  if (m == 0) return;
  if (claim) sbuf[fill + __popc(m & ((1u << lane) - 1u))] = v;
  fill += __popc(m);
  if (fill > FB_STAGE - 32) fb_flush(L, sbuf, fill, lane);
}

// Warp-synchronous push of FB_PB edges per lane at once (u[b] -> v[b] where ok[b]): the
// lvl probes, the CASes and the degree loads of the FB_PB edges are issued together, so a
// lane has several memory accesses in flight instead of one dependent chain per edge.
// Claimed vertices of out-degree < FB_BIG are staged for the queue, bigger ones go to the
// chunk list; fe accumulates the out-degrees of the new vertices.
__device__ __forceinline__ void fb_visit_batch(const FbGraph& g, const FbLevel& L,
                                               const bool (&ok)[FB_PB], const int (&u)[FB_PB],
                                               const int (&v)[FB_PB], unsigned long long& fe,
                                               int* sbuf, int& fill, int lane) {
  int old[FB_PB];
#pragma unroll
  for (int b = 0; b < FB_PB; ++b) old[b] = ok[b] ? __ldcg(&g.lvl[v[b]]) : 0;
#pragma unroll
  for (int b = 0; b < FB_PB; ++b) {
    if (ok[b] && old[b] == -1) old[b] = atomicCAS(&g.lvl[v[b]], -1, L.k);
  }
  long long deg[FB_PB];
#pragma unroll
  for (int b = 0; b < FB_PB; ++b) deg[b] = ok[b] && old[b] == -1 ? fb_out_degree(g, v[b]) : 0;
#pragma unroll
  for (int b = 0; b < FB_PB; ++b) {
    bool claim = ok[b] && old[b] == -1;
    if (claim) {
      fe += (unsigned long long)deg[b];
      if (deg[b] >= FB_BIG) {
        fb_enqueue_big(L, v[b], deg[b]);
        claim = false;
      }
    }
    // claimed at this level (by us or by another frontier vertex): keep the smallest parent
    if (g.parents && ok[b] && (old[b] == -1 || old[b] == L.k)) atomicMin(&g.par[v[b]], u[b]);
    fb_stage(L, claim, v[b], sbuf, fill, lane);
  }
}

__device__ __forceinline__ void fb_push(const FbGraph& g, const FbLevel& L,
                                        unsigned long long& fe, int* sbuf, long long gwarp,
                                        long long nwarps, int lane) {
  const long long nreg = (long long)__ldcg(L.c_in);
  const long long nch = (long long)__ldcg(L.c_in + 2);
  int fill = 0;
  bool ok[FB_PB];
  int uu[FB_PB], vv[FB_PB];
  // tier 1: chunks of big vertices, spread over every warp of the grid
  for (long long c = gwarp; c < nch; c += nwarps) {
    const long long o = __ldcg(&L.own_in[c]);
    const int u = (int)(o >> 32);
    const long long s = g.a_ptr[u] + (o & 0xffffffffLL) * FB_CHUNK;
    const long long e = min(s + (long long)FB_CHUNK, g.a_ptr[u + 1]);
    for (long long p0 = s; p0 < e; p0 += 32 * FB_PB) {
#pragma unroll
      for (int b = 0; b < FB_PB; ++b) {
        const long long p = p0 + 32 * b + lane;
        ok[b] = p < e;
        uu[b] = u;
        vv[b] = ok[b] ? (int)g.a_idx[p] : 0;
      }
      fb_visit_batch(g, L, ok, uu, vv, fe, sbuf, fill, lane);
    }
  }
  // tier 2: the regular queue, 32 vertices per warp round; their rows (out-degree < FB_BIG)
  // are concatenated (warp prefix sum of the degrees) and the lanes take consecutive edges
  // of that list, each finding its row by a 5-step binary search over the prefix sums held
  // in the lanes (shuffles): a warp's edges are spread evenly over its lanes.
  for (long long base = gwarp * 32; base < nreg; base += nwarps * 32) {
    const long long i = base + lane;
    int u = 0;
    long long s = 0;
    int d = 0;
    if (i < nreg) {
      u = __ldcg(&L.q_in[i]);
      s = g.a_ptr[u];
      d = (int)(g.a_ptr[u + 1] - s);
    }
    int incl = d;
#pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
      const int t = __shfl_up_sync(FB_FULL, incl, off);
      if (lane >= off) incl += t;
    }
    const int excl = incl - d;
    const int total = __shfl_sync(FB_FULL, incl, 31);
    for (int t0 = 0; t0 < total; t0 += 32 * FB_PB) {
#pragma unroll
      for (int b = 0; b < FB_PB; ++b) {
        const int ei = t0 + 32 * b + lane;
        int owner = 0;  // number of lanes whose inclusive sum is <= ei
#pragma unroll
        for (int step = 16; step >= 1; step >>= 1) {
          const int val = __shfl_sync(FB_FULL, incl, owner + step - 1);
          if (val <= ei) owner += step;
        }
        owner = min(owner, 31);
        uu[b] = __shfl_sync(FB_FULL, u, owner);
        const long long so = __shfl_sync(FB_FULL, s, owner);
        const int eo = __shfl_sync(FB_FULL, excl, owner);
        ok[b] = ei < total;
        vv[b] = ok[b] ? (int)g.a_idx[so + (ei - eo)] : 0;
      }
      fb_visit_batch(g, L, ok, uu, vv, fe, sbuf, fill, lane);
    }
  }
  if (fill) fb_flush(L, sbuf, fill, lane);
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
    for (long long p0 = cs; p0 < ce; p0 += 32) {
      const long long p = p0 + lane;
      int u = 0;
      bool h = false;
      if (p < ce) {
        u = (int)g.t_idx[p];
        h = fb_seen(vis_in, u);
      }
      const unsigned hb = __ballot_sync(FB_FULL, h);
      if (hb) {
        const int hit = __shfl_sync(FB_FULL, u, __ffs(hb) - 1);
        if (lane == 0) {
          atomicOr(&vis_out[v >> 5], 1u << (v & 31));
          if (g.parents) atomicMin(&g.par[v], hit);
          if (atomicCAS(&g.lvl[v], -1, L.k) == -1) ++nfound;
        }
        break;
      }
    }
  }
}

// Pull, phase B (concurrent with A): every other unvisited vertex, one lane per vertex for
// the first FB_SERIAL in-neighbours (loaded FB_BATCH at a time, so the loads overlap),
// then the whole warp for the rest of a longer row. Each warp writes the vis_out word of
// its 32 vertices: a plain store, or atomicOr where phase A may set a bit of the word too
// (vis_out then holds an older, smaller visited set, so OR-ing is exact).
__device__ __forceinline__ void fb_pull(const FbGraph& g, const FbLevel& L, long long n,
                                        const unsigned int* vis_in, unsigned int* vis_out,
                                        unsigned long long& nfound, long long gwarp,
                                        long long nwarps, int lane) {
  for (long long base = gwarp * 32; base < n; base += nwarps * 32) {
    const long long v = base + lane;
    const unsigned word = __ldcg(&vis_in[base >> 5]);
    bool todo = v < n && !((word >> lane) & 1u);
    long long s = 0, e = 0;
    if (todo) {
      s = g.t_ptr[v];
      e = g.t_ptr[v + 1];
    }
    const bool heavy = todo && e - s >= FB_HEAVY;  // phase A's
    if (heavy) todo = false;
    int found = -1;
    const long long head = todo ? min(e, s + (long long)FB_SERIAL) : s;
    for (long long p0 = s; p0 < head; p0 += FB_BATCH) {
      int uu[FB_BATCH];
#pragma unroll
      for (int t = 0; t < FB_BATCH; ++t) uu[t] = p0 + t < head ? (int)g.t_idx[p0 + t] : -1;
      bool hh[FB_BATCH];
#pragma unroll
      for (int t = 0; t < FB_BATCH; ++t) hh[t] = uu[t] >= 0 && fb_seen(vis_in, uu[t]);
#pragma unroll
      for (int t = FB_BATCH - 1; t >= 0; --t) {
        if (hh[t]) found = uu[t];  // the first hit in row order wins
      }
      if (found >= 0) break;
    }
    bool coop = todo && found < 0 && head < e;
    unsigned b;
    while ((b = __ballot_sync(FB_FULL, coop)) != 0) {  // the rest of a long row: whole warp
      const int ld = __ffs(b) - 1;
      const long long ss = __shfl_sync(FB_FULL, head, ld);
      const long long ee = __shfl_sync(FB_FULL, e, ld);
      int hit = -1;
      for (long long p0 = ss; p0 < ee; p0 += 32) {
        const long long p = p0 + lane;
        int u = 0;
        bool h = false;
        if (p < ee) {
          u = (int)g.t_idx[p];
          h = fb_seen(vis_in, u);
        }
        const unsigned hb = __ballot_sync(FB_FULL, h);
        if (hb) {  // the lowest lane is the first hit in row order
          hit = __shfl_sync(FB_FULL, u, __ffs(hb) - 1);
          break;
        }
      }
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

// The frontier found by a pull level, as a queue (+ big vertices' chunks) for the push that
// follows it: new = cur & ~prev, word by word (a lane per word, one atomic per warp round).
__device__ __forceinline__ void fb_rebuild_queue(const FbGraph& g, const FbLevel& R,
                                                 long long nwords, const unsigned int* cur,
                                                 const unsigned int* prev, long long gwarp,
                                                 long long nwarps, int lane) {
  for (long long w0 = gwarp * 32; w0 < nwords; w0 += nwarps * 32) {
    const long long w = w0 + lane;
    const unsigned bits = w < nwords ? __ldcg(&cur[w]) & ~__ldcg(&prev[w]) : 0u;
    unsigned reg = 0;
    for (unsigned b = bits; b; b &= b - 1) {
      const int v = (int)(w * 32 + __ffs(b) - 1);
      const long long d = fb_out_degree(g, v);
      if (d >= FB_BIG) fb_enqueue_big(R, v, d);
      else reg |= b & (0u - b);
    }
    const int c = __popc(reg);
    int incl = c;
#pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
      const int t = __shfl_up_sync(FB_FULL, incl, off);
      if (lane >= off) incl += t;
    }
    const int total = __shfl_sync(FB_FULL, incl, 31);
    unsigned long long at = 0;
    if (lane == 31 && total) at = atomicAdd(R.c_out, (unsigned long long)total);
    at = __shfl_sync(FB_FULL, at, 31) + (unsigned long long)(incl - c);
    for (unsigned b = reg; b; b &= b - 1) R.q_out[at++] = (int)(w * 32 + __ffs(b) - 1);
  }
}

extern "C" __global__ void __launch_bounds__(FB_BLOCK, FB_MIN_BLOCKS)
bfs_fused(const long long* __restrict__ a_ptr, const long long* __restrict__ a_idx,
          const long long* __restrict__ t_ptr, const long long* __restrict__ t_idx,
          long long n, long long nnz, long long source, int mode, int want_parents, int sym,
          double alpha, double beta1, double beta2,
          int* lvl, int* par, int* q0, int* q1, long long* own0, long long* own1,
          unsigned int* vis0, unsigned int* vis1, long long* heavy,
          unsigned long long* ctr,  // 20 words, zero at launch
          long long* out_levels, bool* out_bits, long long* out_parents,
          unsigned int* meta) {
  cg::grid_group grid = cg::this_grid();
  __shared__ int s_stage[FB_BLOCK / 32][FB_STAGE];
  __shared__ FbLoop st;
  const unsigned long long t_start = fb_clock();
  const int lane = threadIdx.x & 31;
  const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long nthreads = (long long)gridDim.x * blockDim.x;
  const long long gwarp = tid >> 5;
  const long long nwarps = nthreads >> 5;
  const long long nwords = (n + 31) >> 5;
  int* sbuf = s_stage[threadIdx.x >> 5];
  const FbGraph g{a_ptr, a_idx, t_ptr, t_idx, lvl, par, heavy, want_parents, sym};
  const int src = (int)source;

  // ---- level 0: the source (enqueued by thread 0 into queue 0 / counter slot 0); the
  // bitmaps start empty (a subset of every visited set); the heavy rows' chunk list
  for (long long v = tid; v < n; v += nthreads) {
    lvl[v] = v == src ? 0 : -1;
    if (want_parents) par[v] = v == src ? src : FB_INT_MAX;
    if ((v & 31) == 0) vis0[v >> 5] = vis1[v >> 5] = 0u;
    if (mode != 1) {
      const long long d = t_ptr[v + 1] - t_ptr[v];
      if (d >= FB_HEAVY) {
        const long long nch = (d + FB_HCHUNK - 1) / FB_HCHUNK;
        const unsigned long long at = atomicAdd(ctr + 12, (unsigned long long)nch);
        for (long long j = 0; j < nch; ++j) heavy[at + j] = (v << 32) | j;
      }
    }
  }
  const long long src_deg = a_ptr[src + 1] - a_ptr[src];
  if (tid == 0) {
    if (src_deg < FB_BIG) {
      q0[0] = src;
      ctr[0] = 1ULL;
    } else {
      const long long nch = (src_deg + FB_CHUNK - 1) / FB_CHUNK;
      for (long long j = 0; j < nch; ++j) own0[j] = ((long long)src << 32) | j;
      ctr[1] = 1ULL;
      ctr[2] = (unsigned long long)nch;
    }
  }
  if (threadIdx.x == 0) {
    st.push_pull = mode == 0;
    st.do_push = mode != 2;
    st.any_pull = false;
    st.vis_valid = false;   // vis[k & 1] == {level <= k - 1} (only after a pull level)
    st.queue_valid = true;  // the queue holds level k - 1 (not after a pull level)
    st.done = n <= 1;
    st.edges_unexplored = nnz;
    st.nq = 1;
    st.last_nq = 0;
    st.nvisited = 1;
    st.frontier_edges = (unsigned long long)src_deg;
    st.k = 1;
    st.steps = 0;
  }
  grid.sync();
  const long long nheavy = (long long)__ldcg(ctr + 12);
  unsigned long long t_last = fb_clock();
  if (tid == 0) meta[3] = (unsigned int)(t_last - t_start);

  // ---- the level loop. Thread 0 of every block runs the direction rule on the counters
  // (the same arithmetic in every block, so every block takes the same decision) and keeps
  // the loop state in shared memory, out of the registers the phases need.
  while (true) {
    if (threadIdx.x == 0 && !st.done && st.push_pull) {
      if (st.do_push) {
        const bool growing = st.nq > st.last_nq;
        bool sw;
        if (st.edges_unexplored < n) {  // little is left: stay push
          st.push_pull = false;
          sw = false;
        } else if (st.any_pull) {
          sw = growing && (double)st.nq > (double)n / beta1;
        } else {
          st.edges_unexplored -= (long long)st.frontier_edges;
          sw = growing && (double)st.frontier_edges > (double)st.edges_unexplored / alpha;
        }
        st.do_push = !sw;
      } else if (st.nq < st.last_nq && (double)st.nq <= (double)n / beta2) {
        st.do_push = true;
      }
      st.any_pull = st.any_pull || !st.do_push;
    }
    __syncthreads();
    if (st.done) break;
    const int k = st.k;
    const bool do_push = st.do_push;
    FbLevel L;
    L.k = k;
    L.q_in = (k & 1) ? q0 : q1;
    L.q_out = (k & 1) ? q1 : q0;
    L.own_in = (k & 1) ? own0 : own1;
    L.own_out = (k & 1) ? own1 : own0;
    L.c_in = ctr + 4 * ((k - 1) % 3);
    L.c_out = ctr + 4 * (k % 3);
    if (tid == 0) {
      unsigned long long* clr = ctr + 4 * ((k + 1) % 3);
      clr[0] = clr[1] = clr[2] = clr[3] = 0ULL;
    }
    unsigned long long acc = 0;  // push: out-degrees of new vertices; pull: vertices found
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
      fb_push(g, L, acc, sbuf, gwarp, nwarps, lane);
    } else {
      unsigned int* vis_in = (k & 1) ? vis1 : vis0;
      unsigned int* vis_out = (k & 1) ? vis0 : vis1;
      if (!st.vis_valid) {
        fb_rebuild_vis(g, n, vis_in, gwarp, nwarps, lane);
        grid.sync();
      }
      if (nheavy) fb_pull_heavy(g, L, nheavy, vis_in, vis_out, acc, gwarp, nwarps, lane);
      fb_pull(g, L, n, vis_in, vis_out, acc, gwarp, nwarps, lane);
    }
    // one atomic per warp: the pull's count; the push's frontier edges, needed only by a
    // push decision before any pull
    if (!do_push || (st.push_pull && !st.any_pull)) {
#pragma unroll
      for (int off = 16; off > 0; off >>= 1) acc += __shfl_xor_sync(FB_FULL, acc, off);
      if (lane == 0 && acc) atomicAdd(L.c_out + (do_push ? 3 : 0), acc);
    }
    grid.sync();
    if (threadIdx.x == 0) {
      const long long nnew = (long long)(__ldcg(L.c_out) + __ldcg(L.c_out + 1));
      if (tid == 0) {
        const unsigned long long now = fb_clock();
        if (st.steps < FB_TLOG) meta[8 + st.steps] = (unsigned int)(now - t_last);
        t_last = now;
        meta[8 + FB_TLOG + st.steps] = ((unsigned int)nnew << 1) | (do_push ? 1u : 0u);
        if (do_push && !st.queue_valid) {  // the rebuilt slot is read: clear it for the next
          ctr[16] = ctr[17] = ctr[18] = ctr[19] = 0ULL;
        }
      }
      st.frontier_edges = __ldcg(L.c_out + 3);
      st.vis_valid = !do_push;
      st.queue_valid = do_push;
      st.steps += 1;
      st.last_nq = st.nq;
      st.nq = nnew;
      if (nnew == 0) {
        st.done = true;
      } else {
        st.nvisited += nnew;
        st.k = k + 1;
        st.done = st.nvisited >= n;
      }
    }
    // no barrier needed here: the one at the top of the loop orders these writes
  }

  // ---- results: int64 levels (-1 where unreached), reached bits, int64 parents
  for (long long v = tid; v < n; v += nthreads) {
    const int l = __ldcg(&lvl[v]);
    out_levels[v] = (long long)l;
    out_bits[v] = l >= 0;
    if (want_parents) out_parents[v] = l >= 0 ? (long long)__ldcg(&par[v]) : -1LL;
  }
  if (tid == 0) {
    meta[0] = (unsigned int)st.k;
    meta[1] = (unsigned int)st.nvisited;
    meta[2] = (unsigned int)st.steps;
    meta[4] = (unsigned int)(fb_clock() - t_last);  // the output pass (thread 0's share)
  }
}
