// CUDA C++ references for `cargo xtask bench-gpu`: what a CUDA C++ author would write with
// libcu++ and cooperative_groups, for every benchmark case. Built on the GPU machine into a
// shared library (`nvcc -O3 -arch=sm_90 -std=c++17 -shared -Xcompiler -fPIC`) that the Rust
// runner loads, so both sides launch alternately on the same stream of the same context.
//
// ABI: ref_case_count(), ref_case_name(i), ref_run(name, &ms, &units, err, errlen) runs ONE timed
// launch (CUDA events around the kernel) and checks its result: 0 ok, 1 wrong result, -1 CUDA
// error, 2 unknown case. Atomics/message/fence kernels have the same extern "C" names as the
// Rust kernels in bench/kernels so their SASS can be compared.
#include <cooperative_groups.h>
#include <cuda/atomic>
#include <cuda/barrier>
#include <cuda/latch>
#include <cuda/semaphore>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

// `__shared__ cuda::barrier` is initialized with init() by one thread, as libcu++ documents.
#pragma nv_diag_suppress static_var_with_dynamic_init

namespace cg = cooperative_groups;
using cuda::thread_scope_block;
using cuda::thread_scope_device;
using cuda::thread_scope_system;
using cuda::std::memory_order_acq_rel;
using cuda::std::memory_order_acquire;
using cuda::std::memory_order_relaxed;
using cuda::std::memory_order_release;
using cuda::std::memory_order_seq_cst;

static char* g_err;
static int g_errlen;

#define CK(x)                                                                                  \
    do {                                                                                       \
        cudaError_t e_ = (x);                                                                  \
        if (e_ != cudaSuccess) {                                                               \
            snprintf(g_err, g_errlen, "%s: %s", #x, cudaGetErrorString(e_));                   \
            return -1;                                                                         \
        }                                                                                      \
    } while (0)
#define FAIL(...)                                                                              \
    do {                                                                                       \
        snprintf(g_err, g_errlen, __VA_ARGS__);                                                \
        return 1;                                                                              \
    } while (0)

// Times one launch expression with events on the legacy default stream.
#define TIMED(ms, launch)                                                                      \
    do {                                                                                       \
        cudaEvent_t a_, b_;                                                                    \
        CK(cudaEventCreate(&a_));                                                              \
        CK(cudaEventCreate(&b_));                                                              \
        CK(cudaEventRecord(a_, 0));                                                            \
        launch;                                                                                \
        CK(cudaGetLastError());                                                                \
        CK(cudaEventRecord(b_, 0));                                                            \
        CK(cudaEventSynchronize(b_));                                                          \
        CK(cudaEventElapsedTime(ms, a_, b_));                                                  \
        cudaEventDestroy(a_);                                                                  \
        cudaEventDestroy(b_);                                                                  \
    } while (0)


// ---------------------------------------------------------------------------------------------
// 1. Atomics. Shape rule shared with the Rust side (bench/src/cases.rs): the contended
// compare-exchange loop runs 132 x 64 threads x 4 iterations, everything else 264 x 256 x 256.
// "contended": one word per block at cta scope, one word for the grid at gpu scope;
// "distinct": one word per thread.
enum Op { FETCH_ADD, CAS_LOOP, EXCHANGE };

template <class T, cuda::thread_scope S, Op OP, bool CONTENDED, bool ACQ_REL>
__device__ void atomic_body(T* words, T* out, int iters) {
    unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    T* w = CONTENDED ? (S == thread_scope_block ? words + blockIdx.x * 32 : words) : words + tid;
    cuda::atomic_ref<T, S> a(*w);
    constexpr auto mo = ACQ_REL ? memory_order_acq_rel : memory_order_relaxed;
    T sum = 0;
    for (int i = 0; i < iters; i++) {
        if (OP == FETCH_ADD) {
            sum += a.fetch_add(T(1), mo);
        } else if (OP == CAS_LOOP) {
            T v = a.load(memory_order_relaxed);
            while (!a.compare_exchange_weak(v, v + T(1), mo, memory_order_relaxed)) {
            }
            sum += v;
        } else {
            sum += a.exchange(T(tid + i), mo);
        }
    }
    out[tid] = sum;
}

#define ATOMIC_KERNEL(NAME, T, S, OP, CONT, ACQREL)                                            \
    extern "C" __global__ void NAME(T* w, T* out, int iters) {                                 \
        atomic_body<T, S, OP, CONT, ACQREL>(w, out, iters);                                    \
    }
#define ATOMIC_TYPES(OPN, OP, PL, CONT, SC, S, ON, ACQREL)                                      \
    ATOMIC_KERNEL(atomic__##OPN##__##PL##__##SC##__##ON##__u32, unsigned, S, OP, CONT, ACQREL) \
    ATOMIC_KERNEL(atomic__##OPN##__##PL##__##SC##__##ON##__u64, unsigned long long, S, OP, CONT, ACQREL)
#define ATOMIC_ORDERS(OPN, OP, PL, CONT, SC, S)                                                 \
    ATOMIC_TYPES(OPN, OP, PL, CONT, SC, S, relaxed, false)                                     \
    ATOMIC_TYPES(OPN, OP, PL, CONT, SC, S, acq_rel, true)
#define ATOMIC_SCOPES(OPN, OP, PL, CONT)                                                        \
    ATOMIC_ORDERS(OPN, OP, PL, CONT, cta, thread_scope_block)                                  \
    ATOMIC_ORDERS(OPN, OP, PL, CONT, gpu, thread_scope_device)
#define ATOMIC_PLACEMENTS(OPN, OP)                                                              \
    ATOMIC_SCOPES(OPN, OP, contended, true)                                                    \
    ATOMIC_SCOPES(OPN, OP, distinct, false)
ATOMIC_PLACEMENTS(fetch_add, FETCH_ADD)
ATOMIC_PLACEMENTS(cas_loop, CAS_LOOP)
ATOMIC_PLACEMENTS(exchange, EXCHANGE)
// 8- and 16-bit fetch_add: libcu++ emulates them with a 32-bit CAS loop on the word that holds
// them, as the Rust side does.
ATOMIC_KERNEL(atomic__fetch_add__contended__gpu__relaxed__u8, unsigned char, thread_scope_device,
              FETCH_ADD, true, false)
ATOMIC_KERNEL(atomic__fetch_add__contended__gpu__relaxed__u16, unsigned short, thread_scope_device,
              FETCH_ADD, true, false)

// The u64 CAS-loop row's Rust shape variants (bench/NOTES.md) measure against the same C++ loop.
ATOMIC_KERNEL(atomic__cas_loop_global__contended__cta__relaxed__u64, unsigned long long,
              thread_scope_block, CAS_LOOP, true, false)
ATOMIC_KERNEL(atomic__cas_loop_not_unrolled__contended__cta__relaxed__u64, unsigned long long,
              thread_scope_block, CAS_LOOP, true, false)

// atomic/cas_loop/contended/gpu/relaxed/u128. libcu++ 3.0 (CUDA 13.0) does not compile
// cuda::atomic_ref<unsigned __int128>::compare_exchange_* for sm_90: its generated b128 CAS
// (cuda/std/__atomic/functions/cuda_ptx_generated.h) reads `__dst.x` of a struct whose members are
// `__x`. This is the loop atomic_body would run, on the instructions libcu++ emits for 128 bits
// (ld.relaxed.gpu.b128, atom.relaxed.gpu.cas.b128).
typedef unsigned __int128 u128;
__device__ u128 load128(const u128* p) {
    unsigned long long lo, hi;
    asm volatile("{ .reg .b128 v; ld.relaxed.gpu.b128 v, [%2]; mov.b128 {%0, %1}, v; }"
                 : "=l"(lo), "=l"(hi) : "l"(p) : "memory");
    return (u128)hi << 64 | lo;
}
__device__ u128 cas128(u128* p, u128 cmp, u128 val) {
    unsigned long long lo, hi;
    asm volatile("{ .reg .b128 c, v, r; mov.b128 c, {%2, %3}; mov.b128 v, {%4, %5};"
                 " atom.relaxed.gpu.cas.b128 r, [%6], c, v; mov.b128 {%0, %1}, r; }"
                 : "=l"(lo), "=l"(hi)
                 : "l"((unsigned long long)cmp), "l"((unsigned long long)(cmp >> 64)),
                   "l"((unsigned long long)val), "l"((unsigned long long)(val >> 64)), "l"(p)
                 : "memory");
    return (u128)hi << 64 | lo;
}
extern "C" __global__ void atomic__cas_loop__contended__gpu__relaxed__u128(u128* w, u128* out, int iters) {
    unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    u128 sum = 0;
    for (int i = 0; i < iters; i++) {
        u128 v = load128(w), seen;
        while ((seen = cas128(w, v, v + 1)) != v) v = seen;
        sum += v;
    }
    out[tid] = sum;
}

template <bool CONTENDED>
__device__ void float_body(float* words, float* out, int iters) {
    unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    cuda::atomic_ref<float, thread_scope_device> a(CONTENDED ? words[0] : words[tid]);
    float sum = 0;
    for (int i = 0; i < iters; i++) sum += a.fetch_add(1.0f, memory_order_relaxed);
    out[tid] = sum;
}
extern "C" __global__ void atomic__float_add__contended__gpu__relaxed__f32(float* w, float* o, int n) {
    float_body<true>(w, o, n);
}
extern "C" __global__ void atomic__float_add__distinct__gpu__relaxed__f32(float* w, float* o, int n) {
    float_body<false>(w, o, n);
}

// atomic/fetch_max/contended/gpu/relaxed/{f32,f64}: every thread offers i * n + tid to the grid's
// one word (libcu++'s floating fetch_max, a compare-exchange loop).
template <class T>
__device__ void max_body(T* words, T* out, int iters) {
    unsigned tid = blockIdx.x * blockDim.x + threadIdx.x, n = gridDim.x * blockDim.x;
    cuda::atomic_ref<T, thread_scope_device> a(words[0]);
    T sum = 0;
    for (int i = 0; i < iters; i++) sum += a.fetch_max(T((unsigned long long)i * n + tid), memory_order_relaxed);
    out[tid] = sum;
}
extern "C" __global__ void atomic__fetch_max__contended__gpu__relaxed__f32(float* w, float* o, int n) {
    max_body<float>(w, o, n);
}
extern "C" __global__ void atomic__fetch_max__contended__gpu__relaxed__f64(double* w, double* o, int n) {
    max_body<double>(w, o, n);
}

struct AtomicCase {
    std::string op, placement, scope, order, type;
};

static bool parse_atomic(const std::string& name, AtomicCase& c) {
    // atomic/<op>/<placement>/<scope>/<order>/<type>
    std::vector<std::string> p;
    size_t s = 0, e;
    while ((e = name.find('/', s)) != std::string::npos) {
        p.push_back(name.substr(s, e - s));
        s = e + 1;
    }
    p.push_back(name.substr(s));
    if (p.size() != 6 || p[0] != "atomic") return false;
    c = {p[1], p[2], p[3], p[4], p[5]};
    return true;
}

// 0 + 1 + ... + (n - 1), modulo 2^64.
static unsigned long long triangle(unsigned long long n) {
    return n % 2 == 0 ? (n / 2) * (n - 1) : n * ((n - 1) / 2);
}

// The atomics cases' check, the same as bench/src/rust_cases.rs `check_atomic`. Threads share a
// word in groups: a block's (contended, cta), the grid's (contended, gpu), or a thread has its
// own (distinct). Each thread's out[] is the wrapping sum of the values its RMWs returned.
// - fetch_add, CAS loop: the word ends at the group's op count N, and the returned values are
//   0 .. N-1 once each, so they sum to N(N-1)/2.
// - float add: the word ends at N (returned values not summed: rounding).
// - exchange: every value swapped in (thread t's i-th is t + i) is returned by a later swap or
//   is the final word, and the initial 0 is returned once: returned values + final word = the
//   stored values' sum. A thread with a word of its own also leaves t + iters - 1 there.
// Sums are modulo 2^(bits of T), as the kernels add.
template <class T>
static int check_atomic(const AtomicCase& c, unsigned blocks, unsigned threads, int iters,
                        const std::vector<T>& words, const std::vector<T>& out) {
    bool contended = c.placement == "contended", cta = c.scope == "cta";
    unsigned n = blocks * threads;
    unsigned groups = contended ? (cta ? blocks : 1) : n;
    for (unsigned g = 0; g < groups; g++) {
        unsigned w = contended ? (cta ? g * 32 : 0) : g;
        unsigned first = contended ? (cta ? g * threads : 0) : g;
        unsigned count = contended ? (cta ? threads : n) : 1;
        unsigned long long ops = (unsigned long long)count * iters;
        if (c.op == "float_add") {
            if (words[w] != T((double)ops)) FAIL("word %u = %g, expected %llu", w, (double)words[w], ops);
            continue;
        }
        if (c.op == "fetch_max") {
            // The largest offer: iters * n - 1.
            double want = (double)((unsigned long long)iters * n - 1);
            if (words[w] != T(want)) FAIL("word %u = %g, expected %g", w, (double)words[w], want);
            continue;
        }
        if constexpr (std::is_integral<T>::value || sizeof(T) == 16) {
            T returned = 0;
            for (unsigned t = first; t < first + count; t++) returned += out[t];
            if (c.op == "exchange") {
                T stored = 0;
                for (unsigned t = first; t < first + count; t++)
                    stored += T((unsigned long long)t * iters + triangle(iters));
                if (T(returned + words[w]) != stored)
                    FAIL("word %u = %llu, returned values of threads %u.. (%u) sum to %llu, stored %llu",
                         w, (unsigned long long)words[w], first, count, (unsigned long long)returned,
                         (unsigned long long)stored);
                if (!contended && words[w] != T(first + iters - 1))
                    FAIL("word %u = %llu, expected its last store %u", w, (unsigned long long)words[w],
                         first + iters - 1);
            } else if (words[w] != T(ops) || returned != T(triangle(ops))) {
                FAIL("word %u = %llu (expected %llu), returned values of threads %u.. (%u) sum to %llu",
                     w, (unsigned long long)words[w], ops, first, count, (unsigned long long)returned);
            }
        }
    }
    return 0;
}

template <class T>
static int run_atomic_typed(const AtomicCase& c, const void* kernel, float* ms, double* units) {
    bool contended = c.placement == "contended";
    // CAS loops (and the 8/16-bit fetch_add, a CAS loop inside) on one contended word: small.
    bool cas = c.op.rfind("cas_loop", 0) == 0 || c.type == "u8" || c.type == "u16";
    unsigned blocks = (cas && contended) ? 132 : 264, threads = (cas && contended) ? 64 : 256;
    // f32 counts exactly only to 2^24: the contended float sum keeps 264 x 256 x 32 below it.
    bool float_contended = (c.op == "float_add" || c.op == "fetch_max") && contended;
    int iters = (cas && contended) ? 4 : float_contended ? 32 : 256;
    unsigned n = blocks * threads;
    size_t words_len = contended ? (size_t)blocks * 32 : n;
    T *w, *out;
    CK(cudaMalloc(&w, words_len * sizeof(T)));
    CK(cudaMalloc(&out, n * sizeof(T)));
    CK(cudaMemset(w, 0, words_len * sizeof(T)));
    void* args[] = {&w, &out, &iters};
    TIMED(ms, CK(cudaLaunchKernel(kernel, dim3(blocks), dim3(threads), args, 0, 0)));
    std::vector<T> h(words_len), o(n);
    CK(cudaMemcpy(h.data(), w, words_len * sizeof(T), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(o.data(), out, n * sizeof(T), cudaMemcpyDeviceToHost));
    cudaFree(w);
    cudaFree(out);
    *units = (double)n * iters;
    return check_atomic<T>(c, blocks, threads, iters, h, o);
}

static int run_atomic(const std::string& name, float* ms, double* units) {
    AtomicCase c;
    if (!parse_atomic(name, c)) return 2;
    std::string kname = "atomic__" + c.op + "__" + c.placement + "__" + c.scope + "__" + c.order + "__" + c.type;
    void* sym = nullptr;
#define TRY(K)                                                                                 \
    if (kname == #K) sym = (void*)K;
#include "atomic_kernels.inc"
#undef TRY
    if (!sym) FAIL("no kernel %s", kname.c_str());
    if (c.type == "u32") return run_atomic_typed<unsigned>(c, sym, ms, units);
    if (c.type == "u64") return run_atomic_typed<unsigned long long>(c, sym, ms, units);
    if (c.type == "u8") return run_atomic_typed<unsigned char>(c, sym, ms, units);
    if (c.type == "u16") return run_atomic_typed<unsigned short>(c, sym, ms, units);
    if (c.type == "u128") return run_atomic_typed<u128>(c, sym, ms, units);
    if (c.type == "f64") return run_atomic_typed<double>(c, sym, ms, units);
    return run_atomic_typed<float>(c, sym, ms, units);
}

// ---------------------------------------------------------------------------------------------
// 2. Message-passing latency: release-store / acquire-load ping-pong.
extern "C" __global__ void mp__pingpong__blocks(unsigned* flags, int rounds) {
    cuda::atomic_ref<unsigned, thread_scope_device> ping(flags[0]), pong(flags[32]);
    for (int r = 1; r <= rounds; r++) {
        if (blockIdx.x == 0) {
            ping.store(r, memory_order_release);
            while (pong.load(memory_order_acquire) != (unsigned)r) {
            }
        } else {
            while (ping.load(memory_order_acquire) != (unsigned)r) {
            }
            pong.store(r, memory_order_release);
        }
    }
}

extern "C" __global__ void mp__pingpong__host(unsigned* flags, int rounds) {
    cuda::atomic_ref<unsigned, thread_scope_system> to_host(flags[0]), to_gpu(flags[32]);
    for (int r = 1; r <= rounds; r++) {
        to_host.store(r, memory_order_release);
        while (to_gpu.load(memory_order_acquire) != (unsigned)r) {
        }
    }
}

static int run_mp(const std::string& name, float* ms, double* units) {
    const int rounds = name == "mp/pingpong/blocks" ? 20000 : 2000;
    if (name == "mp/pingpong/blocks") {
        unsigned* f;
        CK(cudaMalloc(&f, 64 * sizeof(unsigned)));
        CK(cudaMemset(f, 0, 64 * sizeof(unsigned)));
        TIMED(ms, (mp__pingpong__blocks<<<2, 1>>>(f, rounds)));
        unsigned h[64];
        CK(cudaMemcpy(h, f, sizeof h, cudaMemcpyDeviceToHost));
        cudaFree(f);
        if (h[0] != (unsigned)rounds || h[32] != (unsigned)rounds) FAIL("flags %u %u", h[0], h[32]);
    } else if (name == "mp/pingpong/host") {
        unsigned* f;
        CK(cudaHostAlloc(&f, 64 * sizeof(unsigned), cudaHostAllocMapped | cudaHostAllocPortable));
        memset(f, 0, 64 * sizeof(unsigned));
        unsigned* d;
        CK(cudaHostGetDevicePointer(&d, f, 0));
        auto* to_host = reinterpret_cast<std::atomic<unsigned>*>(&f[0]);
        auto* to_gpu = reinterpret_cast<std::atomic<unsigned>*>(&f[32]);
        std::atomic<bool> stop{false};
        std::thread echo([&] {
            for (int r = 1; r <= rounds && !stop.load(); r++) {
                while (to_host->load(std::memory_order_acquire) != (unsigned)r)
                    if (stop.load()) return;
                to_gpu->store(r, std::memory_order_release);
            }
        });
        int rc = 0;
        cudaEvent_t a, b;
        cudaEventCreate(&a);
        cudaEventCreate(&b);
        cudaEventRecord(a, 0);
        mp__pingpong__host<<<1, 1>>>(d, rounds);
        cudaError_t e = cudaGetLastError();
        cudaEventRecord(b, 0);
        if (e == cudaSuccess) e = cudaEventSynchronize(b);
        stop = true;
        echo.join();
        if (e != cudaSuccess) {
            snprintf(g_err, g_errlen, "host ping-pong: %s", cudaGetErrorString(e));
            rc = -1;
        } else {
            cudaEventElapsedTime(ms, a, b);
            if (f[0] != (unsigned)rounds || f[32] != (unsigned)rounds) {
                snprintf(g_err, g_errlen, "flags %u %u", f[0], f[32]);
                rc = 1;
            }
        }
        cudaEventDestroy(a);
        cudaEventDestroy(b);
        cudaFreeHost(f);
        if (rc) return rc;
    } else {
        return 2;
    }
    *units = rounds;
    return 0;
}

// ---------------------------------------------------------------------------------------------
// 3. Fences: a relaxed store then a fence, in a loop (132 x 128 threads x 1024). Checked:
// every thread's last store landed (not that the fence orders anything).
template <cuda::thread_scope S, bool SC>
__device__ void fence_body(int* x, int iters) {
    unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    cuda::atomic_ref<int, S> a(x[tid]);
    for (int i = 0; i < iters; i++) {
        a.store(i, memory_order_relaxed);
        cuda::atomic_thread_fence(SC ? memory_order_seq_cst : memory_order_acq_rel, S);
    }
}
#define FENCE_KERNEL(K, S, SC)                                                                 \
    extern "C" __global__ void fence__##K(int* x, int iters) { fence_body<S, SC>(x, iters); }
FENCE_KERNEL(sc__cta, thread_scope_block, true)
FENCE_KERNEL(sc__gpu, thread_scope_device, true)
FENCE_KERNEL(sc__sys, thread_scope_system, true)
FENCE_KERNEL(acq_rel__cta, thread_scope_block, false)
FENCE_KERNEL(acq_rel__gpu, thread_scope_device, false)
FENCE_KERNEL(acq_rel__sys, thread_scope_system, false)

static int run_fence(const std::string& name, float* ms, double* units) {
    const void* k = nullptr;
    if (name == "fence/sc/cta") k = (void*)fence__sc__cta;
    if (name == "fence/sc/gpu") k = (void*)fence__sc__gpu;
    if (name == "fence/sc/sys") k = (void*)fence__sc__sys;
    if (name == "fence/acq_rel/cta") k = (void*)fence__acq_rel__cta;
    if (name == "fence/acq_rel/gpu") k = (void*)fence__acq_rel__gpu;
    if (name == "fence/acq_rel/sys") k = (void*)fence__acq_rel__sys;
    if (!k) return 2;
    unsigned blocks = 132, threads = 128;
    int iters = 1024;
    int* x;
    CK(cudaMalloc(&x, blocks * threads * sizeof(int)));
    // -1 everywhere: a word no store of this launch reached cannot pass for one that was
    // (cudaMalloc may hand back the last launch's words, which already hold iters - 1).
    CK(cudaMemset(x, 0xff, blocks * threads * sizeof(int)));
    void* args[] = {&x, &iters};
    TIMED(ms, CK(cudaLaunchKernel(k, dim3(blocks), dim3(threads), args, 0, 0)));
    std::vector<int> h(blocks * threads);
    CK(cudaMemcpy(h.data(), x, h.size() * sizeof(int), cudaMemcpyDeviceToHost));
    cudaFree(x);
    // Every thread's last store landed in its own word. This does not prove that the fence
    // orders anything: a missing or too weak fence leaves the same words (see the Rust side's
    // `fence` in bench/src/rust_cases.rs; ordering is the litmus suite's job).
    for (size_t i = 0; i < h.size(); i++)
        if (h[i] != iters - 1) FAIL("x[%zu] = %d (expected %d)", i, h[i], iters - 1);
    *units = (double)blocks * threads * iters;
    return 0;
}

// ---------------------------------------------------------------------------------------------
// 4./5. Mutex and counting semaphores around `counter += 1`; every thread takes it `iters` times.
template <int MAX>
struct Sem {
    cuda::counting_semaphore<thread_scope_device, MAX> s;
    __device__ Sem() : s(MAX) {}
};
struct Mutex {
    cuda::binary_semaphore<thread_scope_device> s;
    __device__ Mutex() : s(1) {}
};
template <class L>
__global__ void init_lock(L* l) { new (l) L(); }

__global__ void k_mutex(Mutex* m, unsigned* counter, int iters) {
    for (int i = 0; i < iters; i++) {
        m->s.acquire();
        *(volatile unsigned*)counter += 1;
        m->s.release();
    }
}

template <int MAX>
__global__ void k_semaphore(Sem<MAX>* s, unsigned* stats, int iters) {
    cuda::atomic_ref<unsigned, thread_scope_device> holders(stats[0]), most(stats[32]), passes(stats[64]);
    for (int i = 0; i < iters; i++) {
        s->s.acquire();
        unsigned h = holders.fetch_add(1, memory_order_relaxed) + 1;
        most.fetch_max(h, memory_order_relaxed);
        passes.fetch_add(1, memory_order_relaxed);
        holders.fetch_sub(1, memory_order_relaxed);
        s->s.release();
    }
}

static bool shape(const std::string& s, unsigned& blocks, unsigned& threads, int& iters) {
    if (s == "1x32") { blocks = 1; threads = 32; iters = 64; return true; }
    if (s == "132x32") { blocks = 132; threads = 32; iters = 16; return true; }
    if (s == "132x256") { blocks = 132; threads = 256; iters = 4; return true; }
    return false;
}

template <int MAX>
static int run_sem(unsigned blocks, unsigned threads, int iters, float* ms, double* units) {
    Sem<MAX>* s;
    unsigned* stats;
    CK(cudaMalloc(&s, sizeof(Sem<MAX>)));
    CK(cudaMalloc(&stats, 96 * sizeof(unsigned)));
    CK(cudaMemset(stats, 0, 96 * sizeof(unsigned)));
    init_lock<<<1, 1>>>(s);
    TIMED(ms, (k_semaphore<MAX><<<blocks, threads>>>(s, stats, iters)));
    unsigned h[96];
    CK(cudaMemcpy(h, stats, sizeof h, cudaMemcpyDeviceToHost));
    cudaFree(s);
    cudaFree(stats);
    unsigned total = blocks * threads * iters;
    if (h[64] != total || h[32] > (unsigned)MAX || h[0] != 0)
        FAIL("passes %u/%u, most holders %u (max %d), left %u", h[64], total, h[32], MAX, h[0]);
    *units = total;
    return 0;
}

static int run_lock(const std::string& name, float* ms, double* units) {
    unsigned blocks, threads;
    int iters;
    auto slash = name.find('/');
    std::string kind = name.substr(0, slash), sh = name.substr(slash + 1);
    if (!shape(sh, blocks, threads, iters)) return 2;
    if (kind == "mutex") {
        Mutex* m;
        unsigned* counter;
        CK(cudaMalloc(&m, sizeof(Mutex)));
        CK(cudaMalloc(&counter, sizeof(unsigned)));
        CK(cudaMemset(counter, 0, sizeof(unsigned)));
        init_lock<<<1, 1>>>(m);
        TIMED(ms, (k_mutex<<<blocks, threads>>>(m, counter, iters)));
        unsigned h;
        CK(cudaMemcpy(&h, counter, sizeof h, cudaMemcpyDeviceToHost));
        cudaFree(m);
        cudaFree(counter);
        if (h != blocks * threads * iters) FAIL("counter %u, expected %u", h, blocks * threads * iters);
        *units = blocks * threads * iters;
        return 0;
    }
    if (kind == "semaphore4") return run_sem<4>(blocks, threads, iters, ms, units);
    if (kind == "semaphore32") return run_sem<32>(blocks, threads, iters, ms, units);
    return 2;
}

// ---------------------------------------------------------------------------------------------
// 5b. Hash table with a lock per bucket: 65,536 buckets, each a `cuda::binary_semaphore` next to
// its data; every thread inserts `iters` keys. Keys, buckets and the critical section are
// bench/src/table.rs line for line (the Rust side's `Mutex<Bucket, Gpu>`): insert n (thread
// tid's i-th is tid * iters + i) puts key mix(n) % TABLE_KEYS into bucket
// mix(key ^ TABLE_SALT) >> 16; a bucket counts a key it has, else appends it.
constexpr unsigned TABLE_BUCKET_BITS = 16, TABLE_BUCKETS = 1u << TABLE_BUCKET_BITS;
constexpr unsigned TABLE_KEYS = 1u << 16, TABLE_SLOTS = 7, TABLE_SALT = 0x9e3779b9u;

__host__ __device__ inline unsigned table_mix(unsigned x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}
__host__ __device__ inline unsigned table_key(unsigned n) { return table_mix(n) % TABLE_KEYS; }
__host__ __device__ inline unsigned table_bucket(unsigned key) {
    return table_mix(key ^ TABLE_SALT) >> (32 - TABLE_BUCKET_BITS);
}

struct Bucket {
    unsigned len;
    unsigned keys[TABLE_SLOTS];
    unsigned counts[TABLE_SLOTS];
};

// The critical section: count the key if the bucket has it, else append it (a full bucket
// counts it in len only, and the check fails).
__host__ __device__ inline void bucket_insert(Bucket& b, unsigned key) {
    unsigned len = b.len < TABLE_SLOTS ? b.len : TABLE_SLOTS;
    for (unsigned j = 0; j < len; j++) {
        if (b.keys[j] == key) {
            b.counts[j] += 1;
            return;
        }
    }
    if (len < TABLE_SLOTS) {
        b.keys[len] = key;
        b.counts[len] = 1;
    }
    b.len += 1;
}

// 64 bytes with libcu++'s int-sized binary semaphore, as the Rust side's Mutex<Bucket, Gpu>.
struct LockedBucket {
    cuda::binary_semaphore<thread_scope_device> s;
    Bucket b;
    __device__ LockedBucket() : s(1), b() {}
};

__global__ void init_table(LockedBucket* t) {
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < TABLE_BUCKETS; i += gridDim.x * blockDim.x)
        new (&t[i]) LockedBucket();
}

__global__ void k_table(LockedBucket* t, int iters) {
    unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    for (int i = 0; i < iters; i++) {
        unsigned key = table_key(tid * (unsigned)iters + (unsigned)i);
        LockedBucket& lb = t[table_bucket(key)];
        lb.s.acquire();
        bucket_insert(lb.b, key);
        lb.s.release();
    }
}

// Copies the buckets out of the table (not timed), so the host needs no offsets.
__global__ void table_buckets(const LockedBucket* t, Bucket* out) {
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < TABLE_BUCKETS; i += gridDim.x * blockDim.x)
        out[i] = t[i].b;
}

// The same keys with the same counts, in any order (the order of first inserts is a race).
static bool same_contents(const Bucket& want, const Bucket& got) {
    if (want.len != got.len || want.len > TABLE_SLOTS) return false;
    for (unsigned j = 0; j < want.len; j++) {
        bool found = false;
        for (unsigned k = 0; k < want.len; k++)
            found = found || (got.keys[k] == want.keys[j] && got.counts[k] == want.counts[j]);
        if (!found) return false;
    }
    return true;
}

// The shapes of the hash_table rows: blocks x threads of shape(), more inserts per thread.
static bool table_shape(const std::string& s, unsigned& blocks, unsigned& threads, int& iters) {
    if (s == "132x32") { blocks = 132; threads = 32; iters = 128; return true; }
    if (s == "132x256") { blocks = 132; threads = 256; iters = 32; return true; }
    return false;
}

// Checked: every bucket holds exactly the keys and counts of the same inserts done one at a
// time on the host (each insert counted once, no key appended twice).
static int run_table(const std::string& name, float* ms, double* units) {
    unsigned blocks, threads;
    int iters;
    if (name.rfind("hash_table/", 0) != 0 || !table_shape(name.substr(11), blocks, threads, iters)) return 2;
    LockedBucket* t;
    Bucket* d_out;
    CK(cudaMalloc(&t, TABLE_BUCKETS * sizeof(LockedBucket)));
    CK(cudaMalloc(&d_out, TABLE_BUCKETS * sizeof(Bucket)));
    init_table<<<TABLE_BUCKETS / 256, 256>>>(t);
    CK(cudaGetLastError());
    TIMED(ms, (k_table<<<blocks, threads>>>(t, iters)));
    table_buckets<<<TABLE_BUCKETS / 256, 256>>>(t, d_out);
    CK(cudaGetLastError());
    std::vector<Bucket> got(TABLE_BUCKETS);
    CK(cudaMemcpy(got.data(), d_out, TABLE_BUCKETS * sizeof(Bucket), cudaMemcpyDeviceToHost));
    cudaFree(t);
    cudaFree(d_out);
    unsigned total = blocks * threads * (unsigned)iters;
    std::vector<Bucket> want(TABLE_BUCKETS);  // value-initialized: all empty
    for (unsigned n = 0; n < total; n++) {
        unsigned key = table_key(n);
        bucket_insert(want[table_bucket(key)], key);
    }
    for (unsigned i = 0; i < TABLE_BUCKETS; i++)
        if (!same_contents(want[i], got[i]))
            FAIL("bucket %u: %u keys (expected %u), first key %u count %u (expected key %u count %u)", i,
                 got[i].len, want[i].len, got[i].keys[0], got[i].counts[0], want[i].keys[0], want[i].counts[0]);
    *units = total;
    return 0;
}

// ---------------------------------------------------------------------------------------------
// 5c. The user-shaped rows: binary_semaphore/lock, semaphore/mpmc_queue, scan/decoupled_lookback,
// latch/per_tile.
#include "user_shapes.inc"

// ---------------------------------------------------------------------------------------------
// 5d. Generic against state-space atomics: space/*.
#include "space.inc"

// ---------------------------------------------------------------------------------------------
// 5e. A reader-writer lock and a turn ring, the algorithms of ptx-sync's RwLock and Queue:
// rwlock/*, queue/turn_ring/*.
#include "rwlock_queue.inc"

// ---------------------------------------------------------------------------------------------
// 6. Latch fan-in: per round every block counts down a fresh latch and waits on it.
struct Latch {
    cuda::latch<thread_scope_device> l;
    __device__ Latch(int n) : l(n) {}
};
__global__ void init_latches(Latch* l, int n, int count) {
    for (int i = threadIdx.x; i < n; i += blockDim.x) new (&l[i]) Latch(count);
}
__global__ void k_latch(Latch* latches, unsigned* arrived, int rounds, unsigned* errors) {
    cuda::atomic_ref<unsigned, thread_scope_device> count(*arrived), err(*errors);
    for (int r = 0; r < rounds; r++) {
        __syncthreads();
        if (threadIdx.x == 0) {
            count.fetch_add(1, memory_order_relaxed);
            latches[r].l.arrive_and_wait();
            if (count.load(memory_order_relaxed) < (unsigned)(r + 1) * gridDim.x) err.fetch_add(1);
        }
        __syncthreads();
    }
}

static int run_latch(const std::string& name, float* ms, double* units) {
    if (name != "latch/132x128") return 2;
    unsigned blocks = 132, threads = 128;
    int rounds = 500;
    Latch* l;
    unsigned *arrived, *errors;
    CK(cudaMalloc(&l, rounds * sizeof(Latch)));
    CK(cudaMalloc(&arrived, 4));
    CK(cudaMalloc(&errors, 4));
    CK(cudaMemset(arrived, 0, 4));
    CK(cudaMemset(errors, 0, 4));
    init_latches<<<1, 256>>>(l, rounds, blocks);
    void* args[] = {&l, &arrived, &rounds, &errors};
    TIMED(ms, CK(cudaLaunchCooperativeKernel((void*)k_latch, dim3(blocks), dim3(threads), args, 0, 0)));
    unsigned e;
    CK(cudaMemcpy(&e, errors, 4, cudaMemcpyDeviceToHost));
    cudaFree(l);
    cudaFree(arrived);
    cudaFree(errors);
    if (e) FAIL("%u early wake-ups", e);
    *units = rounds;
    return 0;
}

// ---------------------------------------------------------------------------------------------
// 7. Block barrier: 132 x 256 threads, 10000 phases, each checked by a double-buffered
// neighbour exchange in shared memory.
constexpr int BB_THREADS = 256;
__global__ void k_bb_syncthreads(int iters, unsigned* errors) {
    __shared__ int buf[2][BB_THREADS];
    unsigned err = 0;
    for (int i = 0; i < iters; i++) {
        buf[i & 1][threadIdx.x] = i;
        __syncthreads();
        err += buf[i & 1][(threadIdx.x + 1) % blockDim.x] != i;
    }
    if (err) atomicAdd(errors, err);
}
__global__ void k_bb_cuda_barrier(int iters, unsigned* errors) {
    __shared__ int buf[2][BB_THREADS];
    __shared__ cuda::barrier<thread_scope_block> bar;
    if (threadIdx.x == 0) init(&bar, blockDim.x);
    __syncthreads();
    unsigned err = 0;
    for (int i = 0; i < iters; i++) {
        buf[i & 1][threadIdx.x] = i;
        bar.arrive_and_wait();
        err += buf[i & 1][(threadIdx.x + 1) % blockDim.x] != i;
    }
    if (err) atomicAdd(errors, err);
}
__global__ void k_bb_split(int iters, unsigned* errors, float* sink) {
    __shared__ int buf[2][BB_THREADS];
    __shared__ cuda::barrier<thread_scope_block> bar;
    if (threadIdx.x == 0) init(&bar, blockDim.x);
    __syncthreads();
    unsigned err = 0;
    float acc = threadIdx.x;
    for (int i = 0; i < iters; i++) {
        buf[i & 1][threadIdx.x] = i;
        auto token = bar.arrive();
        for (int k = 0; k < 16; k++) acc = acc * 0.999f + 1.0f;  // independent work
        bar.wait(std::move(token));
        err += buf[i & 1][(threadIdx.x + 1) % blockDim.x] != i;
    }
    if (err) atomicAdd(errors, err);
    if (acc == -1.0f) *sink = acc;
}

static int run_block_barrier(const std::string& name, float* ms, double* units) {
    unsigned blocks = 132;
    int iters = 10000;
    unsigned* errors;
    float* sink;
    CK(cudaMalloc(&errors, 4));
    CK(cudaMalloc(&sink, 4));
    CK(cudaMemset(errors, 0, 4));
    if (name == "block_barrier/syncthreads")
        TIMED(ms, (k_bb_syncthreads<<<blocks, BB_THREADS>>>(iters, errors)));
    else if (name == "block_barrier/cuda_barrier")
        TIMED(ms, (k_bb_cuda_barrier<<<blocks, BB_THREADS>>>(iters, errors)));
    else if (name == "block_barrier/split_arrive_wait")
        TIMED(ms, (k_bb_split<<<blocks, BB_THREADS>>>(iters, errors, sink)));
    else
        return 2;
    unsigned e;
    CK(cudaMemcpy(&e, errors, 4, cudaMemcpyDeviceToHost));
    cudaFree(errors);
    cudaFree(sink);
    if (e) FAIL("%u stale neighbour reads", e);
    *units = iters;
    return 0;
}

// ---------------------------------------------------------------------------------------------
// 8. Grid barrier: thread 0 of each block writes its slot, barrier, reads its neighbour's slot
// (double-buffered), 2000 rounds, cooperative launch, 128 threads a block.
__global__ void k_grid_sync(int* slots, int rounds, unsigned* errors) {
    cg::grid_group grid = cg::this_grid();
    unsigned err = 0, nb = gridDim.x;
    for (int r = 0; r < rounds; r++) {
        if (threadIdx.x == 0) ((volatile int*)slots)[(r & 1) * nb + blockIdx.x] = r;
        grid.sync();
        if (threadIdx.x == 0) err += ((volatile int*)slots)[(r & 1) * nb + (blockIdx.x + 1) % nb] != r;
    }
    if (err) atomicAdd(errors, err);
}
struct DevBarrier {
    cuda::barrier<thread_scope_device> b;
    __device__ DevBarrier(int n) : b(n) {}
};
__global__ void init_dev_barrier(DevBarrier* b, int n) { new (b) DevBarrier(n); }
__global__ void k_grid_cuda_barrier(DevBarrier* bar, int* slots, int rounds, unsigned* errors) {
    unsigned err = 0, nb = gridDim.x;
    for (int r = 0; r < rounds; r++) {
        if (threadIdx.x == 0) ((volatile int*)slots)[(r & 1) * nb + blockIdx.x] = r;
        __syncthreads();
        if (threadIdx.x == 0) bar->b.arrive_and_wait();
        __syncthreads();
        if (threadIdx.x == 0) err += ((volatile int*)slots)[(r & 1) * nb + (blockIdx.x + 1) % nb] != r;
    }
    if (err) atomicAdd(errors, err);
}

static int run_grid_barrier(const std::string& name, float* ms, double* units) {
    // grid_barrier/<kind>/<blocks>: grid.sync() for grid_sync;
    // cuda::barrier<thread_scope_device> for cuda_barrier.
    unsigned blocks;
    bool coop_groups;
    {
        const std::string rest = name.substr(std::string("grid_barrier/").size());
        const size_t slash = rest.find('/');
        if (slash == std::string::npos) return 2;
        const std::string kind = rest.substr(0, slash), n = rest.substr(slash + 1);
        if (n == "132") blocks = 132;
        else if (n == "264") blocks = 264;
        else if (n == "528") blocks = 528;
        else if (n == "1056") blocks = 1056;
        else return 2;
        if (kind == "grid_sync") coop_groups = true;
        else if (kind == "cuda_barrier") coop_groups = false;
        else return 2;
    }
    int rounds = 2000;
    int* slots;
    unsigned* errors;
    DevBarrier* bar;
    CK(cudaMalloc(&slots, 2 * blocks * sizeof(int)));
    CK(cudaMemset(slots, 0xff, 2 * blocks * sizeof(int)));
    CK(cudaMalloc(&errors, 4));
    CK(cudaMemset(errors, 0, 4));
    CK(cudaMalloc(&bar, sizeof(DevBarrier)));
    init_dev_barrier<<<1, 1>>>(bar, blocks);
    if (coop_groups) {
        void* args[] = {&slots, &rounds, &errors};
        TIMED(ms, CK(cudaLaunchCooperativeKernel((void*)k_grid_sync, dim3(blocks), dim3(128), args, 0, 0)));
    } else {
        void* args[] = {&bar, &slots, &rounds, &errors};
        TIMED(ms, CK(cudaLaunchCooperativeKernel((void*)k_grid_cuda_barrier, dim3(blocks), dim3(128), args, 0, 0)));
    }
    unsigned e;
    CK(cudaMemcpy(&e, errors, 4, cudaMemcpyDeviceToHost));
    cudaFree(slots);
    cudaFree(errors);
    cudaFree(bar);
    if (e) FAIL("%u stale neighbour reads", e);
    *units = rounds;
    return 0;
}

// ---------------------------------------------------------------------------------------------
static std::vector<std::string> g_names;

static void build_names() {
    if (!g_names.empty()) return;
    for (const char* op : {"fetch_add", "cas_loop", "exchange"})
        for (const char* pl : {"contended", "distinct"})
            for (const char* sc : {"cta", "gpu"})
                for (const char* o : {"relaxed", "acq_rel"})
                    for (const char* t : {"u32", "u64"})
                        g_names.push_back(std::string("atomic/") + op + "/" + pl + "/" + sc + "/" + o + "/" + t);
    g_names.push_back("atomic/float_add/contended/gpu/relaxed/f32");
    g_names.push_back("atomic/float_add/distinct/gpu/relaxed/f32");
    g_names.push_back("atomic/fetch_max/contended/gpu/relaxed/f32");
    g_names.push_back("atomic/fetch_max/contended/gpu/relaxed/f64");
    g_names.push_back("atomic/fetch_add/contended/gpu/relaxed/u8");
    g_names.push_back("atomic/fetch_add/contended/gpu/relaxed/u16");
    g_names.push_back("atomic/cas_loop/contended/gpu/relaxed/u128");
    g_names.push_back("atomic/cas_loop_global/contended/cta/relaxed/u64");
    g_names.push_back("atomic/cas_loop_not_unrolled/contended/cta/relaxed/u64");
    g_names.push_back("mp/pingpong/blocks");
    g_names.push_back("mp/pingpong/host");
    for (const char* f : {"sc", "acq_rel"})
        for (const char* s : {"cta", "gpu", "sys"}) g_names.push_back(std::string("fence/") + f + "/" + s);
    for (const char* k : {"mutex", "semaphore4", "semaphore32"})
        for (const char* s : {"1x32", "132x32", "132x256"}) g_names.push_back(std::string(k) + "/" + s);
    for (const char* s : {"132x32", "132x256"}) g_names.push_back(std::string("hash_table/") + s);
    user_shape_names(g_names);
    space_names(g_names);
    rwlock_queue_names(g_names);
    g_names.push_back("latch/132x128");
    for (const char* b : {"syncthreads", "cuda_barrier", "split_arrive_wait"})
        g_names.push_back(std::string("block_barrier/") + b);
    for (const char* b : {"grid_sync", "cuda_barrier"})
        for (const char* n : {"132", "264", "528", "1056"})
            g_names.push_back(std::string("grid_barrier/") + b + "/" + n);
}

extern "C" int ref_case_count() {
    build_names();
    return (int)g_names.size();
}

extern "C" const char* ref_case_name(int i) {
    build_names();
    return i >= 0 && i < (int)g_names.size() ? g_names[i].c_str() : nullptr;
}

extern "C" int ref_run(const char* cname, float* ms, double* units, char* err, int errlen) {
    g_err = err;
    g_errlen = errlen;
    err[0] = 0;
    std::string name(cname);
    auto starts = [&](const char* p) { return name.rfind(p, 0) == 0; };
    int rc = 2;
    if (is_user_shape(name)) rc = run_user_shape(name, ms, units);
    else if (is_rwlock_queue(name)) rc = run_rwlock_queue(name, ms, units);
    else if (starts("space/")) rc = run_space(name, ms, units);
    else if (starts("atomic/")) rc = run_atomic(name, ms, units);
    else if (starts("mp/")) rc = run_mp(name, ms, units);
    else if (starts("fence/")) rc = run_fence(name, ms, units);
    else if (starts("mutex/") || starts("semaphore")) rc = run_lock(name, ms, units);
    else if (starts("hash_table/")) rc = run_table(name, ms, units);
    else if (starts("latch/")) rc = run_latch(name, ms, units);
    else if (starts("block_barrier/")) rc = run_block_barrier(name, ms, units);
    else if (starts("grid_barrier/")) rc = run_grid_barrier(name, ms, units);
    if (rc == 2) snprintf(err, errlen, "unknown case %s", cname);
    return rc;
}
