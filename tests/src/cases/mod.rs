//! The GPU test cases, one module per area; each module's `tests()` lists its cases.

pub mod atomic_types;
pub mod atomics;
pub mod barrier;
pub mod barrier_completion;
pub mod bulk_copy;
pub mod cluster;
pub mod convergence;
pub mod examples;
pub mod flag;
pub mod harness;
pub mod host_api;
pub mod latch;
pub mod managed;
pub mod message;
pub mod misuse;
pub mod misuse_allocs;
pub mod misuse_faults;
pub mod misuse_launches;
pub mod misuse_messages;
pub mod misuse_peer;
pub mod misuse_storms;
pub mod misuse_streams;
pub mod misuse_stuck;
pub mod misuse_waits;
pub mod multi_gpu;
pub mod mutex;
pub mod nvshmem;
pub mod patterns_arrive;
pub mod patterns_locks;
pub mod phases;
pub mod print;
pub mod semaphore;
pub mod shared;
pub mod shared_static;
pub mod sys;
pub mod ticket;
pub mod timed;
pub mod warp_collectives;
pub mod warp_collectives_plan;
pub mod warp_intrinsics;
pub mod warp_intrinsics_plan;

use crate::GpuTest;

/// All cases, in run order.
pub fn tests() -> Vec<GpuTest> {
    let mut all = harness::tests();
    all.extend(atomics::tests());
    all.extend(atomic_types::tests());
    all.extend(message::tests());
    all.extend(flag::tests());
    all.extend(convergence::tests());
    all.extend(mutex::tests());
    all.extend(ticket::tests());
    all.extend(semaphore::tests());
    all.extend(patterns_locks::tests());
    all.extend(latch::tests());
    all.extend(barrier::tests());
    all.extend(barrier_completion::tests());
    all.extend(patterns_arrive::tests());
    all.extend(phases::tests());
    all.extend(timed::tests());
    all.extend(misuse::tests());
    all.extend(misuse_stuck::tests());
    all.extend(misuse_streams::tests());
    all.extend(misuse_faults::tests());
    all.extend(misuse_messages::tests());
    all.extend(misuse_launches::tests());
    all.extend(misuse_allocs::tests());
    all.extend(misuse_waits::tests());
    all.extend(misuse_storms::tests());
    all.extend(misuse_peer::tests());
    all.extend(sys::tests());
    all.extend(managed::tests());
    all.extend(multi_gpu::tests());
    all.extend(nvshmem::tests());
    all.extend(cluster::tests());
    all.extend(bulk_copy::tests());
    all.extend(shared::tests());
    all.extend(shared_static::tests());
    all.extend(warp_intrinsics::tests());
    all.extend(print::tests());
    all.extend(warp_collectives::tests());
    all.extend(examples::tests());
    all.extend(host_api::tests());
    all
}
