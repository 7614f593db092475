//! Bad launches on a real GPU: each is refused with its exact error (before the driver where
//! the host crate can tell, by the driver otherwise), and none hurts the GPU: a good launch
//! after each one works.

use crate::{Ctx, GpuTest};
use ptx_sync_host::cudarc::driver::sys::CUresult;
use ptx_sync_host::cudarc::driver::{CudaSlice, DriverError, LaunchConfig, PushKernelArg};
use ptx_sync_host::{launch_config, ClusterConfig, Error, Kernel};
use ptx_sync_testkit::{one_thread, Result};
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(60);

/// What a bad launch must give.
#[derive(Debug)]
enum Want {
    Empty(&'static str),
    Driver(CUresult),
    GridTooLarge,
    BadCluster,
    BadArguments,
    /// Accepted (and run).
    Ok,
}

fn matches(r: &ptx_sync_host::Result<()>, want: &Want) -> bool {
    match (r, want) {
        (Err(Error::Empty(w)), Want::Empty(e)) => w == e,
        (
            Err(Error::Driver {
                source: DriverError(c),
                ..
            }),
            Want::Driver(e),
        ) => c == e,
        (Err(Error::GridTooLarge { .. }), Want::GridTooLarge) => true,
        (Err(Error::BadCluster { .. }), Want::BadCluster) => true,
        (Err(Error::BadArguments { .. }), Want::BadArguments) => true,
        (Ok(()), Want::Ok) => true,
        _ => false,
    }
}

/// `misuse_fault_write(done, tag)` on one thread, waited for, and `done` read back: the GPU
/// still works when it holds `tag`.
fn good_launch(ctx: &Ctx, writer: &Kernel, done: &CudaSlice<u32>, tag: u32) -> Result<()> {
    // SAFETY: misuse_fault_write(ptr, value) to a live one-word buffer.
    unsafe {
        ctx.gpu
            .launch_builder(writer)
            .arg(done)
            .arg(tag)
            .launch(one_thread())
    }?;
    ctx.gpu.wait(TIMEOUT)?;
    let got = ctx.gpu.download(done)?;
    if got != [tag] {
        return Err(format!("the good launch wrote {got:?}, expected [{tag}]").into());
    }
    Ok(())
}

/// Expected, each followed by a good launch that works:
/// grid (0, 1, 1) -> `Error::Empty("grid dimension")`; block (0, 1, 1) ->
/// `Error::Empty("block dimension")`; a block of 2048 threads -> driver
/// CUDA_ERROR_INVALID_VALUE; grid.x = 2^31 -> CUDA_ERROR_INVALID_VALUE; 1 MiB of dynamic shared
/// memory -> CUDA_ERROR_INVALID_VALUE (raising the kernel's limit is refused); a cooperative
/// grid one block past the limit -> `Error::GridTooLarge`; one argument of two, three of two,
/// and a u64 for a u32 parameter -> `Error::BadArguments`; on sm_90, clusters of 0, 17 and 32
/// blocks and a grid of 6 blocks in clusters of 4 -> `Error::BadCluster`, while clusters of 9
/// and 16 blocks (non-portable sizes, which the host crate allows) launch and run (older
/// GPUs: `NoClusters`, the cluster shapes are then skipped and the detail says so).
fn bad_launches(ctx: &Ctx) -> Result<String> {
    let writer = ctx.kernel("misuse_fault_write")?;
    let grid_rounds = ctx.kernel("host_api_grid_rounds")?;
    let cluster = ctx.kernel("host_api_cluster_shape")?;
    let done = ctx.gpu.zeros::<u32>(1)?;
    let words = ctx.gpu.zeros::<u32>(4)?;
    let plain = |cfg: LaunchConfig| -> ptx_sync_host::Result<()> {
        // SAFETY: misuse_fault_write(ptr, value) to a live buffer; refused before running.
        unsafe {
            ctx.gpu
                .launch_builder(&writer)
                .arg(&done)
                .arg(1u32)
                .launch(cfg)
        }
    };
    let coop_limit = ctx.gpu.cooperative_limit(&grid_rounds, 256, 0)?;
    type Call<'a> = Box<dyn Fn() -> ptx_sync_host::Result<()> + 'a>;
    let mut checks: Vec<(&str, Call, Want)> = vec![
        (
            "grid (0, 1, 1)",
            Box::new(|| plain(launch_config(0, 1, 0))),
            Want::Empty("grid dimension"),
        ),
        (
            "block (0, 1, 1)",
            Box::new(|| plain(launch_config(1, 0, 0))),
            Want::Empty("block dimension"),
        ),
        (
            "a block of 2048 threads",
            Box::new(|| plain(launch_config(1, 2048, 0))),
            Want::Driver(CUresult::CUDA_ERROR_INVALID_VALUE),
        ),
        (
            "grid.x = 2^31",
            Box::new(|| plain(launch_config(1u32 << 31, 1, 0))),
            Want::Driver(CUresult::CUDA_ERROR_INVALID_VALUE),
        ),
        (
            "1 MiB of dynamic shared memory",
            Box::new(|| plain(launch_config(1, 1, 1 << 20))),
            Want::Driver(CUresult::CUDA_ERROR_INVALID_VALUE),
        ),
        (
            "a cooperative grid one block past the limit",
            // SAFETY: host_api_grid_rounds(bar, counts, rounds, errors); refused before running.
            Box::new(|| {
                unsafe {
                    ctx.gpu
                        .launch_builder(&grid_rounds)
                        .arg(&words)
                        .arg(&words)
                        .arg(0u32)
                        .arg(&words)
                        .launch_cooperative(launch_config(coop_limit.max_blocks + 1, 256, 0))
                }
                .map(drop)
            }),
            Want::GridTooLarge,
        ),
        (
            "one argument of two",
            // SAFETY: refused before the launch (too few arguments).
            Box::new(|| unsafe {
                ctx.gpu
                    .launch_builder(&writer)
                    .arg(&done)
                    .launch(one_thread())
            }),
            Want::BadArguments,
        ),
        (
            "three arguments of two",
            // SAFETY: refused before the launch (too many arguments).
            Box::new(|| unsafe {
                ctx.gpu
                    .launch_builder(&writer)
                    .arg(&done)
                    .arg(1u32)
                    .arg(2u32)
                    .launch(one_thread())
            }),
            Want::BadArguments,
        ),
        (
            "a u64 for a u32 parameter",
            // SAFETY: refused before the launch (argument 1 is 8 bytes, not 4).
            Box::new(|| unsafe {
                ctx.gpu
                    .launch_builder(&writer)
                    .arg(&done)
                    .arg(1u64)
                    .launch(one_thread())
            }),
            Want::BadArguments,
        ),
    ];
    let mut note = String::new();
    let shapes: [(&str, ClusterConfig, Want); 6] = [
        (
            "clusters of 0 blocks",
            ClusterConfig::linear(4, 0, 32, 0),
            Want::BadCluster,
        ),
        // Past 8 blocks a cluster is non-portable: the host crate allows it for the kernel,
        // and sm_90 takes up to 16.
        (
            "clusters of 9 blocks",
            ClusterConfig::linear(2, 9, 32, 0),
            Want::Ok,
        ),
        (
            "clusters of 16 blocks",
            ClusterConfig::linear(2, 16, 32, 0),
            Want::Ok,
        ),
        (
            "clusters of 17 blocks",
            ClusterConfig::linear(2, 17, 32, 0),
            Want::BadCluster,
        ),
        (
            "clusters of 32 blocks",
            ClusterConfig::linear(2, 32, 32, 0),
            Want::BadCluster,
        ),
        (
            "a grid of 6 blocks in clusters of 4",
            ClusterConfig {
                grid_dim: (6, 1, 1),
                block_dim: (32, 1, 1),
                cluster_dim: (4, 1, 1),
                shared_mem_bytes: 0,
            },
            Want::BadCluster,
        ),
    ];
    let (cluster, words) = (&cluster, &words);
    // SAFETY: host_api_cluster_shape(out, tag); refused before running.
    let cluster_launch = move |cfg: ClusterConfig| {
        unsafe {
            ctx.gpu
                .launch_builder(cluster)
                .arg(words)
                .arg(0u32)
                .launch_cluster(cfg)
        }
        .map(drop)
    };
    if matches!(
        cluster_launch(ClusterConfig::linear(1, 1, 32, 0)),
        Err(Error::NoClusters { .. })
    ) {
        note = "; the cluster shapes skipped (no clusters before sm_90)".into();
    } else {
        ctx.gpu.wait(TIMEOUT)?;
        for (what, cfg, want) in shapes {
            checks.push((what, Box::new(move || cluster_launch(cfg)), want));
        }
    }
    let mut bad = Vec::new();
    for (tag, (what, call, want)) in checks.iter().enumerate() {
        let r = call();
        if !matches(&r, want) {
            let got = match &r {
                Ok(()) => "Ok".to_string(),
                Err(e) => format!("{e:?}"),
            };
            bad.push(format!("{what}: expected {want:?}, got {got}"));
        }
        if let Err(e) = good_launch(ctx, &writer, &done, tag as u32 + 100) {
            return Err(format!("after {what}, a good launch failed: {e}").into());
        }
    }
    if !bad.is_empty() {
        return Err(bad.join("; ").into());
    }
    Ok(format!(
        "{} launches gave their exact answer (bad ones refused, 9- and 16-block clusters run); a good launch worked after each{note}",
        checks.len()
    ))
}

pub fn tests() -> Vec<GpuTest> {
    crate::cases![TIMEOUT;
        "misuse_bad_launches_leave_the_gpu_working" => bad_launches,
    ]
}
