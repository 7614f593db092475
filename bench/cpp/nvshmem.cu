// The NVSHMEM benchmarks' CUDA C++ side: the same kernels as tests/nvshmem-kernels/src/bench.rs,
// written against NVSHMEM's device API as a CUDA C++ user writes them, for the side-by-side
// rows of bench/src/bin/bench-nvshmem.rs. Built on the GPU machine by the staged
// run-nvshmem.sh: nvcc -rdc=true, then a device link with libnvshmem_device.a into one cubin
// that the harness loads through the driver API, exactly as it loads the Rust PTX.
#include <cstdint>
#include <nvshmem.h>
#include <nvshmemx.h>
#include <cuda/atomic>

__device__ __forceinline__ uint64_t now_ns() {
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

extern "C" __global__ void nvb_pingpong(uint64_t *data, uint64_t *sig, uint32_t rounds, uint64_t *out) {
    int me = nvshmem_my_pe();
    if (me > 1) return;
    uint64_t start = now_ns();
    for (uint32_t r = 0; r < rounds; ++r) {
        uint64_t v = r + 1;
        if (me == 0) {
            data[1] = v;
            nvshmem_uint64_put_signal(data, data + 1, 1, sig, v, NVSHMEM_SIGNAL_SET, 1);
            nvshmem_signal_wait_until(sig, NVSHMEM_CMP_GE, v);
        } else {
            nvshmem_signal_wait_until(sig, NVSHMEM_CMP_GE, v);
            data[1] = v;
            nvshmem_uint64_put_signal(data, data + 1, 1, sig, v, NVSHMEM_SIGNAL_SET, 0);
        }
    }
    if (me == 0) out[0] = now_ns() - start;
}

extern "C" __global__ void nvb_barrier_all(uint32_t rounds, uint64_t *out) {
    uint64_t start = now_ns();
    for (uint32_t r = 0; r < rounds; ++r) nvshmem_barrier_all();
    out[0] = now_ns() - start;
}

// libcu++'s barrier has no form over a peer's memory reached by address, so the C++ side of
// this row is NVSHMEM's barrier_all (the row compares our Barrier<Sys> against it); this
// kernel exists so both modules export the same names.
extern "C" __global__ void nvb_sys_barrier(uint64_t *buf, uint32_t rounds, uint64_t *out) {
    uint64_t start = now_ns();
    for (uint32_t r = 0; r < rounds; ++r) nvshmem_barrier_all();
    out[0] = now_ns() - start;
}

extern "C" __global__ void nvb_atomic_add(uint64_t *counter, uint32_t iters, uint64_t *out) {
    int peer = (nvshmem_my_pe() + 1) % nvshmem_n_pes();
    uint64_t start = now_ns();
    for (uint32_t i = 0; i < iters; ++i) nvshmem_uint64_atomic_add(counter, 1, peer);
    nvshmem_quiet();
    uint64_t end = now_ns();
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> lo(*(unsigned long long *)out);
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> hi(*(unsigned long long *)(out + 1));
    lo.fetch_min(start, cuda::memory_order_relaxed);
    hi.fetch_max(end, cuda::memory_order_relaxed);
}
