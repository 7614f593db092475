//! Kernels of the cluster tests (tests/src/cases/cluster.rs), sm_90 only: launched with
//! thread-block clusters (ptx_sync_host's `Launch::launch_cluster`), they exchange shared memory
//! between the blocks of a cluster through the cluster barrier and distributed shared memory,
//! and contend on `Atomic<u32, Cluster>` counters.
#![cfg(target_feature = "sm_90")]

use ptx_sync::{block, cluster, Atomic, Cluster, Gpu, Ordering::*};

/// What thread `t` of the block of rank `rank` in cluster `c` writes in round `r`.
#[inline(always)]
fn tag(r: u32, c: u32, rank: u32, t: u32) -> u32 {
    r.wrapping_mul(0x9e37_79b9) ^ (c << 20) ^ (rank << 16) ^ t
}

/// Rounds of neighbour exchange in distributed shared memory. Dynamic shared memory: one u32
/// per thread. Round r: every thread writes `tag` into its block's word, `cluster::sync()`,
/// then reads the same word in the next and the previous block of its cluster (`mapa`) and
/// checks it; then `arrive`, compare, `wait` (no block overwrites its word before every
/// neighbour has read it). Also checks the cluster's shape once per block: rank = block index
/// mod cluster size, and `cluster_blocks` blocks in the cluster.
/// `stats` (u64): [0] wrong values, [1] values checked, [2] shape errors.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn cluster_dsmem_exchange(
    rounds: u32,
    cluster_blocks: u32,
    stats: *mut u64,
) {
    let t = block::thread_x();
    let (rank, n, c) = (
        cluster::block_rank(),
        cluster::block_count(),
        cluster::index_x(),
    );
    if t == 0 {
        let bad = (n != cluster_blocks) as u64
            + (rank != block::index_x() % cluster_blocks) as u64
            + (c != block::index_x() / cluster_blocks) as u64;
        Atomic::<u64, Gpu>::from_ptr(stats.add(2)).fetch_add(bad, Relaxed);
    }
    let mine = block::dynamic_shared_memory().cast::<u32>().add(t as usize);
    let (next, prev) = ((rank + 1) % n, (rank + n - 1) % n);
    let next_word = cluster::map_shared(mine, next);
    let prev_word = cluster::map_shared(mine, prev);
    let (mut errors, mut checks) = (0u64, 0u64);
    for r in 0..rounds {
        mine.write_volatile(tag(r, c, rank, t));
        cluster::sync();
        let (a, b) = (next_word.read_volatile(), prev_word.read_volatile());
        cluster::arrive();
        errors += (a != tag(r, c, next, t)) as u64 + (b != tag(r, c, prev, t)) as u64;
        checks += 2;
        cluster::wait();
    }
    Atomic::<u64, Gpu>::from_ptr(stats).fetch_add(errors, Relaxed);
    Atomic::<u64, Gpu>::from_ptr(stats.add(1)).fetch_add(checks, Relaxed);
}

/// `iters` `fetch_add(1)` per thread on one `Atomic<u32, Cluster>` per cluster, alternating
/// Relaxed and AcqRel: in block 0's shared memory through `mapa` (`mode` 0; dynamic shared
/// memory of 4 bytes) or on `counters[cluster]` in global memory (`mode` 1; zeroed by the
/// host). After a `cluster::sync()`, block 0's thread 0 reads the total. `results` (u64) per
/// cluster: [2c] the final count, [2c + 1] the sum of every value `fetch_add` returned (each
/// of 0..total exactly once gives total * (total - 1) / 2).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn cluster_atomic_contend(
    iters: u32,
    mode: u32,
    counters: *mut u32,
    results: *mut u64,
) {
    let (t, rank, c) = (block::thread_x(), cluster::block_rank(), cluster::index_x());
    let local = block::dynamic_shared_memory().cast::<u32>();
    let word = if mode == 0 {
        if rank == 0 && t == 0 {
            local.write_volatile(0);
        }
        cluster::map_shared(local, 0)
    } else {
        counters.add(c as usize)
    };
    let counter = Atomic::<u32, Cluster>::from_ptr(word);
    // Block 0's zero is visible to the cluster before anyone adds.
    cluster::sync();
    let mut sum = 0u64;
    for i in 0..iters {
        let order = if i % 2 == 0 { Relaxed } else { AcqRel };
        sum += counter.fetch_add(1, order) as u64;
    }
    Atomic::<u64, Gpu>::from_ptr(results.add(2 * c as usize + 1)).fetch_add(sum, Relaxed);
    // Every add is done (and block 0's shared memory no longer read remotely) after this.
    cluster::sync();
    if rank == 0 && t == 0 {
        *results.add(2 * c as usize) = counter.load(Relaxed) as u64;
    }
}
