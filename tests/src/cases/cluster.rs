//! Thread-block clusters (sm_90): launched with `cuLaunchKernelEx` and a cluster dimension
//! (ptx_sync_host's `Launch::launch_cluster`), the kernels (tests/kernels/src/cluster.rs) exchange
//! shared memory between the blocks of each cluster through `cluster::sync()` and `mapa`, and
//! contend on one `Atomic<u32, Cluster>` per cluster. Every read and every count is checked.

use crate::{clusters_or_skip, Ctx, GpuTest};
use ptx_sync_host::cudarc::driver::PushKernelArg;
use ptx_sync_host::{ClusterConfig, ClusterLimit, Kernel, Launch};
use ptx_sync_testkit::Result;
use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_secs(60);
const THREADS: u32 = 256;

/// Launches and waits; a refusal for lack of clusters becomes a skip.
fn run<'a>(
    ctx: &'a Ctx,
    kernel: &'a Kernel,
    cfg: ClusterConfig,
    push: impl FnOnce(&mut Launch<'a>),
) -> Result<(ClusterLimit, Duration)> {
    let mut launch = ctx.gpu.launch_builder(kernel);
    push(&mut launch);
    let start = Instant::now();
    let limit = clusters_or_skip(unsafe { launch.launch_cluster(cfg) })?;
    ctx.gpu.wait(TIMEOUT)?;
    Ok((limit, start.elapsed()))
}

/// Rounds of neighbour exchange in distributed shared memory, clusters of `cluster_blocks`.
fn exchange(ctx: &Ctx, cluster_blocks: u32) -> Result<String> {
    const ROUNDS: u32 = 2_000;
    ctx.require_sm90("thread-block clusters need")?;
    let kernel = ctx.kernel("cluster_dsmem_exchange")?;
    let clusters = 2 * ctx.gpu.sm_count() / cluster_blocks;
    let blocks = clusters * cluster_blocks;
    let cfg = ClusterConfig::linear(clusters, cluster_blocks, THREADS, 4 * THREADS);
    let stats = ctx.gpu.zeros::<u64>(3)?;
    let (limit, took) = run(ctx, &kernel, cfg, |l| {
        l.arg(&ROUNDS).arg(&cluster_blocks).arg(&stats);
    })?;
    let s = ctx.gpu.download(&stats)?;
    let (errors, checks, shape) = (s[0], s[1], s[2]);
    let want = 2 * blocks as u64 * THREADS as u64 * ROUNDS as u64;
    if errors != 0 || checks != want || shape != 0 {
        return Err(format!(
            "{errors} stale or wrong neighbour words in {checks} reads (expected 0 in {want}); {shape} blocks with a wrong rank, cluster size or cluster index"
        ).into());
    }
    Ok(format!(
        "{clusters} clusters of {cluster_blocks} blocks x {THREADS} threads, {ROUNDS} rounds: {checks} reads of the next and previous block's shared memory (mapa) after cluster::sync / arrive+wait, 0 stale; rank, size and cluster index right in all {blocks} blocks; {} clusters resident at most, cluster size up to {}; {:.0} ns per round",
        limit.max_active_clusters,
        limit.max_cluster_blocks,
        took.as_secs_f64() * 1e9 / ROUNDS as f64
    ))
}

/// `fetch_add` contention on one `Atomic<u32, Cluster>` per cluster: in block 0's shared
/// memory through `mapa` (`mode` 0) or in global memory (`mode` 1).
fn contend(ctx: &Ctx, mode: u32) -> Result<String> {
    const CLUSTER: u32 = 4;
    const ITERS: u32 = 1_000;
    ctx.require_sm90("thread-block clusters need")?;
    let kernel = ctx.kernel("cluster_atomic_contend")?;
    let clusters = 2 * ctx.gpu.sm_count() / CLUSTER;
    let cfg = ClusterConfig::linear(clusters, CLUSTER, THREADS, 4);
    let counters = ctx.gpu.zeros::<u32>(clusters as usize)?;
    let results = ctx.gpu.zeros::<u64>(2 * clusters as usize)?;
    let (_, took) = run(ctx, &kernel, cfg, |l| {
        l.arg(&ITERS).arg(&mode).arg(&counters).arg(&results);
    })?;
    let r = ctx.gpu.download(&results)?;
    let words = ctx.gpu.download(&counters)?;
    let total = (CLUSTER * THREADS * ITERS) as u64;
    let want_sum = total * (total - 1) / 2;
    for c in 0..clusters as usize {
        let (count, sum) = (r[2 * c], r[2 * c + 1]);
        let global = words[c] as u64;
        if count != total || sum != want_sum || (mode == 1 && global != total) {
            return Err(format!(
                "cluster {c}: final count {count} (expected {total}), sum of returned values {sum} (expected {want_sum}), global word {global}"
            ).into());
        }
    }
    let place = if mode == 0 {
        "block 0's shared memory through mapa"
    } else {
        "global memory"
    };
    Ok(format!(
        "{clusters} clusters x {CLUSTER} blocks x {THREADS} threads x {ITERS} fetch_add (Relaxed/AcqRel) on one Atomic<u32, Cluster> per cluster in {place}: every final count exact ({total}), every cluster's returned values sum to n(n-1)/2; {} checks; {:.2} G adds/s",
        2 * clusters,
        (total * clusters as u64) as f64 / took.as_secs_f64() / 1e9
    ))
}

pub fn tests() -> Vec<GpuTest> {
    crate::cases![
        TIMEOUT;
        "cluster_dsmem_exchange_2" => |c| exchange(c, 2),
        "cluster_dsmem_exchange_4" => |c| exchange(c, 4),
        "cluster_dsmem_exchange_8" => |c| exchange(c, 8),
        "cluster_atomic_fetch_add_dsmem" => |c| contend(c, 0),
        "cluster_atomic_fetch_add_global" => |c| contend(c, 1),
    ]
}
