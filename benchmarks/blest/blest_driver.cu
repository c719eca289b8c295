// gblas's driver for Blest's BFS (github.com/delbek/blest), used by benchmarks/blest.py.
//
// Built against a Blest checkout (never copied here): it includes Blest's headers and links
// its Gorder sources, and calls Blest's own code for every step that Blest's Benchmark::run
// takes: the CSC (here read from our binary file instead of a Matrix Market text), the
// reordering (CSC::reorder: Jaccard-with-windows for social graphs, RCM otherwise), the BVSS
// build (slice size 8, 4 masks) and BVSSBFSKernel::run per source, whose time is Blest's own
// (host wall clock around the cooperative launch and cudaDeviceSynchronize).
//
//   blest_driver --graph G.bin [--jaccard 0|1] [--window W] [--ordering-cache F]
//                [--levels F]  < sources
//
// Graph file (little-endian): "GBBLEST1", u64 n, u64 nnz, u64 flags (bit 0: symmetric),
// u32 indptr[n + 1], u32 indices[nnz]: CSR of A with A[i, j] = edge i -> j, column indices
// sorted and unique per row, no self-loops. Blest's CSC column j holds the out-neighbours of
// j (its Matrix Market reader reads "i j" as edge i -> j), so the CSR arrays are that CSC.
//
// Protocol: Blest's own messages (std::cout) go to stderr. stdout carries one
// "ready key=value ..." line after the preprocessing, then, per source id read from stdin
// (whitespace-separated, original vertex ids), one "bfs key=value ..." line; the levels, in
// original vertex ids, go to --levels as int32 (-1: unreached), overwritten per source.

#include "BVSSBFSKernel.cuh"  // Blest: Common.cuh, CSC.cuh, BVSS.cuh, the BFS kernels

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

constexpr char kMagic[8] = {'G', 'B', 'B', 'L', 'E', 'S', 'T', '1'};
constexpr unsigned kSliceSize = 8;  // Benchmark::run's sliceSize
constexpr unsigned kNoMasks = 32 / kSliceSize;

struct Options {
    std::string graph;
    std::string orderingCache;
    std::string levels;
    bool jaccard = true;       // README: "We recommend this to be set to 1"
    unsigned window = 65536;   // README: "at least 65536"
};

[[noreturn]] void usage(const std::string& why) {
    throw std::invalid_argument(why + "\nusage: blest_driver --graph G.bin [--jaccard 0|1] "
                                "[--window W] [--ordering-cache F] [--levels F] < sources");
}

unsigned long long parseUnsigned(const std::string& s, const char* what) {
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) {
        usage(std::string("invalid ") + what + ": '" + s + "' (expected a non-negative integer)");
    }
    return std::stoull(s);
}

Options parseArgs(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (i + 1 >= argc) usage("missing value for " + a);
        const std::string v = argv[++i];
        if (a == "--graph") o.graph = v;
        else if (a == "--ordering-cache") o.orderingCache = v;
        else if (a == "--levels") o.levels = v;
        else if (a == "--jaccard") {
            if (v != "0" && v != "1") usage("--jaccard takes 0 or 1, got '" + v + "'");
            o.jaccard = v == "1";
        } else if (a == "--window") {
            const unsigned long long w = parseUnsigned(v, "--window");
            if (w == 0 || w > 0x7fffffffULL || w % kSliceSize != 0) {
                usage("--window must be a positive multiple of 8 below 2^31, got " + v);
            }
            o.window = static_cast<unsigned>(w);
        } else usage("unknown option " + a);
    }
    if (o.graph.empty()) usage("--graph is required");
    return o;
}

void readExact(std::FILE* f, void* dst, size_t bytes, const std::string& path, const char* what) {
    if (bytes && std::fread(dst, 1, bytes, f) != bytes) {
        throw std::runtime_error(path + ": truncated file while reading " + what);
    }
}

// Our graph file into a Blest CSC (arrays allocated with new[]: ~CSC deletes them).
CSC* readGraph(const std::string& path, bool& symmetric) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) throw std::runtime_error("cannot open graph file " + path);
    char magic[8];
    uint64_t head[3];
    readExact(f, magic, sizeof magic, path, "the magic");
    if (std::memcmp(magic, kMagic, sizeof magic) != 0) {
        std::fclose(f);
        throw std::runtime_error(path + " is not a gblas Blest graph (bad magic)");
    }
    readExact(f, head, sizeof head, path, "the header");
    const uint64_t n = head[0], nnz = head[1];
    symmetric = head[2] & 1;
    if (n == 0 || n >= UNSIGNED_MAX || nnz >= UNSIGNED_MAX) {
        std::fclose(f);
        throw std::runtime_error(path + ": n and nnz must fit Blest's 32-bit ids (n >= 1)");
    }
    CSC* csc = new CSC;
    csc->getN() = static_cast<unsigned>(n);
    csc->getNNZ() = static_cast<unsigned>(nnz);
    csc->getColPtrs() = new unsigned[n + 1];
    csc->getRows() = new unsigned[nnz ? nnz : 1];
    readExact(f, csc->getColPtrs(), sizeof(unsigned) * (n + 1), path, "indptr");
    readExact(f, csc->getRows(), sizeof(unsigned) * nnz, path, "indices");
    const bool trailing = std::fgetc(f) != EOF;
    std::fclose(f);
    if (trailing) throw std::runtime_error(path + ": bytes after the indices");
    const unsigned* ptr = csc->getColPtrs();
    const unsigned* idx = csc->getRows();
    if (ptr[0] != 0 || ptr[n] != nnz) throw std::runtime_error(path + ": indptr[0] != 0 or indptr[n] != nnz");
    for (uint64_t j = 0; j < n; ++j) {
        if (ptr[j] > ptr[j + 1]) throw std::runtime_error(path + ": indptr decreases");
        for (unsigned p = ptr[j]; p < ptr[j + 1]; ++p) {
            if (idx[p] >= n || idx[p] == j || (p > ptr[j] && idx[p] <= idx[p - 1])) {
                throw std::runtime_error(path + ": row " + std::to_string(j) + " has an index out "
                                         "of range, a self-loop, or unsorted/duplicate indices");
            }
        }
    }
    return csc;
}

// What Blest's CSC(filename, ...) constructor decides after reading a graph: social if
// the in- or out-degrees look heavy-tailed (Blest's isSocialDegreeDistribution) or the
// average degree exceeds SOCIAL_THRESHOLD.
bool classifySocial(CSC* csc) {
    const unsigned n = csc->getN();
    const unsigned* ptr = csc->getColPtrs();
    const unsigned* idx = csc->getRows();
    std::vector<unsigned> outDegree(n), inDegree(n, 0);
    for (unsigned j = 0; j < n; ++j) {
        outDegree[j] = ptr[j + 1] - ptr[j];
        for (unsigned p = ptr[j]; p < ptr[j + 1]; ++p) ++inDegree[idx[p]];
    }
    return isSocialDegreeDistribution(inDegree) || isSocialDegreeDistribution(outDegree) ||
           csc->averageDegree() > SOCIAL_THRESHOLD;
}

bool fileHasBytes(const std::string& path, uintmax_t bytes) {
    std::error_code ec;
    return !path.empty() && std::filesystem::is_regular_file(path, ec) &&
           std::filesystem::file_size(path, ec) == bytes;
}

void writeLevels(const std::string& path, const std::vector<int32_t>& levels) {
    const std::string tmp = path + ".tmp";
    std::FILE* f = std::fopen(tmp.c_str(), "wb");
    if (!f) throw std::runtime_error("cannot write levels to " + tmp);
    const size_t wrote = std::fwrite(levels.data(), sizeof(int32_t), levels.size(), f);
    if (std::fclose(f) != 0 || wrote != levels.size()) {
        throw std::runtime_error("short write of levels to " + tmp);
    }
    std::filesystem::rename(tmp, path);
}

int run(const Options& o) {
    // Blest prints progress and statistics on std::cout: keep stdout for the protocol
    std::cout.rdbuf(std::cerr.rdbuf());

    double t0 = omp_get_wtime();
    bool symmetric = false;
    CSC* csc = readGraph(o.graph, symmetric);
    const double readS = omp_get_wtime() - t0;
    const unsigned n = csc->getN();

    // as Blest's CSC constructor: rows sorted per column (already sorted here), social flag
    t0 = omp_get_wtime();
    csc->isSocialNetwork() = classifySocial(csc);
    const double cscS = omp_get_wtime() - t0;

    // Benchmark::main / run: the global switches, then the reordering (cached like Blest's
    // _ordering.bin, whose reuse Benchmark::run also does by default)
    JACKARD_ON = o.jaccard;
    WINDOW_SIZE = o.window;
    FULL_PADDING = !csc->isSocialNetwork();
    const char* ordering = csc->isSocialNetwork() ? (o.jaccard ? "jaccard-windows" : "natural")
                                                  : "rcm";
    t0 = omp_get_wtime();
    unsigned* inversePermutation = nullptr;  // inversePermutation[old id] = Blest's id
    const bool cached = fileHasBytes(o.orderingCache, sizeof(unsigned) * uintmax_t(n));
    if (cached) {
        inversePermutation = csc->orderFromBinary(o.orderingCache);
    } else {
        inversePermutation = csc->reorder(kSliceSize);
        if (!o.orderingCache.empty()) csc->saveOrderingToBinary(o.orderingCache, inversePermutation);
    }
    const double reorderS = omp_get_wtime() - t0;

    t0 = omp_get_wtime();
    std::ofstream statsSink;  // BVSS logs a CSV of statistics to a stream: left unopened
    BVSS* bvss = new BVSS(kSliceSize, kNoMasks, statsSink);
    bvss->constructFromCSCMatrix(csc);
    const double bvssS = omp_get_wtime() - t0;

    // the kernel BVSSBFSKernel::hostCode will pick, for the report only
    const bool lazy = bvss->getUpdateDivergence() > LAZY_KERNEL_THRESHOLD;
    const std::string kernelName = std::string("BVSSBFS8EnhancedSliceSize8NoMasks4") +
        (lazy ? (FULL_PADDING ? "LazyFullPad" : "LazySwitching") : (FULL_PADDING ? "FullPad" : ""));

    int device = 0;
    cudaDeviceProp prop{};
    gpuErrchk(cudaGetDevice(&device));
    gpuErrchk(cudaGetDeviceProperties(&prop, device));
    if (prop.major < 8) {
        throw std::runtime_error("Blest needs compute capability >= 8.0 (1-bit MMA); device has " +
                                 std::to_string(prop.major) + "." + std::to_string(prop.minor));
    }
    gpuErrchk(cudaFree(nullptr));  // the context now, not inside the first timed call
    std::string deviceName = prop.name;
    for (char& c : deviceName) if (c == ' ') c = '_';

    std::printf("ready n=%u nnz=%u symmetric=%d social=%d full_padding=%d ordering=%s "
                "ordering_cached=%d jaccard=%d window=%u slices=%llu vsets=%u "
                "update_divergence=%.6g kernel=%s read_s=%.6f csc_s=%.6f reorder_s=%.6f "
                "bvss_s=%.6f device=%s cc=%d%d\n",
                n, csc->getNNZ(), int(symmetric), int(csc->isSocialNetwork()), int(FULL_PADDING),
                ordering, int(cached), int(o.jaccard), o.window,
                static_cast<unsigned long long>(bvss->getNoSlices()), bvss->getNoVirtualSliceSets(),
                bvss->getUpdateDivergence(), kernelName.c_str(), readS, cscS, reorderS, bvssS,
                deviceName.c_str(), prop.major, prop.minor);
    std::fflush(stdout);

    BVSSBFSKernel kernel(bvss);
    std::vector<int32_t> levels(n);
    std::string token;
    while (std::cin >> token) {
        const unsigned long long source = parseUnsigned(token, "source");
        if (source >= n) {
            throw std::out_of_range("source " + token + " is outside 0.." + std::to_string(n - 1));
        }
        const double c0 = omp_get_wtime();
        BFSResult r = kernel.run(inversePermutation[source]);  // Blest's ids in, Blest's timer
        const double callS = omp_get_wtime() - c0;
        std::vector<unsigned long long> hist;
        unsigned long long visited = 0;
        for (unsigned old = 0; old < n; ++old) {
            const unsigned l = r.levels[inversePermutation[old]];
            levels[old] = l == UNSIGNED_MAX ? -1 : static_cast<int32_t>(l);
            if (l != UNSIGNED_MAX) {
                if (l >= hist.size()) hist.resize(size_t(l) + 1, 0);
                ++hist[l];
                ++visited;
            }
        }
        delete[] r.levels;
        if (!o.levels.empty()) writeLevels(o.levels, levels);
        std::ostringstream h;
        for (size_t k = 0; k < hist.size(); ++k) h << (k ? "," : "") << hist[k];
        std::printf("bfs source=%llu ms=%.6f call_ms=%.6f levels=%u visited=%llu "
                    "blest_visited=%u hist=%s\n", source, r.time * 1e3, callS * 1e3,
                    r.totalLevels, visited, r.noVisited, h.str().c_str());
        std::fflush(stdout);
    }

    delete bvss;  // also frees its transposed CSR
    delete[] inversePermutation;
    delete csc;
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(parseArgs(argc, argv));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "blest_driver: error: %s\n", e.what());
        return 2;
    }
}
