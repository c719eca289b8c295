// BVSS device code shared by the mxv kernels (mxv.cu) and the fused BFS (bfs_tc.cu).
// Layout: gblas/formats/bvss/container.py. One warp evaluates one virtual slice set (VSS) of
// at most 128 slices against the operand byte F of its column block:
//   - Tensor Cores (TC = true, sm_80+): lane L holds 32-bit word L of the VSS's masks, i.e.
//     word L&3 of A-row L>>2 of an 8x128-bit tile. B column j carries F at byte j (first MMA)
//     or at byte 8+j (second MMA), so D[r][j] = popc(A[r] byte j & F) (resp. byte 8+j):
//     two m8n8k128 .and.popc MMAs give all 128 slice results, every output used (Blest §4.1).
//     Lane L receives D[L>>2][2(L&3)], D[L>>2][2(L&3)+1] of each: its slices 4L .. 4L+3
//     (the masks are stored in that thread order), whose rows it reads as one int4.
//   - CUDA cores (TC = false): lane L gathers the four bytes of its slices from the lanes'
//     words (two shuffles) and ANDs them with F. Same results; the fallback below sm_80,
//     and a measured variant.
// Without a hardware MMA (below sm_80) bv_mma emulates it exactly with shuffles, so the TC
// code is correct on every device; the host picks TC only where the instruction exists.

#define BV_FULL 0xffffffffu

#include "edge_batches.cuh"

// D = A(8x128 b1, row) x B(128x8 b1, col) with AND + popcount; lane L: a = word L&3 of row
// L>>2, b = word L&3 of column L>>2; d0, d1 = D[L>>2][2(L&3)], D[L>>2][2(L&3)+1].
__device__ __forceinline__ void bv_mma(unsigned a, unsigned b, int& d0, int& d1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile(
      "mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.and.popc {%0, %1}, {%2}, {%3}, "
      "{%4, %5};\n"
      : "=r"(d0), "=r"(d1)
      : "r"(a), "r"(b), "r"(0), "r"(0));
#else
  const int lane = threadIdx.x & 31;
  const int r = lane >> 2, c0 = 2 * (lane & 3);
  d0 = d1 = 0;
#pragma unroll
  for (int w = 0; w < 4; ++w) {
    const unsigned aw = __shfl_sync(BV_FULL, a, 4 * r + w);
    const unsigned b0 = __shfl_sync(BV_FULL, b, 4 * c0 + w);
    const unsigned b1 = __shfl_sync(BV_FULL, b, 4 * (c0 + 1) + w);
    d0 += __popc(aw & b0);
    d1 += __popc(aw & b1);
  }
#endif
}

// The four slice bytes of this lane's slices 4*lane .. 4*lane+3 (byte t = slice 4*lane+t),
// gathered from the lanes' mask words by two shuffles: they sit in A-row r = lane>>2 at
// bytes 2c, 2c+1 (word 4r + c/2) and 8+2c, 9+2c (word 4r + 2 + c/2), c = lane&3.
__device__ __forceinline__ unsigned bv_lane_bytes(unsigned a, int lane) {
  const int r = lane >> 2, c = lane & 3, sh = 16 * (c & 1);
  const unsigned lo = __shfl_sync(BV_FULL, a, 4 * r + (c >> 1)) >> sh;
  const unsigned hi = __shfl_sync(BV_FULL, a, 4 * r + 2 + (c >> 1)) >> sh;
  return (lo & 0xffffu) | (hi << 16);
}

// Warp-synchronous: bit t of the result says that slice 4*lane + t of a VSS meets the
// operand byte F; a = the lane's mask word (word `lane` of the VSS, 0 beyond it).
template <bool TC>
__device__ __forceinline__ unsigned bv_hits(unsigned a, unsigned F, int lane) {
  if (TC) {
    const int j = lane >> 2, c = lane & 3;
    const unsigned fw = F << (8 * (j & 3));
    int d0, d1, d2, d3;
    bv_mma(a, c == (j >> 2) ? fw : 0u, d0, d1);
    bv_mma(a, c == 2 + (j >> 2) ? fw : 0u, d2, d3);
    return (unsigned)(d0 != 0) | ((unsigned)(d1 != 0) << 1) | ((unsigned)(d2 != 0) << 2) |
           ((unsigned)(d3 != 0) << 3);
  } else {
    const unsigned x = bv_lane_bytes(a, lane) & (F * 0x01010101u);
    return (unsigned)((x & 0xffu) != 0) | ((unsigned)((x & 0xff00u) != 0) << 1) |
           ((unsigned)((x & 0xff0000u) != 0) << 2) | ((unsigned)((x & 0xff000000u) != 0) << 3);
  }
}

__device__ __forceinline__ int bv_row(const int4& r, int t) {
  return t == 0 ? r.x : t == 1 ? r.y : t == 2 ? r.z : r.w;
}

// A queue entry: one active VSS, everything its warp needs in one 16-byte load:
// x = its first slot, y = block << 16 | slots << 8 | F (slots <= 128, F the operand byte).
#define BV_U 2  // VSSs a warp works on at once (their loads overlap)

// Warp-synchronous: the active VSSs of the queue (warp-strided), BV_U at a time: the queue
// entries, then the mask words and row ids of all BV_U VSSs are loaded together, then the
// slice tests, then the lazy updates. A hit row's bit is set in the bitmap seen: a plain
// read first (cached, possibly stale), an atomicOr only where the bit looked clear, so a
// row hit by many slices costs about one atomic. With PAR the lane whose atomicOr set the bit
// stores the row's candidate parent, 8b + (lowest operand bit its slice meets): an
// in-neighbour in the operand.
template <bool TC, bool PAR>
__device__ __forceinline__ void bv_process(const int* __restrict__ row_ids,
                                           const unsigned char* __restrict__ masks,
                                           const longlong2* vq, long long nq, unsigned int* seen,
                                           int* cand, long long gwarp, long long nwarps,
                                           int lane) {
  for (long long i0 = gwarp * BV_U; i0 < nq; i0 += nwarps * BV_U) {
    long long s[BV_U], y[BV_U];
#pragma unroll
    for (int u = 0; u < BV_U; ++u) {
      const longlong2 q = i0 + u < nq ? __ldcg(&vq[i0 + u]) : make_longlong2(0, 0);
      s[u] = q.x;
      y[u] = q.y;
    }
    unsigned a[BV_U];
    int4 r[BV_U];
#pragma unroll
    for (int u = 0; u < BV_U; ++u) {
      const bool in = 4 * lane < (int)((y[u] >> 8) & 0xff);
      const long long slot = s[u] + 4LL * lane;
      a[u] = in ? __ldg(reinterpret_cast<const unsigned*>(masks + slot)) : 0u;
      r[u] = in ? __ldg(reinterpret_cast<const int4*>(row_ids + slot))
                : make_int4(-1, -1, -1, -1);
    }
    unsigned hits[BV_U], words[BV_U][4];
#pragma unroll
    for (int u = 0; u < BV_U; ++u) hits[u] = bv_hits<TC>(a[u], (unsigned)(y[u] & 0xff), lane);
    // every seen word first: an atomic may alias a later read, so reads issued after the
    // atomics would each wait for the one before (a dependent chain per hit)
#pragma unroll
    for (int u = 0; u < BV_U; ++u) {
#pragma unroll
      for (int t = 0; t < 4; ++t) {
        words[u][t] = (hits[u] >> t) & 1u ? seen[bv_row(r[u], t) >> 5] : ~0u;
      }
    }
#pragma unroll
    for (int u = 0; u < BV_U; ++u) {
      const unsigned F = (unsigned)(y[u] & 0xff);
      const unsigned bytes = PAR ? bv_lane_bytes(a[u], lane) : 0u;
#pragma unroll
      for (int t = 0; t < 4; ++t) {
        const int row = bv_row(r[u], t);
        const unsigned bit = 1u << (row & 31);
        if (words[u][t] & bit) continue;  // not hit, or already set (a stale read only
                                          // costs a redundant atomic)
        const unsigned old = atomicOr(&seen[row >> 5], bit);
        if (PAR && !(old & bit)) {
          cand[row] = (int)(8 * (y[u] >> 16)) + __ffs((bytes >> (8 * t)) & F) - 1;
        }
      }
    }
  }
}

// Warp-synchronous: append the VSSs of the lanes' blocks (cnt VSSs from first, operand
// byte F, block b) to the queue vq: one atomicAdd per warp, then the warp writes the
// entries together, each lane finding its block by a 5-step binary search over the lanes'
// prefix sums (so a hub's hundreds of VSSs do not serialise one lane).
__device__ __forceinline__ void bv_enqueue(const long long* __restrict__ vss_ptr,
                                           long long first, int cnt, long long b, unsigned F,
                                           longlong2* vq, unsigned long long* vq_len,
                                           int lane) {
  const int incl = warp_inclusive_scan(cnt, lane);
  const int total = __shfl_sync(BV_FULL, incl, 31);
  if (total == 0) return;
  unsigned long long at = 0;
  if (lane == 31) at = atomicAdd(vq_len, (unsigned long long)total);
  at = __shfl_sync(BV_FULL, at, 31);
  for (int base = 0; base < total; base += 32) {
    const int idx = base + lane;
    const int owner = warp_owner(incl, idx);
    const long long v = __shfl_sync(BV_FULL, first, owner) + idx -
                        (__shfl_sync(BV_FULL, incl, owner) - __shfl_sync(BV_FULL, cnt, owner));
    const long long bo = __shfl_sync(BV_FULL, b, owner);
    const unsigned Fo = __shfl_sync(BV_FULL, F, owner);
    if (idx < total) {
      const long long s = vss_ptr[v];
      const long long slots = vss_ptr[v + 1] - s;
      vq[at + idx] = make_longlong2(s, (bo << 16) | (slots << 8) | (long long)Fo);
    }
  }
}
