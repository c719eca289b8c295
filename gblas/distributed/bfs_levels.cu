// The distributed direction-optimising BFS, one process's share of a level (CuPy RawModule).
// gblas/distributed/bfs_levels.py drives it: per level, these kernels on the process's rows
// and one NCCL all-gather between them; docs/distributed.md has the design and byte counts.
//
// Process p owns the vertices lo <= v < hi (1D block partition). State on its GPU:
//   par[i]          int32, i = v - lo: the parent of vertex v (searches for parents only:
//                   INT_MAX until found, pushes and hub chunks lower it by atomicMin);
//   vis             the visited bitmap of ALL n vertices (bit v of word v >> 5), the same on
//                   every process: exactly the vertices of level <= k - 1 while level k runs;
//   C (c_ptr/c_idx) the edges INTO the block by source: row u (any of the n vertices) lists
//                   the local ids of u's out-neighbours in the block (Aᵀ's block transposed;
//                   A's block itself with one process);
//   queue, chunks   the whole last frontier (global ids, from every process's gathered
//                   words) for a push: C-degree < DB_BIG in the queue, bigger as chunks of
//                   DB_CHUNK edges (u << 32 | chunk), so that no warp walks a hub; cnt[4]:
//                   {-, -, queue size, chunks};
//   out_lv, out_bits the levels as the result Vector's storage (int64 values, a byte a
//                   vertex saying reached), fresh for each search, written by whoever finds
//                   the vertex (no level array to reset: a search starts with n/8 + n_local
//                   bytes of stores);
//   newbits[2]      the block's words of the new frontier of the level of sequence number
//                   s (levels counted over all searches) in newbits[s & 1], padded to the
//                   same length on every process, then two uint64 counts (tail): the
//                   vertices found and (after a push) their out-edges, exchanged with the
//                   words; the unpack of level s zeroes the other buffer for level s + 1 (a
//                   level starts on zeroed words, no fill);
//   parts           the P processes' words of a level (device pointers as uint64): the
//                   slices of the NCCL all-gather's buffer, or every process's own newbits
//                   read in place (peer mode: CUDA IPC over NVLink, no collective);
//   st[DS_WORDS]    the loop state (below), the same on every process: the unpack of level
//                   k folds the gathered counts into it and takes level k + 1's direction
//                   by LAGraph's rule (bfs_rule.cuh), so the host launches levels without
//                   reading anything; the kernels of a level whose direction is the other
//                   one, or after the end, return at once;
//   ring            the host's copies of the state (page-locked host memory mapped into the
//                   device: no copy or event a level): the unpack of level k writes st
//                   into slot k % nring, the level's sequence number (DS_STAMP) last, and
//                   the host polls that word.
//
// A level k:
//   push  dbfs_queue lists the last frontier from the gathered words (the source at level
//         1), dbfs_push walks its rows of C: every unvisited out-neighbour in the block is on
//         level k (claimed by the atomicOr that sets its bit first), its parent the smallest
//         frontier in-neighbour
//         (atomicMin): the parent of the one-process search. No candidates travel: every
//         process has the whole frontier and the edges into its own block;
//   pull  dbfs_claim scans each unvisited vertex's in-row (rows sorted) up to the first
//         in-neighbour in vis: that neighbour is on level k - 1 (an unvisited vertex has no
//         visited in-neighbour further up), so it is the smallest parent one level up;
//   then dbfs_unpack ORs every process's new words into vis, sums the counts and takes the
//   next direction (st): after an NCCL all-gather of the words, or in peer mode once it has
//   published the level's sequence number in the process's flag and waited for every
//   peer's (then the peers' words are read over NVLink). Level
//   0 (dbfs_start) is the source's bit and its out-degree (the sum of its C-degrees) in its
//   newbits, exchanged and unpacked as any level, which takes level 1's direction.
// Peer mode's buffer rule: a process rewrites its buffer of level s only in level s + 2's
// kernels or later, after its unpack of level s + 1 has seen every peer's flag reach s + 1,
// which a peer sets only after its own last reads of that buffer (its unpack of level s and
// its queue of level s + 1); so every level signals and every unpack waits, also after the
// search's end.
// Every loop is grid-stride (warp-strided where a warp cooperates): correct for any grid.

#include "bfs_rule.cuh"
#include "edge_batches.cuh"

#define DB_FULL 0xffffffffu
#define DB_BIG 256      // C-degree from which a frontier vertex is pushed in chunks
#define DB_CHUNK 1024   // edges per chunk, at most (db_chunk_size)
#define DB_MIN_CHUNK 128  // and at least
#define DB_PB 4         // push: edges a lane takes through each step at once
#define DB_SERIAL 8     // in-row entries a lane checks alone before its warp helps
#define DB_BATCH 4      // of those, loaded at once
#define DB_HEAVY 1024   // in-degree from which a scanned row is split into chunks (phase A)
#define DB_HCHUNK 512   // entries per chunk of such a row
#define DB_INT_MAX 0x7fffffff

// The loop state (int64 words; bfs_levels.py reads a copy of them after each level)
#define DS_DONE 0        // the search is over
#define DS_DO_PUSH 1     // the direction of the next level (1 push, 0 pull)
#define DS_PUSH_PULL 2   // LAGraph's rule: may still switch
#define DS_ANY_PULL 3    //   a pull level has run
#define DS_UNEXPLORED 4  //   edges_unexplored
#define DS_NQ 5          // the last level's frontier size
#define DS_LAST_NQ 6     // the one before
#define DS_NVISITED 7    // vertices reached
#define DS_LEVELS 8      // at the end: the search's level count (the one-process loop's k)
#define DS_RAN 9         // the levels run (the last one found nothing or reached everyone)
#define DS_LAST_DIR 10   // the direction the last level ran (1 push, 0 pull)
#define DS_STALLED 11    // peer mode: a peer's flag did not come within DB_WAIT_NS
#define DS_SCOUT 12      // the last level's frontier out-edges (every process's), for chunks
#define DS_WORDS 16
#define DS_STAMP 15      // in the host's copy: the level's sequence number, written last
#define DB_WAIT_NS 60000000000LL  // 60 s

// The words of process p in a level's parts (device pointers as uint64).
__device__ __forceinline__ const unsigned* db_part(const unsigned long long* parts, int p) {
  return (const unsigned*)parts[p];
}

// Whether a level's push (want_push) or pull kernel runs: the search is not over and the
// rule took that direction.
__device__ __forceinline__ bool db_runs(const long long* __restrict__ st, bool want_push) {
  return !st[DS_DONE] && (st[DS_DO_PUSH] != 0) == want_push;
}

// Reads of vis bypass L1 (__ldcg, as the one-GPU pull reads its bitmap): random probes of a
// bitmap of n bits reuse little in L1 (kron:24 on one H100, P = 1: 3.04 ms median against
// 3.85 through __ldg, one run of 8 roots each).
__device__ __forceinline__ bool db_seen(const unsigned* __restrict__ vis, long long u) {
  return (__ldcg(&vis[u >> 5]) >> (u & 31)) & 1u;
}


// Warp-synchronous: the warp's vertices found and their out-edges into the level's counts
// (the tail of the words to be all-gathered).
__device__ __forceinline__ void db_add_counts(unsigned long long* tail,
                                              unsigned long long nfound,
                                              unsigned long long fedges, int lane) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) {
    nfound += __shfl_xor_sync(DB_FULL, nfound, off);
    fedges += __shfl_xor_sync(DB_FULL, fedges, off);
  }
  if (lane == 0 && nfound) {
    atomicAdd(tail, nfound);
    atomicAdd(tail + 1, fedges);
  }
}

// Edges a hub's chunk holds at level k: about the level's edges into one block over the push
// grid's warps (a power of two from DB_MIN_CHUNK to DB_CHUNK), so that a push from a few
// hubs spreads over every warp and its time follows the edges a process has, not one
// chunk's chain. The queue and the push compute it alike from the state.
__device__ __forceinline__ long long db_chunk_size(const long long* __restrict__ st,
                                                   int nparts, long long push_warps) {
  const long long per = st[DS_SCOUT] / nparts / max(push_warps, 1LL);
  long long ch = DB_MIN_CHUNK;
  while (ch < per && ch < DB_CHUNK) ch <<= 1;
  return ch;
}

// The chunks of ch edges of the hubs of a warp's words (hubs: the lane's bits of C-degree
// >= DB_BIG in its word, global vertex `first` + bit): a round takes each lane's lowest hub
// and appends the round's chunk lists with one reservation for the warp, each hub's list
// written by the whole warp (warp_append_chunks: a hub of 10^6 edges in the block has ~10^3
// chunks, which one lane took ~20 µs to write alone at kron:26; one reservation a warp
// instead of one a hub took the one-GPU kernel's hub level at kron:22 from 72 to 36 µs).
// Warp-synchronous.
__device__ __forceinline__ void db_warp_chunks(const long long* __restrict__ c_ptr,
                                               long long first, unsigned hubs, int lane,
                                               long long ch, long long* ch_out,
                                               unsigned long long* cnt) {
  while (__any_sync(DB_FULL, hubs != 0u)) {
    const bool hub = hubs != 0u;
    int u = 0;
    unsigned nch = 0u;
    if (hub) {
      u = (int)(first + __ffs(hubs) - 1);
      nch = (unsigned)((c_ptr[u + 1] - c_ptr[u] + ch - 1) / ch);
      hubs &= hubs - 1;
    }
    warp_append_chunks(hub, u, nch, ch_out, lane, [&](unsigned, unsigned entries) {
      return atomicAdd(cnt + 3, (unsigned long long)entries);
    });
  }
}

// The lane's share of a warp's queue: q_out gets the frontier vertices of word c (global
// vertex `first` + bit) whose C-degree is below DB_BIG and above 0 (one atomic a warp);
// bigger ones go to ch_out as chunks. Warp-synchronous: every lane calls it.
__device__ __forceinline__ void db_queue_bits(const long long* __restrict__ c_ptr,
                                              long long first, unsigned c, int lane,
                                              long long ch, int* q_out, long long* ch_out,
                                              unsigned long long* cnt) {
  int nsmall = 0;
  unsigned hubs = 0;
  for (unsigned b = c; b; b &= b - 1) {
    const long long u = first + __ffs(b) - 1;
    const long long deg = c_ptr[u + 1] - c_ptr[u];
    if (deg >= DB_BIG) hubs |= b & (0u - b);
    else if (deg) ++nsmall;
  }
  db_warp_chunks(c_ptr, first, hubs, lane, ch, ch_out, cnt);
  const int incl = warp_inclusive_scan(nsmall, lane);
  unsigned long long at = 0;
  if (lane == 31 && incl) at = atomicAdd(cnt + 2, (unsigned long long)incl);
  at = __shfl_sync(DB_FULL, at, 31) + (unsigned long long)(incl - nsmall);
  for (unsigned b = c; b; b &= b - 1) {
    const long long u = first + __ffs(b) - 1;
    const long long deg = c_ptr[u + 1] - c_ptr[u];
    if (deg && deg < DB_BIG) q_out[at++] = (int)u;
  }
}

// The sort keys of C (built once per matrix): entry p of local row i of Aᵀ's block, whose
// source is u = t_idx[p], becomes u << 32 | i; sorted, they are C's rows in order. A warp a
// row, the lanes over its entries.
extern "C" __global__ void dbfs_block_keys(const long long* __restrict__ t_ptr,
                                           const int* __restrict__ t_idx, long long nrows,
                                           unsigned long long* keys) {
  const int lane = threadIdx.x & 31;
  const long long gwarp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
  for (long long i = gwarp; i < nrows; i += nwarps) {
    for (long long p = t_ptr[i] + lane; p < t_ptr[i + 1]; p += 32)
      keys[p] = ((unsigned long long)t_idx[p] << 32) | (unsigned long long)i;
  }
}

// Level 0: nothing reached but the source (out_bits), vis = {source}, par = INT_MAX (with
// parents), the source's bit in its owner's newbits `nb` (this level's buffer, zeroed by
// the last level's unpack or at allocation) and the level's counts in its tail (the owner:
// one vertex; every process: the source's C-degree, which sum to its out-degree), and the
// loop state before level 1 (mode 0 auto, 1 push only, 2 pull only); its unpack takes level
// 1's direction.
extern "C" __global__ void dbfs_start(const long long* __restrict__ c_ptr, long long lo,
                                      long long hi, long long nwords, long long wtot,
                                      long long source, int want_par, int mode, long long nvals,
                                      int* par, unsigned* vis, unsigned* nb,
                                      long long* st, long long* out_lv, bool* out_bits) {
  const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long nth = (long long)gridDim.x * blockDim.x;
  const bool owner = source >= lo && source < hi;
  for (long long i = tid; i < hi - lo; i += nth) {
    const bool src = i + lo == source;
    if (want_par) par[i] = src ? (int)source : DB_INT_MAX;
    out_bits[i] = src;
    if (src) out_lv[i] = 0;
  }
  for (long long w = tid; w < nwords; w += nth)
    vis[w] = w == (source >> 5) ? 1u << (source & 31) : 0u;
  if (tid == 0) {
    if (owner) nb[(source >> 5) - (lo >> 5)] = 1u << (source & 31);
    unsigned long long* tail = (unsigned long long*)(nb + wtot - 4);
    tail[0] = owner ? 1ULL : 0ULL;
    tail[1] = (unsigned long long)(c_ptr[source + 1] - c_ptr[source]);
    for (int j = 0; j < DS_WORDS; ++j) st[j] = 0;
    st[DS_PUSH_PULL] = mode == 0;
    st[DS_DO_PUSH] = mode != 2;
    st[DS_UNEXPLORED] = nvals;
  }
}

// The last level's frontier of every process (their words: part p's word j is global
// word (offsets[p] >> 5) + j; a part is wmax words, its last four the counts) as the
// push's queue and chunks (push levels only); cnt was cleared by dbfs_unpack. A thread a
// word.
extern "C" __global__ void dbfs_queue(const long long* __restrict__ c_ptr,
                                      const unsigned long long* __restrict__ parts,
                                      long long wmax,
                                      const long long* __restrict__ offsets, int nparts,
                                      int* q_out, long long* ch_out, unsigned long long* cnt,
                                      const long long* __restrict__ st, long long push_warps) {
  if (!db_runs(st, true)) return;
  const long long ch = db_chunk_size(st, nparts, push_warps);
  const int lane = threadIdx.x & 31;
  const long long gwarp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
  const long long nw = wmax - 4;
  for (int p = 0; p < nparts; ++p) {
    const unsigned* part = db_part(parts, p);
    const long long w0 = offsets[p] >> 5;
    for (long long base = gwarp * 32; base < nw; base += nwarps * 32) {
      const long long j = base + lane;
      const unsigned c = j < nw ? __ldcg(part + j) : 0u;
      if (!__any_sync(DB_FULL, c)) continue;  // most words of a small frontier: nothing
      db_queue_bits(c_ptr, (w0 + j) << 5, c, lane, ch, q_out, ch_out, cnt);
    }
  }
}

// f(ok, u, i) for every edge u -> lo + i of the queued frontier, DB_PB edges a lane at once
// (arrays; ok[b] false where the lane has no b-th edge): the chunks of hubs (edge_batches),
// then the queue,
// a warp each, the lanes over the edges. The queue goes 32 vertices a warp: their rows
// (< DB_BIG edges each) concatenated (a warp prefix sum of the degrees), the lanes on
// consecutive edges of that list, each finding its row by a 5-step binary search over the
// prefix sums held in the lanes. A lane's DB_PB edges are independent, so f can have their
// loads in flight together: one edge at a time, a warp's chunk of DB_CHUNK edges was 32
// chains of dependent loads (id, visited word, new word, atomic) and the push level from a
// few hubs took as long on two GPUs as on one (kron:26, level 2: ~200 µs).
template <class F>
__device__ __forceinline__ void db_frontier_edges(const long long* __restrict__ c_ptr,
                                                  const int* __restrict__ c_idx,
                                                  const int* __restrict__ queue,
                                                  const long long* __restrict__ chunks,
                                                  const unsigned long long* __restrict__ cnt,
                                                  long long ch, int lane, long long gwarp,
                                                  long long nwarps, F&& f) {
  const long long nq = (long long)cnt[2], nch = (long long)cnt[3];
  for (long long c = gwarp; c < nch; c += nwarps) {
    const long long o = chunks[c];
    const int u = (int)(o >> 32);
    const long long s = c_ptr[u] + (o & 0xffffffffLL) * ch;
    edge_batches<DB_PB>(u, s, min(s + ch, c_ptr[u + 1]), c_idx, lane, f);
  }
  for (long long base = gwarp * 32; base < nq; base += nwarps * 32) {
    long long s = 0;
    int d = 0, u = 0;
    if (base + lane < nq) {
      u = queue[base + lane];
      s = c_ptr[u];
      d = (int)(c_ptr[u + 1] - s);
    }
    row_list_batches<DB_PB>(u, s, d, c_idx, lane, f);
  }
}

// Push level k: every unvisited out-neighbour lo + i of the frontier in the block is on
// level k. The first lane to set its bit in newbits (zeroed; atomicOr's old word
// says who was first; a probe first, hubs are reached by many edges) writes its level and
// counts it with its out-edges (A's row); with parents every frontier in-neighbour u
// proposes itself (atomicMin, after a probe): the smallest wins, the one-process search's
// parent. A lane's DB_PB edges go through each step together (their loads in flight at once).
extern "C" __global__ void dbfs_push(const long long* __restrict__ c_ptr,
                                     const int* __restrict__ c_idx,
                                     const long long* __restrict__ a_ptr, long long lo, int k,
                                     int want_par, const int* __restrict__ queue,
                                     const long long* __restrict__ chunks,
                                     const unsigned long long* __restrict__ cnt,
                                     const unsigned* __restrict__ vis, int* par,
                                     unsigned* newbits, long long wtot,
                                     const long long* __restrict__ st, long long* out_lv,
                                     bool* out_bits, int nparts) {
  if (!db_runs(st, true)) return;
  unsigned long long* tail = (unsigned long long*)(newbits + wtot - 4);
  const int lane = threadIdx.x & 31;
  const long long gwarp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
  const long long w0 = lo >> 5;
  unsigned long long nfound = 0, fedges = 0;
  db_frontier_edges(c_ptr, c_idx, queue, chunks, cnt, db_chunk_size(st, nparts, nwarps), lane,
                    gwarp, nwarps,
                    [&](const bool* ok, const int* uu, const int* ii) {
    // each step over the lane's DB_PB edges in a loop of its own, nothing between its
    // loads (or atomics) and their first use, so that all DB_PB are in flight at once
    bool cand[DB_PB];
    unsigned word[DB_PB], old[DB_PB];
#pragma unroll
    for (int b = 0; b < DB_PB; ++b) cand[b] = ok[b] && !db_seen(vis, lo + ii[b]);
#pragma unroll
    for (int b = 0; b < DB_PB; ++b)
      word[b] = cand[b] ? __ldcg(&newbits[((lo + ii[b]) >> 5) - w0]) : 0u;
    if (want_par) {
#pragma unroll
      for (int b = 0; b < DB_PB; ++b)
        if (cand[b] && __ldcg(&par[ii[b]]) > uu[b]) atomicMin(&par[ii[b]], uu[b]);
    }
#pragma unroll
    for (int b = 0; b < DB_PB; ++b) {
      const unsigned bit = 1u << ((lo + ii[b]) & 31);
      cand[b] = cand[b] && !(word[b] & bit);
      old[b] = cand[b] ? atomicOr(&newbits[((lo + ii[b]) >> 5) - w0], bit) : bit;
    }
    long long deg[DB_PB];
#pragma unroll
    for (int b = 0; b < DB_PB; ++b) {
      cand[b] = !(old[b] & (1u << ((lo + ii[b]) & 31)));  // this lane set the bit: found
      deg[b] = cand[b] ? a_ptr[ii[b] + 1] - a_ptr[ii[b]] : 0;
    }
#pragma unroll
    for (int b = 0; b < DB_PB; ++b) {
      if (!cand[b]) continue;
      out_lv[ii[b]] = k;
      out_bits[ii[b]] = true;
      ++nfound;
      fedges += (unsigned long long)deg[b];
    }
  });
  db_add_counts(tail, nfound, fedges, lane);
}

// Pull level k over the block's words (warp w: global word (lo >> 5) + w, lane = bit): each
// unvisited vertex's in-row is scanned for its first in-neighbour in vis:
//   phase A, the rows of DB_HEAVY entries or more (`heavy`: chunks of DB_HCHUNK entries,
//     i << 32 | j, built once), any warp any chunk: a chunk is skipped when its vertex is
//     visited, already found (levels) or found through a smaller in-neighbour than the
//     chunk's first (parents); a hit lowers par (atomicMin) and sets the word's bit
//     (atomicOr: the lane that set it first writes the level and counts the vertex);
//   phase B (concurrent), every other unvisited vertex: a lane scans the first DB_SERIAL
//     entries alone (DB_BATCH loads at once), then the whole warp takes the rest of a longer
//     row (32 entries a step; the ballot's lowest lane is the first hit in row order); the
//     warp writes its word (atomicOr where phase A may set a bit of it: newbits is zeroed).
// Found vertices are counted, not their out-edges: after a pull LAGraph's rule reads vertex
// counts only, and reading each found vertex's row bounds made a pull level 1.5x slower
// (kron:24).
extern "C" __global__ void dbfs_claim(const long long* __restrict__ t_ptr,
                                      const int* __restrict__ t_idx, long long lo,
                                      long long hi, long long span, int k,
                                      const unsigned* __restrict__ vis, int want_par,
                                      const long long* __restrict__ heavy,
                                      long long nheavy, int* par, unsigned* newbits,
                                      long long wtot, const long long* __restrict__ st,
                                      long long* out_lv, bool* out_bits) {
  if (!db_runs(st, false)) return;
  unsigned long long* tail = (unsigned long long*)(newbits + wtot - 4);
  const int lane = threadIdx.x & 31;
  const long long gwarp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
  const long long w0 = lo >> 5;
  unsigned long long nfound = 0;
  for (long long c = gwarp; c < nheavy; c += nwarps) {  // phase A
    const long long o = heavy[c];
    const long long i = o >> 32;
    const long long v = lo + i;
    const long long w = (v >> 5) - w0;
    const long long cs = t_ptr[i] + (o & 0xffffffffLL) * DB_HCHUNK;
    const long long ce = min(cs + (long long)DB_HCHUNK, t_ptr[i + 1]);
    int skip = 0;
    if (lane == 0) {
      skip = db_seen(vis, v) ||
             (want_par ? __ldcg(&par[i]) < t_idx[cs] : (__ldcg(&newbits[w]) >> (v & 31)) & 1u);
    }
    if (__shfl_sync(DB_FULL, skip, 0)) continue;
    const int hit = warp_first_seen(t_idx, cs, ce, lane,
                                    [&](int u) { return db_seen(vis, u); });
    if (hit >= 0 && lane == 0) {
      const unsigned bit = 1u << (v & 31);
      if (want_par) atomicMin(&par[i], hit);
      if (!(atomicOr(&newbits[w], bit) & bit)) {
        out_lv[i] = k;
        out_bits[i] = true;
        ++nfound;
      }
    }
  }
  for (long long w = gwarp; w < span; w += nwarps) {  // phase B
    const long long v = (w0 + w) * 32 + lane;
    const long long i = v - lo;
    const unsigned seen = __ldcg(&vis[w0 + w]);  // visited before this level
    bool todo = v >= lo && v < hi && !((seen >> lane) & 1u);
    long long s = 0, e = 0;
    if (todo) {
      s = t_ptr[i];
      e = t_ptr[i + 1];
    }
    const bool heavy_row = todo && e - s >= DB_HEAVY;  // phase A's
    if (heavy_row) todo = false;
    const long long head = todo ? min(e, s + (long long)DB_SERIAL) : s;
    int found = first_seen_batched<DB_BATCH>(t_idx, s, head,
                                             [&](int u) { return db_seen(vis, u); });
    bool coop = todo && found < 0 && head < e;
    unsigned b;
    while ((b = __ballot_sync(DB_FULL, coop)) != 0) {  // the rest of a long row: whole warp
      const int ld = __ffs(b) - 1;
      const long long ss = __shfl_sync(DB_FULL, head, ld);
      const long long ee = __shfl_sync(DB_FULL, e, ld);
      const int hit = warp_first_seen(t_idx, ss, ee, lane,
                                      [&](int u) { return db_seen(vis, u); });
      if (lane == ld) {
        found = hit;
        coop = false;
      }
    }
    const bool got = found >= 0;
    const unsigned fmask = __ballot_sync(DB_FULL, got);
    const bool shared_word = __any_sync(DB_FULL, heavy_row);
    if (lane == 0) {
      if (shared_word) atomicOr(&newbits[w], fmask);
      else newbits[w] = fmask;
    }
    if (got) {
      if (want_par) par[i] = found;
      out_lv[i] = k;
      out_bits[i] = true;
      ++nfound;
    }
  }
  db_add_counts(tail, nfound, 0ULL, lane);
}

__device__ __forceinline__ long long db_clock() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return (long long)t;
}

// With timing only: the device clock (ns) into clock[i], between a level's steps.
extern "C" __global__ void dbfs_stamp(long long* clock, long long i) { clock[i] = db_clock(); }

// The int64 at p, read with acquire semantics at system scope (a flag a peer GPU wrote
// after a release): the reads after it see what the peer wrote before.
__device__ __forceinline__ long long db_load_acquire(const long long* p) {
  long long v;
  asm volatile("ld.acquire.sys.global.s64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

// Peer mode: block 0's thread 0 publishes level seq to every peer (its words of that level
// are complete: the level's kernels ran before this one; the fence makes them visible
// first), a store into this process's flag on each peer (flags[q], q < nparts); thread 0 of
// each block then waits until every peer's flag here (flags[nparts + p], this GPU's memory:
// local polls, not reads over NVLink from every block) reaches seq, so their words of that
// level are complete; past DB_WAIT_NS in all (one deadline for every peer) it marks the
// state stalled and stops waiting, and once the state is stalled no later unpack waits (the
// search is lost: the host raises on the stall, and the unpacks launched ahead must not
// each wait again). Then the whole block goes on. Every block of the unpack is resident at
// once (its grid is one wave), so block 0 signals whatever the others wait for. A block that
// times out after block 0 has folded the level's counts leaves the level published as if
// whole; the next level's unpack sees the stall and the host raises then.
__device__ __forceinline__ void db_wait_peers(const unsigned long long* __restrict__ flags,
                                              int nparts, int me, long long seq,
                                              long long* st) {
  if (threadIdx.x == 0) {
    if (blockIdx.x == 0) {
      __threadfence_system();
      for (int q = 0; q < nparts; ++q)
        if (q != me) *(volatile long long*)flags[q] = seq;
    }
    long long t0 = 0;
    for (int p = 0; p < nparts && !*(volatile long long*)&st[DS_STALLED]; ++p) {
      if (p == me) continue;
      const long long* f = (const long long*)flags[nparts + p];
      while (db_load_acquire(f) < seq) {
        const long long t = db_clock();
        if (!t0) t0 = t;
        if (t - t0 > DB_WAIT_NS) {
          st[DS_STALLED] = 1;
          break;
        }
        __nanosleep(100);
      }
    }
  }
  __syncthreads();
}

// vis |= part p's words (the block [a, b): its word j is global word (a >> 5) + j), four
// at a time (wmax is a multiple of 4: the words past the block's span are zero). The
// block's first and last words may hold the neighbouring blocks' vertices too (a boundary
// inside a word), so they are ORed atomically; the words between are the block's alone.
// Blocks of n / P vertices start on 4-word boundaries where P divides n / 128 (Kronecker
// graphs); other blocks take a word at a time.
__device__ __forceinline__ void db_or_part(const unsigned* __restrict__ part, long long a,
                                           long long b, unsigned* vis, long long tid,
                                           long long nth) {
  if (b <= a) return;
  const long long w0 = a >> 5, span = ((b - 1) >> 5) - w0 + 1;
  if ((w0 & 3) == 0) {
    const long long ng = (span + 3) >> 2;
    uint4* v = (uint4*)(vis + w0);
    for (long long g = tid; g < ng; g += nth) {
      const uint4 x = __ldcg((const uint4*)part + g);
      if (!(x.x | x.y | x.z | x.w)) continue;
      if (g == 0 || g == ng - 1) {
        unsigned* s = vis + w0 + 4 * g;
        if (x.x) atomicOr(s, x.x);
        if (x.y) atomicOr(s + 1, x.y);
        if (x.z) atomicOr(s + 2, x.z);
        if (x.w) atomicOr(s + 3, x.w);
      } else {
        uint4 o = v[g];
        o.x |= x.x; o.y |= x.y; o.z |= x.z; o.w |= x.w;
        v[g] = o;
      }
    }
    return;
  }
  for (long long j = tid; j < span; j += nth) {
    const unsigned x = __ldcg(part + j);
    if (!x) continue;
    if (j == 0 || j == span - 1) atomicOr(vis + w0 + j, x);
    else vis[w0 + j] |= x;
  }
}

// vis |= every process's new frontier words. Part p (parts[p], wmax words) holds word
// (offsets[p] >> 5) + j of process p's block at j (bits outside the block zero; its last
// four words, the tail, are the part's counts; wmax is a multiple of 4), ORed in a part at
// a time (db_or_part: 16 bytes a thread, not a word a thread finding its parts by a binary
// search as before: the pass over the peers' words is most of what a level's unpack costs
// beyond one process's). Thread 0 folds the summed counts of level k
// into the loop state: the search ends when nothing was found or every vertex is reached,
// else it takes level k + 1's direction. Also zeroes `next` (this process's newbits of the
// next level, wmax words) and the queue's counters (`clear`, read last by this level's
// push). In peer mode (`flags`: the 2P flags' addresses) the block first waits for the peers'
// level `seq`. Thread 0 then writes the state into the host's `ring` (slot k % nring, the
// stamp `seq` last). After the end it only waits and zeroes: a thread that reads the done
// flag thread 0 has just set skips its share of vis, which the finished search no longer
// reads. With timing, `clock` gets the device clock as block 0 starts and after its wait.
extern "C" __global__ void dbfs_unpack(const unsigned long long* __restrict__ parts,
                                       long long wmax, const long long* __restrict__ offsets,
                                       int nparts, long long n, unsigned* vis,
                                       unsigned long long* clear, unsigned* next, long long* st,
                                       long long k, double alpha, double beta1, double beta2,
                                       const unsigned long long* __restrict__ flags,
                                       long long seq, int me, long long* ring, int nring,
                                       long long* clock) {
  if (clock && blockIdx.x == 0 && threadIdx.x == 0) clock[0] = db_clock();
  if (flags) db_wait_peers(flags, nparts, me, seq, st);
  if (clock && blockIdx.x == 0 && threadIdx.x == 0) clock[1] = db_clock();
  const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long nth = (long long)gridDim.x * blockDim.x;
  for (long long g = tid; g < (wmax >> 2); g += nth) ((uint4*)next)[g] = make_uint4(0u, 0u, 0u, 0u);
  if (tid < 4) clear[tid] = 0ULL;
  if (st[DS_DONE]) return;
  if (tid == 0) {
    long long found = 0, scout = 0;
    for (int p = 0; p < nparts; ++p) {
      const long long* t = (const long long*)(db_part(parts, p) + wmax - 4);
      found += __ldcg(t);
      scout += __ldcg(t + 1);
    }
    st[DS_LAST_DIR] = st[DS_DO_PUSH];
    st[DS_LAST_NQ] = st[DS_NQ];
    st[DS_NQ] = found;
    st[DS_SCOUT] = scout;
    st[DS_NVISITED] += found;
    if (found == 0 || st[DS_NVISITED] >= n || st[DS_STALLED]) {
      st[DS_RAN] = k;
      st[DS_LEVELS] = found == 0 ? k : k + 1;
      st[DS_DONE] = 1;
    } else {
      bfs_direction_rule(st[DS_DO_PUSH], st[DS_PUSH_PULL], st[DS_ANY_PULL],
                         st[DS_UNEXPLORED], found, st[DS_LAST_NQ], scout, n, alpha, beta1,
                         beta2);
    }
    volatile long long* slot = ring + (k % nring) * DS_WORDS;
    for (int j = 0; j < DS_STAMP; ++j) slot[j] = st[j];
    __threadfence_system();  // the state before its stamp
    slot[DS_STAMP] = seq;
  }
  for (int p = 0; p < nparts; ++p)
    db_or_part(db_part(parts, p), offsets[p], offsets[p + 1], vis, tid, nth);
}
