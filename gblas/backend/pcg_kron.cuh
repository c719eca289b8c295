// NumPy's PCG64 (XSL-RR 128/64) on the device, jumped to any output, and the Graph500
// Kronecker edge drawn from it as gblas.generators.kronecker_chunk draws it. Included by
// gblas/distributed/kron_device.cu and benchmarks/bfs_gpu.py's generators (inline_includes).
//
// A stream's state s steps s -> a s + inc. A table row j (4 words: A hi, lo, G hi, lo) holds
// A = a^(2^j) and G = 1 + a + ... + a^(2^j - 1), so that 2^j steps are s -> A s + inc G for
// any increment (gblas/distributed/kron_device.py: jump_table). A draw is the output of the
// state after its step: output t of a stream (t from 0) is pcg_output(pcg_jump(s, t + 1)).

struct u128 {
  unsigned long long hi, lo;
};

__device__ __forceinline__ u128 mul128(u128 a, u128 b) {  // a * b mod 2^128
  u128 r;
  r.lo = a.lo * b.lo;
  r.hi = __umul64hi(a.lo, b.lo) + a.lo * b.hi + a.hi * b.lo;
  return r;
}

__device__ __forceinline__ u128 add128(u128 a, u128 b) {
  u128 r;
  r.lo = a.lo + b.lo;
  r.hi = a.hi + b.hi + (r.lo < a.lo);
  return r;
}

__device__ __forceinline__ u128 pcg_jump(u128 s, unsigned long long delta, u128 inc,
                                         const unsigned long long* __restrict__ tab) {
  for (int j = 0; delta; ++j, delta >>= 1) {
    if (delta & 1ULL) {
      const u128 a{tab[4 * j], tab[4 * j + 1]}, g{tab[4 * j + 2], tab[4 * j + 3]};
      s = add128(mul128(a, s), mul128(inc, g));
    }
  }
  return s;
}

__device__ __forceinline__ unsigned long long pcg_output(u128 s) {  // XSL-RR
  const unsigned long long x = s.hi ^ s.lo;
  const unsigned rot = (unsigned)(s.hi >> 58);
  return (x >> rot) | (x << ((64u - rot) & 63u));
}

// Edge e of a chunk of kc edges whose stream is (s, inc) before the chunk's first draw:
// level pair r is the chunk's output r * kc + e (kronecker_chunk draws a level pair for all
// kc edges at once), one 32-bit uniform a level against the level's thresholds thr[3 lev..]
// (quadrant a: u < t0, b: < t1, c: < t2, else d). The ids before the permutation.
__device__ __forceinline__ void kron_edge(u128 s, u128 inc, long long e, long long kc,
                                          int scale, const unsigned int* __restrict__ thr,
                                          const unsigned long long* __restrict__ tab,
                                          unsigned int& ik, unsigned int& jk) {
  s = pcg_jump(s, (unsigned long long)e + 1, inc, tab);
  unsigned long long raw = 0;
  ik = jk = 0;
  for (int lev = 0; lev < scale; ++lev) {
    unsigned int u;
    if ((lev & 1) == 0) {
      if (lev) s = pcg_jump(s, (unsigned long long)kc, inc, tab);
      raw = pcg_output(s);
      u = (unsigned int)(raw & 0xffffffffULL);
    } else {
      u = (unsigned int)(raw >> 32);
    }
    const unsigned int t0 = thr[3 * lev], t1 = thr[3 * lev + 1], t2 = thr[3 * lev + 2];
    const unsigned int ib = u >= t1;
    const unsigned int jb = (unsigned int)(u >= t0) ^ ib ^ (unsigned int)(u >= t2);
    ik = (ik << 1) | ib;
    jk = (jk << 1) | jb;
  }
}
