//! Thread-block clusters (sm_90+): their geometry ([`ClusterConfig`]) and the checks that
//! turn an old GPU or an impossible cluster into an [`Error`] that says why instead of a bare
//! `CUDA_ERROR_INVALID_CLUSTER_SIZE`. The launch itself is [`Launch::launch_cluster`]
//! (`cuLaunchKernelEx` with `CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION`), or
//! `launch!(cluster kernel<<<cfg, gpu>>>(...))`.

use crate::error::counted;
use crate::launch::raw_config;
use crate::{Device, Error, Kernel, Result};
use cudarc::driver::{sys, LaunchConfig};

/// The geometry of a cluster launch: blocks in the grid, threads in a block, blocks in a
/// cluster (each grid dimension a multiple of the cluster's), dynamic shared memory per block.
///
/// ```no_run
/// use ptx_sync_host::{launch, ClusterConfig, Device};
/// # fn main() -> Result<(), ptx_sync_host::Error> {
/// let gpu = Device::open(0)?;
/// let kernels = gpu.load_ptx("ptx/my_kernels.ptx")?;
/// let k = kernels.kernel("cluster_kernel")?;
/// let out = gpu.zeros::<u32>(64)?;
/// // 16 clusters of 4 blocks, 128 threads a block, 1 KiB of dynamic shared memory each.
/// let cfg = ClusterConfig::linear(16, 4, 128, 1024);
/// let limit = unsafe { launch!(cluster k<<<cfg, gpu>>>(&out, 100u32)) }?;
/// assert!(limit.max_cluster_blocks >= 4);
/// gpu.wait(std::time::Duration::from_secs(10))?;
/// # Ok(()) }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClusterConfig {
    /// Blocks in the grid, per dimension.
    pub grid_dim: (u32, u32, u32),
    /// Threads in a block, per dimension.
    pub block_dim: (u32, u32, u32),
    /// Blocks in a cluster, per dimension.
    pub cluster_dim: (u32, u32, u32),
    /// Dynamic shared memory per block, in bytes.
    pub shared_mem_bytes: u32,
}

impl ClusterConfig {
    /// A 1-D launch: `clusters` clusters of `cluster_blocks` blocks of `block_threads` threads.
    pub fn linear(
        clusters: u32,
        cluster_blocks: u32,
        block_threads: u32,
        shared_mem_bytes: u32,
    ) -> ClusterConfig {
        ClusterConfig {
            grid_dim: (clusters.saturating_mul(cluster_blocks), 1, 1),
            block_dim: (block_threads, 1, 1),
            cluster_dim: (cluster_blocks, 1, 1),
            shared_mem_bytes,
        }
    }

    /// Blocks per cluster.
    pub fn cluster_blocks(&self) -> u32 {
        let (x, y, z) = self.cluster_dim;
        x.saturating_mul(y).saturating_mul(z)
    }

    /// Clusters in the grid (once [`check_shape`](Self::check_shape) accepted it), saturating
    /// at `u32::MAX` (a grid may hold more clusters than a `u32` counts).
    pub fn clusters(&self) -> u32 {
        let (g, c) = (self.grid_dim, self.cluster_dim);
        (g.0 / c.0.max(1))
            .saturating_mul(g.1 / c.1.max(1))
            .saturating_mul(g.2 / c.2.max(1))
    }

    /// The same launch without the cluster dimension (for occupancy queries).
    pub fn launch_config(&self) -> LaunchConfig {
        LaunchConfig {
            grid_dim: self.grid_dim,
            block_dim: self.block_dim,
            shared_mem_bytes: self.shared_mem_bytes,
        }
    }

    /// Checks what needs no GPU: no zero dimension, each grid dimension a multiple of the
    /// cluster's. `Err` is [`Error::ClusterShape`], which says what is wrong.
    ///
    /// ```
    /// use ptx_sync_host::{ClusterConfig, Error};
    /// assert!(ClusterConfig::linear(16, 4, 128, 0).check_shape().is_ok());
    /// let mut c = ClusterConfig::linear(16, 4, 128, 0);
    /// c.grid_dim.0 = 66; // not a whole number of clusters of 4
    /// assert!(matches!(c.check_shape(), Err(Error::ClusterShape { .. })));
    /// ```
    pub fn check_shape(&self) -> Result<()> {
        match self.shape_problem() {
            Some(why) => Err(Error::ClusterShape { config: *self, why }),
            None => Ok(()),
        }
    }

    /// What [`check_shape`](Self::check_shape) refuses, in words.
    fn shape_problem(&self) -> Option<String> {
        let dims = [
            ("grid", self.grid_dim),
            ("block", self.block_dim),
            ("cluster", self.cluster_dim),
        ];
        for (what, (x, y, z)) in dims {
            if x == 0 || y == 0 || z == 0 {
                return Some(format!(
                    "the {what} dimension ({x}, {y}, {z}) has a zero: every dimension must be at least 1"
                ));
            }
        }
        let (g, c) = (self.grid_dim, self.cluster_dim);
        if g.0 % c.0 != 0 || g.1 % c.1 != 0 || g.2 % c.2 != 0 {
            return Some(format!(
                "the grid ({}, {}, {}) is not a whole number of clusters ({}, {}, {}): make each \
                 grid dimension a multiple of the cluster's",
                g.0, g.1, g.2, c.0, c.1, c.2
            ));
        }
        None
    }
}

/// What a checked cluster launch can have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClusterLimit {
    /// The largest cluster (in blocks) this kernel can have with this block size and shared
    /// memory (`cuOccupancyMaxPotentialClusterSize`; 8 is the portable limit, up to 16 with
    /// non-portable sizes, which [`Device::check_cluster`] allows when asked for more than 8).
    pub max_cluster_blocks: u32,
    /// How many clusters of the requested shape can be resident at once
    /// (`cuOccupancyMaxActiveClusters`).
    pub max_active_clusters: u32,
}

/// Clusters need sm_90 or newer.
pub(crate) fn require_clusters(device: &str, cc: (u32, u32)) -> Result<()> {
    if cc < (9, 0) {
        return Err(Error::NoClusters {
            device: device.to_string(),
            compute_capability: cc,
        });
    }
    Ok(())
}

impl Device {
    /// Checks that `kernel` can be launched with `cfg` on this GPU: sm_90 or newer with cluster
    /// launch support, a well-formed shape, a cluster size the kernel can have with this block
    /// size and shared memory, and at least one such cluster fitting on the GPU. Clusters of
    /// more than 8 blocks are non-portable: the kernel's `NON_PORTABLE_CLUSTER_SIZE_ALLOWED`
    /// attribute is set for them.
    pub fn check_cluster(&self, kernel: &Kernel, cfg: &ClusterConfig) -> Result<ClusterLimit> {
        require_clusters(&self.name(), self.compute_capability())?;
        let bad = |why: String| Error::BadCluster {
            kernel: kernel.name().to_string(),
            config: *cfg,
            why,
        };
        if let Some(why) = cfg.shape_problem() {
            return Err(bad(why));
        }
        let supported =
            self.attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH)?;
        if supported == 0 {
            return Err(Error::NoClusters {
                device: self.name(),
                compute_capability: self.compute_capability(),
            });
        }
        let f = kernel.function();
        if cfg.cluster_blocks() > 8 {
            f.set_attribute(
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
                1,
            )
            .map_err(|e| self.driver_error("allowing a non-portable cluster size", e))?;
        }
        let max_cluster_blocks = f
            .occupancy_max_potential_cluster_size(cfg.launch_config(), self.stream())
            .map_err(|e| {
                self.driver_error(&format!("cluster occupancy of `{}`", kernel.name()), e)
            })?;
        if cfg.cluster_blocks() > max_cluster_blocks {
            return Err(bad(format!(
                "a cluster of {} exceeds the {max_cluster_blocks} that this kernel can have \
                 with {} and {} of dynamic shared memory a block",
                counted(cfg.cluster_blocks() as u128, "block"),
                counted(block_threads(cfg) as u128, "thread"),
                counted(cfg.shared_mem_bytes as u128, "byte")
            )));
        }
        let mut attr = cluster_attribute(cfg);
        let launch = raw_config(
            &cfg.launch_config(),
            self.stream().cu_stream(),
            &mut attr,
            1,
        );
        let mut active = 0i32;
        // SAFETY: `launch` and `attr` outlive the call; the function handle is valid.
        unsafe { sys::cuOccupancyMaxActiveClusters(&mut active, f.cu_function(), &launch) }
            .result()
            .map_err(|e| {
                self.driver_error(&format!("cluster occupancy of `{}`", kernel.name()), e)
            })?;
        if active <= 0 {
            return Err(bad(format!(
                "no cluster of {} of {} with {} of dynamic shared memory fits on the GPU at once",
                counted(cfg.cluster_blocks() as u128, "block"),
                counted(block_threads(cfg) as u128, "thread"),
                counted(cfg.shared_mem_bytes as u128, "byte")
            )));
        }
        Ok(ClusterLimit {
            max_cluster_blocks,
            max_active_clusters: active as u32,
        })
    }
}

fn block_threads(cfg: &ClusterConfig) -> u32 {
    let (x, y, z) = cfg.block_dim;
    x.saturating_mul(y).saturating_mul(z)
}

fn cluster_attribute(cfg: &ClusterConfig) -> sys::CUlaunchAttribute {
    // SAFETY: an all-zero attribute is a valid plain-data value (a union of integers).
    let mut attr: sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
    attr.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim = sys::CUlaunchAttributeValue_union__bindgen_ty_1 {
        x: cfg.cluster_dim.0,
        y: cfg.cluster_dim.1,
        z: cfg.cluster_dim.2,
    };
    attr
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shape_checks_say_what_is_wrong() {
        assert!(ClusterConfig::linear(16, 4, 128, 0).check_shape().is_ok());
        let mut c = ClusterConfig::linear(16, 4, 128, 0);
        c.grid_dim.0 = 66;
        let e = c.check_shape().unwrap_err();
        assert!(
            matches!(e, Error::ClusterShape { config, .. } if config == c),
            "{e:?}"
        );
        let e = e.to_string();
        assert!(
            e.contains("(66, 1, 1) is not a whole number of clusters (4, 1, 1)"),
            "{e}"
        );
        let e = ClusterConfig::linear(4, 0, 128, 0)
            .check_shape()
            .unwrap_err()
            .to_string();
        assert!(e.contains("dimension"), "{e}");
        let e = ClusterConfig::linear(4, 2, 0, 0)
            .check_shape()
            .unwrap_err()
            .to_string();
        assert!(e.contains("block dimension"), "{e}");
    }

    #[test]
    fn linear_geometry() {
        let c = ClusterConfig::linear(33, 4, 256, 4096);
        assert_eq!(c.grid_dim, (132, 1, 1));
        assert_eq!(c.cluster_blocks(), 4);
        assert_eq!(c.clusters(), 33);
        assert_eq!(c.launch_config().shared_mem_bytes, 4096);
    }

    #[test]
    fn older_gpus_are_refused_by_name() {
        let e = require_clusters("NVIDIA A100", (8, 0)).unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("NVIDIA A100 is sm_80"), "{msg}");
        assert!(msg.contains("sm_90"), "{msg}");
        assert!(require_clusters("NVIDIA H100", (9, 0)).is_ok());
        assert!(require_clusters("next", (10, 0)).is_ok());
    }

    #[test]
    fn bad_cluster_names_kernel_shape_and_reason() {
        let e = Error::BadCluster {
            kernel: "k".into(),
            config: ClusterConfig::linear(2, 32, 64, 0),
            why: "a cluster of 32 blocks exceeds the 16".into(),
        };
        let msg = e.to_string();
        for part in [
            "`k`",
            "grid (64, 1, 1)",
            "clusters of (32, 1, 1)",
            "64 threads",
            "exceeds the 16",
        ] {
            assert!(msg.contains(part), "`{part}` missing from: {msg}");
        }
    }
}
